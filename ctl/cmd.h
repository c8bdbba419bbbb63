/*
 * stressctl's command table, the tmux way: one entry per command carries
 * everything about it (name, usage, help, options, operands, parser, how
 * each kind of reply is shown and checked: struct ctl_cmd, ctl.h), and
 * dispatch, the usage listing and --help are all generated from the table
 * in cmd.c.  Commands live in files by family (cmd-start.c, cmd-run.c,
 * ...), each exporting its entries in its header; the table, at the top
 * of stressctl's layers, includes them all and none of them includes it.
 */
#ifndef STRESSCTL_CMD_H
#define STRESSCTL_CMD_H

#include <stddef.h>
#include <stdio.h>

#include "ctl.h"
#include "cmd-capacity.h"
#include "cmd-compare.h"
#include "cmd-graph.h"
#include "cmd-info.h"
#include "cmd-report.h"
#include "cmd-run.h"
#include "cmd-start.h"
#include "cmd-sweep.h"
#include "cmd-watch.h"

/* Every command in the order of the usage listing, NULL terminated. */
extern const struct ctl_cmd *const cmd_table[];

/* The command named name, or NULL. */
const struct ctl_cmd	*cmd_find(const char *name);
/* "; did you mean 'NAME'?" for an unknown command name, or "". */
void			 cmd_suggest(const char *name, char *buf, size_t len);
/* stressctl --help: the program's usage and every command's. */
void			 cmd_print_list(FILE *f);
/* What parsing left in ctl: the request's args, sweep's dirs and labels. */
void			 cmd_ctl_free(struct ctl *ctl);

#endif
