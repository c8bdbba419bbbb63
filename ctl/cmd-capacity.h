/* stressctl capacity (cmd-capacity.c), and the view of capacity records
 * that report and compare share with it. */
#ifndef STRESSCTL_CMD_CAPACITY_H
#define STRESSCTL_CMD_CAPACITY_H

#include <stdbool.h>

#include <json-c/json.h>

#include "ctl.h"
#include "records.h"

extern const struct ctl_cmd cmd_capacity_entry;

/* The most directories a search takes (the daemon's limit too). */
#define CMD_CAPACITY_MAX_DIRS	16

/* Show n capacity records as ctx asks (text, --json; one record with its
 * steps when steps, several side by side), then draw ctx->png if set.
 * Returns the exit status (0, or 1 when the graph failed). */
int	cmd_capacity_show(const struct records_ctx *ctx, json_object **recs,
	    int n, bool steps);

#endif
