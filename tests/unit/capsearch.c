/* Unit tests of daemon/capsearch.c: the search over a simulated storage
 * that keeps up at every rate up to its limit, from above and below, at
 * the maximum, with nothing sustained, with a final repeat that does not
 * hold, and with its grid offset by a factor (two factors, two grids). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "capsearch.h"

/* Run s against a storage of the given limit; a rate in (flaky, limit]
 * keeps up only the first time.  The steps taken. */
static int
simulate(struct capsearch *s, double limit, double flaky)
{
	int n = 0, flaky_seen = 0;

	while (!s->done && n < 200) {
		bool ok = s->rate <= limit;

		if (ok && s->rate > flaky && flaky_seen++ > 0)
			ok = false;
		capsearch_result(s, ok);
		n++;
	}
	return n;
}

static void
test_from_below(void **state)
{
	struct capsearch s;
	int n;

	(void)state;
	capsearch_init(&s, 100, 1e6, 0.10, 1, 1);
	n = simulate(&s, 5000, 1e9);
	assert_true(s.done);
	assert_int_equal(s.end, CAPSEARCH_FOUND);
	assert_true(s.lo <= 5000 && s.hi > 5000);
	assert_true(s.hi / s.lo <= 1.10 + 1e-9);
	/* 100..6400 is 7 steps, 3 halvings of the bracket, 1 repeat */
	assert_true(n <= 12);
	assert_true(s.lo > 4500);
	/* bisected rates read as 3 significant digits: 4530, not 4525.48 */
	assert_true(fabs(s.lo - round(s.lo / 10) * 10) < 1e-6);
}

static void
test_from_above(void **state)
{
	struct capsearch s;
	char buf[32];

	(void)state;
	/* below 100 updates/s too the rates are 3 significant digits */
	capsearch_init(&s, 100, 1e6, 0.05, 0, 1);
	simulate(&s, 47, 1e9);
	snprintf(buf, sizeof(buf), "%.15g", s.lo);
	assert_true(strlen(buf) <= 4);
	capsearch_init(&s, 10000, 1e6, 0.05, 0, 1);
	simulate(&s, 700, 1e9);
	assert_int_equal(s.end, CAPSEARCH_FOUND);
	assert_true(s.lo <= 700 && s.hi > 700);
	assert_true(s.hi / s.lo <= 1.05 + 1e-9);
}

static void
test_max_rate(void **state)
{
	struct capsearch s;
	int n;

	(void)state;
	capsearch_init(&s, 100, 1000, 0.1, 1, 1);
	n = simulate(&s, 1e9, 1e9);
	assert_int_equal(s.end, CAPSEARCH_MAX_RATE);
	assert_true(s.lo == 1000);
	assert_true(s.hi == 0);
	assert_int_equal(n, 5);	/* 100 200 400 800 1000 */
}

static void
test_none_kept(void **state)
{
	struct capsearch s;

	(void)state;
	capsearch_init(&s, 100, 1e6, 0.1, 1, 1);
	simulate(&s, 0, 1e9);
	assert_int_equal(s.end, CAPSEARCH_NONE_KEPT);
	assert_true(s.lo == 0);
	assert_true(s.hi >= 1 && s.hi < 2.01);
}

/* The rate found keeps up once, then not when repeated: the search
 * must move below it rather than report it. */
static void
test_repeat_fails(void **state)
{
	struct capsearch s;

	(void)state;
	capsearch_init(&s, 100, 1e6, 0.1, 2, 1);
	simulate(&s, 5000, 4000);
	assert_int_equal(s.end, CAPSEARCH_FOUND);
	assert_true(s.lo <= 4000);
	assert_true(s.hi / s.lo <= 1.1 + 1e-9);
}


/* The rates s steps at against a storage of the given limit, into
 * rates[] (at most max); how many. */
static int
grid(struct capsearch *s, double limit, double *rates, int max)
{
	int n = 0;

	while (!s->done && n < max) {
		rates[n++] = s->rate;
		capsearch_result(s, s->rate <= limit);
	}
	return n;
}

/* Two factors: two grids (every step's rate differs, so a second search
 * tests rates the first did not), each bracketing the limit within the
 * precision, the first step at start x factor and growth from there. */
static void
test_jitter_grid(void **state)
{
	static const double factors[] = { 1, 1.001, 1.25, 1.5, 1.999 };
	static const double limits[] = { 47, 700, 5000, 123456 };
	double a[CAPSEARCH_MAX_STEPS], b[CAPSEARCH_MAX_STEPS];
	struct capsearch s, t;
	int na, nb, same = 0;

	(void)state;
	capsearch_init(&s, 100, 1e6, 0.1, 1, 1.0);
	capsearch_init(&t, 100, 1e6, 0.1, 1, 1.5);
	assert_true(s.first == 100 && s.rate == 100);
	assert_true(fabs(t.first - 150) < 1e-9 && t.rate == t.first);
	assert_true(t.jitter == 1.5);
	/* 3 x 1.1 is 3.3000000000000003 in doubles: the rate is 3.3, as every
	 * record (whatever its digits) and a person read it */
	capsearch_init(&s, 3, 1e6, 0.1, 1, capsearch_jitter(100));
	assert_true(s.first == 3.3 && s.rate == 3.3);
	assert_true(capsearch_jitter(820) == 1.82);
	capsearch_init(&s, 100, 1e6, 0.1, 1, 1.0);
	na = grid(&s, 5000, a, CAPSEARCH_MAX_STEPS);
	nb = grid(&t, 5000, b, CAPSEARCH_MAX_STEPS);
	assert_true(fabs(b[1] - 300) < 1e-9 && fabs(b[2] - 600) < 1e-9);
	for (int i = 0; i < na; i++)
		for (int k = 0; k < nb; k++)
			same += a[i] == b[k];
	assert_int_equal(same, 0);
	assert_true(s.lo != t.lo);
	for (size_t f = 0; f < sizeof(factors) / sizeof(*factors); f++)
		for (size_t l = 0; l < sizeof(limits) / sizeof(*limits); l++) {
			capsearch_init(&s, 100, 1e6, 0.1, 2, factors[f]);
			grid(&s, limits[l], a, CAPSEARCH_MAX_STEPS);
			assert_true(s.done);
			assert_int_equal(s.end, CAPSEARCH_FOUND);
			assert_true(s.lo <= limits[l] && s.hi > limits[l]);
			assert_true(s.hi / s.lo <= 1.1 + 1e-9);
		}
}

/* A factor outside [1, CAPSEARCH_GROWTH) is no factor; a first step
 * above max_rate runs at max_rate. */
static void
test_jitter_bounds(void **state)
{
	static const double bad[] = { 0, 0.5, 2, 3, -1, NAN, INFINITY };
	struct capsearch s;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		capsearch_init(&s, 100, 1e6, 0.1, 1, bad[i]);
		assert_true(s.jitter == 1 && s.first == 100 && s.rate == 100);
	}
	capsearch_init(&s, 100, 120, 0.1, 1, 1.5);
	assert_true(s.rate == 120 && s.first == 120);
	assert_int_equal(grid(&s, 1e9, (double[4]){ 0 }, 4), 1);
	assert_int_equal(s.end, CAPSEARCH_MAX_RATE);
}

/* A random number as a factor: in [1, CAPSEARCH_GROWTH), 3 decimals (a
 * factor a person reads), every one of them reachable. */
static void
test_jitter_draw(void **state)
{
	bool seen[1000] = { false };
	int n = 0;

	(void)state;
	assert_true(capsearch_jitter(0) == 1);
	for (uint64_t r = 0; r < 5000; r++) {
		double f = capsearch_jitter(r * 7919);
		int k = (int)lround((f - 1) * 1000);

		assert_true(f >= 1 && f < CAPSEARCH_GROWTH);
		assert_true(fabs(f - (1 + k / 1000.0)) < 1e-12);
		n += !seen[k];
		seen[k] = true;
	}
	assert_true(capsearch_jitter(UINT64_MAX) < CAPSEARCH_GROWTH);
	assert_true(n > 900);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_below),
		cmocka_unit_test(test_from_above),
		cmocka_unit_test(test_max_rate),
		cmocka_unit_test(test_none_kept),
		cmocka_unit_test(test_repeat_fails),
		cmocka_unit_test(test_jitter_grid),
		cmocka_unit_test(test_jitter_bounds),
		cmocka_unit_test(test_jitter_draw),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
