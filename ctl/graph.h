/*
 * stressctl's pictures: what the single-run graph and the overlay of runs
 * share on the way to librrd's rrd_graph_v: an argument list, DEF paths,
 * an integer axis for the integer gauges, and the PNG written in place.
 */
#ifndef STRESSCTL_GRAPH_H
#define STRESSCTL_GRAPH_H

#include <json-c/json.h>

#include "records.h"

/* The most arguments of one rrd_graph_v call, and the NULL after them. */
#define GRAPH_MAX_ARGS		200

/* rrd_graph_v's arguments, each a malloc'd string. */
struct graph_args {
	int	 argc;
	char	*argv[GRAPH_MAX_ARGS + 1];
};

/* Append one printf-formatted argument (fatal past GRAPH_MAX_ARGS). */
void	 graph_arg(struct graph_args *a, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	 graph_args_free(struct graph_args *a);
/* The arguments as a JSON array of strings (a new reference). */
json_object	*graph_args_json(const struct graph_args *a);

/* path made safe for a DEF (rrd_graph splits its arguments at ':' and
 * reads "\:" as ':', nothing else), malloc'd; NULL for a path librrd
 * cannot be given: one that ends in '\'. */
char	*graph_def_escape(const char *path);
/* text made safe for a legend or COMMENT that the caller ends with a
 * control code such as "\l" (librrd reads a final "\X" as one; other
 * backslashes are drawn as they are), malloc'd. */
char	*graph_text_escape(const char *text);
/* The smallest of 1, 2, 5 times a power of ten that is at least x (1 for
 * x <= 0). */
double	 graph_nice_ceil(double x);
/* The left axis of an integer gauge whose largest value is max: from 0,
 * whole-number ticks, no SI prefix ("1k"), so each label is a count. */
void	 graph_int_axis(struct graph_args *a, double max);

/*
 * Draw a and write the PNG to ctx->png (through a temporary file renamed
 * into place, so a failure leaves no truncated PNG).  legend, if not
 * NULL, gets librrd's legend lines (a JSON array, as drawn).
 */
int	 graph_draw(const struct records_ctx *ctx, const struct graph_args *a,
	    json_object *legend);

#endif
