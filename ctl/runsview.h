/* The view of `runs`: the recorded runs, one line each, then the capacity
 * searches (capline.c's lines). */
#ifndef STRESSCTL_RUNSVIEW_H
#define STRESSCTL_RUNSVIEW_H

#include <stdbool.h>

#include <json-c/json.h>

#include "runsrec.h"

/* The steps of capacity searches counted, not listed. */
void	runsview_text(json_object *result);
/* runs --all: the steps of capacity searches listed too. */
void	runsview_text_all(json_object *result);
/* The runs of rs (all: with the steps of capacity searches). */
void	runsview_print(const struct runsrec *rs, bool all);

#endif
