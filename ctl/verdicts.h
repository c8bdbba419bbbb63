/* A run's verdict and warnings as stressctl shows them: printed from the
 * record's "verdict" and "warnings" (computed once by stressd), never
 * recomputed, so a copied report.json reads the same everywhere. */
#ifndef STRESSCTL_VERDICTS_H
#define STRESSCTL_VERDICTS_H

#include <json-c/json.h>

/* "kept up", "fell behind" or "cannot tell", with " (N warnings)" when
 * there are any; "no verdict (recorded by an older stressd)" for a
 * record without one.  A malloc'd string. */
char	*verdicts_short(json_object *rep);

/* Print text at indent, wrapped at blanks to RECORDS_TEXT_WIDTH, the
 * lines after the first indented 4 more. */
void	 verdicts_wrap(const char *text, int indent);

/* compare's closing block: each run's verdict with its reason (who[i]
 * names run i), then the warnings, each once with the runs that have it
 * (by run[i], the run id). */
void	 verdicts_print(json_object **reps, char *const *who,
	    char *const *run, int n);

#endif
