/*
 * stressctl graph of several runs.  metrics.rrd has absolute times, so
 * runs made at different times (or on other hosts) cannot share its time
 * axis; instead each run's samples.csv is shifted to the start of its load
 * and written into a temporary RRD whose time 0 is one common synthetic
 * instant, and librrd's rrd_graph draws all of them on one axis of seconds
 * since the load started.  Runs with the same label share a colour and a
 * legend entry (repeats); the title names the load.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <rrd.h>

#include "fmt.h"
#include "graph.h"
#include "overlay.h"
#include "proto.h"
#include "records.h"

#define OVERLAY_WIDTH		800
#define OVERLAY_HEIGHT		300
/* Time 0 of every run: 2000-01-01T00:00:00Z, a UTC midnight, so that with
 * TZ=UTC librrd's clock labels read as time since the load started. */
#define OVERLAY_ORIGIN		946684800
/* Values per rrd_update_r call. */
#define OVERLAY_BATCH		512

/* One colour per label, told apart also in print (tab10 and two). */
static const struct {
	const char	*rgb, *name;
} colours[OVERLAY_MAX_LINES] = {
	{ "d62728", "red" }, { "1f77b4", "blue" }, { "2ca02c", "green" },
	{ "ff7f0e", "orange" }, { "9467bd", "purple" }, { "8c564b", "brown" },
	{ "e377c2", "pink" }, { "7f7f7f", "grey" }, { "bcbd22", "olive" },
	{ "17becf", "cyan" }, { "000000", "black" }, { "aec7e8", "light blue" },
};

/* One run: its record, its samples shifted to its load start. */
struct ov_run {
	char		*path;		/* report.json, or NULL: a run id */
	const char	*operand;
	struct runrec	*rec;
	char		*csv;		/* its samples.csv */
	char		*rrd;		/* the temporary RRD */
	char		*label;
	int		 line;		/* index into the lines */
	double		*t, *v;		/* seconds since the load, value */
	size_t		 n;
	double		 load_start;	/* elapsed_s of time 0 */
	double		 max;
};

struct overlay {
	const struct records_ctx *ctx;
	struct ov_run	*runs;
	int		 nruns;
	int		 line_first[OVERLAY_MAX_LINES]; /* a line's first run */
	int		 nlines;
	char		 tmpdir[4096];
	double		 span, max;
	char		*title;
};

/* ------------------------------------------------------------- samples */

/* The index of column name in a header line; -1 if absent. */
static int
csv_column(const char *header, const char *name)
{
	size_t len = strlen(name);
	int col = 0;

	for (const char *p = header;; col++) {
		const char *end = p + strcspn(p, ",\r\n");

		if ((size_t)(end - p) == len && strncmp(p, name, len) == 0)
			return col;
		if (*end != ',')
			return -1;
		p = end + 1;
	}
}

/* Field col of a CSV line as a number; false if missing or not one. */
static bool
csv_number(const char *line, int col, double *out)
{
	const char *p = line;
	char *end;

	for (int c = 0; c < col; c++)
		if ((p = strchr(p, ',')) == NULL)
			return false;
		else
			p++;
	errno = 0;
	*out = strtod(p, &end);
	return end != p && errno == 0 && isfinite(*out) &&
	    (*end == ',' || *end == '\0' || *end == '\n' || *end == '\r');
}

/*
 * Time 0 of a run: the last sample before the first in which the
 * generators had offered anything (the load started after it, within one
 * sample interval); the run's start if the first sample already shows
 * offered updates or the file has no offered column.
 */
static double
load_start(const double *elapsed, const double *offered, size_t n)
{
	double t0 = 0;

	for (size_t i = 0; offered != NULL && i < n && offered[i] == 0; i++)
		t0 = elapsed[i];
	return t0;
}

/* Append (t, v) to a growing pair of arrays. */
static void
push(struct ov_run *r, size_t *cap, double **off, double t, double v,
    double o)
{
	if (r->n == *cap) {
		*cap = *cap ? 2 * *cap : 1024;
		r->t = fmt_nomem(realloc(r->t, *cap * sizeof(*r->t)));
		r->v = fmt_nomem(realloc(r->v, *cap * sizeof(*r->v)));
		if (off != NULL)
			*off = fmt_nomem(realloc(*off, *cap *
			    sizeof(**off)));
	}
	r->t[r->n] = t;
	r->v[r->n] = v;
	if (off != NULL)
		(*off)[r->n] = o;
	r->n++;
}

/* Read the run's samples, then shift them to its load start, keeping
 * those after it. */
static int
read_samples(const struct overlay *ov, struct ov_run *r)
{
	FILE *fp;
	char *line = NULL;
	size_t len = 0, cap = 0, lineno = 1, k = 0;
	double *off = NULL, t, v, o = 0;
	int ct, cv, co, rc = CTL_EXIT_ERROR;

	if ((fp = fopen(r->csv, "re")) == NULL) {
		records_error(ov->ctx, "%s: cannot read its samples %s: %s",
		    r->operand, r->csv, strerror(errno));
		return CTL_EXIT_ERROR;
	}
	if (getline(&line, &len, fp) == -1 ||
	    (ct = csv_column(line, "elapsed_s")) < 0 ||
	    (cv = csv_column(line, "significant_ops_pending")) < 0) {
		records_error(ov->ctx, "%s: no elapsed_s and "
		    "significant_ops_pending columns; is it a stressd "
		    "samples.csv?", r->csv);
		goto fail;
	}
	co = csv_column(line, "offered");
	while (getline(&line, &len, fp) != -1) {
		lineno++;
		if (!csv_number(line, ct, &t) || !csv_number(line, cv, &v) ||
		    (co >= 0 && !csv_number(line, co, &o))) {
			records_error(ov->ctx, "%s:%zu: not a row of numbers",
			    r->csv, lineno);
			goto fail;
		}
		push(r, &cap, co >= 0 ? &off : NULL, t, v, o);
	}
	r->load_start = load_start(r->t, off, r->n);
	for (size_t i = 0; i < r->n; i++) {
		t = r->t[i] - r->load_start;
		/* librrd wants times that increase. */
		if (t <= 0 || (k > 0 && t <= r->t[k - 1] + 0.0005))
			continue;
		r->t[k] = t;
		r->v[k++] = r->v[i];
		if (r->v[i] > r->max)
			r->max = r->v[i];
	}
	r->n = k;
	rc = CTL_EXIT_OK;
fail:
	free(off);
	free(line);
	fclose(fp);
	return rc;
}

/* The run's samples into a temporary RRD of 1 s steps from time 0. */
static int
write_rrd(const struct overlay *ov, struct ov_run *r, int k)
{
	double gap = 1;
	char ds[64], rra[64], *vals[OVERLAY_BATCH];
	const char *cargv[2] = { ds, rra };
	size_t i = 0;
	int nv, rc = CTL_EXIT_OK;

	for (size_t j = 1; j < r->n; j++)
		if (r->t[j] - r->t[j - 1] > gap)
			gap = r->t[j] - r->t[j - 1];
	if (r->n > 0 && r->t[0] > gap)
		gap = r->t[0];
	/* A heartbeat past the widest gap (samples.csv thins old samples):
	 * a held gauge, not a hole. */
	snprintf(ds, sizeof(ds), "DS:q:GAUGE:%.0f:0:U", ceil(gap) + 1);
	snprintf(rra, sizeof(rra), "RRA:AVERAGE:0.5:1:%.0f",
	    ceil(r->n > 0 ? r->t[r->n - 1] : 0) + 2);
	r->rrd = fmt_xprintf("%s/run%d.rrd", ov->tmpdir, k);
	rrd_clear_error();
	if (rrd_create_r(r->rrd, 1, OVERLAY_ORIGIN, 2, cargv) != 0)
		goto fail;
	while (i < r->n && rc == CTL_EXIT_OK) {
		for (nv = 0; nv < OVERLAY_BATCH && i < r->n; nv++, i++)
			vals[nv] = fmt_xprintf("%.3f:%.0f",
			    OVERLAY_ORIGIN + r->t[i], r->v[i]);
		if (rrd_update_r(r->rrd, NULL, nv, (const char **)vals) != 0)
			rc = CTL_EXIT_ERROR;
		while (nv > 0)
			free(vals[--nv]);
	}
	if (rc == CTL_EXIT_OK)
		return rc;
fail:
	records_error(ov->ctx, "%s: librrd: %s", r->operand,
	    rrd_get_error());
	return CTL_EXIT_ERROR;
}

/* ------------------------------------------------------------- records */

static int
load_run(struct overlay *ov, struct ov_run *r, int k)
{
	int rc;

	r->path = records_file_path(r->operand);
	if ((r->rec = records_load_run(ov->ctx, r->path != NULL ? r->path :
	    r->operand, NULL, &rc)) == NULL)
		return rc == CTL_EXIT_OK ? CTL_EXIT_ERROR : rc;
	if ((r->csv = records_file_named(r->path, r->rec->samples_csv,
	    "samples.csv")) == NULL) {
		records_error(ov->ctx, "%s: the record names no samples "
		    "(files.samples_csv)", r->operand);
		return CTL_EXIT_ERROR;
	}
	if ((rc = read_samples(ov, r)) != CTL_EXIT_OK)
		return rc;
	return write_rrd(ov, r, k);
}

/* ------------------------------------------------------------- labels */

/* Whether mount option opt (len bytes) is in the comma list opts. */
static bool
has_option(const char *opts, const char *opt, size_t len)
{
	for (const char *p = opts; p != NULL && *p != '\0';) {
		size_t n = strcspn(p, ",");

		if (n == len && strncmp(p, opt, len) == 0)
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

/* Whether two records ran on the same type of filesystem. */
static bool
same_fs(const struct runrec *a, const struct runrec *b)
{
	return a->fs_type != NULL && b->fs_type != NULL &&
	    strcmp(a->fs_type, b->fs_type) == 0;
}

/* The filesystem and the mount options of run k that another run on the
 * same type of filesystem, without a label, lacks (xfs's options do not
 * tell it from ext3: its type does). */
static char *
fs_label(const struct overlay *ov, int k)
{
	const char *fs = ov->runs[k].rec->fs_type;
	const char *opts = ov->runs[k].rec->mount_options;
	char *s = fmt_xprintf("%s", fs != NULL ? fs : "?"), *ns;
	bool first = true;

	for (const char *p = opts; p != NULL && *p != '\0';) {
		size_t n = strcspn(p, ",");
		bool differs = false;

		for (int j = 0; j < ov->nruns && !differs; j++)
			differs = ov->runs[j].label == NULL &&
			    same_fs(ov->runs[j].rec, ov->runs[k].rec) &&
			    !has_option(ov->runs[j].rec->mount_options, p, n);
		if (differs) {
			ns = fmt_xprintf("%s%s%.*s", s, first ? " " : ",",
			    (int)n, p);
			free(s);
			s = ns;
			first = false;
		}
		p += n + (p[n] == ',');
	}
	return s;
}

/* A fallback label that another run's fallback repeats. */
static bool
is_dup(char **fb, int n, int k)
{
	for (int j = 0; j < n && fb[k] != NULL; j++)
		if (j != k && fb[j] != NULL && strcmp(fb[j], fb[k]) == 0)
			return true;
	return false;
}

/* Make the fallback labels unique: the filesystem, else "run N", else
 * "run N@host" (copies from two hosts), else the operand's position. */
static void
unique_fallbacks(const struct overlay *ov, char **fb)
{
	bool *dup = fmt_nomem(calloc((size_t)ov->nruns, sizeof(*dup)));

	for (int stage = 0; stage < 3; stage++) {
		for (int k = 0; k < ov->nruns; k++)
			dup[k] = is_dup(fb, ov->nruns, k);
		for (int k = 0; k < ov->nruns; k++) {
			const struct runrec *rep = ov->runs[k].rec;
			char *ns;

			if (!dup[k])
				continue;
			ns = stage == 0 ?
			    fmt_xprintf("run %" PRId64, rep->run_id) :
			    stage == 1 ? fmt_xprintf("%s@%s", fb[k],
			    rep->host_name != NULL ? rep->host_name : "?") :
			    fmt_xprintf("%s #%d", fb[k], k + 1);
			free(fb[k]);
			fb[k] = ns;
		}
	}
	free(dup);
}

/*
 * Each run's label: its label knob; else the filesystem with the mount
 * options that differ between the runs without one; else, where that does
 * not tell two runs apart, "run N" (and more, see unique_fallbacks).  Runs
 * with the same label knob share a line (repeats); runs told apart by the
 * fallback never do.
 */
static int
assign_labels(struct overlay *ov)
{
	const char *knob;
	char **fb = fmt_nomem(calloc((size_t)ov->nruns, sizeof(*fb)));
	int rc = CTL_EXIT_OK;

	for (int k = 0; k < ov->nruns; k++)
		if ((knob = ov->runs[k].rec->label) != NULL && *knob != '\0')
			ov->runs[k].label = fmt_xprintf("%s", knob);
	for (int k = 0; k < ov->nruns; k++)
		if (ov->runs[k].label == NULL)
			fb[k] = fs_label(ov, k);
	unique_fallbacks(ov, fb);
	for (int k = 0; k < ov->nruns; k++)
		if (fb[k] != NULL)
			ov->runs[k].label = fb[k];
	free(fb);
	for (int k = 0; k < ov->nruns && rc == CTL_EXIT_OK; k++) {
		int l = 0;

		while (l < ov->nlines && strcmp(ov->runs[ov->line_first[l]].
		    label, ov->runs[k].label) != 0)
			l++;
		if (l == ov->nlines && ov->nlines == OVERLAY_MAX_LINES) {
			records_error(ov->ctx, "more than %d labels: at most "
			    "%d lines can be told apart by colour",
			    OVERLAY_MAX_LINES, OVERLAY_MAX_LINES);
			rc = CTL_EXIT_ERROR;
		} else if (l == ov->nlines)
			ov->line_first[ov->nlines++] = k;
		ov->runs[k].line = l;
	}
	return rc;
}

/* ------------------------------------------------------------- drawing */

/* The offered rate of a run, as the title names it. */
static char *
part_rate(const struct runrec *rep)
{
	double n = rep->max_updates, s = rep->update_time;

	if (isnan(n) || isnan(s))
		return fmt_xprintf("? updates/s");
	if (s <= 0)
		return fmt_xprintf("flat out");
	return fmt_xprintf(n / s >= 100 ? "%.0f updates/s" :
	    "%.3g updates/s", n / s);
}

/* One part of the title: each run's files, rate or sync, the distinct
 * ones in run order joined by " / ". */
enum part { PART_FILES, PART_RATE, PART_SYNC };

static char *
title_part(const struct overlay *ov, enum part which)
{
	char **texts = fmt_nomem(calloc((size_t)ov->nruns,
	    sizeof(*texts))), *s = NULL, *ns;

	for (int k = 0; k < ov->nruns; k++) {
		const struct runrec *rep = ov->runs[k].rec;
		bool seen = false;

		texts[k] = which == PART_FILES ?
		    recparse_number_text(&rep->files_knob, NULL) :
		    which == PART_RATE ? part_rate(rep) :
		    fmt_xstrdup(rep->sync != NULL ? rep->sync : "-");
		for (int j = 0; j < k && !seen; j++)
			seen = strcmp(texts[j], texts[k]) == 0;
		if (seen)
			continue;
		ns = s == NULL ? fmt_xprintf("%s", texts[k]) :
		    fmt_xprintf("%s / %s", s, texts[k]);
		free(s);
		s = ns;
	}
	for (int k = 0; k < ov->nruns; k++)
		free(texts[k]);
	free(texts);
	return s;
}

/* The time axis: a label every nice number of seconds, about 8 of them,
 * as seconds, min:s, h:min or day and h:min since time 0. */
static void
time_axis(struct graph_args *a, double span, const char **unit)
{
	static const unsigned steps[] = {
		1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200,
		10800, 21600, 43200, 86400, 172800, 604800
	};
	unsigned lst = steps[0];
	const char *fmt;

	for (size_t i = 0; i < sizeof(steps) / sizeof(*steps) &&
	    span / lst > 8; i++)
		lst = steps[i];
	if (span < 60) {
		fmt = "%-S";
		*unit = "seconds";
	} else if (span < 3600) {
		fmt = "%-M:%S";
		*unit = "min\\:s";
	} else if (span < 86400) {
		fmt = "%-H:%M";
		*unit = "h\\:min";
	} else {
		fmt = "day %-j %H:%M";
		*unit = "day (the first is 1) and h\\:min";
	}
	graph_arg(a, "--x-grid=SECOND:%u:SECOND:%u:SECOND:%u:0:%s",
	    lst >= 5 ? lst / 5 : lst, lst, lst, fmt);
}

static void
overlay_argv(struct overlay *ov, struct graph_args *a)
{
	const struct records_ctx *ctx = ov->ctx;
	char *files = title_part(ov, PART_FILES);
	char *rate = title_part(ov, PART_RATE);
	char *sync = title_part(ov, PART_SYNC);
	const char *unit;

	ov->title = fmt_xprintf("significant queue: %s files, %s, sync %s",
	    files, rate, sync);
	free(files);
	free(rate);
	free(sync);
	graph_arg(a, "graph");
	graph_arg(a, "-");
	graph_arg(a, "--imgformat=PNG");
	graph_arg(a, "--full-size-mode");
	graph_arg(a, "--width=%u", ctx->width ? ctx->width : OVERLAY_WIDTH);
	graph_arg(a, "--height=%u", ctx->height ? ctx->height :
	    OVERLAY_HEIGHT);
	graph_arg(a, "--start=%d", OVERLAY_ORIGIN);
	graph_arg(a, "--end=%.0f", OVERLAY_ORIGIN + fmax(1, ceil(ov->span)));
	graph_arg(a, "--title=%s", ov->title);
	graph_arg(a, "--vertical-label=significant_ops_pending");
	graph_int_axis(a, ov->max);
	time_axis(a, fmax(1, ceil(ov->span)), &unit);
	for (int k = 0; k < ov->nruns; k++) {
		struct ov_run *r = &ov->runs[k];
		char *esc = graph_def_escape(r->rrd);
		char *lab = graph_text_escape(r->label);

		graph_arg(a, "DEF:q%d=%s:q:AVERAGE", k, esc);
		/* The line's legend entry once, with its first run. */
		if (ov->line_first[r->line] == k)
			graph_arg(a, "LINE2:q%d#%s:%s\\l", k,
			    colours[r->line].rgb, lab);
		else
			graph_arg(a, "LINE2:q%d#%s", k, colours[r->line].rgb);
		free(esc);
		free(lab);
	}
	graph_arg(a, "COMMENT:time axis\\: %s since each run's load started"
	    "\\l", unit);
}

/* ------------------------------------------------------------- output */

static json_object *
line_runs(const struct overlay *ov, int l)
{
	json_object *ids = fmt_nomem(json_object_new_array());

	for (int k = 0; k < ov->nruns; k++)
		if (ov->runs[k].line == l)
			json_object_array_add(ids, json_object_new_int64(
			    ov->runs[k].rec->run_id));
	return ids;
}

static void
print_json(const struct overlay *ov, const struct graph_args *a,
    json_object *legend, FILE *out)
{
	json_object *res = fmt_nomem(json_object_new_object());
	json_object *runs = json_object_new_array();
	json_object *lines = json_object_new_array();

	json_object_object_add(res, "file",
	    json_object_new_string(ov->ctx->png));
	json_object_object_add(res, "title",
	    json_object_new_string(ov->title));
	for (int k = 0; k < ov->nruns; k++) {
		const struct ov_run *r = &ov->runs[k];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "run_id",
		    json_object_new_int64(r->rec->run_id));
		json_object_object_add(o, "label",
		    json_object_new_string(r->label));
		json_object_object_add(o, "samples_csv",
		    json_object_new_string(r->csv));
		json_object_object_add(o, "samples",
		    json_object_new_int64((int64_t)r->n));
		json_object_object_add(o, "load_start_s",
		    json_object_new_double(r->load_start));
		json_object_object_add(o, "seconds", json_object_new_double(
		    r->n > 0 ? r->t[r->n - 1] : 0));
		json_object_object_add(o, "max", json_object_new_double(r->max));
		json_object_array_add(runs, o);
	}
	for (int l = 0; l < ov->nlines; l++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "label", json_object_new_string(
		    ov->runs[ov->line_first[l]].label));
		json_object_object_add(o, "colour", json_object_new_string(
		    colours[l].rgb));
		json_object_object_add(o, "runs", line_runs(ov, l));
		json_object_array_add(lines, o);
	}
	json_object_object_add(res, "runs", runs);
	json_object_object_add(res, "lines", lines);
	json_object_object_add(res, "legend", json_object_get(legend));
	json_object_object_add(res, "rrd_graph_args", graph_args_json(a));
	fprintf(out, "%s\n", fmt_json_string(res));
	json_object_put(res);
}

static void
print_text(const struct overlay *ov, FILE *out)
{
	fprintf(out, "%d runs, %d line%s over %.1f s since the load started, "
	    "written to %s\n", ov->nruns, ov->nlines, ov->nlines == 1 ? "" :
	    "s", ov->span, ov->ctx->png);
	for (int l = 0; l < ov->nlines; l++) {
		json_object *ids = line_runs(ov, l);
		char *list = NULL, *ns;

		for (size_t i = 0; i < json_object_array_length(ids); i++) {
			const char *id = json_object_get_string(
			    json_object_array_get_idx(ids, i));

			ns = fmt_xprintf("%s%s%s", list ? list : "",
			    list ? ", " : "", id);
			free(list);
			list = ns;
		}
		fprintf(out, "  %-10s %s: run%s %s\n", colours[l].name,
		    ov->runs[ov->line_first[l]].label,
		    json_object_array_length(ids) == 1 ? "" : "s", list);
		free(list);
		json_object_put(ids);
	}
}

/* ------------------------------------------------------------- the run */

static void
overlay_free(struct overlay *ov)
{
	for (int k = 0; k < ov->nruns; k++) {
		struct ov_run *r = &ov->runs[k];

		if (r->rrd != NULL)
			unlink(r->rrd);
		runrec_free(r->rec);
		free(r->path);
		free(r->csv);
		free(r->rrd);
		free(r->label);
		free(r->t);
		free(r->v);
	}
	free(ov->runs);
	free(ov->title);
	if (ov->tmpdir[0] != '\0')
		rmdir(ov->tmpdir);
}

int
overlay_run(const struct records_ctx *ctx, FILE *out)
{
	struct overlay ov = { .ctx = ctx, .nruns = ctx->nruns };
	struct graph_args a = { 0 };
	const char *tmp = getenv("TMPDIR");
	json_object *legend = NULL;
	int rc = CTL_EXIT_ERROR;

	if (ctx->nruns > OVERLAY_MAX_RUNS) {
		records_error(ctx, "%d runs: one graph draws at most %d",
		    ctx->nruns, OVERLAY_MAX_RUNS);
		return CTL_EXIT_USAGE;
	}
	ov.runs = fmt_nomem(calloc((size_t)ov.nruns, sizeof(*ov.runs)));
	if (tmp == NULL || tmp[0] != '/')	/* DEF paths escape the rest */
		tmp = "/tmp";
	snprintf(ov.tmpdir, sizeof(ov.tmpdir), "%s/stressctl-graph.XXXXXX",
	    tmp);
	if (mkdtemp(ov.tmpdir) == NULL) {
		records_error(ctx, "cannot make a directory %s: %s",
		    ov.tmpdir, strerror(errno));
		ov.tmpdir[0] = '\0';
		goto fail;
	}
	for (int k = 0; k < ov.nruns; k++) {
		ov.runs[k].operand = ctx->runs[k];
		if ((rc = load_run(&ov, &ov.runs[k], k)) != CTL_EXIT_OK)
			goto fail;
		if (ov.runs[k].n > 0)
			ov.span = fmax(ov.span, ov.runs[k].t[ov.runs[k].n - 1]);
		ov.max = fmax(ov.max, ov.runs[k].max);
	}
	if ((rc = assign_labels(&ov)) != CTL_EXIT_OK)
		goto fail;
	overlay_argv(&ov, &a);
	/* librrd's time labels are local time: UTC puts time 0 at
	 * midnight. */
	setenv("TZ", "UTC0", 1);
	tzset();
	legend = fmt_nomem(json_object_new_array());
	if ((rc = graph_draw(ctx, &a, legend)) != CTL_EXIT_OK)
		goto fail;
	if (ctx->json)
		print_json(&ov, &a, legend, out);
	else
		print_text(&ov, out);
fail:
	json_object_put(legend);
	graph_args_free(&a);
	overlay_free(&ov);
	return rc;
}
