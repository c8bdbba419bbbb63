/* The PNG of capacity searches (capacity --graph, report/compare
 * --graph... of a capacity record): per directory, how late each
 * step's values landed (p99 over the bound) against the offered rate,
 * the found limit marked, one colour per directory, drawn by gnuplot
 * (gnuplot.h). */
#ifndef STRESSCTL_CAPGRAPH_H
#define STRESSCTL_CAPGRAPH_H

#include <stdio.h>

#include <json-c/json.h>

#include "caprec.h"
#include "records.h"

/* Draw the steps of the n records into ctx->png (size ctx->width x
 * ctx->height, 0: the default); a line naming the file on out.
 * Returns the exit status. */
int	capgraph_draw(const struct records_ctx *ctx, json_object **recs,
	    int n, FILE *out);
/* The same of records already read (a record that does not parse fails
 * capgraph_draw, named on stderr). */
int	capgraph_draw_recs(const struct records_ctx *ctx,
	    const struct caprec *const *recs, int n, FILE *out);

#endif
