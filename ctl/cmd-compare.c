/* stressctl compare: two or more run records side by side, one column
 * per run, then their histograms of significant_ops_pending. */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cmd-compare.h"
#include "cmd.h"
#include "columns.h"
#include "jpath.h"
#include "options.h"
#include "output.h"
#include "proto.h"
#include "records.h"

const struct compare_row cmd_compare_rows[] = {
	{ "state", "state", NULL },
	{ "files", "params.files", NULL },
	{ "updates completed", "counters.updates_completed", NULL },
	/* Only where some run was interrupted. */
	{ "updates on disk (recounted)", "recount.updates_on_disk", NULL },
	{ "updates/s (since first update)",
	  "throughput.updates_per_s_since_first_update", "%.1f" },
	{ "updates/s (all time)", "throughput.updates_per_s_all_time", "%.1f" },
	{ "ops per update", "throughput.ops_per_update", "%.2f" },
	{ "significant queue avg",
	  "queue_depth.significant_ops_pending.average", "%.2f" },
	{ "significant queue p99", "queue_depth.significant_ops_pending.p99",
	  NULL },
	{ "significant queue max", "queue_depth.significant_ops_pending.max",
	  NULL },
	{ "total queue avg", "queue_depth.total_operations_pending.average",
	  "%.2f" },
	{ "total queue p99", "queue_depth.total_operations_pending.p99", NULL },
	{ "total queue max", "queue_depth.total_operations_pending.max", NULL },
	{ "enqueue->persist p50 (ms)", "latency_ms.enqueue_to_persist.p50",
	  "%.3f" },
	{ "enqueue->persist p99 (ms)", "latency_ms.enqueue_to_persist.p99",
	  "%.3f" },
	{ "rrd_update call p50 (ms)", "latency_ms.update_call.p50", "%.3f" },
	{ "rrd_update call p99 (ms)", "latency_ms.update_call.p99", "%.3f" },
	/* Only where some run had an rrdcached target (row_present). */
	{ "rrdcached queue avg", "rrdcached.queue_length.average", "%.2f" },
	{ "rrdcached queue max", "rrdcached.queue_length.max", NULL },
	{ "rrdcached flush (s)", "rrdcached.flush_s", "%.3f" },
	{ "errors", "errors.count", NULL },
};

const size_t cmd_compare_nrows = sizeof(cmd_compare_rows) /
    sizeof(*cmd_compare_rows);

/* The n-th line (from 0) of text wrapped to width at commas, or NULL
 * past the last; a piece longer than width is cut hard. */
static char *
wrap_line(const char *text, size_t width, size_t line)
{
	for (size_t i = 0; *text != '\0'; i++) {
		size_t n = strlen(text);

		if (n > width) {
			for (n = width; n > 0 && text[n - 1] != ','; n--)
				;
			if (n == 0)
				n = width;
		}
		if (i == line)
			return output_xprintf("%.*s", (int)n, text);
		text += n;
	}
	return NULL;
}

bool
cmd_compare_present(json_object **reps, int n, const char *path)
{
	for (int i = 0; i < n; i++)
		if (jpath(reps[i], path) != NULL)
			return true;
	return false;
}

static bool
hist_bucketed(json_object *hist)
{
	for (size_t i = 0; i < json_object_array_length(hist); i++)
		if (jpath(json_object_array_get_idx(hist, i), "upper") != NULL)
			return true;
	return false;
}

static int
cmp_int64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Whether the runs come from more than one host; a record without a host
 * name counts as one host of its own. */
static bool
hosts_differ(json_object **reps, int n)
{
	const char *host0 = jpath_str(reps[0], "host.name");

	for (int i = 1; i < n; i++) {
		const char *h = jpath_str(reps[i], "host.name");

		if ((h == NULL) != (host0 == NULL) ||
		    (h != NULL && strcmp(h, host0) != 0))
			return true;
	}
	return false;
}

/* A run's name in compare: "run ID", or "run ID@HOST" when the runs come
 * from several hosts, where run ids are each host's own and the same id
 * may well name two different runs. */
static char *
run_label(json_object *rep, bool by_host)
{
	char *id = jpath_text(rep, "run_id", NULL), *host, *label;

	if (!by_host)
		label = output_xprintf("run %s", id);
	else {
		host = jpath_text(rep, "host.name", NULL);
		label = output_xprintf("run %s@%s", id, host);
		free(host);
	}
	free(id);
	return label;
}

struct columns *
cmd_compare_columns(char first, int n)
{
	char *align = output_nomem(malloc((size_t)n + 2));
	struct columns *t;

	align[0] = first;
	memset(align + 1, 'r', (size_t)n);
	align[n + 1] = '\0';
	t = columns_new(align);
	free(align);
	return t;
}

/* The histograms of significant_ops_pending side by side: the union of
 * the values, each run's count (and share of its samples) beside them. */

/* One run's histogram while compare walks the union of values. */
struct hrun {
	struct hentry { int64_t value, count; } *e;
	size_t	n, pos;
	double	total;
};

static int
cmp_hval(const void *a, const void *b)
{
	int64_t x = ((const struct hentry *)a)->value;
	int64_t y = ((const struct hentry *)b)->value;

	return x < y ? -1 : x > y;
}

static void
compare_histograms(json_object **reps, int n, bool by_host)
{
	static const char *const key =
	    "queue_depth.significant_ops_pending.histogram";
	int64_t *vals = NULL;
	size_t nv = 0, cap = 0;
	struct columns *t;
	struct hrun *runs;
	bool bucketed = false;

	for (int i = 0; i < n; i++) {
		json_object *h = jpath(reps[i], key);

		if (json_object_is_type(h, json_type_array) &&
		    hist_bucketed(h))
			bucketed = true;
	}
	printf("\nHistogram of significant_ops_pending (samples per value)\n");
	/* Buckets of different runs do not line up: one after another. */
	if (bucketed) {
		for (int i = 0; i < n; i++) {
			json_object *h = jpath(reps[i], key);
			char *label = run_label(reps[i], by_host);

			printf("  %s\n", label);
			free(label);
			if (json_object_is_type(h, json_type_array))
				records_histogram(h, 4);
			else
				printf("    -\n");
		}
		return;
	}
	/* One sorted (value, count) list per run, walked in step with the
	 * union of values: linear, whatever the histograms' sizes. */
	runs = output_nomem(calloc((size_t)n, sizeof(*runs)));
	for (int i = 0; i < n; i++) {
		json_object *h = jpath(reps[i], key);
		size_t len = json_object_is_type(h, json_type_array) ?
		    json_object_array_length(h) : 0;

		runs[i].e = output_nomem(calloc(len + 1, sizeof(*runs[i].e)));
		for (size_t j = 0; j < len; j++) {
			json_object *e = json_object_array_get_idx(h, j);

			runs[i].e[j].value = json_object_get_int64(jpath(e,
			    "value"));
			runs[i].e[j].count = json_object_get_int64(jpath(e,
			    "count"));
			runs[i].total += (double)runs[i].e[j].count;
		}
		runs[i].n = len;
		qsort(runs[i].e, len, sizeof(*runs[i].e), cmp_hval);
		if (nv + len > cap) {
			cap = (nv + len) * 2;
			vals = output_nomem(realloc(vals, cap * sizeof(*vals)));
		}
		for (size_t j = 0; j < len; j++)
			vals[nv++] = runs[i].e[j].value;
	}
	if (nv > 0)	/* vals is NULL when no run has a histogram */
		qsort(vals, nv, sizeof(*vals), cmp_int64);

	t = cmd_compare_columns('r', n);
	columns_add(t, "value");
	for (int i = 0; i < n; i++) {
		char *label = run_label(reps[i], by_host);

		columns_add(t, "%s", label);
		free(label);
	}
	for (size_t k = 0; k < nv; k++) {
		if (k > 0 && vals[k] == vals[k - 1])
			continue;
		columns_add(t, "%" PRId64, vals[k]);
		for (int i = 0; i < n; i++) {
			struct hrun *r = &runs[i];
			double cnt = 0;

			while (r->pos < r->n && r->e[r->pos].value < vals[k])
				r->pos++;
			while (r->pos < r->n && r->e[r->pos].value == vals[k])
				cnt += (double)r->e[r->pos++].count;
			columns_add(t, "%.0f (%5.1f%%)", cnt,
			    r->total > 0 ? 100.0 * cnt / r->total : 0.0);
		}
	}
	for (int i = 0; i < n; i++)
		free(runs[i].e);
	free(runs);
	columns_print(t, stdout, 2);
	columns_free(t);
	free(vals);
}

static void
compare_text(json_object **reps, int n)
{
	struct columns *t;
	size_t width = CMD_COMPARE_MIN_COL, lines = 0;
	char *cell;
	bool by_host = hosts_differ(reps, n);

	/* The run columns are as wide as their widest value or heading. */
	for (int i = 0; i < n; i++) {
		cell = run_label(reps[i], by_host);
		if (strlen(cell) > width)
			width = strlen(cell);
		free(cell);
		for (size_t r = 0; r < cmd_compare_nrows; r++) {
			cell = jpath_text(reps[i], cmd_compare_rows[r].path,
			    cmd_compare_rows[r].dfmt);
			if (strlen(cell) > width)
				width = strlen(cell);
			free(cell);
		}
	}

	t = cmd_compare_columns('l', n);

	/* Heading: run id (with the host, if they differ), fs type, the
	 * directory (its end, if long) and the mount options wrapped at
	 * commas. */
	columns_add(t, "%s", "");
	for (int i = 0; i < n; i++) {
		cell = run_label(reps[i], by_host);
		columns_add(t, "%s", cell);
		free(cell);
	}
	columns_add(t, "filesystem");
	for (int i = 0; i < n; i++) {
		cell = jpath_text(reps[i], "target.fs_type", NULL);
		columns_add(t, "%.*s", (int)width, cell);
		free(cell);
	}
	columns_add(t, "directory");
	for (int i = 0; i < n; i++) {
		const char *dir = jpath_str(reps[i], "target.dir");
		size_t len = dir ? strlen(dir) : 0;

		if (dir == NULL)
			columns_add(t, "-");
		else if (len > width)
			columns_add(t, "...%s", dir + len - (width - 3));
		else
			columns_add(t, "%s", dir);
	}
	for (int i = 0; i < n; i++) {
		const char *o = jpath_str(reps[i], "target.mount_options");
		size_t k = 0;

		while (o != NULL && (cell = wrap_line(o, width, k)) != NULL) {
			free(cell);
			k++;
		}
		if (k > lines)
			lines = k;
	}
	for (size_t k = 0; k < (lines ? lines : 1); k++) {
		columns_add(t, "%s", k == 0 ? "mount options" : "");
		for (int i = 0; i < n; i++) {
			const char *o = jpath_str(reps[i],
			    "target.mount_options");

			cell = o != NULL ? wrap_line(o, width, k) : NULL;
			columns_add(t, "%s", cell ? cell : k ? "" : "-");
			free(cell);
		}
	}
	columns_add(t, "%s", "");
	for (int i = 0; i < n; i++)
		columns_add(t, "%s", "");

	for (size_t r = 0; r < cmd_compare_nrows; r++) {
		if (!cmd_compare_present(reps, n, cmd_compare_rows[r].path))
			continue;
		columns_add(t, "%s", cmd_compare_rows[r].label);
		for (int i = 0; i < n; i++) {
			cell = jpath_text(reps[i], cmd_compare_rows[r].path,
			    cmd_compare_rows[r].dfmt);
			columns_add(t, "%s", cell);
			free(cell);
		}
	}
	columns_print(t, stdout, 0);
	columns_free(t);
	compare_histograms(reps, n, by_host);
}

int
cmd_compare_show(const struct records_ctx *ctx,
    const struct compare_more *more)
{
	json_object **reps, *all = NULL, *list;
	int rc = CTL_EXIT_OK, got = 0;

	reps = output_nomem(calloc((size_t)ctx->nruns, sizeof(*reps)));
	for (got = 0; got < ctx->nruns; got++)
		if ((reps[got] = records_load(ctx, ctx->runs[got], &rc)) ==
		    NULL)
			goto fail;
	if (ctx->json) {
		all = output_nomem(json_object_new_object());
		list = output_nomem(json_object_new_array());
		for (int i = 0; i < got; i++)
			json_object_array_add(list, json_object_get(reps[i]));
		json_object_object_add(all, "runs", list);
		if (more != NULL)
			more->json(ctx, reps, got, all);
		printf("%s\n", output_json_string(all));
	} else {
		compare_text(reps, got);
		if (more != NULL)
			more->text(ctx, reps, got);
	}
fail:
	json_object_put(all);
	for (int i = 0; i < got; i++)
		json_object_put(reps[i]);
	free(reps);
	return rc;
}

static int
run_compare(const struct records_ctx *ctx)
{
	return cmd_compare_show(ctx, NULL);
}


const struct ctl_cmd cmd_compare_entry = {
	.name = "compare",
	.usage = "RUN RUN [RUN...]",
	.summary = "show two or more runs side by side",
	.details =
	    "Each RUN is a run id or the path of a report.json file, as for "
	    "report.  One\ncolumn per run: throughput, both queues, latency "
	    "and errors, then the\nhistograms of significant_ops_pending.  "
	    "--json prints {\"runs\": [REPORT, ...]}.\n",
	.min_runs = 2,
	.max_runs = -1,
	.parse = options_parse_plain,
	.run = run_compare,
};
