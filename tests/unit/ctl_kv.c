/* Unit tests of ctl/kv.c, the key/value views: nested objects, units,
 * long values, and names and values with UTF-8 text aligned by
 * characters (the rows go through the column engine). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "fmt.h"
#include "kv.h"

/* What kv_print prints on stdout, as a malloc'd string. */
static char *
printed(const struct kv *t)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDOUT_FILENO);
	char *buf;
	long len;

	assert_non_null(tmp);
	assert_true(saved >= 0);
	fflush(stdout);
	assert_true(dup2(fileno(tmp), STDOUT_FILENO) >= 0);
	kv_print(t);
	fflush(stdout);
	assert_true(dup2(saved, STDOUT_FILENO) >= 0);
	close(saved);
	len = lseek(fileno(tmp), 0, SEEK_END);
	assert_true(len >= 0);
	buf = calloc(1, (size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(pread(fileno(tmp), buf, (size_t)len, 0), len);
	fclose(tmp);
	return buf;
}

static void
check(struct kv *t, const char *want)
{
	char *got = printed(t);

	assert_string_equal(got, want);
	free(got);
	kv_free(t);
}

static void
test_utf8_left(void **state)
{
	struct kv t = { .right = false };
	struct kv_row *r;

	(void)state;
	/* "näme" is four characters in five bytes. */
	r = kv_add(&t, fmt_xstrdup("n\xc3\xa4me"));
	kv_cell(r, fmt_xstrdup("x"));
	kv_cell(r, fmt_xstrdup("y"));
	r = kv_add(&t, fmt_xstrdup("ab"));
	kv_cell(r, fmt_xstrdup("xyz"));
	kv_cell(r, fmt_xstrdup("w"));
	check(&t, "n\xc3\xa4me  x    y\nab    xyz  w\n");
}

static void
test_utf8_right(void **state)
{
	struct kv t = { .right = true };

	(void)state;
	kv_cell(kv_add(&t, fmt_xstrdup("dir")),
	    fmt_xstrdup("/d\xc3\xbc"));
	kv_cell(kv_add(&t, fmt_xstrdup("files")), fmt_xstrdup("10"));
	check(&t, "dir    /d\xc3\xbc\nfiles   10\n");
}

static void
test_values(void **state)
{
	json_object *o = json_tokener_parse("{\"elapsed_s\": 2.5, \"run\": "
	    "{\"id\": 3, \"tags\": [\"a\", \"b\"]}, \"reason\": "
	    "\"a reason far longer than any number\", \"n\": 12}");
	static const struct kv_field fields[] = {
		{ "elapsed_s", "elapsed", "s", "%.1f", KV_PLAIN },
		KV_SEP,
		KV_F("n"),
	};
	struct kv t = { .right = true };

	(void)state;
	assert_non_null(o);
	kv_known(&t, o, fields, sizeof(fields) / sizeof(*fields));
	kv_unknown(&t, o, fields, sizeof(fields) / sizeof(*fields), NULL);
	/* The long reason is printed as it is, not padding the numbers. */
	check(&t, "elapsed   2.5 s\n\nn          12\nrun:\n  id        3\n"
	    "  tags   a, b\nreason   a reason far longer than any number\n");
	json_object_put(o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_left),
		cmocka_unit_test(test_utf8_right),
		cmocka_unit_test(test_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
