/*
 * The queuing strategy: per-file pending updates, the significant and
 * insignificant FIFO lists of files with work, reservation of files while a
 * writer holds them, high-water marks, aged promotion and every counter of
 * DESIGN.md.  One mutex guards it all; the counters are read as one
 * consistent snapshot under it, which is what keeps the conservation
 * invariants exact in every stats reply.
 *
 * Pending values of a file are consecutive (the k-th update of a file has
 * timestamp base_ts + k*step), so the queue stores only the values: 8 bytes
 * per pending update in chunks, and a run of zeros as one counter.
 */
#ifndef STRESSD_QUEUE_H
#define STRESSD_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "queuepool.h"

struct queue;

struct queue_config {
	uint32_t	files;
	bool		prioritize;
	double		max_insig_update_seconds;	/* 0 = no promotion */
	uint64_t	queue_high_water;		/* 0 = off */
	uint64_t	sig_high_water;
	uint64_t	insig_high_water;
	bool		queue_creates;	/* push() queues a create before a
					   missing file's first update */
	uint64_t	memory_max;	/* bytes of value chunks pending or in
					   flight; producers wait at it
					   (0 = unbounded) */
};

/* One consistent snapshot of every gauge and counter. */
struct queue_counters {
	/* gauges */
	uint64_t	total_operations_pending;	/* update values queued */
	uint64_t	significant_ops_pending;	/* sig enqueued - sig completed */
	uint64_t	insignificant_ops_pending;	/* values queued that are 0 */
	uint64_t	files_with_significant_work;
	uint64_t	files_with_insignificant_work;
	uint64_t	in_flight;			/* values held by writers */
	uint64_t	creates_pending;		/* queued or in flight */
	uint64_t	queue_memory_bytes;	/* value chunks held (pending
						   or in flight), whole */
	uint64_t	queue_memory_peak_bytes;	/* its highest */
	/* counters */
	uint64_t	offered;
	uint64_t	enqueued;
	uint64_t	dropped;
	uint64_t	discarded;	/* enqueued, then thrown away unwritten
					   (stop --no-drain, a shutdown's drain
					   timeout, a failed run) */
	uint64_t	significant_ops_discarded;
	uint64_t	dropped_at_shutdown;	/* the part of discarded a
						   shutdown threw away; set by
						   run.c, not the queue */
	uint64_t	significant_ops_enqueued;
	uint64_t	significant_ops_dequeued;
	uint64_t	significant_ops_completed;
	uint64_t	dequeued_operations;
	uint64_t	dequeued_items;
	uint64_t	creates_completed;
	uint64_t	creates_failed;
	/* creates_queued == creates_completed + creates_failed +
	 * creates_pending + creates_discarded, exactly, in every snapshot */
	uint64_t	creates_queued;
	uint64_t	creates_discarded;	/* queued, then thrown away
						   unmade (as discarded) */
	uint64_t	updates_completed;
	uint64_t	updates_failed;
	uint64_t	update_calls;	/* rrd_update_r calls (a batch over the
					   writer's cap takes several) */
	uint64_t	errors;
	uint64_t	promotion_count;
	uint64_t	generator_waits;	/* times a producer waited at
						   memory_max */
	uint64_t	generator_wait_ms;	/* summed over producers, the
						   waits in progress included */
	double		first_dequeue;	/* monotonic s of the first dequeue, 0 = none */
	double		last_done;	/* monotonic s of the last returned batch */
	double		taken_at;	/* monotonic s of this snapshot */
};

/* struct queue_seg, a run of pending values, is queuepool.h's. */

/* What a writer takes: all pending work of one file. */
struct queue_batch {
	uint32_t		 file;
	bool			 create;	/* create the file before updating */
	bool			 direct;	/* taken by queue_direct_begin */
	int64_t			 base_ts;	/* update k is at base_ts + k*step */
	uint64_t		 first_k;	/* k of the first value, from 1 */
	uint64_t		 count;		/* values */
	uint64_t		 n_sig;		/* of which significant */
	double			 oldest_enqueue;/* monotonic s the first value was queued */
	struct queue_seg	*segs;
};

/* Walks the values of a batch in time order. */
struct queue_iter {
	const struct queue_seg	*seg;
	uint32_t		 pos;
};

/* Value of the k-th update of a file; called under the queue lock, so it
 * must be cheap and must not call back into the queue. */
typedef double (*queue_value_fn)(void *ctx, uint32_t file, uint64_t k);

struct queue	*queue_create(const struct queue_config *cfg);
/* What the queue holds for each file, pending values apart (those count
 * in memory_max): the per-file part of a run's memory. */
size_t		 queue_file_bytes(void);
void		 queue_destroy(struct queue *q);

/* Before the load starts: where a file's timestamps begin and whether it
 * exists on disk already. */
void	queue_file_init(struct queue *q, uint32_t file, int64_t base_ts,
	    bool exists);

/* Offer n updates to a file; values come from fn(ctx, file, k).  Returns the
 * number enqueued (the rest were dropped by a high-water mark).  At
 * memory_max the caller waits until writers free memory (the high-water
 * marks still drop, the memory bound never does). */
uint64_t queue_push(struct queue *q, uint32_t file, uint32_t n,
	    queue_value_fn fn, void *ctx);
/* The same for several files under one lock acquisition (generators stage
 * their updates and offer them in groups); returns the number enqueued. */
struct queue_req {
	uint32_t	file;
	uint32_t	n;
};
uint64_t queue_push_many(struct queue *q, const struct queue_req *reqs,
	    size_t nreqs, queue_value_fn fn, void *ctx);
/* queue_push_many that also tells how many updates were offered: fewer
 * than asked when queue_halt() cut a wait at memory_max short (the rest
 * were never offered, so consumed no timestamp). */
uint64_t queue_offer(struct queue *q, const struct queue_req *reqs,
	    size_t nreqs, queue_value_fn fn, void *ctx, uint64_t *offered);
/* Wake the producers waiting at memory_max and let none wait again: they
 * return what they offered so far (the generators are stopping). */
void	queue_halt(struct queue *q);
/* Queue a create for a missing file (synchronous-create mode). */
void	queue_push_create(struct queue *q, uint32_t file);

/* Take the next file's work, blocking while there is none.  Returns false
 * once the queue is closed and empty.  now is monotonic seconds (drives
 * aged promotion). */
bool	queue_take(struct queue *q, struct queue_batch *b, double now);
/* Non-blocking take; false when nothing is selectable. */
bool	queue_try_take(struct queue *q, struct queue_batch *b, double now);
/* What became of a batch. */
struct queue_result {
	bool		create_ok;	/* the create, if the batch had one */
	uint64_t	written;	/* values that landed, in time order */
	uint64_t	calls;		/* rrd_update_r calls made */
	uint64_t	failed_calls;	/* of which failed */
};

/* Return a batch: its first `written` values count completed, the rest
 * failed; frees its values and unreserves the file.  Returns
 * updates_completed after it. */
uint64_t queue_done(struct queue *q, struct queue_batch *b,
	    const struct queue_result *res);

/* The no-queue path: wait for the file's reservation, assign timestamps
 * and values to n updates, and hand them back as a batch already in
 * flight; finish with queue_done(). */
void	queue_direct_begin(struct queue *q, uint32_t file, uint32_t n,
	    queue_value_fn fn, void *ctx, struct queue_batch *b);

/* Drop every pending update and queued create (stop --no-drain; counted
 * in discarded and creates_discarded); returns the updates dropped. */
uint64_t queue_discard(struct queue *q);
/* Wake every blocked writer (and, as queue_halt, every waiting
 * producer); queue_take returns false once empty. */
void	queue_close(struct queue *q);

void	queue_snapshot(struct queue *q, struct queue_counters *c);
/* True when nothing is pending or in flight. */
bool	queue_idle(struct queue *q);

void	queue_iter_init(struct queue_iter *it, const struct queue_batch *b);
bool	queue_iter_next(struct queue_iter *it, double *v);

#endif
