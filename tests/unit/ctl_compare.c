/* Unit tests of ctl/cmd-compare.c and ctl/compare-view.c: each row of
 * the comparison reads the record's member its path names (the path read
 * by tests/unit/jpath.c is the oracle), the runs' names, and compare
 * refusing a record with a mistyped member, named, where it used to show
 * nothing for it. */
#include <fcntl.h>
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

#include "cmd-compare.h"
#include "compare-view.h"
#include "fixture.h"
#include "jpath.h"
#include "proto.h"
#include "runrec.h"

static json_object *
fixture(void)
{
	return fixture_load("report-run.json");
}

/* o[key] = v, o[key] made an object when it is none. */
static json_object *
set(json_object *o, const char *key, json_object *v)
{
	json_object *x;

	if (v == NULL) {
		if (!json_object_object_get_ex(o, key, &x) ||
		    !json_object_is_type(x, json_type_object)) {
			x = json_object_new_object();
			json_object_object_add(o, key, x);
		}
		return x;
	}
	json_object_object_add(o, key, v);
	return v;
}

/* Every row's cell is the value at its path, formatted as compare
 * formats it: a row whose offset names another member fails here. */
static void
test_rows(void **state)
{
	json_object *o = fixture(), *x;
	struct runrec *r;
	char *err = NULL;

	(void)state;
	/* The members the fixture lacks, each a value of its own. */
	set(set(o, "recount", NULL), "updates_on_disk",
	    json_object_new_int(2999));
	x = set(o, "rrdcached", NULL);
	set(x, "flush_s", json_object_new_double(0.25));
	x = set(x, "queue_length", NULL);
	set(x, "average", json_object_new_double(1.5));
	set(x, "max", json_object_new_int(7));
	x = set(set(o, "latency_ms", NULL), "fdatasync", NULL);
	set(x, "p50", json_object_new_double(0.125));
	set(x, "p99", json_object_new_double(0.5));
	assert_non_null(r = runrec_parse(o, &err));
	for (size_t i = 0; i < cmd_compare_nrows; i++) {
		const struct compare_row *row = &cmd_compare_rows[i];
		char *want = jpath_text(o, row->path, row->dfmt);
		char *got = cmd_compare_cell(r, row);

		assert_non_null(jpath(o, row->path));
		if (strcmp(want, got) != 0)
			fail_msg("row %s (%s): %s, the record has %s",
			    row->label, row->path, got, want);
		free(want);
		free(got);
	}
	assert_string_equal(cmd_compare_rows[CMD_COMPARE_DONE].path,
	    "counters.updates_completed");
	runrec_free(r);
	json_object_put(o);
}

/* The fixture as run id with label and filesystem type. */
static struct runrec *
run(int64_t id, const char *label, const char *fs, const char *host)
{
	json_object *o = fixture(), *x;
	struct runrec *r;

	json_object_object_add(o, "run_id", json_object_new_int64(id));
	assert_true(json_object_object_get_ex(o, "params", &x));
	json_object_object_add(x, "label", json_object_new_string(label));
	assert_true(json_object_object_get_ex(o, "target", &x));
	json_object_object_add(x, "fs_type", json_object_new_string(fs));
	assert_true(json_object_object_get_ex(o, "host", &x));
	json_object_object_add(x, "name", json_object_new_string(host));
	assert_non_null(r = runrec_parse(o, NULL));
	json_object_put(o);
	return r;
}

static void
test_names(void **state)
{
	struct runrec *r[3] = {
		run(1, "", "ext4", "a"), run(2, "", "xfs", "a"),
		run(3, "fast", "xfs", "a"),
	};
	struct compare_view v;

	(void)state;
	compare_view_init(&v, (const struct runrec *const *)r, 3);
	assert_false(v.by_host);
	assert_string_equal(v.name[0], "ext4");
	assert_string_equal(v.name[1], "xfs");
	assert_string_equal(v.name[2], "fast");
	assert_string_equal(v.run[2], "run 3");
	assert_string_equal(v.who[2], "run 3 (fast)");
	assert_string_equal(v.cand[2], "fast");
	compare_view_free(&v);
	runrec_free(r[2]);
	r[2] = run(1, "fast", "xfs", "b");
	compare_view_init(&v, (const struct runrec *const *)r, 3);
	assert_true(v.by_host);
	assert_string_equal(v.run[2], "run 1@b");
	assert_string_equal(v.cand[2], "fast@b");
	compare_view_free(&v);
	for (int i = 0; i < 3; i++)
		runrec_free(r[i]);
}

/* compare of two copies of the fixture, the second with member key of
 * object at (NULL: the top) set to v: its exit status and stderr. */
static int
compare_broken(const char *at, const char *key, json_object *v, char *msg,
    size_t len)
{
	char dir[] = "/tmp/ctl_compare.XXXXXX", a[64], b[64], errf[64];
	char *runs[2] = { a, b };
	struct records_ctx ctx = { .name = "compare", .runs = runs,
	    .nruns = 2 };
	json_object *o = fixture(), *x = o;
	int saved, fd, rc;
	ssize_t n;

	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(b, sizeof(b), "%s/b.json", dir);
	snprintf(errf, sizeof(errf), "%s/err", dir);
	assert_int_equal(json_object_to_file(a, o), 0);
	if (at != NULL)
		assert_true(json_object_object_get_ex(o, at, &x));
	json_object_object_add(x, key, v);
	assert_int_equal(json_object_to_file(b, o), 0);
	json_object_put(o);
	fflush(stdout);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	fd = open(errf, O_CREAT | O_RDWR | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, STDERR_FILENO);
	rc = cmd_compare_show(&ctx, NULL);
	fflush(stdout);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, msg, len - 1, 0);
	msg[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(errf);
	unlink(a);
	unlink(b);
	rmdir(dir);
	return rc;
}

static void
test_refused(void **state)
{
	char msg[512];

	(void)state;
	/* A number where the filesystem's name belongs: the old views
	 * printed "-" for it and went on. */
	assert_int_equal(compare_broken("target", "fs_type",
	    json_object_new_int(5), msg, sizeof(msg)), CTL_EXIT_ERROR);
	assert_non_null(strstr(msg, "stressctl compare: "));
	assert_non_null(strstr(msg, "b.json: run report: target.fs_type: "
	    "not a string"));
	assert_int_equal(compare_broken("params", "sync",
	    json_object_new_boolean(1), msg, sizeof(msg)), CTL_EXIT_ERROR);
	assert_non_null(strstr(msg, "run report: params.sync: not a "
	    "string"));
	assert_int_equal(compare_broken(NULL, "run_id", NULL, msg,
	    sizeof(msg)), CTL_EXIT_ERROR);
	assert_non_null(strstr(msg, "run report: run_id: missing"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
