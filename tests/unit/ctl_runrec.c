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
	assert_float_equal(r->sig.max.d, 1, 0);
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

/* The figures the report and compare show, read as the record wrote
 * them: integers stay integers, so they print as written. */
static void
test_figures(void **state)
{
	json_object *o = fixture();
	struct runrec *r = runrec_parse(o, NULL);
	char *t;

	(void)state;
	assert_non_null(r);
	assert_true(r->counters.updates_completed.is_int);
	assert_int_equal(r->counters.updates_completed.i, 3000);
	assert_true(r->update_call.has);
	assert_false(r->update_call.p99.is_int);
	assert_float_equal(r->update_call.p99.d, 0.234495, 0);
	t = recparse_number_text(&r->update_call.p99, "%.3f");
	assert_string_equal(t, "0.234");
	free(t);
	t = recparse_number_text(&r->samples, NULL);
	assert_string_equal(t, "15");
	free(t);
	assert_false(r->rrdcached.has);
	assert_true(r->generators.has);
	assert_int_equal(r->generators.held_back, 0);
	assert_null(r->cold_cache.method);
	assert_true(isnan(r->memory_limit_bytes));
	assert_int_equal(r->errors.nfirst_messages, 0);
	assert_string_equal(r->samples_csv,
	    "/var/lib/stressd/runs/1/samples.csv");
	assert_true(r->sig.nbuckets > 0);
	assert_int_equal(r->sig.buckets[0].value, 0);
	assert_false(r->sig.buckets[0].has_upper);
	assert_true(r->files_knob.has && r->files_knob.is_int);
	assert_true(r->sig.average.has && !r->sig.average.is_int);
	assert_false(r->rrdcached.flush_s.has);
	assert_false(r->recount.has);
	/* what a record lacks prints as "-" */
	assert_false(r->rrdcached.queue.p99.has);
	t = recparse_number_text(&r->rrdcached.queue.p99, NULL);
	assert_string_equal(t, "-");
	free(t);
	runrec_free(r);
	json_object_put(o);
}

/* A figure mistyped at a dotted path of objects: refused, named. */
static char *
broken_at(const char *path, const char *key, json_object *v)
{
	json_object *o = fixture(), *at = o;
	char buf[128], *seg, *save = NULL;
	char *err = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (seg = strtok_r(buf, ".", &save); seg != NULL;
	    seg = strtok_r(NULL, ".", &save)) {
		json_object *next;

		if (!json_object_object_get_ex(at, seg, &next) ||
		    next == NULL) {
			next = json_object_new_object();
			json_object_object_add(at, seg, next);
		}
		at = next;
	}
	if (v == NULL)
		json_object_object_del(at, key);
	else
		json_object_object_add(at, key, v);
	assert_null(runrec_parse(o, &err));
	assert_non_null(err);
	json_object_put(o);
	return err;
}

static void
test_figures_refused(void **state)
{
	static const struct {
		const char	*path, *key, *json, *msg;
	} cases[] = {
		{ "counters", "updates_completed", "\"3000\"",
		  "counters.updates_completed: not a number" },
		{ "throughput", "ops_per_update", "true",
		  "throughput.ops_per_update: not a number" },
		{ "latency_ms.update_call", "p99", "[]",
		  "latency_ms.update_call.p99: not a number" },
		{ "latency_ms", "fdatasync", "3",
		  "latency_ms.fdatasync: not an object" },
		{ "errors", "first_messages", "[1]",
		  "errors.first_messages[0]: not a string" },
		{ "queue_depth.total_operations_pending", "p99", "\"5\"",
		  "queue_depth.total_operations_pending.p99: not a number" },
		{ "rrdcached.queue_length", "max", "{}",
		  "rrdcached.queue_length.max: not a number" },
		{ "rrdcached", "restarted", "1",
		  "rrdcached.restarted: not a boolean" },
		{ "rrdcached.latest", "UpdatesWritten", "\"9\"",
		  "rrdcached.latest.UpdatesWritten: not a number" },
		{ "generators", "held_back", "\"no\"",
		  "generators.held_back: not a boolean" },
		{ "recount", "updates_on_disk", "\"7\"",
		  "recount.updates_on_disk: not a number" },
		{ "files", "samples_csv", "4",
		  "files.samples_csv: not a string" },
		{ "memory", "source", "false", "memory.source: not a string" },
		{ "cold_cache", "seconds", "\"1\"",
		  "cold_cache.seconds: not a number" },
		{ "", "samples", "\"15\"", "samples: not a number" },
		/* what compare and graph read by name */
		{ "params", "files", "\"40\"", "params.files: not a number" },
		{ "queue_depth.significant_ops_pending", "average", "\"1\"",
		  "queue_depth.significant_ops_pending.average: not a number" },
		{ "rrdcached", "flush_s", "\"0.1\"",
		  "rrdcached.flush_s: not a number" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *err = broken_at(cases[i].path, cases[i].key,
		    json_tokener_parse(cases[i].json));
		char want[200];

		snprintf(want, sizeof(want), "run report: %s", cases[i].msg);
		assert_string_equal(err, want);
		free(err);
	}
	/* a histogram's entry without its count */
	{
		json_object *o = fixture(), *qd, *sig, *h;
		char *err = NULL;

		assert_true(json_object_object_get_ex(o, "queue_depth", &qd));
		assert_true(json_object_object_get_ex(qd,
		    "significant_ops_pending", &sig));
		assert_true(json_object_object_get_ex(sig, "histogram", &h));
		json_object_object_del(json_object_array_get_idx(h, 0),
		    "count");
		assert_null(runrec_parse(o, &err));
		assert_string_equal(err, "run report: queue_depth."
		    "significant_ops_pending.histogram[0].count: missing");
		free(err);
		json_object_put(o);
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
		cmocka_unit_test(test_figures),
		cmocka_unit_test(test_figures_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
