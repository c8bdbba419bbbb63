/*
 * A directory of a capacity record in two more lines of its view
 * (capview.c): how far apart the figures of the steps at its capacity
 * rate lie (the step that found it and its repeats), which says what one
 * step's figures are worth; and the offset (jitter) of the grid of rates
 * it stepped on.
 */
#ifndef STRESSCTL_CAPSPREAD_H
#define STRESSCTL_CAPSPREAD_H

#include "caprec.h"

/* "3 steps: queue avg 0.52 to 0.71, latency p99 2.1 to 3.4 ms"
 * (malloc'd), or NULL when the record gives no spread of two steps. */
char	*capspread_text(const struct caprec_dir *d);
/* "from 137 updates/s: the start rate x 1.372, drawn at random", or NULL
 * when the record gives no grid (one written before it did). */
char	*capspread_grid_text(const struct caprec_dir *d);

#endif
