/* The full view of a run's stats (see statsview.h), on the key/value rows
 * of kv.c so that it aligns as the other key/value views do. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "fmt.h"
#include "kv.h"
#include "statsview.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

static const struct kv_field stats_fields[] = {
	KV_F("state"), KV_F("run_id"), KV_F("reason"),
	{ "elapsed_s", "elapsed", "s", "%.1f", KV_PLAIN },
	{ "generated", "progress", NULL, NULL, KV_PROGRESS },
	{ "max_updates", NULL, NULL, NULL, KV_SHOWN },
	KV_SEP,
	KV_F("total_operations_pending"), KV_F("significant_ops_pending"),
	KV_F("files_with_significant_work"),
	KV_F("files_with_insignificant_work"),
	KV_F("in_flight"), KV_F("creates_pending"),
	KV_SEP,
	KV_F("offered"), KV_F("enqueued"), KV_F("dropped"), KV_F("discarded"),
	KV_F("significant_ops_enqueued"), KV_F("significant_ops_dequeued"),
	KV_F("significant_ops_completed"), KV_F("dequeued_operations"),
	KV_F("dequeued_items"), KV_F("creates_completed"),
	KV_F("creates_failed"), KV_F("creates_queued"),
	KV_F("creates_discarded"),
	KV_F("updates_completed"), KV_F("updates_failed"), KV_F("update_calls"),
	KV_F("errors"),
	{ "errors_by_kind", NULL, NULL, NULL, KV_COUNTS },
	KV_F("promotion_count"),
	{ "cpu", NULL, NULL, NULL, KV_COUNTS },	/* seconds, one row */
	KV_SEP,
};

static const char *const rate_triples[] = {
	"current_enqueue", "current_dequeue", "overall_enqueue",
	"overall_dequeue", NULL
};

static const char *const rate_columns[] = {
	"significant", "insignificant", "total", NULL
};

static const struct kv_field rate_fields[] = {
	{ "ops_per_update_current", NULL, NULL, "%.2f", KV_PLAIN },
	{ "ops_per_update_overall", NULL, NULL, "%.2f", KV_PLAIN },
	{ "percent_significant_current", NULL, "%", "%.1f", KV_PLAIN },
	{ "percent_significant_overall", NULL, "%", "%.1f", KV_PLAIN },
};

/* An object shaped like {"significant", "insignificant", "total"}. */
static bool
is_triple(json_object *v)
{
	for (int i = 0; rate_columns[i] != NULL; i++)
		if (kv_has(v, rate_columns[i]))
			return true;
	return false;
}

static void
add_triple(struct kv *t, const char *name, json_object *v)
{
	struct kv_row *r = kv_add(t, fmt_xstrdup(name));

	for (int c = 0; rate_columns[c] != NULL; c++)
		kv_cell(r, kv_text(kv_get(v, rate_columns[c], NULL), "%.1f"));
}

/* Rates as their own block: the enqueue/dequeue triples as a grid, then
 * the single figures below it. */
static void
print_rates(json_object *rates)
{
	struct kv grid = { .right = true }, rest = { .right = true };
	struct kv_row *r;

	r = kv_add(&grid, fmt_xstrdup("rates (/s)"));
	for (int c = 0; rate_columns[c] != NULL; c++)
		kv_cell(r, fmt_xstrdup(rate_columns[c]));
	grid.indent = rest.indent = 2;

	for (int i = 0; rate_triples[i] != NULL; i++) {
		json_object *v = kv_get(rates, rate_triples[i], NULL);

		if (is_triple(v))
			add_triple(&grid, rate_triples[i], v);
	}
	json_object_object_foreach(rates, key, val)
		if (is_triple(val) && !kv_name_listed(rate_triples, key))
			add_triple(&grid, key, val);

	kv_known(&rest, rates, rate_fields, NELEM(rate_fields));
	json_object_object_foreach(rates, key2, val2)
		if (!is_triple(val2) &&
		    !kv_field_listed(rate_fields, NELEM(rate_fields), key2))
			kv_value(&rest, key2, val2, NULL, NULL);

	kv_print(&grid);
	kv_print(&rest);
	kv_free(&grid);
	kv_free(&rest);
}

bool
statsview_is_stats(json_object *res)
{
	return json_object_is_type(res, json_type_object) &&
	    (kv_has(res, "generated") || kv_has(res, "rates"));
}

void
statsview_text(json_object *res)
{
	static const char *const skip[] = { "rates", NULL };
	struct kv t = { .right = true };
	json_object *rates = kv_get(res, "rates", NULL);
	bool rates_block = json_object_is_type(rates, json_type_object);

	if (!kv_object_or_print(res))
		return;
	kv_known(&t, res, stats_fields, NELEM(stats_fields));
	/* A "rates" of unexpected shape is shown with the other extras. */
	kv_unknown(&t, res, stats_fields, NELEM(stats_fields),
	    rates_block ? skip : NULL);
	kv_print(&t);
	kv_free(&t);
	if (rates_block) {
		putchar('\n');
		print_rates(rates);
	}
}
