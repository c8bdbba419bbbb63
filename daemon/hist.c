/* Log-linear latency histogram; see hist.h. */
#include <stdlib.h>
#include <string.h>

#include "hist.h"

#define SUB_COUNT	(UINT64_C(1) << HIST_SUB_BITS)
#define OVERFLOW	(HIST_BUCKETS - 1)

struct hist {
	uint64_t	n;
	uint64_t	min, max;
	uint64_t	sum_lo, sum_hi;	/* exact 128-bit sum of every value */
	uint64_t	c[HIST_BUCKETS];
};

_Static_assert(sizeof(struct hist) <= 64 * 1024, "a histogram must stay "
    "under 64 KiB");

/*
 * Bucket index of v: below 2^(SUB_BITS+1) = 256 the value itself.  Above,
 * with e = floor(log2 v) and shift = e - SUB_BITS, the top SUB_BITS+1 bits
 * m = v >> shift lie in [128, 256), and index = shift * 128 + m, which
 * continues the exact range without a gap: every power of two gets 128
 * buckets of width 2^shift.
 */
static size_t
bucket_of(uint64_t v)
{
	unsigned shift;

	if (v > HIST_MAX_NS)
		return OVERFLOW;
	if (v < 2 * SUB_COUNT)
		return (size_t)v;
	shift = 63 - (unsigned)__builtin_clzll(v) - HIST_SUB_BITS;
	return ((size_t)shift << HIST_SUB_BITS) + (size_t)(v >> shift);
}

/* Largest value that lands in bucket i. */
static uint64_t
bucket_upper(size_t i)
{
	unsigned shift;
	uint64_t m;

	if (i == OVERFLOW)
		return UINT64_MAX;
	if (i < SUB_COUNT)
		return i;
	shift = (unsigned)(i >> HIST_SUB_BITS) - 1;
	m = (i & (SUB_COUNT - 1)) + SUB_COUNT;
	return ((m + 1) << shift) - 1;
}

static void
sum_add(struct hist *h, uint64_t lo, uint64_t hi)
{
	h->sum_lo += lo;
	h->sum_hi += hi + (h->sum_lo < lo);	/* carry */
}

struct hist *
hist_create(void)
{
	/* calloc is the empty histogram: every field 0. */
	return calloc(1, sizeof(struct hist));
}

void
hist_destroy(struct hist *h)
{
	free(h);
}

void
hist_reset(struct hist *h)
{
	/* Only buckets between min's and max's can be non-zero: clearing
	 * those keeps a reset of a narrow histogram cheap. */
	if (h->n > 0) {
		size_t lo = bucket_of(h->min), hi = bucket_of(h->max);

		memset(&h->c[lo], 0, (hi - lo + 1) * sizeof(h->c[0]));
	}
	h->n = h->min = h->max = h->sum_lo = h->sum_hi = 0;
}

void
hist_record(struct hist *h, uint64_t ns)
{
	h->c[bucket_of(ns)]++;
	if (h->n == 0 || ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->n++;
	sum_add(h, ns, 0);
}

void
hist_merge(struct hist *dst, const struct hist *src)
{
	/* Copies first: dst may be src. */
	uint64_t n = src->n, min = src->min, max = src->max;
	uint64_t lo = src->sum_lo, hi = src->sum_hi;

	if (n == 0)
		return;
	for (size_t i = bucket_of(min); i <= bucket_of(max); i++)
		dst->c[i] += src->c[i];
	if (dst->n == 0 || min < dst->min)
		dst->min = min;
	if (max > dst->max)
		dst->max = max;
	dst->n += n;
	sum_add(dst, lo, hi);
}

/* Smallest value that lands in bucket i. */
static uint64_t
bucket_lower(size_t i)
{
	unsigned shift;

	if (i == OVERFLOW)
		return HIST_MAX_NS + 1;
	if (i < 2 * SUB_COUNT)
		return i;
	shift = (unsigned)(i >> HIST_SUB_BITS) - 1;
	return ((i & (SUB_COUNT - 1)) + SUB_COUNT) << shift;
}

void
hist_subtract(struct hist *dst, const struct hist *src)
{
	size_t lo, hi;

	if (src->n == 0 || dst->n == 0)
		return;
	for (size_t i = bucket_of(src->min); i <= bucket_of(src->max); i++)
		dst->c[i] -= src->c[i] < dst->c[i] ? src->c[i] : dst->c[i];
	dst->n -= src->n < dst->n ? src->n : dst->n;
	dst->sum_hi -= src->sum_hi + (dst->sum_lo < src->sum_lo);  /* borrow */
	dst->sum_lo -= src->sum_lo;
	if (dst->n == 0) {
		hist_reset(dst);
		return;
	}
	lo = bucket_of(dst->min);
	hi = bucket_of(dst->max);
	while (lo < hi && dst->c[lo] == 0)
		lo++;
	while (hi > lo && dst->c[hi] == 0)
		hi--;
	/* the records left lie in [lo, hi]: the old extremes if there */
	if (bucket_lower(lo) > dst->min)
		dst->min = bucket_lower(lo);
	if (bucket_upper(hi) < dst->max)
		dst->max = bucket_upper(hi);
}

uint64_t
hist_count(const struct hist *h)
{
	return h->n;
}

uint64_t
hist_min(const struct hist *h)
{
	return h->min;
}

uint64_t
hist_max(const struct hist *h)
{
	return h->max;
}

double
hist_mean(const struct hist *h)
{
	if (h->n == 0)
		return 0;
	return ((double)h->sum_hi * 18446744073709551616.0 +
	    (double)h->sum_lo) / (double)h->n;
}

uint64_t
hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0;
	double x;

	if (h->n == 0)
		return 0;
	if (!(p > 0))		/* NaN as well */
		return h->min;
	if (p >= 100)
		return h->max;
	/* rank = ceil(p% of n), but a product a rounding error puts just
	 * above an integer (99.9% of 1000) must not take the next record. */
	x = p * (double)h->n / 100;
	if (x >= (double)h->n)
		rank = h->n;
	else {
		rank = (uint64_t)x;
		if (x - (double)rank > x * 1e-12)
			rank++;
		if (rank < 1)
			rank = 1;
	}
	for (size_t i = bucket_of(h->min); i <= bucket_of(h->max); i++) {
		uint64_t v;

		seen += h->c[i];
		if (seen < rank)
			continue;
		v = bucket_upper(i);
		if (v < h->min)
			v = h->min;
		if (v > h->max)
			v = h->max;
		return v;
	}
	return h->max;
}

size_t
hist_buckets(const struct hist *h, uint64_t *upper, uint64_t *count,
    size_t max)
{
	size_t filled = 0;

	if (h->n == 0)
		return 0;
	for (size_t i = bucket_of(h->min); i <= bucket_of(h->max) &&
	    filled < max; i++) {
		if (h->c[i] == 0)
			continue;
		upper[filled] = bucket_upper(i);
		count[filled] = h->c[i];
		filled++;
	}
	return filled;
}
