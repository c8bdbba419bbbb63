/* stressctl graph: a run's queues and update rate drawn as a PNG with
 * librrd from the run's metrics.rrd. */
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

#include "cmd.h"
#include "jpath.h"
#include "options.h"
#include "output.h"
#include "proto.h"
#include "records.h"

/* graph image size in pixels: default and bounds of --width/--height. */
#define GRAPH_WIDTH		800
#define GRAPH_HEIGHT		300
#define GRAPH_MIN_WIDTH		200
#define GRAPH_MIN_HEIGHT	100
#define GRAPH_MAX_SIZE		8192
/* The most arguments graph_argv() makes, and the NULL after them. */
#define GRAPH_MAX_ARGS		40

/* What the graph of one run is drawn from. */
struct graph {
	json_object	*rep;		/* the run's record */
	char		*rrd;		/* its metrics.rrd */
	unsigned	 width, height;
	time_t		 start, end;
	double		 scale;		/* of the rate, to the queues' axis */
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
	int ret = CTL_EXIT_ERROR, saved;

	if ((fp = fopen(tmp, "we")) == NULL)
		goto fail;
	if (fwrite(img, 1, len, fp) != len) {
		saved = errno;
		fclose(fp);
		errno = saved;
		goto unlink;
	}
	if (fclose(fp) == EOF || rename(tmp, path) == -1)
		goto unlink;
	ret = CTL_EXIT_OK;
	goto done;
unlink:
	saved = errno;
	unlink(tmp);
	errno = saved;
fail:
	records_error(ctx, "cannot write %s: %s", path, strerror(errno));
done:
	free(tmp);
	return ret;
}


/* The record's metrics file and time span, and the scale of the rate. */
static int
graph_span(const struct records_ctx *ctx, const char *run, struct graph *g)
{
	double qmax, rmax;
	int rc;

	if ((g->rrd = records_file(run, g->rep, "metrics_rrd",
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
	if ((g->start = iso_time(jpath_str(g->rep, "started_at"))) == -1) {
		records_error(ctx, "the record has no valid started_at");
		return CTL_EXIT_ERROR;
	}
	/* A run still going is drawn up to now. */
	if ((g->end = iso_time(jpath_str(g->rep, "ended_at"))) == -1)
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
	g->scale = nice_ceil(rmax / qmax);
	return CTL_EXIT_OK;
}

/* rrd_graph_v's arguments into argv (NULL terminated); returns argc. */
static int
graph_argv(const struct graph *g, char **argv)
{
	const char *fs = jpath_str(g->rep, "target.fs_type");
	const char *dir = jpath_str(g->rep, "target.dir");
	char *esc = def_escape(g->rrd);
	char *id = jpath_text(g->rep, "run_id", NULL);
	int argc = 0;

	argv[argc++] = output_xprintf("graph");
	/* "-": the image comes back in memory. */
	argv[argc++] = output_xprintf("-");
	argv[argc++] = output_xprintf("--imgformat=PNG");
	argv[argc++] = output_xprintf("--full-size-mode");
	argv[argc++] = output_xprintf("--width=%u", g->width);
	argv[argc++] = output_xprintf("--height=%u", g->height);
	argv[argc++] = output_xprintf("--start=%lld", (long long)g->start);
	argv[argc++] = output_xprintf("--end=%lld", (long long)g->end);
	argv[argc++] = output_xprintf("--lower-limit=0");
	argv[argc++] = output_xprintf("--title=stressd run %s, %s on %s", id,
	    fs ? fs : "?", dir ? dir : "?");
	argv[argc++] = output_xprintf("--vertical-label=operations pending");
	argv[argc++] = output_xprintf("--right-axis=%.10g:0", g->scale);
	argv[argc++] = output_xprintf("--right-axis-label=updates/s");
	argv[argc++] = output_xprintf("DEF:sig=%s:sig_pending:AVERAGE", esc);
	argv[argc++] = output_xprintf("DEF:tot=%s:total_pending:AVERAGE", esc);
	argv[argc++] = output_xprintf("DEF:rate=%s:completed:AVERAGE", esc);
	argv[argc++] = output_xprintf("CDEF:scaled=rate,%.10g,/", g->scale);
	argv[argc++] = output_xprintf("VDEF:sigavg=sig,AVERAGE");
	argv[argc++] = output_xprintf("VDEF:sigmax=sig,MAXIMUM");
	argv[argc++] = output_xprintf("VDEF:totavg=tot,AVERAGE");
	argv[argc++] = output_xprintf("VDEF:totmax=tot,MAXIMUM");
	argv[argc++] = output_xprintf("VDEF:rateavg=rate,AVERAGE");
	argv[argc++] = output_xprintf("AREA:tot#9ecae1:"
	    "total_operations_pending ");
	argv[argc++] = output_xprintf("GPRINT:totavg:avg %%8.2lf");
	argv[argc++] = output_xprintf("GPRINT:totmax:max %%8.0lf\\l");
	argv[argc++] = output_xprintf("LINE2:sig#d62728:"
	    "significant_ops_pending  ");
	argv[argc++] = output_xprintf("GPRINT:sigavg:avg %%8.2lf");
	argv[argc++] = output_xprintf("GPRINT:sigmax:max %%8.0lf\\l");
	argv[argc++] = output_xprintf("LINE1:scaled#2ca02c:completed updates/s "
	    "(right axis)");
	argv[argc++] = output_xprintf("GPRINT:rateavg:avg %%8.1lf\\l");
	/* A run against an rrdcached: its own queue beside ours. */
	if (g->rrdc && jpath(g->rep, "rrdcached") != NULL) {
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
	free(esc);
	free(id);
	return argc;
}

/* Draw the graph of argv and write it to ctx->png. */
static int
graph_draw(const struct records_ctx *ctx, int argc, char **argv)
{
	rrd_info_t *info;
	rrd_blob_t *img = NULL;
	int rc = CTL_EXIT_ERROR;

	rrd_clear_error();
	info = rrd_graph_v(argc, argv);
	if (info == NULL || rrd_test_error()) {
		records_error(ctx, "librrd: %s", rrd_test_error() ?
		    rrd_get_error() : "rrd_graph_v failed");
		goto fail;
	}
	for (rrd_info_t *i = info; i != NULL; i = i->next)
		if (i->type == RD_I_BLO && strcmp(i->key, "image") == 0)
			img = &i->value.u_blo;
	if (img == NULL || img->size == 0) {
		records_error(ctx, "librrd returned no image");
		goto fail;
	}
	rc = write_png(ctx, ctx->png, img->ptr, img->size);
fail:
	if (info != NULL)
		rrd_info_free(info);
	return rc;
}

/* What was written, for a person or as JSON. */
static void
graph_print(const struct records_ctx *ctx, const struct graph *g)
{
	json_object *res;
	char *id;

	if (!ctx->json) {
		id = jpath_text(g->rep, "run_id", NULL);
		printf("run %s: %ux%u graph of %lld s written to %s\n", id,
		    g->width, g->height, (long long)(g->end - g->start),
		    ctx->png);
		free(id);
		return;
	}
	res = output_nomem(json_object_new_object());
	json_object_object_add(res, "run_id",
	    json_object_get(jpath(g->rep, "run_id")));
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
	printf("%s\n", output_json_string(res));
	json_object_put(res);
}

static int
run_graph(const struct records_ctx *ctx)
{
	const char *run = ctx->nruns > 0 ? ctx->runs[0] : NULL;
	struct graph g = {
		.width = ctx->width ? ctx->width : GRAPH_WIDTH,
		.height = ctx->height ? ctx->height : GRAPH_HEIGHT,
	};
	char *argv[GRAPH_MAX_ARGS + 1];
	int argc = 0, rc;

	if ((g.rep = records_load(ctx, run, &rc)) == NULL)
		return rc;
	if ((rc = graph_span(ctx, run, &g)) != CTL_EXIT_OK)
		goto fail;
	argc = graph_argv(&g, argv);
	if ((rc = graph_draw(ctx, argc, argv)) == CTL_EXIT_OK)
		graph_print(ctx, &g);
fail:
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	json_object_put(g.rep);
	free(g.rrd);
	return rc;
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
	.usage = "-o FILE.png [options] [RUN]",
	.summary = "draw a run's queues and update rate as a PNG",
	.details =
	    "RUN is a run id or a report.json path, as for report; the default "
	    "is the\ncurrent or last run.  The graph is drawn with librrd from "
	    "the run's\nmetrics.rrd.\n\nOptions:\n"
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
	.max_runs = 1,
	.option = graph_option,
	.parse = parse_graph,
	.run = run_graph,
};
