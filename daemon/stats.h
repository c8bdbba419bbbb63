/* The queue's counters, defined once, with the rates from queue snapshots
 * and the JSON shape of `stats`. */
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

/*
 * The one table of the queue's gauges and counters.  `stats` returns every
 * row, in this order; /metrics exports every row as stressd_<prom>; the
 * other outputs take the rows that name them: stress.log's QS lines
 * (log_line 1 or 2, under log_name, in table order, which is the
 * historical one existing scripts parse), samples.csv (csv_col, its column
 * from 1) and metrics.rrd (rrd_ds, in csv_col order; a gauge is a GAUGE
 * data source, a counter a DERIVE).  A counter added here once reaches
 * them all.
 */
enum stats_kind { STATS_GAUGE, STATS_COUNTER };

struct stats_counter {
	const char	*name;		/* `stats` key, samples.csv column */
	enum stats_kind	 kind;
	const char	*prom;		/* after "stressd_" in /metrics */
	const char	*help;		/* /metrics HELP */
	size_t		 offset;	/* in struct queue_counters */
	const char	*log_name;	/* stress.log QS name, or NULL */
	int		 log_line;	/* its QS line, 1 or 2; 0: none */
	/* stress.log: its average per second since the run began, under
	 * this name just before it, or NULL */
	const char	*log_rate;
	int		 csv_col;	/* samples.csv column from 1; 0: none */
	const char	*rrd_ds;	/* metrics.rrd data source, or NULL */
	double		 prom_scale;	/* /metrics shows value x this, in a
					   base unit (0: as is) */
};

extern const struct stats_counter stats_counters[];
extern const size_t stats_ncounters;

/* Room for samples.csv's counter columns (tests/unit/stats.c checks). */
#define STATS_CSV_MAX	16

/* The rows with a csv_col, by column: cols[i] is column i + 1.  Returns
 * how many (the columns are 1..N without a gap). */
size_t	stats_csv_columns(const struct stats_counter *cols[STATS_CSV_MAX]);

/* The value of row k in c. */
uint64_t	stats_value(const struct stats_counter *k,
	    const struct queue_counters *c);

/* The value of row k in c as /metrics shows it (prom_scale applied). */
double	stats_prom_value(const struct stats_counter *k,
	    const struct queue_counters *c);

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
