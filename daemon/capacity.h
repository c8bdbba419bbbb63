/*
 * The capacity search: a job of steps, each an ordinary run at one
 * offered rate, over one or more directories in turn.  Per directory the
 * first step creates the files (before its load), later steps reuse them
 * (timestamps go on); capsearch.c picks each step's rate from the steps
 * before; a step ends early once its verdict (run_step_figures: rule 2,
 * as any run's, after its settle) is decided, and drains before the
 * next.  The record is
 * STATE/runs/<id>/capacity.json, rewritten after every step; each step's
 * run keeps its own report.json tagged "capacity".  A job kind
 * (job.h): lifecycle ticks it on the event loop and it prepares its
 * steps in lifecycle's run slot; the writers and generators of its
 * steps are the runs' own.
 */
#ifndef STRESSD_CAPACITY_H
#define STRESSD_CAPACITY_H

#include "capopts.h"
#include "job.h"

#define CAPACITY_SCHEMA		"stressd-capacity"
#define CAPACITY_SCHEMA_VERSION	1
/* A step is CPU-limited when its writers were on a CPU this share of
 * the time each, or the process used this share of all CPUs. */
#define CAPACITY_CPU_BUSY	0.85
/* A draining step that takes longer than this (and than step_max)
 * discards the rest: the backlog of a step far past the limit. */
#define CAPACITY_DRAIN_MAX_S	60.0

/* The capacity search as a job: `capacity` starts it (its arguments are
 * request_args' cap and params), status and stats show it as
 * "capacity", its record is capacity.json. */
extern const struct job_kind capacity_kind;

#endif
