/*
 * A run's history: the counter table's samples.csv columns, snapshotted
 * every sample_interval.  Each sample also feeds the exact distributions
 * of significant_ops_pending and total_operations_pending, so the report's
 * averages and histograms cover every sample ever taken.  The samples
 * themselves are kept for samples.csv in a fixed buffer of SAMPLER_KEEP:
 * when it fills, the older half is thinned 2:1, so memory is bounded for
 * runs of days and the recent past stays at full resolution.
 */
#ifndef STRESSD_SAMPLER_H
#define STRESSD_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dist.h"
#include "queue.h"
#include "rrdcc.h"
#include "stats.h"

#define SAMPLER_KEEP	8192

struct sample {
	double		t;	/* seconds since the run started */
	/* the counter table's samples.csv columns: v[i] is column i + 1 */
	uint64_t	v[STATS_CSV_MAX];
	/* target rrdcached: its STATS at this sample (UINT64_MAX: none) */
	uint64_t	rrdc_queue_length;
	uint64_t	rrdc_updates_received;
	uint64_t	rrdc_data_sets_written;
};

struct sampler {
	const struct stats_counter *cols[STATS_CSV_MAX];
	size_t		 ncols;
	struct sample	*buf;
	size_t		 n;		/* kept */
	uint64_t	 taken;		/* ever */
	unsigned	 thinned;	/* times the older half was thinned */
	struct dist	 sig, total;
	/* target rrdcached: its QueueLength over every sample that got one */
	struct dist	 rrdc_queue;
	uint64_t	 rrdc_missed;	/* samples whose STATS failed */
	bool		 has_rrdcached;
};

int	sampler_init(struct sampler *s);
void	sampler_free(struct sampler *s);
void	sampler_add(struct sampler *s, double t, const struct queue_counters *c);
/* rrdcached's STATS at the sample just added (st NULL: it failed). */
void	sampler_add_rrdcached(struct sampler *s, const struct rrdcc_stats *st);
/* The kept samples as CSV with a header line; 0 or -1 (errno set). */
int	sampler_write_csv(const struct sampler *s, const char *path);

#endif
