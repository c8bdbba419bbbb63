/* The capacity search in other commands' views (capline.c). */
#ifndef STRESSCTL_CAPLINE_H
#define STRESSCTL_CAPLINE_H

#include <stdio.h>

#include <json-c/json.h>

#include "caprec.h"
#include "runsrec.h"

/* status's "capacity" (caprec_parse_progress) in words: "capacity 4: dir 1/2 /a, step 3
 * (grow) at 400 updates/s; kept up at 200, fell behind at -". */
char	*capline_progress(const struct caprec_progress *c);
/* runs: the capacity searches among the summaries of `runs` (kind
 * "capacity"), one line per directory. */
void	 capline_runs(const struct runsrec *runs, FILE *f);

#endif
