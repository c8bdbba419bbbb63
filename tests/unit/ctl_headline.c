/* Unit tests of ctl/headline.c's ETA: a paced run's follows update_time
 * (not the pace so far, which counts the setup) unless it has fallen
 * behind that pace, a flat-out run's the pace
 * so far, and the text it is shown as. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "headline.h"

static void
test_eta_paced(void **state)
{
	(void)state;
	/* 10% of 10000 generated 30 s in, paced at 100 s, the writers
	 * keeping that pace (100/s): 90 s left, however long the setup
	 * took. */
	assert_float_equal(headline_eta(10000, 1000, 1000, 30, 100, 0, 100),
	    90, 1e-9);
	assert_float_equal(headline_eta(10000, 1000, 1000, 300, 100, 0, 100),
	    90, 1e-9);
	/* A backlog of 500 at 100/s adds 5 s. */
	assert_float_equal(headline_eta(10000, 1000, 500, 30, 100, 500, 100),
	    95, 1e-9);
	/* All generated, draining: the backlog alone. */
	assert_float_equal(headline_eta(10000, 10000, 9000, 120, 100, 1000,
	    200), 5, 1e-9);
	/* Draining at no rate seen: unknown. */
	assert_true(headline_eta(10000, 10000, 9000, 120, 100, 1000, 0) < 0);
}

static void
test_eta_behind(void **state)
{
	(void)state;
	/* Paced at 5 s, 6 s in, 15% generated, the writers at 250/s: the
	 * run has fallen behind its pace (it will take ~40 s), so the ETA
	 * is what is left at the rate seen, 8800 / 250, not the pace's
	 * 4.25 s plus the queue's 1.2 s. */
	assert_float_equal(headline_eta(10000, 1500, 1200, 6, 5, 300, 250),
	    35.2, 1e-9);
	/* On schedule, the rate seen changes nothing. */
	assert_float_equal(headline_eta(10000, 5000, 5000, 2.5, 5, 0, 1),
	    2.5, 1e-9);
	/* Behind, no rate seen yet: the pace's. */
	assert_float_equal(headline_eta(10000, 1000, 1000, 6, 5, 0, 0),
	    4.5, 1e-9);
}

static void
test_eta_flat_out(void **state)
{
	(void)state;
	/* 1000 of 10000 in 30 s: 270 s more at that pace. */
	assert_float_equal(headline_eta(10000, 1000, 1000, 30, 0, 0, 0), 270,
	    1e-9);
	assert_true(headline_eta(10000, 0, 0, 0, 0, 0, 0) < 0);
	assert_true(headline_eta(0, 0, 0, 10, 0, 0, 0) < 0);
	/* Done is done. */
	assert_float_equal(headline_eta(10000, 10000, 10000, 30, 100, 0, 0), 0,
	    1e-9);
}

static void
test_eta_text(void **state)
{
	char buf[32];

	(void)state;
	headline_eta_text(90, buf, sizeof(buf));
	assert_string_equal(buf, "1:30");
	headline_eta_text(3725, buf, sizeof(buf));
	assert_string_equal(buf, "1:02:05");
	headline_eta_text(0.4, buf, sizeof(buf));
	assert_string_equal(buf, "0:00");
	headline_eta_text(-1, buf, sizeof(buf));
	assert_string_equal(buf, "?");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eta_paced),
		cmocka_unit_test(test_eta_behind),
		cmocka_unit_test(test_eta_flat_out),
		cmocka_unit_test(test_eta_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
