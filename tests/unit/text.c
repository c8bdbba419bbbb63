/* Unit tests of common/text.c: well-formed UTF-8 is recognised by the
 * rules of RFC 3629, cuts fall between characters, repair leaves only
 * UTF-8, quotes are bounded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "text.h"

static void
test_utf8_len(void **state)
{
	(void)state;
	assert_int_equal(text_utf8_len("a"), 1);
	assert_int_equal(text_utf8_len("\xc3\xa9"), 2);
	assert_int_equal(text_utf8_len("\xe6\x97\xa5"), 3);
	assert_int_equal(text_utf8_len("\xf0\x9f\x93\x88"), 4);
	assert_int_equal(text_utf8_len("\xf4\x8f\xbf\xbf"), 4);	/* U+10FFFF */
	assert_int_equal(text_utf8_len("\x80"), 0);	/* continuation */
	assert_int_equal(text_utf8_len("\xc0\xaf"), 0);	/* overlong '/' */
	assert_int_equal(text_utf8_len("\xe0\x80\xaf"), 0);
	assert_int_equal(text_utf8_len("\xed\xa0\x80"), 0);	/* surrogate */
	assert_int_equal(text_utf8_len("\xf4\x90\x80\x80"), 0);
	assert_int_equal(text_utf8_len("\xff"), 0);
	assert_int_equal(text_utf8_len("\xe2\x82"), 0);	/* cut by the NUL */
}

static void
test_cut(void **state)
{
	const char *s = "caf\xc3\xa9\xe6\x97\xa5";

	(void)state;
	assert_int_equal(text_cut(s, 100), strlen(s));
	assert_int_equal(text_cut(s, 9), 8);
	assert_int_equal(text_cut(s, 7), 5);
	assert_int_equal(text_cut(s, 6), 5);
	assert_int_equal(text_cut(s, 5), 5);
	assert_int_equal(text_cut(s, 4), 3);
	assert_int_equal(text_cut(s, 0), 0);
	/* A byte that is no character counts as one. */
	assert_int_equal(text_cut("a\xff" "b", 2), 2);
}

static void
test_repair(void **state)
{
	char a[] = "x\xc3 y\xe2\x82\xac z\xff\xed\xa0\x80";
	char b[] = "caf\xc3\xa9";

	(void)state;
	assert_int_equal(text_utf8_repair(a), 5);
	assert_string_equal(a, "x? y\xe2\x82\xac z????");
	assert_int_equal(text_utf8_repair(b), 0);
	assert_string_equal(b, "caf\xc3\xa9");
}

static void
test_quote(void **state)
{
	char buf[16];

	(void)state;
	assert_string_equal(text_quote(buf, sizeof(buf), "short", 10),
	    "short");
	assert_string_equal(text_quote(buf, sizeof(buf), "0123456789ab", 10),
	    "0123456789...");
	/* Never past the buffer, never inside a character. */
	assert_string_equal(text_quote(buf, sizeof(buf),
	    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9",
	    100), "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9...");
	assert_string_equal(text_quote(buf, sizeof(buf), "ab\xe6\x97\xa5z", 4),
	    "ab...");
	assert_string_equal(text_quote(buf, 3, "abc", 10), "");
}

static void
test_same(void **state)
{
	(void)state;
	assert_true(text_same("a", "a"));
	assert_true(text_same(NULL, NULL));
	assert_false(text_same("a", "b"));
	assert_false(text_same("a", NULL));
	assert_false(text_same(NULL, ""));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_len),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_repair),
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_same),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
