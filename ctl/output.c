/* stressctl's renderings of a reply's result: the text view of each
 * command that shows one reply, and the JSON view shared by all of them.
 * The text views are built on the key/value rows of kv.c, so every command
 * aligns its columns the same way. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capline.h"
#include "capview.h"
#include "columns.h"
#include "fmt.h"
#include "jpath.h"
#include "kv.h"
#include "output.h"
#include "verdicts.h"
#include "proto.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* A result that is not an object still gets shown. */
static bool
check_object(json_object *res)
{
	if (json_object_is_type(res, json_type_object))
		return true;
	printf("%s\n", fmt_json_string(res));
	return false;
}

/* ---------------------------------------------------------------- stats */

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

void
output_text_stats(json_object *res)
{
	static const char *const skip[] = { "rates", NULL };
	struct kv t = { .right = true };
	json_object *rates = kv_get(res, "rates", NULL);
	bool rates_block = json_object_is_type(rates, json_type_object);

	if (!check_object(res))
		return;
	if (capview_is_record(res)) {	/* wait --all after a search */
		capview_print(&res, 1, true, stdout);
		return;
	}
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

/* ---------------------------------------------------------------- others */

void
output_text_start(json_object *res)
{
	char *id, *state, *log;

	if (!check_object(res))
		return;
	id = kv_text(kv_get(res, "run_id", NULL), NULL);
	state = kv_text(kv_get(res, "state", NULL), NULL);
	log = kv_text(kv_get(res, "log", NULL), NULL);
	printf("run %s started (%s), log: %s\n", id, state, log);
	free(id);
	free(state);
	free(log);
}

void
output_text_stop(json_object *res)
{
	char *id, *state;

	if (!check_object(res))
		return;
	/* stop with wait answers with the final stats. */
	if (kv_has(res, "generated") || kv_has(res, "rates")) {
		output_text_stats(res);
		return;
	}
	id = kv_text(kv_get(res, "run_id", NULL), NULL);
	state = kv_text(kv_get(res, "state", NULL), NULL);
	printf("run %s: %s\n", id, state);
	free(id);
	free(state);
}

static const struct kv_field status_fields[] = {
	KV_F("version"), KV_F("protocol"),
	{ "uptime_s", "uptime", "s", "%.0f", KV_PLAIN },
	KV_F("pid"), KV_F("socket"), KV_F("state_dir"),
};

static const struct kv_field run_fields[] = {
	KV_F("id"), KV_F("state"), KV_F("dir"), KV_F("log"),
	{ "started_at", NULL, NULL, NULL, KV_TIME },
	{ "ended_at", NULL, NULL, NULL, KV_TIME },
	KV_F("reason"), KV_F("errors"),
	{ "errors_by_kind", NULL, NULL, NULL, KV_COUNTS },
};

/* Shown last, as blocks, after the run's single values. */
static const char *const run_blocks[] = { "error_messages", "params", NULL };

void
output_text_status(json_object *res)
{
	static const char *const skip[] = { "run", NULL };
	struct kv t = { .right = false };
	json_object *run;
	bool found;

	if (!check_object(res))
		return;
	kv_known(&t, res, status_fields, NELEM(status_fields));
	kv_unknown(&t, res, status_fields, NELEM(status_fields), skip);

	run = kv_get(res, "run", &found);
	if (json_object_is_type(run, json_type_object)) {
		kv_add(&t, fmt_xstrdup("run:"));
		t.indent += 2;
		kv_known(&t, run, run_fields, NELEM(run_fields));
		kv_unknown(&t, run, run_fields, NELEM(run_fields),
		    run_blocks);
		for (int i = 0; run_blocks[i] != NULL; i++) {
			json_object *v = kv_get(run, run_blocks[i], &found);

			if (found)
				kv_value(&t, run_blocks[i], v, NULL, NULL);
		}
		t.indent -= 2;
	} else if (found) {
		/* null: no run since the daemon started. */
		kv_cell(kv_add(&t, fmt_xstrdup("run")),
		    json_object_is_type(run, json_type_null) ?
		    fmt_xstrdup("none") : kv_text(run, NULL));
	}
	kv_print(&t);
	kv_free(&t);
}

void
output_text_help(json_object *res)
{
	struct kv t = { .right = false };
	json_object *cmds = kv_get(res, "commands", NULL);
	struct kv_row *r;

	if (!json_object_is_type(cmds, json_type_array)) {
		/* Unknown shape: show it rather than nothing. */
		if (check_object(res)) {
			kv_unknown(&t, res, NULL, 0, NULL);
			kv_print(&t);
			kv_free(&t);
		}
		return;
	}
	r = kv_add(&t, fmt_xstrdup("COMMAND"));
	kv_cell(r, fmt_xstrdup("READ-ONLY"));
	kv_cell(r, fmt_xstrdup("USAGE"));
	kv_cell(r, fmt_xstrdup("SUMMARY"));
	for (size_t i = 0; i < json_object_array_length(cmds); i++) {
		json_object *c = json_object_array_get_idx(cmds, i);
		json_object *ro = kv_get(c, "read_only", NULL);

		r = kv_add(&t, kv_text(kv_get(c, "name", NULL), NULL));
		kv_cell(r, fmt_xstrdup(ro == NULL ? "-" :
		    json_object_get_boolean(ro) ? "yes" : "no"));
		kv_cell(r, kv_text(kv_get(c, "usage", NULL), NULL));
		kv_cell(r, kv_text(kv_get(c, "summary", NULL), NULL));
	}
	kv_print(&t);
	kv_free(&t);
}

static const struct kv_field version_fields[] = {
	{ "version", "stressd version", NULL, NULL, KV_PLAIN },
	{ "protocol", "stressd protocol", NULL, NULL, KV_PLAIN },
	KV_F("librrd"),
};

void
output_text_version(json_object *res)
{
	struct kv t = { .right = false };

	if (!check_object(res))
		return;
	kv_known(&t, res, version_fields, NELEM(version_fields));
	kv_unknown(&t, res, version_fields, NELEM(version_fields), NULL);
	kv_cell(kv_add(&t, fmt_xstrdup("stressctl version")),
	    fmt_xstrdup(PACKAGE_VERSION));
	kv_cell(kv_add(&t, fmt_xstrdup("stressctl protocol")),
	    fmt_xprintf("%d", PROTO_VERSION));
	kv_print(&t);
	kv_free(&t);
}

/* ---------------------------------------------------------------- runs */

static char *
runs_cell(json_object *run, const char *key, const char *dfmt)
{
	bool found;
	json_object *v = kv_get(run, key, &found);

	return found && v != NULL ? kv_text(v, dfmt) : fmt_xstrdup("-");
}

/* The offered load: max_updates / update_time, or "flat out". */
static char *
runs_pace(json_object *run)
{
	json_object *ut = kv_get(run, "update_time", NULL);
	json_object *max = kv_get(run, "max_updates", NULL);
	double u = json_object_get_double(ut), m;

	if (ut == NULL || max == NULL)
		return fmt_xstrdup("-");
	if (u <= 0)
		return fmt_xstrdup("flat out");
	m = json_object_get_double(max) / u;
	return fmt_xprintf(m >= 100 ? "%.0f" : "%.3g", m);
}

/* The daemon's verdict in the words of every one-line view; "—" for a
 * record without one (an older stressd's). */
static char *
runs_verdict(json_object *run)
{
	bool found;
	json_object *k = kv_get(run, "kept_up", &found);
	int64_t nw = json_object_get_int64(kv_get(run, "warnings", NULL));
	const char *word;

	if (!found)
		return fmt_xstrdup("\u2014");
	word = verdicts_kept_word(k);
	return verdicts_counted(word, nw > 0 ? (size_t)nw : 0);
}

/* A string cell, "-" when empty or missing. */
static const char *
runs_word(json_object *run, const char *key)
{
	json_object *v = kv_get(run, key, NULL);

	return json_object_is_type(v, json_type_string) &&
	    json_object_get_string_len(v) > 0 ? json_object_get_string(v) :
	    "-";
}

static void
runs_row(struct columns *t, json_object *r)
{
	static const char *const keys[][2] = {
		{ "id", NULL }, { "started_at", NULL }, { "state", NULL },
		{ "updates_completed", NULL }, { "files", NULL },
		{ "updates/s", NULL }, { "sync", NULL }, { "fs_type", NULL },
		{ "dir", NULL }, { "significant_avg", "%.2f" },
		{ "label", NULL }, { "verdict", NULL }, { "sweep_id", NULL },
	};
	json_object *v;
	char when[64], *cell;

	for (size_t i = 0; i < NELEM(keys); i++) {
		const char *k = keys[i][0];

		if (strcmp(k, "started_at") == 0) {
			v = kv_get(r, k, NULL);
			columns_add(t, "%s", json_object_is_type(v,
			    json_type_string) ? fmt_local_time(
			    json_object_get_string(v), false, when,
			    sizeof(when)) : "-");
			continue;
		}
		/* A capacity search's step: its search and step. */
		if (strcmp(k, "sweep_id") == 0 &&
		    kv_get(r, "capacity", NULL) != NULL) {
			columns_add(t, "capacity %.0f step %.0f",
			    jpath_num0(r, "capacity.id"),
			    jpath_num0(r, "capacity.step"));
			continue;
		}
		/* Empty outside a sweep, without a label. */
		if (strcmp(k, "sweep_id") == 0 || strcmp(k, "label") == 0 ||
		    strcmp(k, "sync") == 0) {
			columns_add(t, "%s", runs_word(r, k));
			continue;
		}
		/* An interrupted run: what its files hold, not the count of
		 * its last checkpoint (up to 10 s short). */
		if (strcmp(k, "updates_completed") == 0 && json_object_is_type(
		    kv_get(r, "updates_on_disk", NULL), json_type_int))
			k = "updates_on_disk";
		cell = strcmp(k, "updates/s") == 0 ? runs_pace(r) :
		    strcmp(k, "verdict") == 0 ? runs_verdict(r) :
		    runs_cell(r, k, keys[i][1]);
		columns_add(t, "%s", cell);
		free(cell);
	}
}

/* runs: the runs, the steps of capacity searches only with --all (a
 * count of them otherwise), then the capacity searches. */
static void
runs_view(json_object *res, bool all)
{
	static const char *const head[] = {
		"ID", "STARTED", "STATE", "UPDATES", "FILES", "UPDATES/S",
		"SYNC", "FS", "DIR", "SIG AVG", "LABEL", "VERDICT", "SWEEP",
	};
	json_object *runs = kv_get(res, "runs", NULL);
	struct columns *t;
	size_t nrows = 0, nsteps = 0, nsearch = 0;

	if (!json_object_is_type(runs, json_type_array)) {
		if (check_object(res)) {
			struct kv u = { .right = false };

			kv_unknown(&u, res, NULL, 0, NULL);
			kv_print(&u);
			kv_free(&u);
		}
		return;
	}
	if (json_object_array_length(runs) == 0) {
		printf("no runs recorded\n");
		return;
	}
	t = columns_new("rllrrrlllrlll");
	for (size_t i = 0; i < NELEM(head); i++)
		columns_add(t, "%s", head[i]);
	for (size_t i = 0; i < json_object_array_length(runs); i++) {
		json_object *r = json_object_array_get_idx(runs, i);
		const char *kind = jpath_str(r, "kind");

		if (kind != NULL && strcmp(kind, "capacity") == 0)
			nsearch++;
		else if (!all && jpath(r, "capacity") != NULL)
			nsteps++;
		else if (kind == NULL || strcmp(kind, "run") == 0) {
			runs_row(t, r);
			nrows++;
		}
	}
	if (nrows > 0)
		columns_print(t, stdout, 0);
	columns_free(t);
	if (nsteps > 0)
		printf("(%zu step run%s of capacity searches not shown: runs "
		    "--all lists them)\n", nsteps, nsteps == 1 ? "" : "s");
	if (nsearch > 0) {
		printf("%sCapacity searches\n", nrows + nsteps > 0 ? "\n" : "");
		capline_runs(runs, stdout);
	}
}

void
output_text_runs(json_object *res)
{
	runs_view(res, false);
}

void
output_text_runs_all(json_object *res)
{
	runs_view(res, true);
}

/* ---------------------------------------------------------------- json */

/* Scripts get the result exactly as the daemon sent it, for every command. */
void
output_json_result(json_object *res)
{
	printf("%s\n", fmt_json_string(res));
}
