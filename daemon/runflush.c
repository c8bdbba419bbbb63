/* target rrdcached: its STATS for the samples and the record, and the
 * closing flush that ends the run only once rrdcached has written it. */
#include <stdio.h>

#include "log.h"
#include "queue.h"
#include "rrdcc.h"
#include "runpriv.h"
#include "util.h"

/* rrdcached's STATS into cc_latest; after a failure none is asked for
 * RUN_RRDCACHED_RETRY_S, so a dead or stalled rrdcached does not hold the
 * event loop at every sample.  0, or -1. */
int
runflush_poll(struct run *r)
{
	struct rrdcc_stats st;
	char err[1024];
	double now = util_now();

	if (now < r->cc.retry_at)
		return -1;
	if (rrdcc_stats(r->cc.conn, &st, err, sizeof(err)) == -1) {
		log_warnx("run %u: %s; asking again in %d s", r->id, err,
		    RUN_RRDCACHED_RETRY_S);
		r->cc.retry_at = now + RUN_RRDCACHED_RETRY_S;
		return -1;
	}
	/* A restarted rrdcached counts from 0 again: what it wrote of the
	 * run can no longer be told from DataSetsWritten. */
	if (!r->cc.restarted && (st.updates_received <
	    (r->cc.have_latest ? r->cc.latest : r->cc.start).updates_received ||
	    st.data_sets_written < r->cc.start.data_sets_written)) {
		r->cc.restarted = true;
		log_warnx("run %u: rrdcached %s restarted (its counters went "
		    "back): the closing flush can only wait for its queue to "
		    "empty", r->id, rrdcc_addr(r->cc.conn));
	}
	r->cc.latest = st;
	r->cc.have_latest = true;
	return 0;
}

/*
 * target rrdcached: the queue is drained into rrdcached, but the run is
 * only done when rrdcached has written it.  FLUSHALL, then STATS until its
 * queue is empty and DataSetsWritten has grown by every value the run
 * handed it, for at most flush_timeout seconds (a run that stops without
 * draining sends FLUSHALL but does not wait).  True when done waiting.
 */
bool
runflush_done(struct run *r)
{
	struct queue_counters c;
	uint64_t written;
	char err[1024];
	double now = util_now();

	if (r->cc.conn == NULL || r->cc.flush_done)
		return true;
	if (r->cc.flush_start == 0) {
		r->cc.flush_start = now;
		/* A FLUSHALL that got no answer in time may still have been
		 * carried out (rrdcached walks its whole cache for it): the
		 * wait below tells, within flush_timeout. */
		if (rrdcc_flushall(r->cc.conn, err, sizeof(err)) == -1)
			log_warnx("run %u: %s; waiting for rrdcached's queue "
			    "all the same", r->id, err);
		else
			log_info("run %u: FLUSHALL sent to rrdcached %s",
			    r->id, rrdcc_addr(r->cc.conn));
	}
	/* A stop without drain, or flush_timeout 0: no wait. */
	if (r->discard || r->p.flush_timeout == 0) {
		r->cc.flush_done = true;
		return true;
	}
	if (now - r->cc.flush_polled < RUN_RRDCACHED_FLUSH_POLL_S)
		return false;
	r->cc.flush_polled = now;
	run_snapshot(r, &c);
	if (runflush_poll(r) == 0) {
		written = r->cc.latest.data_sets_written -
		    r->cc.start.data_sets_written;
		if (r->cc.latest.queue_length == 0 &&
		    (r->cc.restarted || written >= c.updates_completed)) {
			r->cc.flush_s = now - r->cc.flush_start;
			r->cc.flush_done = true;
			log_info("run %u: rrdcached %s %.3f s after FLUSHALL",
			    r->id, r->cc.restarted ? "had an empty queue "
			    "(it restarted: what it wrote is not known)" :
			    "wrote everything", r->cc.flush_s);
			return true;
		}
	}
	if (now - r->cc.flush_start < r->p.flush_timeout)
		return false;
	written = r->cc.restarted ? 0 : r->cc.latest.data_sets_written -
	    r->cc.start.data_sets_written;
	snprintf(r->reason, sizeof(r->reason), "rrdcached %s had not "
	    "written the run's values %g s after FLUSHALL (flush_timeout): "
	    "DataSetsWritten grew by %llu of %llu, QueueLength %llu%s",
	    rrdcc_addr(r->cc.conn), r->p.flush_timeout,
	    (unsigned long long)written,
	    (unsigned long long)c.updates_completed,
	    (unsigned long long)r->cc.latest.queue_length,
	    !r->cc.have_latest ? " (no STATS answered)" : r->cc.restarted ?
	    " (it restarted during the run)" : "");
	log_warnx("run %u: %s", r->id, r->reason);
	r->failed = true;
	r->cc.flush_done = true;
	return true;
}
