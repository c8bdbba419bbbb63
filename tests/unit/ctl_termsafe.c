/* Unit tests of ctl/termsafe.c: what reaches a terminal holds no control
 * character, keeps text and UTF-8 as they are, and a character cut
 * between two writes comes out whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "termsafe.h"

/* What the filter writes for the given writes (each a separate write on
 * an unbuffered stream). */
static const char *
filtered(const char *const *writes, size_t n)
{
	static char got[4096];
	int fds[2];
	ssize_t len;
	FILE *f;

	assert_int_equal(pipe(fds), 0);
	assert_non_null(f = termsafe_open(fds[1]));
	setvbuf(f, NULL, _IONBF, 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(fwrite(writes[i], 1, strlen(writes[i]), f),
		    strlen(writes[i]));
	assert_int_equal(fclose(f), 0);
	close(fds[1]);
	len = read(fds[0], got, sizeof(got) - 1);
	close(fds[0]);
	assert_true(len >= 0);
	got[len] = '\0';
	return got;
}

#define ONE(s)	filtered((const char *const[]){ s }, 1)

static void
test_controls_shown(void **state)
{
	(void)state;
	assert_string_equal(ONE("/srv/\033[31mred\033]0;title\007"),
	    "/srv/\\x1b[31mred\\x1b]0;title\\x07");
	assert_string_equal(ONE("a\rb\bc\177d"), "a\\x0db\\x08c\\x7fd");
	/* C1: U+009B is a CSI on some terminals. */
	assert_string_equal(ONE("x\xc2\x9b" "31m"), "x\\xc2\\x9b31m");
	/* Not UTF-8. */
	assert_string_equal(ONE("bad\xff\xc3("), "bad\\xff\\xc3(");
}

static void
test_text_kept(void **state)
{
	(void)state;
	assert_string_equal(ONE("run 3\tok\n"), "run 3\tok\n");
	assert_string_equal(ONE("caf\xc3\xa9 \xc2\xa0 \xe6\x97\xa5 "
	    "\xf0\x9f\x93\x88\n"), "caf\xc3\xa9 \xc2\xa0 \xe6\x97\xa5 "
	    "\xf0\x9f\x93\x88\n");
}

static void
test_cut_between_writes(void **state)
{
	static const char *const parts[] = { "ab\xe6", "\x97", "\xa5" "c" };
	static const char *const end[] = { "ab\xf0\x9f" };

	(void)state;
	assert_string_equal(filtered(parts, 3), "ab\xe6\x97\xa5" "c");
	/* Never completed: shown as bytes when the stream closes. */
	assert_string_equal(filtered(end, 1), "ab\\xf0\\x9f");
}

/* A long write passes through the filter's chunks unchanged. */
static void
test_long(void **state)
{
	static char big[3000];
	const char *got;

	(void)state;
	for (size_t i = 0; i + 2 < sizeof(big); i += 2)
		memcpy(big + i, "\xc3\xa9", 2);	/* chunk edges inside */
	got = ONE(big);
	assert_string_equal(got, big);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_controls_shown),
		cmocka_unit_test(test_text_kept),
		cmocka_unit_test(test_cut_between_writes),
		cmocka_unit_test(test_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
