/*
 * Run records for stressctl: a run's report.json, fetched from stressd or
 * read from a file (so runs from other hosts can be read and compared
 * here), and what the record commands share: their messages, the files
 * beside a record, and the histogram drawing.  Key names are those of
 * report.json schema 1; a key that is missing shows as "-" rather than
 * failing, so older or newer records still read.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "capview.h"
#include "fmt.h"
#include "proto.h"
#include "records.h"
#include "runrec.h"
#include "runsrec.h"

/* The report.json schema this stressctl was written for. */
#define RECORDS_SCHEMA		1

/* Longest histogram bar, in '#'. */
#define HIST_BAR		40

/* "stressctl CMD: message" on stderr. */
void
records_error(const struct records_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "stressctl %s: ", ctx->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

bool
records_state_ended(const char *state)
{
	static const char *const ended[] = {
		"done", "stopped", "failed", "interrupted", "idle", NULL
	};

	for (size_t i = 0; state != NULL && ended[i] != NULL; i++)
		if (strcmp(state, ended[i]) == 0)
			return true;
	return false;
}

void
records_print_recount_rec(const struct runrec_recount *c, int indent)
{
	if (!c->has)
		return;
	if (c->skipped != NULL || !c->updates_on_disk.has) {
		printf("%*supdates on disk not recounted: %s\n", indent, "",
		    c->skipped != NULL ? c->skipped : "no figure");
		return;
	}
	printf("%*s%.0f updates on disk, recounted after the run was "
	    "interrupted (%.0f files read in %.3f s)\n", indent, "",
	    c->updates_on_disk.d, isnan(c->files_read) ? 0 : c->files_read,
	    isnan(c->seconds) ? 0 : c->seconds);
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

char *
records_file_path(const char *run)
{
	struct stat st;

	if (!records_is_path(run))
		return NULL;
	if (stat(run, &st) == 0 && S_ISDIR(st.st_mode)) {
		const char *sep = run[strlen(run) - 1] == '/' ? "" : "/";
		char *cap = fmt_xprintf("%s%scapacity.json", run, sep);

		/* A capacity search's directory holds its record instead. */
		if (access(cap, F_OK) == 0)
			return cap;
		free(cap);
		return fmt_xprintf("%s%sreport.json", run, sep);
	}
	return fmt_xprintf("%s", run);
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
		records_error(ctx, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	tok = fmt_nomem(json_tokener_new());
	rep = json_tokener_parse_ex(tok, text, (int)len);
	if (rep == NULL || json_tokener_get_error(tok) != json_tokener_success) {
		records_error(ctx, "%s: not valid JSON: %s", path,
		    json_tokener_error_desc(json_tokener_get_error(tok)));
		goto fail;
	}
	if (capview_is_record(rep)) {
		*rc = CTL_EXIT_OK;
		goto fail;
	}
	if (!json_object_is_type(rep, json_type_object) ||
	    !json_object_object_get_ex(rep, "schema", &schema) ||
	    !json_object_is_type(schema, json_type_int)) {
		records_error(ctx, "%s: not a stressd run record "
		    "(no \"schema\")", path);
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
json_object *
records_load(const struct records_ctx *ctx, const char *run, int *rc)
{
	json_object *args, *rep;

	if (run != NULL && records_is_path(run)) {
		/* a copied run directory stands for its report.json */
		char *path = records_file_path(run);

		rep = load_file(ctx, path, rc);
		free(path);
		return rep;
	}
	args = fmt_nomem(json_object_new_object());
	if (run != NULL)
		json_object_object_add(args, "run", json_object_new_int64(
		    (int64_t)strtoull(run, NULL, 10)));
	rep = ctx->call(ctx->call_arg, "report", args, rc);
	json_object_put(args);
	if (rep != NULL && !json_object_is_type(rep, json_type_object)) {
		records_error(ctx, "the daemon's report is not an object: "
		    "%.200s", fmt_json_string(rep));
		json_object_put(rep);
		*rc = CTL_EXIT_ERROR;
		return NULL;
	}
	return rep;
}

struct runrec *
records_load_run(const struct records_ctx *ctx, const char *run,
    json_object **cap, int *rc)
{
	json_object *rep;
	struct runrec *r;
	char *err = NULL;

	if (cap != NULL)
		*cap = NULL;
	if ((rep = records_load(ctx, run, rc)) == NULL)
		return NULL;
	if (cap != NULL && capview_is_record(rep)) {
		*cap = rep;
		return NULL;
	}
	/* Checked once here, so a view never meets a mistyped member. */
	if ((r = runrec_parse(rep, &err)) == NULL) {
		records_error(ctx, "%s%s%s", run != NULL ? run : "",
		    run != NULL ? ": " : "", err);
		*rc = CTL_EXIT_ERROR;
	}
	free(err);
	json_object_put(rep);
	return r;
}

/*
 * The path of a file of the record (files.KEY).  A record read from a file
 * may have travelled from another host, so the same name beside it comes
 * first; the path in the record is used when there is none.  NULL if the
 * record names no such file.
 */
char *
records_file_named(const char *run, const char *named, const char *name)
{
	const char *base, *slash;
	char *beside, *path;

	if (run == NULL || !records_is_path(run))
		return named != NULL ? fmt_xprintf("%s", named) : NULL;
	if (named != NULL && (base = strrchr(named, '/')) != NULL)
		name = base + 1;
	path = records_file_path(run);	/* a run dir: its report.json */
	slash = strrchr(path, '/');
	beside = slash != NULL ? fmt_xprintf("%.*s/%s",
	    (int)(slash - path), path, name) : fmt_xprintf("%s", name);
	free(path);
	if (named == NULL || access(beside, F_OK) == 0)
		return beside;
	free(beside);
	return fmt_xprintf("%s", named);
}

char *
records_file(const char *run, json_object *rep, const char *key,
    const char *name)
{
	json_object *files, *v = NULL;

	if (json_object_object_get_ex(rep, "files", &files) &&
	    json_object_is_type(files, json_type_object))
		json_object_object_get_ex(files, key, &v);
	return records_file_named(run, json_object_is_type(v,
	    json_type_string) ? json_object_get_string(v) : NULL, name);
}

/* A histogram bucket's label: its value, or "lo-hi" when bucketed. */
static char *
bucket_label(const struct runrec_bucket *e)
{
	if (e->has_upper)
		return fmt_xprintf("%" PRId64 "-%" PRId64, e->value, e->upper);
	return fmt_xprintf("%" PRId64, e->value);
}

void
records_hist_span_buckets(const struct runrec_bucket *b, size_t n,
    int64_t *min, int64_t *max)
{
	for (size_t i = 0; i < n; i++) {
		int64_t lo = b[i].value;
		int64_t hi = b[i].has_upper ? b[i].upper : lo;

		*min = lo < *min ? lo : *min;
		*max = hi > *max ? hi : *max;
	}
}

/* The entries of a histogram of the JSON-taking callers (n of them). */
static struct runrec_bucket *
json_buckets(json_object *hist, size_t *n)
{
	struct runrec_bucket *b;

	*n = json_object_is_type(hist, json_type_array) ?
	    json_object_array_length(hist) : 0;
	b = fmt_nomem(calloc(*n + 1, sizeof(*b)));
	for (size_t i = 0; i < *n; i++) {
		json_object *e = json_object_array_get_idx(hist, i), *v;

		if (json_object_object_get_ex(e, "value", &v))
			b[i].value = json_object_get_int64(v);
		if (json_object_object_get_ex(e, "count", &v))
			b[i].count = json_object_get_int64(v);
		if (json_object_object_get_ex(e, "upper", &v) && v != NULL) {
			b[i].upper = json_object_get_int64(v);
			b[i].has_upper = true;
		}
	}
	return b;
}

int64_t
records_hist_width(int64_t min, int64_t max)
{
	static const int64_t steps[] = { 1, 2, 5 };
	int64_t scale = 1;

	if (max < min)
		return 1;
	for (;;) {
		for (size_t i = 0; i < 3; i++) {
			int64_t w = steps[i] * scale;

			/* rows from the range holding min to the one of max */
			if (max / w - min / w + 1 <= RECORDS_HIST_ROWS)
				return w;
		}
		if (scale > INT64_MAX / 10)
			return scale;
		scale *= 10;
	}
}

/* b in ranges of width w starting at multiples of w: a new array of
 * *m entries. */
static struct runrec_bucket *
hist_ranges(const struct runrec_bucket *b, size_t n, int64_t w, size_t *m)
{
	struct runrec_bucket *out = fmt_nomem(calloc(n + 1, sizeof(*out)));

	*m = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t lo = b[i].value / w * w;

		if (*m > 0 && out[*m - 1].value == lo) {
			out[*m - 1].count += b[i].count;
			continue;
		}
		out[*m].value = lo;
		out[*m].upper = lo + w - 1;
		out[*m].has_upper = true;
		out[(*m)++].count = b[i].count;
	}
	return out;
}

/* "value: count" lines with a bar of '#' proportional to the count. */
static void
draw_histogram(const struct runrec_bucket *b, size_t n, int indent)
{
	size_t lw = 0, cw = 0;
	int64_t max = 0;

	for (size_t i = 0; i < n; i++) {
		char *l = bucket_label(&b[i]);
		char *c = fmt_xprintf("%" PRId64, b[i].count);

		lw = strlen(l) > lw ? strlen(l) : lw;
		cw = strlen(c) > cw ? strlen(c) : cw;
		max = b[i].count > max ? b[i].count : max;
		free(l);
		free(c);
	}
	for (size_t i = 0; i < n; i++) {
		char *l = bucket_label(&b[i]);
		char *c = fmt_xprintf("%" PRId64, b[i].count);
		int64_t cnt = b[i].count;
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
		for (int k = 0; k < bar; k++)
			putchar('#');
		putchar('\n');
		free(l);
		free(c);
	}
}

void
records_histogram_buckets(const struct runrec_bucket *b, size_t n,
    int indent)
{
	int64_t min = INT64_MAX, max = INT64_MIN, w;
	struct runrec_bucket *r;
	size_t m;

	records_hist_span_buckets(b, n, &min, &max);
	/* A record's own ranges (upper) are drawn as they are when few. */
	if (n <= RECORDS_HIST_ROWS || (w = records_hist_width(min, max)) == 1) {
		draw_histogram(b, n, indent);
		return;
	}
	r = hist_ranges(b, n, w, &m);
	draw_histogram(r, m, indent);
	free(r);
}

void
records_histogram(json_object *hist, int indent)
{
	size_t n;
	struct runrec_bucket *b = json_buckets(hist, &n);

	records_histogram_buckets(b, n, indent);
	free(b);
}

/* One page of runs: its "runs" array (a new reference) and *next, the
 * next page's before (0: none); NULL on failure with *rc set. */
static json_object *
runs_page(const struct records_ctx *ctx, int64_t limit, int64_t before,
    int64_t *next, int *rc)
{
	json_object *args = fmt_nomem(json_object_new_object()), *res, *v;
	json_object *list = NULL;

	json_object_object_add(args, "limit", json_object_new_int64(limit));
	if (before > 0)
		json_object_object_add(args, "before",
		    json_object_new_int64(before));
	res = ctx->call(ctx->call_arg, "runs", args, rc);
	json_object_put(args);
	if (res == NULL)
		return NULL;
	*next = json_object_object_get_ex(res, "next_before", &v) &&
	    json_object_is_type(v, json_type_int) ? json_object_get_int64(v) :
	    0;
	if (!json_object_object_get_ex(res, "runs", &list) ||
	    !json_object_is_type(list, json_type_array)) {
		records_error(ctx, "the daemon's runs has no \"runs\" list: "
		    "%.200s", fmt_json_string(res));
		json_object_put(res);
		*rc = CTL_EXIT_ERROR;
		return NULL;
	}
	json_object_get(list);
	json_object_put(res);
	return list;
}

json_object *
records_runs(const struct records_ctx *ctx, int64_t limit, int64_t before,
    int *rc)
{
	json_object *pages = fmt_nomem(json_object_new_array());
	json_object *all = fmt_nomem(json_object_new_array()), *res;
	int64_t got = 0;

	/* Pages come newest first, each in increasing ids: kept, then
	 * joined oldest first. */
	do {
		int64_t want = limit > 0 && limit - got < RECORDS_RUNS_PAGE ?
		    limit - got : RECORDS_RUNS_PAGE;
		json_object *page = runs_page(ctx, want, before, &before, rc);

		if (page == NULL) {
			json_object_put(pages);
			json_object_put(all);
			return NULL;
		}
		got += (int64_t)json_object_array_length(page);
		json_object_array_add(pages, page);
	} while (before > 0 && (limit == 0 || got < limit));
	for (size_t i = json_object_array_length(pages); i-- > 0;) {
		json_object *page = json_object_array_get_idx(pages, i);

		for (size_t k = 0; k < json_object_array_length(page); k++)
			json_object_array_add(all, json_object_get(
			    json_object_array_get_idx(page, k)));
	}
	json_object_put(pages);
	res = fmt_nomem(json_object_new_object());
	json_object_object_add(res, "runs", all);
	return res;
}

struct runsrec *
records_runs_read(const struct records_ctx *ctx, int64_t limit,
    int64_t before, int *rc)
{
	json_object *res = records_runs(ctx, limit, before, rc);
	struct runsrec *rs;
	char *err = NULL;

	if (res == NULL)
		return NULL;
	if ((rs = runsrec_parse(res, &err)) == NULL) {
		records_error(ctx, "%s", err);
		*rc = CTL_EXIT_ERROR;
	}
	free(err);
	json_object_put(res);
	return rs;
}
