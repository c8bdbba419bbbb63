/* Unit tests of ctl/jpath.c: values by dotted path, and the answers for
 * what is missing or of another type. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "jpath.h"

static const char doc[] =
    "{\"run_id\": 7, \"state\": \"done\", \"ok\": true, \"none\": null,"
    " \"latency_ms\": {\"update_call\": {\"p99\": 1.25, \"count\": 40}},"
    " \"list\": [1, 2], \"obj\": {}}";

static void
text_is(json_object *o, const char *path, const char *dfmt, const char *want)
{
	char *s = jpath_text(o, path, dfmt);

	assert_string_equal(s, want);
	free(s);
}

static void
test_path(void **state)
{
	json_object *o = json_tokener_parse(doc);

	(void)state;
	assert_non_null(o);
	assert_ptr_equal(jpath(o, ""), o);
	assert_int_equal(json_object_get_int(jpath(o, "run_id")), 7);
	assert_non_null(jpath(o, "latency_ms.update_call"));
	assert_null(jpath(o, "latency_ms.nosuch.p99"));
	assert_null(jpath(o, "nosuch"));
	/* A member of something that is not an object. */
	assert_null(jpath(o, "run_id.x"));
	assert_null(jpath(o, "list.0"));
	assert_null(jpath(NULL, "run_id"));
	json_object_put(o);
}

static void
test_num_str(void **state)
{
	json_object *o = json_tokener_parse(doc);
	double d = -1;

	(void)state;
	assert_true(jpath_num(o, "run_id", &d));
	assert_true(d == 7);
	assert_true(jpath_num(o, "latency_ms.update_call.p99", &d));
	assert_true(d == 1.25);
	d = -1;
	assert_false(jpath_num(o, "state", &d));
	assert_false(jpath_num(o, "none", &d));
	assert_false(jpath_num(o, "nosuch", &d));
	assert_true(d == -1);	/* untouched */
	assert_string_equal(jpath_str(o, "state"), "done");
	assert_null(jpath_str(o, "run_id"));
	assert_null(jpath_str(o, "nosuch"));
	json_object_put(o);
}

static void
test_text(void **state)
{
	json_object *o = json_tokener_parse(doc);

	(void)state;
	text_is(o, "run_id", NULL, "7");
	text_is(o, "run_id", "%.2f", "7.00");
	text_is(o, "latency_ms.update_call.p99", NULL, "1.25");
	text_is(o, "latency_ms.update_call.p99", "%.3f", "1.250");
	text_is(o, "state", "%.2f", "done");
	text_is(o, "ok", NULL, "true");
	/* Whatever is not a scalar, or missing, is "-". */
	text_is(o, "none", NULL, "-");
	text_is(o, "list", NULL, "-");
	text_is(o, "obj", NULL, "-");
	text_is(o, "nosuch", NULL, "-");
	json_object_put(o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_num_str),
		cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
