/* The queue's producer side: offering updates (timestamps, high-water
 * drops, the wait at memory_max) and queuing creates; see queue.h. */
#include <pthread.h>
#include <stdlib.h>

#include "queue.h"
#include "queuepool.h"
#include "queuepriv.h"
#include "util.h"

void
queue_create_locked(struct queue *q, struct qfile *qf)
{
	qf->create_pending = 1;
	q->c.creates_pending++;
	q->c.creates_queued++;
}

/* Would one more value of this kind pass a high-water mark? */
static bool
over_high_water(const struct queue *q, bool sig)
{
	const struct queue_config *cfg = &q->cfg;

	if (cfg->queue_high_water &&
	    q->c.total_operations_pending >= cfg->queue_high_water)
		return true;
	if (sig && cfg->sig_high_water &&
	    q->c.significant_ops_enqueued - q->c.significant_ops_completed -
	    q->c.significant_ops_discarded >= cfg->sig_high_water)
		return true;
	if (!sig && cfg->insig_high_water &&
	    q->insig_queued >= cfg->insig_high_water)
		return true;
	return false;
}

/* One queue_offer call's state across its files. */
struct push_state {
	double		now;		/* 0 until needed */
	uint64_t	listed;		/* files made selectable, not woken for */
	uint64_t	offered;
	bool		halted;
};

/* Would a new chunk of cap values pass memory_max?  With nothing held it
 * never does, so one chunk always fits whatever the bound. */
static bool
over_memory(const struct queue *q, uint32_t cap)
{
	return q->pool.used > 0 && q->pool.used +
	    queuepool_chunk_bytes(cap) > q->cfg.memory_max;
}

/*
 * At memory_max, wait until writers free room for the chunk the next value
 * v of file needs (the high-water marks drop; this bound never does).  The
 * file is listed and the writers woken first: the memory waited for may
 * be this very file's.  False when halted: the producer offers no more.
 */
static bool
room_for(struct queue *q, uint32_t file, double v, struct push_state *ps)
{
	struct qfile *qf = &q->f[file];
	uint32_t cap;
	double t0;

	if (q->cfg.memory_max == 0 || !queue_needs_chunk(qf, v, &cap) ||
	    !over_memory(q, cap))
		return true;
	if (q->halted)
		return false;
	ps->listed += queue_list_file(q, file);
	queue_wake_writers(q, ps->listed);
	ps->listed = 0;
	t0 = util_now();
	q->c.generator_waits++;
	q->room_waiters++;
	q->wait_starts += t0;
	while (!q->halted && queue_needs_chunk(qf, v, &cap) && over_memory(q, cap))
		pthread_cond_wait(&q->room, &q->mu);
	q->room_waiters--;
	q->wait_starts -= t0;
	ps->now = util_now();
	q->wait_s += ps->now - t0;
	return !q->halted;
}

/* Writers freed memory: wake the producers waiting for room. */
void
queue_room_freed(struct queue *q)
{
	if (q->room_waiters > 0 && q->pool.used < q->cfg.memory_max)
		pthread_cond_broadcast(&q->room);
}

/* Offer n updates to one file; the caller holds the lock.  Returns the
 * number accepted. */
static uint64_t
push_locked(struct queue *q, uint32_t file, uint32_t n, queue_value_fn fn,
    void *ctx, struct push_state *ps)
{
	struct qfile *qf = &q->f[file];
	uint64_t accepted = 0;

	if (q->cfg.queue_creates && !qf->exists && !qf->create_pending &&
	    !qf->reserved)
		queue_create_locked(q, qf);
	for (uint32_t i = 0; i < n; i++) {
		/* The value depends on k, which only an accepted update
		 * consumes, so a drop leaves no gap in a file's timestamps. */
		double v = fn(ctx, file, qf->next_k);
		bool sig = v != 0.0;

		if (!room_for(q, file, v, ps)) {
			ps->halted = true;
			break;
		}
		q->c.offered++;
		ps->offered++;
		if (over_high_water(q, sig)) {
			q->c.dropped++;
			continue;
		}
		if (qf->head == NULL) {
			/* Values that arrive while the file is reserved
			 * carry their own enqueue time. */
			if (ps->now == 0)
				ps->now = util_now();
			qf->oldest = ps->now;
		}
		queue_value_append(q, qf, v);
		qf->next_k++;
		accepted++;
		q->c.enqueued++;
		q->c.total_operations_pending++;
		if (sig) {
			qf->n_sig++;
			q->c.significant_ops_enqueued++;
		} else {
			qf->n_insig++;
			q->insig_queued++;
		}
	}
	ps->listed += queue_list_file(q, file);
	return accepted;
}

uint64_t
queue_push(struct queue *q, uint32_t file, uint32_t n, queue_value_fn fn,
    void *ctx)
{
	struct queue_req req = { file, n };

	return queue_push_many(q, &req, 1, fn, ctx);
}

uint64_t
queue_push_many(struct queue *q, const struct queue_req *reqs, size_t nreqs,
    queue_value_fn fn, void *ctx)
{
	uint64_t offered;

	return queue_offer(q, reqs, nreqs, fn, ctx, &offered);
}

uint64_t
queue_offer(struct queue *q, const struct queue_req *reqs, size_t nreqs,
    queue_value_fn fn, void *ctx, uint64_t *offered)
{
	struct push_state ps = { 0, 0, 0, false };
	uint64_t accepted = 0;

	pthread_mutex_lock(&q->mu);
	for (size_t i = 0; i < nreqs && !ps.halted; i++)
		accepted += push_locked(q, reqs[i].file, reqs[i].n, fn, ctx,
		    &ps);
	queue_wake_writers(q, ps.listed);
	pthread_mutex_unlock(&q->mu);
	*offered = ps.offered;
	return accepted;
}

void
queue_halt(struct queue *q)
{
	pthread_mutex_lock(&q->mu);
	q->halted = true;
	pthread_cond_broadcast(&q->room);
	pthread_mutex_unlock(&q->mu);
}

void
queue_push_create(struct queue *q, uint32_t file)
{
	struct qfile *qf = &q->f[file];

	pthread_mutex_lock(&q->mu);
	if (!qf->create_pending) {
		queue_create_locked(q, qf);
		queue_wake_writers(q, queue_list_file(q, file));
	}
	pthread_mutex_unlock(&q->mu);
}
