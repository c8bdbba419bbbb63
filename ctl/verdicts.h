/* A run's verdict and warnings as stressctl shows them: printed from the
 * record's "verdict" and "warnings" (computed once by stressd), never
 * recomputed, so a copied report.json reads the same everywhere. */
#ifndef STRESSCTL_VERDICTS_H
#define STRESSCTL_VERDICTS_H

#include <stddef.h>
#include <stdio.h>

#include "runrec.h"

/* "kept up", "fell behind" or "cannot tell" for a verdict's kept_up (1, 0,
 * -1). */
const char *verdicts_kept_word_rec(int kept_up);
/* word, with " (N warnings)" when n > 0.  A malloc'd string. */
char	*verdicts_counted(const char *word, size_t n);

/* "kept up", "fell behind" or "cannot tell", with " (N warnings)" when
 * there are any; "no verdict (recorded by an older stressd)" for a
 * record without one, of a parsed verdict and its count of warnings.  A
 * malloc'd string. */
char	*verdicts_short_rec(const struct runrec_verdict *v, size_t nwarnings);

/* Print text at indent, wrapped at blanks to RECORDS_TEXT_WIDTH, the
 * lines after the first indented more; verdicts_wrap: to stdout, 4. */
void	 verdicts_wrap_fp(FILE *fp, int indent, int more, const char *text);
void	 verdicts_wrap(const char *text, int indent);

/* The verdict line, its figures and the warnings, as `report` shows them
 * near its top, of a parsed verdict and its nw warnings w (a run report's
 * or a stats reply's). */
void	 verdicts_report_rec(const struct runrec_verdict *v,
	    const struct runrec_warning *w, size_t nw, FILE *fp);

/* compare's closing block: each run's verdict with its reason (who[i]
 * names run i), then the warnings, each once with the runs that have it
 * (by run[i], the run id), of parsed run reports. */
void	 verdicts_print_recs(const struct runrec *const *recs,
	    char *const *who, char *const *run, int n);

#endif
