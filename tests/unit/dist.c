/* Unit tests of daemon/dist.c: the queue-depth distribution maths, with
 * hand-computed expectations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "dist.h"

static void
test_empty(void **state)
{
	struct dist d;
	json_object *j;

	(void)state;
	dist_init(&d);
	assert_true(dist_average(&d) == 0);
	assert_int_equal(dist_percentile(&d, 50), 0);
	j = dist_to_json(&d);
	assert_int_equal(json_object_array_length(
	    json_object_object_get(j, "histogram")), 0);
	json_object_put(j);
	dist_free(&d);
}

static void
test_one_sample(void **state)
{
	struct dist d;

	(void)state;
	dist_init(&d);
	dist_add(&d, 7);
	assert_true(dist_average(&d) == 7.0);
	assert_int_equal(d.min, 7);
	assert_int_equal(d.max, 7);
	assert_int_equal(dist_percentile(&d, 0), 7);
	assert_int_equal(dist_percentile(&d, 50), 7);
	assert_int_equal(dist_percentile(&d, 99), 7);
	assert_int_equal(dist_percentile(&d, 100), 7);
	dist_free(&d);
}

static void
test_all_equal(void **state)
{
	struct dist d;

	(void)state;
	dist_init(&d);
	for (int i = 0; i < 1000; i++)
		dist_add(&d, 3);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.e[0].count, 1000);
	assert_true(dist_average(&d) == 3.0);
	assert_int_equal(dist_percentile(&d, 90), 3);
	dist_free(&d);
}

/* The example of the issue: a person's tabulation of queue depths. */
static void
test_tabulation(void **state)
{
	/* 0 x5, 1 x3, 2 x1, 7 x1: average 1.2 (12/10) */
	const uint64_t v[] = { 0, 1, 0, 7, 0, 1, 2, 0, 1, 0 };
	struct dist d;
	json_object *j, *h;
	uint64_t sum = 0;
	double mean = 0;

	(void)state;
	dist_init(&d);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		dist_add(&d, v[i]);
	assert_true(dist_average(&d) > 1.1999 && dist_average(&d) < 1.2001);
	assert_int_equal(dist_percentile(&d, 50), 0);	/* rank 5 */
	assert_int_equal(dist_percentile(&d, 60), 1);	/* rank 6 */
	assert_int_equal(dist_percentile(&d, 90), 2);	/* rank 9 */
	assert_int_equal(dist_percentile(&d, 99), 7);	/* rank 10 */
	j = dist_to_json(&d);
	h = json_object_object_get(j, "histogram");
	assert_int_equal(json_object_array_length(h), 4);
	for (size_t i = 0; i < json_object_array_length(h); i++) {
		json_object *e = json_object_array_get_idx(h, i);
		uint64_t val = json_object_get_int64(
		    json_object_object_get(e, "value"));
		uint64_t n = json_object_get_int64(
		    json_object_object_get(e, "count"));

		assert_null(json_object_object_get(e, "upper"));
		sum += n;
		mean += (double)val * n;
	}
	assert_int_equal(sum, 10);		/* counts sum to samples */
	assert_true(mean / sum > 1.1999 && mean / sum < 1.2001);
	assert_int_equal(json_object_get_int64(json_object_object_get(j,
	    "samples")), 10);
	json_object_put(j);
	dist_free(&d);
}

/* More than 64 distinct values: equal-width buckets in the report, whose
 * counts still sum to the samples; the average stays exact. */
static void
test_wide_range(void **state)
{
	struct dist d;
	json_object *j, *h;
	uint64_t sum = 0, prev = 0;

	(void)state;
	dist_init(&d);
	for (uint64_t v = 0; v < 1000; v++)
		dist_add(&d, v * 1000);
	assert_true(dist_average(&d) == 499500.0);
	assert_int_equal(dist_percentile(&d, 50), 499000);
	assert_int_equal(dist_percentile(&d, 99), 989000);
	j = dist_to_json(&d);
	h = json_object_object_get(j, "histogram");
	assert_true(json_object_array_length(h) <= DIST_REPORT_VALUES + 1);
	for (size_t i = 0; i < json_object_array_length(h); i++) {
		json_object *e = json_object_array_get_idx(h, i);
		uint64_t lo = json_object_get_int64(
		    json_object_object_get(e, "value"));

		assert_non_null(json_object_object_get(e, "upper"));
		assert_true(i == 0 || lo > prev);	/* ascending */
		prev = lo;
		sum += json_object_get_int64(json_object_object_get(e,
		    "count"));
	}
	assert_int_equal(sum, 1000);
	json_object_put(j);
	dist_free(&d);
}

/* Past DIST_MAX_DISTINCT distinct values memory stops growing and the
 * exact aggregates survive. */
static void
test_bounded(void **state)
{
	struct dist d;
	uint64_t n = 3 * DIST_MAX_DISTINCT;

	(void)state;
	dist_init(&d);
	for (uint64_t v = 0; v < n; v++)
		dist_add(&d, v);
	assert_true(d.n <= DIST_MAX_DISTINCT);
	assert_true(d.shift > 0);
	assert_int_equal(d.count, n);
	assert_int_equal(d.min, 0);
	assert_int_equal(d.max, n - 1);
	assert_true(dist_average(&d) == (double)(n - 1) / 2);
	/* a bucket's lower bound, within one bucket of the exact median */
	assert_true(dist_percentile(&d, 50) <= n / 2 &&
	    dist_percentile(&d, 50) + (1u << d.shift) >= n / 2);
	dist_free(&d);
}

/* dist_to_json_exact: every value while few, else power-of-ten buckets
 * aligned to their multiples, the counts summing to the samples. */
static void
test_exact(void **state)
{
	struct dist d;
	json_object *j, *h, *e;
	int64_t sum = 0;

	(void)state;
	dist_init(&d);
	for (uint64_t v = 0; v < 300; v++)
		dist_add(&d, v * 7);
	j = dist_to_json_exact(&d, 4096);
	h = json_object_object_get(j, "histogram");
	assert_int_equal(json_object_array_length(h), 300);
	e = json_object_array_get_idx(h, 299);
	assert_int_equal(json_object_get_int64(json_object_object_get(e,
	    "value")), 299 * 7);
	assert_null(json_object_object_get(e, "upper"));
	json_object_put(j);
	for (uint64_t v = 3; v < 20000; v += 3)
		dist_add(&d, v * 5 + 1);	/* 6666 more, up to 99996 */
	j = dist_to_json_exact(&d, 4096);
	h = json_object_object_get(j, "histogram");
	assert_true(json_object_array_length(h) <= 4096);
	for (size_t i = 0; i < json_object_array_length(h); i++) {
		int64_t lo, hi;

		e = json_object_array_get_idx(h, i);
		lo = json_object_get_int64(json_object_object_get(e, "value"));
		hi = json_object_get_int64(json_object_object_get(e, "upper"));
		assert_int_equal(lo % 100, 0);	/* 10^2 wide, aligned */
		assert_int_equal(hi, lo + 99);
		sum += json_object_get_int64(json_object_object_get(e,
		    "count"));
	}
	assert_int_equal(sum, 300 + 6666);
	json_object_put(j);
	dist_free(&d);

	/* Past DIST_MAX_DISTINCT the dist keeps 2^shift-wide entries: the
	 * buckets hold them whole, so each counts exactly its values. */
	dist_init(&d);
	for (uint64_t v = 0; v < 300000; v++)
		dist_add(&d, v);
	assert_true(d.shift > 0);
	j = dist_to_json_exact(&d, 4096);
	h = json_object_object_get(j, "histogram");
	for (size_t i = 0; i + 1 < json_object_array_length(h); i++) {
		int64_t lo, hi, n;

		e = json_object_array_get_idx(h, i);
		lo = json_object_get_int64(json_object_object_get(e, "value"));
		hi = json_object_get_int64(json_object_object_get(e, "upper"));
		n = json_object_get_int64(json_object_object_get(e, "count"));
		assert_int_equal(n, hi - lo + 1);
	}
	json_object_put(j);
	dist_free(&d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_one_sample),
		cmocka_unit_test(test_all_equal),
		cmocka_unit_test(test_tabulation),
		cmocka_unit_test(test_wide_range),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
