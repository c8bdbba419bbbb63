/* The view of `runs` (see runsview.h): a table of the runs through the
 * column engine, then the capacity searches in capline.c's words. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "capline.h"
#include "columns.h"
#include "fmt.h"
#include "recparse.h"
#include "runsrec.h"
#include "runsview.h"
#include "verdicts.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* A string cell: "-" when absent, "" shown as such (it would vanish into
 * the padding). */
static char *
runs_str(const char *s)
{
	return fmt_xstrdup(s == NULL ? "-" : *s == '\0' ? "\"\"" : s);
}

/* The offered load: max_updates / update_time, or "flat out". */
static char *
runs_pace(const struct runsrec_run *run)
{
	double u = run->update_time.d, m;

	if (!run->update_time.has || !run->max_updates.has)
		return fmt_xstrdup("-");
	if (u <= 0)
		return fmt_xstrdup("flat out");
	m = run->max_updates.d / u;
	return fmt_xprintf(m >= 100 ? "%.0f" : "%.3g", m);
}

/* The daemon's verdict in the words of every one-line view; "—" for a
 * record without one (an older stressd's). */
static char *
runs_verdict(const struct runsrec_run *run)
{
	int64_t nw = run->warnings.has ? (int64_t)run->warnings.d : 0;

	if (!run->has_verdict)
		return fmt_xstrdup("\u2014");
	return verdicts_counted(verdicts_kept_word_rec(run->kept_up),
	    nw > 0 ? (size_t)nw : 0);
}

/* A string cell, "-" when empty or missing. */
static const char *
runs_word(const char *s)
{
	return s != NULL && *s != '\0' ? s : "-";
}

/* One cell of a run's row, malloc'd. */
static char *
runs_cell(const struct runsrec_run *r, const char *key)
{
	char when[64];

	if (strcmp(key, "id") == 0)
		return recparse_number_text(&r->id, NULL);
	if (strcmp(key, "started_at") == 0)
		return fmt_xstrdup(r->started_at != NULL ? fmt_local_time(
		    r->started_at, false, when, sizeof(when)) : "-");
	if (strcmp(key, "state") == 0)
		return runs_str(r->state);
	/* An interrupted run: what its files hold, not the count of its
	 * last checkpoint (up to 10 s short). */
	if (strcmp(key, "updates") == 0)
		return recparse_number_text(r->updates_on_disk.has &&
		    r->updates_on_disk.is_int ? &r->updates_on_disk :
		    &r->updates_completed, NULL);
	if (strcmp(key, "files") == 0)
		return recparse_number_text(&r->files, NULL);
	if (strcmp(key, "updates/s") == 0)
		return runs_pace(r);
	if (strcmp(key, "sync") == 0)
		return fmt_xstrdup(runs_word(r->sync));
	if (strcmp(key, "fs_type") == 0)
		return runs_str(r->fs_type);
	if (strcmp(key, "dir") == 0)
		return runs_str(r->dir);
	if (strcmp(key, "significant_avg") == 0)
		return recparse_number_text(&r->significant_avg, "%.2f");
	if (strcmp(key, "label") == 0)
		return fmt_xstrdup(runs_word(r->label));
	if (strcmp(key, "verdict") == 0)
		return runs_verdict(r);
	/* A capacity search's step: its search and step. */
	if (r->has_capacity)
		return fmt_xprintf("capacity %.0f step %.0f",
		    isnan(r->capacity_id) ? 0 : r->capacity_id,
		    isnan(r->capacity_step) ? 0 : r->capacity_step);
	return fmt_xstrdup(runs_word(r->sweep_id));
}

static void
runs_row(struct columns *t, const struct runsrec_run *r)
{
	static const char *const keys[] = {
		"id", "started_at", "state", "updates", "files", "updates/s",
		"sync", "fs_type", "dir", "significant_avg", "label",
		"verdict", "sweep_id",
	};

	for (size_t i = 0; i < NELEM(keys); i++) {
		char *cell = runs_cell(r, keys[i]);

		columns_add(t, "%s", cell);
		free(cell);
	}
}

/* runs: the runs, the steps of capacity searches only with --all (a
 * count of them otherwise), then the capacity searches. */
void
runsview_print(const struct runsrec *rs, bool all)
{
	static const char *const head[] = {
		"ID", "STARTED", "STATE", "UPDATES", "FILES", "UPDATES/S",
		"SYNC", "FS", "DIR", "SIG AVG", "LABEL", "VERDICT", "SWEEP",
	};
	struct columns *t;
	size_t nrows = 0, nsteps = 0, nsearch = 0;

	if (rs->nruns == 0) {
		printf("no runs recorded\n");
		return;
	}
	t = columns_new("rllrrrlllrlll");
	for (size_t i = 0; i < NELEM(head); i++)
		columns_add(t, "%s", head[i]);
	for (size_t i = 0; i < rs->nruns; i++) {
		const struct runsrec_run *r = &rs->runs[i];

		if (runsrec_is_capacity(r))
			nsearch++;
		else if (!all && r->has_capacity)
			nsteps++;
		else if (r->kind == NULL || strcmp(r->kind, "run") == 0) {
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
		capline_runs(rs, stdout);
	}
}

/* A reply this stressctl cannot read is shown as it came, with the member
 * that is wrong named. */
static void
runs_view(json_object *res, bool all)
{
	char *err = NULL;
	struct runsrec *rs;

	if ((rs = runsrec_parse(res, &err)) == NULL) {
		fprintf(stderr, "stressctl: %s\n", err);
		free(err);
		printf("%s\n", fmt_json_string(res));
		return;
	}
	runsview_print(rs, all);
	runsrec_free(rs);
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
