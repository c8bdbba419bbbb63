/*
 * The sweep: a job of ordinary runs, the same knobs in each of several
 * directories, repeats interleaved (A B C A B C ...), each run in a
 * fresh subdirectory DIR/sweep-<sweep_id>-<k> and tagged with the sweep
 * id (its sweep_id knob) and its directory's label.  A failed run does
 * not end the sweep; a refused start does.  The sweep is known by the id
 * of its first run, in whose directory its record STATE/runs/<id>/
 * sweep.json is kept (rewritten as each run starts and ends), so a sweep
 * takes no run id of its own (its kind's record_by_name: report reads
 * it given "kind": "sweep").  A job kind, driven by job_tick on the
 * event loop; the runs are lifecycle's.
 */
#ifndef STRESSD_SWEEP_H
#define STRESSD_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

#include "job.h"

#define SWEEP_SCHEMA		"stressd-sweep"
#define SWEEP_SCHEMA_VERSION	1

/* The sweep as a job kind (job.h): main.c registers it. */
extern const struct job_kind sweep_kind;

#endif
