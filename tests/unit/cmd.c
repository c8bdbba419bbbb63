/* Unit tests of daemon/cmd.c: every entry of the command table is whole
 * (name, usage, summary, argument check, handler), names are unique, and
 * lookup finds each one and nothing else. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cmd.h"

static void
test_entries_whole(void **state)
{
	(void)state;
	assert_true(cmd_count > 0);
	for (size_t i = 0; i < cmd_count; i++) {
		const struct cmd_entry *e = cmd_table[i];

		assert_non_null(e);
		assert_non_null(e->name);
		assert_true(e->name[0] != '\0');
		assert_non_null(e->usage);
		/* The usage starts with the command's name. */
		assert_int_equal(strncmp(e->usage, e->name, strlen(e->name)), 0);
		assert_non_null(e->summary);
		assert_true(e->summary[0] != '\0');
		assert_non_null(e->check);
		assert_non_null(e->handler);
	}
}

static void
test_names_unique(void **state)
{
	(void)state;
	for (size_t i = 0; i < cmd_count; i++)
		for (size_t j = i + 1; j < cmd_count; j++)
			assert_string_not_equal(cmd_table[i]->name,
			    cmd_table[j]->name);
}

static void
test_lookup(void **state)
{
	(void)state;
	for (size_t i = 0; i < cmd_count; i++)
		assert_ptr_equal(cmd_find(cmd_table[i]->name), cmd_table[i]);
	assert_null(cmd_find(""));
	assert_null(cmd_find("nosuch"));
	assert_null(cmd_find("STATS"));
	assert_null(cmd_find("stat"));
}

/* Only start and stop change the daemon's state: the writer check. */
static void
test_read_only(void **state)
{
	(void)state;
	for (size_t i = 0; i < cmd_count; i++) {
		const char *n = cmd_table[i]->name;

		assert_int_equal(cmd_table[i]->read_only,
		    strcmp(n, "start") != 0 && strcmp(n, "stop") != 0 &&
		    strcmp(n, "capacity") != 0 && strcmp(n, "sweep") != 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries_whole),
		cmocka_unit_test(test_names_unique),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_read_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
