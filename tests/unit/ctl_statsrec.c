/* Unit tests of ctl/statsrec.c: a real stats reply (tests/fixtures/
 * stats-running.json, from a private stressd mid-run) read into its
 * struct, an idle daemon's reply with everything else absent, and a
 * mistyped or missing member refused, named. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "statsrec.h"

static json_object *
fixture(void)
{
	const char *top = getenv("TOP_SRCDIR");
	char path[4096];
	json_object *o;

	snprintf(path, sizeof(path), "%s/tests/fixtures/stats-running.json",
	    top != NULL ? top : ".");
	o = json_object_from_file(path);
	assert_non_null(o);
	return o;
}

static void
test_fixture(void **state)
{
	json_object *o = fixture();
	char *err = NULL;
	struct statsrec *s = statsrec_parse(o, &err);

	(void)state;
	assert_null(err);
	assert_non_null(s);
	assert_string_equal(s->state, "running");
	assert_true(s->has_run_id);
	assert_int_equal(s->run_id, 1);
	assert_float_equal(s->max_updates, 3000, 0);
	assert_float_equal(s->generated, 1512, 0);
	assert_float_equal(s->updates_completed, 1512, 0);
	assert_float_equal(s->rates.current_dequeue, 976.0973670551217, 1e-9);
	assert_float_equal(s->avg_samples, 7, 0);
	assert_non_null(s->errors_by_kind);
	assert_false(s->capacity.has);
	assert_false(s->sweep.has);
	assert_true(s->verdict.has);
	assert_int_equal(s->verdict.kept_up, -1);
	assert_int_equal(s->nwarnings, 3);
	assert_string_equal(s->warnings[0].code, "few_samples");
	statsrec_free(s);
	json_object_put(o);
}

static void
test_idle(void **state)
{
	json_object *o = json_tokener_parse("{\"state\": \"idle\"}");
	struct statsrec *s = statsrec_parse(o, NULL);

	(void)state;
	assert_non_null(s);
	assert_false(s->has_run_id);
	assert_true(isnan(s->generated));
	assert_true(isnan(s->rates.current_dequeue));
	assert_false(s->verdict.has);
	statsrec_free(s);
	json_object_put(o);
}

/* The fixture with obj's key (obj NULL: the top, else "rates.X" or a
 * member of the top) set to v, or deleted when v is NULL: the error. */
static char *
broken(const char *obj, const char *key, json_object *v)
{
	json_object *o = fixture(), *at = o;
	char *err = NULL;

	if (obj != NULL && strncmp(obj, "rates.", 6) == 0) {
		assert_true(json_object_object_get_ex(o, "rates", &at));
		assert_true(json_object_object_get_ex(at, obj + 6, &at));
	} else if (obj != NULL)
		assert_true(json_object_object_get_ex(o, obj, &at));
	if (v == NULL)
		json_object_object_del(at, key);
	else
		json_object_object_add(at, key, v);
	assert_null(statsrec_parse(o, &err));
	assert_non_null(err);
	json_object_put(o);
	return err;
}

static void
test_refused(void **state)
{
	static const char *const msgs[] = {
		"stats reply: state: missing",
		"stats reply: rates.current_dequeue.total: not a number",
		"stats reply: generated: not a number",
		"stats reply: errors_by_kind.other: not an integer",
		"stats reply: queue_average.samples: not a number",
		"stats reply: warnings[0].code: not a string",
	};
	char *errs[6];
	json_object *w;

	(void)state;
	errs[0] = broken(NULL, "state", NULL);
	errs[1] = broken("rates.current_dequeue", "total",
	    json_object_new_string("976"));
	errs[2] = broken(NULL, "generated", json_object_new_boolean(1));
	errs[3] = broken("errors_by_kind", "other",
	    json_object_new_double(0.5));
	errs[4] = broken("queue_average", "samples",
	    json_object_new_string("7"));
	w = json_tokener_parse("[{\"code\": 1, \"message\": \"m\"}]");
	errs[5] = broken(NULL, "warnings", w);
	for (size_t i = 0; i < 6; i++) {
		assert_string_equal(errs[i], msgs[i]);
		free(errs[i]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
