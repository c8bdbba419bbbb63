/*
 * stressctl's pictures: the rrd_graph_v argument list, DEF paths, the
 * integer axis of the integer gauges, and the PNG written in place, shared
 * by the single-run graph and the overlay of runs.
 */
#include "config.h"


#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <rrd.h>

#include "fmt.h"
#include "graph.h"
#include "proto.h"
#include "records.h"

/* An integer axis has at most this many steps. */
#define GRAPH_INT_TICKS		6

void
graph_arg(struct graph_args *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (a->argc >= GRAPH_MAX_ARGS) {
		/* A bound of the code, not of the input: the callers cap
		 * what they draw below it. */
		fprintf(stderr, "stressctl: internal error: more than %d "
		    "graph arguments\n", GRAPH_MAX_ARGS);
		exit(CTL_EXIT_ERROR);
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) == -1)
		s = NULL;
	va_end(ap);
	a->argv[a->argc++] = fmt_nomem(s);
	a->argv[a->argc] = NULL;
}

void
graph_args_free(struct graph_args *a)
{
	for (int i = 0; i < a->argc; i++)
		free(a->argv[i]);
	a->argc = 0;
	a->argv[0] = NULL;
}

json_object *
graph_args_json(const struct graph_args *a)
{
	json_object *arr = fmt_nomem(json_object_new_array());

	for (int i = 0; i < a->argc; i++)
		json_object_array_add(arr,
		    json_object_new_string(a->argv[i]));
	return arr;
}

/* librrd 1.7.2 splits a graph argument at each ':' not preceded by a
 * '\' and turns "\:" into ':'; every other '\' stays as it is (it
 * reads "\\" as two), so only the colons need escaping. */
static char *
colon_escape(const char *text)
{
	char *s = fmt_nomem(malloc(2 * strlen(text) + 1)), *p = s;

	for (; *text != '\0'; text++) {
		if (*text == ':')
			*p++ = '\\';
		*p++ = *text;
	}
	*p = '\0';
	return s;
}

char *
graph_def_escape(const char *path)
{
	size_t n = strlen(path);

	/* A final '\' would escape the ':' that ends the path. */
	if (n > 0 && path[n - 1] == '\\')
		return NULL;
	return colon_escape(path);
}

char *
graph_text_escape(const char *text)
{
	return colon_escape(text);
}

double
graph_nice_ceil(double x)
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

void
graph_int_axis(struct graph_args *a, double max)
{
	double step = graph_nice_ceil(max / GRAPH_INT_TICKS), top;

	/* A tick between two counts would label a fraction. */
	if (step < 1)
		step = 1;
	top = ceil(max / step) * step;
	if (top < step)
		top = step;
	graph_arg(a, "--lower-limit=0");
	graph_arg(a, "--upper-limit=%.0f", top);
	graph_arg(a, "--rigid");
	graph_arg(a, "--units-exponent=0");
	graph_arg(a, "--left-axis-format=%%.0lf");
	/* At most GRAPH_INT_TICKS steps, so every tick is labelled. */
	graph_arg(a, "--y-grid=%.0f:1", step);
}

/* Write the image next to path and rename it into place, so a failed
 * write never leaves a truncated PNG behind. */
static int
write_png(const struct records_ctx *ctx, const char *path,
    const unsigned char *img, size_t len)
{
	char *tmp = fmt_xprintf("%s.tmp%ld", path, (long)getpid());
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

int
graph_draw(const struct records_ctx *ctx, const struct graph_args *a,
    json_object *legend)
{
	rrd_info_t *info;
	rrd_blob_t *img = NULL;
	int rc = CTL_EXIT_ERROR;

	rrd_clear_error();
	info = rrd_graph_v(a->argc, (char **)a->argv);
	if (info == NULL || rrd_test_error()) {
		records_error(ctx, "librrd: %s", rrd_test_error() ?
		    rrd_get_error() : "rrd_graph_v failed");
		goto fail;
	}
	for (rrd_info_t *i = info; i != NULL; i = i->next) {
		if (i->type == RD_I_BLO && strcmp(i->key, "image") == 0)
			img = &i->value.u_blo;
		/* "legend[N]": librrd pads the text with the mark's room. */
		if (legend != NULL && i->type == RD_I_STR &&
		    strncmp(i->key, "legend[", 7) == 0)
			json_object_array_add(legend, json_object_new_string(
			    i->value.u_str + strspn(i->value.u_str, " ")));
	}
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
