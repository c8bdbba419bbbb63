/*
 * Runs a previous stressd left active (killed, crashed, the machine
 * lost): at start, before the first run, each record still creating,
 * running or draining is marked `interrupted`, with a reason naming the
 * last checkpoint, an "interrupted" object, a final stress.log line and
 * the updates on disk recounted from the run's files (the timestamp
 * contract; report.json's "baseline" says what was there before).
 */
#ifndef STRESSD_RECOVER_H
#define STRESSD_RECOVER_H

#include <stdbool.h>

struct config;

/* Every recount of one start together takes at most this long (the
 * daemon's budget; systemd waits 90 s for READY by default): a run past
 * it is recorded as not recounted, saying so. */
#define RECOVER_BUDGET_S	30.0

/* Recover the runs under STATE/runs, recounting for budget_s seconds at
 * most; cfg's allowed_dirs (NULL: none) confine the reads of the runs'
 * files as they confine runs.  The number of runs marked interrupted. */
unsigned recover_runs(const char *state_dir, const struct config *cfg,
	    double budget_s);
/* The last run, when it is one this start marked interrupted: its id,
 * dir and filesystem type ("" unknown), for /metrics. */
bool	recover_last(unsigned *id, const char **dir, const char **fs_type);

#endif
