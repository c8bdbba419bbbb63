/* The sweep's record (sweep.json) and its recovery after a crash; see
 * sweeppriv.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "lifecycle.h"
#include "log.h"
#include "report.h"
#include "runrecords.h"
#include "sweeppriv.h"
#include "util.h"

#define RECORD_NAME	"sweep.json"

const char *
sweepstate_name(enum sweepstate_state s)
{
	static const char *const names[] = {
		"running", "done", "stopped", "failed"
	};

	return names[s];
}

static json_object *
run_json(const struct sweepstate *s, const struct sweeprun *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "n", json_object_new_int64((int64_t)r->k));
	json_object_object_add(o, "run_id", json_object_new_int64(r->run_id));
	json_object_object_add(o, "dir_index",
	    json_object_new_int64((int64_t)r->dir));
	/* Which of its directory's repeats, from 1. */
	json_object_object_add(o, "repeat", json_object_new_int64(
	    (int64_t)((r->k - 1) / s->o.ndirs + 1)));
	json_object_object_add(o, "dir", json_object_new_string(r->path));
	json_object_object_add(o, "state", json_object_new_string(r->state));
	return o;
}

json_object *
sweeprecord_json(const struct sweepstate *s)
{
	json_object *o = json_object_new_object(), *p, *a;
	char host[256];

	json_object_object_add(o, "schema",
	    json_object_new_string(SWEEP_SCHEMA));
	json_object_object_add(o, "schema_version",
	    json_object_new_int(SWEEP_SCHEMA_VERSION));
	json_object_object_add(o, "id", json_object_new_int64(s->id));
	json_object_object_add(o, "sweep_id",
	    json_object_new_string(s->sweep_id));
	json_object_object_add(o, "state",
	    json_object_new_string(sweepstate_name(s->state)));
	json_object_object_add(o, "reason", json_object_new_string(s->reason));
	json_object_object_add(o, "started", report_time_json(s->started));
	json_object_object_add(o, "ended", report_time_json(s->ended));
	json_object_object_add(o, "version",
	    json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(o, "stressd_pid", json_object_new_int(getpid()));
	json_object_object_add(o, "host", gethostname(host, sizeof(host)) ==
	    0 ? json_object_new_string_len(host, (int)strnlen(host,
	    sizeof(host))) : NULL);
	p = knobs_to_json(&s->base);
	/* Set by the sweep for each run. */
	json_object_object_del(p, "dir");
	json_object_object_del(p, "label");
	json_object_object_del(p, "sweep_id");
	json_object_object_add(o, "params", p);
	json_object_object_add(o, "repeat",
	    json_object_new_int64((int64_t)s->o.repeat));
	json_object_object_add(o, "runs_planned",
	    json_object_new_int64((int64_t)s->total));
	json_object_object_add(o, "runs_failed",
	    json_object_new_int64((int64_t)s->failed));
	a = json_object_new_array();
	for (size_t d = 0; d < s->o.ndirs; d++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "dir",
		    json_object_new_string(s->o.dirs[d]));
		json_object_object_add(e, "label",
		    json_object_new_string(s->o.labels[d]));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "dirs", a);
	a = json_object_new_array();
	for (unsigned long i = 0; i < s->nruns; i++)
		json_object_array_add(a, run_json(s, &s->runs[i]));
	json_object_object_add(o, "runs", a);
	return o;
}

/* The object o whole as STATE/runs/<id>/sweep.json (the directory is
 * the first run's, made by it). */
static int
write_record(const char *state_dir, unsigned id, json_object *o)
{
	char path[4300];
	FILE *fp;
	int rv = -1;

	snprintf(path, sizeof(path), "%s/runs/%u/%s", state_dir, id,
	    RECORD_NAME);
	if ((fp = util_tmp_open(path)) == NULL)
		goto out;
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
	    JSON_C_TO_STRING_NOSLASHESCAPE), fp);
	fputc('\n', fp);
	rv = util_tmp_commit(fp, path);
out:
	if (rv == -1)
		log_warn("sweep %u: cannot write %s", id, path);
	return rv;
}

void
sweeprecord_write(const struct sweepstate *s)
{
	json_object *o = sweeprecord_json(s);

	write_record(lifecycle_state_dir(), s->id, o);
	json_object_put(o);
}

void
sweeprecord_recover(const char *state_dir)
{
	runrecords_interrupt(state_dir, RECORD_NAME, "runs", "stressd ended "
	    "(a crash or kill) during the sweep; the runs it started are "
	    "kept; ended is when the next stressd found it", "sweep",
	    write_record);
}
