/* Unit tests of common/util.c's whole-or-nothing file writes. */
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

#include "tmpdir.h"
#include "util.h"

static void
slurp(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "r");
	size_t n;

	assert_non_null(fp);
	n = fread(buf, 1, len - 1, fp);
	buf[n] = '\0';
	fclose(fp);
}

/* A symbolic link planted at path.tmp is removed, never written through:
 * its target keeps its bytes, path gets the new ones. */
static void
test_tmp_no_follow(void **state)
{
	char dir[64], path[128], tmp[140], victim[128], buf[64];
	FILE *fp;

	(void)state;
	assert_int_equal(tmpdir_make(dir, sizeof(dir), "util"), 0);
	snprintf(path, sizeof(path), "%s/report.json", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	assert_non_null(fp = fopen(victim, "w"));
	fputs("precious", fp);
	fclose(fp);
	assert_int_equal(symlink(victim, tmp), 0);
	assert_non_null(fp = util_tmp_open(path));
	fputs("new", fp);
	assert_int_equal(util_tmp_commit(fp, path), 0);
	slurp(victim, buf, sizeof(buf));
	assert_string_equal(buf, "precious");
	slurp(path, buf, sizeof(buf));
	assert_string_equal(buf, "new");
	assert_int_equal(access(tmp, F_OK), -1);
	tmpdir_remove(dir);
}

/* A failed rename leaves the old file and no temporary behind. */
static void
test_tmp_commit_fails(void **state)
{
	char dir[64], path[128], tmp[140];
	FILE *fp;

	(void)state;
	assert_int_equal(tmpdir_make(dir, sizeof(dir), "util"), 0);
	snprintf(path, sizeof(path), "%s/d", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_equal(mkdir(path, 0755), 0);	/* rename onto a dir fails */
	assert_non_null(fp = util_tmp_open(path));
	fputs("x", fp);
	assert_int_equal(util_tmp_commit(fp, path), -1);
	assert_int_equal(access(tmp, F_OK), -1);
	tmpdir_remove(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tmp_no_follow),
		cmocka_unit_test(test_tmp_commit_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
