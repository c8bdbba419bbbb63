/* The view of `runs` (see runsview.h): a table of the runs through the
 * column engine, then the capacity searches in capline.c's words. */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "capline.h"
#include "columns.h"
#include "fmt.h"
#include "jpath.h"
#include "kv.h"
#include "runsview.h"
#include "verdicts.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

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
		if (kv_object_or_print(res)) {
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
runsview_text(json_object *res)
{
	runs_view(res, false);
}

void
runsview_text_all(json_object *res)
{
	runs_view(res, true);
}
