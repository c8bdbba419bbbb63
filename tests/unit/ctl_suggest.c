/* Unit tests of ctl/suggest.c: the edit distance, the nearest names of a
 * list (typos found, nothing far fetched), the phrase, and the hint for a
 * --socket naming a directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "suggest.h"

static const char *const commands[] = {
	"start", "stop", "stats", "status", "wait", "help", "version",
	"runs", "report", "compare", "watch", "graph", "sweep",
};
#define NCMDS	(sizeof(commands) / sizeof(commands[0]))

static void
test_distance(void **state)
{
	(void)state;
	assert_int_equal(suggest_distance("", ""), 0);
	assert_int_equal(suggest_distance("abc", ""), 3);
	assert_int_equal(suggest_distance("", "abc"), 3);
	assert_int_equal(suggest_distance("status", "status"), 0);
	/* A swap of neighbours is one edit, not two. */
	assert_int_equal(suggest_distance("stauts", "status"), 1);
	assert_int_equal(suggest_distance("fles", "files"), 1);
	assert_int_equal(suggest_distance("filess", "files"), 1);
	assert_int_equal(suggest_distance("fikes", "files"), 1);
	assert_int_equal(suggest_distance("kitten", "sitting"), 3);
	assert_int_equal(suggest_distance("stop", "start"), 3);
}

static void
test_nearest(void **state)
{
	const char *best[SUGGEST_MAX];

	(void)state;
	/* One edit from both (a swap; a deletion). */
	assert_int_equal(suggest_nearest("stauts", commands, NCMDS, best), 2);
	assert_string_equal(best[0], "stats");
	assert_string_equal(best[1], "status");
	assert_int_equal(suggest_nearest("sweeep", commands, NCMDS, best), 1);
	assert_string_equal(best[0], "sweep");
	assert_int_equal(suggest_nearest("reprot", commands, NCMDS, best), 1);
	assert_string_equal(best[0], "report");
	/* Equally near: all of them, in list order. */
	assert_int_equal(suggest_nearest("stat", commands, NCMDS, best), 2);
	assert_string_equal(best[0], "stats");
	assert_string_equal(best[1], "status");
	/* A prefix, however short, names what it could be. */
	assert_int_equal(suggest_nearest("comp", commands, NCMDS, best), 1);
	assert_string_equal(best[0], "compare");
	/* Nothing near, nothing suggested. */
	assert_int_equal(suggest_nearest("xyzzyplugh", commands, NCMDS, best),
	    0);
	assert_int_equal(suggest_nearest("", commands, NCMDS, best), 0);
	/* A short word gets one edit only: "ab" is not "help". */
	assert_int_equal(suggest_nearest("ab", commands, NCMDS, best), 0);
	/* Never more than SUGGEST_MAX. */
	{
		static const char *const many[] = { "aa", "ab", "ac", "ad" };

		assert_int_equal(suggest_nearest("a", many, 4, best),
		    SUGGEST_MAX);
	}
}

static void
test_phrase(void **state)
{
	static const char *const opts[] = { "files", "threads", "dir" };
	char buf[256];

	(void)state;
	suggest_phrase("fles", opts, 3, "--", buf, sizeof(buf));
	assert_string_equal(buf, "; did you mean '--files'?");
	suggest_phrase("stat", commands, NCMDS, "", buf, sizeof(buf));
	assert_string_equal(buf, "; did you mean 'stats' or 'status'?");
	suggest_phrase("zzzzzz", opts, 3, "--", buf, sizeof(buf));
	assert_string_equal(buf, "");
	/* Cut to the buffer, still a string. */
	suggest_phrase("fles", opts, 3, "--", buf, 8);
	assert_int_equal(strlen(buf), 7);
}

static void
test_socket(void **state)
{
	char dir[] = "/tmp/ctl_suggest.XXXXXX", buf[512], want[512];
	char sub[600];
	struct sockaddr_un sun;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* Not a directory (here: nothing at all): nothing to say. */
	snprintf(sub, sizeof(sub), "%s/none", dir);
	assert_int_equal(suggest_socket(sub, "--socket", "stressd.sock", buf,
	    sizeof(buf)), -1);
	/* An empty directory: the default name in it. */
	assert_int_equal(suggest_socket(dir, "--socket", "stressd.sock", buf,
	    sizeof(buf)), 0);
	snprintf(want, sizeof(want), "--socket %s: is a directory; the socket "
	    "is e.g. %s/stressd.sock?", dir, dir);
	assert_string_equal(buf, want);
	/* A socket in it, of another name: that one. */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/s.sock", dir);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(suggest_socket(dir, "STRESSD_SOCKET", "stressd.sock",
	    buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "STRESSD_SOCKET %s: is a directory; the "
	    "socket is %s/s.sock?", dir, dir);
	assert_string_equal(buf, want);
	close(fd);
	unlink(sun.sun_path);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_nearest),
		cmocka_unit_test(test_phrase),
		cmocka_unit_test(test_socket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
