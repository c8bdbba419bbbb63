/* Unit tests of daemon/confine.c on a real tree, every case both through
 * openat2 and through the O_NOFOLLOW walk (confine_force_walk). */
#include <errno.h>
#include <fcntl.h>
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

#include "confine.h"
#include "tmpdir.h"

static char	tree[64];
static int	top = -1;	/* O_PATH of tree/in */

static void
make(const char *rel, const char *kind, const char *arg)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", tree, rel);
	if (strcmp(kind, "dir") == 0)
		assert_int_equal(mkdir(p, 0755), 0);
	else if (strcmp(kind, "link") == 0)
		assert_int_equal(symlink(arg, p), 0);
	else if (strcmp(kind, "fifo") == 0)
		assert_int_equal(mkfifo(p, 0600), 0);
	else {
		assert_true((fd = open(p, O_WRONLY | O_CREAT, 0644)) >= 0);
		assert_int_equal(write(fd, arg, strlen(arg)),
		    (ssize_t)strlen(arg));
		close(fd);
	}
}

/* state: NULL openat2 (where the kernel has it), non-NULL the walk. */
static int
setup(void **state)
{
	char p[PATH_MAX];

	confine_force_walk(*state != NULL);
	if (tmpdir_make(tree, sizeof(tree), "confine-test") == -1)
		return -1;
	make("in", "dir", NULL);
	make("in/sub", "dir", NULL);
	make("in/sub/f", "file", "inside");
	make("in/f", "file", "inside");
	make("out", "dir", NULL);
	make("out/f", "file", "outside");
	snprintf(p, sizeof(p), "%s/out/f", tree);
	make("in/link", "link", p);
	snprintf(p, sizeof(p), "%s/out", tree);
	make("in/dirlink", "link", p);
	make("in/rel", "link", "f");
	make("in/fifo", "fifo", NULL);
	snprintf(p, sizeof(p), "%s/in", tree);
	top = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return top >= 0 ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	close(top);
	confine_force_walk(false);
	return tmpdir_remove(tree);
}

/* The content of an O_PATH descriptor, reopened through /proc. */
static void
assert_content(int fd, const char *want)
{
	char p[CONFINE_FD_PATH_MAX], buf[64] = "";
	int rfd;

	assert_int_equal(confine_fd_path(p, sizeof(p), fd, NULL), 0);
	assert_true((rfd = open(p, O_RDONLY | O_CLOEXEC)) >= 0);
	assert_true(read(rfd, buf, sizeof(buf) - 1) >= 0);
	close(rfd);
	assert_string_equal(buf, want);
}

static void
expect_errno(int rc, int e)
{
	assert_int_equal(rc, -1);
	assert_int_equal(errno, e);
}

static void
test_mode(void **state)
{
	/* The walk when forced; otherwise whatever the kernel offers. */
	if (*state != NULL)
		assert_false(confine_uses_openat2());
	else
		(void)confine_uses_openat2();
}

static void
test_regular(void **state)
{
	int fd;

	(void)state;
	assert_true((fd = confine_file(top, "f")) >= 0);
	assert_content(fd, "inside");
	close(fd);
	assert_true((fd = confine_file(top, "sub/f")) >= 0);
	assert_content(fd, "inside");
	close(fd);
	assert_true((fd = confine_file(top, "./sub//f")) >= 0);
	close(fd);
}

static void
test_refused(void **state)
{
	(void)state;
	/* A symbolic link is never followed, wherever it points. */
	expect_errno(confine_file(top, "link"), ELOOP);
	expect_errno(confine_file(top, "rel"), ELOOP);
	expect_errno(confine_file(top, "dirlink/f"), ELOOP);
	expect_errno(confine_open(top, "link", O_RDONLY, 0), ELOOP);
	expect_errno(confine_open(top, "dirlink", O_PATH | O_DIRECTORY, 0),
	    ELOOP);
	/* Names that lead out. */
	expect_errno(confine_file(top, "../out/f"), EXDEV);
	expect_errno(confine_file(top, "sub/../f"), EXDEV);
	expect_errno(confine_file(top, "/etc/passwd"), EXDEV);
	/* No regular file. */
	expect_errno(confine_file(top, "sub"), EISDIR);
	expect_errno(confine_file(top, "fifo"), ENXIO);
	expect_errno(confine_file(top, "nothing"), ENOENT);
	expect_errno(confine_file(top, "f/x"), ENOTDIR);
	assert_true(confine_refused(ELOOP) && confine_refused(EXDEV) &&
	    confine_refused(EISDIR) && confine_refused(ENXIO));
	assert_false(confine_refused(ENOENT) || confine_refused(EACCES));
	assert_non_null(strstr(confine_strerror(ELOOP), "symbolic link"));
}

/* A file another user owns, or one with another name elsewhere (a hard
 * link), is no file of the daemon's: the owner could rewrite it without
 * librrd's lock under a writer (which corrupts librrd's memory), and a
 * hard link's other name may lie outside the run's directory. */
static void
test_not_ours(void **state)
{
	char p[PATH_MAX], q[PATH_MAX];

	(void)state;
	snprintf(p, sizeof(p), "%s/in/theirs", tree);
	make("in/theirs", "file", "x");
	assert_int_equal(chown(p, geteuid() + 1, (gid_t)-1), 0);
	expect_errno(confine_file(top, "theirs"), EPERM);
	snprintf(p, sizeof(p), "%s/out/f", tree);
	snprintf(q, sizeof(q), "%s/in/hard", tree);
	assert_int_equal(link(p, q), 0);
	expect_errno(confine_file(top, "hard"), EMLINK);
	assert_true(confine_refused(EPERM) && confine_refused(EMLINK));
	assert_non_null(strstr(confine_strerror(EPERM), "owned by"));
	assert_non_null(strstr(confine_strerror(EMLINK), "hard link"));
}

static void
test_absolute(void **state)
{
	char p[PATH_MAX];
	int fd;

	(void)state;
	snprintf(p, sizeof(p), "%s/in/sub", tree);
	assert_true((fd = confine_open(AT_FDCWD, p, O_PATH | O_DIRECTORY,
	    0)) >= 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/in/dirlink", tree);
	expect_errno(confine_open(AT_FDCWD, p, O_PATH | O_DIRECTORY, 0),
	    ELOOP);
	expect_errno(confine_open(AT_FDCWD, "in", O_PATH, 0), EXDEV);
}

static void
test_mkdirs(void **state)
{
	char p[PATH_MAX];
	struct stat st;
	int fd;

	(void)state;
	assert_true((fd = confine_mkdirs(top, "new/a/b", 0755)) >= 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/in/new/a/b", tree);
	assert_int_equal(stat(p, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	/* Existing components are walked, not made again. */
	assert_true((fd = confine_mkdirs(top, "new/a", 0755)) >= 0);
	close(fd);
	/* A symbolic link among them is refused, nothing is made beyond. */
	expect_errno(confine_mkdirs(top, "dirlink/x", 0755), ELOOP);
	snprintf(p, sizeof(p), "%s/out/x", tree);
	assert_int_equal(stat(p, &st), -1);
	expect_errno(confine_mkdirs(top, "f/x", 0755), ENOTDIR);
	expect_errno(confine_mkdirs(top, "../y", 0755), EXDEV);
	snprintf(p, sizeof(p), "%s/y", tree);
	assert_int_equal(stat(p, &st), -1);
}

/* The held directory keeps working once renamed and replaced by a
 * symbolic link to another tree. */
static void
test_swapped(void **state)
{
	char a[PATH_MAX], b[PATH_MAX], o[PATH_MAX];
	int d, fd;

	(void)state;
	snprintf(a, sizeof(a), "%s/in/sw", tree);
	snprintf(b, sizeof(b), "%s/in/sw.away", tree);
	snprintf(o, sizeof(o), "%s/out", tree);
	assert_true((d = confine_mkdirs(top, "sw", 0755)) >= 0);
	assert_int_equal(rename(a, b), 0);
	assert_int_equal(symlink(o, a), 0);
	/* out/f exists, but the held directory has no f. */
	expect_errno(confine_file(d, "f"), ENOENT);
	assert_true((fd = confine_open(d, "f", O_WRONLY | O_CREAT | O_EXCL,
	    0644)) >= 0);
	close(fd);
	snprintf(b, sizeof(b), "%s/in/sw.away/f", tree);
	assert_int_equal(access(b, F_OK), 0);
	close(d);
}

static void
test_place(void **state)
{
	struct confine_dir cd;
	char p[CONFINE_FD_PATH_MAX], q[PATH_MAX], o[PATH_MAX];
	struct stat st;
	int fd;

	(void)state;
	confine_dir_init(&cd);
	assert_true((cd.fd = confine_mkdirs(top, "pl/0", 0755)) >= 0);
	close(cd.fd);
	assert_true((cd.fd = confine_mkdirs(top, "pl", 0755)) >= 0);
	assert_int_equal(confine_dir_stage(&cd), 0);
	snprintf(q, sizeof(q), "%s/in/pl/%s", tree, cd.stage_name);
	assert_int_equal(lstat(q, &st), 0);
	assert_true(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	/* Made through the staging directory's fd path, moved into place. */
	assert_int_equal(confine_fd_path(p, sizeof(p), cd.stage, "3.rrd"), 0);
	assert_true((fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644)) >= 0);
	close(fd);
	assert_int_equal(confine_dir_place(&cd, "3.rrd", "0/3.rrd"), 0);
	snprintf(q, sizeof(q), "%s/in/pl/0/3.rrd", tree);
	assert_int_equal(lstat(q, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	/* Never over a symbolic link planted in the file's place. */
	snprintf(o, sizeof(o), "%s/out/f", tree);
	snprintf(q, sizeof(q), "%s/in/pl/4.rrd", tree);
	assert_int_equal(symlink(o, q), 0);
	assert_int_equal(confine_fd_path(p, sizeof(p), cd.stage, "4.rrd"), 0);
	assert_true((fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644)) >= 0);
	close(fd);
	expect_errno(confine_dir_place(&cd, "4.rrd", "4.rrd"), ELOOP);
	assert_int_equal(lstat(q, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	expect_errno(confine_file(cd.stage, "4.rrd"), ENOENT);
	snprintf(q, sizeof(q), "%s/in/pl/%s", tree, cd.stage_name);
	confine_dir_teardown(&cd);
	/* The staging directory is gone, the placed file stays. */
	assert_int_equal(lstat(q, &st), -1);
	snprintf(q, sizeof(q), "%s/in/pl/0/3.rrd", tree);
	assert_int_equal(lstat(q, &st), 0);
	assert_int_equal(cd.stage, -1);
	assert_int_equal(cd.fd, -1);
}

static void
test_names(void **state)
{
	char p[CONFINE_FD_PATH_MAX], msg[256];

	(void)state;
	assert_int_equal(confine_fd_path(p, sizeof(p), 7, NULL), 0);
	assert_string_equal(p, "/proc/self/fd/7");
	assert_int_equal(confine_fd_path(p, sizeof(p), 7, "12.rrd"), 0);
	assert_string_equal(p, "/proc/self/fd/7/12.rrd");
	assert_int_equal(confine_fd_path(p, 10, 7, "12.rrd"), -1);
	snprintf(msg, sizeof(msg), "opening '/proc/self/fd/7': No; "
	    "/proc/self/fd/71 stays");
	confine_unname(msg, sizeof(msg), "/proc/self/fd/7", "/srv/x/3.rrd");
	assert_string_equal(msg, "opening '/srv/x/3.rrd': No; "
	    "/proc/self/fd/71 stays");
	snprintf(msg, sizeof(msg), "/proc/self/fd/7");
	confine_unname(msg, 20, "/proc/self/fd/7", "/a/very/long/name/beyond");
	assert_string_equal(msg, "/a/very/long/name/b");
}

/* Why the walk: an ENOSYS from a filter is not an old kernel's. */
static void
test_walk_why(void **state)
{
	char why[320], how[400];

	(void)state;
	confine_walk_why(ENOSYS, "5.4.0-150-generic", 0, why, sizeof(why));
	assert_string_equal(why, "Linux 5.4.0-150-generic has no openat2");
	/* Under a filter, a kernel before 5.6 still has none. */
	confine_walk_why(ENOSYS, "5.5.19", 2, why, sizeof(why));
	assert_string_equal(why, "Linux 5.5.19 has no openat2");
	confine_walk_why(ENOSYS, "6.1.0-18-amd64", 2, why, sizeof(why));
	assert_string_equal(why, "a seccomp filter refuses openat2 with ENOSYS "
	    "on Linux 6.1.0-18-amd64, which has it: systemd's "
	    "RestrictSUIDSGID=yes refuses every openat2, whose mode it cannot "
	    "inspect");
	confine_walk_why(EPERM, "5.6.0", 2, why, sizeof(why));
	assert_non_null(strstr(why, "refuses openat2 with EPERM on Linux "
	    "5.6.0, which has it"));
	/* No filter, a kernel that has it: say only what failed. */
	confine_walk_why(ENOSYS, "6.1.0", 0, why, sizeof(why));
	assert_string_equal(why, "openat2 fails with ENOSYS on Linux 6.1.0");
	confine_walk_why(EINVAL, "weird", 0, why, sizeof(why));
	assert_string_equal(why, "openat2 fails with Invalid argument on Linux "
	    "weird");
	confine_walk_why(ENOSYS, "6.1.0", 2, why, 20);
	assert_int_equal(strlen(why), 19);
	confine_force_walk(true);
	confine_method(how, sizeof(how));
	assert_string_equal(how, "an O_NOFOLLOW walk (forced by a test)");
	confine_force_walk(false);
	confine_method(how, sizeof(how));
	assert_true(strncmp(how, confine_uses_openat2() ? "openat2 (" :
	    "an O_NOFOLLOW walk (", 9) == 0);
}

#define BOTH(t)	cmocka_unit_test_prestate_setup_teardown(t, setup, \
	teardown, NULL), cmocka_unit_test_prestate_setup_teardown(t, setup, \
	teardown, (void *)1)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_regular),
		BOTH(test_refused),
		BOTH(test_not_ours),
		BOTH(test_absolute),
		BOTH(test_mkdirs),
		BOTH(test_swapped),
		BOTH(test_place),
		BOTH(test_mode),
		cmocka_unit_test_prestate_setup_teardown(test_names, setup,
		    teardown, NULL),
		cmocka_unit_test(test_walk_why),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
