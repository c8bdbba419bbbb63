/* Unit tests of ctl/cmd.c, stressctl's command table: every entry is
 * complete (name, usage, summary, parser, a view or its own run), names
 * are unique, lookup finds each, and the usage listing names them all. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cmd.h"

static void
test_entries_complete(void **state)
{
	size_t n = 0;

	(void)state;
	for (const struct ctl_cmd *const *e = cmd_table; *e != NULL; e++) {
		const struct ctl_cmd *c = *e;

		n++;
		assert_non_null(c->name);
		assert_true(c->name[0] != '\0');
		assert_non_null(c->usage);
		assert_non_null(c->summary);
		assert_true(c->summary[0] != '\0');
		/* The summary ends the sentence --help makes of it. */
		assert_true(c->summary[strlen(c->summary) - 1] != '.');
		assert_non_null(c->parse);
		/* Either one request shown by its views, or its own run. */
		if (c->run == NULL) {
			assert_non_null(c->text);
			assert_non_null(c->json);
		} else {
			assert_null(c->text);
			assert_null(c->json);
			assert_null(c->check);
		}
		/* A full view is reached with --all, and only then. */
		{
			bool all = false;

			for (const struct option *o = c->options;
			    o != NULL && o->name != NULL; o++)
				all = all || strcmp(o->name, "all") == 0;
			assert_true(all == (c->text_all != NULL));
		}
		/* An option function has options to be given. */
		if (c->option != NULL)
			assert_non_null(c->options);
		assert_true(c->min_runs >= 0);
		assert_true(c->max_runs < 0 || c->max_runs >= c->min_runs);
	}
	assert_true(n >= 13);
}

static void
test_names_unique(void **state)
{
	(void)state;
	for (const struct ctl_cmd *const *a = cmd_table; *a != NULL; a++)
		for (const struct ctl_cmd *const *b = a + 1; *b != NULL; b++)
			assert_string_not_equal((*a)->name, (*b)->name);
}

static void
test_lookup(void **state)
{
	(void)state;
	for (const struct ctl_cmd *const *e = cmd_table; *e != NULL; e++)
		assert_ptr_equal(cmd_find((*e)->name), *e);
	assert_null(cmd_find("nosuch"));
	assert_null(cmd_find(""));
	assert_null(cmd_find("sta"));
}

/* Every option table holds the options every command takes. */
static void
test_common_options(void **state)
{
	static const char *const common[] = { "help", "json", "socket" };

	(void)state;
	for (const struct ctl_cmd *const *e = cmd_table; *e != NULL; e++) {
		if ((*e)->options == NULL)
			continue;
		for (size_t i = 0; i < sizeof(common) / sizeof(*common); i++) {
			const struct option *o = (*e)->options;

			while (o->name != NULL && strcmp(o->name, common[i]))
				o++;
			assert_non_null(o->name);
		}
	}
}

static void
test_listing(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	cmd_print_list(f);
	assert_int_equal(fclose(f), 0);
	for (const struct ctl_cmd *const *e = cmd_table; *e != NULL; e++) {
		char line[256];

		snprintf(line, sizeof(line), "\n  %s ", (*e)->name);
		assert_non_null(strstr(buf, line));
		assert_non_null(strstr(buf, (*e)->summary));
	}
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries_complete),
		cmocka_unit_test(test_names_unique),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_common_options),
		cmocka_unit_test(test_listing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
