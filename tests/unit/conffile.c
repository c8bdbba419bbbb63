/* Unit tests of daemon/config.c: the golden files in tests/config, the
 * shipped etc/stressd.conf, and allowed_dirs against a real tree.  The
 * source tree is $TOP_SRCDIR, or the current directory. */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
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

/* By its path: from here a plain "config.h" finds autoconf's first. */
#include "conffile.h"
#include "log.h"
#include "policy.h"

static char	top[2048];
static char	tree[64];		/* the temp tree of the dir tests */

/* The whole file, or NULL when it cannot be read. */
static char *
slurp(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, n;
	char chunk[4096];

	if (fp == NULL)
		return NULL;
	buf = calloc(1, 1);
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
		buf = realloc(buf, len + n + 1);
		memcpy(buf + len, chunk, n);
		len += n;
		buf[len] = '\0';
	}
	fclose(fp);
	return buf;
}

static void
spew(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

static char *
printed(const struct config *c)
{
	char *s = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&s, &n);

	assert_non_null(fp);
	conffile_print(c, fp);
	fclose(fp);
	return s;
}

static struct config *
new_config(void)
{
	struct config *c = malloc(sizeof(*c));

	assert_non_null(c);
	conffile_defaults(c);
	return c;
}

static void
free_config(struct config *c)
{
	conffile_free(c);
	free(c);
}

static bool
has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Every NAME.conf with its NAME.out (stdout of --check-config) or
 * NAME.err (the error line, for the file named as NAME.conf). */
static void
test_golden(void **state)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], want[PATH_MAX + 300];
	struct config *c = new_config();
	struct dirent *de;
	unsigned nvalid = 0, ninvalid = 0;
	DIR *d;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/tests/config", top);
	assert_non_null(d = opendir(dir));
	while ((de = readdir(d)) != NULL) {
		char name[256], err[1024], *out, *expect, *got;

		if (!has_suffix(de->d_name, ".conf"))
			continue;
		snprintf(name, sizeof(name), "%.*s",
		    (int)(strlen(de->d_name) - 5), de->d_name);
		snprintf(path, sizeof(path), "%s/%s.out", dir, name);
		out = slurp(path);
		snprintf(path, sizeof(path), "%s/%s.err", dir, name);
		expect = slurp(path);
		if ((out == NULL) == (expect == NULL))
			fail_msg("%s.conf needs exactly one of .out and .err",
			    name);
		snprintf(path, sizeof(path), "%s/%s.conf", dir, name);
		if (out != NULL) {
			if (conffile_load(c, path, err, sizeof(err)) == -1)
				fail_msg("%s", err);
			got = printed(c);
			if (strcmp(got, out) != 0)
				fail_msg("%s.conf printed\n%s\nnot\n%s", name, got,
				    out);
			free(got);
			nvalid++;
		} else {
			expect[strcspn(expect, "\n")] = '\0';
			snprintf(want, sizeof(want), "%s/%s", dir, expect);
			if (conffile_load(c, path, err, sizeof(err)) == 0)
				fail_msg("%s.conf loaded", name);
			assert_string_equal(err, want);
			/* A failed load leaves the defaults. */
			assert_int_equal(c->nprofiles, 0);
			assert_string_equal(c->path, "");
			ninvalid++;
		}
		conffile_free(c);
		free(out);
		free(expect);
	}
	closedir(d);
	assert_true(nvalid >= 2);
	assert_true(ninvalid >= 9);
	free_config(c);
}

/* What conffile_print writes reads back to the same configuration. */
static void
test_print_round_trip(void **state)
{
	struct config *a = new_config(), *b = new_config();
	char path[PATH_MAX + 64], tmp[] = "/tmp/stressd-config-XXXXXX";
	char err[1024], *first, *second;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/config/full.conf", top);
	assert_int_equal(conffile_load(a, path, err, sizeof(err)), 0);
	first = printed(a);
	assert_true((fd = mkstemp(tmp)) != -1);
	close(fd);
	spew(tmp, first);
	if (conffile_load(b, tmp, err, sizeof(err)) == -1)
		fail_msg("%s", err);
	second = printed(b);
	assert_string_equal(first, second);
	unlink(tmp);
	free(first);
	free(second);
	free_config(a);
	free_config(b);
}

static void
test_defaults(void **state)
{
	struct config *c = new_config();

	(void)state;
	assert_string_equal(c->path, "");
	assert_string_equal(c->socket, "/run/stressd/stressd.sock");
	assert_string_equal(c->socket_group, "");
	assert_int_equal(c->socket_mode, 0660);
	assert_string_equal(c->state_dir, "/var/lib/stressd");
	assert_false(c->restricted);
	assert_int_equal(c->nallowed, 0);
	assert_string_equal(c->metrics_listen, "");
	assert_true(c->sample_interval == 1);
	assert_int_equal(c->log_level, LOG_LVL_INFO);
	assert_true(c->drain_timeout == 60);
	assert_int_equal(c->nprofiles, 0);
	assert_null(conffile_profile(c, "kif"));
	free_config(c);
}

/* Profiles hold the JSON types stressctl sends. */
static void
test_profile_types(void **state)
{
	struct config *c = new_config();
	char path[PATH_MAX + 64], err[1024];
	json_object *args, *v;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/config/full.conf", top);
	assert_int_equal(conffile_load(c, path, err, sizeof(err)), 0);
	assert_string_equal(c->path, path);
	assert_true(c->restricted);
	assert_int_equal(c->nallowed, 3);
	assert_string_equal(c->allowed_dirs[2], "/tmp/x");
	assert_int_equal(c->socket_mode, 0640);
	assert_int_equal(c->log_level, LOG_LVL_DEBUG);
	assert_non_null(args = conffile_profile(c, "small-1.x"));
	assert_true(json_object_object_get_ex(args, "update_time", &v));
	assert_int_equal(json_object_get_type(v), json_type_double);
	assert_true(json_object_object_get_ex(args, "prioritize", &v));
	assert_int_equal(json_object_get_type(v), json_type_boolean);
	assert_true(json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(args, "rras", &v));
	assert_int_equal(json_object_get_type(v), json_type_array);
	assert_int_equal(json_object_array_length(v), 2);
	assert_non_null(args = conffile_profile(c, "kif"));
	assert_true(json_object_object_get_ex(args, "files", &v));
	assert_int_equal(json_object_get_type(v), json_type_int);
	assert_int_equal(json_object_get_int64(v), 30000);
	assert_null(conffile_profile(c, "KIF"));
	free_config(c);
}

/* The shipped file validates, restricts runs and holds the kif run. */
static void
test_shipped(void **state)
{
	static const struct { const char *key; int64_t value; } kif[] = {
		{ "files", 30000 }, { "threads", 75 }, { "write_threads", 10 },
		{ "max_updates", 100000 }, { "modulus", 1000 },
	};
	struct config *c = new_config();
	char path[PATH_MAX + 64], err[1024];
	json_object *args, *v;

	(void)state;
	snprintf(path, sizeof(path), "%s/etc/stressd.conf", top);
	if (conffile_load(c, path, err, sizeof(err)) == -1)
		fail_msg("%s", err);
	assert_true(c->restricted);
	assert_string_equal(c->allowed_dirs[0], "/srv/rrd-stress");
	assert_string_equal(c->socket, "/run/stressd/stressd.sock");
	assert_string_equal(c->socket_group, "");
	assert_non_null(args = conffile_profile(c, "kif"));
	for (size_t i = 0; i < sizeof(kif) / sizeof(kif[0]); i++) {
		assert_true(json_object_object_get_ex(args, kif[i].key, &v));
		assert_int_equal(json_object_get_int64(v), kif[i].value);
	}
	assert_true(json_object_object_get_ex(args, "dir", &v));
	assert_int_equal(policy_dir_allowed(c, json_object_get_string(v), err,
	    sizeof(err)), 1);
	assert_non_null(args = conffile_profile(c, "quick"));
	assert_true(json_object_object_get_ex(args, "dir", &v));
	assert_int_equal(policy_dir_allowed(c, json_object_get_string(v), err,
	    sizeof(err)), 1);
	free_config(c);
}

static void
test_read_errors(void **state)
{
	struct config *c = new_config();
	char tmp[] = "/tmp/stressd-config-XXXXXX", err[1024], want[256];
	char line[512], a[301];
	int fd;

	(void)state;
	assert_int_equal(conffile_load(c, "/nonexistent/stressd.conf", err,
	    sizeof(err)), -1);
	assert_string_equal(err,
	    "/nonexistent/stressd.conf: No such file or directory");
	assert_int_equal(conffile_load(c, "/", err, sizeof(err)), -1);
	assert_string_equal(err, "/: Is a directory");

	/* Longer than inih's line buffer: an error, not two lines. */
	assert_true((fd = mkstemp(tmp)) != -1);
	close(fd);
	memset(a, 'a', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	snprintf(line, sizeof(line), "log_level = info\nstate_dir = /%s\n", a);
	spew(tmp, line);
	assert_int_equal(conffile_load(c, tmp, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:2: line longer than ", tmp);
	assert_memory_equal(err, want, strlen(want));

	/* The last line needs no newline. */
	spew(tmp, "log_level = warn");
	assert_int_equal(conffile_load(c, tmp, err, sizeof(err)), 0);
	assert_int_equal(c->log_level, LOG_LVL_WARN);

	/* The earlier of inih's error and ours is reported. */
	spew(tmp, "log_level = info\nnonsense\nlog_level = debug\n");
	assert_int_equal(conffile_load(c, tmp, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:2: expected 'key = value', "
	    "'[profile NAME]' or a comment", tmp);
	assert_string_equal(err, want);

	/* An empty section is still a section. */
	spew(tmp, "[profile a]\n[profile a]\n");
	assert_int_equal(conffile_load(c, tmp, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:2: duplicate section [profile a] "
	    "(first on line 1)", tmp);
	assert_string_equal(err, want);
	spew(tmp, "[nothing here]\n");
	assert_int_equal(conffile_load(c, tmp, err, sizeof(err)), -1);

	/* A profile name longer than inih's 50-byte section buffer. */
	spew(tmp, "[profile "
	    "a123456789b123456789c123456789d123456789e123456789f123456789]\n"
	    "threads = 3\n");
	if (conffile_load(c, tmp, err, sizeof(err)) == -1)
		fail_msg("%s", err);
	assert_non_null(conffile_profile(c,
	    "a123456789b123456789c123456789d123456789e123456789f123456789"));
	conffile_free(c);
	unlink(tmp);
	free_config(c);
}

/* ------------------------------------------------------------ dirs */

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int
tree_setup(void **state)
{
	char p[PATH_MAX + 64], q[PATH_MAX + 64];

	(void)state;
	snprintf(tree, sizeof(tree), "/tmp/stressd-config-XXXXXX");
	if (mkdtemp(tree) == NULL)
		return -1;
	/* x is allowed; xy shares its prefix; outside is not allowed. */
	static const char *const dirs[] = { "x", "x/sub", "xy", "outside" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", tree, dirs[i]);
		if (mkdir(p, 0755) == -1)
			return -1;
	}
	snprintf(p, sizeof(p), "%s/outside", tree);
	snprintf(q, sizeof(q), "%s/x/link", tree);
	if (symlink(p, q) == -1)
		return -1;
	snprintf(p, sizeof(p), "%s/nowhere/deep", tree);
	snprintf(q, sizeof(q), "%s/x/dangling", tree);
	if (symlink(p, q) == -1)
		return -1;
	snprintf(p, sizeof(p), "%s/x", tree);
	snprintf(q, sizeof(q), "%s/alias", tree);
	if (symlink(p, q) == -1)
		return -1;
	snprintf(p, sizeof(p), "%s/x/file", tree);
	spew(p, "");
	return 0;
}

static int
tree_teardown(void **state)
{
	(void)state;
	return nftw(tree, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* policy_dir_allowed on tree/rel with allowed_dirs = tree/allowed. */
static int
allowed(const char *allowed_rel, const char *rel, char *err, size_t errlen)
{
	struct config *c = new_config();
	char dir[PATH_MAX + 64];
	int r;

	c->restricted = true;
	c->nallowed = 1;
	snprintf(c->allowed_dirs[0], sizeof(c->allowed_dirs[0]), "%s/%s",
	    tree, allowed_rel);
	if (*rel == '/' || *rel == '\0')
		snprintf(dir, sizeof(dir), "%s", *rel ? rel : "relative/x");
	else
		snprintf(dir, sizeof(dir), "%s/%s", tree, rel);
	r = policy_dir_allowed(c, dir, err, errlen);
	free_config(c);
	return r;
}

static void
test_dir_allowed(void **state)
{
	char err[PATH_MAX * 2], want[512];

	(void)state;
	/* Inside, the dir itself, with a trailing slash. */
	assert_int_equal(allowed("x", "x/sub", err, sizeof(err)), 1);
	assert_int_equal(allowed("x", "x", err, sizeof(err)), 1);
	assert_int_equal(allowed("x", "x/", err, sizeof(err)), 1);
	assert_int_equal(allowed("x/", "x/sub", err, sizeof(err)), 1);
	/* Not there yet: the longest existing ancestor decides. */
	assert_int_equal(allowed("x", "x/new/deeper", err, sizeof(err)), 1);
	assert_int_equal(allowed("x", "x/sub/./new", err, sizeof(err)), 1);
	/* An allowed dir reached through a symlink, or not there yet. */
	assert_int_equal(allowed("alias", "x/sub", err, sizeof(err)), 1);
	assert_int_equal(allowed("future", "future/a", err, sizeof(err)), 1);
	/* A dir named through a symlink outside that leads inside. */
	assert_int_equal(allowed("x", "alias/sub", err, sizeof(err)), 1);
	assert_int_equal(allowed("x", "alias/new/deeper", err, sizeof(err)), 1);

	/* A sibling sharing the prefix. */
	assert_int_equal(allowed("x", "xy", err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "'%s/xy' is not inside allowed_dirs "
	    "(%s/x)", tree, tree);
	assert_string_equal(err, want);
	assert_int_equal(allowed("x", "xy/new", err, sizeof(err)), 0);

	/* .. out, through existing and not yet existing parts: outside,
	 * the message quotes only the client's path. */
	assert_int_equal(allowed("x", "x/sub/../../xy", err, sizeof(err)), 0);
	assert_null(strstr(err, "really"));
	assert_int_equal(allowed("x", "x/new/../../xy", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "is not inside allowed_dirs"));
	assert_int_equal(allowed("x", "x/new/..", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "'..'"));
	/* .. that stays inside is fine where the path exists. */
	assert_int_equal(allowed("x", "x/sub/../new", err, sizeof(err)), 1);

	/* A symlink inside pointing outside, as is and below. */
	assert_int_equal(allowed("x", "x/link", err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "'%s/x/link' (really '%s/outside') is "
	    "not inside allowed_dirs (%s/x)", tree, tree, tree);
	assert_string_equal(err, want);
	assert_int_equal(allowed("x", "x/link/new", err, sizeof(err)), 0);
	/* A dangling one: mkdir would follow it. */
	assert_int_equal(allowed("x", "x/dangling", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "dangling"));
	assert_int_equal(allowed("x", "x/dangling/new", err, sizeof(err)), 0);
	/* Through a file, and relative. */
	assert_int_equal(allowed("x", "x/file/new", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "Not a directory"));
	assert_int_equal(allowed("x", "", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "not an absolute path"));
	assert_int_equal(allowed("x", "/etc", err, sizeof(err)), 0);

	/* Outside the allowed tree, a refusal tells nothing the daemon saw
	 * there (what exists, what a link points to): the same message as
	 * for a path that does not exist. */
	static const char *const probe[] = {
	    "x/../x/file/../../xy/n", "/etc/passwd/x", "/etc/mtab" };
	for (size_t i = 0; i < sizeof(probe) / sizeof(probe[0]); i++) {
		assert_int_equal(allowed("x", probe[i], err, sizeof(err)), 0);
		if (strstr(err, "Not a directory") != NULL ||
		    strstr(err, "really") != NULL ||
		    strstr(err, "dangling") != NULL ||
		    strstr(err, "is not inside allowed_dirs") == NULL)
			fail_msg("%s: '%s'", probe[i], err);
	}
}

static void
test_dir_unrestricted(void **state)
{
	struct config *c = new_config();
	char err[256];

	(void)state;
	assert_int_equal(policy_dir_allowed(c, "/etc", err, sizeof(err)), 1);
	assert_int_equal(policy_dir_allowed(c, "/no/such/../dir", err,
	    sizeof(err)), 1);
	free_config(c);
}

static void
test_dir_root_allowed(void **state)
{
	struct config *c = new_config();
	char err[256];

	(void)state;
	c->restricted = true;
	c->nallowed = 1;
	strcpy(c->allowed_dirs[0], "/");
	assert_int_equal(policy_dir_allowed(c, "/etc/new", err, sizeof(err)),
	    1);
	free_config(c);
}

/* ------------------------------------------------------------ SIGHUP */

/* What conffile_log_changes logs, captured from stderr. */
static char *
log_changes(const char *old_text, const char *new_text)
{
	struct config *a = new_config(), *b = new_config();
	char ta[] = "/tmp/stressd-config-XXXXXX", tb[] = "/tmp/stressd-config-XXXXXX";
	char tl[] = "/tmp/stressd-config-XXXXXX", err[1024], *text;
	int fd, saved;

	assert_true((fd = mkstemp(ta)) != -1);
	close(fd);
	assert_true((fd = mkstemp(tb)) != -1);
	close(fd);
	spew(ta, old_text);
	spew(tb, new_text);
	assert_int_equal(conffile_load(a, ta, err, sizeof(err)), 0);
	assert_int_equal(conffile_load(b, tb, err, sizeof(err)), 0);
	/* Same path for both, so only the contents differ. */
	strcpy(b->path, a->path);
	assert_true((fd = mkstemp(tl)) != -1);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	close(fd);
	log_init(LOG_LVL_INFO);
	conffile_log_changes(a, b);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	text = slurp(tl);
	unlink(ta);
	unlink(tb);
	unlink(tl);
	free_config(a);
	free_config(b);
	return text;
}

static void
test_log_changes(void **state)
{
	char *s;

	(void)state;
	s = log_changes("log_level = info\nallowed_dirs = /a\n"
	    "[profile kif]\nthreads = 1\nfiles = 5\n[profile old]\nfiles = 1\n",
	    "log_level = debug\n"
	    "[profile kif]\nthreads = 2\nfiles = 5\nmodulus = 7\n"
	    "[profile new]\nfiles = 9\n");
	assert_non_null(s);
	assert_non_null(strstr(s, "config: log_level: info -> debug\n"));
	assert_non_null(strstr(s, "config: allowed_dirs: /a -> (not set)\n"));
	assert_non_null(strstr(s, "config: [profile kif] threads: 1 -> 2\n"));
	assert_non_null(strstr(s,
	    "config: [profile kif] modulus: (not set) -> 7\n"));
	assert_null(strstr(s, "files: 5"));
	assert_non_null(strstr(s, "config: [profile old] removed\n"));
	assert_non_null(strstr(s, "config: [profile new] added\n"));
	assert_non_null(strstr(s, "config: [profile new] files: (not set) -> 9\n"));
	assert_null(strstr(s, "socket"));
	free(s);

	s = log_changes("[profile a]\nfiles = 1\n", "[profile a]\nfiles=1\n");
	assert_non_null(strstr(s, "config: nothing changed\n"));
	free(s);
}

int
main(void)
{
	const char *env = getenv("TOP_SRCDIR");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_print_round_trip),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_profile_types),
		cmocka_unit_test(test_shipped),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test_setup_teardown(test_dir_allowed, tree_setup,
		    tree_teardown),
		cmocka_unit_test(test_dir_unrestricted),
		cmocka_unit_test(test_dir_root_allowed),
		cmocka_unit_test(test_log_changes),
	};

	snprintf(top, sizeof(top), "%s", env != NULL && *env != '\0' ? env :
	    ".");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
