/*
 * The capacity search: a job of steps, each an ordinary run at one
 * offered rate, over one or more directories in turn.  Per directory the
 * first step creates the files (before its load), later steps reuse them
 * (timestamps go on); capsearch.c picks each step's rate from the steps
 * before; a step ends early once its verdict (run_step_figures, with the
 * bound precision/2 x the offered significant rate) can no longer
 * change, and drains before the next.  The record is
 * STATE/runs/<id>/capacity.json, rewritten after every step; each step's
 * run keeps its own report.json tagged "capacity".  Driven from
 * lifecycle_tick on the event loop; the writers and generators of its
 * steps are the runs' own.
 */
#ifndef STRESSD_CAPACITY_H
#define STRESSD_CAPACITY_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

#include "knobs.h"

#define CAPACITY_SCHEMA		"stressd-capacity"
#define CAPACITY_SCHEMA_VERSION	1
#define CAPACITY_MAX_DIRS	16
/* The search's defaults (man stressctl, CAPACITY). */
#define CAPACITY_START_RATE	100.0
#define CAPACITY_MAX_RATE	1000000.0
#define CAPACITY_PRECISION_PCT	10.0
#define CAPACITY_STEP_MIN_S	10.0
#define CAPACITY_STEP_MAX_S	30.0
#define CAPACITY_SETTLE_S	2.0
#define CAPACITY_REPEATS	1
#define CAPACITY_LATENCY_BOUND_S 5.0
#define CAPACITY_SAMPLE_INTERVAL 0.1
/* A step is CPU-limited when its writers were on a CPU this share of
 * the time each, or the process used this share of all CPUs. */
#define CAPACITY_CPU_BUSY	0.85
/* A draining step that takes longer than this (and than step_max)
 * discards the rest: the backlog of a step far past the limit. */
#define CAPACITY_DRAIN_MAX_S	60.0

/* The `capacity` command's own arguments (the knobs are the runs'). */
struct capacity_opts {
	double		 start_rate, max_rate, precision_pct;
	double		 step_min, step_max, settle;
	int		 repeats;
	size_t		 ndirs;
	char		*dirs[CAPACITY_MAX_DIRS];
	char		*labels[CAPACITY_MAX_DIRS];	/* NULL: the knob's */
};

void	capacity_opts_free(struct capacity_opts *o);

/* Is a search running (its steps included)? */
bool	capacity_active(void);
unsigned capacity_id(void);
/* Start search id over the knobs p (dir: the first directory) and o
 * (taken: the search owns its strings now).  0, or -1 out of memory. */
int	capacity_start(unsigned id, const struct stress_params *p,
	    struct capacity_opts *o);
/* stop: the current step drains (or discards) and is marked stopped,
 * the search ends stopped; why (NULL: a client) becomes its reason. */
void	capacity_stop(bool drain, const char *why);
/* From lifecycle_tick: judge the step, start the next, end the search. */
void	capacity_tick(void);
/* status/stats' "capacity": the search running now, or null. */
json_object *capacity_status_json(void);
/* The record of search id (live, or NULL when it is not this one). */
json_object *capacity_record_json(unsigned id);
/* One line for systemd's STATUS=; false when no search runs. */
bool	capacity_summary(char *buf, size_t len);
/* At start: records of searches a crash left running are marked
 * interrupted, their steps kept. */
void	capacity_recover(const char *state_dir);
void	capacity_finish(void);

#endif
