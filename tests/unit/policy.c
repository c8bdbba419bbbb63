/* Unit tests of daemon/policy.c: allowed_targets, and allowed_dirs on a
 * small real tree (tests/unit/conffile.c walks the path cases in full). */
#include <limits.h>
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

#include "conffile.h"
#include "policy.h"
#include "tmpdir.h"

static char	tree[64];

static int
setup(void **state)
{
	char p[PATH_MAX];

	(void)state;
	if (tmpdir_make(tree, sizeof(tree), "policy-test") == -1)
		return -1;
	snprintf(p, sizeof(p), "%s/in", tree);
	return mkdir(p, 0755);
}

static int
teardown(void **state)
{
	(void)state;
	return tmpdir_remove(tree);
}

static struct config *
config_with_targets(const char *const *t, size_t n)
{
	struct config *c = malloc(sizeof(*c));

	assert_non_null(c);
	conffile_defaults(c);
	for (size_t i = 0; i < n; i++)
		snprintf(c->allowed_targets[i], sizeof(c->allowed_targets[0]),
		    "%s", t[i]);
	c->ntargets = n;
	return c;
}

/* librrd always; any rrdcached without allowed_targets; with it, only
 * the addresses listed as written. */
static void
test_targets(void **state)
{
	static const char *const two[] = { "unix:/run/rrdcached.sock",
	    "10.0.0.1:42217" };
	struct config *c;
	char err[1024];

	(void)state;
	c = config_with_targets(NULL, 0);
	assert_int_equal(policy_target_allowed(c, "librrd", err,
	    sizeof(err)), 1);
	assert_int_equal(policy_target_allowed(c, "rrdcached:h:1", err,
	    sizeof(err)), 1);
	free(c);

	c = config_with_targets(two, 2);
	assert_int_equal(policy_target_allowed(c, "librrd", err,
	    sizeof(err)), 1);
	assert_int_equal(policy_target_allowed(c,
	    "rrdcached:unix:/run/rrdcached.sock", err, sizeof(err)), 1);
	assert_int_equal(policy_target_allowed(c, "rrdcached:10.0.0.1:42217",
	    err, sizeof(err)), 1);
	assert_int_equal(policy_target_allowed(c, "rrdcached:10.0.0.1", err,
	    sizeof(err)), 0);
	assert_string_equal(err, "target 'rrdcached:10.0.0.1' is not in "
	    "allowed_targets (unix:/run/rrdcached.sock, 10.0.0.1:42217)");
	/* The forwarding name says the same. */
	assert_int_equal(policy_target_allowed(c, "rrdcached:x", err,
	    sizeof(err)), 0);
	free(c);
}

/* Unrestricted: anything; restricted: inside (existing or not) only. */
static void
test_dirs(void **state)
{
	struct config *c = malloc(sizeof(*c));
	char dir[PATH_MAX], err[PATH_MAX * 2], want[PATH_MAX * 2];

	(void)state;
	assert_non_null(c);
	conffile_defaults(c);
	assert_int_equal(policy_dir_allowed(c, "/anywhere", err, sizeof(err)),
	    1);
	c->restricted = true;
	c->nallowed = 1;
	snprintf(c->allowed_dirs[0], sizeof(c->allowed_dirs[0]), "%s/in",
	    tree);
	snprintf(dir, sizeof(dir), "%s/in/new/deeper", tree);
	assert_int_equal(policy_dir_allowed(c, dir, err, sizeof(err)), 1);
	snprintf(dir, sizeof(dir), "%s/in/../out", tree);
	assert_int_equal(policy_dir_allowed(c, dir, err, sizeof(err)), 0);
	snprintf(dir, sizeof(dir), "%s/out", tree);
	assert_int_equal(policy_dir_allowed(c, dir, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "'%s/out' is not inside allowed_dirs "
	    "(%s/in)", tree, tree);
	assert_string_equal(err, want);
	assert_int_equal(policy_dir_allowed(c, dir, err, sizeof(err)), 0);
	free(c);
}

/* The directory as opened: made beneath the allowed one, the same inode
 * as its path; outside, or through a symbolic link leading out, refused
 * with nothing made; an allowed dir named through a symbolic link is
 * the dir it resolves to. */
static void
test_dir_open(void **state)
{
	struct config *c = malloc(sizeof(*c));
	struct policy_dirs *d;
	char dir[PATH_MAX], link[PATH_MAX], err[PATH_MAX * 2];
	struct stat a, b;
	int fd;

	(void)state;
	assert_non_null(c);
	conffile_defaults(c);
	/* Unrestricted: the dir as named, made. */
	assert_non_null(d = policy_dirs_copy(c));
	snprintf(dir, sizeof(dir), "%s/free/x", tree);
	assert_true((fd = policy_dir_open(d, dir, err, sizeof(err))) >= 0);
	close(fd);
	policy_dirs_free(d);
	assert_non_null(d = policy_dirs_copy(NULL));
	policy_dirs_free(d);

	c->restricted = true;
	c->nallowed = 1;
	snprintf(link, sizeof(link), "%s/inlink", tree);
	snprintf(dir, sizeof(dir), "%s/in", tree);
	assert_int_equal(symlink(dir, link), 0);
	snprintf(c->allowed_dirs[0], sizeof(c->allowed_dirs[0]), "%s", link);
	assert_non_null(d = policy_dirs_copy(c));
	free(c);	/* the copy is the run's own */
	snprintf(dir, sizeof(dir), "%s/in/run/a", tree);
	assert_true((fd = policy_dir_open(d, dir, err, sizeof(err))) >= 0);
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(stat(dir, &b), 0);
	assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	close(fd);
	/* A symbolic link in the dir's path to outside: refused, not made. */
	snprintf(link, sizeof(link), "%s/in/out", tree);
	snprintf(dir, sizeof(dir), "%s/elsewhere", tree);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(symlink(dir, link), 0);
	snprintf(dir, sizeof(dir), "%s/in/out/run", tree);
	assert_int_equal(policy_dir_open(d, dir, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is not inside allowed_dirs"));
	snprintf(dir, sizeof(dir), "%s/elsewhere/run", tree);
	assert_int_equal(stat(dir, &b), -1);
	policy_dirs_free(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_dirs),
		cmocka_unit_test(test_dir_open),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
