/* stressctl sweep (cmd-sweep.c). */
#ifndef STRESSCTL_CMD_SWEEP_H
#define STRESSCTL_CMD_SWEEP_H

#include "ctl.h"

extern const struct ctl_cmd cmd_sweep_entry;

#endif
