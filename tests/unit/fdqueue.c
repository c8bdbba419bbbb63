/* The descriptors control clients pass (daemon/fdqueue.c), on real Unix
 * stream socketpairs: which request line a descriptor goes with, however
 * the bytes are read, and that every one is closed or handed out. */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "clientcap.h"
#include "fdqueue.h"

/* Descriptors this process has open. */
static int
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

/* A uid no test runs as (not privileged: clientcap.c). */
#define UID	((uid_t)4401)

/* Count a connection of uid, as control.c does before its queue. */
static void
admit(uid_t uid)
{
	char why[160];

	assert_true(clientcap_admit(uid, why, sizeof(why)));
}

/* Send text with nfd copies of fd (0: none) in one sendmsg. */
static void
send_with(int sock, const char *text, int fd, int nfd)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int) * 16)];
	} ctl;
	struct iovec iov = { (void *)text, strlen(text) };
	struct msghdr msg;
	int fds[16];

	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (nfd > 0) {
		struct cmsghdr *cm;

		for (int i = 0; i < nfd; i++)
			fds[i] = fd;
		msg.msg_control = ctl.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfd);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfd);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)nfd);
	}
	assert_int_equal(sendmsg(sock, &msg, 0), (ssize_t)strlen(text));
}

/* Read everything buffered in chunks of at most chunk bytes. */
static size_t
recv_all(struct fdqueue *q, int sock, char *buf, size_t cap, size_t chunk)
{
	size_t got = 0;
	ssize_t n;

	while (got < cap &&
	    (n = fdqueue_recv(q, sock, buf + got, chunk < cap - got ? chunk :
	    cap - got)) > 0)
		got += (size_t)n;
	return got;
}

static void
same_file(int a, int b)
{
	struct stat sa, sb;

	assert_int_equal(fstat(a, &sa), 0);
	assert_int_equal(fstat(b, &sb), 0);
	assert_true(sa.st_ino == sb.st_ino && sa.st_dev == sb.st_dev);
}

/* The descriptor goes with the second line, read at once or a few
 * bytes at a time, and comes close-on-exec. */
static void
test_line_of_descriptor(void **state)
{
	static const char l1[] = "{\"cmd\":\"version\"}\n";
	static const char l2[] = "{\"cmd\":\"start\",\"args\":{}}\n";
	size_t chunks[] = { 4096, 1, 3, 7 };
	int base = open_fds();

	(void)state;
	for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		struct fdqueue q;
		int sv[2], fd, file = open("/dev/null", O_RDONLY);
		char buf[256];
		uint64_t end1 = strlen(l1) - 1, end2 = end1 + strlen(l2);

		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		fdqueue_init(&q, FDQUEUE_PRIVILEGED, 0);
		send_with(sv[1], l1, -1, 0);
		send_with(sv[1], l2, file, 1);
		send_with(sv[1], l1, -1, 0);
		assert_int_equal(recv_all(&q, sv[0], buf, sizeof(buf),
		    chunks[c]), 2 * strlen(l1) + strlen(l2));
		assert_int_equal(q.n, 1);
		assert_int_equal(fdqueue_take(&q, end1), -1);
		assert_true(q.q[0].at > end1 && q.q[0].at <= end2);
		assert_true((fd = fdqueue_take(&q, end2)) >= 0);
		same_file(fd, file);
		assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
		assert_int_equal(fdqueue_take(&q, UINT64_MAX), -1);
		assert_int_equal(fdqueue_total(), 0);
		close(fd);
		close(file);
		close(sv[0]);
		close(sv[1]);
	}
	assert_int_equal(open_fds(), base);
}

/* More descriptors in one message than the daemon takes: none kept; past
 * FDQUEUE_MAX in a queue: closed; a line that does not take its own has
 * it closed; everything held is closed by clear. */
static void
test_limits(void **state)
{
	struct fdqueue q;
	int sv[2], file = open("/dev/null", O_RDONLY), base;
	char buf[256];

	(void)state;
	base = open_fds();
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	admit(UID);
	fdqueue_init(&q, FDQUEUE_SHARED, UID);
	send_with(sv[1], "x\n", file, FDQUEUE_MAX + 2);
	assert_int_equal(recv_all(&q, sv[0], buf, sizeof(buf), 4096), 2);
	assert_int_equal(q.n, 0);
	assert_true(q.dropped > 0);
	assert_int_equal(open_fds(), base + 2);	/* the socketpair */

	q.dropped = 0;
	for (int i = 0; i < FDQUEUE_MAX + 1; i++) {
		send_with(sv[1], "y\n", file, 1);
		assert_int_equal(recv_all(&q, sv[0], buf, sizeof(buf), 4096),
		    2);
	}
	assert_int_equal(q.n, FDQUEUE_MAX);
	assert_int_equal(q.dropped, 1);
	assert_int_equal(fdqueue_total(), FDQUEUE_MAX);
	/* Lines 1 and 2 (offsets 2..5) did not take theirs. */
	assert_int_equal(fdqueue_drop(&q, 2 + 2 * 2 - 1), 2);
	assert_int_equal(q.n, FDQUEUE_MAX - 2);
	fdqueue_clear(&q);
	assert_int_equal(q.n, 0);
	assert_int_equal(fdqueue_total(), 0);
	assert_int_equal(clientcap_passed(UID), 0);
	close(sv[0]);
	close(sv[1]);
	assert_int_equal(open_fds(), base);
	close(file);
	clientcap_reset();
}

/* Descriptors pass one a message, count times, on pair sv into q. */
static void
pass(struct fdqueue *q, int sv[2], int file, int count)
{
	char buf[16];

	for (int k = 0; k < count; k++) {
		send_with(sv[1], "z", file, 1);
		assert_int_equal(recv_all(q, sv[0], buf, sizeof(buf), 16), 1);
	}
}

/* A client that may not start runs has no use for a descriptor: each is
 * closed as it arrives, counted, and nothing of the pool is taken. */
static void
test_refuse(void **state)
{
	struct fdqueue q;
	int sv[2], file = open("/dev/null", O_RDONLY), base;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	base = open_fds();
	admit(UID);
	fdqueue_init(&q, FDQUEUE_READ_ONLY, UID);
	pass(&q, sv, file, 3);
	send_with(sv[1], "x\n", file, 2);
	assert_int_equal(recv_all(&q, sv[0], (char[8]){ 0 }, 8, 8), 2);
	assert_int_equal(q.n, 0);
	assert_int_equal(q.dropped, 5);
	assert_int_equal(fdqueue_take(&q, UINT64_MAX), -1);
	assert_int_equal(open_fds(), base);
	assert_int_equal(fdqueue_total(), 0);
	assert_int_equal(clientcap_passed(UID), 0);
	close(sv[0]);
	close(sv[1]);
	close(file);
	clientcap_reset();
}

/* One uid holds FDQUEUE_PER_UID over all its connections, whichever
 * they came by; another uid's are not held back by it; one taken makes
 * room for the next. */
static void
test_per_uid(void **state)
{
	enum { NQ = 3 };
	struct fdqueue q[NQ], other;
	int sv[NQ][2], so[2], file = open("/dev/null", O_RDONLY), fd;
	unsigned held = 0, dropped = 0;

	(void)state;
	for (int i = 0; i < NQ; i++) {
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]), 0);
		admit(UID);
		fdqueue_init(&q[i], FDQUEUE_SHARED, UID);
	}
	for (int i = 0; i < NQ; i++)
		pass(&q[i], sv[i], file, FDQUEUE_MAX);
	for (int i = 0; i < NQ; i++) {
		held += q[i].n;
		dropped += (unsigned)q[i].dropped;
	}
	assert_int_equal(held, FDQUEUE_PER_UID);
	assert_int_equal(dropped, NQ * FDQUEUE_MAX - FDQUEUE_PER_UID);
	assert_int_equal(clientcap_passed(UID), FDQUEUE_PER_UID);
	assert_int_equal(fdqueue_total(), FDQUEUE_PER_UID);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, so), 0);
	admit(UID + 1);
	fdqueue_init(&other, FDQUEUE_SHARED, UID + 1);
	pass(&other, so, file, FDQUEUE_MAX);
	assert_int_equal(other.n, FDQUEUE_MAX);
	/* The first queue got them all; once one is taken, the uid's next
	 * comes in on another connection. */
	assert_true((fd = fdqueue_take(&q[0], UINT64_MAX)) >= 0);
	close(fd);
	assert_int_equal(clientcap_passed(UID), FDQUEUE_PER_UID - 1);
	pass(&q[2], sv[2], file, 2);
	assert_int_equal(q[2].n, 1);
	assert_int_equal(clientcap_passed(UID), FDQUEUE_PER_UID);
	for (int i = 0; i < NQ; i++) {
		fdqueue_clear(&q[i]);
		close(sv[i][0]);
		close(sv[i][1]);
	}
	fdqueue_clear(&other);
	close(so[0]);
	close(so[1]);
	assert_int_equal(fdqueue_total(), 0);
	assert_int_equal(clientcap_passed(UID), 0);
	close(file);
	clientcap_reset();
}

/* The other uids share FDQUEUE_MAX_TOTAL; past it a uid that holds none
 * still gets one, counted as one of its connections (and so refused when
 * another connection of it would be); root's are outside the pool. */
static void
test_pool(void **state)
{
	enum { NQ = FDQUEUE_MAX_TOTAL / FDQUEUE_PER_UID + 2 };
	struct fdqueue q[NQ], rq;
	int sv[NQ][2], rs[2], file = open("/dev/null", O_RDONLY);
	char why[160];

	(void)state;
	for (int i = 0; i < NQ; i++) {
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]), 0);
		admit(UID + (uid_t)i);
		fdqueue_init(&q[i], FDQUEUE_SHARED, UID + (uid_t)i);
	}
	for (int i = 0; i < NQ - 2; i++)
		pass(&q[i], sv[i], file, FDQUEUE_MAX);
	assert_int_equal(fdqueue_total(), FDQUEUE_MAX_TOTAL);
	assert_int_equal(clientcap_count(), NQ);
	/* The pool is full: the uids holding none get one each. */
	for (int i = NQ - 2; i < NQ; i++) {
		pass(&q[i], sv[i], file, FDQUEUE_MAX);
		assert_int_equal(q[i].n, 1);
		assert_int_equal(q[i].dropped, FDQUEUE_MAX - 1);
	}
	assert_int_equal(fdqueue_total(), FDQUEUE_MAX_TOTAL);
	assert_int_equal(clientcap_count(), NQ + 2);
	/* Root's are not held back by the pool, nor counted in it. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, rs), 0);
	fdqueue_init(&rq, FDQUEUE_PRIVILEGED, 0);
	pass(&rq, rs, file, FDQUEUE_MAX);
	assert_int_equal(rq.n, FDQUEUE_MAX);
	assert_int_equal(fdqueue_total(), FDQUEUE_MAX_TOTAL);
	fdqueue_clear(&rq);
	/* The one past the pool leaves with the descriptor. */
	fdqueue_clear(&q[NQ - 1]);
	assert_int_equal(clientcap_count(), NQ + 1);
	/* With no connection left to take, none past the pool either. */
	clientcap_set(NQ + 1 + 2, 2, CLIENTCAP_PER_UID);
	assert_false(clientcap_admit(UID + 100, why, sizeof(why)));
	pass(&q[NQ - 1], sv[NQ - 1], file, 1);
	assert_int_equal(q[NQ - 1].n, 0);
	assert_int_equal(clientcap_passed(UID + NQ - 1), 0);
	clientcap_set(CLIENTCAP_MAX_CLIENTS, CLIENTCAP_PRIVILEGED,
	    CLIENTCAP_PER_UID);
	for (int i = 0; i < NQ; i++) {
		fdqueue_clear(&q[i]);
		clientcap_release(UID + (uid_t)i);
		close(sv[i][0]);
		close(sv[i][1]);
	}
	assert_int_equal(fdqueue_total(), 0);
	assert_int_equal(clientcap_count(), 0);
	close(rs[0]);
	close(rs[1]);
	close(file);
	clientcap_reset();
}

/* EOF and an empty read come back as recv's. */
static void
test_eof(void **state)
{
	struct fdqueue q;
	int sv[2];
	char buf[8];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	fdqueue_init(&q, FDQUEUE_PRIVILEGED, 0);
	assert_int_equal(fdqueue_recv(&q, sv[0], buf, sizeof(buf)), -1);
	close(sv[1]);
	assert_int_equal(fdqueue_recv(&q, sv[0], buf, sizeof(buf)), 0);
	assert_int_equal(q.received, 0);
	close(sv[0]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_of_descriptor),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_refuse),
		cmocka_unit_test(test_per_uid),
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_eof),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
