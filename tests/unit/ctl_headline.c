/* Unit tests of ctl/headline.c's ETA: a paced run's follows update_time
 * (not the pace so far, which counts the setup), a flat-out run's the pace
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
	/* 10% of 10000 generated 30 s in, paced at 100 s: 90 s left,
	 * however long the setup took. */
	assert_float_equal(headline_eta(10000, 1000, 1000, 30, 100, 0, 50),
	    90, 1e-9);
	assert_float_equal(headline_eta(10000, 1000, 1000, 300, 100, 0, 50),
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
		cmocka_unit_test(test_eta_flat_out),
		cmocka_unit_test(test_eta_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
