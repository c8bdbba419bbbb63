/*
 * Run records for stressctl: a run's report.json, from the daemon or from a
 * file, shown as a summary (report), side by side with others (compare),
 * drawn from its metrics.rrd (graph); and the live view of a run (watch).
 * Key names are those of report.json schema 1; a key that is missing shows
 * as "-" rather than failing, so older or newer records still read.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <rrd.h>

#include "output.h"
#include "proto.h"
#include "records.h"

/* The report.json schema this stressctl was written for. */
#define RECORDS_SCHEMA		1

/* Longest histogram bar, in '#'. */
#define HIST_BAR		40
/* Text is wrapped to this many columns. */
#define TEXT_WIDTH		79
/* report: width of the labels column ("mount options" and a gap). */
#define REPORT_LABELS		15
/* compare: narrowest run column (mount options are wrapped to it). */
#define COMPARE_MIN_COL		20

/* watch: values the sparkline shows, and the progress bar's width. */
#define WATCH_SPARK		40
#define WATCH_BAR		40
#define WATCH_LINES		5

/* ---------------------------------------------------------------- helpers */

static void errmsg(const struct records_ctx *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

/* "stressctl CMD: message" on stderr. */
static void
errmsg(const struct records_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "stressctl %s: ", ctx->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The value at a dotted path ("latency_ms.update_call.p99"), or NULL. */
static json_object *
jpath(json_object *o, const char *path)
{
	char key[128];
	const char *dot;

	while (o != NULL && *path != '\0') {
		dot = strchr(path, '.');
		snprintf(key, sizeof(key), "%.*s",
		    dot ? (int)(dot - path) : (int)strlen(path), path);
		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, key, &o))
			return NULL;
		path = dot ? dot + 1 : "";
	}
	return o;
}

static bool
jnum(json_object *o, const char *path, double *out)
{
	json_object *v = jpath(o, path);

	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return false;
	*out = json_object_get_double(v);
	return true;
}

/* A string member, or NULL if missing or not a string. */
static const char *
jstr(json_object *o, const char *path)
{
	json_object *v = jpath(o, path);

	return json_object_is_type(v, json_type_string) ?
	    json_object_get_string(v) : NULL;
}

/* A value as text: numbers with dfmt (or as integers), "-" if missing. */
static char *
jtext(json_object *o, const char *path, const char *dfmt)
{
	json_object *v = jpath(o, path);

	switch (json_object_get_type(v)) {
	case json_type_int:
		if (dfmt == NULL)
			return output_xprintf("%" PRId64, json_object_get_int64(v));
		return output_xprintf(dfmt, json_object_get_double(v));
	case json_type_double:
		return output_xprintf(dfmt ? dfmt : "%g", json_object_get_double(v));
	case json_type_string:
	case json_type_boolean:
		return output_xprintf("%s", json_object_get_string(v));
	case json_type_null:
	case json_type_object:
	case json_type_array:
		break;
	}
	return output_xprintf("-");
}

/* "2026-11-30T11:20:54Z" to epoch seconds; -1 if it does not parse. */
static time_t
iso_time(const char *iso)
{
	struct tm tm;
	const char *end;

	if (iso == NULL)
		return -1;
	memset(&tm, 0, sizeof(tm));
	end = strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (end == NULL || *end != '\0')
		return -1;
	return timegm(&tm);
}

static bool
state_ended(const char *state)
{
	static const char *const ended[] = {
		"done", "stopped", "failed", "idle", NULL
	};

	for (size_t i = 0; state != NULL && ended[i] != NULL; i++)
		if (strcmp(state, ended[i]) == 0)
			return true;
	return false;
}

/* ---------------------------------------------------------------- loading */

bool
records_is_path(const char *run)
{
	size_t n = strlen(run);

	return strchr(run, '/') != NULL ||
	    (n >= 5 && strcmp(run + n - 5, ".json") == 0);
}

/* Read a whole file; NULL with errno set on failure. */
static char *
read_file(const char *path, size_t *len)
{
	FILE *fp;
	char *buf = NULL, *nbuf;
	size_t cap = 0, n = 0, r;
	int saved;

	if ((fp = fopen(path, "re")) == NULL)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 65536;
			if ((nbuf = realloc(buf, cap)) == NULL)
				goto fail;
			buf = nbuf;
		}
		r = fread(buf + n, 1, cap - n - 1, fp);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(fp)) {
		errno = EIO;
		goto fail;
	}
	fclose(fp);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	saved = errno;
	free(buf);
	fclose(fp);
	errno = saved;
	return NULL;
}

/* A report.json file, checked to be a stressd record. */
static json_object *
load_file(const struct records_ctx *ctx, const char *path, int *rc)
{
	struct json_tokener *tok = NULL;
	json_object *rep = NULL, *schema;
	char *text;
	size_t len;

	*rc = CTL_EXIT_ERROR;
	if ((text = read_file(path, &len)) == NULL) {
		errmsg(ctx, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	tok = output_nomem(json_tokener_new());
	rep = json_tokener_parse_ex(tok, text, (int)len);
	if (rep == NULL || json_tokener_get_error(tok) != json_tokener_success) {
		errmsg(ctx, "%s: not valid JSON: %s", path,
		    json_tokener_error_desc(json_tokener_get_error(tok)));
		goto fail;
	}
	if (!json_object_is_type(rep, json_type_object) ||
	    !json_object_object_get_ex(rep, "schema", &schema) ||
	    !json_object_is_type(schema, json_type_int)) {
		errmsg(ctx, "%s: not a stressd run record (no \"schema\")",
		    path);
		goto fail;
	}
	/* Newer schemas only add keys; what is missing shows as "-". */
	if (json_object_get_int(schema) > RECORDS_SCHEMA)
		fprintf(stderr, "stressctl %s: warning: %s has schema %d, "
		    "this stressctl reads schema %d\n", ctx->name, path,
		    json_object_get_int(schema), RECORDS_SCHEMA);
	*rc = CTL_EXIT_OK;
fail:
	if (*rc != CTL_EXIT_OK) {
		json_object_put(rep);
		rep = NULL;
	}
	json_tokener_free(tok);
	free(text);
	return rep;
}

/*
 * The record of run (an id or a report.json path; NULL: the daemon's
 * current or last run).  NULL with *rc the exit status on failure, the
 * reason printed (*rc 0: a dry run, nothing more to do).
 */
static json_object *
load_report(const struct records_ctx *ctx, const char *run, int *rc)
{
	json_object *args, *rep;

	if (run != NULL && records_is_path(run))
		return load_file(ctx, run, rc);
	args = output_nomem(json_object_new_object());
	if (run != NULL)
		json_object_object_add(args, "run", json_object_new_int64(
		    (int64_t)strtoull(run, NULL, 10)));
	rep = ctx->call(ctx->call_arg, "report", args, rc);
	json_object_put(args);
	if (rep != NULL && !json_object_is_type(rep, json_type_object)) {
		errmsg(ctx, "the daemon's report is not an object: %.200s",
		    output_json_string(rep));
		json_object_put(rep);
		*rc = CTL_EXIT_ERROR;
		return NULL;
	}
	return rep;
}

/*
 * The path of a file of the record (files.KEY).  A record read from a file
 * may have travelled from another host, so the same name beside it comes
 * first; the path in the record is used when there is none.  NULL if the
 * record names no such file.
 */
static char *
record_file(const char *run, json_object *rep, const char *key,
    const char *name)
{
	const char *named = jstr(jpath(rep, "files"), key), *base, *slash;
	char *beside;

	if (run == NULL || !records_is_path(run))
		return named != NULL ? output_xprintf("%s", named) : NULL;
	if (named != NULL && (base = strrchr(named, '/')) != NULL)
		name = base + 1;
	slash = strrchr(run, '/');
	beside = slash != NULL ? output_xprintf("%.*s/%s", (int)(slash - run), run,
	    name) : output_xprintf("%s", name);
	if (named == NULL || access(beside, F_OK) == 0)
		return beside;
	free(beside);
	return output_xprintf("%s", named);
}

/* ---------------------------------------------------------------- report */

/* Append "key=value" of every knob but dir (shown as the target). */
static char *
params_text(json_object *params)
{
	char *s = output_xprintf("%s", ""), *next;

	if (!json_object_is_type(params, json_type_object))
		return s;
	json_object_object_foreach(params, key, v) {
		char *val;

		if (strcmp(key, "dir") == 0)
			continue;
		if (json_object_is_type(v, json_type_array)) {
			val = output_xprintf("%s", "");
			for (size_t i = 0; i < json_object_array_length(v);
			    i++) {
				next = output_xprintf("%s%s%s", val, i ? "," : "",
				    json_object_get_string(
				    json_object_array_get_idx(v, i)));
				free(val);
				val = next;
			}
		} else if (json_object_is_type(v, json_type_string) &&
		    json_object_get_string_len(v) == 0)
			continue;	/* an unset path, e.g. update_file */
		else
			val = jtext(v, "", NULL);
		next = output_xprintf("%s%s%s=%s", s, *s ? " " : "", key, val);
		free(val);
		free(s);
		s = next;
	}
	return s;
}

/* Add text to a two-column table, wrapped at spaces (or sep) to width,
 * the first line labelled. */
static void
add_wrapped(struct output_cols *t, const char *label, const char *text,
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
		output_cols_add(t, "%s", first ? label : "");
		/* A space separator is not kept at the end of a line. */
		output_cols_add(t, "%.*s", sep == ' ' && n > 0 &&
		    text[n - 1] == ' ' ? n - 1 : n, text);
		text += n;
		first = false;
	} while (*text != '\0');
}

static void
add_time(struct output_cols *t, const char *label, json_object *rep,
    const char *key)
{
	const char *iso = jstr(rep, key);
	char buf[64];

	output_cols_add(t, "%s", label);
	output_cols_add(t, "%s", iso != NULL ?
	    output_local_time(iso, true, buf, sizeof(buf)) :
	    state_ended(jstr(rep, "state")) ? "-" : "- (still running)");
}

/* A histogram bucket's label: its value, or "lo-hi" when bucketed. */
static char *
bucket_label(json_object *e)
{
	json_object *upper = jpath(e, "upper");

	if (upper != NULL)
		return output_xprintf("%" PRId64 "-%" PRId64,
		    json_object_get_int64(jpath(e, "value")),
		    json_object_get_int64(upper));
	return jtext(e, "value", NULL);
}

/* "value: count" lines with a bar of '#' proportional to the count. */
static void
print_histogram(json_object *hist, int indent)
{
	size_t n = json_object_array_length(hist), lw = 0, cw = 0;
	int64_t max = 0;

	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(hist, i);
		char *l = bucket_label(e), *c = jtext(e, "count", NULL);
		int64_t cnt = json_object_get_int64(jpath(e, "count"));

		lw = strlen(l) > lw ? strlen(l) : lw;
		cw = strlen(c) > cw ? strlen(c) : cw;
		max = cnt > max ? cnt : max;
		free(l);
		free(c);
	}
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(hist, i);
		char *l = bucket_label(e), *c = jtext(e, "count", NULL);
		int64_t cnt = json_object_get_int64(jpath(e, "count"));
		int bar = max > 0 ? (int)llround((double)cnt * HIST_BAR /
		    (double)max) : 0;

		/* Any sample at all gets a mark. */
		if (cnt > 0 && bar == 0)
			bar = 1;
		/* No padding is left dangling after a count without bar. */
		if (bar == 0)
			printf("%*s%*s: %s", indent, "", (int)lw, l, c);
		else
			printf("%*s%*s: %-*s  ", indent, "", (int)lw, l,
			    (int)cw, c);
		for (int b = 0; b < bar; b++)
			putchar('#');
		putchar('\n');
		free(l);
		free(c);
	}
}

/* "p50 0  p90 2  p99 5  max 7" of one queue. */
static void
print_percentiles(json_object *d, int indent)
{
	static const char *const keys[] = { "p50", "p90", "p99", "max" };

	printf("%*s", indent, "");
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		char *v = jtext(d, keys[i], NULL);

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
	char *avg = jtext(d, "average", "%.2f");

	printf("%s (%s)\n  Average: %s\n", title, key, avg);
	free(avg);
	print_percentiles(d, 2);
	if (histogram && json_object_is_type(hist, json_type_array) &&
	    json_object_array_length(hist) > 0)
		print_histogram(hist, 2);
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
	char *a = jtext(rc, "address", NULL), *title;
	double v0, v1;

	title = output_xprintf("rrdcached %s: files waiting to be written",
	    a);
	print_dist(jpath(rc, "queue_length"), "QueueLength", title, true);
	free(title);
	free(a);
	printf("  during the run:");
	if (json_object_get_boolean(jpath(rc, "restarted")))
		printf(" rrdcached restarted, its counters began again;");
	for (size_t i = 0; i < sizeof(grew) / sizeof(*grew); i++) {
		if (jnum(start, grew[i], &v0) && jnum(end, grew[i], &v1) &&
		    v1 >= v0)
			printf("%s %s +%.0f", i ? "," : "", grew[i], v1 - v0);
		else
			printf("%s %s -", i ? "," : "", grew[i]);
	}
	putchar('\n');
	if (jnum(rc, "flush_s", &v0))
		printf("  all written %.3f s after the closing FLUSHALL\n", v0);
	else
		printf("  not (yet) all written after a closing FLUSHALL\n");
	if (jnum(rc, "samples_without_stats", &v0) && v0 > 0)
		printf("  %.0f samples without its STATS (no answer)\n", v0);
}

static void
print_latency(json_object *rep)
{
	static const char *const cols[] = {
		"min", "mean", "p50", "p90", "p99", "p999", "max"
	};
	static const char *const rows[] = {
		"enqueue_to_persist", "update_call"
	};
	struct output_cols *t = output_cols_new("lrrrrrrrr");

	output_cols_add(t, "Latency (ms)");
	output_cols_add(t, "count");
	for (size_t c = 0; c < sizeof(cols) / sizeof(*cols); c++)
		output_cols_add(t, "%s", strcmp(cols[c], "p999") == 0 ?
		    "p99.9" : cols[c]);
	for (size_t r = 0; r < sizeof(rows) / sizeof(*rows); r++) {
		json_object *l = jpath(jpath(rep, "latency_ms"), rows[r]);
		char *v = jtext(l, "count", NULL);

		output_cols_add(t, "  %s", rows[r]);
		output_cols_add(t, "%s", v);
		free(v);
		for (size_t c = 0; c < sizeof(cols) / sizeof(*cols); c++) {
			v = jtext(l, cols[c], "%.3f");
			output_cols_add(t, "%s", v);
			free(v);
		}
	}
	output_cols_print(t, 0);
	output_cols_free(t);
}

static void
print_errors(json_object *rep)
{
	json_object *e = jpath(rep, "errors");
	json_object *msgs = jpath(e, "first_messages");
	char *n = jtext(e, "count", NULL), *uf = jtext(e, "updates_failed",
	    NULL), *cf = jtext(e, "creates_failed", NULL);

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

/* The summary of one record for a person. */
static void
report_text(json_object *rep)
{
	struct output_cols *t = output_cols_new("ll");
	const char *reason = jstr(rep, "reason"), *src;
	char *id = jtext(rep, "run_id", NULL), *st = jtext(rep, "state", NULL);
	char *a, *b, *c, *d, *e;
	double v;

	printf("Run %s: %s%s%s\n\n", id, st, reason ? ": " : "",
	    reason ? reason : "");
	free(id);
	free(st);

	a = jtext(rep, "host.name", NULL);
	b = jtext(rep, "host.kernel", NULL);
	c = jtext(rep, "host.machine", NULL);
	d = jtext(rep, "host.cpus", NULL);
	output_cols_add(t, "host");
	output_cols_add(t, "%s (kernel %s, %s, %s CPUs)", a, b, c, d);
	free(a);
	free(b);
	free(c);
	free(d);
	a = jtext(rep, "stressd_version", NULL);
	b = jtext(rep, "librrd_version", NULL);
	output_cols_add(t, "versions");
	output_cols_add(t, "stressd %s, librrd %s", a, b);
	free(a);
	free(b);
	a = params_text(jpath(rep, "params"));
	add_wrapped(t, "parameters", a, TEXT_WIDTH - REPORT_LABELS, ' ');
	free(a);
	a = jtext(rep, "target.dir", NULL);
	b = jtext(rep, "target.fs_type", NULL);
	output_cols_add(t, "target");
	output_cols_add(t, "%s", a);
	output_cols_add(t, "filesystem");
	output_cols_add(t, "%s", b);
	free(a);
	free(b);
	a = jtext(rep, "target.mount_source", NULL);
	b = jtext(rep, "target.mount_point", NULL);
	output_cols_add(t, "mount source");
	output_cols_add(t, "%s (mounted on %s)", a, b);
	free(a);
	free(b);
	add_wrapped(t, "mount options", (src = jstr(rep,
	    "target.mount_options")) ? src : "-", TEXT_WIDTH - REPORT_LABELS, ',');
	add_time(t, "started", rep, "started_at");
	add_time(t, "ended", rep, "ended_at");
	a = jtext(rep, "elapsed_s", "%.1f");
	output_cols_add(t, "elapsed");
	output_cols_add(t, "%s s", a);
	free(a);
	a = jtext(rep, "samples", NULL);
	b = jtext(rep, "sample_interval_s", "%g");
	output_cols_add(t, "samples");
	output_cols_add(t, "%s, every %s s", a, b);
	free(a);
	free(b);
	output_cols_print(t, 0);
	output_cols_free(t);

	/* The original stresser's wording, so old notes still compare. */
	a = jtext(rep, "throughput.updates_per_s_since_first_update", "%.2f");
	b = jtext(rep, "throughput.updates_per_s_all_time", "%.2f");
	printf("\nThroughput\n  %s updates/sec avg since first update, %s "
	    "updates/sec avg for all time\n", a, b);
	free(a);
	free(b);
	a = jtext(rep, "throughput.creates_per_s", "%.2f");
	b = jtext(rep, "throughput.ops_per_update", "%.2f");
	printf("  %s creates/sec, %s ops per update\n", a, b);
	free(a);
	free(b);
	a = jtext(rep, "counters.updates_completed", NULL);
	b = jtext(rep, "counters.updates_failed", NULL);
	c = jtext(rep, "counters.dropped", NULL);
	d = jtext(rep, "counters.creates_completed", NULL);
	e = jtext(rep, "counters.discarded", NULL);
	printf("  %s updates completed, %s failed, %s dropped, %s discarded; "
	    "%s creates\n", a, b, c, e, d);
	free(a);
	free(b);
	free(c);
	free(d);
	free(e);
	if (jnum(rep, "counters.update_calls", &v)) {
		a = jtext(rep, "counters.update_calls", NULL);
		printf("  %s rrd_update calls\n", a);
		free(a);
	}

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
	char *path = record_file(run, rep, "samples_csv", "samples.csv");
	char buf[65536];
	FILE *fp = NULL;
	size_t n;
	int ret = CTL_EXIT_ERROR;

	if (path == NULL) {
		errmsg(ctx, "the record names no samples file "
		    "(files.samples_csv)");
		goto fail;
	}
	if ((fp = fopen(path, "re")) == NULL) {
		errmsg(ctx, "cannot read the samples %s: %s", path,
		    strerror(errno));
		goto fail;
	}
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		if (fwrite(buf, 1, n, stdout) != n)
			break;
	if (ferror(fp)) {
		errmsg(ctx, "%s: read error", path);
		goto fail;
	}
	ret = CTL_EXIT_OK;
fail:
	if (fp != NULL)
		fclose(fp);
	free(path);
	return ret;
}

int
records_report(const struct records_ctx *ctx)
{
	const char *run = ctx->nruns > 0 ? ctx->runs[0] : NULL;
	json_object *rep;
	int rc;

	if ((rep = load_report(ctx, run, &rc)) == NULL)
		return rc;
	if (ctx->csv)
		rc = print_csv(ctx, run, rep);
	else if (ctx->json)
		printf("%s\n", output_json_string(rep));
	else
		report_text(rep);
	json_object_put(rep);
	return rc;
}

/* ---------------------------------------------------------------- compare */

struct compare_row {
	const char	*label;
	const char	*path;
	const char	*dfmt;
};

static const struct compare_row compare_rows[] = {
	{ "state", "state", NULL },
	{ "files", "params.files", NULL },
	{ "updates completed", "counters.updates_completed", NULL },
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

#define NCOMPARE_ROWS	(sizeof(compare_rows) / sizeof(*compare_rows))

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

/* Whether any run has a value at the row's path. */
static bool
row_present(json_object **reps, int n, const char *path)
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
	const char *host0 = jstr(reps[0], "host.name");

	for (int i = 1; i < n; i++) {
		const char *h = jstr(reps[i], "host.name");

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
	char *id = jtext(rep, "run_id", NULL), *host, *label;

	if (!by_host)
		label = output_xprintf("run %s", id);
	else {
		host = jtext(rep, "host.name", NULL);
		label = output_xprintf("run %s@%s", id, host);
		free(host);
	}
	free(id);
	return label;
}

/* A table of a label column (aligned 'l' or 'r') and n right-aligned
 * columns, one a run (or a directory). */
static struct output_cols *
run_columns(char first, int n)
{
	char *align = output_nomem(malloc((size_t)n + 2));
	struct output_cols *t;

	align[0] = first;
	memset(align + 1, 'r', (size_t)n);
	align[n + 1] = '\0';
	t = output_cols_new(align);
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
	struct output_cols *t;
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
				print_histogram(h, 4);
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

	t = run_columns('r', n);
	output_cols_add(t, "value");
	for (int i = 0; i < n; i++) {
		char *label = run_label(reps[i], by_host);

		output_cols_add(t, "%s", label);
		free(label);
	}
	for (size_t k = 0; k < nv; k++) {
		if (k > 0 && vals[k] == vals[k - 1])
			continue;
		output_cols_add(t, "%" PRId64, vals[k]);
		for (int i = 0; i < n; i++) {
			struct hrun *r = &runs[i];
			double cnt = 0;

			while (r->pos < r->n && r->e[r->pos].value < vals[k])
				r->pos++;
			while (r->pos < r->n && r->e[r->pos].value == vals[k])
				cnt += (double)r->e[r->pos++].count;
			output_cols_add(t, "%.0f (%5.1f%%)", cnt,
			    r->total > 0 ? 100.0 * cnt / r->total : 0.0);
		}
	}
	for (int i = 0; i < n; i++)
		free(runs[i].e);
	free(runs);
	output_cols_print(t, 2);
	output_cols_free(t);
	free(vals);
}

static void
compare_text(json_object **reps, int n)
{
	struct output_cols *t;
	size_t width = COMPARE_MIN_COL, lines = 0;
	char *cell;
	bool by_host = hosts_differ(reps, n);

	/* The run columns are as wide as their widest value or heading. */
	for (int i = 0; i < n; i++) {
		cell = run_label(reps[i], by_host);
		if (strlen(cell) > width)
			width = strlen(cell);
		free(cell);
		for (size_t r = 0; r < NCOMPARE_ROWS; r++) {
			cell = jtext(reps[i], compare_rows[r].path,
			    compare_rows[r].dfmt);
			if (strlen(cell) > width)
				width = strlen(cell);
			free(cell);
		}
	}

	t = run_columns('l', n);

	/* Heading: run id (with the host, if they differ), fs type, the
	 * directory (its end, if long) and the mount options wrapped at
	 * commas. */
	output_cols_add(t, "%s", "");
	for (int i = 0; i < n; i++) {
		cell = run_label(reps[i], by_host);
		output_cols_add(t, "%s", cell);
		free(cell);
	}
	output_cols_add(t, "filesystem");
	for (int i = 0; i < n; i++) {
		cell = jtext(reps[i], "target.fs_type", NULL);
		output_cols_add(t, "%.*s", (int)width, cell);
		free(cell);
	}
	output_cols_add(t, "directory");
	for (int i = 0; i < n; i++) {
		const char *dir = jstr(reps[i], "target.dir");
		size_t len = dir ? strlen(dir) : 0;

		if (dir == NULL)
			output_cols_add(t, "-");
		else if (len > width)
			output_cols_add(t, "...%s", dir + len - (width - 3));
		else
			output_cols_add(t, "%s", dir);
	}
	for (int i = 0; i < n; i++) {
		const char *o = jstr(reps[i], "target.mount_options");
		size_t k = 0;

		while (o != NULL && (cell = wrap_line(o, width, k)) != NULL) {
			free(cell);
			k++;
		}
		if (k > lines)
			lines = k;
	}
	for (size_t k = 0; k < (lines ? lines : 1); k++) {
		output_cols_add(t, "%s", k == 0 ? "mount options" : "");
		for (int i = 0; i < n; i++) {
			const char *o = jstr(reps[i], "target.mount_options");

			cell = o != NULL ? wrap_line(o, width, k) : NULL;
			output_cols_add(t, "%s", cell ? cell : k ? "" : "-");
			free(cell);
		}
	}
	output_cols_add(t, "%s", "");
	for (int i = 0; i < n; i++)
		output_cols_add(t, "%s", "");

	for (size_t r = 0; r < NCOMPARE_ROWS; r++) {
		if (!row_present(reps, n, compare_rows[r].path))
			continue;
		output_cols_add(t, "%s", compare_rows[r].label);
		for (int i = 0; i < n; i++) {
			cell = jtext(reps[i], compare_rows[r].path,
			    compare_rows[r].dfmt);
			output_cols_add(t, "%s", cell);
			free(cell);
		}
	}
	output_cols_print(t, 0);
	output_cols_free(t);
	compare_histograms(reps, n, by_host);
}

/* ---------------------------------------------------------------- sweep */

/* Mean, sample standard deviation (n - 1), min and max of one compare row
 * over the done runs of sweep directory d; false if fewer than two. */
struct spread {
	int	n;
	double	mean, sd, min, max;
};

static bool
sweep_spread(const struct records_ctx *ctx, json_object **reps, int n, int d,
    const char *path, struct spread *s)
{
	double sum = 0, sq = 0, x;

	memset(s, 0, sizeof(*s));
	for (int i = d; i < n; i += ctx->nsweep_dirs) {
		const char *state = jstr(reps[i], "state");

		/* A stopped or failed run would pull the mean. */
		if (state == NULL || strcmp(state, "done") != 0 ||
		    !jnum(reps[i], path, &x))
			continue;
		if (s->n == 0 || x < s->min)
			s->min = x;
		if (s->n == 0 || x > s->max)
			s->max = x;
		sum += x;
		s->n++;
	}
	if (s->n < 2)
		return false;
	s->mean = sum / s->n;
	for (int i = d; i < n; i += ctx->nsweep_dirs) {
		const char *state = jstr(reps[i], "state");

		if (state != NULL && strcmp(state, "done") == 0 &&
		    jnum(reps[i], path, &x))
			sq += (x - s->mean) * (x - s->mean);
	}
	s->sd = sqrt(sq / (s->n - 1));
	return true;
}

/* The rows worth a mean: numbers that vary with the storage. */
static bool
sweep_row(const struct compare_row *r)
{
	return strcmp(r->path, "state") != 0 &&
	    strcmp(r->path, "params.files") != 0;
}

static void
sweep_text(const struct records_ctx *ctx, json_object **reps, int n)
{
	struct output_cols *t;
	struct spread s;
	bool any = false;
	int nd = ctx->nsweep_dirs;

	for (int d = 0; d < nd && !any; d++)
		any = sweep_spread(ctx, reps, n, d, "counters.updates_completed",
		    &s);
	if (!any)
		return;
	printf("\nAcross repeats: mean +- sample standard deviation [min, max] "
	    "of each\ndirectory's done runs\n");
	t = run_columns('l', nd);
	output_cols_add(t, "%s", "");
	for (int d = 0; d < nd; d++) {
		const char *dir = ctx->sweep_dirs[d];
		size_t len = strlen(dir);

		if (len > COMPARE_MIN_COL)
			output_cols_add(t, "...%s", dir + len -
			    (COMPARE_MIN_COL - 3));
		else
			output_cols_add(t, "%s", dir);
	}
	output_cols_add(t, "done runs");
	for (int d = 0; d < nd; d++) {
		sweep_spread(ctx, reps, n, d, "counters.updates_completed", &s);
		output_cols_add(t, "%d", s.n);
	}
	for (size_t r = 0; r < NCOMPARE_ROWS; r++) {
		const char *fmt = compare_rows[r].dfmt ? compare_rows[r].dfmt :
		    "%.1f";

		if (!sweep_row(&compare_rows[r]) ||
		    !row_present(reps, n, compare_rows[r].path))
			continue;
		output_cols_add(t, "%s", compare_rows[r].label);
		for (int d = 0; d < nd; d++) {
			char *m, *sd, *lo, *hi;

			if (!sweep_spread(ctx, reps, n, d, compare_rows[r].path,
			    &s)) {
				output_cols_add(t, "-");
				continue;
			}
			m = output_xprintf(fmt, s.mean);
			sd = output_xprintf(fmt, s.sd);
			lo = output_xprintf(fmt, s.min);
			hi = output_xprintf(fmt, s.max);
			output_cols_add(t, "%s +- %s [%s, %s]", m, sd, lo, hi);
			free(m);
			free(sd);
			free(lo);
			free(hi);
		}
	}
	output_cols_print(t, 0);
	output_cols_free(t);
}

/* {"id": ID, "directories": [{"dir", "runs", "stats": {PATH: {n, mean,
 * stddev, min, max}}}]} for --json. */
static json_object *
sweep_json(const struct records_ctx *ctx, json_object **reps, int n)
{
	json_object *o = output_nomem(json_object_new_object());
	json_object *dirs = output_nomem(json_object_new_array());
	struct spread s;

	json_object_object_add(o, "id", json_object_new_string(
	    ctx->sweep_id ? ctx->sweep_id : ""));
	for (int d = 0; d < ctx->nsweep_dirs; d++) {
		json_object *e = output_nomem(json_object_new_object());
		json_object *ids = output_nomem(json_object_new_array());
		json_object *st = output_nomem(json_object_new_object());

		json_object_object_add(e, "dir",
		    json_object_new_string(ctx->sweep_dirs[d]));
		for (int i = d; i < n; i += ctx->nsweep_dirs)
			json_object_array_add(ids, json_object_get(jpath(reps[i],
			    "run_id")));
		json_object_object_add(e, "runs", ids);
		for (size_t r = 0; r < NCOMPARE_ROWS; r++) {
			json_object *v;

			if (!sweep_row(&compare_rows[r]) ||
			    !sweep_spread(ctx, reps, n, d, compare_rows[r].path,
			    &s))
				continue;
			v = output_nomem(json_object_new_object());
			json_object_object_add(v, "n", json_object_new_int(s.n));
			json_object_object_add(v, "mean",
			    json_object_new_double(s.mean));
			json_object_object_add(v, "stddev",
			    json_object_new_double(s.sd));
			json_object_object_add(v, "min",
			    json_object_new_double(s.min));
			json_object_object_add(v, "max",
			    json_object_new_double(s.max));
			json_object_object_add(st, compare_rows[r].path, v);
		}
		json_object_object_add(e, "stats", st);
		json_object_array_add(dirs, e);
	}
	json_object_object_add(o, "directories", dirs);
	return o;
}

static int
compare_runs(const struct records_ctx *ctx, bool sweep)
{
	json_object **reps, *all = NULL, *list;
	int rc = CTL_EXIT_OK, got = 0;

	reps = output_nomem(calloc((size_t)ctx->nruns, sizeof(*reps)));
	for (got = 0; got < ctx->nruns; got++)
		if ((reps[got] = load_report(ctx, ctx->runs[got], &rc)) ==
		    NULL)
			goto fail;
	if (ctx->json) {
		all = output_nomem(json_object_new_object());
		list = output_nomem(json_object_new_array());
		for (int i = 0; i < got; i++)
			json_object_array_add(list, json_object_get(reps[i]));
		json_object_object_add(all, "runs", list);
		if (sweep)
			json_object_object_add(all, "sweep",
			    sweep_json(ctx, reps, got));
		printf("%s\n", output_json_string(all));
	} else {
		compare_text(reps, got);
		if (sweep)
			sweep_text(ctx, reps, got);
	}
fail:
	json_object_put(all);
	for (int i = 0; i < got; i++)
		json_object_put(reps[i]);
	free(reps);
	return rc;
}

int
records_compare(const struct records_ctx *ctx)
{
	return compare_runs(ctx, false);
}

int
records_sweep(const struct records_ctx *ctx)
{
	return compare_runs(ctx, true);
}

/* ---------------------------------------------------------------- watch */

static volatile sig_atomic_t watch_interrupted;

static void
watch_sigint(int sig)
{
	(void)sig;
	watch_interrupted = 1;
}

/* What watch has seen of the run so far. */
struct watch {
	int64_t		 run_id;
	uint64_t	 spark[WATCH_SPARK];	/* ring of sig values */
	size_t		 nspark, head;
	double		 sig_sum, total_sum;
	unsigned long	 seen;
	bool		 have_prev;
	double		 prev_t, prev_done;
	bool		 tty, drawn;
};

/* Numbers of one refresh. */
struct watch_now {
	const char	*state;
	int64_t		 run_id;
	double		 t, max, done, completed;
	double		 sig, total;
	double		 rate, overall, eta;	/* eta < 0: unknown */
};

static double
num_or_zero(json_object *o, const char *path)
{
	double d = 0;

	jnum(o, path, &d);
	return d;
}

/* Fold one stats reply into w and work out the figures to show. */
static void
watch_update(struct watch *w, json_object *st, struct watch_now *now)
{
	now->state = jstr(st, "state");
	if (now->state == NULL)
		now->state = "?";
	now->run_id = (int64_t)num_or_zero(st, "run_id");
	now->t = num_or_zero(st, "elapsed_s");
	now->max = num_or_zero(st, "max_updates");
	now->completed = num_or_zero(st, "updates_completed");
	/* Progress counts every update that is finished with, however it
	 * ended, so a run with drops or failures still reaches 100%. */
	now->done = now->completed + num_or_zero(st, "updates_failed") +
	    num_or_zero(st, "dropped") + num_or_zero(st, "discarded");
	now->sig = num_or_zero(st, "significant_ops_pending");
	now->total = num_or_zero(st, "total_operations_pending");

	/* A new run: what was seen belongs to the old one. */
	if (w->seen > 0 && now->run_id != w->run_id) {
		bool tty = w->tty, drawn = w->drawn;

		memset(w, 0, sizeof(*w));
		w->tty = tty;
		w->drawn = drawn;
	}
	w->run_id = now->run_id;
	w->seen++;
	w->sig_sum += now->sig;
	w->total_sum += now->total;
	w->spark[w->head] = (uint64_t)now->sig;
	w->head = (w->head + 1) % WATCH_SPARK;
	if (w->nspark < WATCH_SPARK)
		w->nspark++;

	/* The current rate over our own refresh period; the daemon's
	 * current window is shared with every other stats caller. */
	if (w->have_prev && now->t > w->prev_t)
		now->rate = (now->completed - w->prev_done) /
		    (now->t - w->prev_t);
	else
		now->rate = num_or_zero(st, "rates.current_dequeue.total");
	w->have_prev = true;
	w->prev_t = now->t;
	w->prev_done = now->completed;
	now->overall = now->t > 0 ? now->completed / now->t : 0;
	now->eta = -1;
	if (now->max > 0 && now->done >= now->max)
		now->eta = 0;
	else if (now->max > 0 && now->t > 0 && now->done > 0)
		now->eta = (now->max - now->done) / (now->done / now->t);
}

static void
eta_text(double eta, char *buf, size_t len)
{
	long s = (long)llround(eta);

	if (eta < 0)
		snprintf(buf, len, "?");
	else if (s >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60,
		    s % 60);
	else
		snprintf(buf, len, "%ld:%02ld", s / 60, s % 60);
}

/* The sparkline of the significant queue, scaled to its largest value. */
static void
spark_text(const struct watch *w, char *buf, size_t len, uint64_t *maxp)
{
	static const char *const bars[] = {
		"\u2581", "\u2582", "\u2583", "\u2584",
		"\u2585", "\u2586", "\u2587", "\u2588"
	};
	size_t start = (w->head + WATCH_SPARK - w->nspark) % WATCH_SPARK;
	uint64_t max = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < w->nspark; i++)
		if (w->spark[(start + i) % WATCH_SPARK] > max)
			max = w->spark[(start + i) % WATCH_SPARK];
	for (size_t i = 0; i < w->nspark; i++) {
		uint64_t v = w->spark[(start + i) % WATCH_SPARK];
		size_t level = max > 0 ? (size_t)((v * 7 + max / 2) / max) : 0;

		strncat(buf, bars[level], len - strlen(buf) - 1);
	}
	*maxp = max;
}

/* Cut a line to cols characters, so that no line wraps and the cursor
 * moves of the next redraw stay right. */
static void
fit_line(char *line, int cols)
{
	int w = 0;

	for (char *p = line; *p != '\0'; p++)
		if (((unsigned char)*p & 0xc0) != 0x80 && ++w > cols) {
			*p = '\0';
			return;
		}
}

static int
term_cols(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		return ws.ws_col - 1;
	return TEXT_WIDTH;
}

/* Redraw the view in place: back to its first line, each line cleared. */
static void
watch_draw(struct watch *w, const struct watch_now *now)
{
	char lines[WATCH_LINES][512], eta[32], spark[WATCH_SPARK * 4 + 1];
	char bar[WATCH_BAR + 1];
	double frac = now->max > 0 ? now->done / now->max : 0;
	uint64_t smax;
	int filled, cols = term_cols();

	if (frac > 1)
		frac = 1;
	filled = (int)(frac * WATCH_BAR);
	memset(bar, '#', (size_t)filled);
	memset(bar + filled, '.', (size_t)(WATCH_BAR - filled));
	bar[WATCH_BAR] = '\0';
	eta_text(now->eta, eta, sizeof(eta));
	spark_text(w, spark, sizeof(spark), &smax);

	snprintf(lines[0], sizeof(lines[0]), "stressd run %" PRId64 ": %s, "
	    "%.1f s", now->run_id, now->state, now->t);
	snprintf(lines[1], sizeof(lines[1]), "[%s] %5.1f%%  %.0f/%.0f  ETA %s",
	    bar, 100 * frac, now->done, now->max, state_ended(now->state) ?
	    "-" : eta);
	snprintf(lines[2], sizeof(lines[2]), "updates/s     %.1f now, %.1f "
	    "overall", now->rate, now->overall);
	snprintf(lines[3], sizeof(lines[3]), "queue         significant %.0f "
	    "(avg %.2f)   total %.0f (avg %.2f)", now->sig,
	    w->sig_sum / (double)w->seen, now->total,
	    w->total_sum / (double)w->seen);
	snprintf(lines[4], sizeof(lines[4]), "significant   %s  max %" PRIu64,
	    spark, smax);

	if (w->drawn)
		printf("\033[%dA", WATCH_LINES);
	for (int i = 0; i < WATCH_LINES; i++) {
		fit_line(lines[i], cols);
		printf("\r%s\033[K\n", lines[i]);
	}
	w->drawn = true;
}

/* One plain line per refresh, for logs and pipes. */
static void
watch_line(const struct watch *w, const struct watch_now *now)
{
	char eta[32];

	eta_text(now->eta, eta, sizeof(eta));
	printf("t=%.1fs run=%" PRId64 " state=%s done=%.0f/%.0f sig=%.0f "
	    "total=%.0f sig_avg=%.2f total_avg=%.2f rate=%.1f/s "
	    "overall=%.1f/s eta=%s\n", now->t, now->run_id, now->state,
	    now->done, now->max, now->sig, now->total,
	    w->sig_sum / (double)w->seen, w->total_sum / (double)w->seen,
	    now->rate, now->overall, state_ended(now->state) ? "-" : eta);
}

/* Sleep until the monotonic time until, or a signal. */
static void
sleep_until(double until)
{
	struct timespec now, ts;
	double left;

	while (!watch_interrupted) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = until - ((double)now.tv_sec + (double)now.tv_nsec / 1e9);
		if (left <= 0)
			return;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		/* EINTR: the loop looks at watch_interrupted again. */
		nanosleep(&ts, NULL);
	}
}

static double
mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
records_watch(const struct records_ctx *ctx)
{
	struct sigaction sa, old_int;
	struct watch w;
	struct watch_now now;
	json_object *status, *st = NULL;
	double interval = ctx->interval, start;
	unsigned long n = 0;
	int rc = CTL_EXIT_OK;

	memset(&w, 0, sizeof(w));
	w.tty = !ctx->json && isatty(STDOUT_FILENO);
	/* The refresh follows the run's sampling unless told otherwise. */
	if ((status = ctx->call(ctx->call_arg, "status", NULL, &rc)) == NULL)
		return rc;
	if (interval <= 0 && !jnum(status, "run.params.sample_interval",
	    &interval))
		interval = 1;
	if (interval < 0.1)
		interval = 0.1;
	json_object_put(status);

	/* Ctrl-C ends the watch, not the program mid-line: the view is left
	 * whole and the cursor below it.  No SA_RESTART, so a sleep ends. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = watch_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	watch_interrupted = 0;

	start = mono_now();
	for (;;) {
		if ((st = ctx->call(ctx->call_arg, "stats", NULL, &rc)) ==
		    NULL)
			break;
		watch_update(&w, st, &now);
		if (ctx->json)
			printf("%s\n", output_json_string(st));
		else if (w.tty)
			watch_draw(&w, &now);
		else
			watch_line(&w, &now);
		fflush(stdout);
		n++;
		if (state_ended(now.state)) {
			rc = strcmp(now.state, "failed") == 0 ?
			    CTL_EXIT_ERROR : CTL_EXIT_OK;
			if (rc != CTL_EXIT_OK) {
				const char *reason = jstr(st, "reason");

				errmsg(ctx, "run %" PRId64 " failed%s%s",
				    now.run_id, reason ? ": " : "",
				    reason ? reason : "");
			}
			break;
		}
		json_object_put(st);
		st = NULL;
		if (watch_interrupted || (ctx->count > 0 && n >= ctx->count))
			break;
		/* A fixed cadence: a slow reply does not shift the next. */
		sleep_until(start + (double)n * interval);
		if (watch_interrupted)
			break;
	}
	/* The terminal echoed ^C where the cursor was; end that line. */
	if (watch_interrupted && w.tty)
		putchar('\n');
	json_object_put(st);
	sigaction(SIGINT, &old_int, NULL);
	return rc;
}

/* ---------------------------------------------------------------- graph */

/* The largest values of the queues and of the update rate in the RRD
 * over [start, end], so the rate can share the graph on a second axis.
 * *rrdc: the RRD has rrdcached's queue (not before stressd 0.1.0's
 * rrdcached target; then counted with the queues). */
static int
graph_maxima(const struct records_ctx *ctx, const char *path, time_t start,
    time_t end, double *qmax, double *rmax, bool *rrdc)
{
	static const char *const need[] = {
		"sig_pending", "total_pending", "completed", "rrdc_queue"
	};
	unsigned long step, nds, rows;
	char **names = NULL;
	rrd_value_t *data = NULL;
	int idx[4] = { -1, -1, -1, -1 }, ret = CTL_EXIT_ERROR;

	*qmax = *rmax = 0;
	/* In: the resolution wanted, the finest there is. */
	step = 1;
	rrd_clear_error();
	if (rrd_fetch_r(path, "AVERAGE", &start, &end, &step, &nds, &names,
	    &data) != 0) {
		errmsg(ctx, "%s: %s", path, rrd_get_error());
		return CTL_EXIT_ERROR;
	}
	for (unsigned long d = 0; d < nds; d++)
		for (int k = 0; k < 4; k++)
			if (strcmp(names[d], need[k]) == 0)
				idx[k] = (int)d;
	*rrdc = idx[3] >= 0;
	for (int k = 0; k < 3; k++)
		if (idx[k] < 0) {
			errmsg(ctx, "%s has no data source '%s'; is it a "
			    "stressd metrics.rrd?", path, need[k]);
			goto fail;
		}
	rows = step > 0 && end > start ? (unsigned long)(end - start) / step :
	    0;
	for (unsigned long r = 0; r < rows; r++) {
		rrd_value_t *row = data + r * nds;

		for (int k = 0; k < 2; k++)
			if (!isnan(row[idx[k]]) && row[idx[k]] > *qmax)
				*qmax = row[idx[k]];
		if (!isnan(row[idx[2]]) && row[idx[2]] > *rmax)
			*rmax = row[idx[2]];
		if (*rrdc && !isnan(row[idx[3]]) && row[idx[3]] > *qmax)
			*qmax = row[idx[3]];
	}
	ret = CTL_EXIT_OK;
fail:
	for (unsigned long d = 0; d < nds; d++)
		rrd_freemem(names[d]);
	rrd_freemem(names);
	rrd_freemem(data);
	return ret;
}

/* The smallest of 1, 2, 5 times a power of ten that is at least x (1 for
 * x <= 0). */
static double
nice_ceil(double x)
{
	double p, m;

	if (!(x > 0) || !isfinite(x))
		return 1;
	p = pow(10, floor(log10(x)));
	m = x / p;
	/* log10 may land a hair off an exact power of ten. */
	if (m <= 1 + 1e-9)
		return p;
	return (m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/* A path in a DEF: rrd_graph splits its arguments at ':'. */
static char *
def_escape(const char *path)
{
	char *s = output_nomem(malloc(2 * strlen(path) + 1)), *p = s;

	for (; *path != '\0'; path++) {
		if (*path == ':' || *path == '\\')
			*p++ = '\\';
		*p++ = *path;
	}
	*p = '\0';
	return s;
}

/* Write the image next to path and rename it into place, so a failed
 * write never leaves a truncated PNG behind. */
static int
write_png(const struct records_ctx *ctx, const char *path,
    const unsigned char *img, size_t len)
{
	char *tmp = output_xprintf("%s.tmp%ld", path, (long)getpid());
	FILE *fp;
	int ret = CTL_EXIT_ERROR;

	if ((fp = fopen(tmp, "we")) == NULL) {
		errmsg(ctx, "cannot write %s: %s", path, strerror(errno));
		goto fail;
	}
	if (fwrite(img, 1, len, fp) != len) {
		errmsg(ctx, "cannot write %s: %s", path, strerror(errno));
		fclose(fp);
		unlink(tmp);
		goto fail;
	}
	if (fclose(fp) == EOF) {
		errmsg(ctx, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		goto fail;
	}
	if (rename(tmp, path) == -1) {
		errmsg(ctx, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		goto fail;
	}
	ret = CTL_EXIT_OK;
fail:
	free(tmp);
	return ret;
}

int
records_graph(const struct records_ctx *ctx)
{
	const char *run = ctx->nruns > 0 ? ctx->runs[0] : NULL;
	unsigned width = ctx->width ? ctx->width : RECORDS_GRAPH_WIDTH;
	unsigned height = ctx->height ? ctx->height : RECORDS_GRAPH_HEIGHT;
	json_object *rep, *res = NULL;
	rrd_info_t *info = NULL;
	char *rrd = NULL, *esc = NULL, *id = NULL, *argv[40];
	const char *fs, *dir;
	int argc = 0, rc;
	time_t start, end;
	double qmax, rmax, scale;
	bool rrdc;
	rrd_blob_t *img = NULL;

	if ((rep = load_report(ctx, run, &rc)) == NULL)
		return rc;
	rc = CTL_EXIT_ERROR;
	if ((rrd = record_file(run, rep, "metrics_rrd", "metrics.rrd")) ==
	    NULL) {
		errmsg(ctx, "the record names no metrics file "
		    "(files.metrics_rrd)");
		goto fail;
	}
	if (access(rrd, R_OK) == -1) {
		errmsg(ctx, "cannot read the metrics %s: %s", rrd,
		    strerror(errno));
		goto fail;
	}
	if ((start = iso_time(jstr(rep, "started_at"))) == -1) {
		errmsg(ctx, "the record has no valid started_at");
		goto fail;
	}
	/* A run still going is drawn up to now. */
	if ((end = iso_time(jstr(rep, "ended_at"))) == -1)
		end = time(NULL);
	if (end <= start)
		end = start + 1;
	if ((rc = graph_maxima(ctx, rrd, start, end, &qmax, &rmax, &rrdc)) !=
	    CTL_EXIT_OK)
		goto fail;
	rc = CTL_EXIT_ERROR;

	/*
	 * The rate (thousands per second) would flatten the queues (a few
	 * operations), so it is drawn scaled into the queues' range and read
	 * on the right axis, which undoes the scaling.  A round scale keeps
	 * the right axis's labels round too.
	 */
	if (qmax <= 0)
		qmax = 1;
	scale = nice_ceil(rmax / qmax);

	esc = def_escape(rrd);
	fs = jstr(rep, "target.fs_type");
	dir = jstr(rep, "target.dir");
	argv[argc++] = output_xprintf("graph");
	argv[argc++] = output_xprintf("-");	/* the image comes back in memory */
	argv[argc++] = output_xprintf("--imgformat=PNG");
	argv[argc++] = output_xprintf("--full-size-mode");
	argv[argc++] = output_xprintf("--width=%u", width);
	argv[argc++] = output_xprintf("--height=%u", height);
	argv[argc++] = output_xprintf("--start=%lld", (long long)start);
	argv[argc++] = output_xprintf("--end=%lld", (long long)end);
	argv[argc++] = output_xprintf("--lower-limit=0");
	id = jtext(rep, "run_id", NULL);
	argv[argc++] = output_xprintf("--title=stressd run %s, %s on %s", id,
	    fs ? fs : "?", dir ? dir : "?");
	argv[argc++] = output_xprintf("--vertical-label=operations pending");
	argv[argc++] = output_xprintf("--right-axis=%.10g:0", scale);
	argv[argc++] = output_xprintf("--right-axis-label=updates/s");
	argv[argc++] = output_xprintf("DEF:sig=%s:sig_pending:AVERAGE", esc);
	argv[argc++] = output_xprintf("DEF:tot=%s:total_pending:AVERAGE", esc);
	argv[argc++] = output_xprintf("DEF:rate=%s:completed:AVERAGE", esc);
	argv[argc++] = output_xprintf("CDEF:scaled=rate,%.10g,/", scale);
	argv[argc++] = output_xprintf("VDEF:sigavg=sig,AVERAGE");
	argv[argc++] = output_xprintf("VDEF:sigmax=sig,MAXIMUM");
	argv[argc++] = output_xprintf("VDEF:totavg=tot,AVERAGE");
	argv[argc++] = output_xprintf("VDEF:totmax=tot,MAXIMUM");
	argv[argc++] = output_xprintf("VDEF:rateavg=rate,AVERAGE");
	argv[argc++] = output_xprintf("AREA:tot#9ecae1:total_operations_pending ");
	argv[argc++] = output_xprintf("GPRINT:totavg:avg %%8.2lf");
	argv[argc++] = output_xprintf("GPRINT:totmax:max %%8.0lf\\l");
	argv[argc++] = output_xprintf("LINE2:sig#d62728:significant_ops_pending  ");
	argv[argc++] = output_xprintf("GPRINT:sigavg:avg %%8.2lf");
	argv[argc++] = output_xprintf("GPRINT:sigmax:max %%8.0lf\\l");
	argv[argc++] = output_xprintf("LINE1:scaled#2ca02c:completed updates/s "
	    "(right axis)");
	argv[argc++] = output_xprintf("GPRINT:rateavg:avg %%8.1lf\\l");
	/* A run against an rrdcached: its own queue beside ours. */
	if (rrdc && jpath(rep, "rrdcached") != NULL) {
		argv[argc++] = output_xprintf("DEF:rq=%s:rrdc_queue:AVERAGE",
		    esc);
		argv[argc++] = output_xprintf("VDEF:rqavg=rq,AVERAGE");
		argv[argc++] = output_xprintf("VDEF:rqmax=rq,MAXIMUM");
		argv[argc++] = output_xprintf("LINE2:rq#ff7f0e:rrdcached "
		    "QueueLength (files) ");
		argv[argc++] = output_xprintf("GPRINT:rqavg:avg %%8.2lf");
		argv[argc++] = output_xprintf("GPRINT:rqmax:max %%8.0lf\\l");
	}
	argv[argc] = NULL;

	rrd_clear_error();
	info = rrd_graph_v(argc, argv);
	if (info == NULL || rrd_test_error()) {
		errmsg(ctx, "librrd: %s", rrd_test_error() ? rrd_get_error() :
		    "rrd_graph_v failed");
		goto fail;
	}
	for (rrd_info_t *i = info; i != NULL; i = i->next)
		if (i->type == RD_I_BLO && strcmp(i->key, "image") == 0)
			img = &i->value.u_blo;
	if (img == NULL || img->size == 0) {
		errmsg(ctx, "librrd returned no image");
		goto fail;
	}
	if ((rc = write_png(ctx, ctx->png, img->ptr, img->size)) !=
	    CTL_EXIT_OK)
		goto fail;

	if (ctx->json) {
		res = output_nomem(json_object_new_object());
		json_object_object_add(res, "run_id",
		    json_object_get(jpath(rep, "run_id")));
		json_object_object_add(res, "file",
		    json_object_new_string(ctx->png));
		json_object_object_add(res, "metrics_rrd",
		    json_object_new_string(rrd));
		json_object_object_add(res, "width",
		    json_object_new_int((int)width));
		json_object_object_add(res, "height",
		    json_object_new_int((int)height));
		json_object_object_add(res, "start",
		    json_object_new_int64((int64_t)start));
		json_object_object_add(res, "end",
		    json_object_new_int64((int64_t)end));
		printf("%s\n", output_json_string(res));
	} else
		printf("run %s: %ux%u graph of %lld s written to %s\n", id,
		    width, height, (long long)(end - start), ctx->png);
	rc = CTL_EXIT_OK;
fail:
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	if (info != NULL)
		rrd_info_free(info);
	json_object_put(res);
	json_object_put(rep);
	free(esc);
	free(id);
	free(rrd);
	return rc;
}
