/*
 * The PNG of capacity searches (see capgraph.h).  Each directory's steps,
 * sorted by rate, become a temporary RRD of 1 s steps in which time
 * stands for the offered rate (t = CAPGRAPH_T0 + rate * span / xmax), the
 * significant queue average of each step a point, the points joined by
 * straight lines (every second between two steps gets its interpolated
 * value, since librrd would draw a held gauge as steps).  librrd labels
 * its x axis with clock times only, so the axis has no labels: grey
 * rules at round rates, and a comment gives their spacing.
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
#include "capview.h"
#include "graph.h"
#include "jpath.h"
#include "output.h"
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

/* One directory's points: rate and significant queue average. */
struct capline {
	json_object	*rec, *d;
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
collect_line(struct capline *l, json_object *rec, size_t di)
{
	json_object *st = jpath(rec, "steps");
	size_t n = json_object_is_type(st, json_type_array) ?
	    json_object_array_length(st) : 0, m = 0;
	double *pts = output_nomem(calloc(2 * n + 2, sizeof(*pts)));

	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(st, i);
		double r, q;

		if (jpath_num0(s, "dir_index") != (double)di ||
		    !jpath_num(s, "rate", &r) ||
		    !jpath_num(s, "queue_avg", &q))
			continue;
		pts[2 * m] = r;
		pts[2 * m++ + 1] = q;
	}
	qsort(pts, m, 2 * sizeof(*pts), by_rate);
	l->rate = output_nomem(calloc(m + 1, sizeof(*l->rate)));
	l->q = output_nomem(calloc(m + 1, sizeof(*l->q)));
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
to_t(double rate, double xmax)
{
	return floor(rate * CAPGRAPH_SPAN / xmax);
}

/* The line's RRD in dir: one interpolated value per second from its
 * first step to its last. */
static int
write_line(struct capline *l, const char *dir, int k, double xmax)
{
	char *vals[CAPGRAPH_BATCH];
	const char *cargv[2];
	char ds[64], rra[64];
	double t0, t1;
	size_t seg = 0;
	int nv = 0, rc = CTL_EXIT_OK;

	if (l->n == 0)
		return CTL_EXIT_OK;
	t0 = to_t(l->rate[0], xmax);
	t1 = to_t(l->rate[l->n - 1], xmax);
	snprintf(ds, sizeof(ds), "DS:q:GAUGE:%d:U:U", CAPGRAPH_SPAN * 2);
	snprintf(rra, sizeof(rra), "RRA:AVERAGE:0.5:1:%d", CAPGRAPH_SPAN + 10);
	cargv[0] = ds;
	cargv[1] = rra;
	l->rrd = output_xprintf("%s/dir%d.rrd", dir, k);
	rrd_clear_error();
	if (rrd_create_r(l->rrd, 1, CAPGRAPH_T0 + (time_t)t0 - 1, 2,
	    cargv) != 0)
		return CTL_EXIT_ERROR;
	for (double t = t0; t <= t1 && rc == CTL_EXIT_OK; t++) {
		double v;

		while (seg + 1 < l->n && to_t(l->rate[seg + 1], xmax) < t)
			seg++;
		if (seg + 1 >= l->n || to_t(l->rate[seg + 1], xmax) ==
		    to_t(l->rate[seg], xmax))
			v = l->q[seg];
		else
			v = l->q[seg] + (l->q[seg + 1] - l->q[seg]) *
			    (t - to_t(l->rate[seg], xmax)) /
			    (to_t(l->rate[seg + 1], xmax) -
			    to_t(l->rate[seg], xmax));
		vals[nv++] = output_xprintf("%.0f:%.6g", CAPGRAPH_T0 + t, v);
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

/* The name of a line in the legend: host:dir (fs) when there are hosts
 * to tell apart. */
static char *
line_name(const struct capline *l, int nrecs)
{
	const char *dir = jpath_str(l->d, "dir"), *fs = jpath_str(l->d,
	    "fs_type"), *host = capview_host(l->rec);
	char *s = output_xprintf("%s%s%s (%s)", nrecs > 1 && host ? host : "",
	    nrecs > 1 && host ? ":" : "", dir ? dir : "-", fs ? fs : "-");
	char *e = graph_text_escape(s);

	free(s);
	return e;
}

static void
add_lines(struct graph_args *a, struct capline *lines, int nl, int nrecs,
    double xmax)
{
	double grid = graph_nice_ceil(xmax / 8);
	char *g;

	for (double r = grid; r < xmax; r += grid)
		graph_arg(a, "VRULE:%.0f#DDDDDD", CAPGRAPH_T0 + to_t(r, xmax));
	for (int k = 0; k < nl; k++) {
		struct capline *l = &lines[k];
		const char *col = colours[k % (int)(sizeof(colours) /
		    sizeof(*colours))];
		char *name = line_name(l, nrecs), *path, *cap;
		double c;

		if (l->rrd == NULL) {
			graph_arg(a, "COMMENT:%s\\: no steps\\l", name);
			free(name);
			continue;
		}
		path = graph_def_escape(l->rrd);
		graph_arg(a, "DEF:q%d=%s:q:AVERAGE", k, path);
		graph_arg(a, "LINE2:q%d#%s:%s\\l", k, col, name);
		if (jpath_num(l->d, "capacity_rate", &c)) {
			cap = capview_rate(c);
			graph_arg(a, "VRULE:%.0f#%s:  capacity %s updates/s%s\\l:"
			    "dashes", CAPGRAPH_T0 + to_t(c, xmax), col, cap,
			    strcmp(jpath_str(l->d, "limited_by") ?
			    jpath_str(l->d, "limited_by") : "", "cpu") == 0 ?
			    " (CPU-limited)" : "");
			free(cap);
		}
		free(path);
		free(name);
	}
	g = capview_rate(grid);
	graph_arg(a, "COMMENT:x\\: offered rate from 0 to %.0f updates/s, a "
	    "grey rule every %s\\l", xmax, g);
	free(g);
}

/* The lines of every directory of the n records; *nl of them. */
static struct capline *
collect(json_object **recs, int n, int *nl, double *xmax)
{
	struct capline *lines = output_nomem(calloc(CAPGRAPH_MAX_DIRS,
	    sizeof(*lines)));

	*nl = 0;
	*xmax = 1;
	for (int i = 0; i < n; i++) {
		json_object *dirs = jpath(recs[i], "dirs");

		for (size_t d = 0; json_object_is_type(dirs, json_type_array)
		    && d < json_object_array_length(dirs) &&
		    *nl < CAPGRAPH_MAX_DIRS; d++) {
			struct capline *l = &lines[(*nl)++];

			l->rec = recs[i];
			l->d = json_object_array_get_idx(dirs, d);
			collect_line(l, recs[i], d);
			if (l->n > 0 && l->rate[l->n - 1] > *xmax)
				*xmax = l->rate[l->n - 1];
		}
	}
	*xmax = *xmax * 1.05;
	return lines;
}

int
capgraph_draw(const struct records_ctx *ctx, json_object **recs, int n,
    FILE *out, json_object *legend)
{
	struct graph_args a = { .argc = 0 };
	const char *tmp = getenv("TMPDIR");
	char dir[4096];
	struct capline *lines;
	double xmax;
	int nl, rc = CTL_EXIT_ERROR;

	if (tmp == NULL || tmp[0] != '/')	/* DEF paths escape the rest */
		tmp = "/tmp";
	snprintf(dir, sizeof(dir), "%s/stressctl-capgraph.XXXXXX", tmp);
	if (mkdtemp(dir) == NULL) {
		records_error(ctx, "cannot make a directory %s: %s", dir,
		    strerror(errno));
		return CTL_EXIT_ERROR;
	}
	lines = collect(recs, n, &nl, &xmax);
	for (int k = 0; k < nl; k++)
		if (write_line(&lines[k], dir, k, xmax) != CTL_EXIT_OK) {
			records_error(ctx, "librrd: %s", rrd_get_error());
			goto fail;
		}
	graph_arg(&a, "graph");
	graph_arg(&a, "-");
	graph_arg(&a, "--imgformat=PNG");
	graph_arg(&a, "--width=%u", ctx->width ? ctx->width : 800);
	graph_arg(&a, "--height=%u", ctx->height ? ctx->height : 300);
	graph_arg(&a, "--start=%d", CAPGRAPH_T0);
	graph_arg(&a, "--end=%.0f", CAPGRAPH_T0 + to_t(xmax, xmax));
	graph_arg(&a, "--x-grid=none");
	graph_arg(&a, "--title=Significant queue against the offered rate");
	graph_arg(&a, "--vertical-label=queue avg (ops)");
	graph_arg(&a, "--lower-limit=0");
	add_lines(&a, lines, nl, n, xmax);
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
