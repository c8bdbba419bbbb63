/*
 * The daemon's command table, the tmux way: one entry per control
 * command, carrying everything about it.  Dispatch, `help`, the access
 * check and the fuzzer are all generated from it.  Each family of
 * commands exports its entries from a file of its own (cmd-run.c,
 * cmd-info.c, cmd-records.c); cmd.c lists them.  What an entry is lives
 * in cmdentry.h, which the families include: they never include the
 * table that lists them.
 */
#ifndef STRESSD_CMD_H
#define STRESSD_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

#include "cmdentry.h"

/* Every command, in the order `help` lists them. */
extern const struct cmd_entry *const	cmd_table[];
extern const size_t			cmd_count;

/* The entry named name, or NULL. */
const struct cmd_entry *cmd_find(const char *name);
/* Answer one request from the table (a control_dispatch_fn): unknown
 * command, access, readiness, arguments, then the handler. */
void	cmd_dispatch(struct control_conn *c, json_object *id, const char *name,
	    json_object *args);

#endif
