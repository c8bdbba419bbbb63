/* Unit tests of daemon/evict.c on a real directory: which files of a run
 * are evicted, counted as missing or refused, and what the record says. */
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <cmocka.h>

#include "evict.h"
#include "knobs.h"
#include "tmpdir.h"

#define SIZE	65536
#define TMPFS	0x01021994	/* statfs f_type: its pages are its storage */

static char	dir[64];

static void
write_file(const char *rel, size_t size)
{
	char p[PATH_MAX], buf[4096];
	int fd;

	memset(buf, 'x', sizeof(buf));
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	assert_true((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0);
	for (size_t n = 0; n < size; n += sizeof(buf))
		assert_int_equal(write(fd, buf, sizeof(buf)), sizeof(buf));
	close(fd);
}

/* Files 0 .. 5 of a run: 0 and 4 regular (4 empty), 1 missing, 2 a
 * symbolic link to a file outside, 3 a FIFO, 5 a directory. */
static int
setup(void **state)
{
	char p[PATH_MAX], q[PATH_MAX];

	(void)state;
	if (tmpdir_make(dir, sizeof(dir), "evict-test") == -1)
		return -1;
	write_file("0.rrd", SIZE);
	write_file("4.rrd", 0);
	write_file("outside", SIZE);
	snprintf(p, sizeof(p), "%s/outside", dir);
	snprintf(q, sizeof(q), "%s/2.rrd", dir);
	if (symlink(p, q) == -1)
		return -1;
	snprintf(q, sizeof(q), "%s/3.rrd", dir);
	if (mkfifo(q, 0600) == -1)
		return -1;
	snprintf(q, sizeof(q), "%s/5.rrd", dir);
	return mkdir(q, 0755);
}

static int
teardown(void **state)
{
	(void)state;
	return tmpdir_remove(dir);
}

static void
test_run_files(void **state)
{
	struct stress_params p;
	struct evict_result res;
	struct statfs fs;
	atomic_uint_fast64_t busy = 0;
	int fd;

	(void)state;
	knobs_defaults(&p);
	p.files = 6;
	assert_true((fd = open(dir, O_PATH | O_DIRECTORY)) >= 0);
	evict_dir_files(fd, &p, &busy, NULL, &res);
	close(fd);
	knobs_free(&p);
	assert_int_equal(res.files, 2);
	assert_int_equal(res.missing, 1);
	assert_int_equal(res.refused, 3);	/* link, FIFO, directory */
	assert_int_equal(res.failed, 0);
	assert_int_equal(res.bytes, SIZE);
	assert_true(busy != 0);
	/* Just written, so all in the cache; then out of it (but on
	 * tmpfs, which keeps them). */
	assert_int_equal(res.resident_before, SIZE);
	assert_int_equal(statfs(dir, &fs), 0);
	if (fs.f_type != TMPFS)
		assert_int_equal(res.resident_after, 0);
	assert_true(res.seconds >= 0);
	assert_string_equal(res.measure_error, "");
}

static void
test_json(void **state)
{
	struct evict_result res = { .files = 3, .bytes = 100,
	    .resident_before = 80, .resident_after = -1, .seconds = 0.5 };
	json_object *o = evict_json(&res), *v;
	char line[1024];

	(void)state;
	assert_string_equal(json_object_get_string(
	    json_object_object_get(o, "method")), "evict");
	assert_int_equal(json_object_get_int64(
	    json_object_object_get(o, "files")), 3);
	assert_int_equal(json_object_get_int64(
	    json_object_object_get(o, "resident_before_bytes")), 80);
	/* -1: not measured, so null, not a number */
	assert_true(json_object_object_get_ex(o, "resident_after_bytes", &v));
	assert_null(v);
	json_object_put(o);
	evict_summary(&res, line, sizeof(line));
	assert_non_null(strstr(line, "wrote back and evicted 3 files"));

	memset(&res, 0, sizeof(res));
	res.host = true;
	o = evict_json(&res);
	assert_string_equal(json_object_get_string(
	    json_object_object_get(o, "method")), "drop-host-caches");
	assert_true(json_object_object_get_ex(o, "files", &v));
	assert_null(v);
	json_object_put(o);
	evict_summary(&res, line, sizeof(line));
	assert_non_null(strstr(line, "dropped the host's page cache"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_run_files, setup,
		    teardown),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
