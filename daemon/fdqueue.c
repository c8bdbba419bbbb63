/* Descriptors passed by control clients; see fdqueue.h. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clientcap.h"
#include "fdqueue.h"

/* Held in the pool by every queue: one event loop thread. */
static unsigned	total;

void
fdqueue_init(struct fdqueue *q, enum fdqueue_who who, uid_t uid)
{
	memset(q, 0, sizeof(*q));
	q->who = who;
	q->uid = uid;
}

/* May q hold one more?  A shared uid's is counted: in the pool while it
 * has room, else one past it for a uid that holds none. */
static bool
room(struct fdqueue *q)
{
	unsigned held;

	if (q->who == FDQUEUE_READ_ONLY || q->n == FDQUEUE_MAX)
		return false;
	if (q->who == FDQUEUE_PRIVILEGED)
		return true;
	held = clientcap_passed(q->uid);
	if (held >= FDQUEUE_PER_UID)
		return false;
	if (total < FDQUEUE_MAX_TOTAL) {
		if (!clientcap_passed_add(q->uid, false))
			return false;
		total++;
		return true;
	}
	return held == 0 && clientcap_passed_add(q->uid, true);
}

/* Keep fd, arrived at offset at, if there is room; else close it. */
static void
keep(struct fdqueue *q, int fd, uint64_t at)
{
	if (!room(q)) {
		close(fd);
		q->dropped++;
		return;
	}
	q->q[q->n].fd = fd;
	q->q[q->n].at = at;
	q->n++;
}

ssize_t
fdqueue_recv(struct fdqueue *q, int sock, void *buf, size_t len)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int) * FDQUEUE_MAX)];
	} ctl;
	struct iovec iov = { buf, len };
	struct msghdr msg;
	struct cmsghdr *cm;
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof(ctl.buf);
	n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n <= 0)
		return n;
	for (cm = CMSG_FIRSTHDR(&msg); cm != NULL; cm = CMSG_NXTHDR(&msg, cm)) {
		size_t nfd;
		int fd;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfd; i++) {
			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int),
			    sizeof(fd));
			/* Part of a message's descriptors would be taken
			 * for all of them: none is kept. */
			if (msg.msg_flags & MSG_CTRUNC) {
				close(fd);
				q->dropped++;
			} else
				keep(q, fd, q->received + (uint64_t)n - 1);
		}
	}
	q->received += (uint64_t)n;
	return n;
}

int
fdqueue_take(struct fdqueue *q, uint64_t upto)
{
	int fd;

	if (q->n == 0 || q->q[0].at > upto)
		return -1;
	fd = q->q[0].fd;
	memmove(&q->q[0], &q->q[1], (q->n - 1) * sizeof(q->q[0]));
	q->n--;
	if (q->who == FDQUEUE_SHARED && !clientcap_passed_release(q->uid))
		total--;
	return fd;
}

unsigned
fdqueue_drop(struct fdqueue *q, uint64_t upto)
{
	unsigned closed = 0;
	int fd;

	while ((fd = fdqueue_take(q, upto)) != -1) {
		close(fd);
		q->dropped++;
		closed++;
	}
	return closed;
}

void
fdqueue_clear(struct fdqueue *q)
{
	fdqueue_drop(q, UINT64_MAX);
}

unsigned
fdqueue_total(void)
{
	return total;
}
