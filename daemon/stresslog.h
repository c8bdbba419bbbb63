/* STATE/runs/<id>/stress.log in the original stresser's format: a header
 * with every parameter, then a progress line and four "QS:\t" lines each
 * time the generators have offered another `modulus` updates (camelCase
 * names, as old scripts grep), and a final block for a run that ended
 * early. */
#ifndef STRESSD_STRESSLOG_H
#define STRESSD_STRESSLOG_H

#include "dist.h"
#include "knobs.h"
#include "queue.h"

struct stresslog;

struct stresslog *stresslog_open(const char *path, unsigned run_id,
	    const struct stress_params *p, double run_start);
/* Append one block from a fresh snapshot of q, taken under the log's lock
 * so blocks are in order whichever generator asks.  Rates are "current" since
 * the previous block and "overall" since the first dequeue. */
void	stresslog_block(struct stresslog *sl, struct queue *q);
void	stresslog_line(struct stresslog *sl, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* Reopen the log's path for appending (logrotate renamed it): lines before
 * go to the renamed file, lines after to the new one, none lost.  -1 with
 * errno when the path cannot be opened; the old file stays in use. */
int	stresslog_reopen(struct stresslog *sl);
/* The significantOpsPending of every block written so far, as the
 * original write-up's one-liner reads them back from the file (its
 * Average: and Histogram:), copied into *out (dist_init'ed here; the
 * caller frees it).  -1 when out of memory. */
int	stresslog_sig_copy(struct stresslog *sl, struct dist *out);
/* Close; keep, if not NULL, takes the blocks' distribution (as above). */
void	stresslog_close(struct stresslog *sl, struct dist *keep);

#endif
