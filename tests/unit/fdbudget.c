/* The descriptor budget (daemon/fdbudget.c): the reserve always remains,
 * and a run's follows its writers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <limits.h>
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
		assert_int_equal(fdbudget_split(limit, 0, &b), 0);
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
	assert_int_equal(fdbudget_split(15, 0, &b), -1);
}

/* The figures stressd(8) quotes. */
static void
test_split_figures(void **state)
{
	struct fdbudget b;

	(void)state;
	assert_int_equal(fdbudget_split(1024, 0, &b), 0);
	assert_int_equal(b.reserve, 512);
	assert_int_equal(b.metrics, 64);
	assert_int_equal(b.control, 448);
	assert_int_equal(b.privileged, 28);
	assert_int_equal(b.per_uid, 210);
	assert_int_equal(fdbudget_split(65536, 0, &b), 0);
	assert_int_equal(b.reserve, 608);
	assert_int_equal(b.metrics, 64);
	assert_int_equal(b.control, 2048);
	assert_int_equal(b.privileged, 128);
	assert_int_equal(b.per_uid, 960);
	assert_int_equal(fdbudget_split(256, 0, &b), 0);
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
	unsigned got, hard;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max > 64) {
		now = rl;
		now.rlim_cur = 64;
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &now), 0);
	}
	got = fdbudget_raise_limit(&hard);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &now), 0);
	assert_true(got == now.rlim_cur || (got == FDBUDGET_MAX_LIMIT &&
	    now.rlim_cur >= FDBUDGET_MAX_LIMIT));
	assert_true(now.rlim_cur == now.rlim_max ||
	    now.rlim_cur == FDBUDGET_MAX_LIMIT);
	assert_true(hard == now.rlim_max || (hard == FDBUDGET_MAX_LIMIT &&
	    now.rlim_max >= FDBUDGET_MAX_LIMIT));
}

/* A run's reserve follows its writers (issue 22: it covered 64 writers
 * while write_threads allows 1024): whatever the writers, limit and
 * clients, what fdbudget_admit lets in leaves room for every writer, and
 * the clients' caps shrink to what is left. */
static void
test_need_follows_writers(void **state)
{
	struct fdbudget b;

	(void)state;
	assert_int_equal(fdbudget_need(0, 0), 96);
	assert_int_equal(fdbudget_need(200, 4), 96 + 800 + 8);
	assert_int_equal(fdbudget_need(1u << 31, 4), UINT_MAX);
	/* The standing reserve holds up to WRITERS writers. */
	assert_int_equal(fdbudget_need(FDBUDGET_WRITERS, 0), 608);
	for (unsigned limit = 16; limit <= 70000; limit += limit / 5 + 1)
		for (unsigned w = 0; w <= 2048; w += w / 3 + 1) {
			unsigned need = fdbudget_need(w, 4);
			int rc = fdbudget_split(limit, need, &b);

			if (rc == -1) {
				assert_true(need > limit - FDBUDGET_MIN_CLIENTS ||
				    limit < FDBUDGET_MIN_CLIENTS);
				continue;
			}
			assert_true(b.reserve >= need);
			assert_true(b.metrics + b.control + b.reserve <= limit);
			assert_true(b.per_uid >= 1 && b.metrics >= 1);
		}
	/* 200 writers under 1024: the case. */
	assert_int_equal(fdbudget_split(1024, fdbudget_need(200, 4), &b), 0);
	assert_int_equal(b.reserve, 904);
	assert_int_equal(b.metrics, 15);
	assert_int_equal(b.control, 105);
	assert_int_equal(b.privileged, 8);
	assert_int_equal(b.per_uid, 48);
	/* Clients holding the standing caps: only once they let go. */
	assert_int_equal(fdbudget_admit(1024, fdbudget_need(200, 4), 420, 64,
	    &b), 1);
	assert_int_equal(fdbudget_admit(1024, fdbudget_need(200, 4), 100, 10,
	    &b), 0);
	assert_int_equal(fdbudget_admit(1024, fdbudget_need(1024, 1), 0, 0,
	    &b), -1);
	/* What the refusals offer instead fits. */
	assert_int_equal(fdbudget_max_writers(1024, 1, 0, 0, 1024), 223);
	assert_int_equal(fdbudget_admit(1024, fdbudget_need(223, 1), 0, 0,
	    &b), 0);
	assert_int_equal(fdbudget_admit(1024, fdbudget_need(224, 1), 0, 0,
	    &b), -1);
	unsigned most = fdbudget_max_writers(1024, 4, 420, 64, 200);
	assert_true(most > 0 && most < 200);
	assert_int_equal(fdbudget_admit(1024, fdbudget_need(most, 4), 420, 64,
	    &b), 0);
	assert_int_not_equal(fdbudget_admit(1024, fdbudget_need(most + 1, 4),
	    420, 64, &b), 0);
	assert_int_equal(fdbudget_max_writers(1024, 4, 0, 0, 50), 50);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_keeps_reserve),
		cmocka_unit_test(test_split_figures),
		cmocka_unit_test(test_raise),
		cmocka_unit_test(test_need_follows_writers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
