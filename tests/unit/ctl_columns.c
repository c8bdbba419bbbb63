/* Unit tests of ctl/columns.c, stressctl's one column engine: alignment,
 * no trailing blanks, free cells, indents, and UTF-8 text measured in
 * characters rather than bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "columns.h"

/* What t prints with indent, as a malloc'd string. */
static char *
printed(const struct columns *t, int indent)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	columns_print(t, f, indent);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void
check(struct columns *t, int indent, const char *want)
{
	char *got = printed(t, indent);

	assert_string_equal(got, want);
	free(got);
	columns_free(t);
}

static void
test_width(void **state)
{
	(void)state;
	assert_int_equal(columns_width(""), 0);
	assert_int_equal(columns_width("abc"), 3);
	/* Two, three and four byte sequences are one character each. */
	assert_int_equal(columns_width("d\xc3\xbc"), 2);	/* dü */
	assert_int_equal(columns_width("\xe2\x96\x81x"), 2);	/* ▁x */
	assert_int_equal(columns_width("\xf0\x9f\x98\x80"), 1);	/* 😀 */
}

static void
test_align(void **state)
{
	struct columns *t = columns_new("lr");

	(void)state;
	columns_add(t, "a");
	columns_add(t, "%d", 1);
	columns_add(t, "bbb");
	columns_add(t, "%d", 22);
	check(t, 0, "a     1\nbbb  22\n");
}

static void
test_no_trailing_blanks(void **state)
{
	struct columns *t = columns_new("lll");

	(void)state;
	/* A left-aligned last cell is not padded; empty cells after the
	 * last non-empty one are not printed at all. */
	columns_add(t, "name");
	columns_add(t, "x");
	columns_add(t, "longer value");
	columns_add(t, "n");
	columns_add(t, "yyy");
	columns_add(t, "%s", "");
	columns_add(t, "n2");
	check(t, 2, "  name  x    longer value\n  n     yyy\n  n2\n");
}

static void
test_utf8(void **state)
{
	struct columns *t = columns_new("lrl");

	(void)state;
	/* "dü" is two characters in three bytes: padded as two. */
	columns_add(t, "d\xc3\xbc");
	columns_add(t, "\xc3\xa9t\xc3\xa9");	/* été */
	columns_add(t, "x");
	columns_add(t, "abc");
	columns_add(t, "1");
	columns_add(t, "y");
	check(t, 0, "d\xc3\xbc   \xc3\xa9t\xc3\xa9  x\nabc    1  y\n");
}

static void
test_free_and_tail(void **state)
{
	struct columns *t = columns_new("lr");

	(void)state;
	columns_row(t, 0);
	columns_cell(t, "a", 0);
	columns_cell(t, "12", 0);
	columns_tail(t, " s");
	/* A free cell neither widens its column nor is padded. */
	columns_row(t, 0);
	columns_cell(t, "b", 0);
	columns_cell(t, "a long message", COLUMNS_FREE);
	/* A line of its own: one free cell. */
	columns_row(t, 0);
	columns_cell(t, "heading that is long", COLUMNS_FREE);
	check(t, 0, "a  12 s\nb  a long message\nheading that is long\n");
}

static void
test_row_indent(void **state)
{
	struct columns *t = columns_new("lr");

	(void)state;
	/* A row's indent counts towards the first column's width. */
	columns_row(t, 0);
	columns_cell(t, "run:", COLUMNS_FREE);
	columns_row(t, 2);
	columns_cell(t, "id", 0);
	columns_cell(t, "7", 0);
	columns_row(t, 0);
	columns_cell(t, "name", 0);
	columns_cell(t, "10", 0);
	check(t, 0, "run:\n  id   7\nname  10\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_align),
		cmocka_unit_test(test_no_trailing_blanks),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_free_and_tail),
		cmocka_unit_test(test_row_indent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
