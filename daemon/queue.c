/* The queuing strategy; see queue.h and DESIGN.md "Engine semantics". */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "queuepool.h"
#include "queuepriv.h"
#include "util.h"

/* ------------------------------------------------------------ lists */

static void
list_push_tail(struct queue *q, struct flist *l, uint32_t i, uint8_t which)
{
	struct qfile *qf = &q->f[i];

	qf->list = which;
	qf->next = NIL;
	qf->prev = l->tail;
	if (l->tail == NIL)
		l->head = i;
	else
		q->f[l->tail].next = i;
	l->tail = i;
	l->len++;
}

static void
list_push_head(struct queue *q, struct flist *l, uint32_t i, uint8_t which)
{
	struct qfile *qf = &q->f[i];

	qf->list = which;
	qf->prev = NIL;
	qf->next = l->head;
	if (l->head == NIL)
		l->tail = i;
	else
		q->f[l->head].prev = i;
	l->head = i;
	l->len++;
}

static void
list_remove(struct queue *q, struct flist *l, uint32_t i)
{
	struct qfile *qf = &q->f[i];

	if (qf->prev == NIL)
		l->head = qf->next;
	else
		q->f[qf->prev].next = qf->next;
	if (qf->next == NIL)
		l->tail = qf->prev;
	else
		q->f[qf->next].prev = qf->prev;
	qf->list = LIST_NONE;
	qf->next = qf->prev = NIL;
	l->len--;
}

static bool
has_work(const struct qfile *qf)
{
	return qf->n_sig + qf->n_insig > 0 || qf->create_pending;
}

/* Put an unreserved file with work on the list its work calls for, or
 * move it from the low list to the high one when significant work came.
 * True when the file became selectable (a writer may be woken for it). */
bool
queue_list_file(struct queue *q, uint32_t i)
{
	struct qfile *qf = &q->f[i];
	bool high = !q->cfg.prioritize || qf->n_sig > 0 || qf->create_pending;

	if (qf->reserved || !has_work(qf))
		return false;
	if (qf->list == LIST_INSIG && high)
		list_remove(q, &q->insig, i);
	if (qf->list != LIST_NONE)
		return false;
	if (high)
		list_push_tail(q, &q->sig, i, LIST_SIG);
	else
		list_push_tail(q, &q->insig, i, LIST_INSIG);
	return true;
}

/* Wake as many sleeping writers as files became selectable, no more: a
 * futex wake per update would cost more than the enqueue itself. */
void
queue_wake_writers(struct queue *q, uint64_t listed)
{
	if (listed == 0 || q->idle_writers == 0)
		return;
	if (listed >= q->idle_writers)
		pthread_cond_broadcast(&q->work);
	else
		while (listed-- > 0)
			pthread_cond_signal(&q->work);
}

/* ------------------------------------------------------------ values */

static void
seg_append(struct qfile *qf, struct queue_seg *s)
{
	if (qf->tail == NULL)
		qf->head = s;
	else
		qf->tail->next = s;
	qf->tail = s;
}

/* Does the next value v of qf need a new chunk, and of what cap?
 * Consecutive zeros grow one run instead of memory. */
bool
queue_needs_chunk(const struct qfile *qf, double v, uint32_t *cap)
{
	const struct queue_seg *t = qf->tail;

	if (v == 0.0) {
		*cap = 0;
		return t == NULL || t->cap != 0 || t->n == UINT32_MAX;
	}
	if (t != NULL && t->cap != 0 && t->n < t->cap)
		return false;
	/* Chunks double (in power-of-two sizes) so a deep file costs close
	 * to 8 bytes a value and a shallow one little. */
	*cap = SEG_FIRST_CAP;
	if (t != NULL && t->cap != 0)
		*cap = t->cap * 2 + 2 > SEG_MAX_CAP ? SEG_MAX_CAP :
		    t->cap * 2 + 2;
	return true;
}

void
queue_value_append(struct queue *q, struct qfile *qf, double v)
{
	uint32_t cap;

	if (queue_needs_chunk(qf, v, &cap))
		seg_append(qf, queuepool_get(&q->pool, cap));
	if (v == 0.0)
		qf->tail->n++;
	else
		qf->tail->v[qf->tail->n++] = v;
}

void
queue_iter_init(struct queue_iter *it, const struct queue_batch *b)
{
	it->seg = b->segs;
	it->pos = 0;
}

bool
queue_iter_next(struct queue_iter *it, double *v)
{
	while (it->seg != NULL && it->pos >= it->seg->n) {
		it->seg = it->seg->next;
		it->pos = 0;
	}
	if (it->seg == NULL)
		return false;
	*v = it->seg->cap != 0 ? it->seg->v[it->pos] : 0.0;
	it->pos++;
	return true;
}

/* ------------------------------------------------------------ setup */

size_t
queue_file_bytes(void)
{
	return sizeof(struct qfile);
}

struct queue *
queue_create(const struct queue_config *cfg)
{
	struct queue *q = calloc(1, sizeof(*q));
	pthread_condattr_t ca;

	if (q == NULL)
		return NULL;
	q->cfg = *cfg;
	if ((q->f = calloc(cfg->files ? cfg->files : 1, sizeof(*q->f))) == NULL)
		goto fail;
	for (uint32_t i = 0; i < cfg->files; i++) {
		q->f[i].next = q->f[i].prev = NIL;
		q->f[i].next_k = 1;
	}
	q->sig.head = q->sig.tail = q->insig.head = q->insig.tail = NIL;
	pthread_mutex_init(&q->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->work, &ca);
	pthread_cond_init(&q->unreserved, &ca);
	pthread_cond_init(&q->room, &ca);
	pthread_condattr_destroy(&ca);
	return q;
fail:
	free(q);
	return NULL;
}

void
queue_destroy(struct queue *q)
{
	if (q == NULL)
		return;
	queuepool_destroy(&q->pool);	/* every chunk lives in a slab */
	pthread_cond_destroy(&q->work);
	pthread_cond_destroy(&q->unreserved);
	pthread_cond_destroy(&q->room);
	pthread_mutex_destroy(&q->mu);
	free(q->f);
	free(q);
}

void
queue_file_init(struct queue *q, uint32_t file, int64_t base_ts, bool exists)
{
	pthread_mutex_lock(&q->mu);
	q->f[file].base_ts = base_ts;
	q->f[file].exists = exists;
	pthread_mutex_unlock(&q->mu);
}

/* ------------------------------------------------------------ consumers */

/* Move files from the head of the low list to the head of the high list at
 * a rate that would move the whole low list within max_insig seconds. */
static void
promote(struct queue *q, double now)
{
	if (!q->cfg.prioritize || q->cfg.max_insig_update_seconds <= 0)
		return;
	if (q->insig.len == 0 || q->promo_last == 0) {
		q->promo_last = now;
		q->promo_credit = 0;
		return;
	}
	q->promo_credit += (now - q->promo_last) * q->insig.len /
	    q->cfg.max_insig_update_seconds;
	q->promo_last = now;
	while (q->promo_credit >= 1 && q->insig.len > 0) {
		uint32_t i = q->insig.head;

		list_remove(q, &q->insig, i);
		list_push_head(q, &q->sig, i, LIST_SIG);
		q->c.promotion_count++;
		q->promo_credit -= 1;
	}
}

/* Hand the whole pending work of a reserved file to b. */
static void
detach_locked(struct queue *q, uint32_t i, struct queue_batch *b, double now)
{
	struct qfile *qf = &q->f[i];
	uint64_t count = qf->n_sig + qf->n_insig;

	b->file = i;
	b->create = qf->create_pending;
	b->base_ts = qf->base_ts;
	b->count = count;
	b->n_sig = qf->n_sig;
	b->first_k = qf->next_k - count;
	b->oldest_enqueue = qf->oldest;
	b->segs = qf->head;
	qf->head = qf->tail = NULL;
	qf->create_pending = 0;
	qf->n_sig = qf->n_insig = 0;

	q->c.total_operations_pending -= count;
	q->insig_queued -= count - b->n_sig;
	q->c.in_flight += count;
	if (count > 0) {
		q->c.dequeued_operations += count;
		q->c.dequeued_items++;
		q->c.significant_ops_dequeued += b->n_sig;
		if (q->c.first_dequeue == 0)
			q->c.first_dequeue = now;
	}
}

static bool
take_locked(struct queue *q, struct queue_batch *b, double now)
{
	uint32_t i;

	promote(q, now);
	if (q->sig.len > 0) {
		i = q->sig.head;
		list_remove(q, &q->sig, i);
	} else if (q->insig.len > 0) {
		i = q->insig.head;
		list_remove(q, &q->insig, i);
	} else
		return false;
	q->f[i].reserved = 1;
	b->direct = false;
	detach_locked(q, i, b, now);
	return true;
}

bool
queue_take(struct queue *q, struct queue_batch *b, double now)
{
	pthread_mutex_lock(&q->mu);
	while (!take_locked(q, b, now)) {
		if (q->closed) {
			pthread_mutex_unlock(&q->mu);
			return false;
		}
		q->idle_writers++;
		pthread_cond_wait(&q->work, &q->mu);
		q->idle_writers--;
		now = util_now();
	}
	pthread_mutex_unlock(&q->mu);
	return true;
}

bool
queue_try_take(struct queue *q, struct queue_batch *b, double now)
{
	bool ok;

	pthread_mutex_lock(&q->mu);
	ok = take_locked(q, b, now);
	pthread_mutex_unlock(&q->mu);
	return ok;
}

uint64_t
queue_done(struct queue *q, struct queue_batch *b,
    const struct queue_result *res)
{
	struct qfile *qf = &q->f[b->file];
	uint64_t completed;

	double now = util_now();

	pthread_mutex_lock(&q->mu);
	queuepool_put(&q->pool, b->segs);
	b->segs = NULL;
	queue_room_freed(q);
	q->c.last_done = now;
	if (b->create) {
		q->c.creates_pending--;
		if (res->create_ok) {
			q->c.creates_completed++;
			qf->exists = 1;
		} else {
			q->c.creates_failed++;
			q->c.errors++;
		}
	}
	if (b->count > 0) {
		q->c.in_flight -= b->count;
		q->c.significant_ops_completed += b->n_sig;
		uint64_t written = res->written < b->count ? res->written :
		    b->count;

		q->c.updates_completed += written;
		q->c.updates_failed += b->count - written;
		q->c.errors += res->failed_calls;
		q->c.update_calls += res->calls;
	}
	qf->reserved = 0;
	/* Values that arrived while the file was reserved already carry
	 * their enqueue time (push_locked saw an empty list). */
	queue_wake_writers(q, queue_list_file(q, b->file));
	if (q->direct_waiters > 0)
		pthread_cond_broadcast(&q->unreserved);
	completed = q->c.updates_completed;
	pthread_mutex_unlock(&q->mu);
	return completed;
}

void
queue_direct_begin(struct queue *q, uint32_t file, uint32_t n,
    queue_value_fn fn, void *ctx, struct queue_batch *b)
{
	struct qfile *qf = &q->f[file];

	pthread_mutex_lock(&q->mu);
	while (qf->reserved) {
		q->direct_waiters++;
		pthread_cond_wait(&q->unreserved, &q->mu);
		q->direct_waiters--;
	}
	qf->reserved = 1;
	if (q->cfg.queue_creates && !qf->exists)
		queue_create_locked(q, qf);
	for (uint32_t i = 0; i < n; i++) {
		double v = fn(ctx, file, qf->next_k);

		queue_value_append(q, qf, v);
		qf->next_k++;
		if (v != 0.0) {
			qf->n_sig++;
			q->c.significant_ops_enqueued++;
		} else {
			qf->n_insig++;
			q->insig_queued++;
		}
	}
	q->c.offered += n;
	q->c.enqueued += n;
	q->c.total_operations_pending += n;
	b->direct = true;
	qf->oldest = util_now();	/* generated just now */
	detach_locked(q, file, b, qf->oldest);
	pthread_mutex_unlock(&q->mu);
}

uint64_t
queue_discard(struct queue *q)
{
	uint64_t n = 0;

	pthread_mutex_lock(&q->mu);
	for (uint32_t i = 0; i < q->cfg.files; i++) {
		struct qfile *qf = &q->f[i];
		uint64_t count = qf->n_sig + qf->n_insig;

		if (qf->list == LIST_SIG)
			list_remove(q, &q->sig, i);
		else if (qf->list == LIST_INSIG)
			list_remove(q, &q->insig, i);
		if (qf->create_pending && !qf->reserved) {
			qf->create_pending = 0;
			q->c.creates_pending--;
			q->c.creates_discarded++;
		}
		if (count == 0)
			continue;
		/* Counters never go back (Prometheus would read a reset):
		 * discarded values stay enqueued and are counted apart, a
		 * term of their own in the second conservation equation. */
		q->c.discarded += count;
		q->c.significant_ops_discarded += qf->n_sig;
		q->c.total_operations_pending -= count;
		q->insig_queued -= qf->n_insig;
		qf->next_k -= count;
		queuepool_put(&q->pool, qf->head);
		qf->head = qf->tail = NULL;
		qf->n_sig = qf->n_insig = 0;
		n += count;
	}
	queue_room_freed(q);
	pthread_mutex_unlock(&q->mu);
	return n;
}

void
queue_close(struct queue *q)
{
	pthread_mutex_lock(&q->mu);
	q->closed = true;
	q->halted = true;
	pthread_cond_broadcast(&q->work);
	pthread_cond_broadcast(&q->unreserved);
	pthread_cond_broadcast(&q->room);
	pthread_mutex_unlock(&q->mu);
}

void
queue_snapshot(struct queue *q, struct queue_counters *c)
{
	double now, waited;

	pthread_mutex_lock(&q->mu);
	now = util_now();	/* under the lock: no wait began after it */
	*c = q->c;
	c->queue_memory_bytes = q->pool.used;
	c->queue_memory_peak_bytes = q->pool.peak;
	/* The waits going on count up to now: the counter never jumps. */
	waited = q->wait_s + q->room_waiters * now - q->wait_starts;
	c->generator_wait_ms = waited > 0 ? (uint64_t)(waited * 1000) : 0;
	c->files_with_significant_work = q->sig.len;
	c->files_with_insignificant_work = q->insig.len;
	c->insignificant_ops_pending = q->insig_queued;
	pthread_mutex_unlock(&q->mu);
	c->significant_ops_pending = c->significant_ops_enqueued -
	    c->significant_ops_completed - c->significant_ops_discarded;
	c->taken_at = util_now();
}

bool
queue_idle(struct queue *q)
{
	bool idle;

	pthread_mutex_lock(&q->mu);
	idle = q->c.total_operations_pending == 0 && q->c.in_flight == 0 &&
	    q->c.creates_pending == 0;
	pthread_mutex_unlock(&q->mu);
	return idle;
}
