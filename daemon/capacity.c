/* The capacity search; see capacity.h.  The record's JSON is in
 * caprecord.c; this file drives the steps and is the job kind. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <event2/buffer.h>

#include "capacity.h"
#include "capsearch.h"
#include "capstate.h"
#include "job.h"
#include "lifecycle.h"
#include "log.h"
#include "prom.h"
#include "proto.h"
#include "request.h"
#include "run.h"
#include "util.h"
#include "verdict.h"

static struct capstate cap;

static void capacity_finish(void);
static void capacity_tick(void);
static json_object *capacity_status_json(void);

/* A random number for a directory's jitter: not the knobs' seed, which is
 * the same every time unless set.  The clock when getrandom(2) has none
 * yet (early at boot): any offset serves. */
static uint64_t
random_draw(void)
{
	uint64_t r;
	struct timespec ts;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_nsec * 2654435761u ^ (uint64_t)ts.tv_sec ^
	    (uint64_t)getpid() << 32;
}

/* Directory d's search begins, its grid offset by a jitter of its own. */
static void
search_dir(size_t d)
{
	capsearch_init(&cap.cs, cap.o.start_rate, cap.o.max_rate,
	    cap.o.precision_pct / 100, cap.o.repeats,
	    capsearch_jitter(random_draw()));
	cap.dirs[d].state = "running";
	cap.dirs[d].jitter = cap.cs.jitter;
	cap.dirs[d].first_rate = cap.cs.first;
	log_info("capacity %u: %s: its first step at %g updates/s (the start "
	    "rate x %g)", cap.id, cap.o.dirs[d], cap.cs.first, cap.cs.jitter);
}

static bool
capacity_active(void)
{
	return cap.active;
}

/* Start search id over the knobs p (dir: the first directory) and o
 * (taken: the search owns its strings now).  0, or -1 out of memory. */
static int
start_search(unsigned id, const struct stress_params *p, struct capopts *o)
{
	capacity_finish();
	memset(&cap, 0, sizeof(cap));
	snprintf(cap.state_dir, sizeof(cap.state_dir), "%s",
	    lifecycle_state_dir());
	if (knobs_copy(&cap.base, p) == -1)
		return -1;
	cap.base.queue_creates = false;	/* as every step runs */
	cap.o = *o;
	memset(o, 0, sizeof(*o));	/* taken */
	cap.id = id;
	cap.active = true;
	cap.state = CAPSTATE_RUNNING;
	cap.started = time(NULL);
	for (size_t i = 0; i < cap.o.ndirs; i++)
		cap.dirs[i].state = "pending";
	log_info("capacity %u: searching %zu director%s, from %g to at most "
	    "%g updates/s, precision %g %%", id, cap.o.ndirs,
	    cap.o.ndirs == 1 ? "y" : "ies", cap.o.start_rate, cap.o.max_rate,
	    cap.o.precision_pct);
	search_dir(0);
	caprecord_write(&cap);
	return 0;
}

/* The search ends: state, reason, the record, those who wait. */
static void
finish_search(enum capstate_state st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
finish_search(enum capstate_state st, const char *fmt, ...)
{
	va_list ap;

	cap.state = st;
	cap.ended = time(NULL);
	va_start(ap, fmt);
	vsnprintf(cap.reason, sizeof(cap.reason), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < cap.o.ndirs; i++)
		if (strcmp(cap.dirs[i].state, "running") == 0)
			cap.dirs[i].state = st == CAPSTATE_FAILED ? "failed" :
			    "stopped";
	cap.active = false;
	if (!cap.no_record)
		caprecord_write(&cap);
	log_info("capacity %u: %s%s%s", cap.id, capstate_name(st),
	    cap.reason[0] ? ": " : "", cap.reason);
	if (!cap.replied) {
		char msg[1400];

		cap.replied = true;
		snprintf(msg, sizeof(msg), "capacity search %u %s before its "
		    "first step: %s", cap.id, capstate_name(st), cap.reason);
		job_refused(PROTO_ERR_NO_RUN, NULL, msg);
	}
	job_ended(caprecord_json(&cap));
}

/* stop: the current step drains (or discards) and is marked stopped,
 * the search ends stopped; why (NULL: a client) becomes its reason. */
static void
capacity_stop(bool drain, const char *why)
{
	struct run *r = lifecycle_run();

	if (!cap.active)
		return;
	cap.stop_requested = true;
	snprintf(cap.stop_why, sizeof(cap.stop_why), "%s", why != NULL ? why :
	    drain ? "stopped by a client's stop (the step's queue drained)" :
	    "stopped by a client's stop --no-drain");
	if (cap.preparing) {
		lifecycle_cancel_pending();
		return;
	}
	if (cap.step_run != 0 && r != NULL && run_id(r) == cap.step_run &&
	    run_active(r)) {
		run_stop(r, drain, why);
		return;
	}
	finish_search(CAPSTATE_STOPPED, "%s", cap.stop_why);
}

/* The parameters of the next step: the search's knobs in its directory,
 * at its rate, spread over step_max (a step that has its answer sooner
 * is stopped then). */
static int
next_params(struct stress_params *p)
{
	size_t d = cap.di;

	if (knobs_copy(p, &cap.base) == -1)
		return -1;
	snprintf(p->dir, sizeof(p->dir), "%s", cap.o.dirs[d]);
	if (cap.o.labels[d] != NULL)
		snprintf(p->label, sizeof(p->label), "%s", cap.o.labels[d]);
	p->update_time = cap.o.step_max;
	p->until_steady = 0;	/* a step's length is the search's (a profile's) */
	p->max_updates = (uint64_t)ceil(cap.cs.rate * cap.o.step_max);
	if (p->max_updates < 1)
		p->max_updates = 1;
	/* Files are made before the first step's load, never during one. */
	p->queue_creates = false;
	return 0;
}

static void
start_step(void)
{
	struct stress_params p;
	struct run *pending;

	if (next_params(&p) == -1 || lifecycle_prepare(&p, -1) == -1) {
		knobs_free(&p);
		finish_search(CAPSTATE_FAILED, "cannot prepare step %d: out "
		    "of resources", cap.nsteps + 1);
		return;
	}
	knobs_free(&p);
	pending = lifecycle_pending();
	cap.step_run = run_id(pending);
	cap.preparing = true;
	cap.last_judged = 0;
	cap.ended_early = false;
	run_set_capacity(pending, cap.id, cap.nsteps + 1, cap.cs.rate,
	    cap.o.settle);
	log_info("capacity %u: step %d (%s) in %s at %.0f updates/s, run %u",
	    cap.id, cap.nsteps + 1, capsearch_phase_name(cap.cs.phase),
	    cap.o.dirs[cap.di], cap.cs.rate, cap.step_run);
}

/* On to the next directory, or the search's end: done when any
 * directory's search is, failed when every one was refused. */
static void
next_dir(void)
{
	size_t done = 0;

	if (++cap.di < cap.o.ndirs) {
		search_dir(cap.di);
		caprecord_write(&cap);
		return;
	}
	for (size_t i = 0; i < cap.o.ndirs; i++)
		done += strcmp(cap.dirs[i].state, "done") == 0;
	if (done > 0)
		finish_search(CAPSTATE_DONE, "%s", done == cap.o.ndirs ? "" :
		    "some directories failed: see each one's limit_reason");
	else
		finish_search(CAPSTATE_FAILED, "every directory failed: see "
		    "each one's limit_reason");
}

/* The step's preparation ended: launched, or refused. */
static void
prepared(void)
{
	struct run *r = lifecycle_run();
	const char *field = NULL, *msg;

	cap.preparing = false;
	if (r != NULL && run_id(r) == cap.step_run) {
		if (!cap.replied) {
			cap.replied = true;
			job_started(capacity_status_json());
		}
		return;
	}
	cap.step_run = 0;
	if (cap.stop_requested) {
		finish_search(CAPSTATE_STOPPED, "%s", cap.stop_why);
		return;
	}
	msg = lifecycle_refusal(&field, NULL);
	if (!cap.replied) {
		/* Nothing was done: the client hears why, no record stays. */
		cap.replied = true;
		job_refused(PROTO_ERR_BAD_ARGUMENT, field[0] != '\0' &&
		    strcmp(field, "dir") != 0 ? field : "dirs[0]", msg);
		caprecord_remove(&cap);
		cap.no_record = true;
		finish_search(CAPSTATE_FAILED, "step %d in %s was refused: %s",
		    cap.nsteps + 1, cap.o.dirs[cap.di], msg);
		return;
	}
	/* A later directory refused (its files, say): the others are
	 * still worth their search. */
	cap.dirs[cap.di].state = "failed";
	snprintf(cap.dirs[cap.di].limit_reason,
	    sizeof(cap.dirs[cap.di].limit_reason), "its step %d was refused: "
	    "%s", cap.nsteps + 1, msg);
	log_warnx("capacity %u: %s: step %d refused: %s", cap.id,
	    cap.o.dirs[cap.di], cap.nsteps + 1, msg);
	next_dir();
}

/* A step that has its answer ends now; a drain that lasts too long
 * discards the rest. */
static void
watch_step(struct run *r)
{
	struct verdict v;
	struct run_step f;
	double now = util_now();

	if (run_state(r) == RUN_DRAINING) {
		if (cap.drain_since == 0)
			cap.drain_since = now;
		if (now - cap.drain_since > fmax(CAPACITY_DRAIN_MAX_S,
		    cap.o.step_max) && !cap.drain_cut) {
			log_info("capacity %u: step %d drained for %.0f s; "
			    "discarding the rest", cap.id, cap.nsteps + 1,
			    now - cap.drain_since);
			cap.drain_cut = true;
			run_stop(r, false, NULL);
		}
		return;
	}
	if (run_state(r) != RUN_RUNNING)
		return;
	if (cap.cpu_load0_t == 0 && cpustat_read(&cap.cpu_load0) == 0)
		cap.cpu_load0_t = now;
	if (now - cap.last_judged < 1.0 || cap.stop_requested)
		return;
	cap.last_judged = now;
	if (cpustat_read(&cap.cpu_last) == 0)
		cap.cpu_last_t = now;
	run_step_figures(r, cap.o.settle, &v, &f);
	/* refused files are no rate's answer: end the step at once */
	if (f.load_s >= cap.o.step_min && (v.cause == VERDICT_BY_REFUSED ||
	    verdict_may_end_load(&v, f.load_s, cap.o.step_max,
	    cap.base.sample_interval))) {
		cap.ended_early = true;
		run_stop(r, true, "the capacity search had this step's answer");
	}
}

/*
 * Whether the step's figures say the CPU, not the storage, was short:
 * the generators missed their pace, or the writers or the generators
 * were on a CPU or waiting on a run queue for one nearly all the load
 * (a writer waiting on the storage sleeps, it does not queue for a
 * CPU), or the process used nearly all CPUs.
 */
static bool
cpu_limited(const struct verdict *v, const struct run_step *f)
{
	double busy = 100 * CAPACITY_CPU_BUSY;

	return v->cause == VERDICT_BY_GENERATORS ||
	    f->cpu_writers_pct + f->cpu_writers_runq_pct >= busy ||
	    f->cpu_generators_pct + f->cpu_generators_runq_pct >= busy ||
	    f->cpu_process_pct >= busy;
}

/* The step ended: record it, feed the search, move on. */
static void
step_ended(struct run *r)
{
	struct capstep *s;
	struct verdict v;

	if ((s = capstate_add_step(&cap)) == NULL) {
		finish_search(CAPSTATE_FAILED, "out of memory");
		return;
	}
	run_step_figures(r, cap.o.settle, &v, &s->f);
	if (cap.cpu_load0_t > 0 && cap.cpu_last_t > cap.cpu_load0_t + 0.5)
		run_step_cpu(&cap.cpu_load0, &cap.cpu_last, cap.cpu_last_t -
		    cap.cpu_load0_t, &cap.base, &s->f);
	cap.cpu_load0_t = cap.cpu_last_t = 0;
	s->n = cap.nsteps;
	s->dir = cap.di;
	s->run_id = cap.step_run;
	s->rate = cap.cs.rate;
	s->phase = cap.cs.phase;
	s->kept_up = v.kept_up;
	s->samples = v.samples;
	s->have_slope = v.have_slope;
	s->slope = v.slope;
	s->se = v.se;
	s->cpu_limited = cpu_limited(&v, &s->f);
	s->v = v;
	snprintf(s->reason, sizeof(s->reason), "%s", v.reason);
	snprintf(s->fs_type, sizeof(s->fs_type), "%s", run_fs_type(r));
	s->state = cap.stop_requested ? "stopped" : run_state(r) ==
	    RUN_FAILED ? "failed" : "done";
	s->ended_early = cap.ended_early;
	cap.step_run = 0;
	cap.drain_since = 0;
	cap.drain_cut = false;
	log_info("capacity %u: step %d at %.0f updates/s %s", cap.id, s->n,
	    s->rate, s->kept_up == 1 ? "kept up" : s->kept_up == 0 ?
	    "fell behind" : "could not tell (counted as not kept up)");
	if (cap.stop_requested) {
		/* Stopped before its answer: judged on part of a load. */
		s->kept_up = -1;
		finish_search(CAPSTATE_STOPPED, "%s (during step %d)",
		    cap.stop_why, s->n);
		return;
	}
	if (v.cause == VERDICT_BY_REFUSED) {
		/* Its files were refused (kind denied): a setup problem, not
		 * the storage's limit, and no lower rate would help. */
		cap.dirs[cap.di].state = "failed";
		snprintf(cap.dirs[cap.di].limit_reason,
		    sizeof(cap.dirs[cap.di].limit_reason), "step %d: %s",
		    s->n, v.reason);
		next_dir();
		return;
	}
	/* Only a step that showed it kept up counts as kept up. */
	capsearch_result(&cap.cs, s->kept_up == 1 &&
	    strcmp(s->state, "done") == 0);
	capstate_judge_dir(&cap, cap.di);
	if (cap.cs.done) {
		cap.dirs[cap.di].state = "done";
		next_dir();
	} else
		caprecord_write(&cap);
}

/* From lifecycle_tick: judge the step, start the next, end the search. */
static void
capacity_tick(void)
{
	struct run *r;

	if (!cap.active)
		return;
	if (cap.preparing) {
		if (lifecycle_pending() == NULL)
			prepared();
		return;
	}
	r = lifecycle_run();
	if (cap.step_run != 0 && r != NULL && run_id(r) == cap.step_run) {
		if (run_active(r))
			watch_step(r);
		else
			step_ended(r);
		return;
	}
	if (cap.stop_requested || lifecycle_shutting_down()) {
		finish_search(CAPSTATE_STOPPED, "%s", cap.stop_why[0] ?
		    cap.stop_why : "stressd is shutting down");
		return;
	}
	start_step();
}

/* status/stats' "capacity": the search running now, or null. */
static json_object *
capacity_status_json(void)
{
	json_object *o;

	if (!cap.active)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_int64(cap.id));
	json_object_object_add(o, "capacity_id", json_object_new_int64(cap.id));
	json_object_object_add(o, "state",
	    json_object_new_string(capstate_name(cap.state)));
	json_object_object_add(o, "dir_index", json_object_new_int64(
	    (int64_t)cap.di));
	json_object_object_add(o, "ndirs", json_object_new_int64(
	    (int64_t)cap.o.ndirs));
	json_object_object_add(o, "dir", json_object_new_string(
	    cap.o.dirs[cap.di < cap.o.ndirs ? cap.di : 0]));
	/* The step running, or the next one between two. */
	json_object_object_add(o, "step", json_object_new_int(cap.nsteps +
	    1));
	json_object_object_add(o, "phase", json_object_new_string(
	    capsearch_phase_name(cap.cs.phase)));
	json_object_object_add(o, "rate", json_object_new_double(cap.cs.rate));
	json_object_object_add(o, "run_id", cap.step_run != 0 ?
	    json_object_new_int64(cap.step_run) : NULL);
	json_object_object_add(o, "kept_up_rate", cap.cs.lo > 0 ?
	    json_object_new_double(cap.cs.lo) : NULL);
	json_object_object_add(o, "behind_rate", cap.cs.hi > 0 ?
	    json_object_new_double(cap.cs.hi) : NULL);
	json_object_object_add(o, "steps_done",
	    json_object_new_int(cap.nsteps));
	return o;
}

/* The record of search id (live, or NULL when it is not this one). */
static json_object *
capacity_record_json(unsigned id)
{
	return cap.id == id && cap.id != 0 && cap.o.ndirs > 0 &&
	    !cap.no_record ?
	    caprecord_json(&cap) : NULL;
}

static bool
capacity_summary(char *buf, size_t len)
{
	char lo[48] = "", hi[48] = "";

	if (!cap.active)
		return false;
	if (cap.cs.lo > 0)
		snprintf(lo, sizeof(lo), "; kept up at %.0f", cap.cs.lo);
	if (cap.cs.hi > 0)
		snprintf(hi, sizeof(hi), "%s fell behind at %.0f",
		    cap.cs.lo > 0 ? "," : ";", cap.cs.hi);
	snprintf(buf, len, "capacity %u: dir %zu/%zu %s, step %d (%s) at %.0f "
	    "updates/s%s%s", cap.id, cap.di + 1, cap.o.ndirs,
	    cap.o.dirs[cap.di < cap.o.ndirs ? cap.di : 0], cap.nsteps + 1,
	    capsearch_phase_name(cap.cs.phase), cap.cs.rate, lo, hi);
	return true;
}

static void
capacity_finish(void)
{
	knobs_free(&cap.base);
	capopts_free(&cap.o);
	free(cap.steps);
	cap.steps = NULL;
	cap.nsteps = cap.capsteps = 0;
}

/* The search running now: where it is and its bracket. */
static void
capacity_metrics(struct evbuffer *out)
{
	static const struct {
		const char *key, *name, *help;
	} g[] = {
		{ "dir_index", "stressd_capacity_dir_index",
		  "the directory being searched, from 0" },
		{ "step", "stressd_capacity_step", "the step running, from 1" },
		{ "rate", "stressd_capacity_offered_rate",
		  "updates/s the current step offers" },
		{ "kept_up_rate", "stressd_capacity_kept_up_rate",
		  "the highest rate the directory kept up with so far" },
		{ "behind_rate", "stressd_capacity_behind_rate",
		  "the lowest rate the directory did not keep up with so far" },
	};
	json_object *st = capacity_status_json(), *v;
	char labels[1200], dir[1024];

	prom_header(out, "stressd_capacity_active", "gauge",
	    "1 while a capacity search runs");
	prom_sample(out, "stressd_capacity_active", NULL, st != NULL);
	if (st == NULL)
		return;
	json_object_object_get_ex(st, "dir", &v);
	prom_label_escape(dir, sizeof(dir), json_object_get_string(v));
	json_object_object_get_ex(st, "id", &v);
	snprintf(labels, sizeof(labels), "capacity_id=\"%d\",dir=\"%s\"",
	    json_object_get_int(v), dir);
	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		if (!json_object_object_get_ex(st, g[i].key, &v) || v == NULL)
			continue;	/* no bracket end yet */
		prom_header(out, g[i].name, "gauge", g[i].help);
		prom_sample(out, g[i].name, labels, json_object_get_double(v));
	}
	json_object_put(st);
}

/* The search takes an id of its own for its record; its first step is
 * prepared by the tick that follows. */
static int
capacity_start(struct request_args *a, int update_fd)
{
	/* capreq.c refuses update_fd: a search replays no passed file. */
	if (update_fd != -1)
		close(update_fd);
	return start_search(lifecycle_take_id(), &a->params, &a->cap);
}

static json_object *
capacity_stop_reply(bool wait)
{
	json_object *res;

	if (wait && cap.active)
		return NULL;
	res = json_object_new_object();
	json_object_object_add(res, "capacity_id", json_object_new_int64(cap.id));
	json_object_object_add(res, "state", json_object_new_string(cap.active ?
	    "stopping" : "stopped"));
	return res;
}

static void
capacity_busy(char *buf, size_t len)
{
	snprintf(buf, len, "capacity search %u is running; stop it or wait "
	    "for it first", cap.id);
}

static void
capacity_recover_records(const char *state_dir, const struct config *cfg)
{
	(void)cfg;
	caprecord_recover(state_dir);
}

const struct job_kind capacity_kind = {
	.name = "capacity",
	.record_file = "capacity.json",
	.start = capacity_start,
	.active = capacity_active,
	.tick = capacity_tick,
	.stop = capacity_stop,
	.stop_reply = capacity_stop_reply,
	.busy = capacity_busy,
	.status_json = capacity_status_json,
	.record_json = capacity_record_json,
	.summary = capacity_summary,
	.metrics = capacity_metrics,
	.recover = capacity_recover_records,
	.finish = capacity_finish,
};
