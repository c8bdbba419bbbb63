/* Unit tests of daemon/recover.c: records a dead stressd left active,
 * over a temporary STATE directory and real RRD files made with librrd
 * (their last update set at create, as the timestamp contract gives it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "baseline.h"
#include "knobs.h"
#include "log.h"
#include "recover.h"
#include "rrdfile.h"
#include "tmpdir.h"

#define START	946710000
#define STEP	300

struct fixture {
	char			 dir[64];
	char			 state[128];
	char			 runs[160];
	struct stress_params	 p;
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char err[256];

	if (f == NULL || tmpdir_make(f->dir, sizeof(f->dir), "recover") == -1)
		return -1;
	snprintf(f->state, sizeof(f->state), "%s/state", f->dir);
	snprintf(f->runs, sizeof(f->runs), "%s/runs", f->state);
	knobs_defaults(&f->p);
	snprintf(f->p.dir, sizeof(f->p.dir), "%s/rrd", f->dir);
	f->p.files = 3;
	if (knobs_rras_set_text(&f->p, "RRA:AVERAGE:0.5:1:10", err,
	    sizeof(err)) == -1 || mkdir(f->state, 0755) == -1 ||
	    mkdir(f->runs, 0755) == -1 ||
	    mkdir(f->p.dir, 0755) == -1)
		return -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	tmpdir_remove(f->dir);
	knobs_free(&f->p);
	free(f);
	return 0;
}

/* File n of the run with its last update at START + k * STEP. */
static void
make_file(struct fixture *f, uint32_t n, int k)
{
	char path[4200], err[1024];

	assert_int_equal(rrdfile_path(&f->p, n, path, sizeof(path)), 0);
	assert_int_equal(rrdfile_create(&f->p, path, START + k * STEP, NULL,
	    err, sizeof(err)), 0);
}

#define MISSING	BASELINE_MISSING

/* STATE/runs/<id>/ with a report.json in state st (params of f, failed
 * updates by the checkpoint), the per-file baseline base (f->p.files
 * entries; none if NULL) and a stress.log. */
static void
make_record(struct fixture *f, unsigned id, const char *st, int failed,
    const int64_t *base)
{
	json_object *o = json_object_new_object(), *c;
	char path[256], err[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/runs/%u", f->state, id);
	assert_int_equal(mkdir(path, 0755), 0);
	json_object_object_add(o, "run_id", json_object_new_int64(id));
	json_object_object_add(o, "state", json_object_new_string(st));
	json_object_object_add(o, "stressd_pid", json_object_new_int64(1));
	json_object_object_add(o, "params", knobs_to_json(&f->p));
	c = json_object_new_object();
	json_object_object_add(c, "updates_completed", json_object_new_int64(4));
	json_object_object_add(c, "creates_completed", json_object_new_int64(1));
	json_object_object_add(c, "updates_failed",
	    json_object_new_int64(failed));
	json_object_object_add(o, "counters", c);
	snprintf(path, sizeof(path), "%s/runs/%u", f->state, id);
	if (base != NULL)
		assert_int_equal(baseline_write(path, base, f->p.files, err,
		    sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/runs/%u/report.json", f->state, id);
	assert_int_equal(json_object_to_file(path, o), 0);
	json_object_put(o);
	snprintf(path, sizeof(path), "%s/runs/%u/stress.log", f->state, id);
	assert_non_null(fp = fopen(path, "w"));
	fputs("QS:\t, createsCompleted=1, updatesCompleted=4\n", fp);
	fclose(fp);
}

static json_object *
record(struct fixture *f, unsigned id)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/runs/%u/report.json", f->state, id);
	return json_object_from_file(path);
}

static json_object *
at(json_object *o, const char *a, const char *b)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, a, &v);
	if (b != NULL && v != NULL && !json_object_object_get_ex(v, b, &v))
		v = NULL;
	return v;
}

/* The last line of run id's stress.log. */
static void
last_line(struct fixture *f, unsigned id, char *buf, size_t len)
{
	char path[256], line[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/runs/%u/stress.log", f->state, id);
	assert_non_null(fp = fopen(path, "r"));
	buf[0] = '\0';
	while (fgets(line, sizeof(line), fp) != NULL)
		snprintf(buf, len, "%s", line);
	fclose(fp);
}

/* File 0 reused (last START + 5 steps at start, 3 more landed), file 1
 * created by the run (2 landed), file 2 never created. */
static void
test_recount(void **state)
{
	struct fixture *f = *state;
	json_object *o;
	char line[4096];
	const char *dir, *fs;
	unsigned id;

	int64_t base[3] = { START + 5 * STEP, MISSING, MISSING };

	make_file(f, 0, 8);
	make_file(f, 1, 2);
	make_record(f, 1, "running", 0, base);
	assert_int_equal(recover_runs(f->state, NULL, 30), 1);
	o = record(f, 1);
	assert_string_equal(json_object_get_string(at(o, "state", NULL)),
	    "interrupted");
	assert_int_equal(json_object_get_int64(at(o, "recount",
	    "updates_on_disk")), 5);
	assert_int_equal(json_object_get_int64(at(o, "recount",
	    "creates_on_disk")), 1);
	assert_int_equal(json_object_get_int64(at(o, "recount",
	    "files_read")), 2);
	assert_int_equal(json_object_get_int64(at(o, "recount",
	    "files_missing")), 1);
	assert_null(at(o, "recount", "skipped"));
	assert_true(json_object_get_boolean(at(o, "recount", "exact")));
	assert_string_equal(json_object_get_string(at(o, "interrupted",
	    "state")), "running");
	assert_non_null(strstr(json_object_get_string(at(o, "reason", NULL)),
	    "5 updates and 1 created files on disk"));
	json_object_put(o);
	last_line(f, 1, line, sizeof(line));
	assert_int_equal(strncmp(line, "# run 1 interrupted: ", 21), 0);
	assert_true(recover_last(&id, &dir, &fs));
	assert_int_equal(id, 1);
	/* Once only: interrupted is a final state. */
	assert_int_equal(recover_runs(f->state, NULL, 30), 0);
}

/* Ended runs are left alone; a record without a baseline, or past the
 * budget, is marked but not recounted, saying why. */
static void
test_skipped(void **state)
{
	struct fixture *f = *state;
	int64_t base[3] = { MISSING, MISSING, MISSING };
	json_object *o;
	const char *why;

	make_file(f, 0, 3);
	make_record(f, 1, "done", 0, base);
	make_record(f, 2, "draining", 0, NULL);
	make_record(f, 3, "creating", 0, base);
	assert_int_equal(recover_runs(f->state, NULL, 0), 2);
	o = record(f, 1);
	assert_string_equal(json_object_get_string(at(o, "state", NULL)),
	    "done");
	json_object_put(o);
	o = record(f, 2);
	assert_null(at(o, "recount", "updates_on_disk"));
	assert_non_null(why = json_object_get_string(at(o, "recount",
	    "skipped")));
	assert_non_null(strstr(why, "no baseline"));
	json_object_put(o);
	o = record(f, 3);
	assert_string_equal(json_object_get_string(at(o, "state", NULL)),
	    "interrupted");
	assert_non_null(why = json_object_get_string(at(o, "recount",
	    "skipped")));
	assert_non_null(strstr(why, "budget of 0 s"));
	assert_non_null(strstr(json_object_get_string(at(o, "reason", NULL)),
	    "not recounted: "));
	json_object_put(o);
}

/* A file there at start and gone or unreadable now: its updates are not
 * charged to the others (a sum of baselines would have: 18 for 23), and
 * the figure says it is a lower bound. */
static void
test_gone_file(void **state)
{
	struct fixture *f = *state;
	int64_t base[3] = { START + 5 * STEP, START + 4 * STEP, MISSING };
	char path[4200];
	json_object *o;
	FILE *fp;

	make_file(f, 0, 8);
	make_file(f, 2, 20);
	assert_int_equal(rrdfile_path(&f->p, 1, path, sizeof(path)), 0);
	assert_non_null(fp = fopen(path, "w"));
	fputs("no rrd\n", fp);
	fclose(fp);
	make_record(f, 1, "running", 0, base);
	assert_int_equal(recover_runs(f->state, NULL, 30), 1);
	o = record(f, 1);
	assert_int_equal(json_object_get_int64(at(o, "recount",
	    "updates_on_disk")), 23);
	assert_int_equal(json_object_get_int64(at(o, "recount",
	    "creates_on_disk")), 1);
	assert_int_equal(json_object_get_int64(at(o, "recount",
	    "files_gone")), 1);
	assert_false(json_object_get_boolean(at(o, "recount", "exact")));
	assert_non_null(strstr(json_object_get_string(at(o, "recount",
	    "inexact")), "lower bound"));
	assert_non_null(strstr(json_object_get_string(at(o, "reason", NULL)),
	    "lower bound"));
	json_object_put(o);
}

/* Failed updates by the checkpoint: rrd_last counts past their spent
 * timestamps, so the figure is an upper bound, and says so. */
static void
test_failed_bound(void **state)
{
	struct fixture *f = *state;
	int64_t base[3] = { MISSING, MISSING, MISSING };
	json_object *o;

	make_file(f, 0, 4);
	make_record(f, 1, "running", 2, base);
	assert_int_equal(recover_runs(f->state, NULL, 30), 1);
	o = record(f, 1);
	assert_int_equal(json_object_get_int64(at(o, "recount",
	    "updates_on_disk")), 4);
	assert_false(json_object_get_boolean(at(o, "recount", "exact")));
	assert_non_null(strstr(json_object_get_string(at(o, "recount",
	    "inexact")), "upper bound"));
	json_object_put(o);
}

/* Hostile or corrupt records: no crash, no overflow, a reason. */
static void
test_hostile(void **state)
{
	struct fixture *f = *state;
	int64_t base[3] = { INT64_MAX, INT64_MIN + 7, -(INT64_C(1) << 62) - 1 };
	char path[256];
	json_object *o;
	FILE *fp;

	make_file(f, 0, 4);
	make_file(f, 1, 4);
	make_file(f, 2, 4);
	make_record(f, 1, "running", 0, base);
	/* a baseline of the wrong size */
	make_record(f, 2, "running", 0, base);
	snprintf(path, sizeof(path), "%s/runs/2/%s", f->state,
	    BASELINE_FILE);
	assert_int_equal(truncate(path, 12), 0);
	/* params and counters of the wrong types */
	snprintf(path, sizeof(path), "%s/runs/3", f->state);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/runs/3/report.json", f->state);
	assert_non_null(fp = fopen(path, "w"));
	fputs("{\"state\": \"running\", \"params\": [1], "
	    "\"counters\": {\"updates_completed\": \"7\"}}\n", fp);
	fclose(fp);
	assert_int_equal(recover_runs(f->state, NULL, 30), 3);
	o = record(f, 1);
	assert_int_equal(json_object_get_int64(at(o, "recount",
	    "updates_on_disk")), 0);
	assert_false(json_object_get_boolean(at(o, "recount", "exact")));
	json_object_put(o);
	o = record(f, 2);
	assert_non_null(strstr(json_object_get_string(at(o, "recount",
	    "skipped")), "one entry per file"));
	json_object_put(o);
	o = record(f, 3);
	assert_string_equal(json_object_get_string(at(o, "state", NULL)),
	    "interrupted");
	assert_null(strstr(json_object_get_string(at(o, "reason", NULL)),
	    "-1 updates"));
	json_object_put(o);
}

/* FIFOs planted as a record, a baseline or a stress.log: the start goes
 * on (it hung in open() for ever, its socket already bound). */
static void
test_fifos(void **state)
{
	struct fixture *f = *state;
	int64_t base[3] = { BASELINE_MISSING, BASELINE_MISSING,
	    BASELINE_MISSING };
	char path[256];
	json_object *o;

	make_file(f, 0, 4);
	make_record(f, 1, "running", 0, base);
	snprintf(path, sizeof(path), "%s/runs/1/%s", f->state, BASELINE_FILE);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0644), 0);
	make_record(f, 2, "running", 0, base);
	snprintf(path, sizeof(path), "%s/runs/2/stress.log", f->state);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0644), 0);
	snprintf(path, sizeof(path), "%s/runs/3", f->state);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/runs/3/report.json", f->state);
	assert_int_equal(mkfifo(path, 0644), 0);
	alarm(20);	/* a hang fails the test instead of stalling it */
	assert_int_equal(recover_runs(f->state, NULL, 30), 2);
	alarm(0);
	o = record(f, 1);
	assert_non_null(strstr(json_object_get_string(at(o, "recount",
	    "skipped")), "baseline"));
	json_object_put(o);
	o = record(f, 2);
	assert_string_equal(json_object_get_string(at(o, "state", NULL)),
	    "interrupted");
	json_object_put(o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_recount, setup, teardown),
		cmocka_unit_test_setup_teardown(test_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gone_file, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_failed_bound, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifos, setup, teardown),
	};

	log_init(LOG_LVL_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
