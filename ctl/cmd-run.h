/* stressctl stop and wait (cmd-run.c). */
#ifndef STRESSCTL_CMD_RUN_H
#define STRESSCTL_CMD_RUN_H

#include "ctl.h"

extern const struct ctl_cmd cmd_stop_entry;
extern const struct ctl_cmd cmd_wait_entry;

#endif
