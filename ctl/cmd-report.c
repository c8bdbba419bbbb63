/* stressctl report (one run's record summarised, as JSON, or its samples
 * as CSV) and runs (the list of recorded runs). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "capview.h"
#include "cmd-capacity.h"
#include "cmd-report.h"
#include "columns.h"
#include "fmt.h"
#include "jpath.h"
#include "options.h"
#include "proto.h"
#include "records.h"
#include "replyview.h"
#include "runsview.h"
#include "verdicts.h"

/* report: width of the labels column ("mount options" and a gap). */
#define REPORT_LABELS		15
/* report: room for the values beside the labels. */
#define REPORT_TEXT		(RECORDS_TEXT_WIDTH - REPORT_LABELS)

/* Append "key=value" of every knob but dir (shown as the target). */
static char *
params_text(json_object *params)
{
	char *s = fmt_xprintf("%s", ""), *next;

	if (!json_object_is_type(params, json_type_object))
		return s;
	json_object_object_foreach(params, key, v) {
		char *val;

		if (strcmp(key, "dir") == 0)
			continue;
		if (json_object_is_type(v, json_type_array)) {
			val = fmt_xprintf("%s", "");
			for (size_t i = 0; i < json_object_array_length(v);
			    i++) {
				next = fmt_xprintf("%s%s%s", val,
				    i ? "," : "", json_object_get_string(
				    json_object_array_get_idx(v, i)));
				free(val);
				val = next;
			}
		} else if (json_object_is_type(v, json_type_string) &&
		    json_object_get_string_len(v) == 0)
			continue;	/* an unset path, e.g. update_file */
		else
			val = jpath_text(v, "", NULL);
		next = fmt_xprintf("%s%s%s=%s", s, *s ? " " : "", key, val);
		free(val);
		free(s);
		s = next;
	}
	return s;
}

/* Add text to a two-column table, wrapped at spaces (or sep) to width,
 * the first line labelled. */
static void
add_wrapped(struct columns *t, const char *label, const char *text,
    int width, char sep)
{
	bool first = true;

	do {
		int n = (int)strlen(text);

		if (n > width) {
			for (n = width; n > 0 && text[n - 1] != sep; n--)
				;
			if (n == 0)
				n = width;
		}
		columns_add(t, "%s", first ? label : "");
		/* A space separator is not kept at the end of a line. */
		columns_add(t, "%.*s", sep == ' ' && n > 0 &&
		    text[n - 1] == ' ' ? n - 1 : n, text);
		text += n;
		first = false;
	} while (*text != '\0');
}

static void
add_time(struct columns *t, const char *label, json_object *rep,
    const char *key)
{
	const char *iso = jpath_str(rep, key);
	char buf[64];

	columns_add(t, "%s", label);
	columns_add(t, "%s", iso != NULL ?
	    fmt_local_time(iso, true, buf, sizeof(buf)) :
	    records_state_ended(jpath_str(rep, "state")) ? "-" :
	    "- (still running)");
}

/* "p50 0  p90 2  p99 5  max 7" of one queue. */
static void
print_percentiles(json_object *d, int indent)
{
	static const char *const keys[] = { "p50", "p90", "p99", "max" };

	printf("%*s", indent, "");
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		char *v = jpath_text(d, keys[i], NULL);

		printf("%s%s %s", i ? "  " : "", keys[i], v);
		free(v);
	}
	putchar('\n');
}

/* A queue's distribution d: average, percentiles, histogram. */
static void
print_dist(json_object *d, const char *key, const char *title,
    bool histogram)
{
	json_object *hist = jpath(d, "histogram");
	char *avg = jpath_text(d, "average", "%.2f");

	printf("%s (%s)\n  Average: %s\n", title, key, avg);
	free(avg);
	print_percentiles(d, 2);
	if (histogram && json_object_is_type(hist, json_type_array) &&
	    json_object_array_length(hist) > 0)
		records_histogram(hist, 2);
}

static void
print_queue(json_object *rep, const char *key, const char *title,
    bool histogram)
{
	print_dist(jpath(jpath(rep, "queue_depth"), key), key, title,
	    histogram);
}

/* A target rrdcached's queue beside ours, and what it did in the run. */
static void
print_rrdcached(json_object *rc)
{
	static const char *const grew[] = {
		"UpdatesReceived", "DataSetsWritten", "UpdatesWritten"
	};
	json_object *start = jpath(rc, "at_start"), *end = jpath(rc, "latest");
	char *a = jpath_text(rc, "address", NULL), *title;
	double v0, v1;

	title = fmt_xprintf("rrdcached %s: files waiting to be written",
	    a);
	print_dist(jpath(rc, "queue_length"), "QueueLength", title, true);
	free(title);
	free(a);
	printf("  during the run:");
	if (json_object_get_boolean(jpath(rc, "restarted")))
		printf(" rrdcached restarted, its counters began again;");
	for (size_t i = 0; i < sizeof(grew) / sizeof(*grew); i++) {
		if (jpath_num(start, grew[i], &v0) &&
		    jpath_num(end, grew[i], &v1) && v1 >= v0)
			printf("%s %s +%.0f", i ? "," : "", grew[i], v1 - v0);
		else
			printf("%s %s -", i ? "," : "", grew[i]);
	}
	putchar('\n');
	if (jpath_num(rc, "flush_s", &v0))
		printf("  all written %.3f s after the closing FLUSHALL\n", v0);
	else
		printf("  not (yet) all written after a closing FLUSHALL\n");
	if (jpath_num(rc, "samples_without_stats", &v0) && v0 > 0)
		printf("  %.0f samples without its STATS (no answer)\n", v0);
}

static void
print_latency(json_object *rep)
{
	static const char *const cols[] = {
		"min", "mean", "p50", "p90", "p99", "p999", "max"
	};
	static const char *const rows[] = {
		"enqueue_to_persist", "update_call", "fdatasync"
	};
	struct columns *t = columns_new("lrrrrrrrr");
	const char *sync = jpath_str(rep, "params.sync");
	double n;

	columns_add(t, "Latency (ms)");
	columns_add(t, "count");
	for (size_t c = 0; c < sizeof(cols) / sizeof(*cols); c++)
		columns_add(t, "%s", strcmp(cols[c], "p999") == 0 ?
		    "p99.9" : cols[c]);
	for (size_t r = 0; r < sizeof(rows) / sizeof(*rows); r++) {
		json_object *l = jpath(jpath(rep, "latency_ms"), rows[r]);
		char *v;

		/* fdatasync: a row only for a run that synced (sync data) */
		if (strcmp(rows[r], "fdatasync") == 0 &&
		    !(sync != NULL && strcmp(sync, "data") == 0) &&
		    !(jpath_num(l, "count", &n) && n > 0))
			continue;
		v = jpath_text(l, "count", NULL);
		columns_add(t, "  %s", rows[r]);
		columns_add(t, "%s", v);
		free(v);
		for (size_t c = 0; c < sizeof(cols) / sizeof(*cols); c++) {
			v = jpath_text(l, cols[c], "%.3f");
			columns_add(t, "%s", v);
			free(v);
		}
	}
	columns_print(t, stdout, 0);
	columns_free(t);
}

static void
print_errors(json_object *rep)
{
	json_object *e = jpath(rep, "errors");
	json_object *msgs = jpath(e, "first_messages");
	char *n = jpath_text(e, "count", NULL);
	char *uf = jpath_text(e, "updates_failed", NULL);
	char *cf = jpath_text(e, "creates_failed", NULL);

	printf("Errors: %s (updates failed: %s, creates failed: %s)\n", n, uf,
	    cf);
	for (size_t i = 0; json_object_is_type(msgs, json_type_array) &&
	    i < json_object_array_length(msgs); i++)
		printf("  - %s\n", json_object_get_string(
		    json_object_array_get_idx(msgs, i)));
	free(n);
	free(uf);
	free(cf);
}

/* Whether the queue's memory bound held the generators back (records
 * from before it have no "generators"). */
static void
print_generators(json_object *rep)
{
	json_object *g = jpath(rep, "generators");
	double wait_s, max, peak;

	if (g == NULL || !jpath_num(g, "wait_s", &wait_s) ||
	    !jpath_num(g, "queue_memory_max_bytes", &max) ||
	    !jpath_num(g, "queue_memory_peak_bytes", &peak))
		return;
	if (json_object_get_boolean(jpath(g, "held_back"))) {
		char *n = jpath_text(g, "waits", NULL);

		printf("  generators held back: waited %.3f s in all (%s waits) "
		    "at the queue's memory bound\n", wait_s, n);
		free(n);
	} else
		printf("  generators never waited at the queue's memory "
		    "bound\n");
	if (max > 0)
		printf("  queue memory: peak %.1f MiB of %.0f MiB "
		    "(queue_memory_max)\n", peak / 1048576, max / 1048576);
	else
		printf("  queue memory: peak %.1f MiB, unbounded "
		    "(queue_memory_max 0)\n", peak / 1048576);
}

/* sync drop-caches or drop-host-caches: what made the run start cold
 * (records without them have cold_cache null or none). */
static void
print_cold_cache(json_object *rep)
{
	json_object *cc = jpath(rep, "cold_cache");
	const char *m = jpath_str(cc, "method"), *err;
	double files, before, after, failed, s;

	if (m == NULL || !jpath_num(cc, "seconds", &s))
		return;
	if (strcmp(m, "evict") != 0 || !jpath_num(cc, "files", &files)) {
		printf("  cold cache: the host's page cache dropped in %.2f s\n",
		    s);
		return;
	}
	printf("  cold cache: %.0f files written back and evicted in %.2f s",
	    files, s);
	if (jpath_num(cc, "resident_before_bytes", &before) &&
	    jpath_num(cc, "resident_after_bytes", &after))
		printf(", %.1f MiB of them cached before, %.1f MiB after",
		    before / 1048576, after / 1048576);
	putchar('\n');
	if (jpath_num(cc, "failed", &failed) && failed > 0 &&
	    (err = jpath_str(cc, "first_error")) != NULL)
		printf("  cold cache: %.0f files not evicted, first: %s\n",
		    failed, err);
}

/* The cap on the daemon's memory and page cache (stressd --memory-max,
 * MemoryMax=, a container's limit), when there was one. */
static void
print_memory(json_object *rep)
{
	const char *src = jpath_str(rep, "memory.source");
	double limit;

	if (jpath_num(rep, "memory.limit_bytes", &limit))
		printf("  memory cap: %.0f MiB (%s)\n", limit / 1048576,
		    src != NULL ? src : "source unknown");
}

/* Where and how the run ran: host, versions, parameters, target, times. */
static void
print_setting(json_object *rep)
{
	struct columns *t = columns_new("ll");
	const char *src;
	char *a, *b, *c, *d;

	a = jpath_text(rep, "host.name", NULL);
	b = jpath_text(rep, "host.kernel", NULL);
	c = jpath_text(rep, "host.machine", NULL);
	d = jpath_text(rep, "host.cpus", NULL);
	columns_add(t, "host");
	columns_add(t, "%s (kernel %s, %s, %s CPUs)", a, b, c, d);
	free(a);
	free(b);
	free(c);
	free(d);
	a = jpath_text(rep, "stressd_version", NULL);
	b = jpath_text(rep, "librrd_version", NULL);
	columns_add(t, "versions");
	columns_add(t, "stressd %s, librrd %s", a, b);
	free(a);
	free(b);
	a = params_text(jpath(rep, "params"));
	add_wrapped(t, "parameters", a, REPORT_TEXT, ' ');
	free(a);
	a = jpath_text(rep, "target.dir", NULL);
	b = jpath_text(rep, "target.fs_type", NULL);
	columns_add(t, "target");
	columns_add(t, "%s", a);
	columns_add(t, "filesystem");
	columns_add(t, "%s", b);
	free(a);
	free(b);
	a = jpath_text(rep, "target.mount_source", NULL);
	b = jpath_text(rep, "target.mount_point", NULL);
	columns_add(t, "mount source");
	columns_add(t, "%s (mounted on %s)", a, b);
	free(a);
	free(b);
	add_wrapped(t, "mount options", (src = jpath_str(rep,
	    "target.mount_options")) ? src : "-", REPORT_TEXT, ',');
	add_time(t, "started", rep, "started_at");
	add_time(t, "ended", rep, "ended_at");
	a = jpath_text(rep, "elapsed_s", "%.1f");
	columns_add(t, "elapsed");
	columns_add(t, "%s s", a);
	free(a);
	a = jpath_text(rep, "samples", NULL);
	b = jpath_text(rep, "sample_interval_s", "%g");
	columns_add(t, "samples");
	columns_add(t, "%s, every %s s", a, b);
	free(a);
	free(b);
	columns_print(t, stdout, 0);
	columns_free(t);
}

/* What the run did: throughput, counts, the generators, a cold start. */
static void
print_throughput(json_object *rep)
{
	char *a, *b, *c, *d, *e;
	double v;

	/* The original stresser's wording, so old notes still compare. */
	a = jpath_text(rep, "throughput.updates_per_s_since_first_update",
	    "%.2f");
	b = jpath_text(rep, "throughput.updates_per_s_all_time", "%.2f");
	printf("Throughput\n  %s updates/sec avg since first update, %s "
	    "updates/sec avg for all time\n", a, b);
	free(a);
	free(b);
	a = jpath_text(rep, "throughput.creates_per_s", "%.2f");
	b = jpath_text(rep, "throughput.ops_per_update", "%.2f");
	printf("  %s creates/sec, %s ops per update\n", a, b);
	free(a);
	free(b);
	a = jpath_text(rep, "counters.updates_completed", NULL);
	b = jpath_text(rep, "counters.updates_failed", NULL);
	c = jpath_text(rep, "counters.dropped", NULL);
	d = jpath_text(rep, "counters.creates_completed", NULL);
	e = jpath_text(rep, "counters.discarded", NULL);
	printf("  %s updates completed, %s failed, %s dropped, %s discarded; "
	    "%s creates", a, b, c, e, d);
	free(e);
	/* A record made before creates_discarded was counted has none. */
	e = jpath_text(rep, "counters.creates_discarded", NULL);
	if (jpath_num(rep, "counters.creates_discarded", &v))
		printf(", %s discarded", e);
	putchar('\n');
	free(a);
	free(b);
	free(c);
	free(d);
	free(e);
	records_print_recount(rep, 2);
	if (jpath_num(rep, "counters.update_calls", &v)) {
		a = jpath_text(rep, "counters.update_calls", NULL);
		printf("  %s rrd_update calls\n", a);
		free(a);
	}
	print_generators(rep);
	print_cold_cache(rep);
	print_memory(rep);
}

/* The summary of one record for a person: the answer first (the
 * daemon's verdict and warnings), then the figures behind it. */
static void
report_text(json_object *rep)
{
	const char *reason = jpath_str(rep, "reason");
	char *id = jpath_text(rep, "run_id", NULL);
	char *st = jpath_text(rep, "state", NULL);

	printf("Run %s: %s%s%s\n", id, st, reason ? ": " : "",
	    reason ? reason : "");
	free(id);
	free(st);
	verdicts_report(rep, stdout);
	putchar('\n');
	print_setting(rep);
	putchar('\n');
	print_throughput(rep);

	putchar('\n');
	print_queue(rep, "significant_ops_pending",
	    "Significant operations pending", true);
	putchar('\n');
	print_queue(rep, "total_operations_pending", "Total operations pending",
	    false);
	if (jpath(rep, "rrdcached") != NULL) {
		putchar('\n');
		print_rrdcached(jpath(rep, "rrdcached"));
	}
	putchar('\n');
	print_latency(rep);
	putchar('\n');
	print_errors(rep);
}

/* Copy the run's samples.csv to stdout. */
static int
print_csv(const struct records_ctx *ctx, const char *run, json_object *rep)
{
	char *path = records_file(run, rep, "samples_csv", "samples.csv");
	char buf[65536];
	FILE *fp = NULL;
	size_t n;
	int ret = CTL_EXIT_ERROR;

	if (path == NULL) {
		records_error(ctx, "the record names no samples file "
		    "(files.samples_csv)");
		goto fail;
	}
	if ((fp = fopen(path, "re")) == NULL) {
		records_error(ctx, "cannot read the samples %s: %s", path,
		    strerror(errno));
		goto fail;
	}
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		if (fwrite(buf, 1, n, stdout) != n)
			break;
	if (ferror(fp)) {
		records_error(ctx, "%s: read error", path);
		goto fail;
	}
	ret = CTL_EXIT_OK;
fail:
	if (fp != NULL)
		fclose(fp);
	free(path);
	return ret;
}

static int
run_report(const struct records_ctx *ctx)
{
	const char *run = ctx->nruns > 0 ? ctx->runs[0] : NULL;
	json_object *rep;
	int rc;

	if ((rep = records_load(ctx, run, &rc)) == NULL)
		return rc;
	if (capview_is_record(rep) && ctx->csv) {
		records_error(ctx, "a capacity record has no samples; each of "
		    "its steps' runs has (report --csv STEP_RUN_ID)");
		rc = CTL_EXIT_ERROR;
	} else if (capview_is_record(rep))
		rc = cmd_capacity_show(ctx, &rep, 1, true);
	else if (ctx->png != NULL) {
		records_error(ctx, "--graph draws a capacity record; stressctl "
		    "graph draws a run");
		rc = CTL_EXIT_USAGE;
	} else if (ctx->csv)
		rc = print_csv(ctx, run, rep);
	else if (ctx->json)
		printf("%s\n", fmt_json_string(rep));
	else
		report_text(rep);
	json_object_put(rep);
	return rc;
}

static int
report_option(struct ctl *ctl, int c)
{
	if (c == OPT_GRAPH) {
		if (*optarg == '\0') {
			options_usage_error(ctl->cmd, "--graph: empty file name");
			return CTL_EXIT_USAGE;
		}
		ctl->rec.png = optarg;
		return PARSE_OK;
	}
	if (c != OPT_CSV)
		return OPTIONS_UNKNOWN;
	ctl->rec.csv = true;
	return PARSE_OK;
}

static int
parse_report(struct ctl *ctl, int argc, char **argv)
{
	int ret;

	if ((ret = options_parse(ctl, argc, argv)) != PARSE_OK)
		return ret;
	if (ctl->rec.csv && ctl->json) {
		options_usage_error(ctl->cmd, "--csv and --json exclude each "
		    "other");
		return CTL_EXIT_USAGE;
	}
	return options_operands(ctl, argc, argv);
}

const struct ctl_cmd cmd_report_entry = {
	.name = "report",
	.usage = "[--csv] [--graph FILE] [RUN]",
	.summary = "summarise a run's record",
	.details =
	    "RUN is a run id, or the path of a report.json file (anything with "
	    "a '/' or\nending in .json), which is read without asking the "
	    "daemon; the default is\nthe current or last run.  The summary "
	    "starts with the daemon's verdict\n(kept up, fell behind or cannot "
	    "tell) and its warnings.  A capacity search's\nrecord (its id, "
	    "capacity.json or its directory) is shown as by stressctl\n"
	    "capacity: its steps, each directory's capacity and the ranking; "
	    "--json\nprints the record with the ranking added.\n\nOptions:\n"
	    "  --csv       print the run's samples (samples.csv) instead\n"
	    "  --graph FILE  a capacity record: draw its steps into FILE (a "
	    "PNG), as\n              stressctl capacity --graph does\n"
	    "  --json      print the record (report.json) unchanged\n"
	    "  -h, --help  print this help and exit\n\nThe exit status is 1 if "
	    "there is no such run or a file cannot be read.\n",
	.options = (const struct option[]){
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "graph", required_argument, NULL, OPT_GRAPH },
		OPTIONS_COMMON,
		{ NULL, 0, NULL, 0 }
	},
	.max_runs = 1,
	.option = report_option,
	.parse = parse_report,
	.run = run_report,
};

const struct ctl_cmd cmd_runs_entry = {
	.name = "runs",
	.usage = "",
	.summary = "list the recorded runs",
	.details =
	    "One line per run the daemon has a record of, oldest first: id, "
	    "start (local\ntime), state, updates completed, the average of "
	    "significant_ops_pending,\nfilesystem type, directory and mount "
	    "options (cut at 32 characters).  The runs that are steps of a "
	    "capacity\nsearch are counted, not listed, unless --all (their "
	    "SWEEP column then\nnames the search and step).  Capacity "
	    "searches follow, one line per\ndirectory: state, files, steps, "
	    "capacity (updates/s), the rate that fell\nbehind and what "
	    "limited it.\n\nOptions:\n  --all       list the step runs of "
	    "capacity searches too\n  --json      print the daemon's list "
	    "unchanged\n  -h, --help  print this help and exit\n",
	.parse = options_parse_plain,
	.options = (const struct option[]){
		OPTIONS_ALL,
		OPTIONS_COMMON,
		{ NULL, 0, NULL, 0 }
	},
	.text = runsview_text,
	.text_all = runsview_text_all,
	.json = replyview_json,
};
