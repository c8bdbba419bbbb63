/* Unit tests of daemon/run*.c without the control plane: state names and
 * the idle views, then tiny real runs (3 files, a 10-row RRA) in a temp
 * directory: one to done, one stopped without drain, one refused. */
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

#include "knobs.h"
#include "queue.h"
#include "run.h"
#include "tmpdir.h"
#include "util.h"

static char	tmp[64];

static int
setup(void **state)
{
	(void)state;
	return tmpdir_make(tmp, sizeof(tmp), "run-test");
}

static int
teardown(void **state)
{
	(void)state;
	return tmpdir_remove(tmp);
}

static void
test_state_names(void **state)
{
	static const char *const want[] = {
		"idle", "creating", "running", "draining", "done", "stopped",
		"failed"
	};

	(void)state;
	for (int s = RUN_IDLE; s <= RUN_FAILED; s++)
		assert_string_equal(run_state_name((enum run_state)s),
		    want[s]);
	assert_int_equal(run_state(NULL), RUN_IDLE);
	assert_false(run_active(NULL));
	assert_int_equal(run_id(NULL), 0);
}

static void
test_idle_views(void **state)
{
	json_object *o = run_idle_stats_json(), *v;
	char buf[64];

	(void)state;
	assert_true(json_object_object_get_ex(o, "state", &v));
	assert_string_equal(json_object_get_string(v), "idle");
	assert_true(json_object_object_get_ex(o, "errors_by_kind", &v));
	assert_true(json_object_object_get_ex(o, "cpu", &v));
	assert_true(json_object_object_get_ex(o, "significant_ops_pending",
	    &v));
	json_object_put(o);
	run_summary(NULL, buf, sizeof(buf));
	assert_string_equal(buf, "idle");
}

/* Parameters of a tiny run in tmp/<sub>; extra: more JSON args. */
static void
tiny_params(struct stress_params *p, const char *sub, double update_time,
    const char *extra)
{
	char json[1024], err[512];
	const char *field;
	json_object *args;

	snprintf(json, sizeof(json), "{\"dir\": \"%s/%s\", \"files\": 3, "
	    "\"max_updates\": 12, \"modulus\": 6, \"update_time\": %g, "
	    "\"rras\": [\"RRA:AVERAGE:0.5:1:10\"]%s%s}", tmp, sub,
	    update_time, extra[0] ? ", " : "", extra);
	assert_non_null(args = json_tokener_parse(json));
	knobs_defaults(p);
	assert_int_equal(knobs_apply(p, args, &field, err, sizeof(err)), 0);
	json_object_put(args);
}

/* Prepare and launch; -1 (field, err set) when refused. */
static int
launch(struct run **rp, unsigned id, const struct stress_params *p,
    const char **field, char *err, size_t errlen)
{
	struct run *r;

	assert_non_null(r = run_prepare(id, tmp, NULL, p, -1));
	while (!run_prepared(r))
		usleep(1000);
	*rp = r;
	return run_launch(r, field, err, errlen);
}

/* Tick until the run ends (at most 30 s). */
static void
tick_to_end(struct run *r)
{
	double give_up = util_now() + 30;

	while (!run_tick(r)) {
		assert_true(util_now() < give_up);
		usleep(2000);
	}
}

static void
test_run_done(void **state)
{
	struct stress_params p;
	struct queue_counters c;
	struct run *r;
	const char *field;
	char err[1024], path[256];
	json_object *o, *v;
	struct stat st;

	(void)state;
	tiny_params(&p, "done", 0, "");
	assert_int_equal(launch(&r, 1, &p, &field, err, sizeof(err)), 0);
	assert_true(run_active(r));
	assert_int_equal(run_id(r), 1);
	tick_to_end(r);
	assert_int_equal(run_state(r), RUN_DONE);
	assert_false(run_active(r));
	run_counters(r, &c);
	assert_int_equal(c.updates_completed, 12);
	assert_int_equal(c.creates_completed, 3);
	assert_int_equal(c.errors, 0);
	assert_int_equal(c.offered, c.enqueued + c.dropped);
	o = run_stats_json(r);
	assert_true(json_object_object_get_ex(o, "state", &v));
	assert_string_equal(json_object_get_string(v), "done");
	assert_true(json_object_object_get_ex(o, "generated", &v));
	assert_int_equal(json_object_get_int64(v), 12);
	json_object_put(o);
	o = run_status_json(r);
	assert_true(json_object_object_get_ex(o, "log", &v));
	snprintf(path, sizeof(path), "%s/runs/1/stress.log", tmp);
	assert_string_equal(json_object_get_string(v), path);
	json_object_put(o);
	assert_non_null(o = run_report_json(r));
	json_object_put(o);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/runs/1/report.json", tmp);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/runs/1/samples.csv", tmp);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/done/2.rrd", tmp);
	assert_int_equal(stat(path, &st), 0);
	run_free(r);
	knobs_free(&p);
}

/* A paced run stopped without drain ends stopped, with the reason. */
static void
test_run_stop(void **state)
{
	struct stress_params p;
	struct run *r;
	const char *field;
	char err[1024];
	json_object *o, *v;

	(void)state;
	tiny_params(&p, "stop", 600, "");
	assert_int_equal(launch(&r, 2, &p, &field, err, sizeof(err)), 0);
	run_stop(r, false, "test over");
	assert_int_equal(run_state(r), RUN_DRAINING);
	tick_to_end(r);
	assert_int_equal(run_state(r), RUN_STOPPED);
	o = run_stats_json(r);
	assert_true(json_object_object_get_ex(o, "reason", &v));
	assert_string_equal(json_object_get_string(v), "test over");
	json_object_put(o);
	run_free(r);
	knobs_free(&p);
}

/* Files of another layout are refused, naming dir. */
static void
test_run_refused(void **state)
{
	struct stress_params p;
	struct run *r;
	const char *field;
	char err[1024];

	(void)state;
	tiny_params(&p, "done", 0, "\"step\": 60");
	assert_int_equal(launch(&r, 3, &p, &field, err, sizeof(err)), -1);
	assert_string_equal(field, "dir");
	assert_non_null(strstr(err, "another layout"));
	run_free(r);
	knobs_free(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_names),
		cmocka_unit_test(test_idle_views),
		cmocka_unit_test(test_run_done),
		cmocka_unit_test(test_run_stop),
		cmocka_unit_test(test_run_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
