/* Unix socket transport for stressctl: one request line out, one reply
 * line back. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "client.h"
#include "util.h"

/* Replies are normally far below this; the cap only stops a runaway peer
 * from eating all memory. */
#define CLIENT_MAX_REPLY	(16 * 1024 * 1024)

static double connect_timeout;	/* seconds; <= 0: none */

void
client_set_connect_timeout(double seconds)
{
	connect_timeout = seconds;
}

/* Blocking connect, bounded by connect_timeout: a Unix socket's connect
 * waits while the daemon's backlog is full, at most SO_SNDTIMEO (which
 * also bounds sending the request); it then fails with EAGAIN. */
static int
connect_socket(const char *path, enum client_status *st, char *err,
    size_t errlen)
{
	struct sockaddr_un sun;
	struct timeval tv;
	int fd = -1;

	*st = CLIENT_CONNECT;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(err, errlen, "cannot connect to %s: socket path too "
		    "long (at most %zu bytes)", path, sizeof(sun.sun_path) - 1);
		goto fail;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);

	/* CLOEXEC: nothing we run should inherit the control connection. */
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		snprintf(err, errlen, "cannot connect to %s: socket: %s", path,
		    strerror(errno));
		goto fail;
	}
	if (connect_timeout > 0) {
		tv.tv_sec = (time_t)connect_timeout;
		tv.tv_usec = (suseconds_t)((connect_timeout -
		    (double)tv.tv_sec) * 1e6);
		if (tv.tv_sec == 0 && tv.tv_usec == 0)
			tv.tv_usec = 1;
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	}
	while (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN && connect_timeout > 0) {
			snprintf(err, errlen, "cannot connect to %s within %g s "
			    "(--timeout): its queue of connections is full; is "
			    "stressd stopped or overloaded?", path,
			    connect_timeout);
			*st = CLIENT_CONNECT_TIMEOUT;
			goto fail;
		}
		snprintf(err, errlen, "cannot connect to %s: %s%s", path,
		    strerror(errno),
		    errno == ENOENT || errno == ECONNREFUSED ?
		    " (is stressd running?)" : "");
		goto fail;
	}
	return fd;
fail:
	if (fd != -1)
		close(fd);
	return -1;
}

/* Milliseconds left until deadline for poll(); -1 = no deadline. */
static int
poll_timeout(double deadline)
{
	double left;

	if (deadline <= 0)
		return -1;
	left = (deadline - util_now()) * 1000.0;
	if (left <= 0)
		return 0;
	if (left >= INT_MAX)
		return INT_MAX;
	/* Round up so we never spin on a sub-millisecond remainder. */
	return (int)left + 1;
}

/* Read until '\n'; a reply may arrive in any number of pieces. */
static enum client_status
read_line(int fd, double deadline, double timeout, char **reply,
    const char *path, char *err, size_t errlen)
{
	char *buf = NULL, *nl;
	size_t len = 0, cap = 0;
	enum client_status st = CLIENT_IO;

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int r;

		if (cap - len < 4096) {
			size_t ncap = cap ? cap * 2 : 8192;
			char *nbuf;

			if (ncap > CLIENT_MAX_REPLY + 1)
				ncap = CLIENT_MAX_REPLY + 1;
			if (ncap <= len + 1) {
				snprintf(err, errlen, "%s: reply longer than "
				    "%d bytes", path, CLIENT_MAX_REPLY);
				goto fail;
			}
			if ((nbuf = realloc(buf, ncap)) == NULL) {
				snprintf(err, errlen, "%s: out of memory for "
				    "the reply", path);
				goto fail;
			}
			buf = nbuf;
			cap = ncap;
		}

		r = poll(&pfd, 1, poll_timeout(deadline));
		if (r == -1) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "%s: poll: %s", path,
			    strerror(errno));
			goto fail;
		}
		if (r == 0) {
			snprintf(err, errlen, "no reply from %s within %g s "
			    "(--timeout); is stressd stopped or overloaded?",
			    path, timeout);
			st = CLIENT_TIMEOUT;
			goto fail;
		}

		/* Leave room for the terminating NUL. */
		n = read(fd, buf + len, cap - len - 1);
		if (n == -1) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			snprintf(err, errlen, "%s: read: %s", path,
			    strerror(errno));
			goto fail;
		}
		if (n == 0) {
			snprintf(err, errlen, "%s: daemon closed the connection "
			    "%s", path, len ? "in the middle of a reply" :
			    "without replying");
			goto fail;
		}
		/* Only the new bytes can hold the first newline. */
		nl = memchr(buf + len, '\n', (size_t)n);
		len += (size_t)n;
		if (nl != NULL) {
			*nl = '\0';
			*reply = buf;
			return CLIENT_OK;
		}
	}
fail:
	free(buf);
	return st;
}

/* Send the first part of buf with fd attached, then the rest; 0 or -1
 * with errno set. */
static int
send_with_fd(int sock, const char *buf, size_t len, int fd)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { (void *)buf, len };
	struct msghdr msg;
	struct cmsghdr *cm;
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	memset(&ctl, 0, sizeof(ctl));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof(ctl.buf);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	while ((n = sendmsg(sock, &msg, MSG_NOSIGNAL)) == -1)
		if (errno != EINTR)
			return -1;
	return util_send_all(sock, buf + n, len - (size_t)n);
}

enum client_status
client_call(const char *path, const char *line, double timeout, char **reply,
    char *err, size_t errlen)
{
	return client_call_fd(path, line, -1, timeout, reply, err, errlen);
}

enum client_status
client_call_fd(const char *path, const char *line, int pass_fd, double timeout,
    char **reply, char *err, size_t errlen)
{
	enum client_status st;
	double deadline = timeout > 0 ? util_now() + timeout : 0;
	char *msg = NULL;
	size_t len = strlen(line);
	int fd;

	*reply = NULL;
	if ((fd = connect_socket(path, &st, err, errlen)) == -1)
		return st;

	/* One buffer so the request goes out in one send when it can. */
	if ((msg = malloc(len + 2)) == NULL) {
		snprintf(err, errlen, "out of memory");
		st = CLIENT_IO;
		goto out;
	}
	memcpy(msg, line, len);
	msg[len] = '\n';
	msg[len + 1] = '\0';
	if ((pass_fd != -1 ? send_with_fd(fd, msg, len + 1, pass_fd) :
	    util_send_all(fd, msg, len + 1)) == -1) {
		int e = errno;

		/* The daemon may have answered and closed before the request
		 * went out (a busy refusal): its line is still there. */
		if ((e == EPIPE || e == ECONNRESET) && read_line(fd, deadline,
		    timeout, reply, path, err, errlen) == CLIENT_OK) {
			st = CLIENT_OK;
			goto out;
		}
		st = e == EAGAIN ? CLIENT_CONNECT_TIMEOUT : CLIENT_IO;
		snprintf(err, errlen, "%s: send: %s%s", path, strerror(e),
		    st == CLIENT_CONNECT_TIMEOUT ? " (--timeout)" : "");
		goto out;
	}
	st = read_line(fd, deadline, timeout, reply, path, err, errlen);
out:
	free(msg);
	close(fd);
	return st;
}
