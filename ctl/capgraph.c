/*
 * The PNG of capacity searches (see capgraph.h).  Each directory's steps,
 * sorted by rate, become a temporary RRD of 1 s steps in which time
 * stands for the logarithm of the offered rate (the search doubles and
 * bisects, so its steps are spread evenly on a log scale), each step's
 * queue growth as a multiple of the step's own bound a point (1 is the
 * bound: above it the step did not keep up, and every directory reads
 * on the same scale whatever its rate), the points joined by straight
 * lines (every second between two steps gets its interpolated value,
 * since librrd would draw a held gauge as steps).  librrd labels its x
 * axis with clock times only, so the axis has no labels: grey rules at
 * each power of ten, and a comment names them.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <rrd.h>

#include "capgraph.h"
#include "caprec.h"
#include "capview.h"
#include "fmt.h"
#include "graph.h"
#include "proto.h"

/* 2000-01-01 00:00 UTC: librrd wants times after 1980. */
#define CAPGRAPH_T0		946684800
/* Seconds the whole rate axis spans (about a pixel each). */
#define CAPGRAPH_SPAN		800
/* The most directories drawn (a search has at most 16). */
#define CAPGRAPH_MAX_DIRS	16
#define CAPGRAPH_BATCH		256

static const char *const colours[] = {
	"1f77b4", "d62728", "2ca02c", "ff7f0e", "9467bd", "8c564b",
	"e377c2", "7f7f7f", "bcbd22", "17becf",
};

/* The y axis: growth / bound, drawn from -1 to CAPGRAPH_YMAX. */
#define CAPGRAPH_YMAX		4.0

/* The x axis: log10 of the lowest and highest rate drawn. */
static double axis_lo, axis_hi;

/* One directory's points: rate and queue growth / the step's bound. */
struct capline {
	const struct caprec	*rec;
	const struct caprec_dir	*d;
	double		*rate, *q;
	size_t		 n;
	char		*rrd;
};

static int
by_rate(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The steps of directory di of rec, sorted by rate; repeats at one rate
 * averaged. */
static void
collect_line(struct capline *l, const struct caprec *rec, size_t di)
{
	size_t n = rec->nsteps, m = 0;
	double *pts = fmt_nomem(calloc(2 * n + 2, sizeof(*pts)));

	for (size_t i = 0; i < n; i++) {
		const struct caprec_step *s = &rec->steps[i];
		double r = s->rate, q = s->slope_per_s;
		double b = s->growth_bound_per_s;

		/* A copied record may say anything: rates past 1e12 (or
		 * under 0.001) would be decades no axis can hold. */
		if (s->dir_index != (int64_t)di ||
		    !(r >= 1e-3 && r <= 1e12) || isnan(q) || isnan(b) ||
		    b <= 0)
			continue;
		q = fmax(-1, fmin(CAPGRAPH_YMAX, q / b));
		pts[2 * m] = r;
		pts[2 * m++ + 1] = q;
	}
	qsort(pts, m, 2 * sizeof(*pts), by_rate);
	l->rate = fmt_nomem(calloc(m + 1, sizeof(*l->rate)));
	l->q = fmt_nomem(calloc(m + 1, sizeof(*l->q)));
	l->n = 0;
	for (size_t i = 0; i < m; i++) {
		size_t k = i;
		double sum = 0;

		while (k < m && pts[2 * k] == pts[2 * i])
			sum += pts[2 * k++ + 1];
		l->rate[l->n] = pts[2 * i];
		l->q[l->n++] = sum / (double)(k - i);
		i = k - 1;
	}
	free(pts);
}

static double
to_t(double rate)
{
	return floor((log10(rate) - axis_lo) * CAPGRAPH_SPAN /
	    (axis_hi - axis_lo));
}

/* The line's RRD in dir: one interpolated value per second from its
 * first step to its last. */
static int
write_line(struct capline *l, const char *dir, int k)
{
	char *vals[CAPGRAPH_BATCH];
	const char *cargv[2];
	char ds[64], rra[64];
	double t0, t1;
	size_t seg = 0;
	int nv = 0, rc = CTL_EXIT_OK;

	if (l->n == 0)
		return CTL_EXIT_OK;
	t0 = to_t(l->rate[0]);
	t1 = to_t(l->rate[l->n - 1]);
	snprintf(ds, sizeof(ds), "DS:q:GAUGE:%d:U:U", CAPGRAPH_SPAN * 2);
	snprintf(rra, sizeof(rra), "RRA:AVERAGE:0.5:1:%d", CAPGRAPH_SPAN + 10);
	cargv[0] = ds;
	cargv[1] = rra;
	l->rrd = fmt_xprintf("%s/dir%d.rrd", dir, k);
	rrd_clear_error();
	if (rrd_create_r(l->rrd, 1, CAPGRAPH_T0 + (time_t)t0 - 1, 2,
	    cargv) != 0)
		return CTL_EXIT_ERROR;
	for (double t = t0; t <= t1 && rc == CTL_EXIT_OK; t++) {
		double v;

		while (seg + 1 < l->n && to_t(l->rate[seg + 1]) < t)
			seg++;
		if (seg + 1 >= l->n || to_t(l->rate[seg + 1]) ==
		    to_t(l->rate[seg]))
			v = l->q[seg];
		else
			v = l->q[seg] + (l->q[seg + 1] - l->q[seg]) *
			    (t - to_t(l->rate[seg])) /
			    (to_t(l->rate[seg + 1]) -
			    to_t(l->rate[seg]));
		vals[nv++] = fmt_xprintf("%.0f:%.6g", CAPGRAPH_T0 + t, v);
		if (nv == CAPGRAPH_BATCH || t + 1 > t1) {
			if (rrd_update_r(l->rrd, NULL, nv,
			    (const char **)vals) != 0)
				rc = CTL_EXIT_ERROR;
			while (nv > 0)
				free(vals[--nv]);
		}
	}
	return rc;
}

/* The name of a line in the legend: host:label or dir (fs), the host
 * when there are hosts to tell apart. */
static char *
line_name(const struct capline *l, int nrecs)
{
	const char *dir = l->d->dir, *fs = l->d->fs_type;
	const char *host = l->rec->host, *label = l->d->label;
	char *s, *e;

	/* The candidate's name when it has one, as the ranking shows it. */
	if (label != NULL && *label != '\0')
		dir = label;
	s = fmt_xprintf("%s%s%s (%s)", nrecs > 1 && host ? host : "",
	    nrecs > 1 && host ? ":" : "", dir ? dir : "-", fs ? fs : "-");
	e = graph_text_escape(s);
	free(s);
	return e;
}

static void
add_lines(struct graph_args *a, struct capline *lines, int nl, int nrecs)
{
	char *lo = capview_rate(pow(10, axis_lo)), *hi;

	for (double e = ceil(axis_lo); e < axis_hi; e++)
		graph_arg(a, "VRULE:%.0f#BBBBBB", CAPGRAPH_T0 +
		    to_t(pow(10, e)));
	graph_arg(a, "HRULE:1#000000:the step's bound (above it the queue "
	    "grew faster than precision/2 of the offered rate)\\l:dashes");
	for (int k = 0; k < nl; k++) {
		struct capline *l = &lines[k];
		const char *col = colours[k % (int)(sizeof(colours) /
		    sizeof(*colours))];
		char *name = line_name(l, nrecs), *path, *cap;
		double c = l->d->capacity_rate;

		if (l->rrd == NULL) {
			graph_arg(a, "COMMENT:%s\\: no judged steps\\l",
			    name);
			free(name);
			continue;
		}
		path = graph_def_escape(l->rrd);
		graph_arg(a, "DEF:q%d=%s:q:AVERAGE", k, path);
		graph_arg(a, "LINE2:q%d#%s:%s\\l", k, col, name);
		if (!isnan(c) && c > 0) {
			cap = capview_rate(c);
			graph_arg(a, "VRULE:%.0f#%s:  capacity %s "
			    "updates/s%s\\l:dashes", CAPGRAPH_T0 + to_t(c), col,
			    cap,
			    strcmp(l->d->limited_by ? l->d->limited_by : "",
			    "cpu") == 0 ?
			    " (CPU-limited)" : "");
			free(cap);
		}
		free(path);
		free(name);
	}
	hi = capview_rate(pow(10, axis_hi));
	graph_arg(a, "COMMENT:x\\: offered rate, log scale from %s to %s "
	    "updates/s, a grey rule at each power of ten\\l", lo, hi);
	graph_arg(a, "COMMENT:y\\: queue growth / the step's bound, cut to "
	    "-1 and %.0f\\l", CAPGRAPH_YMAX);
	free(lo);
	free(hi);
}

/* The lines of every directory of the n records; *nl of them. */
static struct capline *
collect(const struct caprec *const *recs, int n, int *nl)
{
	struct capline *lines = fmt_nomem(calloc(CAPGRAPH_MAX_DIRS,
	    sizeof(*lines)));

	double lo = 0, hi = 0;

	*nl = 0;
	for (int i = 0; i < n; i++) {
		for (size_t d = 0; d < recs[i]->ndirs &&
		    *nl < CAPGRAPH_MAX_DIRS; d++) {
			struct capline *l = &lines[(*nl)++];

			l->rec = recs[i];
			l->d = &recs[i]->dirs[d];
			collect_line(l, recs[i], d);
			if (l->n > 0 && (lo == 0 || l->rate[0] < lo))
				lo = l->rate[0];
			if (l->n > 0 && l->rate[l->n - 1] > hi)
				hi = l->rate[l->n - 1];
		}
	}
	/* Whole decades, with a margin either side. */
	axis_lo = floor(log10(lo > 0 ? lo : 1) - 0.05);
	axis_hi = ceil(log10(hi > 0 ? hi : 10) + 0.05);
	return lines;
}

int
capgraph_draw(const struct records_ctx *ctx, json_object **recs, int n,
    FILE *out, json_object *legend)
{
	struct caprec **v = fmt_nomem(calloc((size_t)n + 1, sizeof(*v)));
	int rc = CTL_EXIT_OK, i;

	for (i = 0; i < n && rc == CTL_EXIT_OK; i++) {
		char *err = NULL;

		if ((v[i] = caprec_parse(recs[i], &err)) == NULL) {
			records_error(ctx, "%s", err);
			free(err);
			rc = CTL_EXIT_ERROR;
		} else if ((err = caprec_version_warning(v[i])) != NULL) {
			records_error(ctx, "warning: %s %s", ctx->nruns > i ?
			    ctx->runs[i] : "the record", err);
			free(err);
		}
	}
	if (rc == CTL_EXIT_OK)
		rc = capgraph_draw_recs(ctx, (const struct caprec *const *)v,
		    n, out, legend);
	while (i > 0)
		caprec_free(v[--i]);
	free(v);
	return rc;
}

int
capgraph_draw_recs(const struct records_ctx *ctx,
    const struct caprec *const *recs, int n, FILE *out, json_object *legend)
{
	struct graph_args a = { .argc = 0 };
	const char *tmp = getenv("TMPDIR");
	char dir[4096];
	struct capline *lines;
	int nl, rc = CTL_EXIT_ERROR;

	if (tmp == NULL || tmp[0] != '/')	/* DEF paths escape the rest */
		tmp = "/tmp";
	snprintf(dir, sizeof(dir), "%s/stressctl-capgraph.XXXXXX", tmp);
	if (mkdtemp(dir) == NULL) {
		records_error(ctx, "cannot make a directory %s: %s", dir,
		    strerror(errno));
		return CTL_EXIT_ERROR;
	}
	lines = collect(recs, n, &nl);
	for (int k = 0; k < nl; k++)
		if (write_line(&lines[k], dir, k) != CTL_EXIT_OK) {
			records_error(ctx, "librrd: %s", rrd_get_error());
			goto fail;
		}
	graph_arg(&a, "graph");
	graph_arg(&a, "-");
	graph_arg(&a, "--imgformat=PNG");
	graph_arg(&a, "--width=%u", ctx->width ? ctx->width : 800);
	graph_arg(&a, "--height=%u", ctx->height ? ctx->height : 300);
	graph_arg(&a, "--start=%d", CAPGRAPH_T0);
	graph_arg(&a, "--end=%.0f", CAPGRAPH_T0 + to_t(pow(10, axis_hi)));
	graph_arg(&a, "--x-grid=none");
	graph_arg(&a, "--title=Queue growth against the offered rate");
	graph_arg(&a, "--vertical-label=growth / bound");
	graph_arg(&a, "--lower-limit=-1");
	graph_arg(&a, "--upper-limit=%.0f", CAPGRAPH_YMAX);
	graph_arg(&a, "--rigid");
	add_lines(&a, lines, nl, n);
	if ((rc = graph_draw(ctx, &a, legend)) == CTL_EXIT_OK)
		fprintf(out, "graph: %s\n", ctx->png);
fail:
	for (int k = 0; k < nl; k++) {
		if (lines[k].rrd != NULL)
			unlink(lines[k].rrd);
		free(lines[k].rrd);
		free(lines[k].rate);
		free(lines[k].q);
	}
	free(lines);
	rmdir(dir);
	graph_args_free(&a);
	return rc;
}
