/* stressctl graph: a run's queues and update rate drawn as a PNG with
 * librrd from the run's metrics.rrd; several runs' significant queues
 * overlaid (overlay.c). */
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

#include "capgraph.h"
#include "capview.h"
#include "cmd-graph.h"
#include "ctl.h"
#include "fmt.h"
#include "graph.h"
#include "options.h"
#include "overlay.h"
#include "proto.h"
#include "records.h"

/* graph image size in pixels: default and bounds of --width/--height. */
#define GRAPH_WIDTH		800
#define GRAPH_HEIGHT		300
#define GRAPH_MIN_WIDTH		200
#define GRAPH_MIN_HEIGHT	100
#define GRAPH_MAX_SIZE		8192

/* What the graph of one run is drawn from. */
struct graph {
	struct runrec	*rec;		/* the run's record */
	char		*rrd;		/* its metrics.rrd */
	unsigned	 width, height;
	time_t		 start, end;
	double		 scale;		/* of the rate, to the queues' axis */
	double		 qmax;		/* the largest queue */
	bool		 rrdc;		/* the RRD has rrdcached's queue */
};

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
		records_error(ctx, "%s: %s", path, rrd_get_error());
		return CTL_EXIT_ERROR;
	}
	for (unsigned long d = 0; d < nds; d++)
		for (int k = 0; k < 4; k++)
			if (strcmp(names[d], need[k]) == 0)
				idx[k] = (int)d;
	*rrdc = idx[3] >= 0;
	for (int k = 0; k < 3; k++)
		if (idx[k] < 0) {
			records_error(ctx, "%s has no data source '%s'; is "
			    "it a "
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

/* The record's metrics file and time span, and the scale of the rate. */
static int
graph_span(const struct records_ctx *ctx, const char *run, struct graph *g)
{
	double qmax, rmax;
	int rc;

	if ((g->rrd = records_file_named(run, g->rec->metrics_rrd,
	    "metrics.rrd")) == NULL) {
		records_error(ctx, "the record names no metrics file "
		    "(files.metrics_rrd)");
		return CTL_EXIT_ERROR;
	}
	if (access(g->rrd, R_OK) == -1) {
		records_error(ctx, "cannot read the metrics %s: %s", g->rrd,
		    strerror(errno));
		return CTL_EXIT_ERROR;
	}
	if (g->rrd[strlen(g->rrd) - 1] == '\\') {
		records_error(ctx, "cannot graph the metrics %s: librrd "
		    "cannot be given a path that ends in '\\'", g->rrd);
		return CTL_EXIT_ERROR;
	}
	if ((g->start = iso_time(g->rec->started_at)) == -1) {
		records_error(ctx, "the record has no valid started_at");
		return CTL_EXIT_ERROR;
	}
	/* A run still going is drawn up to now. */
	if ((g->end = iso_time(g->rec->ended_at)) == -1)
		g->end = time(NULL);
	if (g->end <= g->start)
		g->end = g->start + 1;
	if ((rc = graph_maxima(ctx, g->rrd, g->start, g->end, &qmax, &rmax,
	    &g->rrdc)) != CTL_EXIT_OK)
		return rc;

	/*
	 * The rate (thousands per second) would flatten the queues (a few
	 * operations), so it is drawn scaled into the queues' range and read
	 * on the right axis, which undoes the scaling.  A round scale keeps
	 * the right axis's labels round too.
	 */
	if (qmax <= 0)
		qmax = 1;
	g->scale = graph_nice_ceil(rmax / qmax);
	g->qmax = qmax;
	return CTL_EXIT_OK;
}

/* rrd_graph_v's arguments. */
static void
graph_argv(const struct graph *g, struct graph_args *a)
{
	const char *fs = g->rec->fs_type;
	const char *dir = g->rec->target_dir;
	char *esc = graph_def_escape(g->rrd);

	graph_arg(a, "graph");
	/* "-": the image comes back in memory. */
	graph_arg(a, "-");
	graph_arg(a, "--imgformat=PNG");
	graph_arg(a, "--full-size-mode");
	graph_arg(a, "--width=%u", g->width);
	graph_arg(a, "--height=%u", g->height);
	graph_arg(a, "--start=%lld", (long long)g->start);
	graph_arg(a, "--end=%lld", (long long)g->end);
	graph_int_axis(a, g->qmax);
	graph_arg(a, "--title=stressd run %" PRId64 ", %s on %s",
	    g->rec->run_id, fs ? fs : "?", dir ? dir : "?");
	graph_arg(a, "--vertical-label=operations pending");
	graph_arg(a, "--right-axis=%.10g:0", g->scale);
	graph_arg(a, "--right-axis-label=updates/s");
	graph_arg(a, "DEF:sig=%s:sig_pending:AVERAGE", esc);
	graph_arg(a, "DEF:tot=%s:total_pending:AVERAGE", esc);
	graph_arg(a, "DEF:rate=%s:completed:AVERAGE", esc);
	graph_arg(a, "CDEF:scaled=rate,%.10g,/", g->scale);
	graph_arg(a, "VDEF:sigavg=sig,AVERAGE");
	graph_arg(a, "VDEF:sigmax=sig,MAXIMUM");
	graph_arg(a, "VDEF:totavg=tot,AVERAGE");
	graph_arg(a, "VDEF:totmax=tot,MAXIMUM");
	graph_arg(a, "VDEF:rateavg=rate,AVERAGE");
	graph_arg(a, "AREA:tot#9ecae1:"
	    "total_operations_pending ");
	graph_arg(a, "GPRINT:totavg:avg %%8.2lf");
	graph_arg(a, "GPRINT:totmax:max %%8.0lf\\l");
	graph_arg(a, "LINE2:sig#d62728:"
	    "significant_ops_pending  ");
	graph_arg(a, "GPRINT:sigavg:avg %%8.2lf");
	graph_arg(a, "GPRINT:sigmax:max %%8.0lf\\l");
	graph_arg(a, "LINE1:scaled#2ca02c:completed updates/s "
	    "(right axis)");
	graph_arg(a, "GPRINT:rateavg:avg %%8.1lf\\l");
	/* A run against an rrdcached: its own queue beside ours. */
	if (g->rrdc && g->rec->rrdcached.has) {
		graph_arg(a, "DEF:rq=%s:rrdc_queue:AVERAGE",
		    esc);
		graph_arg(a, "VDEF:rqavg=rq,AVERAGE");
		graph_arg(a, "VDEF:rqmax=rq,MAXIMUM");
		graph_arg(a, "LINE2:rq#ff7f0e:rrdcached "
		    "QueueLength (files) ");
		graph_arg(a, "GPRINT:rqavg:avg %%8.2lf");
		graph_arg(a, "GPRINT:rqmax:max %%8.0lf\\l");
	}
	free(esc);
}

/* What was written, for a person or as JSON. */
static void
graph_print(const struct records_ctx *ctx, const struct graph *g, FILE *out)
{
	json_object *res;

	if (!ctx->json) {
		fprintf(out, "run %" PRId64 ": %ux%u graph of %lld s written "
		    "to %s\n", g->rec->run_id, g->width, g->height,
		    (long long)(g->end - g->start), ctx->png);
		return;
	}
	res = fmt_nomem(json_object_new_object());
	json_object_object_add(res, "run_id",
	    json_object_new_int64(g->rec->run_id));
	json_object_object_add(res, "file", json_object_new_string(ctx->png));
	json_object_object_add(res, "metrics_rrd",
	    json_object_new_string(g->rrd));
	json_object_object_add(res, "width",
	    json_object_new_int((int)g->width));
	json_object_object_add(res, "height",
	    json_object_new_int((int)g->height));
	json_object_object_add(res, "start",
	    json_object_new_int64((int64_t)g->start));
	json_object_object_add(res, "end",
	    json_object_new_int64((int64_t)g->end));
	fprintf(out, "%s\n", fmt_json_string(res));
	json_object_put(res);
}

/* One run: its queues and update rate from its metrics.rrd. */
static int
graph_one(const struct records_ctx *ctx, FILE *out)
{
	char *path = ctx->nruns > 0 ? records_file_path(ctx->runs[0]) : NULL;
	const char *run = path != NULL ? path : ctx->nruns > 0 ?
	    ctx->runs[0] : NULL;
	struct graph g = {
		.width = ctx->width ? ctx->width : GRAPH_WIDTH,
		.height = ctx->height ? ctx->height : GRAPH_HEIGHT,
	};
	struct graph_args a = { 0 };
	json_object *cap;
	int rc = CTL_EXIT_OK;

	if ((g.rec = records_load_run(ctx, run, &cap, &rc)) == NULL) {
		/* A capacity search: its steps' queue against the offered
		 * rate. */
		if (cap != NULL)
			rc = capgraph_draw(ctx, &cap, 1, out);
		json_object_put(cap);
		free(path);
		return rc;
	}
	if ((rc = graph_span(ctx, run, &g)) != CTL_EXIT_OK)
		goto fail;
	graph_argv(&g, &a);
	if ((rc = graph_draw(ctx, &a, NULL)) == CTL_EXIT_OK)
		graph_print(ctx, &g, out);
fail:
	graph_args_free(&a);
	runrec_free(g.rec);
	free(g.rrd);
	free(path);
	return rc;
}

int
cmd_graph_show(const struct records_ctx *ctx, FILE *out)
{
	return ctx->nruns > 1 ? overlay_run(ctx, out) : graph_one(ctx, out);
}

static int
run_graph(const struct records_ctx *ctx)
{
	return cmd_graph_show(ctx, stdout);
}

static int
graph_option(struct ctl *ctl, int c)
{
	double d;
	int ret;

	switch (c) {
	case 'o':
		if (*optarg == '\0') {
			options_usage_error(ctl->cmd, "-o: empty file name");
			return CTL_EXIT_USAGE;
		}
		ctl->rec.png = optarg;
		return PARSE_OK;
	case OPT_WIDTH:
	case OPT_HEIGHT:
		if ((ret = options_number(ctl->cmd, c == OPT_WIDTH ?
		    "--width" : "--height", optarg, c == OPT_WIDTH ?
		    GRAPH_MIN_WIDTH : GRAPH_MIN_HEIGHT, GRAPH_MAX_SIZE, true,
		    &d)) != PARSE_OK)
			return ret;
		if (c == OPT_WIDTH)
			ctl->rec.width = (unsigned)d;
		else
			ctl->rec.height = (unsigned)d;
		return PARSE_OK;
	}
	return OPTIONS_UNKNOWN;
}

static int
parse_graph(struct ctl *ctl, int argc, char **argv)
{
	int ret;

	if ((ret = options_parse(ctl, argc, argv)) != PARSE_OK)
		return ret;
	if (ctl->rec.png == NULL) {
		options_usage_error(ctl->cmd, "-o FILE.png is required");
		return CTL_EXIT_USAGE;
	}
	return options_operands(ctl, argc, argv);
}

const struct ctl_cmd cmd_graph_entry = {
	.name = "graph",
	.usage = "-o FILE.png [options] [RUN...]",
	.summary = "draw runs' queues as a PNG",
	.details =
	    "RUN is a run id, a report.json path or a run directory (a path "
	    "with a '/'),\nas for report; the default is the current or last "
	    "run.  One RUN: its\nqueues and update rate over its clock time, "
	    "from its metrics.rrd.  Several:\ntheir significant_ops_pending "
	    "overlaid against the seconds since each\nrun's load started, from "
	    "each record's samples.csv (beside a copied\nreport.json), one "
	    "colour and legend entry per label (the label knob; else\nthe "
	    "filesystem and the mount options that differ; else \"run N\"), "
	    "runs with\nthe same label knob sharing one; the title names the "
	    "load (files,\nupdates/s, sync).  At most 64 runs and 12 labels.  "
	    "One capacity search's\nrecord: its steps' queue against the "
	    "offered rate, as capacity --graph.\n\nOptions:\n"
	    "  -o, --output FILE.png  the PNG to write (required)\n"
	    "  --width W              image width in pixels, 200 to 8192 "
	    "(default 800)\n"
	    "  --height H             image height in pixels, 100 to 8192 "
	    "(default 300)\n"
	    "  -h, --help             print this help and exit\n",
	.options = (const struct option[]){
		{ "output", required_argument, NULL, 'o' },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "height", required_argument, NULL, OPT_HEIGHT },
		OPTIONS_COMMON,
		{ NULL, 0, NULL, 0 }
	},
	.shortopts = ":ho:",
	.max_runs = OVERLAY_MAX_RUNS,
	.option = graph_option,
	.parse = parse_graph,
	.run = run_graph,
};
