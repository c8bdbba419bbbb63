/* stressctl: command-line client of stressd.  Finds the command in the
 * table (cmd.c), lets its parser read the command line, then either sends
 * the one request named after it and shows the reply with the entry's
 * view, or runs a command that makes its own requests (the records). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "call.h"
#include "columns.h"
#include "cmd.h"
#include "options.h"
#include "proto.h"
#include "termsafe.h"

/* The view of the command's entry for this result: its JSON view, else
 * the text (or --all) view of the first of its kinds the result is, else
 * its own. */
static ctl_view_fn
reply_view(const struct ctl *ctl, json_object *res)
{
	const struct ctl_cmd *cmd = ctl->cmd;
	bool all = ctl->all && cmd->text_all != NULL;

	if (ctl->json)
		return cmd->json;
	for (const struct ctl_kind *k = cmd->kinds; k != NULL &&
	    k->is != NULL; k++) {
		ctl_view_fn view = all ? k->text_all : k->text;

		if (view != NULL && k->is(res))
			return view;
	}
	return all ? cmd->text_all : cmd->text;
}

/* Show a reply's result with the command's view and check it. */
static int
show_reply(struct ctl *ctl, json_object *reply)
{
	json_object *v = NULL;
	int ret;

	json_object_object_get_ex(reply, "result", &v);
	reply_view(ctl, v)(v);
	ret = ctl->cmd->check != NULL ? ctl->cmd->check(ctl, v) : CTL_EXIT_OK;
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "stressctl: stdout: %s\n", strerror(errno));
		ret = CTL_EXIT_ERROR;
	}
	return ret;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, OPT_SOCKET },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct ctl ctl = { .socket = NULL, .timeout = -1 };
	json_object *reply = NULL;
	const char *env;
	int c, ret = CTL_EXIT_USAGE;

	termsafe_init();
	/* Text fits 80 columns, or the terminal's width on a terminal. */
	columns_set_width(columns_out_width(STDOUT_FILENO));
	if ((env = getenv("STRESSD_SOCKET")) != NULL && *env != '\0') {
		ctl.socket = env;
		ctl.socket_from = "STRESSD_SOCKET";
	} else {
		ctl.socket = STRESSD_DEFAULT_SOCKET;
		ctl.socket_from = "the default socket";
	}

	opterr = 0;
	/* "+": stop at the command; its options are parsed by its parser. */
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		if (options_common(&ctl, c))
			continue;
		switch (c) {
		case 'h':
			cmd_print_list(stdout);
			return CTL_EXIT_OK;
		case OPT_VERSION:
			printf("stressctl %s (protocol %d)\n", PACKAGE_VERSION,
			    PROTO_VERSION);
			return CTL_EXIT_OK;
		default:
			return options_error(NULL, c, argv, opts);
		}
	}
	if (optind >= argc) {
		options_usage_error(NULL, "no command given");
		return CTL_EXIT_USAGE;
	}
	if ((ctl.cmd = cmd_find(argv[optind])) == NULL) {
		char hint[256];

		cmd_suggest(argv[optind], hint, sizeof(hint));
		options_usage_error(NULL, "unknown command '%s'%s",
		    argv[optind], hint);
		return CTL_EXIT_USAGE;
	}

	if ((ctl.args = json_object_new_object()) == NULL) {
		fprintf(stderr, "stressctl: out of memory\n");
		ret = CTL_EXIT_ERROR;
		goto fail;
	}
	argc -= optind;
	argv += optind;
	optind = 0;		/* glibc: restart scanning from scratch */
	if ((ret = ctl.cmd->parse(&ctl, argc, argv)) != PARSE_OK)
		goto fail;
	if (*ctl.socket == '\0') {
		options_usage_error(NULL, "--socket: empty path");
		ret = CTL_EXIT_USAGE;
		goto fail;
	}

	if (ctl.cmd->run != NULL) {
		ctl.rec.name = ctl.cmd->name;
		ctl.rec.json = ctl.json;
		ctl.rec.call = call_daemon;
		ctl.rec.call_arg = &ctl;
		ret = ctl.cmd->run(&ctl.rec);
		if (fflush(stdout) == EOF || ferror(stdout)) {
			fprintf(stderr, "stressctl: stdout: %s\n",
			    strerror(errno));
			ret = CTL_EXIT_ERROR;
		}
		goto fail;
	}
	if ((ret = call_request(&ctl, ctl.cmd->name, ctl.args, &reply)) ==
	    CALL_OK)
		ret = show_reply(&ctl, reply);
fail:
	json_object_put(reply);
	cmd_ctl_free(&ctl);
	return ret;
}
