/* The queue's chunks of pending values; used by queue.c, under its lock. */
#ifndef STRESSD_QUEUEPOOL_H
#define STRESSD_QUEUEPOOL_H

#include <stddef.h>
#include <stdint.h>

/* A run of pending values: cap == 0 means a run of n zeros.  The pool
 * owns the chunks; queue.h's batches and iterators walk them. */
struct queue_seg {
	struct queue_seg	*next;
	uint32_t		 n;
	uint32_t		 cap;
	double			 v[];
};

/* Chunk sizes: a zero run (16 bytes), then 64 .. 4096 as caps double. */
#define QUEUEPOOL_CLASSES	8
#define QUEUEPOOL_SLAB_BYTES	(1024 * 1024)

/*
 * The queue's own allocator for value chunks: chunks are cut from 1 MiB
 * slabs and recycled through free lists per size, under the queue lock.
 * Why not malloc: generators allocating chunk by chunk grow their malloc
 * arenas in small steps, each taking the process's mmap lock for writing,
 * which stalls every writer's page faults inside librrd's mmap'd files.
 * Measured (bench/run.sh, since replaced by bench/compare; 5 rounds):
 * stressd/raw median 0.88 with malloc, 0.97 with malloc tuned to grow in
 * 64 MiB steps, which this does by construction.
 * Slabs go back when the queue is destroyed (run end).
 */
struct queuepool {
	struct queue_seg	*free[QUEUEPOOL_CLASSES];
	char			*bump[QUEUEPOOL_CLASSES]; /* rest of a slab */
	size_t			 left[QUEUEPOOL_CLASSES]; /* bytes there */
	void			**slabs;
	size_t			 nslabs, capslabs;
	uint64_t		 used;	/* bytes of chunks handed out */
	uint64_t		 peak;	/* the most used has been */
};

/* A chunk for cap values (0: a zero run), empty; aborts when out of
 * memory. */
struct queue_seg	*queuepool_get(struct queuepool *p, uint32_t cap);
/* The bytes a chunk of cap values takes (its whole size class): what
 * `used` counts per chunk from get to put. */
size_t	queuepool_chunk_bytes(uint32_t cap);
/* Give a chain of chunks back. */
void	queuepool_put(struct queuepool *p, struct queue_seg *s);
/* Free every slab; *p is empty again. */
void	queuepool_destroy(struct queuepool *p);

#endif
