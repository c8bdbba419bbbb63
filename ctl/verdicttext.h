/* The daemon's keep-up verdict and warnings of a run (report.json or
 * stats: "verdict", "warnings") in words; stressctl prints them and never
 * recomputes them. */
#ifndef STRESSCTL_VERDICTTEXT_H
#define STRESSCTL_VERDICTTEXT_H

#include <stdio.h>

#include <json-c/json.h>

/* "kept up", "fell behind" or "cannot tell"; NULL for a record without a
 * verdict (made by an older stressd). */
const char	*verdicttext_word(json_object *rep);
/* How many warnings rep carries. */
size_t		 verdicttext_nwarnings(json_object *rep);
/* The verdict line, its figures and the warnings, as `report` shows them
 * near its top. */
void		 verdicttext_print(json_object *rep, FILE *fp);

#endif
