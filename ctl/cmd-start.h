/* The run options of start, which sweep takes too (cmd-start.c). */
#ifndef STRESSCTL_CMD_START_H
#define STRESSCTL_CMD_START_H

#include <stdbool.h>

#include "ctl.h"

extern const struct ctl_cmd cmd_start_entry;

/* Parse start's options into ctl->args; sweep: --dir is repeatable (into
 * ctl->sweep_dirs) and --repeat is taken.  A command whose entry lists
 * options (capacity) gets those instead of --repeat and --graph, and its
 * .option takes them.  Returns PARSE_OK or the exit status. */
int	cmd_start_options(struct ctl *ctl, int argc, char **argv, bool sweep);

#endif
