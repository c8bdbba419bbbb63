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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_dirs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
