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

#include "capview.h"
#include "cmd-capacity.h"
#include "cmd-compare.h"
#include "columns.h"
#include "compare-view.h"
#include "ctl.h"
#include "fmt.h"
#include "options.h"
#include "proto.h"
#include "rank.h"
#include "records.h"
#include "text.h"
#include "verdicts.h"

#define ROW(label, path, dfmt, member) \
	{ label, path, dfmt, offsetof(struct runrec, member) }

const struct compare_row cmd_compare_rows[] = {
	{ "state", "state", NULL, CMD_COMPARE_STATE },
	ROW("updates completed", "counters.updates_completed", NULL,
	    counters.updates_completed),
	/* Only where some run was interrupted. */
	ROW("updates on disk (recounted)", "recount.updates_on_disk", NULL,
	    recount.updates_on_disk),
	ROW("updates/s (since first update)",
	    "throughput.updates_per_s_since_first_update", "%.1f",
	    throughput.since_first_update),
	ROW("updates/s (all time)", "throughput.updates_per_s_all_time",
	    "%.1f", throughput.all_time),
	ROW("ops per update", "throughput.ops_per_update", "%.2f",
	    throughput.ops_per_update),
	ROW("significant queue avg",
	    "queue_depth.significant_ops_pending.average", "%.2f",
	    sig.average),
	ROW("significant queue p99",
	    "queue_depth.significant_ops_pending.p99", NULL, sig.p99),
	ROW("significant queue max",
	    "queue_depth.significant_ops_pending.max", NULL, sig.max),
	ROW("total queue avg", "queue_depth.total_operations_pending.average",
	    "%.2f", total.average),
	ROW("total queue p99", "queue_depth.total_operations_pending.p99",
	    NULL, total.p99),
	ROW("total queue max", "queue_depth.total_operations_pending.max",
	    NULL, total.max),
	ROW("enqueue->persist p50 (ms)", "latency_ms.enqueue_to_persist.p50",
	    "%.3f", enqueue_to_persist.p50),
	ROW("enqueue->persist p99 (ms)", "latency_ms.enqueue_to_persist.p99",
	    "%.3f", enqueue_to_persist.p99),
	ROW("rrd_update call p50 (ms)", "latency_ms.update_call.p50", "%.3f",
	    update_call.p50),
	ROW("rrd_update call p99 (ms)", "latency_ms.update_call.p99", "%.3f",
	    update_call.p99),
	/* Only where some run had sync=data (cmd_compare_row_shown). */
	ROW("fdatasync p50 (ms)", "latency_ms.fdatasync.p50", "%.3f",
	    fdatasync.p50),
	ROW("fdatasync p99 (ms)", "latency_ms.fdatasync.p99", "%.3f",
	    fdatasync.p99),
	/* Only where some run had an rrdcached target (row_present). */
	ROW("rrdcached queue avg", "rrdcached.queue_length.average", "%.2f",
	    rrdcached.queue.average),
	ROW("rrdcached queue max", "rrdcached.queue_length.max", NULL,
	    rrdcached.queue.max),
	ROW("rrdcached flush (s)", "rrdcached.flush_s", "%.3f",
	    rrdcached.flush_s),
	ROW("errors", "errors.count", NULL, errors.count),
};

const size_t cmd_compare_nrows = sizeof(cmd_compare_rows) /
    sizeof(*cmd_compare_rows);

/* The n-th line (from 0) of text wrapped to width after a comma, blank or
 * slash, or NULL past the last; a piece longer than width is cut hard,
 * between characters. */
static char *
wrap_line(const char *text, size_t width, size_t line)
{
	for (size_t i = 0; *text != '\0'; i++) {
		size_t n = strlen(text);

		if (n > width) {
			for (n = width; n > 0 && strchr(", /", text[n - 1]) ==
			    NULL; n--)
				;
			if (n == 0 && (n = text_cut(text, width)) == 0)
				n = text_utf8_len(text) ? text_utf8_len(text) : 1;
		}
		if (i == line)
			return fmt_xprintf("%.*s", (int)n, text);
		text += n;
	}
	return NULL;
}

const struct recparse_number *
cmd_compare_number(const struct runrec *r, const struct compare_row *row)
{
	if (row->off == CMD_COMPARE_STATE)
		return NULL;
	return (const struct recparse_number *)((const char *)r + row->off);
}

char *
cmd_compare_cell(const struct runrec *r, const struct compare_row *row)
{
	const struct recparse_number *x = cmd_compare_number(r, row);

	if (x == NULL)
		return fmt_xstrdup(r->state);
	return recparse_number_text(x, row->dfmt);
}

/* Whether any of the n records has row's value. */
static bool
row_present(const struct runrec *const *reps, int n,
    const struct compare_row *row)
{
	for (int i = 0; i < n; i++) {
		const struct recparse_number *x = cmd_compare_number(reps[i],
		    row);

		if (x == NULL || x->has)
			return true;
	}
	return false;
}

bool
cmd_compare_row_shown(const struct runrec *const *reps, int n,
    const struct compare_row *row)
{
	/* fdatasync latencies are all 0 without sync=data. */
	bool data = strncmp(row->path, "latency_ms.fdatasync.", 21) != 0;

	for (int i = 0; i < n && !data; i++) {
		const char *sync = reps[i]->sync;

		data = sync != NULL && strcmp(sync, "data") == 0;
	}
	return data && row_present(reps, n, row);
}

/* Whether a histogram holds ranges, value..upper. */
static bool
hist_bucketed(const struct runrec_depth *d)
{
	for (size_t i = 0; i < d->nbuckets; i++)
		if (d->buckets[i].has_upper)
			return true;
	return false;
}

static int
cmp_int64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

struct columns *
cmd_compare_columns(char first, int n)
{
	char *align = fmt_nomem(malloc((size_t)n + 2));
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

/* Rows of label (on the first) and the n cells, each wrapped to width;
 * NULL cells show as "-". */
static void
add_wrapped(struct columns *t, const char *label, char *const *cells, int n,
    size_t width)
{
	size_t lines = 1;
	char *cell;

	for (int i = 0; i < n; i++)
		for (size_t k = lines; cells[i] != NULL &&
		    (cell = wrap_line(cells[i], width, k)) != NULL; k++) {
			free(cell);
			lines = k + 1;
		}
	for (size_t k = 0; k < lines; k++) {
		columns_add(t, "%s", k == 0 ? label : "");
		for (int i = 0; i < n; i++) {
			cell = cells[i] != NULL ? wrap_line(cells[i], width, k) :
			    NULL;
			columns_add(t, "%s", cell ? cell : k || cells[i] ? "" :
			    "-");
			free(cell);
		}
	}
}

/* Whether the n cells (NULL: none) are all the same: a row of them is
 * noise, shown only when they differ. */
static bool
all_same(char *const *cells, int n)
{
	for (int i = 1; i < n; i++)
		if ((cells[i] == NULL) != (cells[0] == NULL) ||
		    (cells[i] != NULL && strcmp(cells[i], cells[0]) != 0))
			return false;
	return true;
}

/* The heading rows: each run's name, then its run id if that is not
 * the name. */
static void
add_heading(struct columns *t, const struct compare_view *v,
    const char *label, size_t width)
{
	add_wrapped(t, label, v->name, v->n, width);
	if (!v->named)
		return;
	columns_add(t, "run");
	for (int i = 0; i < v->n; i++)
		columns_add(t, "%s", v->run[i] + 4);	/* without "run " */
}

static void
compare_histograms(const struct compare_view *v, size_t width)
{
	const struct runrec *const *reps = v->reps;
	int n = v->n > 0 ? v->n : 0;
	int64_t *vals = NULL;
	size_t nv = 0, cap = 0;
	struct columns *t;
	struct hrun *runs;
	int64_t min = INT64_MAX, max = INT64_MIN, w = 1;
	size_t rows = 0;

	/* One sorted (value, count) list per run, walked in step with the
	 * union of values: linear, whatever the histograms' sizes. */
	runs = fmt_nomem(calloc((size_t)n, sizeof(*runs)));
	for (int i = 0; i < n; i++) {
		const struct runrec_depth *h = &reps[i]->sig;
		size_t len = h->nbuckets;

		runs[i].e = fmt_nomem(calloc(len + 1, sizeof(*runs[i].e)));
		for (size_t j = 0; j < len; j++) {
			runs[i].e[j].value = h->buckets[j].value;
			runs[i].e[j].count = h->buckets[j].count;
			runs[i].total += (double)runs[i].e[j].count;
		}
		runs[i].n = len;
		qsort(runs[i].e, len, sizeof(*runs[i].e), cmp_hval);
		if (nv + len > cap) {
			cap = (nv + len) * 2;
			vals = fmt_nomem(realloc(vals, cap * sizeof(*vals)));
		}
		for (size_t j = 0; j < len; j++)
			vals[nv++] = runs[i].e[j].value;
	}
	if (nv > 0)	/* vals is NULL when no run has a histogram */
		qsort(vals, nv, sizeof(*vals), cmp_int64);
	/* One grid for every run, so rows line up: the values when they fit
	 * in RECORDS_HIST_ROWS rows, else ranges of one width (buckets of
	 * the record go by their lower end). */
	for (size_t k = 0; k < nv; k++)
		rows += k == 0 || vals[k] != vals[k - 1];
	for (int i = 0; i < n; i++)
		if (hist_bucketed(&reps[i]->sig))
			rows = SIZE_MAX;	/* the record's own ranges */
	if (rows > RECORDS_HIST_ROWS) {
		for (int i = 0; i < n; i++)
			records_hist_span_buckets(reps[i]->sig.buckets,
			    reps[i]->sig.nbuckets, &min, &max);
		w = records_hist_width(min, max);
		for (size_t k = 0; k < nv; k++)
			vals[k] = vals[k] / w * w;
		for (int i = 0; i < n; i++)
			for (size_t j = 0; j < runs[i].n; j++)
				runs[i].e[j].value = runs[i].e[j].value / w * w;
	}
	printf("\nHistogram of significant_ops_pending (samples per %s)\n",
	    w > 1 ? "range of values" : "value");

	t = cmd_compare_columns('r', n);
	add_heading(t, v, "value", width);
	for (size_t k = 0; k < nv; k++) {
		if (k > 0 && vals[k] == vals[k - 1])
			continue;
		if (w > 1)
			columns_add(t, "%" PRId64 "-%" PRId64, vals[k],
			    vals[k] + w - 1);
		else
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

/* A parameter as text: arrays (the RRAs) joined with commas. */
/* Knob key of run r's params (kept whole: compare lists every knob that
 * differs), NULL when absent or null. */
static json_object *
param(const struct runrec *r, const char *key)
{
	json_object *v = NULL;

	if (r->params != NULL)
		json_object_object_get_ex(r->params, key, &v);
	return v;
}

static char *
param_text(const struct runrec *r, const char *key)
{
	json_object *val = param(r, key);
	char *s, *more;

	if (!json_object_is_type(val, json_type_array))
		return val != NULL ? recparse_value_text(val) : NULL;
	s = fmt_xstrdup("");
	for (size_t i = 0; i < json_object_array_length(val); i++) {
		more = fmt_xprintf("%s%s%s", s, i ? "," : "",
		    json_object_get_string(json_object_array_get_idx(val, i)));
		free(s);
		s = more;
	}
	return s;
}

/* Whether key of params has the same value in every run. */
static bool
param_same(const struct runrec *const *reps, int n, const char *key)
{
	const char *first = NULL;
	bool same = true;
	char *v0 = NULL;

	for (int i = 0; i < n && same; i++) {
		json_object *val = param(reps[i], key);
		const char *s;

		s = val ? json_object_to_json_string_ext(val,
		    JSON_C_TO_STRING_PLAIN) : "";
		if (i == 0) {
			v0 = fmt_xstrdup(s);
			first = v0;
		} else
			same = strcmp(first, s) == 0;
	}
	free(v0);
	return same;
}

/* The parameters that differ between the runs, one row each; the
 * directory and the label are in the heading, the sweep id is noise. */
static void
add_params(struct columns *t, const struct runrec *const *reps, int n,
    size_t width)
{
	char **cells = fmt_nomem(calloc((size_t)n, sizeof(*cells)));
	bool any = false;

	for (int r = 0; r < n; r++) {
		json_object *p = reps[r]->params;

		if (!json_object_is_type(p, json_type_object))
			continue;
		json_object_object_foreach(p, key, val) {
			bool seen = false;
			char *label;

			(void)val;
			for (int q = 0; q < r && !seen; q++)
				seen = param(reps[q], key) != NULL;
			if (seen || strcmp(key, "dir") == 0 ||
			    strcmp(key, "label") == 0 ||
			    strcmp(key, "sweep_id") == 0 ||
			    param_same(reps, n, key))
				continue;
			if (!any)
				columns_add(t, "parameters that differ");
			for (int i = 0; i < n && !any; i++)
				columns_add(t, "%s", "");
			any = true;
			for (int i = 0; i < n; i++)
				cells[i] = param_text(reps[i], key);
			label = fmt_xprintf("  %s", key);
			add_wrapped(t, label, cells, n, width);
			free(label);
			for (int i = 0; i < n; i++)
				free(cells[i]);
		}
	}
	if (!any) {
		columns_add(t, "parameters that differ");
		columns_cell(t, "none", COLUMNS_FREE);
		for (int i = 1; i < n; i++)
			columns_add(t, "%s", "");
	}
	free(cells);
}

/* The verdict row's cell: the short form, an old record's shorter
 * still (the verdicts below the table say why). */
static char *
verdict_cell(const struct runrec *rep)
{
	if (!rep->verdict.has)
		return fmt_xstrdup("no verdict");
	return verdicts_short_rec(&rep->verdict, rep->nwarnings);
}

static void
compare_text(const struct compare_view *v)
{
	const struct runrec *const *reps = v->reps;
	int n = v->n > 0 ? v->n : 0;
	struct columns *t;
	size_t width = CMD_COMPARE_MIN_COL;
	char *cell, **cells;

	/* The run columns are as wide as their widest value or run id;
	 * longer headings, directories and options wrap. */
	for (int i = 0; i < n; i++) {
		if (strlen(v->run[i]) > width)
			width = strlen(v->run[i]);
		for (size_t r = 0; r < cmd_compare_nrows; r++) {
			cell = cmd_compare_cell(reps[i], &cmd_compare_rows[r]);
			if (strlen(cell) > width)
				width = strlen(cell);
			free(cell);
		}
		cell = verdict_cell(reps[i]);
		if (strlen(cell) > width)
			width = strlen(cell);
		free(cell);
	}

	t = cmd_compare_columns('l', n);
	add_heading(t, v, "", width);
	cells = fmt_nomem(calloc((size_t)n, sizeof(*cells)));
	for (int i = 0; i < n; i++)
		cells[i] = fmt_xstrdup(reps[i]->fs_type != NULL ?
		    reps[i]->fs_type : "-");
	add_wrapped(t, "filesystem", cells, n, width);
	for (int i = 0; i < n; i++) {
		free(cells[i]);
		cells[i] = compare_view_dir(reps[i]);
	}
	if (!all_same(cells, n))
		add_wrapped(t, "directory", cells, n, width);
	for (int i = 0; i < n; i++) {
		free(cells[i]);
		cells[i] = (char *)reps[i]->mount_options;
	}
	if (!all_same(cells, n))
		add_wrapped(t, "mount options", cells, n, width);
	free(cells);
	add_params(t, reps, n, width);
	columns_add(t, "%s", "");
	for (int i = 0; i < n; i++)
		columns_add(t, "%s", "");

	for (size_t r = 0; r < cmd_compare_nrows; r++) {
		if (!cmd_compare_row_shown(reps, n, &cmd_compare_rows[r]))
			continue;
		columns_add(t, "%s", cmd_compare_rows[r].label);
		for (int i = 0; i < n; i++) {
			cell = cmd_compare_cell(reps[i], &cmd_compare_rows[r]);
			columns_add(t, "%s", cell);
			free(cell);
		}
	}
	columns_add(t, "verdict");
	for (int i = 0; i < n; i++) {
		cell = verdict_cell(reps[i]);
		columns_add(t, "%s", cell);
		free(cell);
	}
	columns_print(t, stdout, 0);
	columns_free(t);
	compare_histograms(v, width);
}

/* Capacity records (capacity.json) side by side, all or none of them. */
static int
compare_capacity(const struct records_ctx *ctx, json_object **reps, int n)
{
	int yes = -1, no = -1;

	for (int i = 0; i < n; i++)
		if (capview_is_record(reps[i]))
			yes = yes < 0 ? i : yes;
		else
			no = no < 0 ? i : no;
	if (no >= 0) {
		records_error(ctx, "%s is a capacity record, %s is not: compare "
		    "takes capacity records or run records, not both",
		    ctx->runs[yes], ctx->runs[no]);
		return CTL_EXIT_ERROR;
	}
	return cmd_capacity_show(ctx, reps, n, false);
}

/* Two operands that are one run (id, host and start alike) would be
 * ranked against themselves as repeats: refused, both named. */
static bool
same_run(const struct records_ctx *ctx, struct runrec *const *r, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (r[i]->run_id == r[j]->run_id &&
			    text_same(r[i]->host_name, r[j]->host_name) &&
			    text_same(r[i]->started_at, r[j]->started_at)) {
				records_error(ctx, "%s and %s are the same run "
				    "(run %" PRId64 "%s%s): compare it with "
				    "another", ctx->runs[i], ctx->runs[j],
				    r[i]->run_id, r[i]->host_name ? " of " :
				    "", r[i]->host_name ? r[i]->host_name : "");
				return true;
			}
	return false;
}

int
cmd_compare_show(const struct records_ctx *ctx,
    const struct compare_more *more)
{
	json_object **reps, *all = NULL, *list, *ranking = NULL;
	struct runrec **recs;
	struct compare_view v = { .n = 0 };
	int rc = CTL_EXIT_OK, got = 0, nrec = 0;
	char *err = NULL;

	reps = fmt_nomem(calloc((size_t)ctx->nruns, sizeof(*reps)));
	recs = fmt_nomem(calloc((size_t)ctx->nruns, sizeof(*recs)));
	for (got = 0; got < ctx->nruns; got++)
		if ((reps[got] = records_load(ctx, ctx->runs[got], &rc)) ==
		    NULL)
			goto fail;
	if (capview_is_record(reps[0]) || capview_is_record(reps[got - 1])) {
		rc = compare_capacity(ctx, reps, got);
		goto fail;
	}
	/* Each record checked once here: the views read its fields. */
	for (nrec = 0; nrec < got; nrec++)
		if ((recs[nrec] = runrec_parse(reps[nrec], &err)) == NULL) {
			records_error(ctx, "%s: %s", ctx->runs[nrec], err);
			rc = CTL_EXIT_ERROR;
			goto fail;
		}
	if (same_run(ctx, recs, got)) {
		rc = CTL_EXIT_ERROR;
		goto fail;
	}
	compare_view_init(&v, (const struct runrec *const *)recs, got);
	ranking = rank_build(v.reps, v.cand, got);
	if (ctx->json) {
		all = fmt_nomem(json_object_new_object());
		list = fmt_nomem(json_object_new_array());
		for (int i = 0; i < got; i++)
			json_object_array_add(list, json_object_get(reps[i]));
		json_object_object_add(all, "runs", list);
		json_object_object_add(all, "ranking",
		    json_object_get(ranking));
		if (more != NULL)
			more->json(ctx, v.reps, got, all);
		printf("%s\n", fmt_json_string(all));
	} else {
		compare_text(&v);
		if (more != NULL)
			more->text(ctx, v.reps, got);
		/* The answer closes the output. */
		verdicts_print_recs(v.reps, v.who, v.run, got);
		rank_print(ranking);
	}
fail:
	compare_view_free(&v);
	json_object_put(ranking);
	json_object_put(all);
	for (int i = 0; i < got; i++)
		json_object_put(reps[i]);
	for (int i = 0; i < nrec; i++)
		runrec_free(recs[i]);
	free(recs);
	free(reps);
	free(err);
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
	    "report.  One\ncolumn per run, headed by its label (else its "
	    "filesystem and the mount\noptions that differ, else its id): "
	    "the parameters that differ, throughput,\nboth queues, latency, "
	    "errors and the verdict, then the histograms of\n"
	    "significant_ops_pending, each run's verdict and warnings, and a "
	    "ranking by\nverdict (kept up, cannot tell, fell behind), then "
	    "by the significant queue\naverage of the runs that measured the "
	    "storage (flat-out, unsampled and\nfew-sample runs are left out).  "
	    "Runs with the same label are repeats; a\nwinner is called only "
	    "when Welch's t-test at 95 % finds the difference\nbeyond the "
	    "run-to-run spread, which takes at least 3 runs of each.  --json\n"
	    "prints "
	    "{\"runs\": [REPORT, ...], \"ranking\": {...}}.\n\nCapacity "
	    "records (capacity.json, also copied from other hosts) are\n"
	    "compared by their directories: one column per directory, then "
	    "the ranking\nby capacity as by stressctl capacity; --json prints "
	    "{\"records\": [...],\n\"ranking\": [...]}.\n",
	.min_runs = 2,
	.max_runs = -1,
	.parse = options_parse_plain,
	.run = run_compare,
};
