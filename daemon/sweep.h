/*
 * The sweep: a job of ordinary runs, the same knobs in each of several
 * directories, repeats interleaved (A B C A B C ...), each run in a
 * fresh subdirectory DIR/sweep-<sweep_id>-<k> and tagged with the sweep
 * id (its sweep_id knob) and its directory's label.  A failed run does
 * not end the sweep; a refused start does.  The sweep is known by the id
 * of its first run, in whose directory its record STATE/runs/<id>/
 * sweep.json is kept (rewritten as each run starts and ends), so a sweep
 * takes no run id of its own.  Driven from lifecycle_tick on the event
 * loop; its operations are those of a job kind (start, tick, stop,
 * active, status, record, summary, recover, finish).
 */
#ifndef STRESSD_SWEEP_H
#define STRESSD_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

#include "knobs.h"
#include "sweepopts.h"

#define SWEEP_SCHEMA		"stressd-sweep"
#define SWEEP_SCHEMA_VERSION	1

/* Is a sweep running (its current run included)? */
bool	sweep_active(void);
/* The running sweep's id (its first run's), or 0. */
unsigned sweep_id(void);
/* Start a sweep of the knobs p over o (taken: the sweep owns its
 * strings now) and prepare its first run; update_fd (taken; -1 none) is
 * replayed by every run.  0, or -1 out of memory. */
int	sweep_start(const struct stress_params *p, struct sweep_opts *o,
	    int update_fd);
/* stop: the current run drains (or discards) and the sweep ends
 * stopped; why (NULL: a client) becomes its reason. */
void	sweep_stop(bool drain, const char *why);
/* From lifecycle_tick: notice a run's end, start the next, end. */
void	sweep_tick(void);
/* status/stats' "sweep": the sweep running now, or NULL. */
json_object *sweep_status_json(void);
/* The record of sweep id (live, or NULL when it is not this one). */
json_object *sweep_record_json(unsigned id);
/* One line for systemd's STATUS=; false when no sweep runs. */
bool	sweep_summary(char *buf, size_t len);
/* At start: records of sweeps a crash left running are marked
 * interrupted, their runs kept. */
void	sweep_recover(const char *state_dir);
void	sweep_finish(void);

#endif
