/* Connecting to rrdcached within a time limit, by any address form it
 * takes. */
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hostport.h"
#include "rrdccnet.h"

/* connect(2) within RRDCC_TIMEOUT_S: a TCP peer that never answers would
 * otherwise hold a writer for minutes. */
static int
connect_timed(int fd, const struct sockaddr *sa, socklen_t len, int ms)
{
	struct pollfd pfd = { fd, POLLOUT, 0 };
	int flags = fcntl(fd, F_GETFL), e = 0, rc;
	socklen_t elen = sizeof(e);

	if (flags == -1 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) == -1)
		return -1;
	if (connect(fd, sa, len) == -1) {
		if (errno != EINPROGRESS)
			return -1;
		while ((rc = poll(&pfd, 1, ms)) == -1 &&
		    errno == EINTR)
			;
		if (rc == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (rc == -1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e,
		    &elen) == -1)
			return -1;
		if (e != 0) {
			errno = e;
			return -1;
		}
	}
	return fcntl(fd, F_SETFL, flags);
}

/* ADDR as rrdcached takes it: unix:/path or /path, else host, host:port
 * or [v6]:port (port 42217 by default). */
int
rrdccnet_open(const char *addr, int ms, struct sockaddr_storage *sa,
    socklen_t *salen, char *err, size_t errlen)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	struct addrinfo hints, *res = NULL, *ai;
	struct hostport hp;
	char port[8];
	int fd = -1, rc, e = 0;

	if (strncmp(addr, "unix:", 5) == 0 || addr[0] == '/') {
		struct sockaddr_un sun;
		const char *path = addr[0] == '/' ? addr : addr + 5;

		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		if (strlen(path) >= sizeof(sun.sun_path)) {
			snprintf(err, errlen, "rrdcached %s: socket path too "
			    "long", addr);
			return -1;
		}
		memcpy(sun.sun_path, path, strlen(path));
		/* Blocking, bounded by SO_SNDTIMEO: a non-blocking connect
		 * to a Unix socket whose listen queue is full (rrdcached's
		 * is 10 deep) fails with EAGAIN at once, where a blocking one
		 * waits for room. */
		if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) ==
		    -1 || setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv,
		    sizeof(tv)) == -1)
			goto syserr;
		while ((rc = connect(fd, (struct sockaddr *)&sun,
		    sizeof(sun))) == -1 && errno == EINTR)
			;
		if (rc == -1) {
			if (errno == EAGAIN)
				errno = ETIMEDOUT;
			goto syserr;
		}
		goto opts;
	}
	if (*salen > 0) {
		if ((fd = socket(sa->ss_family, SOCK_STREAM | SOCK_CLOEXEC,
		    0)) == -1 || connect_timed(fd, (struct sockaddr *)sa,
		    *salen, ms) == -1)
			goto syserr;
		goto opts;
	}
	/* The target knob checked the address's shape. */
	if (hostport_split(addr, 0, &hp) != HOSTPORT_OK) {
		snprintf(err, errlen, "rrdcached %s: not host, host:port or "
		    "[v6]:port", addr);
		return -1;
	}
	snprintf(port, sizeof(port), "%ld", hp.port == -1 ? 42217L : hp.port);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if ((rc = getaddrinfo(hp.host, port, &hints, &res)) != 0) {
		snprintf(err, errlen, "rrdcached %s: %s", addr,
		    gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if ((fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol)) != -1 &&
		    connect_timed(fd, ai->ai_addr, ai->ai_addrlen, ms) == 0) {
			if (ai->ai_addrlen <= sizeof(*sa)) {
				memcpy(sa, ai->ai_addr, ai->ai_addrlen);
				*salen = ai->ai_addrlen;
			}
			break;
		}
		e = errno;
		if (fd != -1)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd == -1) {
		errno = e;
		goto syserr;
	}
opts:
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) == -1)
		goto syserr;
	return fd;
syserr:
	snprintf(err, errlen, "rrdcached %s: connect: %s", addr,
	    strerror(errno));
	if (fd != -1)
		close(fd);
	return -1;
}

