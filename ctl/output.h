/* stressctl output: the views of a reply's result (one text renderer per
 * command that shows a single reply, one JSON renderer for all), chosen by
 * the command's table entry and the --json flag; and the small helpers
 * every renderer uses. */
#ifndef STRESSCTL_OUTPUT_H
#define STRESSCTL_OUTPUT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

void	output_text_start(json_object *result);
/* The final stats (stop with wait) or the run's new state. */
void	output_text_stop(json_object *result);
/* stats and wait. */
void	output_text_stats(json_object *result);
void	output_text_status(json_object *result);
void	output_text_help(json_object *result);
void	output_text_version(json_object *result);
void	output_text_runs(json_object *result);
/* runs --all: the steps of capacity searches too. */
void	output_text_runs_all(json_object *result);
/* Scripts get the result exactly as the daemon sent it. */
void	output_json_result(json_object *result);

#endif
