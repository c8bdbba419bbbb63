/* The sweep; see sweep.h.  The record's JSON is in sweeprecord.c; this
 * file drives the runs. */
#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <event2/buffer.h>

#include "job.h"
#include "lifecycle.h"
#include "log.h"
#include "policy.h"
#include "prom.h"
#include "proto.h"
#include "request.h"
#include "run.h"
#include "sweeppriv.h"

static struct sweepstate sw = { .update_fd = -1 };

static bool
sweep_active(void)
{
	return sw.active;
}

/* The run now being prepared or running, as the record lists it. */
static struct sweeprun *
current(void)
{
	return sw.nruns > 0 && sw.runs[sw.nruns - 1].run_id == sw.run &&
	    sw.run != 0 ? &sw.runs[sw.nruns - 1] : NULL;
}

static json_object *where_json(void);
static void sweep_finish(void);

/* The sweep ends: state, reason, the record, those who wait. */
static void
finish_sweep(enum sweepstate_state st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
finish_sweep(enum sweepstate_state st, const char *fmt, ...)
{
	va_list ap;

	sw.state = st;
	sw.ended = time(NULL);
	va_start(ap, fmt);
	vsnprintf(sw.reason, sizeof(sw.reason), fmt, ap);
	va_end(ap);
	sw.active = false;
	if (sw.update_fd != -1)
		close(sw.update_fd);
	sw.update_fd = -1;
	if (sw.have_record)
		sweeprecord_write(&sw);
	log_info("sweep %u (%s): %s after %lu of %lu runs%s%s", sw.id,
	    sw.sweep_id, sweepstate_name(st), sw.nruns, sw.total,
	    sw.reason[0] ? ": " : "", sw.reason);
	if (!sw.replied) {
		char msg[1400];

		sw.replied = true;
		snprintf(msg, sizeof(msg), "sweep %s %s before its first run: "
		    "%s", sw.sweep_id, sweepstate_name(st), sw.reason);
		job_refused(PROTO_ERR_NO_RUN, NULL, msg);
	}
	job_ended(sw.have_record ? sweeprecord_json(&sw) : where_json());
}

static int
sweep_start(const struct stress_params *p, struct sweep_opts *o,
    int update_fd)
{
	sweep_finish();
	memset(&sw, 0, sizeof(sw));
	sw.update_fd = update_fd;
	if (knobs_copy(&sw.base, p) == -1) {
		if (update_fd != -1)
			close(update_fd);
		sw.update_fd = -1;
		return -1;
	}
	sw.o = *o;
	memset(o, 0, sizeof(*o));	/* taken */
	/* The first run gets the next id: no other run can start while
	 * the sweep is active. */
	sw.id = lifecycle_next_id();
	/* The number makes it unique in this state directory, the time
	 * tells it apart from other hosts' (and older stressctl's). */
	snprintf(sw.sweep_id, sizeof(sw.sweep_id), "s-%lld-%u",
	    (long long)time(NULL), sw.id);
	sw.total = sw.o.repeat * sw.o.ndirs;
	sw.active = true;
	sw.state = SWEEPSTATE_RUNNING;
	sw.started = time(NULL);
	log_info("sweep %u (%s): %lu run%s over %zu director%s", sw.id,
	    sw.sweep_id, sw.total, sw.total == 1 ? "" : "s", sw.o.ndirs,
	    sw.o.ndirs == 1 ? "y" : "ies");
	return 0;
}

static void
sweep_stop(bool drain, const char *why)
{
	struct run *r = lifecycle_run();

	if (!sw.active)
		return;
	sw.stop_requested = true;
	snprintf(sw.stop_why, sizeof(sw.stop_why), "%s", why != NULL ? why :
	    drain ? "stopped by a client's stop (the run's queue drained)" :
	    "stopped by a client's stop --no-drain");
	if (sw.preparing) {
		lifecycle_cancel_pending();
		return;
	}
	if (sw.run != 0 && r != NULL && run_id(r) == sw.run &&
	    run_active(r)) {
		run_stop(r, drain, why);
		return;
	}
	finish_sweep(SWEEPSTATE_STOPPED, "%s", sw.stop_why);
}

/* The knobs of run k (from 1) in its fresh subdirectory, or -1 with
 * why in err. */
static int
run_params(struct stress_params *p, size_t d, unsigned long k, char *err,
    size_t errlen)
{
	struct stat st;
	const struct config *cfg = lifecycle_config();

	free(sw.next_path);
	if (asprintf(&sw.next_path, "%s/sweep-%s-%lu", sw.o.dirs[d],
	    sw.sweep_id, k) == -1) {
		sw.next_path = NULL;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (strlen(sw.next_path) >= sizeof(p->dir)) {
		snprintf(err, errlen, "%s: too long a path", sw.next_path);
		return -1;
	}
	/* Fresh files: a run would continue existing ones. */
	if (lstat(sw.next_path, &st) == 0) {
		snprintf(err, errlen, "%s exists", sw.next_path);
		return -1;
	}
	if (errno != ENOENT) {
		snprintf(err, errlen, "%s: %s", sw.next_path, strerror(errno));
		return -1;
	}
	/* allowed_dirs may have changed (SIGHUP) since the request. */
	if (cfg != NULL && policy_dir_allowed(cfg, sw.next_path, err,
	    errlen) != 1)
		return -1;
	if (knobs_copy(p, &sw.base) == -1) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(p->dir, sizeof(p->dir), "%s", sw.next_path);
	snprintf(p->label, sizeof(p->label), "%s", sw.o.labels[d]);
	snprintf(p->sweep_id, sizeof(p->sweep_id), "%s", sw.sweep_id);
	return 0;
}

/* A descriptor of the replayed file for one run, read from its start
 * (runs take turns, so one shared offset serves), or -1. */
static int
update_fd_for_run(void)
{
	int fd;

	if (sw.update_fd == -1 || (fd = dup(sw.update_fd)) == -1)
		return -1;
	if (lseek(fd, 0, SEEK_SET) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A first run that cannot start: the client hears why, naming its
 * directory (no record is left). */
static void
refused_first(size_t d, const char *why)
{
	char field[32];

	if (sw.replied)
		return;
	sw.replied = true;
	snprintf(field, sizeof(field), "dirs[%zu]", d);
	job_refused(PROTO_ERR_BAD_ARGUMENT, field, why);
}

static void
start_run(void)
{
	size_t d = sw.nruns % sw.o.ndirs;
	unsigned long k = sw.nruns + 1;
	struct stress_params p;
	char err[PROTO_MAX_RUN_ERROR];
	int fd = -1;

	memset(&p, 0, sizeof(p));
	if (run_params(&p, d, k, err, sizeof(err)) == -1) {
		knobs_free(&p);
		refused_first(d, err);
		finish_sweep(SWEEPSTATE_FAILED, "run %lu of %lu not started: "
		    "%s", k, sw.total, err);
		return;
	}
	if (sw.update_fd != -1 && (fd = update_fd_for_run()) == -1) {
		knobs_free(&p);
		finish_sweep(SWEEPSTATE_FAILED, "run %lu of %lu not started: "
		    "cannot read the update file again: %s", k, sw.total,
		    strerror(errno));
		return;
	}
	if (lifecycle_prepare(&p, fd) == -1) {
		knobs_free(&p);
		finish_sweep(SWEEPSTATE_FAILED, "run %lu of %lu not started: "
		    "out of resources", k, sw.total);
		return;
	}
	knobs_free(&p);
	sw.run = run_id(lifecycle_pending());
	sw.preparing = true;
	log_info("sweep %u: run %u (%lu of %lu) in %s", sw.id, sw.run, k,
	    sw.total, sw.next_path);
}

/* Add the run that just launched to the list. */
static int
add_run(void)
{
	struct sweeprun *r;

	if (sw.nruns == sw.capruns) {
		unsigned long n = sw.capruns ? sw.capruns * 2 : 16;
		struct sweeprun *nr = realloc(sw.runs, n * sizeof(*nr));

		if (nr == NULL)
			return -1;
		sw.runs = nr;
		sw.capruns = n;
	}
	r = &sw.runs[sw.nruns++];
	r->run_id = sw.run;
	r->dir = (sw.nruns - 1) % sw.o.ndirs;
	r->k = sw.nruns;
	r->state = "running";
	r->path = sw.next_path;
	sw.next_path = NULL;
	return 0;
}

/* The run's preparation ended: launched, or refused. */
static void
prepared(void)
{
	struct run *r = lifecycle_run();
	const char *field = NULL, *msg;

	sw.preparing = false;
	if (r != NULL && run_id(r) == sw.run) {
		if (add_run() == -1) {
			run_stop(r, false, "the sweep ran out of memory");
			sw.run = 0;
			finish_sweep(SWEEPSTATE_FAILED, "out of memory");
			return;
		}
		sw.have_record = true;
		sweeprecord_write(&sw);
		if (!sw.replied) {
			sw.replied = true;
			job_started(where_json());
		}
		return;
	}
	sw.run = 0;
	if (sw.stop_requested) {
		finish_sweep(SWEEPSTATE_STOPPED, "%s", sw.stop_why);
		return;
	}
	msg = lifecycle_refusal(&field, NULL);
	if (!sw.replied) {
		/* Nothing was done: the client hears why, no record stays. */
		sw.replied = true;
		job_refused(PROTO_ERR_BAD_ARGUMENT, field[0] != '\0' &&
		    strcmp(field, "dir") != 0 ? field : "dirs[0]", msg);
	}
	/* As stressctl's sweep always did: a refused start ends it. */
	finish_sweep(SWEEPSTATE_FAILED, "run %lu of %lu in %s was refused: "
	    "%s", sw.nruns + 1, sw.total, sw.next_path, msg);
}

/* The current run ended: note it; a failed run does not end the
 * sweep. */
static void
run_ended(struct run *r)
{
	struct sweeprun *cur = current();
	enum run_state st = run_state(r);

	if (cur != NULL)
		cur->state = st == RUN_FAILED ? "failed" : st == RUN_STOPPED ?
		    "stopped" : "done";
	if (st == RUN_FAILED)
		sw.failed++;
	log_info("sweep %u: run %u %s", sw.id, sw.run, run_state_name(st));
	sw.run = 0;
	if (sw.stop_requested) {
		finish_sweep(SWEEPSTATE_STOPPED, "%s (during run %lu of %lu)",
		    sw.stop_why, sw.nruns, sw.total);
		return;
	}
	sweeprecord_write(&sw);
}

static void
sweep_tick(void)
{
	struct run *r;

	if (!sw.active)
		return;
	if (sw.preparing) {
		if (lifecycle_pending() == NULL)
			prepared();
		return;
	}
	r = lifecycle_run();
	if (sw.run != 0 && r != NULL && run_id(r) == sw.run) {
		if (!run_active(r))
			run_ended(r);
		return;
	}
	if (sw.stop_requested || lifecycle_shutting_down()) {
		finish_sweep(SWEEPSTATE_STOPPED, "%s", sw.stop_why[0] ?
		    sw.stop_why : "stressd is shutting down");
		return;
	}
	if (sw.nruns == sw.total) {
		if (sw.failed > 0)
			finish_sweep(SWEEPSTATE_DONE, "%lu of its %lu runs "
			    "failed", sw.failed, sw.total);
		else
			finish_sweep(SWEEPSTATE_DONE, "%s", "");
		return;
	}
	start_run();
}

/* Where the sweep is: status's "sweep", and what a sweep that ended
 * before its record answers. */
static json_object *
where_json(void)
{
	const struct sweeprun *cur = current();
	size_t d = sw.nruns % (sw.o.ndirs > 0 ? sw.o.ndirs : 1);
	json_object *o;

	o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_int64(sw.id));
	json_object_object_add(o, "sweep_id",
	    json_object_new_string(sw.sweep_id));
	json_object_object_add(o, "state",
	    json_object_new_string(sweepstate_name(sw.state)));
	if (cur != NULL)
		d = cur->dir;
	json_object_object_add(o, "dir_index", json_object_new_int64(
	    (int64_t)d));
	json_object_object_add(o, "ndirs", json_object_new_int64(
	    (int64_t)sw.o.ndirs));
	json_object_object_add(o, "label", sw.o.ndirs > 0 ?
	    json_object_new_string(sw.o.labels[d]) : NULL);
	json_object_object_add(o, "repeat", json_object_new_int64(
	    (int64_t)sw.o.repeat));
	/* The run running (from 1), or the next one between two. */
	json_object_object_add(o, "run", json_object_new_int64((int64_t)(
	    cur != NULL ? cur->k : sw.nruns + 1)));
	json_object_object_add(o, "runs_planned", json_object_new_int64(
	    (int64_t)sw.total));
	json_object_object_add(o, "runs_started", json_object_new_int64(
	    (int64_t)sw.nruns));
	json_object_object_add(o, "runs_done", json_object_new_int64(
	    (int64_t)(sw.nruns - (cur != NULL))));
	json_object_object_add(o, "runs_failed", json_object_new_int64(
	    (int64_t)sw.failed));
	json_object_object_add(o, "run_id", sw.run != 0 ?
	    json_object_new_int64(sw.run) : NULL);
	json_object_object_add(o, "dir", cur != NULL ?
	    json_object_new_string(cur->path) : sw.next_path != NULL ?
	    json_object_new_string(sw.next_path) : NULL);
	return o;
}

static json_object *
sweep_status_json(void)
{
	return sw.active ? where_json() : NULL;
}

static json_object *
sweep_record_json(unsigned id)
{
	return sw.id == id && sw.id != 0 && sw.have_record ?
	    sweeprecord_json(&sw) : NULL;
}

static bool
sweep_summary(char *buf, size_t len)
{
	const struct sweeprun *cur = current();
	size_t d = cur != NULL ? cur->dir : sw.nruns % sw.o.ndirs;

	if (!sw.active)
		return false;
	snprintf(buf, len, "sweep %u: run %lu/%lu (dir %zu/%zu %s), %lu "
	    "failed", sw.id, cur != NULL ? cur->k : sw.nruns + 1, sw.total,
	    d + 1, sw.o.ndirs, sw.o.labels[d], sw.failed);
	return true;
}

static void
sweep_finish(void)
{
	for (unsigned long i = 0; i < sw.nruns; i++)
		free(sw.runs[i].path);
	free(sw.runs);
	free(sw.next_path);
	sw.runs = NULL;
	sw.next_path = NULL;
	sw.nruns = sw.capruns = 0;
	if (sw.update_fd != -1)
		close(sw.update_fd);
	sw.update_fd = -1;
	knobs_free(&sw.base);
	request_sweep_opts_free(&sw.o);
}

/* The sweep running now: which run of how many, and how many failed. */
static void
sweep_metrics(struct evbuffer *out)
{
	static const struct {
		const char *key, *name, *help;
	} g[] = {
		{ "run", "stressd_sweep_run", "the sweep's run running, from 1" },
		{ "runs_planned", "stressd_sweep_runs_planned",
		  "runs the sweep makes: directories x repeat" },
		{ "runs_done", "stressd_sweep_runs_done",
		  "runs of the sweep that have ended" },
		{ "runs_failed", "stressd_sweep_runs_failed",
		  "runs of the sweep that ended failed" },
		{ "dir_index", "stressd_sweep_dir_index",
		  "the directory of the run running, from 0" },
	};
	json_object *st = sweep_status_json(), *v;
	char labels[1024], sid[300], label[300];

	prom_header(out, "stressd_sweep_active", "gauge",
	    "1 while a sweep runs");
	prom_sample(out, "stressd_sweep_active", NULL, st != NULL);
	if (st == NULL)
		return;
	json_object_object_get_ex(st, "sweep_id", &v);
	prom_label_escape(sid, sizeof(sid), json_object_get_string(v));
	json_object_object_get_ex(st, "label", &v);
	prom_label_escape(label, sizeof(label), json_object_get_string(v));
	json_object_object_get_ex(st, "id", &v);
	snprintf(labels, sizeof(labels), "sweep=\"%d\",sweep_id=\"%s\","
	    "label=\"%s\"", json_object_get_int(v), sid, label);
	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		if (!json_object_object_get_ex(st, g[i].key, &v) || v == NULL)
			continue;
		prom_header(out, g[i].name, "gauge", g[i].help);
		prom_sample(out, g[i].name, labels, json_object_get_double(v));
	}
	json_object_put(st);
}

/* The job kind's operations over the arguments sweepreq.c checked. */
static int
start_job(struct request_args *a, int update_fd)
{
	return sweep_start(&a->params, &a->sweep, update_fd);
}

static json_object *
stop_reply(bool wait)
{
	json_object *res;

	if (wait && sw.active)
		return NULL;
	res = json_object_new_object();
	json_object_object_add(res, "sweep", json_object_new_int64(sw.id));
	json_object_object_add(res, "state", json_object_new_string(sw.active ?
	    "stopping" : "stopped"));
	return res;
}

static void
busy(char *buf, size_t len)
{
	snprintf(buf, len, "sweep %u is running; stop it or wait for it "
	    "first", sw.id);
}

static unsigned
last_id(void)
{
	return sw.id;
}

static void
recover(const char *state_dir, const struct config *cfg)
{
	(void)cfg;
	sweeprecord_recover(state_dir);
}

const struct job_kind sweep_kind = {
	.name = "sweep",
	.record_file = "sweep.json",
	.record_by_name = true,
	.last_id = last_id,
	.start = start_job,
	.active = sweep_active,
	.tick = sweep_tick,
	.stop = sweep_stop,
	.stop_reply = stop_reply,
	.busy = busy,
	.status_json = sweep_status_json,
	.record_json = sweep_record_json,
	.summary = sweep_summary,
	.metrics = sweep_metrics,
	.recover = recover,
	.finish = sweep_finish,
};
