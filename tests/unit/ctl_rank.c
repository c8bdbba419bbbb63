/* Unit tests of ctl/rank.c: the t quantiles, Welch's test, and the
 * ranking of synthetic records (repeats, one run each, runs left out). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "jpath.h"
#include "rank.h"

static void
test_t_crit(void **state)
{
	(void)state;
	assert_float_equal(rank_t_crit(1), 12.706, 1e-9);
	assert_float_equal(rank_t_crit(4), 2.776, 1e-9);
	assert_float_equal(rank_t_crit(30), 2.042, 1e-9);
	/* between rows: between their values, falling with df */
	assert_true(rank_t_crit(4.5) < 2.776 && rank_t_crit(4.5) > 2.571);
	assert_true(rank_t_crit(50) < 2.021 && rank_t_crit(50) > 2.000);
	assert_float_equal(rank_t_crit(1e12), 1.960, 1e-6);
	assert_float_equal(rank_t_crit(0.5), 12.706, 1e-9);
}

static void
test_welch(void **state)
{
	double t, df;

	(void)state;
	/* 12 +- 1 against 102 +- 1, three runs each: far apart */
	assert_true(rank_welch(12, 1, 3, 102, 1, 3, &t, &df));
	assert_float_equal(df, 4, 1e-9);
	assert_float_equal(t, 90 / sqrt(2.0 / 3), 1e-6);
	/* 20 +- 10 against 23 +- 10: within the spread */
	assert_false(rank_welch(20, 10, 3, 23, 10, 3, &t, &df));
	/* the same difference with less spread is called */
	assert_true(rank_welch(20, 1, 3, 23, 1, 3, &t, &df));
	/* no spread at all: any difference, and only a difference */
	assert_true(rank_welch(1, 0, 3, 2, 0, 3, &t, &df));
	assert_false(rank_welch(1, 0, 3, 1, 0, 3, &t, &df));
}

/* A record of run id with label, state and significant queue average. */
static json_object *
rec(int id, const char *state, double avg, const char *kept)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "{\"run_id\": %d, \"state\": \"%s\", "
	    "\"queue_depth\": {\"significant_ops_pending\": {\"average\": "
	    "%g}}%s%s%s}", id, state, avg, kept ? ", \"verdict\": "
	    "{\"kept_up\": " : "", kept ? kept : "", kept ? "}" : "");
	return json_tokener_parse(buf);
}

static void
test_build(void **state)
{
	json_object *reps[7], *r, *c;
	char *cand[7] = { "a", "b", "a", "b", "a", "b", "b" };
	double x;

	(void)state;
	for (int i = 0; i < 6; i++)
		reps[i] = rec(i + 1, "done", i % 2 ? 100 + i : 10 + i,
		    i % 2 ? "false" : "true");
	reps[6] = rec(7, "stopped", 1, "null");
	r = rank_build(reps, cand, 7);
	assert_true(json_object_get_boolean(jpath(r, "judged")));
	assert_string_equal(jpath_str(r, "winner"), "a");
	c = json_object_array_get_idx(jpath(r, "candidates"), 0);
	assert_string_equal(jpath_str(c, "label"), "a");
	assert_true(jpath_num(c, "mean", &x) && x == 12);
	assert_true(jpath_num(c, "kept_up", &x) && x == 3);
	/* the stopped run counts in b's verdicts, not in its mean */
	c = json_object_array_get_idx(jpath(r, "candidates"), 1);
	assert_true(jpath_num(c, "n", &x) && x == 3);
	assert_true(jpath_num(c, "left_out", &x) && x == 1);
	assert_true(jpath_num(c, "fell_behind", &x) && x == 3);
	assert_true(jpath_num(c, "cannot_tell", &x) && x == 1);
	assert_true(jpath_num(c, "mean", &x) && x == 103);
	assert_true(json_object_get_boolean(jpath(c, "vs_best.different")));
	json_object_put(r);
	/* one run each: not judged, no winner */
	r = rank_build(reps, cand, 2);
	assert_false(json_object_get_boolean(jpath(r, "judged")));
	assert_null(jpath(r, "winner"));
	assert_non_null(strstr(jpath_str(r, "reason"), "cannot be judged"));
	json_object_put(r);
	for (int i = 0; i < 7; i++)
		json_object_put(reps[i]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t_crit),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_build),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
