/* Unit tests of daemon/hist.c.  Expected bucket bounds are worked out by
 * hand from the scheme in hist.h: above 255, a value v with
 * e = floor(log2 v) sits in a bucket of width 2^(e-7) aligned on it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "hist.h"

static struct hist *
new_hist(void)
{
	struct hist *h = hist_create();

	assert_non_null(h);
	return h;
}

/* Reported r for true v: never below it, at most 1% above it. */
static void
assert_within_1pct(uint64_t r, uint64_t v)
{
	assert_true(r >= v);
	assert_true((r - v) * 100 <= v);
}

static void
assert_mean_near(const struct hist *h, double expect)
{
	double m = hist_mean(h), d = m - expect;

	assert_true((d < 0 ? -d : d) <= expect * 1e-12);
}

/* Deterministic pseudo-random values, log-spread over 0 .. 2 s. */
static uint64_t
lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (*s >> 33) >> (*s % 31);
}

static void
assert_empty(const struct hist *h)
{
	uint64_t up[4], cnt[4];

	assert_int_equal(hist_count(h), 0);
	assert_int_equal(hist_min(h), 0);
	assert_int_equal(hist_max(h), 0);
	assert_true(hist_mean(h) == 0.0);
	assert_int_equal(hist_percentile(h, 0), 0);
	assert_int_equal(hist_percentile(h, 50), 0);
	assert_int_equal(hist_percentile(h, 100), 0);
	assert_int_equal(hist_buckets(h, up, cnt, 4), 0);
}

static void
test_empty(void **state)
{
	struct hist *h = new_hist();

	(void)state;
	assert_empty(h);
	hist_destroy(h);
	hist_destroy(NULL);
}

static void
test_reset(void **state)
{
	struct hist *h = new_hist();
	uint64_t up[4], cnt[4];

	(void)state;
	for (uint64_t v = 1000; v < 100000000; v *= 3)
		hist_record(h, v);
	hist_record(h, UINT64_MAX);
	hist_reset(h);
	assert_empty(h);
	/* Usable again, min not stuck at the old 1000 or at 0. */
	hist_record(h, 5000);
	assert_int_equal(hist_min(h), 5000);
	assert_int_equal(hist_max(h), 5000);
	assert_int_equal(hist_buckets(h, up, cnt, 4), 1);
	assert_int_equal(cnt[0], 1);
	hist_destroy(h);
}

static void
test_one_sample(void **state)
{
	static const double ps[] = { 0, 0.001, 1, 25, 50, 90, 99.9, 100 };
	struct hist *h = new_hist();
	uint64_t up[4], cnt[4];

	(void)state;
	hist_record(h, 12345);
	assert_int_equal(hist_count(h), 1);
	assert_int_equal(hist_min(h), 12345);
	assert_int_equal(hist_max(h), 12345);
	assert_true(hist_mean(h) == 12345.0);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		assert_int_equal(hist_percentile(h, ps[i]), 12345);
	/* e = 13, width 64: 12345 is in [12288, 12351]. */
	assert_int_equal(hist_buckets(h, up, cnt, 4), 1);
	assert_int_equal(up[0], 12351);
	assert_int_equal(cnt[0], 1);
	hist_destroy(h);
}

static void
test_zero(void **state)
{
	struct hist *h = new_hist();
	uint64_t up[4], cnt[4];

	(void)state;
	hist_record(h, 0);
	hist_record(h, 0);
	hist_record(h, 7);
	assert_int_equal(hist_count(h), 3);
	assert_int_equal(hist_min(h), 0);
	assert_int_equal(hist_max(h), 7);
	assert_int_equal(hist_percentile(h, 50), 0);
	assert_int_equal(hist_percentile(h, 67), 7);
	assert_int_equal(hist_buckets(h, up, cnt, 4), 2);
	assert_int_equal(up[0], 0);
	assert_int_equal(cnt[0], 2);
	assert_int_equal(up[1], 7);
	assert_int_equal(cnt[1], 1);
	hist_destroy(h);
}

static void
test_all_equal(void **state)
{
	struct hist *h = new_hist();
	uint64_t up[4], cnt[4];

	(void)state;
	for (int i = 0; i < 1000; i++)
		hist_record(h, 777);
	assert_int_equal(hist_count(h), 1000);
	assert_int_equal(hist_min(h), 777);
	assert_int_equal(hist_max(h), 777);
	assert_true(hist_mean(h) == 777.0);
	assert_int_equal(hist_percentile(h, 0), 777);
	assert_int_equal(hist_percentile(h, 50), 777);
	assert_int_equal(hist_percentile(h, 99.99), 777);
	assert_int_equal(hist_percentile(h, 100), 777);
	/* e = 9, width 4: [776, 779]. */
	assert_int_equal(hist_buckets(h, up, cnt, 4), 1);
	assert_int_equal(up[0], 779);
	assert_int_equal(cnt[0], 1000);
	hist_destroy(h);
}

static void
test_one_to_thousand(void **state)
{
	struct hist *h = new_hist();

	(void)state;
	for (uint64_t v = 1; v <= 1000; v++)
		hist_record(h, v);
	assert_int_equal(hist_count(h), 1000);
	assert_int_equal(hist_min(h), 1);
	assert_int_equal(hist_max(h), 1000);
	assert_true(hist_mean(h) == 500.5);
	assert_within_1pct(hist_percentile(h, 50), 500);
	assert_within_1pct(hist_percentile(h, 90), 900);
	assert_within_1pct(hist_percentile(h, 99), 990);
	assert_within_1pct(hist_percentile(h, 99.9), 999);
	/* The bucket upper bounds: 500 in [500, 501], 900 in [900, 903],
	 * 990 in [988, 991], 999 in [996, 999]. */
	assert_int_equal(hist_percentile(h, 50), 501);
	assert_int_equal(hist_percentile(h, 90), 903);
	assert_int_equal(hist_percentile(h, 99), 991);
	assert_int_equal(hist_percentile(h, 99.9), 999);
	/* Ranks 1 and 100 are exact (one bucket per value below 256). */
	assert_int_equal(hist_percentile(h, 0.1), 1);
	/* 16.1 * 1000 / 100 is 161.00000000000003 in doubles: still rank 161. */
	assert_int_equal(hist_percentile(h, 16.1), 161);
	assert_int_equal(hist_percentile(h, 10), 100);
	assert_int_equal(hist_percentile(h, 0), 1);
	assert_int_equal(hist_percentile(h, 100), 1000);
	hist_destroy(h);
}

static void
test_wide_range(void **state)
{
	static const uint64_t v[] = { 1, 1000, 1000000, 1000000000,
	    3600000000000ULL };
	struct hist *h = new_hist();

	(void)state;
	for (size_t i = 0; i < 5; i++)
		hist_record(h, v[i]);
	assert_int_equal(hist_min(h), 1);
	assert_int_equal(hist_max(h), 3600000000000ULL);
	assert_mean_near(h, 3601001001001.0 / 5);
	/* p = 20k% is rank k; a hair above takes the next one. */
	assert_int_equal(hist_percentile(h, 20), 1);
	assert_int_equal(hist_percentile(h, 20.5), 1003);	/* [1000, 1003] */
	assert_within_1pct(hist_percentile(h, 40), 1000);
	assert_within_1pct(hist_percentile(h, 60), 1000000);
	assert_within_1pct(hist_percentile(h, 80), 1000000000);
	assert_within_1pct(hist_percentile(h, 90), 3600000000000ULL);
	/* The last bucket's upper bound clamps to the exact max. */
	assert_int_equal(hist_percentile(h, 90), 3600000000000ULL);
	hist_destroy(h);
}

/* v recorded beside a far larger value: rank 1 then reports v's bucket
 * bound (alone, the clamp to [min, max] would hide any bucket error). */
static void
check_error(struct hist *h, uint64_t v)
{
	uint64_t up[2], cnt[2];

	hist_reset(h);
	hist_record(h, v);
	hist_record(h, HIST_MAX_NS);
	assert_within_1pct(hist_percentile(h, 50), v);
	if (v < 256)
		assert_int_equal(hist_percentile(h, 50), v);
	if (v == HIST_MAX_NS)
		return;
	assert_int_equal(hist_buckets(h, up, cnt, 2), 2);
	assert_within_1pct(up[0], v);
	/* Alone, too. */
	hist_reset(h);
	hist_record(h, v);
	assert_int_equal(hist_percentile(h, 50), v);
}

static void
test_error_sweep(void **state)
{
	struct hist *h = new_hist();
	unsigned n = 0;

	(void)state;
	for (uint64_t v = 0; v <= 70000; v++)
		check_error(h, v);
	for (double x = 1; x <= 1e12; x *= 1.0007, n++)
		check_error(h, (uint64_t)x);
	assert_true(n > 39000);
	/* Both sides of every power of two, the widest relative buckets. */
	for (int k = 1; k <= HIST_TOP_BITS; k++) {
		uint64_t p2 = UINT64_C(1) << k;

		check_error(h, p2 - 1);
		if (p2 <= HIST_MAX_NS)
			check_error(h, p2);
		if (p2 < HIST_MAX_NS)
			check_error(h, p2 + 1);
	}
	check_error(h, 3600000000000ULL);	/* 1 hour */
	hist_destroy(h);
}

static void
test_clamp(void **state)
{
	struct hist *h = new_hist();
	uint64_t up[4], cnt[4];
	double sum;

	(void)state;
	hist_record(h, HIST_MAX_NS);
	hist_record(h, HIST_MAX_NS + 1);
	hist_record(h, 10000000000000ULL);
	hist_record(h, UINT64_MAX);
	assert_int_equal(hist_count(h), 4);
	assert_int_equal(hist_min(h), HIST_MAX_NS);
	assert_int_equal(hist_max(h), UINT64_MAX);
	/* The sum passes 2^64: a 64-bit one would wrap to ~2.6e13. */
	sum = (double)HIST_MAX_NS * 2 + 1 + 1e13 + 18446744073709551615.0;
	assert_mean_near(h, sum / 4);
	/* The top regular bucket ends at HIST_MAX_NS; the rest overflow. */
	assert_int_equal(hist_buckets(h, up, cnt, 4), 2);
	assert_int_equal(up[0], HIST_MAX_NS);
	assert_int_equal(cnt[0], 1);
	assert_int_equal(up[1], UINT64_MAX);
	assert_int_equal(cnt[1], 3);
	assert_int_equal(hist_percentile(h, 25), HIST_MAX_NS);
	assert_int_equal(hist_percentile(h, 50), UINT64_MAX);
	/* Overflow alone: percentiles clamp to the exact max. */
	hist_reset(h);
	hist_record(h, HIST_MAX_NS + 5);
	hist_record(h, HIST_MAX_NS + 9);
	assert_int_equal(hist_percentile(h, 50), HIST_MAX_NS + 9);
	assert_int_equal(hist_percentile(h, 0), HIST_MAX_NS + 5);
	hist_destroy(h);
}

static void
assert_same(const struct hist *a, const struct hist *b)
{
	static uint64_t ua[HIST_BUCKETS], ca[HIST_BUCKETS];
	static uint64_t ub[HIST_BUCKETS], cb[HIST_BUCKETS];
	size_t na, nb;

	assert_int_equal(hist_count(a), hist_count(b));
	assert_int_equal(hist_min(a), hist_min(b));
	assert_int_equal(hist_max(a), hist_max(b));
	assert_true(hist_mean(a) == hist_mean(b));
	for (double p = 0; p <= 100; p += 0.5)
		assert_int_equal(hist_percentile(a, p), hist_percentile(b, p));
	na = hist_buckets(a, ua, ca, HIST_BUCKETS);
	nb = hist_buckets(b, ub, cb, HIST_BUCKETS);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(ua[i], ub[i]);
		assert_int_equal(ca[i], cb[i]);
	}
}

static void
test_merge(void **state)
{
	struct hist *a = new_hist(), *b = new_hist(), *all = new_hist();
	struct hist *empty = new_hist(), *copy = new_hist();
	uint64_t s = 42;

	(void)state;
	for (int i = 0; i < 5000; i++) {
		uint64_t v = lcg(&s) + 10;

		hist_record(i % 3 ? a : b, v);
		hist_record(all, v);
	}
	hist_record(b, 3);		/* b holds the min */
	hist_record(all, 3);
	hist_record(a, UINT64_MAX);	/* a the max, in overflow */
	hist_record(all, UINT64_MAX);
	hist_merge(a, b);
	assert_same(a, all);
	/* An empty source changes nothing. */
	hist_merge(a, empty);
	assert_same(a, all);
	/* Into an empty one: a copy, min taken from the source, not 0. */
	hist_merge(copy, all);
	assert_same(copy, all);
	assert_int_equal(hist_min(copy), 3);
	hist_destroy(a);
	hist_destroy(b);
	hist_destroy(all);
	hist_destroy(empty);
	hist_destroy(copy);
}

static void
test_buckets(void **state)
{
	static uint64_t up[HIST_BUCKETS], cnt[HIST_BUCKETS];
	struct hist *h = new_hist();
	uint64_t s = 7, total = 0, u3[3], c3[3];
	size_t n;

	(void)state;
	/* Hand-computed: 300 is in [300, 301]. */
	hist_record(h, 1);
	hist_record(h, 2);
	hist_record(h, 1);
	hist_record(h, 301);
	hist_record(h, 300);
	assert_int_equal(hist_buckets(h, up, cnt, HIST_BUCKETS), 3);
	assert_int_equal(up[0], 1);
	assert_int_equal(cnt[0], 2);
	assert_int_equal(up[1], 2);
	assert_int_equal(cnt[1], 1);
	assert_int_equal(up[2], 301);
	assert_int_equal(cnt[2], 2);
	assert_int_equal(hist_buckets(h, up, cnt, 0), 0);

	for (int i = 0; i < 100000; i++)
		hist_record(h, lcg(&s));
	hist_record(h, UINT64_MAX);
	n = hist_buckets(h, up, cnt, HIST_BUCKETS);
	assert_true(n > 1000);
	for (size_t i = 0; i < n; i++) {
		assert_true(cnt[i] > 0);
		if (i > 0)
			assert_true(up[i] > up[i - 1]);
		total += cnt[i];
	}
	assert_int_equal(total, hist_count(h));
	assert_int_equal(up[n - 1], UINT64_MAX);
	assert_true(up[n - 1] >= hist_max(h));
	assert_true(up[0] >= hist_min(h));
	/* A short array gets the first buckets. */
	assert_int_equal(hist_buckets(h, u3, c3, 3), 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(u3[i], up[i]);
		assert_int_equal(c3[i], cnt[i]);
	}
	hist_destroy(h);
}

/* What a histogram recorded since an earlier copy of itself. */
static void
test_subtract(void **state)
{
	struct hist *h = new_hist(), *then = new_hist();

	(void)state;
	for (uint64_t v = 1; v <= 1000; v++) {
		hist_record(h, v * 1000);
		if (v == 500)
			hist_merge(then, h);
	}
	hist_subtract(h, then);
	assert_int_equal(hist_count(h), 500);
	assert_mean_near(h, 750500);	/* mean of 501,000 .. 1,000,000 */
	assert_true(hist_max(h) == 1000000);
	/* min: the lower bound of 501,000's bucket, within 1 % of it */
	assert_true(hist_min(h) <= 501000 && hist_min(h) * 101 >= 501000 * 100);
	assert_within_1pct(hist_percentile(h, 50), 750000);
	assert_within_1pct(hist_percentile(h, 99), 995000);
	/* all of it: empty, and records again as new */
	hist_subtract(h, h);
	assert_int_equal(hist_count(h), 0);
	assert_int_equal(hist_max(h), 0);
	hist_record(h, 7);
	assert_int_equal(hist_min(h), 7);
	assert_int_equal(hist_count(h), 1);
	/* nothing taken out: unchanged */
	hist_reset(then);
	hist_subtract(h, then);
	assert_int_equal(hist_count(h), 1);
	hist_destroy(h);
	hist_destroy(then);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_one_sample),
		cmocka_unit_test(test_zero),
		cmocka_unit_test(test_all_equal),
		cmocka_unit_test(test_one_to_thousand),
		cmocka_unit_test(test_wide_range),
		cmocka_unit_test(test_error_sweep),
		cmocka_unit_test(test_clamp),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_subtract),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
