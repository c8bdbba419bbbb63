/* Unit tests of ctl/graph.c: the integer axis of the integer gauges (whole
 * ticks that reach the largest value, no SI prefix), the round ceilings it
 * is made of, RUN operands naming a run directory, and the escaping of
 * DEF paths and legend text as librrd 1.7.2 reads them (only "\:"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "graph.h"

/* The value of "--NAME=..." in a, or NULL. */
static const char *
arg_value(const struct graph_args *a, const char *name)
{
	size_t n = strlen(name);

	for (int i = 0; i < a->argc; i++)
		if (strncmp(a->argv[i], name, n) == 0 && a->argv[i][n] == '=')
			return a->argv[i] + n + 1;
	return NULL;
}

static void
test_int_axis(void **state)
{
	static const double maxima[] = {
		0, 0.4, 1, 3, 6, 7, 12, 99, 101, 25364, 1e6, 123456789
	};

	(void)state;
	for (size_t i = 0; i < sizeof(maxima) / sizeof(*maxima); i++) {
		struct graph_args a = { 0 };
		const char *grid, *top;
		long step, label, upper;

		graph_int_axis(&a, maxima[i]);
		assert_string_equal(arg_value(&a, "--units-exponent"), "0");
		assert_string_equal(arg_value(&a, "--lower-limit"), "0");
		assert_non_null(grid = arg_value(&a, "--y-grid"));
		assert_non_null(top = arg_value(&a, "--upper-limit"));
		assert_int_equal(sscanf(grid, "%ld:%ld", &step, &label), 2);
		upper = strtol(top, NULL, 10);
		/* Whole ticks, the last at or above the largest value, a
		 * handful of them, labelled. */
		assert_true(step >= 1);
		assert_int_equal(label, 1);
		assert_true((double)upper >= maxima[i]);
		assert_int_equal(upper % step, 0);
		assert_true(upper / step >= 1 && upper / step <= 6);
		graph_args_free(&a);
	}
}

static void
test_nice_ceil(void **state)
{
	(void)state;
	assert_true(graph_nice_ceil(0) == 1);
	assert_true(graph_nice_ceil(-3) == 1);
	assert_true(graph_nice_ceil(1) == 1);
	assert_true(graph_nice_ceil(1.5) == 2);
	assert_true(graph_nice_ceil(3) == 5);
	assert_true(graph_nice_ceil(7) == 10);
	assert_true(graph_nice_ceil(1000) == 1000);
	assert_true(graph_nice_ceil(4227.3) == 5000);
}

static void
test_escape(void **state)
{
	char *s;

	(void)state;
	s = graph_def_escape("/tmp/x/a:b\\c/r2/metrics.rrd");
	assert_string_equal(s, "/tmp/x/a\\:b\\c/r2/metrics.rrd");
	free(s);
	/* A '\' before a ':' stays, the ':' gets its own. */
	s = graph_def_escape("/d\\:e/m.rrd");
	assert_string_equal(s, "/d\\\\:e/m.rrd");
	free(s);
	/* A final '\' would escape the separator after the path. */
	assert_null(graph_def_escape("/tmp/d\\"));
	s = graph_text_escape("C:\\data\\");
	assert_string_equal(s, "C\\:\\data\\");
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int_axis),
		cmocka_unit_test(test_nice_ceil),
		cmocka_unit_test(test_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
