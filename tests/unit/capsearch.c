/* Unit tests of daemon/capsearch.c: the search over a simulated storage
 * that keeps up at every rate up to its limit, from above and below, at
 * the maximum, with nothing sustained, and with a final repeat that does
 * not hold. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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
	capsearch_init(&s, 100, 1e6, 0.10, 1);
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

	(void)state;
	capsearch_init(&s, 10000, 1e6, 0.05, 0);
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
	capsearch_init(&s, 100, 1000, 0.1, 1);
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
	capsearch_init(&s, 100, 1e6, 0.1, 1);
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
	capsearch_init(&s, 100, 1e6, 0.1, 2);
	simulate(&s, 5000, 4000);
	assert_int_equal(s.end, CAPSEARCH_FOUND);
	assert_true(s.lo <= 4000);
	assert_true(s.hi / s.lo <= 1.1 + 1e-9);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
