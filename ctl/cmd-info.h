/* stressctl stats, status, help and version (cmd-info.c). */
#ifndef STRESSCTL_CMD_INFO_H
#define STRESSCTL_CMD_INFO_H

#include "ctl.h"

extern const struct ctl_cmd cmd_stats_entry;
extern const struct ctl_cmd cmd_status_entry;
extern const struct ctl_cmd cmd_help_entry;
extern const struct ctl_cmd cmd_version_entry;

#endif
