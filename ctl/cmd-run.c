/* stressctl stop and wait: the commands that end with a run's final stats,
 * and the exit status those stats call for. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "capview.h"
#include "cmd-run.h"
#include "headline.h"
#include "options.h"
#include "proto.h"
#include "replyview.h"
#include "statsview.h"

static int
stop_option(struct ctl *ctl, int c)
{
	/* Replaces the default in place: "drain" stays before "wait". */
	switch (c) {
	case OPT_NO_DRAIN:
		json_object_object_add(ctl->args, "drain",
		    json_object_new_boolean(false));
		return PARSE_OK;
	case OPT_NO_WAIT:
		json_object_object_add(ctl->args, "wait",
		    json_object_new_boolean(false));
		return PARSE_OK;
	}
	return OPTIONS_UNKNOWN;
}

/* Both flags are sent, whatever was given. */
static int
parse_stop(struct ctl *ctl, int argc, char **argv)
{
	json_object_object_add(ctl->args, "drain",
	    json_object_new_boolean(true));
	json_object_object_add(ctl->args, "wait",
	    json_object_new_boolean(true));
	return options_parse_plain(ctl, argc, argv);
}

static const char *
result_state(json_object *res)
{
	json_object *v;

	if (!json_object_is_type(res, json_type_object) ||
	    !json_object_object_get_ex(res, "state", &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* Exit status for the final stats of a run (stop, wait). */
static int
run_outcome(const struct ctl_cmd *cmd, json_object *res, bool final)
{
	const char *state = result_state(res);
	json_object *v;

	if (state == NULL) {
		fprintf(stderr, "stressctl %s: reply has no run state\n",
		    cmd->name);
		return CTL_EXIT_ERROR;
	}
	if (strcmp(state, "failed") == 0) {
		fprintf(stderr, "stressctl %s: run %s failed%s%s\n", cmd->name,
		    json_object_object_get_ex(res, "run_id", &v) ?
		    json_object_get_string(v) : "?",
		    json_object_object_get_ex(res, "reason", &v) &&
		    json_object_is_type(v, json_type_string) ? ": " : "",
		    json_object_object_get_ex(res, "reason", &v) &&
		    json_object_is_type(v, json_type_string) ?
		    json_object_get_string(v) : "");
		return CTL_EXIT_ERROR;
	}
	/* idle: there was no run to wait for, which is not a failure. */
	if (final && strcmp(state, "done") != 0 &&
	    strcmp(state, "stopped") != 0 && strcmp(state, "idle") != 0) {
		fprintf(stderr, "stressctl %s: run is still %s\n", cmd->name,
		    state);
		return CTL_EXIT_ERROR;
	}
	return CTL_EXIT_OK;
}

static int
ctl_check_stop(struct ctl *ctl, json_object *res)
{
	json_object *wait = NULL;

	/* Without wait the run is still draining: only failed counts. */
	json_object_object_get_ex(ctl->args, "wait", &wait);
	return run_outcome(ctl->cmd, res, json_object_get_boolean(wait));
}

static int
check_wait(struct ctl *ctl, json_object *res)
{
	return run_outcome(ctl->cmd, res, true);
}

/*
 * stop with wait answers with the run's final stats, or with the record
 * of the capacity search it stopped; stop --all shows a record as the
 * search's new state, as it always has.  Without wait: the new state.
 */
static const struct ctl_kind stop_kinds[] = {
	{ capview_is_record, replyview_capacity, NULL },
	{ headline_is_sweep, headline_sweep, headline_sweep },
	{ statsview_is_stats, headline_stats, statsview_text },
	{ NULL, NULL, NULL }
};

/* wait at the end of a capacity search gets the search's record. */
static const struct ctl_kind wait_kinds[] = {
	{ capview_is_record, replyview_capacity, replyview_capacity_steps },
	{ headline_is_sweep, headline_sweep, headline_sweep },
	{ NULL, NULL, NULL }
};

const struct ctl_cmd cmd_stop_entry = {
	.name = "stop",
	.usage = "[--no-drain] [--no-wait] [--all]",
	.summary = "stop the current run",
	.details =
	    "Options:\n"
	    "  --no-drain  drop the queued updates instead of writing them\n"
	    "  --no-wait   reply at once instead of when the run has ended\n"
	    "  --all       every counter of the final stats, not the headline\n"
	    "  -h, --help  print this help and exit\n\nWith wait (the default) "
	    "the final stats are printed and the exit status is 1\nif the run "
	    "failed.\n",
	.options = (const struct option[]){
		{ "no-drain", no_argument, NULL, OPT_NO_DRAIN },
		{ "no-wait", no_argument, NULL, OPT_NO_WAIT },
		OPTIONS_ALL,
		OPTIONS_COMMON,
		{ NULL, 0, NULL, 0 }
	},
	.option = stop_option,
	.parse = parse_stop,
	.text = replyview_stop,
	.text_all = replyview_stop,
	.json = replyview_json,
	.kinds = stop_kinds,
	.check = ctl_check_stop,
};

const struct ctl_cmd cmd_wait_entry = {
	.name = "wait",
	.usage = "[--timeout SECONDS] [--all]",
	.summary = "wait until the current run ends and show its final stats",
	.details =
	    "Options:\n"
	    "  --timeout SECONDS  give up after this long (exit status 1; "
	    "default: never)\n"
	    "  --all              every counter of the final stats, not the "
	    "headline\n"
	    "  -h, --help         print this help and exit\n\nThe exit status "
	    "is 0 if the run is done or stopped (or there was none), 1 if it\n"
	    "failed.\n",
	.options = (const struct option[]){
		OPTIONS_ALL,
		OPTIONS_COMMON,
		{ NULL, 0, NULL, 0 }
	},
	.parse = options_parse_plain,
	.text = headline_stats,
	.text_all = statsview_text,
	.json = replyview_json,
	.kinds = wait_kinds,
	.check = check_wait,
};
