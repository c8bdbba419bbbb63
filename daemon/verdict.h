/*
 * The keep-up verdict and the warnings of a run: pure functions over its
 * sampled significant_ops_pending and a few counts, with no knowledge of
 * struct run, so that the capacity search judges each of its steps
 * with the same rule as any run (issue 23: one rule, one wording).
 * man stressd(8) "THE VERDICT" states the rule in words; the constants
 * below (and steady.h's) are its thresholds.
 *
 * Rule 2 (a run, a capacity step), in order (the first that applies
 * decides):
 *  1. failed > 0 (update values or creates that failed): fell behind;
 *     cannot tell when every error is of kind denied (a setup problem).
 *  2. update_time 0 (flat out): cannot tell.
 *  3. dropped > 0 (refused at a high-water mark): fell behind.
 *  4. enqueue_to_persist p99 over the whole run > latency bound (by
 *     default one RRD step): fell behind.
 *  5. the pace: generator_waits > 0 (held at queue_memory_max): fell
 *     behind; else generation later than update_time x generated /
 *     max_updates by over VERDICT_LATE_SHARE (and VERDICT_LATE_MIN_S):
 *     without a queue (use_queue false) fell behind, with one cannot
 *     tell (the generators, not the storage, missed the rate: CPU).
 *  6. fewer than VERDICT_MIN_SAMPLES samples in the load phase (from the
 *     load's start to the end of generation; the drain is not in it):
 *     cannot tell.
 *  7. use_queue false: kept up (the pace was kept).  Else the steady
 *     window of the load phase (steady.h): none found, cannot tell, with
 *     why (filling, emptying, noisy) and how long a run would need;
 *     found, kept up when enqueue_to_persist p99 of the values persisted
 *     in it (latency_since) is within the bound, else fell behind.
 *
 * Rule 1 (a capacity step's trend against a bound on growth, which let
 * a slowly growing queue keep up) is gone; records of it still read
 * ("rule": 1) in stressctl.  A capacity step's settle (settle_s) is not
 * judged: its steady windows start after it.
 *
 * Early answers (the capacity search, until_steady): call
 * verdict_compute on the samples so far at any time; verdict_decided
 * tells whether it is decided (verdict_may_change: whether more samples
 * of the same load could still change a count's kept_up).
 */
#ifndef STRESSD_VERDICT_H
#define STRESSD_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "steady.h"

#define VERDICT_RULE_STEADY	2	/* 1 was the trend, gone */
#define VERDICT_MIN_SAMPLES	STEADY_MIN_SAMPLES	/* in the load phase */
#define VERDICT_T		STEADY_T
#define VERDICT_MIN_INTERVAL	0.1	/* the sample_interval knob's least */
/* A load ended early (until_steady, a capacity step) on a steady window
 * only after this long, or its maximum if sooner: a window of a few
 * seconds holds none of the kernel's periodic writeback (dirty expiry
 * 30 s, ext4's commit 5 s) and too little of a slow rise. */
#define VERDICT_WINDOW_MIN_LOAD_S	30.0
/* generation this share of its schedule late (and VERDICT_LATE_MIN_S
 * at least, for the first seconds of a live verdict) is behind */
#define VERDICT_LATE_SHARE	0.05
#define VERDICT_LATE_MIN_S	0.5
/* no_queue: at most this share of the load phase's samples over 1 */
#define VERDICT_NO_QUEUE_SHARE	0.05

struct verdict_input {
	const struct steady_point *pts;	/* in time order */
	size_t		 npts;
	/* The load phase in elapsed s: from the load's start to the end of
	 * generation (or now).  from_s < 0: the load never started. */
	double		 load_from_s, load_to_s;
	uint64_t	 files;
	uint64_t	 dropped, failed;
	bool		 stopped_early;		/* ended before max_updates */
	uint64_t	 generated, max_updates;	/* for its reason */
	bool		 flat_out;		/* update_time 0 */
	/* the pace: generation's schedule and what held it back */
	double		 update_time;		/* s; 0: no schedule to keep */
	bool		 no_queue;		/* use_queue false: direct writes */
	uint64_t	 generator_waits;	/* at queue_memory_max */
	double		 generator_wait_s;	/* summed over generators */
	uint64_t	 errors, denied;	/* errors, those of kind denied */
	double		 latency_p99_ms;	/* < 0: nothing written yet */
	double		 latency_bound_ms;
	/* rule 2: enqueue_to_persist of the values persisted since t s
	 * (the steady window): p50 and p99 in ms and *from_s, where the
	 * histogram it had begins (at or before t); false when none was
	 * persisted since.  NULL: the whole run's p99 stands for it. */
	bool		(*latency_since)(void *arg, double t, double *from_s,
		    double *p50_ms, double *p99_ms);
	void		*latency_arg;
	/* of the enqueued updates, the share of significant (non-zero)
	 * ones, the values significant_ops_pending counts; 0: not known,
	 * taken as 1 */
	double		 significant_share;
	/* s after the load's start that no steady window judges (a
	 * capacity step's settle); the pace still counts from the start */
	double		 settle_s;
	/* warnings */
	double		 sample_interval;
	bool		 sync_none;
	uint64_t	 run_bytes;		/* files x file size; 0: unknown */
	uint64_t	 mem_available;		/* bytes at setup; 0: unknown */
};

/* Why kept_up is what it is. */
enum verdict_cause {
	VERDICT_BY_FAILED,
	VERDICT_BY_REFUSED,		/* failed, all denied: cannot tell */
	VERDICT_BY_FLAT_OUT,
	VERDICT_BY_DROPPED,
	VERDICT_BY_LATENCY,
	VERDICT_BY_WAITS,		/* generators held at the bound */
	VERDICT_BY_BEHIND,		/* direct writes off their pace */
	VERDICT_BY_GENERATORS,		/* generators off their pace */
	VERDICT_BY_FEW_SAMPLES,
	VERDICT_BY_PACE_KEPT,		/* no queue, the pace kept: kept up */
	VERDICT_BY_STEADY,		/* steady, latency within the bound */
	VERDICT_BY_STEADY_LATE,		/* steady, latency past it */
	VERDICT_BY_FILLING,		/* no steady window: cannot tell */
	VERDICT_BY_EMPTYING,
	VERDICT_BY_NOISY,
};

/* Warnings, as bits of struct verdict's warnings. */
enum verdict_warning {
	VERDICT_W_FEW_SAMPLES,
	VERDICT_W_FLAT_OUT,
	VERDICT_W_PAGE_CACHE,
	VERDICT_W_NO_QUEUE,
	VERDICT_NWARNINGS
};

struct verdict {
	int		 kept_up;	/* 1 true, 0 false, -1 cannot tell */
	int		 rule;
	enum verdict_cause cause;
	char		 reason[600];
	/* the load phase, and its start no window judges */
	double		 from_s, to_s, settle_s;
	size_t		 samples;	/* in it */
	bool		 have_slope;	/* the steady window's trend */
	double		 slope, se;	/* values/s */
	double		 max_y;		/* the largest sample in the phase */
	size_t		 load_samples;	/* in the whole load phase */
	size_t		 queued;	/* of them, those over 1 */
	double		 latency_p99_ms, latency_bound_ms;
	uint64_t	 dropped, failed;
	bool		 stopped_early;
	unsigned	 warnings;	/* 1 << enum verdict_warning */
	/* rule 2: the steady window and the latency in it */
	struct steady	 steady;
	bool		 have_window_latency;
	double		 window_from_s, window_p50_ms, window_p99_ms;
};

/* The verdict and warnings of in into *v. */
void	verdict_compute(const struct verdict_input *in, struct verdict *v);
/* Whether more samples of the same load could still change v->kept_up:
 * false for failures and drops (counts only grow) and flat out; after
 * twice VERDICT_MIN_SAMPLES also for a latency over its bound and for a
 * pace kept without a queue; true otherwise. */
bool	verdict_may_change(const struct verdict *v);
/* until_steady's stop: v decided (kept up or fell behind) by a steady
 * window (rule 2, step 7), or by anything more samples of the same load
 * cannot change (verdict_may_change false). */
bool	verdict_decided(const struct verdict *v);
/* Whether a steady window (rule 2, step 7) decided v. */
bool	verdict_by_window(const struct verdict *v);
/* Whether a load that may last max_s s, sampled every dt s, may end
 * after load_s s on v: decided, and by a window only once
 * VERDICT_WINDOW_MIN_LOAD_S passed (or the last sample before max_s,
 * 1.5 intervals before it, if sooner).  until_steady and a capacity
 * step end so. */
bool	verdict_may_end_load(const struct verdict *v, double load_s,
	    double max_s, double dt);
/* The contract's "verdict" object. */
json_object	*verdict_json(const struct verdict *v);
/* Its "steady" object (rule 2's window, or why there is none). */
json_object	*verdict_steady_json(const struct verdict *v);
/* The contract's "warnings" array: a code and a sentence each. */
json_object	*verdict_warnings_json(const struct verdict *v,
	    const struct verdict_input *in);
/* The code of warning w ("few_samples", ...). */
const char	*verdict_warning_code(enum verdict_warning w);

#endif
