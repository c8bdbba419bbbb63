/* Unit tests of ctl/sweeprec.c: a real sweep record (tests/fixtures/
 * sweep-done.json, from a private stressd's two-directory sweep of two
 * repeats) read into its struct, status's "sweep" and stats' "capacity"
 * objects read (the latter through statsrec), and a renamed, mistyped or
 * missing member refused, named. */
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
#include "sweeprec.h"

static json_object *
fixture(void)
{
	const char *top = getenv("TOP_SRCDIR");
	char path[4096];
	json_object *o;

	snprintf(path, sizeof(path), "%s/tests/fixtures/sweep-done.json",
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
	struct sweeprec *r;

	(void)state;
	assert_true(sweeprec_is_record(o));
	r = sweeprec_parse(o, &err);
	assert_null(err);
	assert_non_null(r);
	assert_int_equal(r->id, 1);
	assert_string_equal(r->state, "done");
	assert_non_null(r->sweep_id);
	assert_float_equal(r->runs_planned, 4, 0);
	assert_float_equal(r->runs_failed, 0, 0);
	assert_int_equal(r->ndirs, 2);
	assert_string_equal(r->dirs[0].dir, "/tmp/sw/a");
	assert_string_equal(r->dirs[0].label, "alpha");
	assert_int_equal(r->nruns, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(r->runs[i].n, (int64_t)i + 1);
		assert_int_equal(r->runs[i].run_id, (int64_t)i + 1);
		assert_int_equal(r->runs[i].dir_index, (int64_t)(i % 2));
		assert_string_equal(r->runs[i].state, "done");
	}
	sweeprec_free(r);
	json_object_put(o);
}

/* The fixture with member key of obj ("" the top, "runs[1]", "dirs[0]")
 * set to v, or deleted when v is NULL: the error. */
static char *
broken(const char *obj, const char *key, json_object *v)
{
	json_object *o = fixture(), *at = o;
	char *err = NULL;

	if (strncmp(obj, "runs[", 5) == 0 || strncmp(obj, "dirs[", 5) == 0) {
		char arr[5];

		memcpy(arr, obj, 4);
		arr[4] = '\0';
		assert_true(json_object_object_get_ex(o, arr, &at));
		at = json_object_array_get_idx(at, (size_t)atoi(obj + 5));
		assert_non_null(at);
	}
	if (v == NULL)
		json_object_object_del(at, key);
	else
		json_object_object_add(at, key, v);
	assert_null(sweeprec_parse(o, &err));
	assert_non_null(err);
	json_object_put(o);
	return err;
}

static void
test_refused(void **state)
{
	static const char *const msgs[] = {
		"sweep record: state: missing",
		"sweep record: runs[1].state: not a string",
		"sweep record: runs[2].dir_index: 2: the record has 2 "
		    "directories",
		"sweep record: dirs[0].dir: missing",
		"sweep record: runs_planned: not a number",
		"sweep record: schema: \"stressd-capacity\", not "
		    "\"stressd-sweep\"",
		"sweep record: runs: missing",
	};
	char *errs[7];

	(void)state;
	errs[0] = broken("", "state", NULL);
	errs[1] = broken("runs[1]", "state", json_object_new_int(3));
	errs[2] = broken("runs[2]", "dir_index", json_object_new_int(2));
	errs[3] = broken("dirs[0]", "dir", NULL);
	errs[4] = broken("", "runs_planned", json_object_new_string("4"));
	errs[5] = broken("", "schema",
	    json_object_new_string("stressd-capacity"));
	errs[6] = broken("", "runs", NULL);
	for (size_t i = 0; i < 7; i++) {
		assert_string_equal(errs[i], msgs[i]);
		free(errs[i]);
	}
}

/* A stats reply while a sweep runs, and while a search runs: where each
 * is, typed; a mistyped member of either named. */
static void
test_where(void **state)
{
	json_object *o = json_tokener_parse("{\"state\": \"running\", "
	    "\"sweep\": {\"id\": 7, \"sweep_id\": \"s-1-7\", \"state\": "
	    "\"running\", \"label\": \"ssd\", \"run\": 3, \"runs_planned\": "
	    "4, \"runs_done\": 2, \"runs_failed\": 0}, \"capacity\": {\"id\": "
	    "9, \"state\": \"running\", \"dir_index\": 1, \"ndirs\": 2, "
	    "\"dir\": \"/b\", \"step\": 3, \"phase\": \"grow\", \"rate\": "
	    "400.5, \"kept_up_rate\": 200, \"behind_rate\": null, "
	    "\"steps_done\": 2}}");
	char *err = NULL;
	struct statsrec *s = statsrec_parse(o, &err);

	(void)state;
	assert_null(err);
	assert_non_null(s);
	assert_true(s->sweep.has);
	assert_int_equal(s->sweep.id, 7);
	assert_string_equal(s->sweep.label, "ssd");
	assert_float_equal(s->sweep.run, 3, 0);
	assert_float_equal(s->sweep.runs_done, 2, 0);
	assert_true(s->capacity.has);
	assert_int_equal(s->capacity.id, 9);
	assert_string_equal(s->capacity.phase, "grow");
	assert_float_equal(s->capacity.rate, 400.5, 0);
	assert_float_equal(s->capacity.kept_up_rate, 200, 0);
	assert_true(isnan(s->capacity.behind_rate));
	assert_float_equal(s->capacity.steps_done, 2, 0);
	statsrec_free(s);
	json_object_object_add(json_object_object_get(o, "sweep"), "run",
	    json_object_new_string("3"));
	assert_null(statsrec_parse(o, &err));
	assert_string_equal(err, "stats reply: sweep.run: not a number");
	free(err);
	json_object_object_add(json_object_object_get(o, "sweep"), "run",
	    json_object_new_int(3));
	json_object_object_del(json_object_object_get(o, "capacity"), "id");
	assert_null(statsrec_parse(o, &err));
	assert_string_equal(err, "stats reply: capacity.id: missing");
	free(err);
	json_object_put(o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_where),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
