/* stressctl graph, also drawn by sweep --graph. */
#ifndef STRESSCTL_CMD_GRAPH_H
#define STRESSCTL_CMD_GRAPH_H

#include <stdio.h>

#include "ctl.h"
#include "records.h"

extern const struct ctl_cmd cmd_graph_entry;

/* Draw ctx->runs into ctx->png: one run's queues and update rate from its
 * metrics.rrd, or the significant queues of several runs overlaid (see
 * overlay.h); what was written is said on out.  Returns the exit
 * status. */
int	cmd_graph_show(const struct records_ctx *ctx, FILE *out);

#endif
