/*
 * The queue's insides, shared by queue.c (lists, values, consumers) and
 * queuepush.c (producers) only; everyone else goes through queue.h.
 * Every function here is called with q->mu held.
 */
#ifndef STRESSD_QUEUEPRIV_H
#define STRESSD_QUEUEPRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "queue.h"
#include "queuepool.h"

#define NIL		UINT32_MAX
#define SEG_FIRST_CAP	6	/* 64-byte chunk: 16 header + 6 values */
#define SEG_MAX_CAP	510	/* 4 KiB chunk */

enum { LIST_NONE, LIST_SIG, LIST_INSIG };

struct qfile {
	struct queue_seg	*head, *tail;
	int64_t			 base_ts;
	uint64_t		 next_k;	/* k of the next enqueued update */
	double			 oldest;	/* enqueue time of the first pending value */
	uint64_t		 n_sig, n_insig;	/* pending, not in flight;
						   zero runs make 2^32 possible */
	uint32_t		 next, prev;	/* links in the list named by list */
	uint8_t			 list;
	uint8_t			 reserved;
	uint8_t			 create_pending;
	uint8_t			 exists;
};

struct flist {
	uint32_t	head, tail, len;
};


struct queue {
	pthread_mutex_t		 mu;
	pthread_cond_t		 work;		/* writers wait for a file */
	pthread_cond_t		 unreserved;	/* direct writers wait for a file */
	pthread_cond_t		 room;		/* producers wait at memory_max */
	struct queue_config	 cfg;
	struct qfile		*f;
	struct flist		 sig, insig;
	struct queue_counters	 c;		/* gauges derived at snapshot */
	struct queuepool	 pool;
	uint64_t		 insig_queued;
	double			 promo_last, promo_credit;
	unsigned		 idle_writers, direct_waiters;
	unsigned		 room_waiters;
	double			 wait_s;	/* waits at memory_max ended */
	double			 wait_starts;	/* sum of the running ones' */
	bool			 closed;
	bool			 halted;	/* producers wait no more */
};

/* Put an unreserved file with work on the list its work calls for; true
 * when it became selectable. */
bool	queue_list_file(struct queue *q, uint32_t i);
/* Wake as many sleeping writers as files became selectable. */
void	queue_wake_writers(struct queue *q, uint64_t listed);
/* Does the next value v of qf need a new chunk, and of what cap? */
bool	queue_needs_chunk(const struct qfile *qf, double v, uint32_t *cap);
/* Append one value to qf's pending list. */
void	queue_value_append(struct queue *q, struct qfile *qf, double v);
/* Mark a create pending for qf. */
void	queue_create_locked(struct queue *q, struct qfile *qf);
/* Writers freed memory: wake the producers waiting for room. */
void	queue_room_freed(struct queue *q);

#endif
