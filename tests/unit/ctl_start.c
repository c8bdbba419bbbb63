/* Unit tests of ctl/cmd-start.c: start's and sweep's options as they end up
 * in the request's args, and the refusals that exit with status 2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "cmd-start.h"
#include "cmd.h"
#include "fmt.h"
#include "proto.h"

/* Parse argv (NULL terminated, argv[0] the command) as cmd would. */
static int
parse(struct ctl *ctl, const struct ctl_cmd *cmd, const char **argv)
{
	int argc = 0;

	memset(ctl, 0, sizeof(*ctl));
	ctl->cmd = cmd;
	ctl->args = json_object_new_object();
	assert_non_null(ctl->args);
	while (argv[argc] != NULL)
		argc++;
	optind = 0;	/* glibc: restart scanning from scratch */
	opterr = 0;
	return cmd->parse(ctl, argc, (char **)argv);
}

static void
done(struct ctl *ctl)
{
	cmd_ctl_free(ctl);
}

static void
test_start_args(void **state)
{
	const char *argv[] = {
		"start", "--dir", "/tmp/x/", "--files", "5", "--prioritize",
		"--no-queue-creates", "-D", "stresstest.threadcount=3", NULL
	};
	struct ctl ctl;

	(void)state;
	assert_int_equal(parse(&ctl, &cmd_start_entry, argv), PARSE_OK);
	/* A directory loses its trailing slash. */
	assert_string_equal(fmt_json_string(ctl.args),
	    "{\"dir\":\"/tmp/x\",\"files\":5,\"prioritize\":true,"
	    "\"queue_creates\":false,\"threads\":3}");
	done(&ctl);
}

static void
test_start_refused(void **state)
{
	static const char *const cases[][6] = {
		{ "start", NULL },				/* no --dir */
		{ "start", "--dir", "/x", "--files", "0", NULL },
		{ "start", "--dir", "/x", "--rras", "AVERAGE", NULL },
		{ "start", "--dir", "/x", "-D", "nosuch=1", NULL },
		{ "start", "--dir", "/x", "extra", NULL },
		{ "start", "--dir", "/x", "--bogus", NULL },
	};
	struct ctl ctl;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		assert_int_equal(parse(&ctl, &cmd_start_entry,
		    (const char **)cases[i]), CTL_EXIT_USAGE);
		done(&ctl);
	}
}

static void
test_sweep_dirs(void **state)
{
	const char *argv[] = {
		"sweep", "--dir", "/a", "--dir", "/b/", "--repeat", "3",
		"--files", "7", NULL
	};
	struct ctl ctl;

	(void)state;
	assert_int_equal(parse(&ctl, &cmd_sweep_entry, argv), PARSE_OK);
	assert_int_equal(ctl.nsweep_dirs, 2);
	assert_string_equal(ctl.sweep_dirs[0], "/a");
	assert_string_equal(ctl.sweep_dirs[1], "/b");
	assert_int_equal(ctl.repeat, 3);
	/* --dir is the sweep's, not a knob of the request. */
	assert_string_equal(fmt_json_string(ctl.args), "{\"files\":7}");
	done(&ctl);
}

/* The sweep sets sweep_id; --sweep-id is refused wherever it comes. */
static void
test_sweep_id_refused(void **state)
{
	const char *first[] = { "sweep", "--sweep-id", "x", "--dir", "/a",
	    NULL };
	const char *later[] = { "sweep", "--dir", "/a", "--sweep-id", "x",
	    NULL };
	struct ctl ctl;

	(void)state;
	assert_int_equal(parse(&ctl, &cmd_sweep_entry, first), CTL_EXIT_USAGE);
	done(&ctl);
	assert_int_equal(parse(&ctl, &cmd_sweep_entry, later), CTL_EXIT_USAGE);
	done(&ctl);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_args),
		cmocka_unit_test(test_start_refused),
		cmocka_unit_test(test_sweep_dirs),
		cmocka_unit_test(test_sweep_id_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
