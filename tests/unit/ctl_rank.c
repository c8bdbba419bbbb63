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
#include "runrec.h"

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
	/* no spread, a difference under RANK_MIN_REL_DIFF: not called */
	assert_false(rank_welch(100, 0, 3, 103, 0, 3, &t, &df));
	assert_true(rank_welch(100, 0, 3, 106, 0, 3, &t, &df));
}

/* A record of run id with label, state and significant queue average. */
static json_object *
rec(int id, const char *state, double avg, const char *kept)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "{\"schema\": 1, \"run_id\": %d, "
	    "\"state\": \"%s\", "
	    "\"queue_depth\": {\"significant_ops_pending\": {\"average\": "
	    "%g}}%s%s%s}", id, state, avg, kept ? ", \"verdict\": "
	    "{\"kept_up\": " : "", kept ? kept : "", kept ? "}" : "");
	return json_tokener_parse(buf);
}

/* rec() with a sample count and a warning code (NULL: none). */
static json_object *
rec_w(int id, double avg, const char *kept, int samples, const char *code)
{
	json_object *r = rec(id, "done", avg, kept), *w, *a;

	json_object_object_add(r, "samples", json_object_new_int(samples));
	a = json_object_new_array();
	if (code != NULL) {
		w = json_object_new_object();
		json_object_object_add(w, "code", json_object_new_string(code));
		json_object_object_add(w, "message",
		    json_object_new_string("a warning"));
		json_object_array_add(a, w);
	}
	json_object_object_add(r, "warnings", a);
	return r;
}

/* rank_build of the n records, each read as a run report first. */
static json_object *
build(json_object **reps, char *const *cand, int n)
{
	struct runrec *recs[16];
	json_object *r;
	char *err = NULL;

	assert_true(n <= 16);
	for (int i = 0; i < n; i++) {
		recs[i] = runrec_parse(reps[i], &err);
		if (recs[i] == NULL)
			fail_msg("record %d: %s", i, err);
	}
	r = rank_build((const struct runrec *const *)recs, cand, n);
	for (int i = 0; i < n; i++)
		runrec_free(recs[i]);
	return r;
}

static json_object *
cand_of(json_object *r, size_t i)
{
	return json_object_array_get_idx(jpath(r, "candidates"), i);
}

static void
put_all(json_object **reps, int n)
{
	for (int i = 0; i < n; i++)
		json_object_put(reps[i]);
}

/* Broken storage has the shorter queue: the verdicts rank first. */
static void
test_verdict_first(void **state)
{
	json_object *reps[6], *r;
	char *cand[6] = { "a", "b", "a", "b", "a", "b" };

	(void)state;
	for (int i = 0; i < 6; i++)
		reps[i] = i % 2 ? rec_w(i + 1, 54 + i, "true", 50, NULL) :
		    rec_w(i + 1, 0.1 * (i + 1), "false", 50, NULL);
	r = build(reps, cand, 6);
	assert_string_equal(jpath_str(cand_of(r, 0), "label"), "b");
	assert_string_equal(jpath_str(cand_of(r, 0), "verdict"), "kept up");
	assert_string_equal(jpath_str(cand_of(r, 1), "verdict"),
	    "fell behind");
	assert_string_equal(jpath_str(r, "winner"), "b");
	assert_non_null(strstr(jpath_str(r, "reason"), "b kept up"));
	json_object_put(r);
	/* one run each: not judged on the queue, but which kept up is said */
	r = build(reps, cand, 2);
	assert_null(jpath(r, "winner"));
	assert_string_equal(jpath_str(cand_of(r, 0), "label"), "b");
	assert_non_null(strstr(jpath_str(r, "reason"), "b kept up"));
	assert_non_null(strstr(jpath_str(r, "reason"), "a fell behind"));
	json_object_put(r);
	/* the worst run decides: one of b's three fell behind */
	json_object_put(reps[5]);
	reps[5] = rec_w(6, 60, "false", 50, NULL);
	r = build(reps, cand, 6);
	assert_string_equal(jpath_str(cand_of(r, 1), "verdict"),
	    "fell behind");
	put_all(reps, 6);
	json_object_put(r);
}

/* Flat-out runs, no samples, too few: out of the queue statistics. */
static void
test_left_out(void **state)
{
	json_object *reps[6], *r, *c;
	char *cand[6] = { "flat", "b", "flat", "b", "flat", "b" };
	double x;

	(void)state;
	reps[0] = rec_w(1, 0, "null", 0, NULL);
	reps[2] = rec_w(3, 0, "null", 2, "flat_out");
	reps[4] = rec_w(5, 0, "null", 4, "few_samples");
	for (int i = 1; i < 6; i += 2)
		reps[i] = rec_w(i + 1, 5 + i, "true", 50, NULL);
	r = build(reps, cand, 6);
	c = cand_of(r, 1);
	assert_string_equal(jpath_str(c, "label"), "flat");
	assert_true(jpath_num(c, "n", &x) && x == 0);
	assert_true(jpath_num(c, "left_out", &x) && x == 3);
	assert_null(jpath(r, "winner"));
	assert_non_null(strstr(jpath_str(r, "reason"), "b kept up"));
	assert_non_null(strstr(jpath_str(r, "left_out"),
	    "run 1 (0 samples)"));
	assert_non_null(strstr(jpath_str(r, "left_out"),
	    "run 3 (flat out)"));
	assert_non_null(strstr(jpath_str(r, "left_out"),
	    "run 5 (few samples)"));
	put_all(reps, 6);
	json_object_put(r);
}

/* NaN and infinite averages (json-c takes them from a copied record)
 * are no average: left out, never first. */
static void
test_not_finite(void **state)
{
	json_object *reps[6], *r, *c;
	char *cand[6] = { "nan", "b", "nan", "b", "nan", "b" };
	double x, odd[3] = { NAN, INFINITY, -INFINITY };

	(void)state;
	for (int i = 0; i < 6; i += 2) {
		reps[i] = rec_w(i + 1, 0, "true", 50, NULL);
		json_object_object_add(jpath(reps[i],
		    "queue_depth.significant_ops_pending"), "average",
		    json_object_new_double(odd[i / 2]));
	}
	for (int i = 1; i < 6; i += 2)
		reps[i] = rec_w(i + 1, 1 + i / 10.0, "true", 50, NULL);
	r = build(reps, cand, 6);
	c = cand_of(r, 0);
	assert_string_equal(jpath_str(c, "label"), "b");
	c = cand_of(r, 1);
	assert_true(jpath_num(c, "n", &x) && x == 0);
	assert_non_null(strstr(jpath_str(r, "left_out"),
	    "no usable queue average"));
	put_all(reps, 6);
	json_object_put(r);
}

/* A 10 +- 0.1, B 20 +- 20, C 30 +- 0.1: A beats C, B does not. */
static void
test_ties_claim(void **state)
{
	json_object *reps[9], *r;
	char *cand[9] = { "A", "B", "C", "A", "B", "C", "A", "B", "C" };
	const double v[9] = { 9.9, 0, 29.9, 10, 20, 30, 10.1, 40, 30.1 };
	const char *why;

	(void)state;
	for (int i = 0; i < 9; i++)
		reps[i] = rec_w(i + 1, v[i], "true", 50, NULL);
	r = build(reps, cand, 9);
	why = jpath_str(r, "reason");
	assert_null(jpath(r, "winner"));
	assert_null(strstr(why, "each beats"));
	assert_non_null(strstr(why, "A beats C"));
	assert_non_null(strstr(why, "B is not told apart from C"));
	put_all(reps, 9);
	json_object_put(r);
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
	r = build(reps, cand, 7);
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
	r = build(reps, cand, 2);
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
		cmocka_unit_test(test_verdict_first),
		cmocka_unit_test(test_left_out),
		cmocka_unit_test(test_not_finite),
		cmocka_unit_test(test_ties_claim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
