/* The commands that read run records: report and runs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdentry.h"
#include "control.h"
#include "job.h"
#include "lifecycle.h"
#include "proto.h"
#include "run.h"
#include "runrecords.h"
#include "runsindex.h"
#include "util.h"

/* The record of id: fresh for the current run and a job's own record
 * (a capacity search's, live while it runs), else from disk: a run's
 * report.json, else a job's record file. */
static json_object *
report_of(unsigned id)
{
	json_object *rep;

	if ((rep = job_record_json(id)) != NULL ||
	    (rep = runrecords_load(lifecycle_state_dir(), id)) != NULL)
		return rep;
	return job_record_load(lifecycle_state_dir(), id);
}

static void
cmd_report(struct control_conn *c, json_object *id, struct request_args *a)
{
	struct run *run = lifecycle_run();
	const char *state_dir = lifecycle_state_dir();
	const struct job_kind *k = NULL;
	json_object *rep;
	int64_t want = a->run;

	/* The record of a kind kept by name (a sweep's, beside its first
	 * run's report.json). */
	if (a->record_kind != NULL && (k = job_find(a->record_kind)) != NULL &&
	    want == 0 && k->last_id != NULL)
		want = k->last_id();
	if (want == 0 && run != NULL)
		want = run_id(run);
	else if (want == 0 && (want = runrecords_last(state_dir,
	    lifecycle_next_id())) == 0) {
		/* After a restart the last run is the newest record. */
		control_reply_error(c, id, PROTO_ERR_NO_RUN, NULL,
		    "no run recorded in %s/runs", state_dir);
		return;
	}
	if ((rep = a->record_kind != NULL ? job_kind_record(k, state_dir,
	    (unsigned)want) : report_of((unsigned)want)) == NULL) {
		control_reply_error(c, id, PROTO_ERR_NO_RUN, "run",
		    "no %s%s of run %lld in %s/runs", a->record_kind != NULL ?
		    a->record_kind : "", a->record_kind != NULL ? " record" :
		    "record", (long long)want, state_dir);
		return;
	}
	control_reply_ok(c, id, rep);
}

_Static_assert(REQUEST_RUNS_BEFORE_MAX == RUNRECORDS_MAX_ID + 1,
    "runs' before reaches every run id");

/* The result of runs, already JSON (text, taken): put in the reply as
 * it is, its summaries not parsed again.  NULL out of memory. */
static json_object *
raw_json(char *text)
{
	json_object *o = text != NULL ? json_object_new_object() : NULL;

	if (o == NULL) {
		free(text);
		return NULL;
	}
	json_object_set_serializer(o, json_object_userdata_to_json_string,
	    text, json_object_free_userdata);
	return o;
}

/* A live record's summary, made at most every LIVE_TTL s: building the
 * current run's record takes about a millisecond, and a burst of 100
 * runs in one turn of the loop must not take 100 of them. */
#define LIVE_TTL	0.05
#define LIVE_SLOTS	4	/* a search and its step run, and spare */

static struct {
	unsigned	 id;
	double		 at;
	char		*text;
} live_cache[LIVE_SLOTS];

/* The summary of id's live record as JSON text (the cache's), or NULL
 * when it has none. */
static const char *
live_summary(unsigned id)
{
	size_t k = id % LIVE_SLOTS;
	double now = util_now();
	json_object *live, *sum;
	char *text;

	if (live_cache[k].text != NULL && live_cache[k].id == id &&
	    now - live_cache[k].at < LIVE_TTL)
		return live_cache[k].text;
	if ((live = job_record_json(id)) == NULL)
		return NULL;
	sum = runrecords_summary(live);
	json_object_put(live);
	text = strdup(json_object_to_json_string_ext(sum,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(sum);
	if (text == NULL)
		return NULL;
	free(live_cache[k].text);
	live_cache[k].id = id;
	live_cache[k].at = now;
	live_cache[k].text = text;
	return text;
}

/* A page of the index (runsindex.h), written out as the summaries' text
 * joined: no record is read or parsed here, so that a flood of runs
 * costs the loop microseconds a request.  Only a live record (the
 * current run, a search going on) is built afresh, LIVE_TTL apart. */
static void
cmd_runs(struct control_conn *c, json_object *id, struct request_args *a)
{
	const struct runsindex_entry *e;
	char *text = NULL;
	size_t len = 0;
	int more, first = 1;
	size_t n = runsindex_page((unsigned)a->before, (size_t)a->limit, &e,
	    &more);
	FILE *m = open_memstream(&text, &len);
	json_object *res;

	if (m == NULL) {
		control_reply_error(c, id, PROTO_ERR_INTERNAL, NULL,
		    "out of memory");
		return;
	}
	fputs("{\"runs\":[", m);
	for (size_t i = 0; i < n; i++) {
		const char *sum = live_summary(e[i].id);

		if (sum == NULL && (sum = e[i].summary) == NULL)
			continue;	/* live only, and not any more */
		fprintf(m, "%s%s", first ? "" : ",", sum);
		first = 0;
	}
	if (more && n > 0)
		fprintf(m, "],\"next_before\":%u}", e[0].id);
	else
		fputs("],\"next_before\":null}", m);
	if (fclose(m) != 0) {
		free(text);
		text = NULL;
	}
	if ((res = raw_json(text)) == NULL) {
		control_reply_error(c, id, PROTO_ERR_INTERNAL, NULL,
		    "out of memory");
		return;
	}
	control_reply_ok(c, id, res);
}

const struct cmd_entry cmd_report_entry = {
	"report", "report [{\"run\": id}]", "the record of a run (report.json; "
	"default the current or last run)", true, NULL, request_check_report,
	cmd_report,
};

const struct cmd_entry cmd_runs_entry = {
	"runs", "runs [{\"limit\": n, \"before\": id}]", "the recorded runs, "
	"one summary each: the newest limit (default 100) below before, "
	"and next_before for the page before", true, NULL,
	request_check_runs, cmd_runs,
};
