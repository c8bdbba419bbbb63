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
		fdqueue_init(&q);
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
	fdqueue_init(&q);
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
	close(sv[0]);
	close(sv[1]);
	assert_int_equal(open_fds(), base);
	close(file);
}

/* All connections together hold at most FDQUEUE_MAX_TOTAL. */
static void
test_total(void **state)
{
	enum { NQ = FDQUEUE_MAX_TOTAL / FDQUEUE_MAX + 1 };
	struct fdqueue q[NQ];
	int sv[NQ][2], file = open("/dev/null", O_RDONLY);
	char buf[16];
	unsigned dropped = 0;

	(void)state;
	for (int i = 0; i < NQ; i++) {
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]), 0);
		fdqueue_init(&q[i]);
		for (int k = 0; k < FDQUEUE_MAX; k++) {
			send_with(sv[i][1], "z", file, 1);
			assert_int_equal(recv_all(&q[i], sv[i][0], buf,
			    sizeof(buf), 16), 1);
		}
		dropped += (unsigned)q[i].dropped;
	}
	assert_int_equal(fdqueue_total(), FDQUEUE_MAX_TOTAL);
	assert_int_equal(dropped, NQ * FDQUEUE_MAX - FDQUEUE_MAX_TOTAL);
	/* Root's (and the daemon's uid's) connections are not held back by
	 * what others hold: root's --update-file always gets through. */
	{
		struct fdqueue rq;
		int rs[2];

		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, rs), 0);
		fdqueue_init(&rq);
		rq.privileged = true;
		send_with(rs[1], "z", file, 1);
		assert_int_equal(recv_all(&rq, rs[0], buf, sizeof(buf), 16), 1);
		assert_int_equal(rq.n, 1);
		assert_int_equal(rq.dropped, 0);
		fdqueue_clear(&rq);
		close(rs[0]);
		close(rs[1]);
	}
	for (int i = 0; i < NQ; i++) {
		fdqueue_clear(&q[i]);
		close(sv[i][0]);
		close(sv[i][1]);
	}
	assert_int_equal(fdqueue_total(), 0);
	close(file);
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
	fdqueue_init(&q);
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
		cmocka_unit_test(test_total),
		cmocka_unit_test(test_eof),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
