/* Unit tests of daemon/runrecords.c over a temporary STATE directory of
 * made-up run directories and report.json files. */
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

#include "log.h"
#include "runrecords.h"

struct fixture {
	char	dir[64];
};

static void
make_dir(const char *state, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/runs/%s", state, name);
	assert_int_equal(mkdir(path, 0755), 0);
}

/* STATE/runs/<id>/report.json holding text. */
static void
make_report(const char *state, unsigned id, const char *text)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/runs/%u", state, id);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/runs/%u/report.json", state, id);
	assert_non_null(fp = fopen(path, "w"));
	fputs(text, fp);
	fclose(fp);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/runrecords.XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static void
test_empty(void **state)
{
	struct fixture *f = *state;
	size_t n = 7;

	/* No STATE/runs yet: no runs, and init makes it. */
	assert_null(runrecords_list(f->dir, &n));
	assert_int_equal(n, 0);
	assert_int_equal(runrecords_highest_id(f->dir), 0);
	assert_int_equal(runrecords_init(f->dir), 0);
	assert_null(runrecords_list(f->dir, &n));
	assert_int_equal(runrecords_last(f->dir, 1), 0);
	assert_int_equal(runrecords_last(f->dir, 0), 0);
	assert_null(runrecords_load(f->dir, 1));
}

static void
test_ids(void **state)
{
	struct fixture *f = *state;
	unsigned *ids;
	size_t n;

	assert_int_equal(runrecords_init(f->dir), 0);
	make_report(f->dir, 12, "{\"run_id\": 12}");
	make_report(f->dir, 3, "{\"run_id\": 3}");
	make_dir(f->dir, "7");		/* refused before its record */
	/* Not runs: zero, too big, not a number, a suffix. */
	make_dir(f->dir, "0");
	make_dir(f->dir, "1000000000");
	make_dir(f->dir, "latest");
	make_dir(f->dir, "5x");
	assert_non_null(ids = runrecords_list(f->dir, &n));
	assert_int_equal(n, 3);
	assert_int_equal(ids[0], 3);
	assert_int_equal(ids[1], 7);
	assert_int_equal(ids[2], 12);
	free(ids);
	/* A run without a record still holds its id. */
	assert_int_equal(runrecords_highest_id(f->dir), 12);
	/* The newest record below an id. */
	assert_int_equal(runrecords_last(f->dir, 13), 12);
	assert_int_equal(runrecords_last(f->dir, 12), 3);
	assert_int_equal(runrecords_last(f->dir, 3), 0);
}

static void
test_load(void **state)
{
	struct fixture *f = *state;
	json_object *rep, *v;

	assert_int_equal(runrecords_init(f->dir), 0);
	make_report(f->dir, 4, "{\"run_id\": 4, \"state\": \"done\"}");
	make_report(f->dir, 5, "{\"run_id\": ");	/* cut short */
	assert_non_null(rep = runrecords_load(f->dir, 4));
	assert_true(json_object_object_get_ex(rep, "state", &v));
	assert_string_equal(json_object_get_string(v), "done");
	json_object_put(rep);
	assert_null(runrecords_load(f->dir, 5));
	assert_null(runrecords_load(f->dir, 6));
}

static void
test_summary(void **state)
{
	json_object *rep = json_tokener_parse("{\"run_id\": 9, "
	    "\"state\": \"done\", \"started_at\": \"a\", "
	    "\"target\": {\"dir\": \"/d\", \"fs_type\": \"xfs\"}, "
	    "\"counters\": {\"updates_completed\": 100}, "
	    "\"queue_depth\": {\"significant_ops_pending\": "
	    "{\"average\": 2.5}}, \"params\": {\"sweep_id\": \"s1\", "
	    "\"files\": 20, \"max_updates\": 3000, \"update_time\": 3, "
	    "\"sync\": \"data\"}}");
	json_object *s;

	(void)state;
	assert_non_null(rep);
	s = runrecords_summary(rep);
	/* Every key, in order; what the record lacks is null. */
	assert_string_equal(json_object_to_json_string_ext(s,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE), "{\"id\":9,\"state\":\"done\","
	    "\"started_at\":\"a\",\"ended_at\":null,\"dir\":\"/d\","
	    "\"fs_type\":\"xfs\",\"mount_options\":null,"
	    "\"updates_completed\":100,\"updates_on_disk\":null,"
	    "\"significant_avg\":2.5,"
	    "\"report\":null,\"sweep_id\":\"s1\",\"files\":20,"
	    "\"max_updates\":3000,\"update_time\":3,\"sync\":\"data\","
	    "\"label\":null}");
	json_object_put(s);
	json_object_put(rep);

	/* The verdict's kept_up and the number of warnings, only when the
	 * record has them (an older stressd's has not). */
	rep = json_tokener_parse("{\"run_id\": 10, \"params\": "
	    "{\"label\": \"xfs\"}, \"verdict\": {\"kept_up\": null, "
	    "\"reason\": \"r\"}, \"warnings\": [{\"code\": \"flat_out\"}, "
	    "{\"code\": \"few_samples\"}]}");
	assert_non_null(rep);
	s = runrecords_summary(rep);
	assert_string_equal(json_object_to_json_string_ext(
	    json_object_object_get(s, "label"), JSON_C_TO_STRING_PLAIN),
	    "\"xfs\"");
	assert_true(json_object_object_get_ex(s, "kept_up", NULL));
	assert_null(json_object_object_get(s, "kept_up"));
	assert_int_equal(json_object_get_int(json_object_object_get(s,
	    "warnings")), 2);
	json_object_put(s);
	json_object_put(rep);
	rep = json_tokener_parse("{\"run_id\": 11, \"verdict\": "
	    "{\"kept_up\": true}}");
	s = runrecords_summary(rep);
	assert_true(json_object_get_boolean(json_object_object_get(s,
	    "kept_up")));
	assert_false(json_object_object_get_ex(s, "warnings", NULL));
	json_object_put(s);
	json_object_put(rep);
	rep = json_tokener_parse("{\"run_id\": 12}");
	s = runrecords_summary(rep);
	assert_false(json_object_object_get_ex(s, "kept_up", NULL));
	json_object_put(s);
	json_object_put(rep);
}

/* A capacity search's record (capacity.json) sums up as one of kind
 * "capacity" with its directories' figures; a step of one carries the
 * search's id and its step. */
static void
test_summary_capacity(void **state)
{
	json_object *rep = json_tokener_parse("{\"schema\": "
	    "\"stressd-capacity\", \"schema_version\": 1, \"id\": 20, "
	    "\"state\": \"done\", \"started\": \"a\", \"ended\": \"b\", "
	    "\"params\": {\"files\": 200, \"sync\": \"data\"}, "
	    "\"dirs\": [{\"dir\": \"/a\", \"fs_type\": \"ext4\", "
	    "\"state\": \"done\", \"capacity_rate\": 1800, "
	    "\"behind_rate\": 2000, \"limited_by\": \"storage\", "
	    "\"at_capacity\": {\"queue_avg\": 1}}], "
	    "\"steps\": [{\"n\": 1}, {\"n\": 2}]}");
	json_object *s;

	(void)state;
	assert_non_null(rep);
	s = runrecords_summary(rep);
	assert_string_equal(json_object_to_json_string_ext(s,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
	    "{\"id\":20,\"kind\":\"capacity\",\"state\":\"done\","
	    "\"started_at\":\"a\",\"ended_at\":\"b\",\"files\":200,"
	    "\"sync\":\"data\",\"steps\":2,\"dirs\":[{\"dir\":\"/a\","
	    "\"fs_type\":\"ext4\",\"state\":\"done\","
	    "\"capacity_rate\":1800,\"behind_rate\":2000,"
	    "\"limited_by\":\"storage\"}]}");
	json_object_put(s);
	json_object_put(rep);
	rep = json_tokener_parse("{\"run_id\": 21, \"capacity\": "
	    "{\"id\": 20, \"step\": 3, \"rate\": 400}}");
	s = runrecords_summary(rep);
	assert_string_equal(json_object_to_json_string_ext(
	    json_object_object_get(s, "capacity"), JSON_C_TO_STRING_PLAIN),
	    "{\"id\":20,\"step\":3,\"rate\":400}");
	assert_false(json_object_object_get_ex(s, "kind", NULL));
	json_object_put(s);
	json_object_put(rep);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load, setup, teardown),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_summary_capacity),
	};

	log_init(LOG_LVL_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
