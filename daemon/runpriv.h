/*
 * The insides of a run, shared by the files of the run module only:
 * run.c (lifecycle and the writers' hooks), runsetup.c (the setup thread),
 * runflush.c (the rrdcached target's poll and closing flush) and runview.c
 * (the JSON views and the record).  Everyone else goes through run.h.
 */
#ifndef STRESSD_RUNPRIV_H
#define STRESSD_RUNPRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "confine.h"
#include "cpustat.h"
#include "evict.h"
#include "latwin.h"
#include "mountinfo.h"
#include "proto.h"
#include "queue.h"
#include "report.h"
#include "rrdcc.h"
#include "rrdfile.h"
#include "run.h"
#include "sampler.h"
#include "writer.h"

/* Failed librrd calls, recorded by the writers' hooks under mu. */
struct run_errors {
	pthread_mutex_t		 mu;
	unsigned		 nkept;
	char			 kept[RUN_ERRORS_KEPT][1024];
	uint64_t		 kinds[RRDFILE_NKINDS]; /* errors by kind */
	/* fail_after: the current streak of failed writes (ok_seen, the
	 * writes landed as of the last tick) */
	double			 fail_since;	/* its first error; 0: none */
	double			 fail_last;	/* its last error */
	char			 fail_first[1024];
	uint64_t		 ok_seen;
	/* The first error of kind other is logged even past the kept ten:
	 * it names what the classifier (rrdfile.c) does not know yet. */
	bool			 other_logged;
};

/* Latency of writes, recorded by the writers under mu; the record copies
 * them into the scratch ones. */
struct run_latency {
	pthread_mutex_t		 mu;
	struct hist		*e2p, *call, *e2p_copy, *call_copy;
	struct hist		*fsync, *fsync_copy;	/* sync=data */
	/* e2p as of the samples, for the latency since a moment (the
	 * verdict's steady window); win_copy its scratch */
	struct latwin		 win;
	struct hist		*win_copy;
	uint64_t		 fsync_failed;
};

/* Setup (directory checks, file scan) runs in a thread of its own so the
 * event loop keeps answering; see run_prepare. */
struct run_setup {
	pthread_t		 thread;
	bool			 joinable;
	atomic_uint_fast64_t	 busy;	/* since when setup runs, 0 */
	atomic_bool		 done;
	int			 rc;
	const char		*field;
	char			 err[PROTO_MAX_RUN_ERROR];
	int			 update_fd;	/* passed by the client; -1 */
	atomic_bool		 cancel;	/* end an eviction pass early */
};

/* target rrdcached: the run's own connection (setup's INFO, the samples'
 * STATS, FLUSHALL at the end), its STATS as the run began and the latest,
 * and the flush that ends the run. */
struct run_rrdcached {
	struct rrdcc		*conn;	/* NULL: target librrd */
	struct rrdcc_stats	 start, latest;
	bool			 have_latest;
	bool			 restarted;	/* its counters went back */
	double			 retry_at;	/* monotonic s, after a
						   failure */
	double			 flush_start;	/* monotonic s; 0: not begun */
	double			 flush_polled;
	double			 flush_s;	/* -1: not done */
	bool			 flush_done;
};

/* How an until_steady run's load phase ended (rununtil.c). */
enum run_until {
	RUN_UNTIL_NOT,		/* not (yet), or no until_steady */
	RUN_UNTIL_STEADY,	/* decided by a steady window */
	RUN_UNTIL_DECIDED,	/* decided otherwise (failures, drops) */
	RUN_UNTIL_MAX,		/* until_steady s passed */
};

struct run {
	unsigned		 id;
	enum run_state		 state;
	struct stress_params	 p;
	char			 state_dir[4096];
	char			 run_dir[4200];
	char			 log_path[4300];
	char			 reason[1200];

	struct queue		*q;
	struct writer_pool	*wp;
	struct loadgen		*lg;
	struct stresslog	*sl;
	double			*replay;
	size_t			 nreplay;
	uint64_t		 missing;	/* files to create */
	struct report_baseline	 base;		/* the files at start */
	int64_t			*base_last;	/* per file: baseline.h */

	double			 start_mono, end_mono;
	/* The load phase of the verdict (verdict.h): from the load's start
	 * to the end of generation; 0: not yet. */
	double			 load_start_mono, load_end_mono;
	enum run_until		 until_ended;	/* until_steady's end */
	uint64_t		 file_bytes;	/* one file of the layout */
	uint64_t		 mem_available;	/* bytes at setup; 0: unknown */
	time_t			 start_wall, end_wall;
	bool			 stop_requested, discard;
	bool			 shutdown_discard;	/* by a shutdown */
	uint64_t		 discarded_before_shutdown;
	bool			 failed;	/* ends failed, with reason */
	bool			 launched;
	uint64_t		 generated;	/* final, once ended */
	/* The "current" rates' window: the latest sample interval, the same
	 * for every client (a stats call moves nothing). */
	struct queue_counters	 prev_sample, last_sample;
	struct queue_counters	 final;		/* frozen at the end */
	struct dist		 slog_sig;	/* stress.log's blocks, once
						   it is closed */
	struct cpustat		 cpu0, cpu1;	/* CPU at start, at the end */

	struct writer_hooks	 hooks;
	struct sampler		 sampler;
	struct mountinfo	 mount;
	bool			 have_mount;
	struct evict_result	 cold;		/* sync=drop-*caches */
	bool			 have_cold;
	bool			 cold_after_creates;	/* pass still to come */
	double			 last_report;	/* monotonic s */
	char			 metrics_path[4300];
	time_t			 metrics_last;	/* 0: not (or no longer)
						   written */

	struct run_errors	 err;
	struct run_latency	 lat;
	struct run_setup	 setup;
	struct run_rrdcached	 cc;
	/* allowed_dirs as the run began, and its directory held open from
	 * setup to the end (hooks.dir) */
	struct policy_dirs	*allowed;
	struct confine_dir	 dir;
	/* a capacity search's step: its id (0: none), step and rate */
	unsigned		 cap_id;
	int			 cap_step;
	double			 cap_rate;
	double			 cap_settle_s;	/* not judged */
};

/* The queue's counters, with the run's own share of them (run.c). */
void	run_snapshot(struct run *r, struct queue_counters *c);

/* Start the setup thread; 0, or -1 when it could not be started. */
int	runsetup_start(struct run *r);
/* sync=drop-caches with creates before the load: once they are done the
 * eviction runs in the setup thread again, so that the new files start
 * cold too.  False while it runs; true once done, or at once for other
 * runs.  cancel (a stop) ends the pass early, or skips it. */
bool	runsetup_cold_ready(struct run *r, bool cancel);

/* rrdcached's STATS into cc.latest, at most every RUN_RRDCACHED_RETRY_S
 * after a failure; 0, or -1. */
int	runflush_poll(struct run *r);
/* The closing flush: true once done waiting for it (at once without an
 * rrdcached target). */
bool	runflush_done(struct run *r);

/* until_steady: at a sample, end the load once the verdict is decided. */
void	rununtil_check(struct run *r, const struct queue_counters *c);
/* until_steady: the generators reached its limit (not stopped). */
void	rununtil_loaded(struct run *r);
/* "steady", "decided", "max", or NULL (not ended so, or no until_steady). */
const char *rununtil_name(const struct run *r);
/* The load phase's length once ended by until_steady, else -1. */
double	rununtil_after_s(const struct run *r);
/* The max_updates and update_time stats show: the knobs; with
 * until_steady, its limit while it runs, what was generated (at the same
 * rate) once it ended steady, decided or at its maximum. */
void	rununtil_plan(const struct run *r, uint64_t generated, uint64_t *max,
	    double *update_time);

/* The verdict's input for r as of now (the end of a run that ended),
 * on points in *pts (the caller frees). */
struct verdict_input;
struct steady_point;
void	runview_verdict_input(struct run *r, const struct queue_counters *c,
	    uint64_t generated, double p99_ms, double now,
	    struct verdict_input *in, struct steady_point **pts);
/* enqueue_to_persist p99 in ms, or -1 before the first write. */
double	runview_e2p_p99_ms(const struct hist *h);
/* The same of r's own histogram so far, read under its latency lock. */
double	runview_run_p99_ms(struct run *r);
/* report.json and samples.csv in the run's directory, fresh. */
void	runview_write_report(struct run *r);

#endif
