/* The run lifecycle; see lifecycle.h. */
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <event2/event.h>

#include "fdreserve.h"
#include "job.h"
#include "lifecycle.h"
#include "log.h"
#include "proto.h"
#include "queue.h"
#include "rrdcc.h"
#include "run.h"
#include "runrecords.h"
#include "runsindex.h"
#include "util.h"

static struct {
	char		 state_dir[4096];
	char		 socket_path[4096];
	double		 started;
	unsigned	 next_id;
	struct run	*run;		/* the current or the last run */
	struct run	*pending;	/* being prepared; becomes run */
	struct event	*sample_ev;	/* samples the current run */
	bool		 cancel_pending;/* stop came while preparing */
	bool		 shutting_down;	/* SIGTERM/SIGINT: no new runs */
	const struct config *cfg;	/* profiles, allowed_dirs, defaults */
	char		 refusal[PROTO_MAX_RUN_ERROR];	/* the last one */
	char		 refusal_field[64];
	const char	*refusal_code;	/* PROTO_ERR_* */
	/* The pending run's threads, for its descriptor reserve. */
	unsigned	 write_threads, threads;
	bool		 use_queue;
} d;

static void
on_sample(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	if (d.run != NULL)
		run_sample(d.run);
}

int
lifecycle_init(struct event_base *base, const char *state_dir,
    const char *socket_path)
{
	if ((d.sample_ev = event_new(base, -1, EV_PERSIST, on_sample,
	    NULL)) == NULL)
		return -1;
	snprintf(d.state_dir, sizeof(d.state_dir), "%s", state_dir);
	snprintf(d.socket_path, sizeof(d.socket_path), "%s", socket_path);
	if (runrecords_init(state_dir) == -1 ||
	    runrecords_lock(state_dir) == -1)
		return -1;
	d.next_id = runrecords_highest_id(state_dir) + 1;
	d.started = util_now();
	return 0;
}

void
lifecycle_finish(void)
{
	job_finish();
	run_free(d.pending);
	run_free(d.run);
	d.pending = d.run = NULL;
	if (d.sample_ev != NULL)
		event_free(d.sample_ev);
	d.sample_ev = NULL;
	runrecords_unlock();
}

void
lifecycle_set_config(const struct config *cfg)
{
	d.cfg = cfg;
}

const struct config *
lifecycle_config(void)
{
	return d.cfg;
}

const char *
lifecycle_state_dir(void)
{
	return d.state_dir;
}

const char *
lifecycle_socket_path(void)
{
	return d.socket_path;
}

unsigned
lifecycle_next_id(void)
{
	return d.next_id;
}

unsigned
lifecycle_take_id(void)
{
	return d.next_id++;
}

const char *
lifecycle_refusal(const char **field, const char **code)
{
	*field = d.refusal_field;
	if (code != NULL)
		*code = d.refusal_code != NULL ? d.refusal_code : PROTO_ERR_NO_RUN;
	return d.refusal;
}

double
lifecycle_started(void)
{
	return d.started;
}

struct run *
lifecycle_run(void)
{
	return d.run;
}

struct run *
lifecycle_pending(void)
{
	return d.pending;
}

json_object *
lifecycle_stats_json(void)
{
	return d.run != NULL ? run_stats_json(d.run) : run_idle_stats_json();
}

int
lifecycle_prepare(const struct stress_params *p, int update_fd)
{
	if (d.next_id > RUNRECORDS_MAX_ID) {	/* a job's later run */
		log_warnx("no run id left: ids end at %u", RUNRECORDS_MAX_ID);
		return -1;
	}
	d.pending = run_prepare(d.next_id, d.state_dir, d.cfg, p, update_fd);
	d.write_threads = (unsigned)p->write_threads;
	d.threads = (unsigned)p->threads;
	d.use_queue = p->use_queue;
	return d.pending != NULL ? 0 : -1;
}

void
lifecycle_cancel_pending(void)
{
	d.cancel_pending = true;
	run_cancel_setup(d.pending);
}

/* A prepared run either becomes the current run or is refused; the job
 * that prepared it hears which. */
static void
launch_pending(void)
{
	struct run *r = d.pending;
	const char *field;
	char err[PROTO_MAX_RUN_ERROR];
	struct timeval tv;

	d.pending = NULL;
	/* A stop or a signal while preparing: the run never starts (its
	 * queued creates included). */
	if (d.cancel_pending || d.shutting_down) {
		snprintf(d.refusal, sizeof(d.refusal), "%s", d.shutting_down ?
		    "stressd is shutting down; the run was not started" :
		    "the run was stopped before it started");
		d.refusal_field[0] = '\0';
		d.refusal_code = PROTO_ERR_NO_RUN;
		d.cancel_pending = false;
		goto refused;
	}
	/* Its writers' descriptors before any writer starts. */
	if (fdreserve_take(d.write_threads, d.threads, d.use_queue,
	    &d.refusal_code, &field, d.refusal, sizeof(d.refusal)) == -1) {
		snprintf(d.refusal_field, sizeof(d.refusal_field), "%s", field);
		log_warnx("run %u refused: %s", d.next_id, d.refusal);
		goto refused;
	}
	if (run_launch(r, &field, err, sizeof(err)) == -1) {
		fdreserve_release();
		snprintf(d.refusal, sizeof(d.refusal), "%s", err);
		/* Copied: the field may be the freed run's. */
		snprintf(d.refusal_field, sizeof(d.refusal_field), "%s",
		    field != NULL ? field : "");
		d.refusal_code = PROTO_ERR_BAD_ARGUMENT;
		goto refused;
	}
	d.next_id++;
	run_free(d.run);
	d.run = r;
	runsindex_touch(run_id(r));	/* runs lists it from now on */
	job_run_event(JOB_RUN_LAUNCHED);
	/* The sampler is a timer of the event loop: a snapshot is a short
	 * lock of the queue, no thread of its own. */
	tv.tv_sec = (time_t)run_sample_interval(r);
	tv.tv_usec = (suseconds_t)((run_sample_interval(r) - (double)tv.tv_sec) *
	    1e6);
	event_add(d.sample_ev, &tv);
	return;
refused:
	run_free(r);
	job_run_event(JOB_RUN_REFUSED);
}

void
lifecycle_tick(void)
{
	if (d.pending != NULL && run_prepared(d.pending))
		launch_pending();
	if (d.run != NULL && run_active(d.run) && run_tick(d.run)) {
		event_del(d.sample_ev);
		/* Its report.json is final: the index's copy of it. */
		runsindex_reload(d.state_dir, run_id(d.run));
		fdreserve_release();	/* its threads are joined */
		job_run_event(JOB_RUN_ENDED);
	}
	job_tick();
}

void
lifecycle_shutdown(bool drain, const char *why)
{
	d.shutting_down = true;	/* a pending run is refused, not started */
	run_cancel_setup(d.pending);
	/* The job stops its run; a run no job holds (none should be) is
	 * stopped here. */
	if (job_active())
		job_stop(drain, why);
	else if (run_active(d.run))
		run_stop(d.run, drain, why);
}

bool
lifecycle_shutting_down(void)
{
	return d.shutting_down;
}

bool
lifecycle_quiescent(void)
{
	return d.pending == NULL && !run_active(d.run) && !job_active();
}

uint64_t
lifecycle_updates_done(void)
{
	struct queue_counters c;
	struct rrdcc_stats st;

	if (d.run == NULL)
		return 0;
	run_counters(d.run, &c);
	/* With an rrdcached target the drain ends with its flush: values
	 * it writes are progress too. */
	return c.updates_completed + c.updates_failed +
	    (run_rrdcached_stats(d.run, &st) ? st.data_sets_written : 0);
}

bool
lifecycle_stuck(double limit)
{
	return (d.run != NULL && run_stuck(d.run, limit)) ||
	    (d.pending != NULL && run_stuck(d.pending, limit));
}

void
lifecycle_summary(char *buf, size_t len)
{
	if (!job_summary(buf, len))
		run_summary(d.run, buf, len);
}
