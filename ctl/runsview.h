/* The view of `runs`: the recorded runs, one line each, then the capacity
 * searches (capline.c's lines). */
#ifndef STRESSCTL_RUNSVIEW_H
#define STRESSCTL_RUNSVIEW_H

#include <json-c/json.h>

/* The steps of capacity searches counted, not listed. */
void	runsview_text(json_object *result);
/* runs --all: the steps of capacity searches listed too. */
void	runsview_text_all(json_object *result);

#endif
