/* Unit tests of ctl/statusrec.c: a real status reply (tests/fixtures/
 * status-run.json, a private stressd's after a run) read into its
 * struct, an idle daemon's that ran nothing and a fake one's, and a
 * mistyped member refused, named. */
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

#include "fixture.h"
#include "statusrec.h"

static json_object *
fixture(void)
{
	return fixture_load("status-run.json");
}

static void
test_fixture(void **state)
{
	json_object *o = fixture(), *v;
	char *err = NULL;
	struct statusrec *s = statusrec_parse(o, &err);

	(void)state;
	assert_null(err);
	assert_non_null(s);
	assert_string_equal(s->state, "done");
	assert_non_null(s->run);
	assert_non_null(s->params);
	assert_true(json_object_object_get_ex(s->params, "label", &v));
	assert_string_equal(json_object_get_string(v), "fixture");
	assert_float_equal(s->sample_interval, 0.5, 0);
	assert_float_equal(s->update_time, 1, 0);
	assert_ptr_equal(s->json, o);
	statusrec_free(s);
	json_object_put(o);
}

static void
test_idle(void **state)
{
	json_object *o = json_tokener_parse("{\"state\": \"idle\", "
	    "\"run\": null, \"capacity\": null}");
	struct statusrec *s = statusrec_parse(o, NULL);

	(void)state;
	assert_non_null(s);
	assert_null(s->run);
	assert_null(s->params);
	assert_true(isnan(s->sample_interval) && isnan(s->update_time));
	statusrec_free(s);
	json_object_put(o);
	/* a fake daemon's: no state, a run's knobs */
	o = json_tokener_parse("{\"run\": {\"params\": {\"update_time\": 2}}}");
	assert_non_null(s = statusrec_parse(o, NULL));
	assert_null(s->state);
	assert_float_equal(s->update_time, 2, 0);
	statusrec_free(s);
	json_object_put(o);
}

/* statusrec_parse and statusrec_free for fixture_refused. */
static void *
parse(json_object *o, char **err)
{
	return statusrec_parse(o, err);
}

static void
release(void *s)
{
	statusrec_free(s);
}

/* The fixture with member key of the reply (run: of its run; params: of
 * the run's params) set to v (NULL: deleted), refused: the error. */
static char *
broken(bool run, bool params, const char *key, json_object *v)
{
	json_object *o = fixture(), *at = o;

	if (run || params)
		assert_true(json_object_object_get_ex(o, "run", &at));
	if (params)
		assert_true(json_object_object_get_ex(at, "params", &at));
	fixture_edit(at, key, v);
	return fixture_refused(o, parse, release);
}

static void
test_refused(void **state)
{
	static const char *const msgs[] = {
		"status reply: state: not a string",
		"status reply: run: not an object",
		"status reply: run.params: not an object",
		"status reply: run.params.sample_interval: not a number",
		"status reply: run.params.update_time: not a number",
	};
	char *errs[5];

	(void)state;
	errs[0] = broken(false, false, "state", json_object_new_int(1));
	errs[1] = broken(false, false, "run", json_object_new_int(1));
	errs[2] = broken(true, false, "params", json_object_new_array());
	errs[3] = broken(false, true, "sample_interval",
	    json_object_new_string("0.5"));
	errs[4] = broken(false, true, "update_time",
	    json_object_new_boolean(1));
	for (size_t i = 0; i < 5; i++) {
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
