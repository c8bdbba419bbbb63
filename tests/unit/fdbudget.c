/* The descriptor budget (daemon/fdbudget.c): the reserve always remains. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <cmocka.h>

#include "fdbudget.h"

/* Whatever the limit, clients together never reach into the reserve. */
static void
test_split_keeps_reserve(void **state)
{
	struct fdbudget b;

	(void)state;
	for (unsigned limit = 16; limit <= 200000; limit += limit / 7 + 1) {
		assert_int_equal(fdbudget_split(limit, &b), 0);
		assert_int_equal(b.limit, limit);
		assert_true(b.reserve >= limit / 2 || b.reserve == 608);
		assert_true(b.metrics + b.control + b.reserve <= limit);
		assert_true(b.metrics >= 1 && b.metrics <= FDBUDGET_MAX_METRICS);
		assert_true(b.control >= 1 && b.control <= FDBUDGET_MAX_CONTROL);
		assert_true(b.privileged <= b.control / 2);
		assert_true(b.per_uid >= 1);
		/* One other uid cannot take what root may need. */
		assert_true(b.per_uid + b.privileged <= b.control ||
		    b.control < 3);
	}
	assert_int_equal(fdbudget_split(15, &b), -1);
}

/* The figures stressd(8) quotes. */
static void
test_split_figures(void **state)
{
	struct fdbudget b;

	(void)state;
	assert_int_equal(fdbudget_split(1024, &b), 0);
	assert_int_equal(b.reserve, 512);
	assert_int_equal(b.metrics, 64);
	assert_int_equal(b.control, 448);
	assert_int_equal(b.privileged, 28);
	assert_int_equal(b.per_uid, 210);
	assert_int_equal(fdbudget_split(65536, &b), 0);
	assert_int_equal(b.reserve, 608);
	assert_int_equal(b.metrics, 64);
	assert_int_equal(b.control, 2048);
	assert_int_equal(b.privileged, 128);
	assert_int_equal(b.per_uid, 960);
	assert_int_equal(fdbudget_split(256, &b), 0);
	assert_int_equal(b.reserve, 128);
	assert_int_equal(b.metrics, 16);
	assert_int_equal(b.control, 112);
	assert_int_equal(b.privileged, 8);
	assert_int_equal(b.per_uid, 52);
}

/* Raised to the hard limit, and what is in force is returned. */
static void
test_raise(void **state)
{
	struct rlimit rl, now;
	unsigned got;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max > 64) {
		now = rl;
		now.rlim_cur = 64;
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &now), 0);
	}
	got = fdbudget_raise_limit();
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &now), 0);
	assert_true(got == now.rlim_cur || (got == FDBUDGET_MAX_LIMIT &&
	    now.rlim_cur >= FDBUDGET_MAX_LIMIT));
	assert_true(now.rlim_cur == now.rlim_max ||
	    now.rlim_cur == FDBUDGET_MAX_LIMIT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_keeps_reserve),
		cmocka_unit_test(test_split_figures),
		cmocka_unit_test(test_raise),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
