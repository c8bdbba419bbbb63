#include <stddef.h>

#include "stats.h"

#define QC(f)	offsetof(struct queue_counters, f)
#define G	STATS_GAUGE
#define C	STATS_COUNTER

/* The columns every row has; .name is the field of struct queue_counters
 * it reads, so the two cannot disagree. */
#define ROW(f, k, p, h) \
	.name = #f, .kind = k, .prom = p, .help = h, .offset = QC(f)

const struct stats_counter stats_counters[] = {
	{ ROW(total_operations_pending, G, "total_operations_pending",
	    "update values waiting in the queue"),
	    .log_name = "totalOperationsPending", .log_line = 1, .csv_col = 2,
	    .rrd_ds = "total_pending" },
	{ ROW(significant_ops_pending, G, "significant_ops_pending",
	    "significant values enqueued and not yet completed"),
	    .log_name = "significantOpsPending", .log_line = 1, .csv_col = 1,
	    .rrd_ds = "sig_pending" },
	{ ROW(files_with_significant_work, G, "files_with_significant_work",
	    "files on the significant list"),
	    .log_name = "filesWithSignificantWork", .log_line = 1,
	    .csv_col = 4 },
	{ ROW(files_with_insignificant_work, G, "files_with_insignificant_work",
	    "files on the insignificant list"),
	    .log_name = "filesWithInsignificantWork", .log_line = 1,
	    .csv_col = 5 },
	{ ROW(in_flight, G, "in_flight",
	    "values held by writers"),
	    .csv_col = 3, .rrd_ds = "in_flight" },
	{ ROW(creates_pending, G, "creates_pending",
	    "creates queued or in flight") },
	{ ROW(queue_memory_bytes, G, "queue_memory_bytes",
	    "bytes of value chunks the queue holds (pending or in flight)"),
	    .csv_col = 13 },
	{ ROW(queue_memory_peak_bytes, G, "queue_memory_peak_bytes",
	    "the most queue_memory_bytes has been in the run") },
	{ ROW(offered, C, "offered_total",
	    "updates offered to the queue"),
	    .csv_col = 6 },
	{ ROW(enqueued, C, "enqueued_total",
	    "updates accepted by the queue"),
	    .csv_col = 7 },
	{ ROW(dropped, C, "dropped_total",
	    "updates refused by a high-water mark"),
	    .csv_col = 8 },
	{ ROW(discarded, C, "discarded_total",
	    "updates enqueued, then thrown away unwritten (stop without "
	    "drain, drain timeout, failed run)") },
	{ ROW(dropped_at_shutdown, C, "dropped_at_shutdown_total",
	    "the part of discarded that a shutdown threw away") },
	{ ROW(significant_ops_enqueued, C, "significant_ops_enqueued_total",
	    "significant values accepted by the queue") },
	{ ROW(significant_ops_dequeued, C, "significant_ops_dequeued_total",
	    "significant values taken by writers") },
	{ ROW(significant_ops_completed, C, "significant_ops_completed_total",
	    "significant values written or failed") },
	{ ROW(dequeued_operations, C, "dequeued_operations_total",
	    "values taken by writers") },
	{ ROW(dequeued_items, C, "dequeued_items_total",
	    "file batches taken by writers") },
	{ ROW(creates_completed, C, "creates_completed_total",
	    "RRD files created"),
	    .log_name = "createsCompleted", .log_line = 2, .csv_col = 11 },
	{ ROW(creates_failed, C, "creates_failed_total",
	    "RRD file creates that failed") },
	{ ROW(creates_queued, C, "creates_queued_total",
	    "RRD file creates queued") },
	{ ROW(creates_discarded, C, "creates_discarded_total",
	    "queued creates thrown away unmade (stop without drain, drain "
	    "timeout, failed run)") },
	{ ROW(updates_completed, C, "updates_completed_total",
	    "values written"),
	    .log_name = "updatesCompleted", .log_line = 2, .csv_col = 9,
	    .rrd_ds = "completed" },
	{ ROW(updates_failed, C, "updates_failed_total",
	    "values whose write failed"),
	    .csv_col = 10 },
	{ ROW(update_calls, C, "update_calls_total",
	    "rrd_update_r calls") },
	{ ROW(errors, C, "errors_total",
	    "failed librrd calls"),
	    .log_name = "errors", .log_line = 2, .csv_col = 12 },
	{ ROW(generator_waits, C, "generator_waits_total",
	    "times a generator waited at queue_memory_max") },
	{ ROW(generator_wait_ms, C, "generator_wait_seconds_total",
	    "seconds generators waited at queue_memory_max, summed over "
	    "generators"),
	    .csv_col = 14, .prom_scale = 0.001 },
	{ ROW(promotion_count, C, "promotions_total",
	    "insignificant files promoted by age"),
	    .log_name = "promotionCount", .log_line = 2,
	    .log_rate = "promotionRate" },
};
const size_t stats_ncounters = sizeof(stats_counters) /
    sizeof(stats_counters[0]);

#undef ROW
#undef G
#undef C

uint64_t
stats_value(const struct stats_counter *k, const struct queue_counters *c)
{
	return *(const uint64_t *)(const void *)((const char *)c + k->offset);
}

double
stats_prom_value(const struct stats_counter *k, const struct queue_counters *c)
{
	return (double)stats_value(k, c) * (k->prom_scale > 0 ? k->prom_scale :
	    1);
}

size_t
stats_csv_columns(const struct stats_counter *cols[STATS_CSV_MAX])
{
	size_t n = 0;

	for (size_t i = 0; i < stats_ncounters; i++) {
		int col = stats_counters[i].csv_col;

		if (col > 0 && col <= STATS_CSV_MAX) {
			cols[col - 1] = &stats_counters[i];
			if ((size_t)col > n)
				n = (size_t)col;
		}
	}
	return n;
}

static double
per(double n, double s)
{
	return s > 0 ? n / s : 0;
}

/* Rates of the difference between two counter sets over s seconds. */
static void
rates_between(const struct queue_counters *a, const struct queue_counters *b,
    double s, struct stats_rates *r)
{
	double enq = (double)(b->enqueued - a->enqueued);
	double enq_sig = (double)(b->significant_ops_enqueued -
	    a->significant_ops_enqueued);
	double deq = (double)(b->dequeued_operations - a->dequeued_operations);
	double deq_sig = (double)(b->significant_ops_dequeued -
	    a->significant_ops_dequeued);
	double items = (double)(b->dequeued_items - a->dequeued_items);

	/* A stop --no-drain takes values back out of "enqueued". */
	if (b->enqueued < a->enqueued)
		enq = 0;
	if (b->significant_ops_enqueued < a->significant_ops_enqueued)
		enq_sig = 0;
	r->seconds = s;
	r->enq_total = per(enq, s);
	r->enq_sig = per(enq_sig, s);
	r->enq_insig = per(enq - enq_sig > 0 ? enq - enq_sig : 0, s);
	r->deq_total = per(deq, s);
	r->deq_sig = per(deq_sig, s);
	r->deq_insig = per(deq - deq_sig, s);
	r->items_per_s = per(items, s);
	r->ops_per_update = items > 0 ? deq / items : 0;
	r->pct_significant = deq > 0 ? 100.0 * deq_sig / deq : 0;
}

void
stats_rates_window(const struct queue_counters *prev,
    const struct queue_counters *cur, struct stats_rates *r)
{
	rates_between(prev, cur, cur->taken_at - prev->taken_at, r);
}

void
stats_rates_overall(const struct queue_counters *cur, double end,
    struct stats_rates *r)
{
	static const struct queue_counters zero;
	double s = cur->first_dequeue > 0 ? end - cur->first_dequeue : 0;

	rates_between(&zero, cur, s, r);
}

static json_object *
triple(double sig, double insig, double total)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "significant", json_object_new_double(sig));
	json_object_object_add(o, "insignificant",
	    json_object_new_double(insig));
	json_object_object_add(o, "total", json_object_new_double(total));
	return o;
}

json_object *
stats_to_json(const struct queue_counters *c,
    const struct stats_rates *cur, const struct stats_rates *all)
{
	json_object *o = json_object_new_object(), *r;

	for (size_t i = 0; i < stats_ncounters; i++)
		json_object_object_add(o, stats_counters[i].name,
		    json_object_new_int64((int64_t)stats_value(
		    &stats_counters[i], c)));
	r = json_object_new_object();
	json_object_object_add(r, "current_enqueue",
	    triple(cur->enq_sig, cur->enq_insig, cur->enq_total));
	json_object_object_add(r, "current_dequeue",
	    triple(cur->deq_sig, cur->deq_insig, cur->deq_total));
	json_object_object_add(r, "overall_enqueue",
	    triple(all->enq_sig, all->enq_insig, all->enq_total));
	json_object_object_add(r, "overall_dequeue",
	    triple(all->deq_sig, all->deq_insig, all->deq_total));
	json_object_object_add(r, "ops_per_update_current",
	    json_object_new_double(cur->ops_per_update));
	json_object_object_add(r, "ops_per_update_overall",
	    json_object_new_double(all->ops_per_update));
	json_object_object_add(r, "percent_significant_current",
	    json_object_new_double(cur->pct_significant));
	json_object_object_add(r, "percent_significant_overall",
	    json_object_new_double(all->pct_significant));
	json_object_object_add(o, "rates", r);
	return o;
}
