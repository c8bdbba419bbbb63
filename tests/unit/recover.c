/* Unit tests of daemon/recover.c: records a dead stressd left active,
 * over a temporary STATE directory and real RRD files made with librrd
 * (their last update set at create, as the timestamp contract gives it). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>

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

/* STATE/runs/<id>/ with a report.json in state st (params of f, pid, the
 * baseline given unless reused < 0) and a stress.log. */
static void
make_record(struct fixture *f, unsigned id, const char *st, long pid,
    int reused, int64_t last_sum)
{
	json_object *o = json_object_new_object(), *b, *c;
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/runs/%u", f->state, id);
	assert_int_equal(mkdir(path, 0755), 0);
	json_object_object_add(o, "run_id", json_object_new_int64(id));
	json_object_object_add(o, "state", json_object_new_string(st));
	json_object_object_add(o, "stressd_pid", json_object_new_int64(pid));
	json_object_object_add(o, "params", knobs_to_json(&f->p));
	c = json_object_new_object();
	json_object_object_add(c, "updates_completed", json_object_new_int64(4));
	json_object_object_add(c, "creates_completed", json_object_new_int64(1));
	json_object_object_add(o, "counters", c);
	if (reused >= 0) {
		b = json_object_new_object();
		json_object_object_add(b, "files_reused",
		    json_object_new_int64(reused));
		json_object_object_add(b, "last_update_sum",
		    json_object_new_int64(last_sum));
		json_object_object_add(o, "baseline", b);
	}
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

	make_file(f, 0, 8);
	make_file(f, 1, 2);
	make_record(f, 1, "running", 0, 1, START + 5 * STEP);
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
	json_object *o;
	const char *why;

	make_file(f, 0, 3);
	make_record(f, 1, "done", 0, 0, 0);
	make_record(f, 2, "draining", 0, -1, 0);
	make_record(f, 3, "creating", 0, 0, 0);
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

/* A record of a stressd that still runs (another one on this state
 * directory) is not touched. */
static void
test_live_owner(void **state)
{
	struct fixture *f = *state;
	json_object *o;
	pid_t pid;
	int st;

	if ((pid = fork()) == 0) {
		prctl(PR_SET_NAME, "stressd");
		pause();
		_exit(0);
	}
	assert_true(pid > 0);
	usleep(100000);	/* its new name */
	make_record(f, 1, "running", pid, 0, 0);
	assert_int_equal(recover_runs(f->state, NULL, 30), 0);
	o = record(f, 1);
	assert_string_equal(json_object_get_string(at(o, "state", NULL)),
	    "running");
	json_object_put(o);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	assert_int_equal(recover_runs(f->state, NULL, 30), 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_recount, setup, teardown),
		cmocka_unit_test_setup_teardown(test_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_owner, setup,
		    teardown),
	};

	log_init(LOG_LVL_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
