/*
 * The run lifecycle: the daemon's one current (or last) run, the run
 * being prepared before it (together the run slot), the timer that
 * samples it, the next run id, and the shutdown state.  Every run is a
 * job's (job.h): the job prepares it here and hears what becomes of it
 * (job_run_event); lifecycle_tick moves the slot, then ticks the job.
 * main.c drives it from the loop's tick and the signals.
 */
#ifndef STRESSD_LIFECYCLE_H
#define STRESSD_LIFECYCLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

struct config;
struct event_base;
struct run;
struct stress_params;

/* STATE/runs is made if need be; run ids continue after the highest one
 * found there.  0, or -1 with a message logged. */
int	lifecycle_init(struct event_base *base, const char *state_dir,
	    const char *socket_path);
void	lifecycle_finish(void);
/* The configuration for runs started from now (profiles, allowed_dirs,
 * the default sample interval); borrowed until the next call. */
void	lifecycle_set_config(const struct config *cfg);
const struct config *lifecycle_config(void);

const char *lifecycle_state_dir(void);
const char *lifecycle_socket_path(void);
/* The id the next run gets; lifecycle_take_id takes it for a job's own
 * record (a capacity search's). */
unsigned lifecycle_next_id(void);
unsigned lifecycle_take_id(void);
/* Why the last prepared run was refused (and the field, "" if none, and
 * the error code, PROTO_ERR_*, when code is not NULL), "" if never. */
const char *lifecycle_refusal(const char **field, const char **code);
/* When the daemon started (util_now's clock). */
double	lifecycle_started(void);

/* The current or last run, or NULL; the run being prepared, or NULL. */
struct run *lifecycle_run(void);
struct run *lifecycle_pending(void);
/* The stats of the current or last run (idle zeros without one). */
json_object *lifecycle_stats_json(void);

/* Start preparing a run of p under the next id, for the current job:
 * it launches, or is refused, from lifecycle_tick, which tells the job
 * (job_run_event).  -1 when out of resources.  update_fd: as run_prepare
 * takes it. */
int	lifecycle_prepare(const struct stress_params *p, int update_fd);
/* The run being prepared is refused once its preparation ends. */
void	lifecycle_cancel_pending(void);

/* From the loop's timer: launches a prepared run, advances the current
 * one, tells the job of each, then ticks the job. */
void	lifecycle_tick(void);
/* SIGTERM/SIGINT: no new runs; stop the job and its run (drain, or
 * discard on a second signal or a drain timeout); why becomes their
 * reason. */
void	lifecycle_shutdown(bool drain, const char *why);
bool	lifecycle_shutting_down(void);
/* True once no job or run is active or being prepared (the daemon may
 * exit). */
bool	lifecycle_quiescent(void);
/* Updates the run has written or failed so far, and with an rrdcached
 * target the values it wrote (drain progress). */
uint64_t lifecycle_updates_done(void);
/* A writer of a run inside one librrd call for longer than limit s. */
bool	lifecycle_stuck(double limit);
/* One line for systemd's STATUS=: the job's, else the run's. */
void	lifecycle_summary(char *buf, size_t len);

#endif
