/*
 * STATE/runs/<id>/metrics.rrd: the sampler's gauges as an RRD written with
 * librrd, so any rrdtool user can graph a run (and `stressctl graph`
 * does).  Step 1 s; data sources: the counter table's rows with an
 * rrd_ds (stats.c), today sig_pending, total_pending, in_flight (GAUGE),
 * completed (DERIVE: its averages are updates/s), then rrdc_queue (GAUGE:
 * a target rrdcached's QueueLength, unknown for a librrd target or a
 * sample whose STATS failed); averages at 1 s for 6 hours, maxima at 10 s
 * for a day, averages and maxima at 1 min for a week (1.6 MB a run).
 * Updated at most once per wall-clock second.
 */
#ifndef STRESSD_METRICSRRD_H
#define STRESSD_METRICSRRD_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "queue.h"

/* Room for the data sources, rrdc_queue included. */
#define METRICSRRD_MAX_DS	16

int	metricsrrd_create(const char *path, time_t start, char *err,
	    size_t errlen);
/* rrdc_queue: UINT64_MAX for unknown. */
int	metricsrrd_update(const char *path, time_t t,
	    const struct queue_counters *c, uint64_t rrdc_queue, char *err,
	    size_t errlen);

#endif
