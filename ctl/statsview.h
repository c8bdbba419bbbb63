/* The full view of a run's stats (stats --all, wait --all and stop's
 * final stats with --all): every gauge, counter and rate the reply
 * carries, known keys in their groups, unknown ones after them. */
#ifndef STRESSCTL_STATSVIEW_H
#define STRESSCTL_STATSVIEW_H

#include <stdbool.h>

#include <json-c/json.h>

/* Whether result is a run's stats (it has "generated" or "rates"), as
 * stop with wait answers, rather than the run's new state. */
bool	statsview_is_stats(json_object *result);
void	statsview_text(json_object *result);

#endif
