/* Unit tests of ctl/runrec.c: a real run report (tests/fixtures/
 * report-run.json, from a private stressd) read into its struct, an
 * older stressd's record (no verdict) read with the verdict absent, and
 * a renamed, missing or mistyped member refused, named. */
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

#include "runrec.h"

static json_object *
fixture(void)
{
	const char *top = getenv("TOP_SRCDIR");
	char path[4096];
	json_object *o;

	snprintf(path, sizeof(path), "%s/tests/fixtures/report-run.json",
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
	struct runrec *r = runrec_parse(o, &err);

	(void)state;
	assert_null(err);
	assert_non_null(r);
	assert_int_equal(r->schema, 1);
	assert_int_equal(r->run_id, 1);
	assert_string_equal(r->state, "done");
	assert_null(r->reason);			/* null in the record */
	assert_string_equal(r->label, "fixture");
	assert_string_equal(r->sync, "none");
	assert_float_equal(r->max_updates, 3000, 0);
	assert_string_equal(r->fs_type, "ext4");
	assert_string_equal(r->host_name, "vm");
	assert_true(r->has_host_cpus);
	assert_true(r->verdict.has);
	assert_int_equal(r->verdict.kept_up, -1);	/* null: cannot tell */
	assert_true(isnan(r->verdict.slope_per_s));
	assert_float_equal(r->verdict.load_samples, 14, 0);
	assert_float_equal(r->verdict.backlog_threshold, 1000, 0);
	assert_int_equal(r->nwarnings, 3);
	assert_string_equal(r->warnings[2].code, "no_queue");
	assert_true(r->sig.has);
	assert_int_equal(r->sig.samples, 15);
	assert_float_equal(r->sig.max, 1, 0);
	assert_non_null(r->sig.histogram);
	assert_false(r->has_recount);
	assert_ptr_equal(r->json, o);
	runrec_free(r);
	json_object_put(o);
}

static void
test_older(void **state)
{
	json_object *o = json_tokener_parse("{\"schema\": 1, \"run_id\": 4, "
	    "\"state\": \"done\"}");
	struct runrec *r = runrec_parse(o, NULL);

	(void)state;
	assert_non_null(r);
	assert_false(r->verdict.has);
	assert_int_equal(r->verdict.kept_up, -1);
	assert_int_equal(r->nwarnings, 0);
	assert_null(r->label);
	assert_true(isnan(r->elapsed_s));
	assert_false(r->sig.has);
	runrec_free(r);
	json_object_put(o);
}

/* Parse the fixture after applying the jq-like edit: set key of the
 * object at path (NULL: the top) to v (NULL: delete it). */
static char *
broken(const char *path, const char *key, json_object *v)
{
	json_object *o = fixture(), *at = o;
	char *err = NULL;
	struct runrec *r;

	if (path != NULL) {
		if (strchr(path, '[') != NULL) {	/* "warnings[1]" */
			assert_true(json_object_object_get_ex(o, "warnings",
			    &at));
			at = json_object_array_get_idx(at, 1);
		} else
			assert_true(json_object_object_get_ex(o, path, &at));
	}
	if (v == NULL)
		json_object_object_del(at, key);
	else
		json_object_object_add(at, key, v);
	r = runrec_parse(o, &err);
	assert_null(r);
	assert_non_null(err);
	json_object_put(o);
	return err;
}

static void
test_refused(void **state)
{
	static const char *const msgs[] = {
		"run report: run_id: missing",
		"run report: state: not a string",
		"run report: verdict.kept_up: not a boolean",
		"run report: warnings[1].message: missing",
		"run report: params.label: not a string",
		"run report: target.fs_type: not a string",
		"run report: schema: not an integer",
		"run report: verdict: not an object",
	};
	char *errs[8];

	(void)state;
	errs[0] = broken(NULL, "run_id", NULL);
	errs[1] = broken(NULL, "state", json_object_new_int(1));
	errs[2] = broken("verdict", "kept_up", json_object_new_string("no"));
	errs[3] = broken("warnings[1]", "message", NULL);
	errs[4] = broken("params", "label", json_object_new_int(2));
	errs[5] = broken("target", "fs_type", json_object_new_boolean(1));
	errs[6] = broken(NULL, "schema", json_object_new_string("1"));
	errs[7] = broken(NULL, "verdict", json_object_new_string("ok"));
	for (size_t i = 0; i < 8; i++) {
		assert_string_equal(errs[i], msgs[i]);
		free(errs[i]);
	}
}

/* A renamed member: the old name missing, the parse refused. */
static void
test_renamed(void **state)
{
	json_object *o = fixture(), *v;
	char *err = NULL;

	(void)state;
	assert_true(json_object_object_get_ex(o, "run_id", &v));
	json_object_object_add(o, "id", json_object_get(v));
	json_object_object_del(o, "run_id");
	assert_null(runrec_parse(o, &err));
	assert_string_equal(err, "run report: run_id: missing");
	free(err);
	json_object_put(o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_older),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_renamed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
