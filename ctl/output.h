/* stressctl output: one set of functions per format, chosen once by the
 * --json flag, so command code never tests the format itself. */
#ifndef STRESSCTL_OUTPUT_H
#define STRESSCTL_OUTPUT_H

#include <json-c/json.h>

/* What a reply's result is shown as; the command table names one. */
enum output_view {
	VIEW_START,
	VIEW_STOP,
	VIEW_STATS,	/* stats and wait */
	VIEW_STATUS,
	VIEW_HELP,
	VIEW_VERSION,
	VIEW_COUNT
};

/* Each function prints the "result" object of a successful reply (which
 * may be NULL if the daemon sent none) on stdout. */
struct output {
	void	(*print[VIEW_COUNT])(json_object *result);
};

extern const struct output output_text;
extern const struct output output_json;

/* Serialise j the way every JSON the ctl prints or sends is serialised. */
const char	*output_json_string(json_object *j);

#endif
