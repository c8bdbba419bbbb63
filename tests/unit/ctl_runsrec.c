/* Unit tests of ctl/runsrec.c: a real runs reply (tests/fixtures/
 * runs-reply.json: a capacity search's runs and a plain one, from private
 * stressd's) read into its structs, with every member the runs view reads
 * found there, and a missing or mistyped member refused, named; then the
 * view of the reply. */
#include <math.h>
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

#include "fixture.h"
#include "runsrec.h"
#include "runsview.h"

static json_object *
fixture(void)
{
	return fixture_load("runs-reply.json");
}

static void
test_fixture(void **state)
{
	json_object *o = fixture();
	char *err = NULL;
	struct runsrec *r = runsrec_parse(o, &err);
	const struct runsrec_run *step, *search, *plain;

	(void)state;
	assert_null(err);
	assert_non_null(r);
	assert_int_equal(r->nruns, 13);
	assert_int_equal(r->next_before, 0);
	/* a step of capacity search 1 */
	step = &r->runs[1];
	assert_null(step->kind);
	assert_true(step->id.has && step->id.is_int && step->id.i == 2);
	assert_string_equal(step->state, "done");
	assert_non_null(step->started_at);
	assert_string_equal(step->fs_type, "tmpfs");
	assert_non_null(step->dir);
	assert_string_equal(step->label, "first one");
	assert_string_equal(step->sync, "none");
	assert_true(step->updates_completed.has);
	assert_false(step->updates_on_disk.has);
	assert_true(step->files.has && step->max_updates.has &&
	    step->update_time.has && step->significant_avg.has);
	assert_true(step->has_verdict);
	assert_int_equal(step->kept_up, 1);
	assert_true(step->warnings.has && step->warnings.i == 1);
	assert_true(step->has_capacity);
	assert_float_equal(step->capacity_id, 1, 0);
	assert_float_equal(step->capacity_step, 1, 0);
	/* the search */
	search = &r->runs[0];
	assert_true(runsrec_is_capacity(search));
	assert_true(search->steps.has && search->steps.i == 4);
	assert_int_equal(search->ndirs, 2);
	assert_string_equal(search->dirs[1].fs_type, "tmpfs");
	assert_float_equal(search->dirs[0].capacity_rate, 4000, 0);
	assert_true(isnan(search->dirs[0].behind_rate));	/* null */
	assert_string_equal(search->dirs[0].limited_by, "max_rate");
	/* the plain run */
	plain = &r->runs[12];
	assert_false(plain->has_capacity);
	assert_false(runsrec_is_capacity(plain));
	assert_string_equal(plain->label, "fixture");
	assert_string_equal(plain->sweep_id, "");
	assert_ptr_equal(r->json, o);
	runsrec_free(r);
	json_object_put(o);
}

/* runsrec_parse and runsrec_free for fixture_refused. */
static void *
parse(json_object *o, char **err)
{
	return runsrec_parse(o, err);
}

static void
release(void *r)
{
	runsrec_free(r);
}

/* The fixture with member key of run i (i < 0: of the reply; dir >= 0:
 * of that directory of run i; cap: of run i's capacity) set to v (NULL:
 * deleted), refused: the error. */
static char *
broken(int i, int dir, bool cap, const char *key, json_object *v)
{
	json_object *o = fixture(), *at = o, *list;

	if (i >= 0) {
		assert_true(json_object_object_get_ex(o, "runs", &list));
		at = json_object_array_get_idx(list, (size_t)i);
	}
	if (dir >= 0) {
		assert_true(json_object_object_get_ex(at, "dirs", &list));
		at = json_object_array_get_idx(list, (size_t)dir);
	}
	if (cap)
		assert_true(json_object_object_get_ex(at, "capacity", &at));
	fixture_edit(at, key, v);
	return fixture_refused(o, parse, release);
}

static void
test_refused(void **state)
{
	static const char *const msgs[] = {
		"runs reply: runs: missing",
		"runs reply: runs: not an array",
		"runs reply: runs[2].state: not a string",
		"runs reply: runs[12].id: not a number",
		"runs reply: runs[0].dirs[1].capacity_rate: not a number",
		"runs reply: runs[1].capacity.step: not a number",
		"runs reply: runs[1].kept_up: not a boolean",
		"runs reply: runs[0].dirs: not an array",
		"runs reply: next_before: not an integer",
		"runs reply: runs[3].significant_avg: not a number",
	};
	char *errs[10];

	(void)state;
	errs[0] = broken(-1, -1, false, "runs", NULL);
	errs[1] = broken(-1, -1, false, "runs", json_object_new_object());
	errs[2] = broken(2, -1, false, "state", json_object_new_int(1));
	errs[3] = broken(12, -1, false, "id", json_object_new_string("13"));
	errs[4] = broken(0, 1, false, "capacity_rate",
	    json_object_new_string("fast"));
	errs[5] = broken(1, -1, true, "step", json_object_new_boolean(1));
	errs[6] = broken(1, -1, false, "kept_up", json_object_new_int(1));
	errs[7] = broken(0, -1, false, "dirs", json_object_new_object());
	errs[8] = broken(-1, -1, false, "next_before",
	    json_object_new_double(1.5));
	errs[9] = broken(3, -1, false, "significant_avg",
	    json_object_new_string("1.2"));
	for (size_t i = 0; i < 10; i++) {
		assert_string_equal(errs[i], msgs[i]);
		free(errs[i]);
	}
}

/* runsview_print's text of the fixture, into a malloc'd string. */
static char *
view(bool all)
{
	json_object *o = fixture();
	struct runsrec *r = runsrec_parse(o, NULL);
	char path[] = "/tmp/ctl_runsrec.XXXXXX", *buf;
	int fd = mkstemp(path), saved = dup(STDOUT_FILENO);
	long len;
	FILE *f;

	assert_non_null(r);
	assert_true(fd >= 0 && saved >= 0);
	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	runsview_print(r, all);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	f = fdopen(fd, "r");
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)len + 1);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	unlink(path);
	runsrec_free(r);
	json_object_put(o);
	return buf;
}

static void
test_view(void **state)
{
	char *s = view(false);

	(void)state;
	/* the plain run listed, the 8 steps counted, the 4 searches after */
	assert_non_null(strstr(s, "fixture"));
	assert_non_null(strstr(s, "(8 step runs of capacity searches not "
	    "shown"));
	assert_non_null(strstr(s, "\nCapacity searches\n"));
	assert_non_null(strstr(s, "max_rate"));
	assert_null(strstr(s, "capacity 1 step 1"));
	free(s);
	s = view(true);
	assert_non_null(strstr(s, "capacity 1 step 1"));
	assert_non_null(strstr(s, "kept up (1 warning)"));
	assert_non_null(strstr(s, "cannot tell (2 warnings)"));
	assert_null(strstr(s, "not shown"));
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_view),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
