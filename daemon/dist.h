/*
 * The distribution of a sampled gauge (a queue depth), as a person would
 * tabulate it: exact integer value -> number of samples, with average,
 * min, max and percentiles.  Memory is bounded: past DIST_MAX_DISTINCT
 * distinct values, values are counted in buckets twice as wide as before
 * (the average, min and max stay exact; percentiles then name a bucket's
 * lower bound).
 */
#ifndef STRESSD_DIST_H
#define STRESSD_DIST_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#define DIST_MAX_DISTINCT	65536
/* The report lists values exactly up to this many distinct ones, and
 * folds them into as many equal-width buckets beyond. */
#define DIST_REPORT_VALUES	64

struct dist_entry {
	uint64_t	value;	/* or a bucket's lower bound */
	uint64_t	count;
};

struct dist {
	struct dist_entry	*e;	/* ascending by value */
	size_t			 n, cap;
	unsigned		 shift;	/* values counted as value >> shift */
	uint64_t		 count, min, max;
	long double		 sum;
};

void		dist_init(struct dist *d);
void		dist_free(struct dist *d);
void		dist_add(struct dist *d, uint64_t value);
double		dist_average(const struct dist *d);
/* Nearest rank: the smallest value with at least p% of samples at or
 * below it (p in 0..100); 0 when empty. */
uint64_t	dist_percentile(const struct dist *d, double p);
/* {"samples", "average", "min", "max", "p50", "p90", "p99",
 *  "histogram": [{"value": V, "count": N} ...]} with "upper" on each
 * entry when values are bucketed. */
json_object	*dist_to_json(const struct dist *d);
/* The same with every value's own entry while there are at most max
 * distinct ones (past DIST_MAX_DISTINCT: the buckets the dist keeps),
 * else entries a power of ten wide aligned to its multiples, so a view
 * that groups them by a nice width (1, 2 or 5 times a power of ten at
 * least ten times wider) counts each group exactly. */
json_object	*dist_to_json_exact(const struct dist *d, size_t max);
#define DIST_EXACT_VALUES	4096

#endif
