/* stressctl stats, status, help and version: one request each, with only
 * the common options, the reply shown by its view. */
#include "config.h"

#include <stdio.h>

#include <json-c/json.h>

#include "capview.h"
#include "cmd-info.h"
#include "headline.h"
#include "options.h"
#include "proto.h"
#include "replyview.h"
#include "statsview.h"

static int
check_version(struct ctl *ctl, json_object *res)
{
	json_object *v;

	(void)ctl;
	/* Warn, not fail: the reply was understood well enough to print. */
	if (json_object_is_type(res, json_type_object) &&
	    json_object_object_get_ex(res, "protocol", &v) &&
	    json_object_get_int(v) != PROTO_VERSION)
		fprintf(stderr, "stressctl: warning: stressd speaks protocol "
		    "%s, stressctl protocol %d\n", json_object_get_string(v),
		    PROTO_VERSION);
	return CTL_EXIT_OK;
}

/* What stats shows of a capacity search's record, as wait does. */
static const struct ctl_kind stats_kinds[] = {
	{ capview_is_record, replyview_capacity, replyview_capacity_steps },
	{ headline_is_sweep, headline_sweep, headline_sweep },
	{ NULL, NULL, NULL }
};

const struct ctl_cmd cmd_stats_entry = {
	.name = "stats",
	.usage = "[--all]",
	.summary = "show the headline of the current or last run",
	.details =
	    "Options:\n"
	    "  --all       every gauge, counter and rate instead of the "
	    "headline\n"
	    "  -h, --help  print this help and exit\n\nThe headline: state, "
	    "progress, rates, the queues now and on average,\nerrors, and the "
	    "daemon's verdict so far with its warnings.\n",
	.options = (const struct option[]){
		OPTIONS_ALL,
		OPTIONS_COMMON,
		{ NULL, 0, NULL, 0 }
	},
	.parse = options_parse_plain,
	.text = headline_stats,
	.text_all = statsview_text,
	.json = replyview_json,
	.kinds = stats_kinds,
};

const struct ctl_cmd cmd_status_entry = {
	.name = "status",
	.usage = "[--all]",
	.summary = "show the daemon's state and the current or last run",
	.details =
	    "Options:\n"
	    "  --all       every knob of the run, not only those that differ "
	    "from the\n"
	    "              defaults\n"
	    "  -h, --help  print this help and exit\n",
	.options = (const struct option[]){
		OPTIONS_ALL,
		OPTIONS_COMMON,
		{ NULL, 0, NULL, 0 }
	},
	.parse = options_parse_plain,
	.text = headline_status,
	.text_all = replyview_status,
	.json = replyview_json,
};

const struct ctl_cmd cmd_help_entry = {
	.name = "help",
	.usage = "",
	.summary = "list the commands stressd supports",
	.parse = options_parse_plain,
	.text = replyview_help,
	.json = replyview_json,
};

const struct ctl_cmd cmd_version_entry = {
	.name = "version",
	.usage = "",
	.summary = "show the versions of stressd and stressctl",
	.parse = options_parse_plain,
	.text = replyview_version,
	.json = replyview_json,
	.check = check_version,
};
