/* stressctl output: one set of functions per format, chosen once by the
 * --json flag, so command code never tests the format itself. */
#ifndef STRESSCTL_OUTPUT_H
#define STRESSCTL_OUTPUT_H

#include <json-c/json.h>

/* Each function prints the "result" object of a successful reply (which
 * may be NULL if the daemon sent none) on stdout. */
struct output {
	void	(*start)(json_object *result);
	void	(*stop)(json_object *result);
	void	(*stats)(json_object *result);	/* stats and wait */
	void	(*status)(json_object *result);
	void	(*help)(json_object *result);
	void	(*version)(json_object *result);
};

extern const struct output output_text;
extern const struct output output_json;

/* Serialise j the way every JSON the ctl prints or sends is serialised. */
const char	*output_json_string(json_object *j);

#endif
