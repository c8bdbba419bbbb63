/*
 * The keep-up verdict (rule 1) and the warnings of a run: pure functions
 * over its sampled significant_ops_pending and a few counts, with no
 * knowledge of struct run, so that the capacity search can judge each of
 * its steps with the same rule.  man stressd(8) "THE VERDICT" states the
 * rule in words; the constants below are its thresholds.
 *
 * The rule, in order (the first that applies decides):
 *  1. failed > 0 (update values or creates that failed): fell behind;
 *     cannot tell when every error is of kind denied (a setup problem).
 *  2. update_time 0 (flat out): cannot tell.
 *  3. dropped > 0 (refused at a high-water mark): fell behind.
 *  4. enqueue_to_persist p99 > latency bound: fell behind.
 *  5. the pace: generator_waits > 0 (held at queue_memory_max): fell
 *     behind; else generation later than update_time x generated /
 *     max_updates by over VERDICT_LATE_SHARE (and VERDICT_LATE_MIN_S):
 *     without a queue (use_queue false) fell behind, with one cannot
 *     tell (the generators, not the storage, missed the rate: CPU).
 *  6. fewer than VERDICT_MIN_SAMPLES samples in the load phase (from the
 *     load's start plus a settle of VERDICT_SETTLE of its length, to the
 *     end of generation; the drain is not in it): cannot tell.
 *  7. use_queue false: kept up (the pace was kept).  Else the trend:
 *     the samples of the load phase cut into VERDICT_BATCHES consecutive
 *     groups of (nearly) equal count, each averaged (elapsed
 *     s, significant_ops_pending), a least-squares line through those
 *     means.  Batch means make the standard error honest for the
 *     strongly autocorrelated samples of a queue, as long as a group is
 *     longer than the queue's cycles.  Groups are of equal count, not
 *     of equal time: once the sampler thins its older half (past
 *     SAMPLER_KEEP samples) the older groups span more time; the fit of
 *     a steady trend is still unbiased, only its weight leans to the
 *     recent samples, and samples.csv (thinned alike) checks by hand.
 *     The 95 % interval is slope +/- VERDICT_T x stderr (Student t,
 *     VERDICT_BATCHES - 2 degrees of freedom).  The threshold of a
 *     material backlog is max(VERDICT_FLOOR, VERDICT_FILES_SHARE x
 *     files) values in one hour (no share of the offered rate: that
 *     called a short run's queue growing 9 values/s "kept up"):
 *     lower bound x 3600 above it: fell behind; upper bound x 3600 below
 *     it: kept up ("grew by" when the lower bound is over 0, else
 *     "stayed bounded"); else cannot tell (the interval straddles it).
 *
 * Early answers (the capacity search): call verdict_compute on the
 * samples so far at any time; verdict_settled tells whether more samples
 * of the same load could still change kept_up.
 */
#ifndef STRESSD_VERDICT_H
#define STRESSD_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#define VERDICT_RULE		1
#define VERDICT_MIN_SAMPLES	30	/* in the load phase */
#define VERDICT_BATCHES		10
#define VERDICT_T		2.306	/* t(0.975, 8 degrees of freedom) */
#define VERDICT_SETTLE		0.10	/* of the load phase, skipped */
#define VERDICT_MIN_INTERVAL	0.1	/* the sample_interval knob's least */
#define VERDICT_FLOOR		1000.0	/* values in 1 h */
#define VERDICT_FILES_SHARE	0.10	/* of files, values in 1 h */
/* generation this share of its schedule late (and VERDICT_LATE_MIN_S
 * at least, for the first seconds of a live verdict) is behind */
#define VERDICT_LATE_SHARE	0.05
#define VERDICT_LATE_MIN_S	0.5
/* no_queue: at most this share of the load phase's samples over 1 */
#define VERDICT_NO_QUEUE_SHARE	0.05

/* One sample: seconds since the run began, significant_ops_pending. */
struct verdict_point {
	double	t;
	double	y;
};

struct verdict_input {
	const struct verdict_point *pts;	/* in time order */
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
	/* > 0: a capacity step's bound on the trend, values/s, in place of
	 * the material backlog in 1 h (a step is too short to project an
	 * hour: it asks whether the storage wrote all but this much) */
	double		 growth_bound_per_s;
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
	VERDICT_BY_TREND_UP,		/* fell behind */
	VERDICT_BY_TREND_BOUNDED,	/* kept up */
	VERDICT_BY_TREND_UNSURE,	/* cannot tell */
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
	enum verdict_cause cause;
	char		 reason[600];
	double		 from_s, to_s;	/* the load phase after the settle */
	size_t		 samples;	/* in it */
	bool		 have_slope;
	double		 slope, se, backlog_1h;	/* values/s, values */
	double		 threshold;	/* a material backlog in 1 h */
	double		 growth_bound_per_s;	/* > 0: a capacity step's */
	double		 max_y;		/* the largest sample in the phase */
	size_t		 load_samples;	/* in the whole load phase */
	size_t		 queued;	/* of them, those over 1 */
	double		 latency_p99_ms, latency_bound_ms;
	uint64_t	 dropped, failed;
	bool		 stopped_early;
	unsigned	 warnings;	/* 1 << enum verdict_warning */
};

/* The verdict and warnings of in into *v. */
void	verdict_compute(const struct verdict_input *in, struct verdict *v);
/* Whether more samples of the same load could still change v->kept_up:
 * false for failures and drops (counts only grow) and flat out; after
 * twice VERDICT_MIN_SAMPLES also for a latency over its bound and for a
 * trend whose interval clears the threshold by a factor of two (lower
 * bound over twice it, or upper bound under half of it); true otherwise. */
bool	verdict_may_change(const struct verdict *v);
/* The contract's "verdict" object. */
json_object	*verdict_json(const struct verdict *v);
/* The contract's "warnings" array: a code and a sentence each. */
json_object	*verdict_warnings_json(const struct verdict *v,
	    const struct verdict_input *in);
/* The code of warning w ("few_samples", ...). */
const char	*verdict_warning_code(enum verdict_warning w);

#endif
