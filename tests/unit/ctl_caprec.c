/* Unit tests of ctl/caprec.c: the capacity records of tests/fixtures read
 * into their structs (with and without the grid and spread of newer
 * records), and a record whose required member is renamed, missing or
 * mistyped refused with the member named. */
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

#include "caprec.h"
#include "fixture.h"

static void
test_alpha(void **state)
{
	json_object *o = fixture_load("capacity-alpha.json");
	struct caprec *r;
	char *err = NULL;

	(void)state;
	r = caprec_parse(o, &err);
	assert_null(err);
	assert_non_null(r);
	assert_int_equal(r->id, 7);
	assert_string_equal(r->state, "done");
	assert_string_equal(r->host, "alpha");
	assert_true(r->has_files);
	assert_int_equal(r->files, 3000);
	assert_string_equal(r->sync, "data");
	assert_float_equal(r->search.precision_pct, 10, 0);
	assert_int_equal(r->ndirs, 3);
	assert_string_equal(r->dirs[1].dir, "/mnt/xfs/s");
	assert_string_equal(r->dirs[1].fs_type, "xfs");
	assert_float_equal(r->dirs[1].capacity_rate, 1000, 0);
	assert_float_equal(r->dirs[1].behind_rate, 1100, 0);
	assert_string_equal(r->dirs[2].limited_by, "cpu");
	assert_true(r->dirs[0].has_at);
	assert_float_equal(r->dirs[0].at.latency_p99_ms, 40.5, 0);
	/* absent from the fixture: absent in the struct */
	assert_true(isnan(r->dirs[0].at.cpu_writers_runq_pct));
	assert_int_equal(r->nsteps, 9);
	assert_int_equal(r->steps[8].dir_index, 2);
	assert_int_equal(r->steps[8].cpu_limited, 1);
	assert_int_equal(r->steps[8].kept_up, 0);
	assert_string_equal(r->steps[2].phase, "bisect");
	assert_float_equal(r->steps[1].slope_per_s, 40, 0);
	caprec_free(r);
	json_object_put(o);
}

static void
test_beta(void **state)
{
	json_object *o = fixture_load("capacity-beta.json");
	struct caprec *r = caprec_parse(o, NULL);

	(void)state;
	assert_non_null(r);
	assert_string_equal(r->host, "beta");
	assert_true(r->ndirs >= 1);
	/* the record keeps its JSON for --json */
	assert_ptr_equal(r->json, o);
	caprec_free(r);
	json_object_put(o);
}

/* The error of parsing the alpha fixture after edit(o), which must fail. */
static char *
broken(void (*edit)(json_object *))
{
	json_object *o = fixture_load("capacity-alpha.json");
	char *err = NULL;
	struct caprec *r;

	edit(o);
	r = caprec_parse(o, &err);
	assert_null(r);
	assert_non_null(err);
	json_object_put(o);
	return err;
}

static json_object *
dir1(json_object *o)
{
	json_object *d;

	assert_true(json_object_object_get_ex(o, "dirs", &d));
	return json_object_array_get_idx(d, 1);
}

static json_object *
step2(json_object *o)
{
	json_object *s;

	assert_true(json_object_object_get_ex(o, "steps", &s));
	return json_object_array_get_idx(s, 2);
}

static void
rename_dir(json_object *o)
{
	json_object *d = dir1(o), *v;

	assert_true(json_object_object_get_ex(d, "dir", &v));
	json_object_object_add(d, "directory", json_object_get(v));
	json_object_object_del(d, "dir");
}

static void
label_number(json_object *o)
{
	json_object_object_add(dir1(o), "label", json_object_new_int(5));
}

static void
no_rate(json_object *o)
{
	json_object_object_del(step2(o), "rate");
}

static void
rate_string(json_object *o)
{
	json_object_object_add(step2(o), "rate", json_object_new_string("1"));
}

static void
kept_up_string(json_object *o)
{
	json_object_object_add(step2(o), "kept_up",
	    json_object_new_string("yes"));
}

static void
bad_index(json_object *o)
{
	json_object_object_add(step2(o), "dir_index", json_object_new_int(3));
}

static void
no_state(json_object *o)
{
	json_object_object_del(o, "state");
}

static void
version_2(json_object *o)
{
	json_object_object_add(o, "schema_version", json_object_new_int(2));
}

static void
no_version(json_object *o)
{
	json_object_object_del(o, "schema_version");
}

static void
version_mistyped(json_object *o)
{
	json_object_object_add(o, "schema_version",
	    json_object_new_string("1"));
}

static void
dirs_object(json_object *o)
{
	json_object_object_add(o, "dirs", json_object_new_object());
}

static void
at_capacity_mistyped(json_object *o)
{
	json_object *at;

	assert_true(json_object_object_get_ex(dir1(o), "at_capacity", &at));
	json_object_object_add(at, "queue_p99", json_object_new_string("6"));
}

/* dir1 of the alpha fixture given the grid and spread the daemon writes
 * now, the spread's queue_avg q (a JSON text). */
static void
add_grid_spread(json_object *o, const char *q)
{
	char *s;

	assert_true(asprintf(&s, "{\"steps\": 3, \"queue_avg\": %s, "
	    "\"latency_p99_ms\": null}", q) > 0);
	json_object_object_add(dir1(o), "at_capacity_spread",
	    json_tokener_parse(s));
	free(s);
	json_object_object_add(dir1(o), "grid", json_tokener_parse(
	    "{\"jitter\": 1.372, \"first_rate\": 137.2}"));
}

static void
spread_short(json_object *o)
{
	add_grid_spread(o, "[1]");
}

static void
spread_string(json_object *o)
{
	add_grid_spread(o, "[1, \"2\"]");
}

static void
grid_mistyped(json_object *o)
{
	add_grid_spread(o, "[1, 2]");
	json_object_object_add(dir1(o), "grid", json_object_new_int(1));
}

/* A directory's grid and its spread at capacity are read; a record
 * written before them (the fixtures) has neither, and still loads. */
static void
test_grid_spread(void **state)
{
	json_object *o = fixture_load("capacity-alpha.json");
	struct caprec *r;
	char *err = NULL;

	(void)state;
	add_grid_spread(o, "[0.5, 2.25]");
	r = caprec_parse(o, &err);
	assert_null(err);
	assert_non_null(r);
	assert_true(r->dirs[1].has_spread);
	assert_int_equal(r->dirs[1].spread_steps, 3);
	assert_float_equal(r->dirs[1].spread_queue_avg[0], 0.5, 0);
	assert_float_equal(r->dirs[1].spread_queue_avg[1], 2.25, 0);
	assert_true(isnan(r->dirs[1].spread_latency_p99_ms[0]));
	assert_float_equal(r->dirs[1].jitter, 1.372, 0);
	assert_float_equal(r->dirs[1].first_rate, 137.2, 0);
	/* the other directories, as an older record's: absent */
	assert_false(r->dirs[0].has_spread);
	assert_true(isnan(r->dirs[0].jitter) && isnan(r->dirs[0].first_rate));
	assert_true(isnan(r->dirs[0].spread_queue_avg[0]));
	caprec_free(r);
	json_object_put(o);
}

static void
test_refused(void **state)
{
	static const struct {
		void		(*edit)(json_object *);
		const char	*msg;
	} cases[] = {
		{ rename_dir, "capacity record: dirs[1].dir: missing" },
		{ label_number, "capacity record: dirs[1].label: not a "
		    "string" },
		{ no_rate, "capacity record: steps[2].rate: missing" },
		{ rate_string, "capacity record: steps[2].rate: not a "
		    "number" },
		{ kept_up_string, "capacity record: steps[2].kept_up: not a "
		    "boolean" },
		{ bad_index, "capacity record: steps[2].dir_index: 3: the "
		    "record has 3 directories" },
		{ no_state, "capacity record: state: missing" },
		{ version_mistyped, "capacity record: schema_version: not "
		    "an integer" },
		{ dirs_object, "capacity record: dirs: not an array" },
		{ at_capacity_mistyped, "capacity record: "
		    "dirs[1].at_capacity.queue_p99: not a number" },
		{ spread_short, "capacity record: "
		    "dirs[1].at_capacity_spread.queue_avg: not [min, max]" },
		{ spread_string, "capacity record: "
		    "dirs[1].at_capacity_spread.queue_avg: [1]: not a number" },
		{ grid_mistyped, "capacity record: dirs[1].grid: not an "
		    "object" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *err = broken(cases[i].edit);

		assert_string_equal(err, cases[i].msg);
		free(err);
	}
}

/* Another schema_version is read as version 1, as a newer run report is,
 * with a warning for the caller to show: a record that displayed before
 * versions were checked still displays. */
static void
test_other_version(void **state)
{
	static const struct {
		void		(*edit)(json_object *);
		const char	*warning;
	} cases[] = {
		{ version_2, "has schema_version 2, this stressctl reads "
		    "schema_version 1" },
		{ no_version, "has no schema_version, this stressctl reads "
		    "schema_version 1" },
	};
	json_object *o = fixture_load("capacity-alpha.json");
	struct caprec *r;
	char *err = NULL;

	(void)state;
	assert_non_null(r = caprec_parse(o, &err));
	assert_null(caprec_version_warning(r));
	caprec_free(r);
	json_object_put(o);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		o = fixture_load("capacity-alpha.json");
		cases[i].edit(o);
		r = caprec_parse(o, &err);
		assert_null(err);
		assert_non_null(r);
		assert_int_equal(r->ndirs, 3);
		assert_string_equal(r->dirs[1].dir, "/mnt/xfs/s");
		err = caprec_version_warning(r);
		assert_string_equal(err, cases[i].warning);
		free(err);
		err = NULL;
		caprec_free(r);
		json_object_put(o);
	}
}

static void
test_not_record(void **state)
{
	json_object *o = json_tokener_parse("{\"schema\": 3}");
	char *err = NULL;

	(void)state;
	assert_false(caprec_is_record(o));
	assert_null(caprec_parse(o, &err));
	assert_string_equal(err, "capacity record: schema: not a string");
	free(err);
	json_object_put(o);
	assert_null(caprec_parse(NULL, &err));
	assert_string_equal(err, "capacity record: not a JSON object");
	free(err);
	/* null is what the daemon writes for what it does not know */
	o = json_tokener_parse("{\"schema\": \"stressd-capacity\", "
	    "\"schema_version\": 1, \"id\": 1, \"state\": \"running\", "
	    "\"host\": null, \"dirs\": [{\"dir\": \"/a\", \"state\": "
	    "\"running\", \"capacity_rate\": null, \"at_capacity\": null}], "
	    "\"steps\": []}");
	assert_true(caprec_is_record(o));
	{
		struct caprec *r = caprec_parse(o, NULL);

		assert_non_null(r);
		assert_null(r->host);
		assert_true(isnan(r->dirs[0].capacity_rate));
		assert_false(r->dirs[0].has_at);
		assert_false(r->has_files);
		caprec_free(r);
	}
	json_object_put(o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alpha),
		cmocka_unit_test(test_beta),
		cmocka_unit_test(test_grid_spread),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_other_version),
		cmocka_unit_test(test_not_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
