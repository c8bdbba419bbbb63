/*
 * A fixed-memory log-linear histogram of nanosecond durations, after the
 * idea of HdrHistogram: each power of two is cut into 2^HIST_SUB_BITS = 128
 * equal sub-buckets, so a bucket is never wider than 1/128 of its lower
 * bound and any value reported for a bucket is within 0.79% (< 1%) of
 * every value recorded in it.  Values 0 .. 255 have a bucket each (exact).
 *
 * Values up to HIST_MAX_NS (2^43 - 1 ns, about 2 h 26 min) keep that
 * bound; larger ones are clamped into the top bucket, an overflow bucket
 * whose upper bound is UINT64_MAX.  Count, min, max and mean stay exact
 * for every value, clamped or not.
 *
 * One histogram is 4737 counters plus a few words, about 37 KiB, allocated
 * once; recording allocates nothing and costs a few instructions.
 *
 * Not thread-safe: callers serialize every call on one histogram (readers
 * included) with their own lock.
 */
#ifndef STRESSD_HIST_H
#define STRESSD_HIST_H

#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS	7
#define HIST_TOP_BITS	43
#define HIST_MAX_NS	((UINT64_C(1) << HIST_TOP_BITS) - 1)
/* Buckets including the overflow one: enough room for hist_buckets(). */
#define HIST_BUCKETS	((HIST_TOP_BITS - HIST_SUB_BITS + 1) * \
			    (1 << HIST_SUB_BITS) + 1)

struct hist;

/* NULL on out of memory. */
struct hist	*hist_create(void);
void		 hist_destroy(struct hist *h);
void		 hist_reset(struct hist *h);

/* Values above HIST_MAX_NS are counted in the top bucket; 0 is counted in
 * the lowest one. */
void		 hist_record(struct hist *h, uint64_t ns);
/* Add every record of src to dst. */
void		 hist_merge(struct hist *dst, const struct hist *src);
/* Take src, an earlier state of dst (every bucket at most dst's), out of
 * dst: what dst recorded since.  Count, sum and mean stay exact; min and
 * max become the bounds of the outermost buckets left, within dst's. */
void		 hist_subtract(struct hist *dst, const struct hist *src);

uint64_t	 hist_count(const struct hist *h);
/* Exact; 0 when empty. */
uint64_t	 hist_min(const struct hist *h);
uint64_t	 hist_max(const struct hist *h);
double		 hist_mean(const struct hist *h);

/* The value at or below which p% (p in [0, 100]) of the records lie: the
 * upper bound of the bucket holding the record of rank ceil(p% of count),
 * clamped to [min, max], so never below the true value and at most 0.79%
 * above it.  p = 0 gives min, p = 100 gives max, 0 when empty. */
uint64_t	 hist_percentile(const struct hist *h, double p);

/* Fill up to max (upper bound inclusive, count) pairs of the non-empty
 * buckets in ascending order; returns how many it filled.  HIST_BUCKETS
 * pairs always suffice.  The overflow bucket's upper bound is UINT64_MAX
 * (+Inf for a Prometheus exporter). */
size_t		 hist_buckets(const struct hist *h, uint64_t *upper,
		    uint64_t *count, size_t max);

#endif
