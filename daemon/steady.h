/*
 * The steady state of a run's queue: pure functions over the sampled
 * significant_ops_pending of its load phase (no I/O, no struct run), so
 * the verdict (rule 2, verdict.h) and its unit tests share them.
 *
 * A per-file coalescing queue on a slow storage fills until each write
 * carries enough values, then holds; judging the whole load phase judges
 * the fill in a short run and a blend of fill and plateau in a long one.
 * So the verdict judges from where the queue became steady:
 *
 *  - the load phase is [A, B], L = B - A long; the candidate windows are
 *    [A + k L / STEADY_STEPS, B] for k = 0 .. STEADY_CANDIDATES - 1, the
 *    earliest first;
 *  - a window needs STEADY_MIN_SAMPLES samples;
 *  - its trend is the least-squares line through STEADY_BATCHES batch
 *    means (the samples of a queue are strongly autocorrelated: batch
 *    means keep the standard error honest), its 95 % interval
 *    slope +/- STEADY_T x stderr;
 *  - it is steady when what that interval lets the queue move over the
 *    window, (slope +/- t se) x W (W its length), stays within +/- tol,
 *    tol = max(STEADY_LEVEL_SHARE x level, STEADY_FILES_SHARE x files,
 *    rate x dt, STEADY_FLOOR) values, level the window's mean, rate the
 *    offered updates/s: a drift of rate x dt values moves the values'
 *    latency by one sample interval (Little's law, latency = queue /
 *    rate), finer than the samples resolve (a fast load's queue swings
 *    by hundreds of values between samples);
 *  - and the upper end of its slope's interval is at most the larger
 *    of rate x bound / STEADY_HORIZON_S (a growth that moves the values'
 *    latency by less than the bound in an hour) and the level's
 *    tolerance (the above less the files' share) over L (a rise it
 *    holds over the whole load phase): a window may be within its
 *    tolerance and still rise too fast (1 % of 4,000 files is 40
 *    values, 0.37 values/s for 100 s), while a near-empty queue's trend
 *    over a few seconds cannot be told within the hundredth of a value
 *    per second an hour would ask;
 *  - the earliest steady window wins: the fill is what came before it.
 *
 * When none is steady, why_not comes from the last window with enough
 * samples (the most recent state): filling (the interval is all above 0:
 * surely rising), emptying (all below), noisy (it holds 0 but is wider
 * than the tolerance), or short (no window had enough samples); need_s is how long a run would need,
 * ceil(max(4/3 L, L + 30 dt, 120 dt)): a fill still going at B ends by
 * B in a run 4/3 as long, whose last candidate starts at B.
 */
#ifndef STRESSD_STEADY_H
#define STRESSD_STEADY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STEADY_STEPS		20	/* candidate starts every L / 20 */
#define STEADY_CANDIDATES	16	/* k = 0 .. 15: up to 3/4 L */
#define STEADY_MIN_SAMPLES	30
#define STEADY_BATCHES		10
#define STEADY_T		2.306	/* t(0.975, 8 degrees of freedom) */
#define STEADY_LEVEL_SHARE	0.10
#define STEADY_FILES_SHARE	0.01
#define STEADY_FLOOR		10.0	/* values */
#define STEADY_HORIZON_S	3600.0	/* for the growth: an hour */

/* What the queue serves: its files, the offered updates/s and the
 * latency bound in s (rate 0: not known, no rate terms). */
struct steady_load {
	uint64_t	files;
	double		rate, bound_s;
};

/* One sample: seconds since the run began, significant_ops_pending. */
struct steady_point {
	double	t;
	double	y;
};

struct steady_stats {
	size_t	n;
	double	mean, min, max;
};

struct steady_line {
	bool	ok;		/* false: too few points or one instant */
	double	slope, se;	/* values/s */
};

enum steady_why {
	STEADY_FOUND,
	STEADY_FILLING,
	STEADY_EMPTYING,
	STEADY_NOISY,
	STEADY_SHORT,
};

struct steady {
	bool		 found;
	enum steady_why	 why_not;	/* STEADY_FOUND when found */
	/* the steady window (found), else the last one judged */
	double		 from_s, to_s, fill_s;
	size_t		 samples;
	double		 level, min, max, tolerance;
	struct steady_line line;
	double		 need_s;	/* !found: run at least this long */
};

/* The samples of pts[0..n) with from <= t <= to: [*i0, *i1). */
void	steady_span(const struct steady_point *pts, size_t n, double from,
	    double to, size_t *i0, size_t *i1);
/* Mean, min and max of pts[0..n). */
void	steady_range(const struct steady_point *pts, size_t n,
	    struct steady_stats *s);
/* The line through STEADY_BATCHES batch means of pts[0..n) (n at least
 * STEADY_BATCHES, else !ok). */
void	steady_trend(const struct steady_point *pts, size_t n,
	    struct steady_line *l);
/* The steady window of the load phase [a, b] sampled every dt s. */
void	steady_find(const struct steady_point *pts, size_t n, double a,
	    double b, double dt, const struct steady_load *load,
	    struct steady *s);
/* "filling", "emptying", "noisy", "short"; NULL when found. */
const char *steady_why_name(enum steady_why w);

#endif
