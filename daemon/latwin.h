/*
 * Latency since a moment: up to LATWIN_KEEP snapshots of a cumulative
 * histogram (a run's enqueue_to_persist), one every `stride` samples, so
 * that the verdict can ask for the latency of the values persisted in
 * its steady window only.  When full, every other snapshot goes and the
 * stride doubles: memory stays bounded for runs of days and the
 * snapshots stay evenly spaced, LATWIN_KEEP / 2 at least over the run.
 *
 * Not thread-safe: the caller holds the lock of the histogram it passes
 * (run.c's latency mutex) around every call.
 */
#ifndef STRESSD_LATWIN_H
#define STRESSD_LATWIN_H

#include <stddef.h>

#include "hist.h"

#define LATWIN_KEEP	32

struct latwin {
	struct hist	*snap[LATWIN_KEEP];	/* allocated on first use */
	double		 at[LATWIN_KEEP];	/* s, ascending */
	size_t		 n;
	unsigned	 stride;		/* samples per snapshot */
	unsigned	 calls;			/* latwin_add calls */
};

void	latwin_init(struct latwin *w);
void	latwin_free(struct latwin *w);
/* A sample at t s of the cumulative histogram now: a snapshot every
 * stride-th call.  0, or -1 when out of memory (the snapshot is
 * skipped). */
int	latwin_add(struct latwin *w, double t, const struct hist *now);
/* Into out, the records of now since t: now less the latest snapshot at
 * or before t (with none, all of now); *from_s, that snapshot's time (0
 * with none). */
void	latwin_since(const struct latwin *w, const struct hist *now, double t,
	    struct hist *out, double *from_s);

#endif
