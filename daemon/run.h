/* One run's lifecycle: validation, setup of queue, writers and generators,
 * the state machine idle -> creating -> running -> draining -> done |
 * stopped | failed, its stress.log, its error record and its stats. */
#ifndef STRESSD_RUN_H
#define STRESSD_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "knobs.h"
#include "rrdfile.h"

struct config;

enum run_state {
	RUN_IDLE, RUN_CREATING, RUN_RUNNING, RUN_DRAINING,
	RUN_DONE, RUN_STOPPED, RUN_FAILED
};

/* target rrdcached: how long the event loop waits for one STATS (samples,
 * the end-of-run flush), how long it then leaves rrdcached alone, and how
 * often the flush at the end asks. */
#define RUN_RRDCACHED_POLL_MS		1000
#define RUN_RRDCACHED_RETRY_S		5
#define RUN_RRDCACHED_FLUSH_POLL_S	0.2

/* First error messages kept verbatim; later ones are only counted. */
#define RUN_ERRORS_KEPT	10

struct run;

const char	*run_state_name(enum run_state s);

/*
 * Start preparing run <id> with parameters p (already checked against the
 * knob table): a setup thread checks the directory, validates the layout
 * with librrd, scans existing files (reuse or refuse) and opens
 * STATE/runs/<id>/stress.log, so the event loop is not blocked by a scan
 * of 30,000 files.  cfg (NULL: none) gives allowed_dirs, copied: the
 * directory is opened through them (policy_dir_open).  update_fd, when
 * not -1, is a descriptor the client passed to read p->update_file's
 * values from (the run owns it: closed however it goes).  NULL when no
 * thread could be started.
 */
/* A stop while r is being prepared: an eviction pass of its setup ends
 * early (the run is then refused, not started). */
void		 run_cancel_setup(struct run *r);
struct run	*run_prepare(unsigned id, const char *state_dir,
		    const struct config *cfg, const struct stress_params *p,
		    int update_fd);
/* Has the setup thread finished? */
bool		 run_prepared(const struct run *r);
/*
 * Once prepared: start the writers and the load.  On a refused setup
 * returns -1 with the offending field in *field and a message in err;
 * the run must then be freed and nothing of it remains but files it made.
 */
int		 run_launch(struct run *r, const char **field, char *err,
		    size_t errlen);
/* Advance the state machine; true when the run just ended. */
bool		 run_tick(struct run *r);
/*
 * Stop generating; drain the queue, or discard it (counted in
 * `discarded`).  why, when not NULL, is a shutdown's reason: it becomes
 * the run's reason and what it discards is also `dropped_at_shutdown`.
 */
void		 run_stop(struct run *r, bool drain, const char *why);
/* Take one sample of the queue's gauges into the run's history (called
 * every run_sample_interval seconds while the run is active). */
void		 run_sample(struct run *r);
double		 run_sample_interval(const struct run *r);
enum run_state	 run_state(const struct run *r);
bool		 run_active(const struct run *r);
unsigned	 run_id(const struct run *r);
/* SIGHUP: reopen the run's stress.log (see stresslog_reopen); 0 when the
 * run has no log open (not started, or ended). */
int		 run_reopen_log(struct run *r);

/* The `stats` result; "current" rates since the previous call. */
json_object	*run_stats_json(struct run *r);
/* The verdict so far (the final one once the run ended), as stats gives
 * it: *kept_up 1, 0 or -1 (cannot tell), and the number of warnings. */
void		 run_verdict_now(struct run *r, int *kept_up,
		    size_t *nwarnings);
struct hist;
struct queue_counters;
/* Has a writer been inside one librrd call for longer than limit s? */
bool		 run_stuck(struct run *r, double limit);
/* The counters now (or as the run ended). */
void		 run_counters(struct run *r, struct queue_counters *c);
/* The run's failed librrd calls by kind (errors_by_kind). */
void		 run_errors_by_kind(struct run *r,
		    uint64_t n[RRDFILE_NKINDS]);
/* Add the run's latency histograms into the given ones. */
void		 run_latency(struct run *r, struct hist *enqueue_to_persist,
		    struct hist *update_call);
/* Merge the run's fdatasync times (sync=data) into fdatasync. */
void		 run_sync_latency(struct run *r, struct hist *fdatasync);
struct rrdcc_stats;
/* target rrdcached: its STATS as of the latest sample; false if none. */
bool		 run_rrdcached_stats(const struct run *r,
		    struct rrdcc_stats *st);
const char	*run_fs_type(const struct run *r);	/* "" if unknown */
const char	*run_target_dir(const struct run *r);
/* The run's record (report.json's object), fresh; NULL before launch. */
json_object	*run_report_json(struct run *r);
/* The run object of `status`. */
json_object	*run_status_json(const struct run *r);
/* `stats` when there has been no run. */
json_object	*run_idle_stats_json(void);
/*
 * A capacity step's figures (capacity.c): the verdict of its load phase
 * by rule 2, as any run's, its candidate windows starting after settle_s,
 * and the queue, latency and CPU of the run so far (or as it ended).
 */
struct verdict;
struct run_step {
	double		 load_s;	/* the load phase so far */
	double		 queue_avg, queue_p99;	/* judged samples */
	double		 latency_p99_ms;	/* < 0: nothing written */
	double		 cpu_writers_pct;	/* of one CPU per writer */
	double		 cpu_writers_runq_pct;	/* waiting for one, each */
	double		 cpu_generators_pct;	/* per generator, on one */
	double		 cpu_generators_runq_pct;	/* waiting, each */
	double		 cpu_process_pct;	/* of all online CPUs */
	uint64_t	 dropped, failed;
};
void		 run_step_figures(struct run *r, double settle_s,
		    struct verdict *v, struct run_step *f);
/* f's CPU shares from `from` to `to` over wall s, for the knobs p. */
struct cpustat;
void		 run_step_cpu(const struct cpustat *from,
		    const struct cpustat *to, double wall,
		    const struct stress_params *p, struct run_step *f);
/* Tag the record as step `step` of capacity search `id` at rate, judged
 * as run_step_figures does with settle_s. */
void		 run_set_capacity(struct run *r, unsigned id, int step,
		    double rate, double settle_s);
/* One line for the log and systemd status. */
void		 run_summary(struct run *r, char *buf, size_t len);
void		 run_free(struct run *r);

#endif
