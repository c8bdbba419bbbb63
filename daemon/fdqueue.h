/*
 * Descriptors a control client passes with its requests (SCM_RIGHTS):
 * received with the bytes they came with, each tagged with where in the
 * client's byte stream it arrived, so that a request line takes only a
 * descriptor sent with it.  No libevent: control.c reads through
 * fdqueue_recv and keeps the bytes; tests/unit/fdqueue.c drives it on a
 * socketpair.
 */
#ifndef STRESSD_FDQUEUE_H
#define STRESSD_FDQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Descriptors held per connection; more are closed as they arrive. */
#define FDQUEUE_MAX		4
/* Descriptors held by all connections together (they come out of the
 * daemon's descriptor table, which the writers need). */
#define FDQUEUE_MAX_TOTAL	32

struct fdqueue {
	struct {
		int		fd;
		uint64_t	at;	/* stream offset of its message */
	}		 q[FDQUEUE_MAX];
	unsigned	 n;
	uint64_t	 received;	/* bytes read so far */
	uint64_t	 dropped;	/* descriptors closed unused */
	/* Root's or the daemon's uid's connection (set after init): not
	 * held back by FDQUEUE_MAX_TOTAL, so what others hold cannot refuse
	 * root's update file. */
	bool		 privileged;
};

void	fdqueue_init(struct fdqueue *q);
/*
 * recv() from the stream socket sock into buf, keeping the descriptors
 * that came with the bytes (close-on-exec).  A descriptor is tagged with
 * the offset of the last byte read with it, which lies inside the message
 * the client sent it with (the kernel hands descriptors over with the
 * first part of their message and ends the read there).  Descriptors of a
 * message with more than the daemon takes, or past FDQUEUE_MAX or
 * FDQUEUE_MAX_TOTAL, are closed and counted in dropped.  Returns what
 * recv returns (errno set on -1).
 */
ssize_t	fdqueue_recv(struct fdqueue *q, int sock, void *buf, size_t len);
/* The oldest descriptor that arrived at or before stream offset upto
 * (the end of a request line), now the caller's; -1 if none. */
int	fdqueue_take(struct fdqueue *q, uint64_t upto);
/* Close those that arrived at or before upto (a line that did not take
 * its descriptor); the number closed. */
unsigned fdqueue_drop(struct fdqueue *q, uint64_t upto);
/* Close every descriptor held. */
void	fdqueue_clear(struct fdqueue *q);
/* Descriptors held by all queues. */
unsigned fdqueue_total(void);

#endif
