#include "stats.h"

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
	const struct { const char *name; uint64_t v; } f[] = {
		{ "total_operations_pending", c->total_operations_pending },
		{ "significant_ops_pending", c->significant_ops_pending },
		{ "files_with_significant_work",
		    c->files_with_significant_work },
		{ "files_with_insignificant_work",
		    c->files_with_insignificant_work },
		{ "in_flight", c->in_flight },
		{ "creates_pending", c->creates_pending },
		{ "offered", c->offered },
		{ "enqueued", c->enqueued },
		{ "dropped", c->dropped },
		{ "discarded", c->discarded },
		{ "dropped_at_shutdown", c->dropped_at_shutdown },
		{ "significant_ops_enqueued", c->significant_ops_enqueued },
		{ "significant_ops_dequeued", c->significant_ops_dequeued },
		{ "significant_ops_completed", c->significant_ops_completed },
		{ "dequeued_operations", c->dequeued_operations },
		{ "dequeued_items", c->dequeued_items },
		{ "creates_completed", c->creates_completed },
		{ "creates_failed", c->creates_failed },
		{ "updates_completed", c->updates_completed },
		{ "updates_failed", c->updates_failed },
		{ "update_calls", c->update_calls },
		{ "errors", c->errors },
		{ "promotion_count", c->promotion_count },
	};
	json_object *o = json_object_new_object(), *r;

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		json_object_object_add(o, f[i].name,
		    json_object_new_int64((int64_t)f[i].v));
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
