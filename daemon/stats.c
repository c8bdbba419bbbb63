#include <stddef.h>

#include "stats.h"

#define QC(f)	offsetof(struct queue_counters, f)
#define G	STATS_GAUGE
#define C	STATS_COUNTER

const struct stats_counter stats_counters[] = {
	{ "total_operations_pending", G, "total_operations_pending",
	  "update values waiting in the queue", QC(total_operations_pending),
	  "totalOperationsPending", 1, 2, "total_pending" },
	{ "significant_ops_pending", G, "significant_ops_pending",
	  "significant values enqueued and not yet completed",
	  QC(significant_ops_pending), "significantOpsPending", 1, 1,
	  "sig_pending" },
	{ "files_with_significant_work", G, "files_with_significant_work",
	  "files on the significant list", QC(files_with_significant_work),
	  "filesWithSignificantWork", 1, 4, NULL },
	{ "files_with_insignificant_work", G, "files_with_insignificant_work",
	  "files on the insignificant list", QC(files_with_insignificant_work),
	  "filesWithInsignificantWork", 1, 5, NULL },
	{ "in_flight", G, "in_flight", "values held by writers",
	  QC(in_flight), NULL, 0, 3, "in_flight" },
	{ "creates_pending", G, "creates_pending",
	  "creates queued or in flight", QC(creates_pending), NULL, 0, 0,
	  NULL },
	{ "offered", C, "offered_total", "updates offered to the queue",
	  QC(offered), NULL, 0, 6, NULL },
	{ "enqueued", C, "enqueued_total", "updates accepted by the queue",
	  QC(enqueued), NULL, 0, 7, NULL },
	{ "dropped", C, "dropped_total", "updates refused by a high-water mark",
	  QC(dropped), NULL, 0, 8, NULL },
	{ "discarded", C, "discarded_total", "updates enqueued, then thrown "
	  "away unwritten (stop without drain, drain timeout, failed run)",
	  QC(discarded), NULL, 0, 0, NULL },
	{ "dropped_at_shutdown", C, "dropped_at_shutdown_total",
	  "the part of discarded that a shutdown threw away",
	  QC(dropped_at_shutdown), NULL, 0, 0, NULL },
	{ "significant_ops_enqueued", C, "significant_ops_enqueued_total",
	  "significant values accepted by the queue",
	  QC(significant_ops_enqueued), NULL, 0, 0, NULL },
	{ "significant_ops_dequeued", C, "significant_ops_dequeued_total",
	  "significant values taken by writers",
	  QC(significant_ops_dequeued), NULL, 0, 0, NULL },
	{ "significant_ops_completed", C, "significant_ops_completed_total",
	  "significant values written or failed",
	  QC(significant_ops_completed), NULL, 0, 0, NULL },
	{ "dequeued_operations", C, "dequeued_operations_total",
	  "values taken by writers", QC(dequeued_operations), NULL, 0, 0,
	  NULL },
	{ "dequeued_items", C, "dequeued_items_total",
	  "file batches taken by writers", QC(dequeued_items), NULL, 0, 0,
	  NULL },
	{ "creates_completed", C, "creates_completed_total",
	  "RRD files created", QC(creates_completed), "createsCompleted", 2,
	  11, NULL },
	{ "creates_failed", C, "creates_failed_total",
	  "RRD file creates that failed", QC(creates_failed), NULL, 0, 0,
	  NULL },
	{ "updates_completed", C, "updates_completed_total", "values written",
	  QC(updates_completed), "updatesCompleted", 2, 9, "completed" },
	{ "updates_failed", C, "updates_failed_total",
	  "values whose write failed", QC(updates_failed), NULL, 0, 10, NULL },
	{ "update_calls", C, "update_calls_total", "rrd_update_r calls",
	  QC(update_calls), NULL, 0, 0, NULL },
	{ "errors", C, "errors_total", "failed librrd calls", QC(errors),
	  "errors", 2, 12, NULL },
	{ "promotion_count", C, "promotions_total",
	  "insignificant files promoted by age", QC(promotion_count),
	  "promotionCount", 2, 0, NULL },
};
const size_t stats_ncounters = sizeof(stats_counters) /
    sizeof(stats_counters[0]);

#undef G
#undef C

uint64_t
stats_value(const struct stats_counter *k, const struct queue_counters *c)
{
	return *(const uint64_t *)(const void *)((const char *)c + k->offset);
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
