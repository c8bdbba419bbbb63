/* A run's views: the `stats` and `status` objects, report.json and the
 * one-line summary. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpustat.h"
#include "hist.h"
#include "knobs.h"
#include "latwin.h"
#include "loadgen.h"
#include "log.h"
#include "queue.h"
#include "report.h"
#include "rrdcc.h"
#include "rrdfile.h"
#include "runpriv.h"
#include "sampler.h"
#include "stats.h"
#include "stresslog.h"
#include "util.h"
#include "verdict.h"

/* A run's verdict as of now (the end of a run that ended), and the
 * points it was judged on (*pts, the caller frees). */
struct run_verdict {
	struct verdict_input	 in;
	struct verdict		 v;
	struct steady_point	*pts;
};

/* enqueue_to_persist p99 in ms, or -1 before the first write. */
double
runview_e2p_p99_ms(const struct hist *h)
{
	return hist_count(h) > 0 ? (double)hist_percentile(h, 99) / 1e6 : -1;
}

/* The verdict's latency_since: enqueue_to_persist of the values
 * persisted since t s (verdict.h). */
static bool
latency_since(void *arg, double t, double *from_s, double *p50_ms,
    double *p99_ms)
{
	struct run *r = arg;
	bool any;

	pthread_mutex_lock(&r->lat.mu);
	latwin_since(&r->lat.win, r->lat.e2p, t, r->lat.win_copy, from_s);
	any = hist_count(r->lat.win_copy) > 0;
	*p50_ms = (double)hist_percentile(r->lat.win_copy, 50) / 1e6;
	*p99_ms = (double)hist_percentile(r->lat.win_copy, 99) / 1e6;
	pthread_mutex_unlock(&r->lat.mu);
	return any;
}

void
runview_verdict_input(struct run *r, const struct queue_counters *c,
    uint64_t generated, double p99_ms, double now, struct verdict_input *in,
    struct steady_point **pts)
{
	const struct sampler *s = &r->sampler;
	uint64_t kinds[RRDFILE_NKINDS];
	size_t col = 0;

	memset(in, 0, sizeof(*in));
	while (col < s->ncols &&
	    strcmp(s->cols[col]->name, "significant_ops_pending") != 0)
		col++;
	*pts = s->n > 0 && col < s->ncols ? calloc(s->n, sizeof(**pts)) :
	    NULL;
	for (size_t i = 0; *pts != NULL && i < s->n; i++) {
		(*pts)[i].t = s->buf[i].t;
		(*pts)[i].y = (double)s->buf[i].v[col];
	}
	in->pts = *pts;
	in->npts = *pts != NULL ? s->n : 0;
	in->load_from_s = r->load_start_mono > 0 ?
	    r->load_start_mono - r->start_mono : -1;
	in->load_to_s = (r->load_end_mono > 0 ? r->load_end_mono : now) -
	    r->start_mono;
	in->files = r->p.files;
	in->significant_share = c->enqueued > 0 ?
	    (double)c->significant_ops_enqueued / (double)c->enqueued : 0;
	in->dropped = c->dropped;
	in->failed = c->updates_failed + c->creates_failed;
	in->generated = generated;
	/* until_steady: its limit, at the same rate */
	in->max_updates = loadgen_limit(&r->p);
	in->stopped_early = (r->stop_requested || r->failed ||
	    (!run_active(r) && r->until_ended == RUN_UNTIL_NOT)) &&
	    generated < in->max_updates;
	in->flat_out = r->p.update_time <= 0;
	in->update_time = r->p.until_steady <= 0 ? r->p.update_time :
	    r->p.update_time * (double)in->max_updates /
	    (double)r->p.max_updates;
	in->no_queue = !r->p.use_queue;
	in->generator_waits = c->generator_waits;
	in->generator_wait_s = (double)c->generator_wait_ms / 1000;
	run_errors_by_kind(r, kinds);
	for (int i = 0; i < RRDFILE_NKINDS; i++)
		in->errors += kinds[i];
	in->denied = kinds[RRDFILE_DENIED];
	in->latency_p99_ms = p99_ms;
	in->latency_bound_ms = 1000 * (r->p.latency_bound > 0 ?
	    r->p.latency_bound : (double)r->p.step);
	in->latency_since = latency_since;
	in->latency_arg = r;
	in->sample_interval = r->p.sample_interval;
	in->sync_none = r->p.sync == KNOBS_SYNC_NONE && r->cc.conn == NULL;
	in->run_bytes = r->file_bytes * r->p.files;
	in->mem_available = r->mem_available;
}

/* A capacity step's record is judged as its search judged the step. */
static void
verdict_of(struct run *r, const struct queue_counters *c, uint64_t generated,
    double p99_ms, double now, struct run_verdict *rv)
{
	runview_verdict_input(r, c, generated, p99_ms, now, &rv->in, &rv->pts);
	if (r->cap_id != 0)
		rv->in.settle_s = r->cap_settle_s;
	verdict_compute(&rv->in, &rv->v);
}

/* The record's inputs, from the live queue or the final numbers; c, msgs
 * and slog (freed by the caller) are the caller's storage. */
static void
report_input_of(struct run *r, struct report_input *in,
    struct queue_counters *c, const char **msgs, struct run_verdict *rv,
    struct dist *slog)
{
	memset(in, 0, sizeof(*in));
	dist_init(slog);
	if (r->sl == NULL)
		in->stresslog_sig = &r->slog_sig;
	else if (stresslog_sig_copy(r->sl, slog) == 0)
		in->stresslog_sig = slog;
	if (r->q != NULL && run_active(r)) {
		run_snapshot(r, c);
		in->generated = r->lg != NULL ? loadgen_generated(r->lg) : 0;
		in->end_mono = c->taken_at;
	} else {
		*c = r->final;
		in->generated = r->generated;
		in->end_mono = r->end_mono;
		in->end_wall = r->end_wall;
	}
	pthread_mutex_lock(&r->lat.mu);
	hist_reset(r->lat.e2p_copy);
	hist_reset(r->lat.call_copy);
	hist_merge(r->lat.e2p_copy, r->lat.e2p);
	hist_merge(r->lat.call_copy, r->lat.call);
	hist_reset(r->lat.fsync_copy);
	hist_merge(r->lat.fsync_copy, r->lat.fsync);
	in->fdatasync_failed = r->lat.fsync_failed;
	pthread_mutex_unlock(&r->lat.mu);
	pthread_mutex_lock(&r->err.mu);
	for (unsigned i = 0; i < r->err.nkept; i++)
		msgs[i] = r->err.kept[i];	/* only ever appended */
	in->nerrors = r->err.nkept;
	memcpy(in->errors_by_kind, r->err.kinds, sizeof(in->errors_by_kind));
	pthread_mutex_unlock(&r->err.mu);
	in->id = r->id;
	in->state = run_state_name(r->state);
	in->reason = r->reason;
	in->p = &r->p;
	in->c = c;
	in->start_wall = r->start_wall;
	in->start_mono = r->start_mono;
	in->sampler = &r->sampler;
	in->enqueue_to_persist = r->lat.e2p_copy;
	in->update_call = r->lat.call_copy;
	/* null without sync=data: no fdatasync was timed, none is 0 ms */
	in->fdatasync = r->p.sync == KNOBS_SYNC_DATA ? r->lat.fsync_copy : NULL;
	in->mount = r->have_mount ? &r->mount : NULL;
	in->cold_cache = r->have_cold ? &r->cold : NULL;
	in->errors = msgs;
	in->run_dir = r->run_dir;
	in->cpu_start = &r->cpu0;
	in->cpu_end = run_active(r) ? NULL : &r->cpu1;
	if (r->cc.conn != NULL) {
		in->rrdc_start = &r->cc.start;
		in->rrdc_latest = r->cc.have_latest ? &r->cc.latest : NULL;
		in->rrdc_restarted = r->cc.restarted;
	}
	in->rrdc_flush_s = r->cc.flush_s;
	in->baseline = &r->base;
	in->cap_id = r->cap_id;
	in->cap_step = r->cap_step;
	in->cap_rate = r->cap_rate;
	in->until_max_s = r->p.until_steady;
	in->until_ended = rununtil_name(r);
	in->until_after_s = rununtil_after_s(r);
	verdict_of(r, c, in->generated,
	    runview_e2p_p99_ms(in->enqueue_to_persist), in->end_mono, rv);
	in->verdict = &rv->v;
	in->verdict_in = &rv->in;
}

/* report.json and samples.csv in the run's directory. */
void
runview_write_report(struct run *r)
{
	struct report_input in;
	struct queue_counters c;
	const char *msgs[RUN_ERRORS_KEPT];
	struct run_verdict rv;
	struct dist slog;
	char err[1024];

	report_input_of(r, &in, &c, msgs, &rv, &slog);
	if (report_write(r->run_dir, &in, err, sizeof(err)) == -1)
		log_warnx("run %u: cannot write its record: %s", r->id, err);
	free(rv.pts);
	dist_free(&slog);
	r->last_report = util_now();
}

json_object *
run_report_json(struct run *r)
{
	struct report_input in;
	struct queue_counters c;
	const char *msgs[RUN_ERRORS_KEPT];
	struct run_verdict rv;
	struct dist slog;
	json_object *o;

	if (!r->launched)
		return NULL;
	report_input_of(r, &in, &c, msgs, &rv, &slog);
	o = report_json(&in);
	free(rv.pts);
	dist_free(&slog);
	return o;
}

/* {"samples", "significant_ops_pending", "total_operations_pending"};
 * the averages are null before the first sample. */
static void
add_queue_average(json_object *o, const struct sampler *s)
{
	json_object *a = json_object_new_object();

	json_object_object_add(a, "samples",
	    json_object_new_int64((int64_t)s->sig.count));
	json_object_object_add(a, "significant_ops_pending", s->sig.count ?
	    json_object_new_double(dist_average(&s->sig)) : NULL);
	json_object_object_add(a, "total_operations_pending",
	    s->total.count ? json_object_new_double(dist_average(&s->total)) :
	    NULL);
	json_object_object_add(o, "queue_average", a);
}

static void
add_run_keys(json_object *o, const struct run *r, double now,
    uint64_t generated)
{
	double end = run_active(r) ? now : r->end_mono, ut;
	uint64_t max;

	json_object_object_add(o, "state",
	    json_object_new_string(run_state_name(r->state)));
	json_object_object_add(o, "run_id", json_object_new_int64(r->id));
	json_object_object_add(o, "elapsed_s",
	    json_object_new_double(end - r->start_mono));
	json_object_object_add(o, "generated",
	    json_object_new_int64((int64_t)generated));
	rununtil_plan(r, generated, &max, &ut);
	json_object_object_add(o, "max_updates",
	    json_object_new_int64((int64_t)max));
	/* For stressctl's headline: the pace (its ETA) and the queues on
	 * average over every sample, as report.json's queue_depth. */
	json_object_object_add(o, "update_time", json_object_new_double(ut));
	add_queue_average(o, &r->sampler);
	if (r->reason[0] != '\0')
		json_object_object_add(o, "reason",
		    json_object_new_string(r->reason));
}

/* errors_by_kind ({kind: count}, every kind) and, with messages, the
 * first error messages; r NULL: no run, all zero. */
static void
add_error_keys(json_object *o, const struct run *r, bool messages)
{
	json_object *k = json_object_new_object(), *m = NULL;
	uint64_t n[RRDFILE_NKINDS];

	memset(n, 0, sizeof(n));
	if (messages)
		m = json_object_new_array();
	if (r != NULL) {
		pthread_mutex_lock((pthread_mutex_t *)&r->err.mu);
		memcpy(n, r->err.kinds, sizeof(n));
		for (unsigned i = 0; m != NULL && i < r->err.nkept; i++)
			json_object_array_add(m,
			    json_object_new_string(r->err.kept[i]));
		pthread_mutex_unlock((pthread_mutex_t *)&r->err.mu);
	}
	for (int i = 0; i < RRDFILE_NKINDS; i++)
		json_object_object_add(k, rrdfile_kind_name(i),
		    json_object_new_int64((int64_t)n[i]));
	json_object_object_add(o, "errors_by_kind", k);
	if (m != NULL)
		json_object_object_add(o, "error_messages", m);
}

void
run_errors_by_kind(struct run *r, uint64_t n[RRDFILE_NKINDS])
{
	pthread_mutex_lock(&r->err.mu);
	memcpy(n, r->err.kinds, sizeof(r->err.kinds));
	pthread_mutex_unlock(&r->err.mu);
}

double
runview_run_p99_ms(struct run *r)
{
	double p99;

	pthread_mutex_lock(&r->lat.mu);
	p99 = runview_e2p_p99_ms(r->lat.e2p);
	pthread_mutex_unlock(&r->lat.mu);
	return p99;
}

/* The verdict so far (the final one once the run ended) of counters c;
 * rv->pts for the caller to free. */
static void
verdict_so_far(struct run *r, const struct queue_counters *c,
    uint64_t generated, struct run_verdict *rv)
{
	verdict_of(r, c, generated, runview_run_p99_ms(r), run_active(r) ?
	    c->taken_at : r->end_mono, rv);
}

static void
add_verdict_keys(json_object *o, struct run *r, const struct queue_counters *c,
    uint64_t generated)
{
	struct run_verdict rv;

	verdict_so_far(r, c, generated, &rv);
	json_object_object_add(o, "verdict", verdict_json(&rv.v));
	json_object_object_add(o, "warnings",
	    verdict_warnings_json(&rv.v, &rv.in));
	free(rv.pts);
}

/* The counters as of now, or as the run ended; *generated likewise. */
static void
counters_now(struct run *r, struct queue_counters *c, uint64_t *generated)
{
	if (run_active(r)) {
		run_snapshot(r, c);
		*generated = r->lg != NULL ? loadgen_generated(r->lg) : 0;
	} else {
		*c = r->final;
		*generated = r->generated;
	}
}

void
run_verdict_now(struct run *r, int *kept_up, size_t *nwarnings)
{
	struct queue_counters c;
	struct run_verdict rv;
	uint64_t generated;
	json_object *w;

	*kept_up = -1;
	*nwarnings = 0;
	if (!r->launched)
		return;
	counters_now(r, &c, &generated);
	verdict_so_far(r, &c, generated, &rv);
	*kept_up = rv.v.kept_up;
	w = verdict_warnings_json(&rv.v, &rv.in);
	*nwarnings = json_object_array_length(w);
	json_object_put(w);
	free(rv.pts);
}

json_object *
run_stats_json(struct run *r)
{
	struct queue_counters c;
	struct stats_rates cur, all;
	uint64_t generated;
	json_object *o;

	counters_now(r, &c, &generated);
	if (r->last_sample.taken_at > r->prev_sample.taken_at)
		stats_rates_window(&r->prev_sample, &r->last_sample, &cur);
	else
		memset(&cur, 0, sizeof(cur));
	/* A run that ended is measured to its last write, not to the tick
	 * that noticed the end. */
	stats_rates_overall(&c, run_active(r) || c.last_done == 0 ?
	    c.taken_at : c.last_done, &all);
	o = stats_to_json(&c, &cur, &all);
	add_run_keys(o, r, c.taken_at, generated);
	add_error_keys(o, r, true);
	json_object_object_add(o, "cpu", cpustat_json(&r->cpu0,
	    run_active(r) ? NULL : &r->cpu1));
	add_verdict_keys(o, r, &c, generated);
	if (r->cc.conn != NULL) {
		json_object *x = json_object_new_object();

		json_object_object_add(x, "address",
		    json_object_new_string(rrdcc_addr(r->cc.conn)));
		/* As of the latest sample: STATS is not asked per call. */
		json_object_object_add(x, "latest", r->cc.have_latest ?
		    report_rrdcached_json(&r->cc.latest) : NULL);
		json_object_object_add(x, "flushing", json_object_new_boolean(
		    r->cc.flush_start > 0 && !r->cc.flush_done));
		json_object_object_add(o, "rrdcached", x);
	}
	return o;
}

json_object *
run_idle_stats_json(void)
{
	struct queue_counters c;
	struct stats_rates z;
	json_object *o;

	memset(&c, 0, sizeof(c));
	memset(&z, 0, sizeof(z));
	o = stats_to_json(&c, &z, &z);
	json_object_object_add(o, "state", json_object_new_string("idle"));
	json_object_object_add(o, "run_id", json_object_new_int64(0));
	json_object_object_add(o, "elapsed_s", json_object_new_double(0));
	json_object_object_add(o, "generated", json_object_new_int64(0));
	json_object_object_add(o, "max_updates", json_object_new_int64(0));
	add_error_keys(o, NULL, true);
	json_object_object_add(o, "cpu", cpustat_json(NULL, NULL));
	json_object_object_add(o, "verdict", NULL);
	json_object_object_add(o, "warnings", json_object_new_array());
	return o;
}


json_object *
run_status_json(const struct run *r)
{
	json_object *o = json_object_new_object(), *msgs;

	json_object_object_add(o, "id", json_object_new_int64(r->id));
	json_object_object_add(o, "state",
	    json_object_new_string(run_state_name(r->state)));
	json_object_object_add(o, "dir", json_object_new_string(r->p.dir));
	json_object_object_add(o, "run_dir",
	    json_object_new_string(r->run_dir));
	json_object_object_add(o, "log", json_object_new_string(r->log_path));
	json_object_object_add(o, "started_at",
	    report_time_json(r->start_wall));
	json_object_object_add(o, "ended_at", report_time_json(r->end_wall));
	json_object_object_add(o, "reason", r->reason[0] ?
	    json_object_new_string(r->reason) : NULL);
	json_object_object_add(o, "params", knobs_to_json(&r->p));
	msgs = json_object_new_array();
	pthread_mutex_lock((pthread_mutex_t *)&r->err.mu);
	for (unsigned i = 0; i < r->err.nkept; i++)
		json_object_array_add(msgs,
		    json_object_new_string(r->err.kept[i]));
	pthread_mutex_unlock((pthread_mutex_t *)&r->err.mu);
	json_object_object_add(o, "error_messages", msgs);
	add_error_keys(o, r, false);
	return o;
}

void
run_summary(struct run *r, char *buf, size_t len)
{
	struct queue_counters c;

	if (r == NULL || !run_active(r)) {
		snprintf(buf, len, "idle");
		return;
	}
	run_snapshot(r, &c);
	snprintf(buf, len, "%s run %u: %llu/%llu updates, significant queue "
	    "%llu, %llu errors", run_state_name(r->state), r->id,
	    (unsigned long long)c.updates_completed,
	    (unsigned long long)loadgen_limit(&r->p),
	    (unsigned long long)c.significant_ops_pending,
	    (unsigned long long)c.errors);
}
