/*
 * stressctl graph of several runs: the significant queue of each run
 * against the seconds since its load started, one line per label, from
 * each record's samples.csv (a copied run directory draws as well as the
 * daemon's own).
 */
#ifndef STRESSCTL_OVERLAY_H
#define STRESSCTL_OVERLAY_H

#include <stdio.h>

#include "records.h"

/* The most runs and the most distinct labels (colours) one graph draws. */
#define OVERLAY_MAX_RUNS	64
#define OVERLAY_MAX_LINES	12

/* Draw ctx->runs (ids, report.json paths or run directories) into
 * ctx->png and say so on out; returns the exit status, the reason printed
 * on stderr on failure. */
int	overlay_run(const struct records_ctx *ctx, FILE *out);

#endif
