/* stressctl watch (cmd-watch.c). */
#ifndef STRESSCTL_CMD_WATCH_H
#define STRESSCTL_CMD_WATCH_H

#include "ctl.h"

extern const struct ctl_cmd cmd_watch_entry;

#endif
