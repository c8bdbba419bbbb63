/* Rates from queue snapshots and the JSON shape of `stats`. */
#ifndef STRESSD_STATS_H
#define STRESSD_STATS_H

#include <json-c/json.h>

#include "queue.h"

struct stats_rates {
	double	enq_sig, enq_insig, enq_total;		/* per second */
	double	deq_sig, deq_insig, deq_total;
	double	items_per_s;
	double	ops_per_update;		/* dequeued operations per item */
	double	pct_significant;	/* of dequeued operations */
	double	seconds;		/* the window */
};

/* Rates over the window between two snapshots. */
void	stats_rates_window(const struct queue_counters *prev,
	    const struct queue_counters *cur, struct stats_rates *r);
/* Rates from the first dequeue to end (monotonic seconds). */
void	stats_rates_overall(const struct queue_counters *cur, double end,
	    struct stats_rates *r);
/* Gauges and counters as flat keys plus a "rates" object. */
json_object *stats_to_json(const struct queue_counters *c,
	    const struct stats_rates *current, const struct stats_rates *overall);

#endif
