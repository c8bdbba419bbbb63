/* stressctl report (one run's record summarised, as JSON, or its samples
 * as CSV) and runs (the list of recorded runs). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
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
#include "options.h"
#include "proto.h"
#include "records.h"
#include "recparse.h"
#include "replyview.h"
#include "runrec.h"
#include "runsview.h"
#include "verdicts.h"

/* A string of the record, "-" when absent. */
#define DASH(s)			((s) != NULL ? (s) : "-")

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
			val = recparse_value_text(v);
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

/* A number of the record as text, as it was written ("-": absent),
 * added to t. */
static void
add_number(struct columns *t, const char *fmt,
    const struct recparse_number *n, const char *dfmt)
{
	char *v = recparse_number_text(n, dfmt);

	columns_add(t, fmt, v);
	free(v);
}

static void
add_time(struct columns *t, const char *label, const struct runrec *r,
    const char *iso)
{
	char buf[64];

	columns_add(t, "%s", label);
	columns_add(t, "%s", iso != NULL ?
	    fmt_local_time(iso, true, buf, sizeof(buf)) :
	    records_state_ended(r->state) ? "-" : "- (still running)");
}

/* "p50 0  p90 2  p99 5  max 7" of one queue. */
static void
print_percentiles(const struct runrec_depth *d, int indent)
{
	const struct { const char *key; const struct recparse_number *v; }
	    cols[] = {
		{ "p50", &d->p50 }, { "p90", &d->p90 }, { "p99", &d->p99 },
		{ "max", &d->max },
	};

	printf("%*s", indent, "");
	for (size_t i = 0; i < sizeof(cols) / sizeof(*cols); i++) {
		char *v = recparse_number_text(cols[i].v, NULL);

		printf("%s%s %s", i ? "  " : "", cols[i].key, v);
		free(v);
	}
	putchar('\n');
}

/* A queue's distribution d: average, percentiles, histogram. */
static void
print_dist(const struct runrec_depth *d, const char *key, const char *title,
    bool histogram)
{
	if (!d->average.has)
		printf("%s (%s)\n  Average: -\n", title, key);
	else
		printf("%s (%s)\n  Average: %.2f\n", title, key, d->average.d);
	print_percentiles(d, 2);
	if (histogram && d->nbuckets > 0)
		records_histogram_buckets(d->buckets, d->nbuckets, 2);
}

/* significant_ops_pending: the original write-up's Average: and
 * Histogram:, from stress.log's blocks as its one-liner reads them, then
 * the timed samples' figures, labelled so; a record made before the
 * blocks were kept has the samples' alone. */
static void
print_sig(const struct runrec *r)
{
	const struct runrec_depth *b = &r->slog_sig, *s = &r->sig;

	if (!b->has) {
		print_dist(s, "significant_ops_pending",
		    "Significant operations pending", true);
		return;
	}
	printf("Significant operations pending (significant_ops_pending)\n"
	    "  stress.log, %" PRId64 " blocks (the original write-up's "
	    "figures):\n", b->samples);
	if (!b->average.has)
		printf("  Average: -\n");
	else
		printf("  Average: %.2f\n", b->average.d);
	printf("  Histogram:\n");
	if (b->nbuckets > 0)
		records_histogram_buckets(b->buckets, b->nbuckets, 2);
	if (!s->average.has)
		printf("  timed samples (%" PRId64 "): average -\n", s->samples);
	else
		printf("  timed samples (%" PRId64 ", every %g s): average "
		    "%.2f\n", s->samples, r->sample_interval_s, s->average.d);
	print_percentiles(s, 2);
}

/* A target rrdcached's queue beside ours, and what it did in the run. */
static void
print_rrdcached(const struct runrec_rrdcached *rc)
{
	const struct { const char *key; double v0, v1; } grew[] = {
		{ "UpdatesReceived", rc->at_start.updates_received,
		  rc->latest.updates_received },
		{ "DataSetsWritten", rc->at_start.data_sets_written,
		  rc->latest.data_sets_written },
		{ "UpdatesWritten", rc->at_start.updates_written,
		  rc->latest.updates_written },
	};
	char *title;

	title = fmt_xprintf("rrdcached %s: files waiting to be written",
	    rc->address != NULL ? rc->address : "-");
	print_dist(&rc->queue, "QueueLength", title, true);
	free(title);
	printf("  during the run:");
	if (rc->restarted == 1)
		printf(" rrdcached restarted, its counters began again;");
	for (size_t i = 0; i < sizeof(grew) / sizeof(*grew); i++) {
		if (!isnan(grew[i].v0) && !isnan(grew[i].v1) &&
		    grew[i].v1 >= grew[i].v0)
			printf("%s %s +%.0f", i ? "," : "", grew[i].key,
			    grew[i].v1 - grew[i].v0);
		else
			printf("%s %s -", i ? "," : "", grew[i].key);
	}
	putchar('\n');
	if (rc->flush_s.has)
		printf("  all written %.3f s after the closing FLUSHALL\n",
		    rc->flush_s.d);
	else
		printf("  not (yet) all written after a closing FLUSHALL\n");
	if (!isnan(rc->samples_without_stats) && rc->samples_without_stats > 0)
		printf("  %.0f samples without its STATS (no answer)\n",
		    rc->samples_without_stats);
}

static void
print_latency(const struct runrec *rep)
{
	static const char *const cols[] = {
		"min", "mean", "p50", "p90", "p99", "p99.9", "max"
	};
	const struct { const char *name; const struct runrec_latency *l; }
	    rows[] = {
		{ "enqueue_to_persist", &rep->enqueue_to_persist },
		{ "update_call", &rep->update_call },
		{ "fdatasync", &rep->fdatasync },
	};
	struct columns *t = columns_new("lrrrrrrrr");
	const char *sync = rep->sync;

	columns_add(t, "Latency (ms)");
	columns_add(t, "count");
	for (size_t c = 0; c < sizeof(cols) / sizeof(*cols); c++)
		columns_add(t, "%s", cols[c]);
	for (size_t r = 0; r < sizeof(rows) / sizeof(*rows); r++) {
		const struct runrec_latency *l = rows[r].l;
		const struct recparse_number *v[] = {
			&l->min, &l->mean, &l->p50, &l->p90, &l->p99,
			&l->p999, &l->max,
		};

		/* fdatasync: a row only for a run that synced (sync data) */
		if (l == &rep->fdatasync &&
		    !(sync != NULL && strcmp(sync, "data") == 0) &&
		    !(l->count.has && l->count.d > 0))
			continue;
		columns_add(t, "  %s", rows[r].name);
		add_number(t, "%s", &l->count, NULL);
		for (size_t c = 0; c < sizeof(v) / sizeof(*v); c++)
			add_number(t, "%s", v[c], "%.3f");
	}
	columns_print(t, stdout, 0);
	columns_free(t);
}

static void
print_errors(const struct runrec_errors *e)
{
	char *n = recparse_number_text(&e->count, NULL);
	char *uf = recparse_number_text(&e->updates_failed, NULL);
	char *cf = recparse_number_text(&e->creates_failed, NULL);

	printf("Errors: %s (updates failed: %s, creates failed: %s)\n", n, uf,
	    cf);
	for (size_t i = 0; i < e->nfirst_messages; i++)
		printf("  - %s\n", e->first_messages[i]);
	free(n);
	free(uf);
	free(cf);
}

/* Whether the queue's memory bound held the generators back (records
 * from before it have no "generators"). */
static void
print_generators(const struct runrec_generators *g)
{
	double max = g->queue_memory_max_bytes;
	double peak = g->queue_memory_peak_bytes;

	if (!g->has || isnan(g->wait_s) || isnan(max) || isnan(peak))
		return;
	if (g->held_back == 1) {
		char *n = recparse_number_text(&g->waits, NULL);

		printf("  generators held back: waited %.3f s in all (%s waits) "
		    "at the queue's memory bound\n", g->wait_s, n);
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
print_cold_cache(const struct runrec_cold_cache *cc)
{
	if (cc->method == NULL || isnan(cc->seconds))
		return;
	if (strcmp(cc->method, "evict") != 0 || isnan(cc->files)) {
		printf("  cold cache: the host's page cache dropped in %.2f s\n",
		    cc->seconds);
		return;
	}
	printf("  cold cache: %.0f files written back and evicted in %.2f s",
	    cc->files, cc->seconds);
	if (!isnan(cc->resident_before_bytes) &&
	    !isnan(cc->resident_after_bytes))
		printf(", %.1f MiB of them cached before, %.1f MiB after",
		    cc->resident_before_bytes / 1048576,
		    cc->resident_after_bytes / 1048576);
	putchar('\n');
	if (!isnan(cc->failed) && cc->failed > 0 && cc->first_error != NULL)
		printf("  cold cache: %.0f files not evicted, first: %s\n",
		    cc->failed, cc->first_error);
}

/* Where and how the run ran: host, versions, parameters, target, times. */
static void
print_setting(const struct runrec *r)
{
	struct columns *t = columns_new("ll");
	char *a;

	columns_add(t, "host");
	if (r->has_host_cpus)
		columns_add(t, "%s (kernel %s, %s, %" PRId64 " CPUs)",
		    DASH(r->host_name), DASH(r->host_kernel),
		    DASH(r->host_machine), r->host_cpus);
	else
		columns_add(t, "%s (kernel %s, %s, - CPUs)",
		    DASH(r->host_name), DASH(r->host_kernel),
		    DASH(r->host_machine));
	columns_add(t, "versions");
	columns_add(t, "stressd %s, librrd %s", DASH(r->stressd_version),
	    DASH(r->librrd_version));
	a = params_text(r->params);
	add_wrapped(t, "parameters", a, REPORT_TEXT, ' ');
	free(a);
	columns_add(t, "target");
	columns_add(t, "%s", DASH(r->target_dir));
	columns_add(t, "filesystem");
	columns_add(t, "%s", DASH(r->fs_type));
	columns_add(t, "mount source");
	columns_add(t, "%s (mounted on %s)", DASH(r->mount_source),
	    DASH(r->mount_point));
	add_wrapped(t, "mount options", DASH(r->mount_options), REPORT_TEXT,
	    ',');
	add_time(t, "started", r, r->started_at);
	add_time(t, "ended", r, r->ended_at);
	columns_add(t, "elapsed");
	if (isnan(r->elapsed_s))
		columns_add(t, "- s");
	else
		columns_add(t, "%.1f s", r->elapsed_s);
	columns_add(t, "samples");
	a = recparse_number_text(&r->samples, NULL);
	if (isnan(r->sample_interval_s))
		columns_add(t, "%s, every - s", a);
	else
		columns_add(t, "%s, every %g s", a, r->sample_interval_s);
	free(a);
	columns_print(t, stdout, 0);
	columns_free(t);
}

/* What the run did: throughput, counts, the generators, a cold start. */
static void
print_throughput(const struct runrec *r)
{
	const struct runrec_throughput *tp = &r->throughput;
	const struct runrec_counters *c = &r->counters;
	char *a, *b, *d, *e, *f;

	/* The original stresser's wording, so old notes still compare. */
	a = recparse_number_text(&tp->since_first_update, "%.2f");
	b = recparse_number_text(&tp->all_time, "%.2f");
	printf("Throughput\n  %s updates/sec avg since first update,\n"
	    "  %s updates/sec avg for all time\n", a, b);
	free(a);
	free(b);
	a = recparse_number_text(&tp->creates_per_s, "%.2f");
	b = recparse_number_text(&tp->ops_per_update, "%.2f");
	printf("  %s creates/sec, %s ops per update\n", a, b);
	free(a);
	free(b);
	a = recparse_number_text(&c->updates_completed, NULL);
	b = recparse_number_text(&c->updates_failed, NULL);
	d = recparse_number_text(&c->dropped, NULL);
	e = recparse_number_text(&c->discarded, NULL);
	f = recparse_number_text(&c->creates_completed, NULL);
	printf("  %s updates completed, %s failed, %s dropped, %s discarded"
	    "\n  %s creates", a, b, d, e, f);
	free(a);
	free(b);
	free(d);
	free(e);
	free(f);
	/* A record made before creates_discarded was counted has none. */
	if (c->creates_discarded.has) {
		a = recparse_number_text(&c->creates_discarded, NULL);
		printf(", %s discarded", a);
		free(a);
	}
	putchar('\n');
	records_print_recount_rec(&r->recount, 2);
	if (c->update_calls.has) {
		a = recparse_number_text(&c->update_calls, NULL);
		printf("  %s rrd_update calls\n", a);
		free(a);
	}
	print_generators(&r->generators);
	print_cold_cache(&r->cold_cache);
	/* The cap on the daemon's memory and page cache (stressd
	 * --memory-max, MemoryMax=, a container's limit), if any. */
	if (!isnan(r->memory_limit_bytes))
		printf("  memory cap: %.0f MiB (%s)\n",
		    r->memory_limit_bytes / 1048576, r->memory_source != NULL ?
		    r->memory_source : "source unknown");
}

/* The summary of one record for a person: the answer first (the
 * daemon's verdict and warnings), then the figures behind it. */
static void
report_text(const struct runrec *r)
{
	printf("Run %" PRId64 ": %s%s%s\n", r->run_id, r->state,
	    r->reason ? ": " : "", r->reason ? r->reason : "");
	verdicts_report_rec(&r->verdict, r->warnings, r->nwarnings, stdout);
	putchar('\n');
	print_setting(r);
	putchar('\n');
	print_throughput(r);

	putchar('\n');
	print_sig(r);
	putchar('\n');
	print_dist(&r->total, "total_operations_pending",
	    "Total operations pending", false);
	if (r->rrdcached.has) {
		putchar('\n');
		print_rrdcached(&r->rrdcached);
	}
	putchar('\n');
	print_latency(r);
	putchar('\n');
	print_errors(&r->errors);
}

/* Copy the run's samples.csv to stdout. */
static int
print_csv(const struct records_ctx *ctx, const char *run,
    const struct runrec *rep)
{
	char *path = records_file_named(run, rep->samples_csv, "samples.csv");
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
	json_object *cap;
	struct runrec *rep;
	int rc;

	if ((rep = records_load_run(ctx, run, &cap, &rc)) == NULL &&
	    cap == NULL)
		return rc;
	if (cap != NULL && ctx->csv) {
		records_error(ctx, "a capacity record has no samples; each of "
		    "its steps' runs has (report --csv STEP_RUN_ID)");
		rc = CTL_EXIT_ERROR;
	} else if (cap != NULL)
		rc = cmd_capacity_show(ctx, &cap, 1, true);
	else if (ctx->png != NULL) {
		records_error(ctx, "--graph draws a capacity record; stressctl "
		    "graph draws a run");
		rc = CTL_EXIT_USAGE;
	} else if (ctx->csv)
		rc = print_csv(ctx, run, rep);
	else if (ctx->json)	/* the record as received */
		printf("%s\n", fmt_json_string(rep->json));
	else
		report_text(rep);
	json_object_put(cap);
	runrec_free(rep);
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

static int
runs_option(struct ctl *ctl, int c)
{
	double v;
	int ret;

	if (c != OPT_LIMIT && c != OPT_BEFORE)
		return OPTIONS_UNKNOWN;
	if ((ret = options_number(ctl->cmd, c == OPT_LIMIT ? "--limit" :
	    "--before", optarg, 1, c == OPT_LIMIT ? 1e9 : 1000000000.0, true,
	    &v)) != PARSE_OK)
		return ret;
	*(c == OPT_LIMIT ? &ctl->rec.limit : &ctl->rec.before) = (int64_t)v;
	return PARSE_OK;
}

/* Every page the daemon gives (records_runs), shown as one list. */
static int
run_runs(const struct records_ctx *ctx)
{
	const struct ctl *ctl = ctx->call_arg;
	int rc = CTL_EXIT_OK;
	json_object *res;
	struct runsrec *rs;

	if (!ctx->json) {
		if ((rs = records_runs_read(ctx, ctx->limit, ctx->before,
		    &rc)) == NULL)
			return rc;
		runsview_print(rs, ctl->all);
		runsrec_free(rs);
		return CTL_EXIT_OK;
	}
	if ((res = records_runs(ctx, ctx->limit, ctx->before, &rc)) == NULL)
		return rc;
	replyview_json(res);
	json_object_put(res);
	return CTL_EXIT_OK;
}

const struct ctl_cmd cmd_runs_entry = {
	.name = "runs",
	.usage = "[--all] [--limit N] [--before ID]",
	.summary = "list the recorded runs",
	.details =
	    "One line per run the daemon has a record of, oldest first: id, "
	    "start (local\ntime), state, updates completed, the average of "
	    "significant_ops_pending,\nfilesystem type, directory and mount "
	    "options (cut at 32 characters).  The\nruns that are steps of a "
	    "capacity search are counted, not listed, unless\n--all (their "
	    "SWEEP column then names the search and step).  Capacity\n"
	    "searches follow, one line per directory: state, files, steps, "
	    "capacity\n(updates/s), the rate that fell behind and what limited "
	    "it.  A table wider\nthan 80 columns (or $COLUMNS, or the "
	    "terminal) comes in parts, each\nstarting with the ID column."
	    "\n\nOptions:\n  --all       list the step runs of "
	    "capacity searches too\n  --before ID  only the runs with ids "
	    "below ID\n  --limit N   only the newest N of them (default: "
	    "all, fetched a page\n              of 10000 at a time)\n"
	    "  --json      print the daemon's list (its pages joined)\n"
	    "  -h, --help  print this help and exit\n",
	.parse = options_parse_plain,
	.option = runs_option,
	.options = (const struct option[]){
		OPTIONS_ALL,
		{ "limit", required_argument, NULL, OPT_LIMIT },
		{ "before", required_argument, NULL, OPT_BEFORE },
		OPTIONS_COMMON,
		{ NULL, 0, NULL, 0 }
	},
	.text_all = runsview_text_all,	/* run_runs shows it with --all */
	.run = run_runs,
};
