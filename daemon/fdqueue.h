/*
 * Descriptors a control client passes with its requests (SCM_RIGHTS):
 * received with the bytes they came with, each tagged with where in the
 * client's byte stream it arrived, so that a request line takes only a
 * descriptor sent with it.  Kept only from clients that may use them
 * (start), and shared out per uid so that no uid can leave another none.
 * No libevent: control.c reads through fdqueue_recv and keeps the bytes;
 * tests/unit/fdqueue.c drives it on a socketpair.
 */
#ifndef STRESSD_FDQUEUE_H
#define STRESSD_FDQUEUE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Descriptors held per connection; more are closed as they arrive. */
#define FDQUEUE_MAX		4
/* Held by one uid over all its connections (not root's or ours). */
#define FDQUEUE_PER_UID		4
/* The pool all other uids' connections share (it comes out of the
 * daemon's descriptor table, which the writers need).  A uid that holds
 * none gets one past it, counted as one of its control connections
 * (clientcap), so a full pool cannot refuse its update file. */
#define FDQUEUE_MAX_TOTAL	32

/* Whose connection a queue is (fdqueue_init). */
enum fdqueue_who {
	/* May not start runs, so has no use for a descriptor: each is
	 * closed on arrival (counted in dropped). */
	FDQUEUE_READ_ONLY,
	/* Another uid: FDQUEUE_PER_UID, out of the pool. */
	FDQUEUE_SHARED,
	/* Root or the daemon's uid: FDQUEUE_MAX, outside the pool, so
	 * what others hold cannot refuse root's update file. */
	FDQUEUE_PRIVILEGED,
};

struct fdqueue {
	struct {
		int		fd;
		uint64_t	at;	/* stream offset of its message */
	}		 q[FDQUEUE_MAX];
	unsigned	 n;
	uint64_t	 received;	/* bytes read so far */
	uint64_t	 dropped;	/* descriptors closed unused */
	enum fdqueue_who who;
	uid_t		 uid;
};

/* A connection of uid; the one of a shared uid is counted in clientcap,
 * which must hold it (clientcap_admit) until fdqueue_clear. */
void	fdqueue_init(struct fdqueue *q, enum fdqueue_who who, uid_t uid);
/*
 * recv() from the stream socket sock into buf, keeping the descriptors
 * that came with the bytes (close-on-exec).  A descriptor is tagged with
 * the offset of the last byte read with it, which lies inside the message
 * the client sent it with (the kernel hands descriptors over with the
 * first part of their message and ends the read there).  Descriptors of a
 * read-only connection, of a message with more than the daemon takes, or
 * past the limits above are closed and counted in dropped.  Returns what
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
/* Descriptors held in the pool (shared uids' but those past it). */
unsigned fdqueue_total(void);

#endif
