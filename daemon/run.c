/* One run's lifecycle: the writers' hooks, launch, the state machine and
 * the end of a run.  Setup is in runsetup.c, the rrdcached target's flush
 * in runflush.c, the views in runview.c; the struct in runpriv.h. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>	/* malloc_trim */
#endif

#include "cpustat.h"
#include "hist.h"
#include "latwin.h"
#include "loadgen.h"
#include "log.h"
#include "memcap.h"
#include "metricsrrd.h"
#include "policy.h"
#include "queue.h"
#include "report.h"
#include "rrdcc.h"
#include "rrdfile.h"
#include "run.h"
#include "runpriv.h"
#include "sampler.h"
#include "stresslog.h"
#include "util.h"
#include "writer.h"

const char *
run_state_name(enum run_state s)
{
	static const char *const names[] = {
		"idle", "creating", "running", "draining", "done", "stopped",
		"failed"
	};

	return names[s];
}

/* Every change of a run's phase goes through here (--log-level debug). */
static void
set_phase(struct run *r, enum run_state s)
{
	bool changed = r->state != s;

	if (changed)
		log_debug("run %u: phase %s -> %s", r->id,
		    run_state_name(r->state), run_state_name(s));
	r->state = s;
	/* A checkpoint at each change while active, so a crash's record
	 * names the phase it came in (finish writes the final one). */
	if (changed && r->launched && run_active(r))
		runview_write_report(r);
}

/* ------------------------------------------------------------ hooks */

/* Keep and log one of the run's first RUN_ERRORS_KEPT messages; later ones
 * are only counted by the caller.  Called with err_mu held. */
static void
keep_message(struct run *r, const char *msg)
{
	if (r->err.nkept >= RUN_ERRORS_KEPT)
		return;
	snprintf(r->err.kept[r->err.nkept++], sizeof(r->err.kept[0]), "%s",
	    msg);
	log_warnx("run %u: %s", r->id, msg);
	if (r->err.nkept == RUN_ERRORS_KEPT)
		log_warnx("run %u: further errors are only counted", r->id);
}

static void
on_error(void *arg, enum rrdfile_kind kind, const char *msg)
{
	struct run *r = arg;
	double now = util_now();

	pthread_mutex_lock(&r->err.mu);
	r->err.kinds[(unsigned)kind < RRDFILE_NKINDS ? kind : RRDFILE_OTHER]++;
	if (r->err.fail_since == 0) {
		r->err.fail_since = now;
		snprintf(r->err.fail_first, sizeof(r->err.fail_first), "%s",
		    msg);
	}
	r->err.fail_last = now;
	keep_message(r, msg);
	if (kind == RRDFILE_OTHER && !r->err.other_logged) {
		r->err.other_logged = true;
		log_warnx("run %u: an error of no known kind (other): %s",
		    r->id, msg);
	}
	pthread_mutex_unlock(&r->err.mu);
}

static void
on_call_time(void *arg, uint64_t ns)
{
	struct run *r = arg;

	pthread_mutex_lock(&r->lat.mu);
	hist_record(r->lat.call, ns);
	pthread_mutex_unlock(&r->lat.mu);
}

/* A failed fdatasync is no failed write (the values landed in the file):
 * it is counted apart, and its message kept and logged like an error's. */
static void
on_sync_time(void *arg, uint64_t ns, const char *err)
{
	struct run *r = arg;

	pthread_mutex_lock(&r->lat.mu);
	if (err == NULL)
		hist_record(r->lat.fsync, ns);
	else
		r->lat.fsync_failed++;
	pthread_mutex_unlock(&r->lat.mu);
	if (err == NULL)
		return;
	pthread_mutex_lock(&r->err.mu);
	keep_message(r, err);
	pthread_mutex_unlock(&r->err.mu);
}

static void
on_persisted(void *arg, uint64_t ns)
{
	struct run *r = arg;

	pthread_mutex_lock(&r->lat.mu);
	hist_record(r->lat.e2p, ns);
	pthread_mutex_unlock(&r->lat.mu);
}

/* A stats block each time the generators have offered another `modulus`
 * updates, as the original: it counts an update once the queue has taken
 * it and samples the queue then (called by the generator that got there). */
static void
on_offered(void *arg, uint64_t offered)
{
	struct run *r = arg;

	(void)offered;
	stresslog_block(r->sl, r->q);
}

/* The end of the verdict's load phase: generation done or stopped. */
static void
end_load(struct run *r)
{
	if (r->load_start_mono > 0 && r->load_end_mono == 0)
		r->load_end_mono = util_now();
}

static void
start_load(struct run *r)
{
	r->lg = loadgen_start(r->q, &r->p, r->replay, r->nreplay, &r->hooks);
	if (r->lg == NULL) {
		snprintf(r->reason, sizeof(r->reason),
		    "cannot start generator threads");
		set_phase(r, RUN_DRAINING);
		r->failed = true;
		return;
	}
	r->load_start_mono = util_now();
	set_phase(r, RUN_RUNNING);
	log_info("run %u: running; generator threads: %llu", r->id,
	    (unsigned long long)r->p.threads);
}

struct run *
run_prepare(unsigned id, const char *state_dir, const struct config *cfg,
    const struct stress_params *p, int update_fd)
{
	struct run *r = calloc(1, sizeof(*r));

	if (r == NULL) {
		if (update_fd != -1)
			close(update_fd);
		return NULL;
	}
	r->setup.update_fd = update_fd;	/* run_free closes it if unread */
	confine_dir_init(&r->dir);
	r->hooks.dir = &r->dir;
	pthread_mutex_init(&r->err.mu, NULL);
	r->id = id;
	r->state = RUN_CREATING;
	r->cc.flush_s = -1;
	pthread_mutex_init(&r->lat.mu, NULL);
	latwin_init(&r->lat.win);
	r->hooks.error = on_error;
	r->hooks.offered = on_offered;
	r->hooks.call_time = on_call_time;
	r->hooks.persisted = on_persisted;
	r->hooks.sync_time = on_sync_time;
	r->hooks.arg = r;
	snprintf(r->state_dir, sizeof(r->state_dir), "%s", state_dir);
	cpustat_read(&r->cpu0);	/* before setup: its thread counts */
	if ((r->lat.e2p = hist_create()) == NULL ||
	    (r->lat.call = hist_create()) == NULL ||
	    (r->lat.e2p_copy = hist_create()) == NULL ||
	    (r->lat.call_copy = hist_create()) == NULL ||
	    (r->lat.fsync = hist_create()) == NULL ||
	    (r->lat.fsync_copy = hist_create()) == NULL ||
	    (r->lat.win_copy = hist_create()) == NULL ||
	    sampler_init(&r->sampler) == -1 || knobs_copy(&r->p, p) == -1 ||
	    (r->allowed = policy_dirs_copy(cfg)) == NULL ||
	    runsetup_start(r) == -1) {
		run_free(r);
		return NULL;
	}
	return r;
}

void
run_cancel_setup(struct run *r)
{
	if (r != NULL)
		atomic_store(&r->setup.cancel, true);
}

bool
run_prepared(const struct run *r)
{
	return atomic_load(&((struct run *)r)->setup.done);
}

int
run_launch(struct run *r, const char **field, char *err, size_t errlen)
{
	pthread_join(r->setup.thread, NULL);
	r->setup.joinable = false;
	*field = NULL;
	if (r->setup.rc == -1) {
		*field = r->setup.field;
		snprintf(err, errlen, "%s", r->setup.err);
		return -1;
	}
	if ((r->wp = writer_pool_start(r->q, &r->p,
	    (unsigned)r->p.write_threads, NULL, &r->hooks)) == NULL) {
		*field = "write_threads";
		snprintf(err, errlen, "cannot start %llu writer threads",
		    (unsigned long long)r->p.write_threads);
		return -1;
	}
	r->launched = true;
	/* From here on it serves the event loop: a stalled rrdcached may
	 * hold a sample (or the end of the run) only this long. */
	if (r->cc.conn != NULL)
		rrdcc_set_timeout(r->cc.conn, RUN_RRDCACHED_POLL_MS, false);
	log_info("run %u: %llu files in %s (%llu to create), %llu updates, "
	    "%llu writers", r->id, (unsigned long long)r->p.files, r->p.dir,
	    (unsigned long long)r->missing,
	    (unsigned long long)r->p.max_updates,
	    (unsigned long long)r->p.write_threads);
	if (!r->p.queue_creates && r->missing > 0)
		r->state = RUN_CREATING;	/* the creates are queued */
	else
		start_load(r);
	return 0;
}

/* ------------------------------------------------------------ lifecycle */

/* The queue's counters, with the run's own share of them. */
void
run_snapshot(struct run *r, struct queue_counters *c)
{
	queue_snapshot(r->q, c);
	c->dropped_at_shutdown = r->shutdown_discard ?
	    c->discarded - r->discarded_before_shutdown : 0;
}

bool
run_stuck(struct run *r, double limit)
{
	if (writer_busy_stuck(&r->setup.busy, 1, limit))
		return true;
	if (!r->launched || !run_active(r))
		return false;
	return writer_pool_stuck(r->wp, limit) ||
	    (r->lg != NULL && loadgen_stuck(r->lg, limit));
}

void
run_counters(struct run *r, struct queue_counters *c)
{
	if (r->q != NULL && run_active(r))
		run_snapshot(r, c);
	else
		*c = r->final;
}

void
run_latency(struct run *r, struct hist *enqueue_to_persist,
    struct hist *update_call)
{
	pthread_mutex_lock(&r->lat.mu);
	hist_merge(enqueue_to_persist, r->lat.e2p);
	hist_merge(update_call, r->lat.call);
	pthread_mutex_unlock(&r->lat.mu);
}

void
run_sync_latency(struct run *r, struct hist *fdatasync)
{
	pthread_mutex_lock(&r->lat.mu);
	hist_merge(fdatasync, r->lat.fsync);
	pthread_mutex_unlock(&r->lat.mu);
}

bool
run_rrdcached_stats(const struct run *r, struct rrdcc_stats *st)
{
	if (r == NULL || r->cc.conn == NULL || !r->cc.have_latest)
		return false;
	*st = r->cc.latest;
	return true;
}

const char *
run_fs_type(const struct run *r)
{
	return r->have_mount ? r->mount.fs_type : "";
}

const char *
run_target_dir(const struct run *r)
{
	return r->p.dir;
}

/* Every discard is in the reason with what it threw away (the reason
 * says why: the stop, the shutdown, the failure). */
static void
note_discards(struct run *r)
{
	size_t len = strlen(r->reason);

	if (r->final.discarded == 0 && r->final.creates_discarded == 0)
		return;
	snprintf(r->reason + len, sizeof(r->reason) - len, "%sdiscarded %llu "
	    "update values and %llu queued creates", len > 0 ? "; " : "",
	    (unsigned long long)r->final.discarded,
	    (unsigned long long)r->final.creates_discarded);
}

/* What the run's threads freed sits in glibc's arenas (one per writer
 * and generator): hand it back to the system, so the memory a run held
 * is not kept by an idle daemon, nor counted against a cap. */
static void
give_back(struct run *r)
{
#ifdef __GLIBC__
	uint64_t before = memcap_held();

	malloc_trim(0);
	log_debug("run %u: memory given back: resident %.1f MiB, was %.1f",
	    r->id, (double)memcap_held() / 1048576.0,
	    (double)before / 1048576.0);
#else
	(void)r;
#endif
}

static void
finish(struct run *r, enum run_state final)
{
	end_load(r);
	queue_close(r->q);
	if (r->lg != NULL) {
		loadgen_stop(r->lg);
		r->generated = loadgen_generated(r->lg);
		loadgen_join(r->lg);
		r->lg = NULL;
	}
	writer_pool_join(r->wp);
	r->wp = NULL;
	/* No generator is left to replay the values: they go now, not when
	 * the next run replaces this one (a 64 MiB update file's held 128
	 * MiB between runs). */
	free(r->replay);
	r->replay = NULL;
	r->nreplay = 0;
	confine_dir_teardown(&r->dir);
	if (r->cc.conn != NULL) {
		r->cc.retry_at = 0;	/* the record's last word */
		runflush_poll(r);
	}
	cpustat_read(&r->cpu1);
	cpustat_close();
	run_snapshot(r, &r->final);
	note_discards(r);
	/* A run that ended early keeps its last state; a done one has had
	 * its max_updates / modulus blocks (none for the drained queue). */
	if (final != RUN_DONE)
		stresslog_block(r->sl, r->q);
	stresslog_line(r->sl, "# run %u %s%s%s", r->id, run_state_name(final),
	    r->reason[0] ? ": " : "", r->reason);
	stresslog_close(r->sl, &r->slog_sig);
	r->sl = NULL;
	queue_destroy(r->q);
	r->q = NULL;
	r->end_mono = util_now();
	r->end_wall = time(NULL);
	set_phase(r, final);
	runview_write_report(r);
	log_info("run %u %s: %llu updates completed, %llu failed, %llu "
	    "dropped, %llu errors%s%s", r->id, run_state_name(final),
	    (unsigned long long)r->final.updates_completed,
	    (unsigned long long)r->final.updates_failed,
	    (unsigned long long)r->final.dropped,
	    (unsigned long long)r->final.errors,
	    r->reason[0] ? ": " : "", r->reason);
	give_back(r);
}

/*
 * fail_after: true once writes have been failing, none landing, for
 * fail_after seconds, with the last failure within them (a queue gone
 * idle is not failing).  Failures are timed by on_error, landed writes
 * (updates and creates) seen in the counters at each tick.
 */
static bool
failing_too_long(struct run *r)
{
	struct queue_counters c;
	uint64_t ok;
	double now;
	bool due = false;

	if (r->p.fail_after <= 0 || r->failed || r->q == NULL)
		return false;
	queue_snapshot(r->q, &c);
	ok = c.updates_completed + c.creates_completed;
	now = util_now();
	pthread_mutex_lock(&r->err.mu);
	if (ok != r->err.ok_seen) {
		r->err.ok_seen = ok;
		r->err.fail_since = 0;
	} else if (r->err.fail_since > 0 &&
	    now - r->err.fail_since >= r->p.fail_after &&
	    now - r->err.fail_last <= r->p.fail_after) {
		snprintf(r->reason, sizeof(r->reason), "every write failed "
		    "for %g s; first error: %s", r->p.fail_after,
		    r->err.fail_first);
		due = true;
	}
	pthread_mutex_unlock(&r->err.mu);
	return due;
}

bool
run_tick(struct run *r)
{
	struct queue_counters c;

	if (r->launched && run_active(r) &&
	    util_now() - r->last_report >= REPORT_REFRESH_S)
		runview_write_report(r);

	/* As a stop without drain, but the run ends failed. */
	if (r->launched && run_active(r) && failing_too_long(r)) {
		log_warnx("run %u: %s", r->id, r->reason);
		r->failed = true;
		run_stop(r, false, NULL);
	}

	switch (r->state) {
	case RUN_CREATING:
		run_snapshot(r, &c);
		if (c.creates_pending > 0)
			return false;
		if (c.creates_completed == 0) {
			pthread_mutex_lock(&r->err.mu);
			snprintf(r->reason, sizeof(r->reason),
			    "every create failed; first error: %s",
			    r->err.nkept > 0 ? r->err.kept[0] :
			    "none recorded");
			pthread_mutex_unlock(&r->err.mu);
			finish(r, RUN_FAILED);
			return true;
		}
		/* sync drop-caches: the new files are evicted first. */
		if (!runsetup_cold_ready(r, false))
			return false;
		start_load(r);
		return false;
	case RUN_RUNNING:
		if (loadgen_finished(r->lg)) {
			rununtil_loaded(r);
			end_load(r);
			set_phase(r, RUN_DRAINING);
		}
		return false;
	case RUN_DRAINING:
		if (r->discard)
			queue_discard(r->q);
		/* A stop during that eviction ends it early. */
		if (!runsetup_cold_ready(r, true))
			return false;
		if (r->lg != NULL && !loadgen_finished(r->lg))
			return false;
		if (!queue_idle(r->q) || !runflush_done(r))
			return false;
		finish(r, r->failed ? RUN_FAILED : r->stop_requested ?
		    RUN_STOPPED : RUN_DONE);
		return true;
	default:
		return false;
	}
}

void
run_stop(struct run *r, bool drain, const char *why)
{
	if (!run_active(r))
		return;
	r->stop_requested = true;
	/* A second stop may make a drain a discard, never the reverse. */
	r->discard |= !drain;
	if (why == NULL && !r->failed)
		snprintf(r->reason, sizeof(r->reason), "stopped by a client's "
		    "stop%s", r->discard ? " --no-drain" : " (queue drained)");
	if (why != NULL) {
		/* A failed run keeps its reason: the shutdown is not why;
		 * nor does a draining shutdown after a discard say why. */
		if (!r->failed && !(drain && r->discard))
			snprintf(r->reason, sizeof(r->reason), "%s", why);
		if (!drain && !r->shutdown_discard) {
			struct queue_counters c;

			queue_snapshot(r->q, &c);
			r->discarded_before_shutdown = c.discarded;
			r->shutdown_discard = true;
		}
	}
	if (r->lg != NULL)
		loadgen_stop(r->lg);
	end_load(r);
	if (!drain) {
		queue_discard(r->q);
		/* A writer inside a slow rrdcached reply must not hold the
		 * discard up to its deadline. */
		if (r->cc.conn != NULL)
			rrdcc_abort_all();
	}
	set_phase(r, RUN_DRAINING);
	log_info("run %u: stopping, %s", r->id,
	    r->discard ? "discarding the queue" : "draining the queue");
}

void
run_sample(struct run *r)
{
	struct queue_counters c;
	uint64_t rq = UINT64_MAX;
	char err[1024];
	time_t now;
	int lat_ok;

	if (!r->launched || !run_active(r))
		return;
	run_snapshot(r, &c);
	sampler_add(&r->sampler, c.taken_at - r->start_mono, &c);
	r->prev_sample = r->last_sample;
	r->last_sample = c;
	rununtil_check(r, &c);
	/* the same instant as the sample: its latency since then */
	pthread_mutex_lock(&r->lat.mu);
	lat_ok = latwin_add(&r->lat.win, c.taken_at - r->start_mono,
	    r->lat.e2p);
	pthread_mutex_unlock(&r->lat.mu);
	if (lat_ok == -1)
		log_warnx("run %u: out of memory for a latency snapshot", r->id);
	if (r->cc.conn != NULL) {
		if (runflush_poll(r) == 0)
			rq = r->cc.latest.queue_length;
		sampler_add_rrdcached(&r->sampler, rq != UINT64_MAX ?
		    &r->cc.latest : NULL);
	}
	now = time(NULL);
	if (r->metrics_last != 0 && now > r->metrics_last) {
		/* librrd takes one update per second: samples in between
		 * are in the history, not the RRD. */
		if (metricsrrd_update(r->metrics_path, now, &c, rq, err,
		    sizeof(err)) == 0)
			r->metrics_last = now;
		else {
			log_warnx("run %u: metrics.rrd no longer updated: %s",
			    r->id, err);
			r->metrics_last = 0;
		}
	}
}

double
run_sample_interval(const struct run *r)
{
	return r->p.sample_interval;
}

enum run_state
run_state(const struct run *r)
{
	return r == NULL ? RUN_IDLE : r->state;
}

bool
run_active(const struct run *r)
{
	return r != NULL && r->state >= RUN_CREATING &&
	    r->state <= RUN_DRAINING;
}

unsigned
run_id(const struct run *r)
{
	return r == NULL ? 0 : r->id;
}

int
run_reopen_log(struct run *r)
{
	if (r == NULL || r->sl == NULL)
		return 0;
	if (stresslog_reopen(r->sl) == -1) {
		log_warn("SIGHUP: cannot reopen %s; still writing the old file",
		    r->log_path);
		return -1;
	}
	log_info("SIGHUP: reopened %s", r->log_path);
	return 0;
}

void
run_free(struct run *r)
{
	if (r == NULL)
		return;
	atomic_store(&r->setup.cancel, true);	/* an eviction pass */
	if (r->setup.joinable)
		pthread_join(r->setup.thread, NULL);
	cpustat_close();	/* also for a run refused before it started */
	if (r->launched && run_active(r)) {
		run_stop(r, false, "the daemon exited");
		finish(r, RUN_STOPPED);
	}
	if (r->q != NULL) {
		/* a run refused before it started */
		queue_close(r->q);
		writer_pool_join(r->wp);
		queue_destroy(r->q);
	}
	stresslog_close(r->sl, NULL);
	dist_free(&r->slog_sig);
	confine_dir_teardown(&r->dir);
	policy_dirs_free(r->allowed);
	knobs_free(&r->p);
	sampler_free(&r->sampler);
	hist_destroy(r->lat.e2p);
	hist_destroy(r->lat.call);
	hist_destroy(r->lat.e2p_copy);
	hist_destroy(r->lat.call_copy);
	hist_destroy(r->lat.fsync);
	hist_destroy(r->lat.fsync_copy);
	hist_destroy(r->lat.win_copy);
	latwin_free(&r->lat.win);
	rrdcc_free(r->cc.conn);
	pthread_mutex_destroy(&r->lat.mu);
	free(r->replay);
	free(r->base_last);
	if (r->setup.update_fd != -1)
		close(r->setup.update_fd);
	pthread_mutex_destroy(&r->err.mu);
	free(r);
}
