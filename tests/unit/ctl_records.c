/* Unit tests of ctl/records.c: which RUN operands are paths, loading a
 * report.json file (and refusing what is not one), the files beside a
 * record, and which states are ended. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "jpath.h"
#include "proto.h"
#include "records.h"

static char dir[] = "/tmp/ctl_records.XXXXXX";

static char *
path_of(const char *name)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", dir, name) != -1);
	return p;
}

static char *
write_file(const char *name, const char *text)
{
	char *p = path_of(name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return p;
}

/* A call that must not happen: records read from files ask nobody. */
static json_object *
no_call(void *arg, const char *cmd, json_object *args, int *rc)
{
	(void)arg;
	(void)cmd;
	(void)args;
	*rc = CTL_EXIT_ERROR;
	fail_msg("the daemon was called");
	return NULL;
}

static const struct records_ctx ctx = { .name = "test", .call = no_call };

static void
test_is_path(void **state)
{
	(void)state;
	assert_true(records_is_path("runs/3/report.json"));
	assert_true(records_is_path("report.json"));
	assert_true(records_is_path("./3"));
	assert_false(records_is_path("3"));
	assert_false(records_is_path("3.jso"));
	assert_false(records_is_path("json"));
}

static void
test_load_file(void **state)
{
	char *p = write_file("report.json",
	    "{\"schema\": 1, \"run_id\": 4, \"state\": \"done\"}");
	json_object *rep;
	int rc = -1;

	(void)state;
	rep = records_load(&ctx, p, &rc);
	assert_non_null(rep);
	assert_int_equal(rc, CTL_EXIT_OK);
	assert_int_equal(json_object_get_int(jpath(rep, "run_id")), 4);
	json_object_put(rep);
	free(p);
	/* A capacity record: its schema is a name, not a number. */
	p = write_file("capacity.json", "{\"schema\": \"stressd-capacity\", "
	    "\"schema_version\": 1, \"id\": 5}");
	rep = records_load(&ctx, p, &rc);
	assert_non_null(rep);
	assert_int_equal(json_object_get_int(jpath(rep, "id")), 5);
	json_object_put(rep);
	free(p);
}

static void
test_load_refused(void **state)
{
	static const char *const bad[] = {
		"{\"schema\": 1", "[1, 2]", "{\"run_id\": 4}",
		"{\"schema\": \"1\"}", ""
	};
	int rc;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char *p = write_file("bad.json", bad[i]);

		rc = -1;
		assert_null(records_load(&ctx, p, &rc));
		assert_int_equal(rc, CTL_EXIT_ERROR);
		free(p);
	}
	rc = -1;
	assert_null(records_load(&ctx, "/nonexistent/report.json", &rc));
	assert_int_equal(rc, CTL_EXIT_ERROR);
}

static void
test_files(void **state)
{
	json_object *rep = json_tokener_parse("{\"files\": {\"metrics_rrd\": "
	    "\"/elsewhere/runs/4/metrics.rrd\"}}");
	char *rpath = path_of("report.json"), *beside, *f;

	(void)state;
	/* From the daemon: the path in the record. */
	f = records_file("4", rep, "metrics_rrd", "metrics.rrd");
	assert_string_equal(f, "/elsewhere/runs/4/metrics.rrd");
	free(f);
	assert_null(records_file("4", rep, "samples_csv", "samples.csv"));
	/* From a file: the record's path while nothing is beside it... */
	f = records_file(rpath, rep, "metrics_rrd", "metrics.rrd");
	assert_string_equal(f, "/elsewhere/runs/4/metrics.rrd");
	free(f);
	/* ...and the file beside it once there is one. */
	beside = write_file("metrics.rrd", "");
	f = records_file(rpath, rep, "metrics_rrd", "metrics.rrd");
	assert_string_equal(f, beside);
	free(f);
	/* A file the record does not name is looked for beside it. */
	f = records_file(rpath, rep, "samples_csv", "samples.csv");
	assert_non_null(strstr(f, "/samples.csv"));
	free(f);
	unlink(beside);
	free(beside);
	free(rpath);
	json_object_put(rep);
}

static void
test_state_ended(void **state)
{
	(void)state;
	assert_true(records_state_ended("done"));
	assert_true(records_state_ended("stopped"));
	assert_true(records_state_ended("failed"));
	assert_true(records_state_ended("idle"));
	assert_false(records_state_ended("running"));
	assert_false(records_state_ended("draining"));
	assert_false(records_state_ended(NULL));
}

static int
setup(void **state)
{
	(void)state;
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char *p;

	(void)state;
	p = path_of("report.json");
	unlink(p);
	free(p);
	p = path_of("bad.json");
	unlink(p);
	free(p);
	return rmdir(dir);
}

/* A path operand names a report.json; a run directory stands for its
 * report.json; a run id is none. */
static void
test_file_path(void **state)
{
	char dir[32] = "/tmp/ctl_records.XXXXXX", *p, *want;

	(void)state;
	assert_null(records_file_path("12"));
	p = records_file_path("copy/report.json");
	assert_string_equal(p, "copy/report.json");
	free(p);
	assert_non_null(mkdtemp(dir));
	assert_true(asprintf(&want, "%s/report.json", dir) != -1);
	p = records_file_path(dir);
	assert_string_equal(p, want);
	free(p);
	/* A trailing '/' gets no second one. */
	strcat(dir, "/");
	p = records_file_path(dir);
	assert_string_equal(p, want);
	free(p);
	free(want);
	dir[strlen(dir) - 1] = '\0';
	/* A capacity search's directory stands for its capacity.json. */
	{
		char *cap;
		FILE *fp;

		assert_true(asprintf(&cap, "%s/capacity.json", dir) != -1);
		assert_non_null(fp = fopen(cap, "w"));
		fputs("{\"schema\": \"stressd-capacity\", \"id\": 3}", fp);
		fclose(fp);
		p = records_file_path(dir);
		assert_string_equal(p, cap);
		free(p);
		assert_int_equal(unlink(cap), 0);
		free(cap);
	}
	assert_int_equal(rmdir(dir), 0);
}

/* Ranges of 1, 2, 5 x 10^k that show a queue's values in at most
 * RECORDS_HIST_ROWS rows; a histogram of 150 values drawn in 15. */
static void
test_hist_ranges(void **state)
{
	json_object *h = json_object_new_array();
	char buf[16384];
	FILE *fp;
	int rows = 0;

	(void)state;
	assert_int_equal(records_hist_width(0, 15), 1);
	assert_int_equal(records_hist_width(0, 16), 2);
	assert_int_equal(records_hist_width(0, 149), 10);
	assert_int_equal(records_hist_width(3, 1000), 100);
	assert_int_equal(records_hist_width(20, 149), 10);
	assert_int_equal(records_hist_width(7, 7), 1);
	for (int v = 0; v < 150; v++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "value", json_object_new_int(v));
		json_object_object_add(e, "count", json_object_new_int(1));
		json_object_array_add(h, e);
	}
	/* records_histogram prints to stdout: a memory stream stands in */
	memset(buf, 0, sizeof(buf));
	assert_non_null(fp = fmemopen(buf, sizeof(buf) - 1, "w"));
	{
		FILE *saved = stdout;

		stdout = fp;
		records_histogram(h, 2);
		fflush(stdout);
		stdout = saved;
	}
	fclose(fp);
	for (char *p = buf; (p = strchr(p, '\n')) != NULL; p++)
		rows++;
	assert_int_equal(rows, 15);
	assert_non_null(strstr(buf, "  0-9: 10"));
	assert_non_null(strstr(buf, "140-149: 10"));
	json_object_put(h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_is_path),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_load_refused),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_state_ended),
		cmocka_unit_test(test_hist_ranges),
		cmocka_unit_test(test_file_path),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
