/*
 * The run records on disk: STATE/runs/<id>/ per run, its report.json the
 * record that `report` and `runs` read.  Ids are 1 .. RUNRECORDS_MAX_ID;
 * anything else under STATE/runs is not a run.
 */
#ifndef STRESSD_RUNRECORDS_H
#define STRESSD_RUNRECORDS_H

#include <stddef.h>
#include <json-c/json.h>

#define RUNRECORDS_MAX_ID	999999999U

/* Make STATE/runs if need be and check it is writable: 0, or -1 with a
 * message logged. */
int	runrecords_init(const char *state_dir);
/* Take STATE/lock (flock, held until exit) so that no two stressd share
 * a state directory: a run left active by a previous process is then
 * known dead, not guessed so from a pid.  Waits up to 2 s for one just
 * killed to go; 0, or -1 with a message logged. */
int	runrecords_lock(const char *state_dir);
/* Let go of STATE/lock (at exit). */
void	runrecords_unlock(void);
/* The highest run id under STATE/runs (record or not), or 0: new ids
 * continue after it, so earlier records are never overwritten. */
unsigned runrecords_highest_id(const char *state_dir);
/* The highest id below below that has a report.json, or 0. */
unsigned runrecords_last(const char *state_dir, unsigned below);
/* Run id's report.json, or NULL. */
json_object *runrecords_load(const char *state_dir, unsigned id);
/* Another record of run id's directory (capacity.json), or NULL. */
json_object *runrecords_load_file(const char *state_dir, unsigned id,
	    const char *name);
/* The run ids under STATE/runs in increasing order, *n of them (free
 * the array); NULL with *n 0 when there are none. */
unsigned *runrecords_list(const char *state_dir, size_t *n);
/* A record's summary, one entry of `runs`; a capacity search's record
 * (capacity.json) gives {"id", "kind": "capacity", "state", times,
 * "files", "sync", "steps", "dirs": [{dir, fs_type, state, capacity_rate,
 * behind_rate, limited_by}]}, a step run's has its "capacity" link. */
json_object *runrecords_summary(json_object *rep);

/* At start-up: each record in file (a job's, e.g. capacity.json) that
 * a crash left "running" is marked interrupted with reason, as are its
 * members of list_key still running, and rewritten by write; logged as
 * "KIND ID: marked interrupted". */
void	runrecords_interrupt(const char *state_dir, const char *file,
	    const char *list_key, const char *reason, const char *kind,
	    int (*write)(const char *, unsigned, json_object *));

#endif
