/* stressctl report and runs (cmd-report.c). */
#ifndef STRESSCTL_CMD_REPORT_H
#define STRESSCTL_CMD_REPORT_H

#include "ctl.h"

extern const struct ctl_cmd cmd_report_entry;
extern const struct ctl_cmd cmd_runs_entry;

#endif
