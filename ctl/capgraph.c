/*
 * The PNG of capacity searches (see capgraph.h), drawn by gnuplot: x the
 * offered rate on a log scale (the search doubles and bisects, so its
 * steps are spread evenly there), numbered at 1, 2 and 5 of each decade;
 * y how late values landed in each step, its enqueue_to_persist p99 (in
 * its steady window when it had one, else over the step) as a multiple of
 * the latency bound, on a log scale cut to CAPGRAPH_YMIN and
 * CAPGRAPH_YMAX (1 is the bound: above it the step did not keep up,
 * whatever its rate).  Every step is a point of its own (repeats at one
 * rate too), filled when it kept up, open when not (fell behind, or not
 * steady: cannot tell counts as not kept up), joined in rate order; a
 * dashed rule marks each directory's capacity.
 */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "capgraph.h"
#include "caprec.h"
#include "capview.h"
#include "fmt.h"
#include "gnuplot.h"
#include "proto.h"

/* The most directories drawn (a search has at most 16). */
#define CAPGRAPH_MAX_DIRS	16
/* The y axis: p99 / bound, drawn from CAPGRAPH_YMIN to CAPGRAPH_YMAX. */
#define CAPGRAPH_YMIN		0.001
#define CAPGRAPH_YMAX		10.0
/* gnuplot's point types: a filled and an open circle. */
#define CAPGRAPH_PT_KEPT	7
#define CAPGRAPH_PT_NOT		6
/* Past this many decades, only the powers of ten are numbered. */
#define CAPGRAPH_FINE_DECADES	6

static const char *const colours[] = {
	"1f77b4", "d62728", "2ca02c", "ff7f0e", "9467bd", "8c564b",
	"e377c2", "7f7f7f", "bcbd22", "17becf",
};

/* One directory's points: rate, p99 / the bound, point type. */
struct capline {
	const struct caprec	*rec;
	const struct caprec_dir	*d;
	double		*rate, *q, *pt;
	size_t		 n;
};

static int
by_rate(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The steps of directory di of rec, sorted by rate, each its own. */
static void
collect_line(struct capline *l, const struct caprec *rec, size_t di)
{
	size_t n = rec->nsteps, m = 0;
	double *pts = fmt_nomem(calloc(3 * n + 3, sizeof(*pts)));

	for (size_t i = 0; i < n; i++) {
		const struct caprec_step *s = &rec->steps[i];
		double r = s->rate, q = !isnan(s->window_p99_ms) ?
		    s->window_p99_ms : s->f.latency_p99_ms;
		/* fell behind by the whole step's p99: drawn by it, above
		 * the bound, not by a window's under it */
		if (s->kept_up == 0 && !isnan(s->f.latency_p99_ms))
			q = fmax(q, s->f.latency_p99_ms);
		/* older records name the bound only in their search */
		double b = !isnan(s->latency_bound_ms) ? s->latency_bound_ms :
		    1000 * rec->search.latency_bound_s;

		/* A copied record may say anything: rates past 1e12 (or
		 * under 0.001) would be decades no axis can hold. */
		if (s->dir_index != (int64_t)di ||
		    !(r >= 1e-3 && r <= 1e12) || isnan(q) || isnan(b) ||
		    b <= 0)
			continue;
		pts[3 * m] = r;
		pts[3 * m + 1] = fmax(CAPGRAPH_YMIN, fmin(CAPGRAPH_YMAX,
		    q / b));
		pts[3 * m++ + 2] = s->kept_up == 1 ? CAPGRAPH_PT_KEPT :
		    CAPGRAPH_PT_NOT;
	}
	qsort(pts, m, 3 * sizeof(*pts), by_rate);
	l->rate = fmt_nomem(calloc(m + 1, sizeof(*l->rate)));
	l->q = fmt_nomem(calloc(m + 1, sizeof(*l->q)));
	l->pt = fmt_nomem(calloc(m + 1, sizeof(*l->pt)));
	for (l->n = 0; l->n < m; l->n++) {
		l->rate[l->n] = pts[3 * l->n];
		l->q[l->n] = pts[3 * l->n + 1];
		l->pt[l->n] = pts[3 * l->n + 2];
	}
	free(pts);
}

/* The lines of every directory of the n records; *nl of them, and the
 * x axis in whole decades (*lo, *hi: powers of ten). */
static struct capline *
collect(const struct caprec *const *recs, int n, int *nl, int *lo, int *hi)
{
	struct capline *lines = fmt_nomem(calloc(CAPGRAPH_MAX_DIRS,
	    sizeof(*lines)));
	double rmin = 0, rmax = 0;

	*nl = 0;
	for (int i = 0; i < n; i++) {
		for (size_t d = 0; d < recs[i]->ndirs &&
		    *nl < CAPGRAPH_MAX_DIRS; d++) {
			struct capline *l = &lines[(*nl)++];

			l->rec = recs[i];
			l->d = &recs[i]->dirs[d];
			collect_line(l, recs[i], d);
			if (l->n > 0 && (rmin == 0 || l->rate[0] < rmin))
				rmin = l->rate[0];
			if (l->n > 0 && l->rate[l->n - 1] > rmax)
				rmax = l->rate[l->n - 1];
		}
	}
	/* Whole decades, with a margin either side. */
	*lo = (int)floor(log10(rmin > 0 ? rmin : 1) - 0.05);
	*hi = (int)ceil(log10(rmax > 0 ? rmax : 10) + 0.05);
	return lines;
}

/* "set xtics (...)": 1, 2 and 5 of each decade from 10^lo to 10^hi (the
 * powers of ten alone past CAPGRAPH_FINE_DECADES), labelled as the text
 * prints rates. */
static void
put_tics(FILE *s, int lo, int hi)
{
	static const double mant[] = { 1, 2, 5 };
	int nm = hi - lo > CAPGRAPH_FINE_DECADES ? 1 : 3;
	const char *sep = "";

	fputs("set xtics (", s);
	for (int e = lo; e <= hi; e++)
		for (int k = 0; k < nm && (e < hi || k == 0); k++) {
			double v = mant[k] * pow(10, e);
			char *lab = capview_rate(v);

			fprintf(s, "%s\"%s\" %.6g", sep, lab, v);
			free(lab);
			sep = ", ";
		}
	fputs(")\n", s);
}

/* The name of a line in the legend: host:label or dir (fs), the host
 * when there are hosts to tell apart; quoted for gnuplot. */
static char *
line_name(const struct capline *l, int nrecs, const char *suffix)
{
	const char *dir = l->d->dir, *fs = l->d->fs_type;
	const char *host = l->rec->host, *label = l->d->label;
	char *s, *q;

	/* The candidate's name when it has one, as the ranking shows it. */
	if (label != NULL && *label != '\0')
		dir = label;
	s = fmt_xprintf("%s%s%s (%s)%s", nrecs > 1 && host ? host : "",
	    nrecs > 1 && host ? ":" : "", dir ? dir : "-", fs ? fs : "-",
	    suffix);
	q = gnuplot_quote(s);
	free(s);
	return q;
}

static const char *
colour(int k)
{
	return colours[k % (int)(sizeof(colours) / sizeof(*colours))];
}

/* Each directory's capacity as a dashed vertical rule. */
static void
put_rules(FILE *s, const struct capline *lines, int nl)
{
	for (int k = 0; k < nl; k++) {
		double c = lines[k].d->capacity_rate;

		if (!isnan(c) && c > 0 && c <= 1e12)
			fprintf(s, "set arrow from %.6g, graph 0 to %.6g, "
			    "graph 1 nohead dashtype 3 linewidth 2 "
			    "linecolor rgb \"#%s\"\n", c, c, colour(k));
	}
}

/* The plot command: the bound, each line and its capacity's key entry;
 * then the lines' points, inline. */
static void
put_plot(FILE *s, const struct capline *lines, int nl, int nrecs)
{
	fputs("plot 1 with lines dashtype 2 linecolor rgb \"#000000\" title "
	    "\"the latency bound: above it, values landed too late\", \\\n"
	    "  keyentry with points pointtype 7 linecolor rgb \"#000000\" "
	    "title \"kept up\", \\\n"
	    "  keyentry with points pointtype 6 linecolor rgb \"#000000\" "
	    "title \"did not: fell behind, or not steady\"", s);
	for (int k = 0; k < nl; k++) {
		const struct capline *l = &lines[k];
		double c = l->d->capacity_rate;
		char *name = line_name(l, nrecs, l->n == 0 ?
		    ": no judged steps" : "");

		if (l->n == 0)
			fprintf(s, ", \\\n  keyentry with points pointtype 0 "
			    "title %s", name);
		else
			fprintf(s, ", \\\n  '-' using 1:2:3 with linespoints "
			    "pointtype variable pointsize 0.8 linewidth 2 "
			    "linecolor rgb \"#%s\" title %s", colour(k), name);
		free(name);
		if (!isnan(c) && c > 0 && c <= 1e12) {
			char *r = capview_rate(c);
			bool cpu = l->d->limited_by != NULL &&
			    strcmp(l->d->limited_by, "cpu") == 0;

			fprintf(s, ", \\\n  keyentry with lines dashtype 3 "
			    "linewidth 2 linecolor rgb \"#%s\" title "
			    "\"  capacity %s updates/s%s\"", colour(k), r,
			    cpu ? " (CPU-limited)" : "");
			free(r);
		}
	}
	fputc('\n', s);
	for (int k = 0; k < nl; k++) {
		if (lines[k].n == 0)
			continue;
		for (size_t i = 0; i < lines[k].n; i++)
			fprintf(s, "%.9g %.6g %.0f\n", lines[k].rate[i],
			    lines[k].q[i], lines[k].pt[i]);
		fputs("e\n", s);
	}
}

/* The whole script; *len its length. */
static char *
script(const struct records_ctx *ctx, const struct capline *lines, int nl,
    int nrecs, int lo, int hi, size_t *len)
{
	char *buf = NULL;
	FILE *s = fmt_nomem(open_memstream(&buf, len));

	/* The key below the plot: a line of it for the bound and each
	 * line and capacity. */
	fprintf(s, "set terminal pngcairo size %u,%u noenhanced "
	    "font \"sans,9\"\n", ctx->width ? ctx->width : 800,
	    ctx->height ? ctx->height : 260 + 16 * (unsigned)(1 + 2 * nl));
	fputs("set title \"How late values landed against the offered "
	    "rate\"\n"
	    "set xlabel \"offered rate, updates/s (log scale)\"\n"
	    "set ylabel \"enqueue_to_persist p99 / latency bound\"\n"
	    "set logscale x 10\nset logscale y 10\n"
	    "set ytics (\"0.001\" 0.001, \"0.01\" 0.01, \"0.1\" 0.1, "
	    "\"1\" 1, \"10\" 10)\n", s);
	/* A little past the outer tics, or gnuplot may drop their labels. */
	fprintf(s, "set xrange [%.6g:%.6g]\nset yrange [%g:%g]\n",
	    pow(10, lo) / 1.02, pow(10, hi) * 1.02, CAPGRAPH_YMIN / 1.02,
	    CAPGRAPH_YMAX * 1.02);
	put_tics(s, lo, hi);
	fputs("set grid xtics ytics linecolor rgb \"#dddddd\"\n"
	    "set key below left Left reverse\n", s);
	put_rules(s, lines, nl);
	put_plot(s, lines, nl, nrecs);
	if (fclose(s) != 0)
		fmt_nomem(NULL);
	return buf;
}

int
capgraph_draw(const struct records_ctx *ctx, json_object **recs, int n,
    FILE *out)
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
		    n, out);
	while (i > 0)
		caprec_free(v[--i]);
	free(v);
	return rc;
}

int
capgraph_draw_recs(const struct records_ctx *ctx,
    const struct caprec *const *recs, int n, FILE *out)
{
	struct capline *lines;
	int nl, lo, hi, rc = CTL_EXIT_OK;
	size_t len;
	char *s, *err;

	lines = collect(recs, n, &nl, &lo, &hi);
	s = script(ctx, lines, nl, n, lo, hi, &len);
	if (gnuplot_render(s, len, ctx->png, &err) == -1) {
		records_error(ctx, "%s", err);
		free(err);
		rc = CTL_EXIT_ERROR;
	} else
		fprintf(out, "graph: %s\n", ctx->png);
	for (int k = 0; k < nl; k++) {
		free(lines[k].rate);
		free(lines[k].q);
		free(lines[k].pt);
	}
	free(lines);
	free(s);
	return rc;
}
