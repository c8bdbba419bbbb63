/*
 * flood: hold many connections to a stressd socket, for the flood tests.
 *
 *	flood (-u PATH | -t PORT) -n N [-p PREFIX] [-d] [-o] [-s SECONDS]
 *	    [-w SECONDS]
 *
 * Opens N connections (Unix socket PATH, or 127.0.0.1:PORT), sends PREFIX
 * once on each (if given), then holds them for SECONDS (default 10),
 * sending one byte ('x') a second on each with -d (a slowloris).  With -o
 * a connect the backlog holds back is not retried (it counts as failed),
 * so the flood can fill a stopped daemon's backlog quickly.  With -w, after
 * the hold it stops sending and waits up to that long more for the peer to
 * close what is still open (a connection whose handshake the kernel
 * finished only at a late retry is accepted late, and its deadline counts
 * from there).  Prints
 * "connected C failed F" once the connects are done, then at the end
 * "open O closed K answered A" (closed: the peer closed it; answered: it
 * sent something) and "first: LINE", the first line any connection got.
 * Raises its own descriptor limit to the hard one.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct conn {
	int	fd;
	int	state;		/* 0 connecting, 1 open, 2 closed, 3 failed */
	int	answered;
};

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *upath;
static int port;

static int
try_connect(struct conn *c)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int rc;

	if (c->fd == -1) {
		c->fd = socket(upath ? AF_UNIX : AF_INET,
		    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (c->fd == -1)
			return -1;
	}
	if (upath) {
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", upath);
		rc = connect(c->fd, (struct sockaddr *)&sun, sizeof(sun));
	} else {
		sin.sin_port = htons((unsigned short)port);
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		rc = connect(c->fd, (struct sockaddr *)&sin, sizeof(sin));
	}
	if (rc == 0 || errno == EISCONN)
		return 1;
	if (errno == EAGAIN || errno == EINPROGRESS || errno == EALREADY ||
	    errno == EINTR)
		return 0;
	return -1;
}

int
main(int argc, char **argv)
{
	struct rlimit rl;
	struct conn *cs;
	struct pollfd *pf;
	const char *prefix = NULL;
	char first[512] = "", buf[4096];
	double hold = 10, linger = 0, end, next_drib;
	int n = 0, drib = 0, once = 0, ch, nconn = 0, nfail = 0, left;

	while ((ch = getopt(argc, argv, "u:t:n:p:dos:w:")) != -1) {
		switch (ch) {
		case 'u': upath = optarg; break;
		case 't': port = atoi(optarg); break;
		case 'n': n = atoi(optarg); break;
		case 'p': prefix = optarg; break;
		case 'd': drib = 1; break;
		case 'o': once = 1; break;
		case 's': hold = atof(optarg); break;
		case 'w': linger = atof(optarg); break;
		default:
			fprintf(stderr, "usage: flood (-u PATH | -t PORT) -n N "
			    "[-p PREFIX] [-d] [-o] [-s SECONDS]\n");
			return 2;
		}
	}
	if (n <= 0 || (upath == NULL && port <= 0))
		return 2;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	cs = calloc((size_t)n, sizeof(*cs));
	pf = calloc((size_t)n, sizeof(*pf));
	if (cs == NULL || pf == NULL)
		return 1;
	for (int i = 0; i < n; i++)
		cs[i].fd = -1;

	/* Connect all, retrying the ones the backlog held back, for at most
	 * 20 s. */
	end = now() + 20;
	do {
		left = 0;
		for (int i = 0; i < n; i++) {
			int r;

			if (cs[i].state != 0)
				continue;
			if ((r = try_connect(&cs[i])) == 1) {
				cs[i].state = 1;
				nconn++;
				if (prefix != NULL)
					(void)send(cs[i].fd, prefix,
					    strlen(prefix), MSG_NOSIGNAL);
			} else if (r == -1 || once) {
				cs[i].state = 3;
				nfail++;
			} else
				left++;
		}
		if (left > 0)
			usleep(10000);
	} while (left > 0 && now() < end);
	nfail += left;
	printf("connected %d failed %d\n", nconn, nfail);
	fflush(stdout);

	end = now() + hold;
	next_drib = now() + 1;
	while (now() < end + linger) {
		int np = 0;

		for (int i = 0; i < n; i++)
			if (cs[i].state == 1) {
				pf[np].fd = cs[i].fd;
				pf[np].events = POLLIN;
				pf[np].revents = 0;
				np++;
			}
		if (np == 0 && now() >= end)
			break;	/* lingering: all closed */
		if (poll(pf, (nfds_t)np, 100) > 0) {
			for (int i = 0, j = 0; i < n && j < np; i++) {
				ssize_t r;

				if (cs[i].state != 1)
					continue;
				if (pf[j++].revents == 0)
					continue;
				r = recv(cs[i].fd, buf, sizeof(buf) - 1, 0);
				if (r > 0) {
					buf[r] = '\0';
					if (!cs[i].answered && first[0] == '\0')
						snprintf(first, sizeof(first),
						    "%.*s", (int)strcspn(buf,
						    "\r\n"), buf);
					cs[i].answered = 1;
				} else if (r == 0 || (errno != EAGAIN &&
				    errno != EINTR)) {
					cs[i].state = 2;
					close(cs[i].fd);
				}
			}
		}
		if (drib && now() < end && now() >= next_drib) {
			for (int i = 0; i < n; i++)
				if (cs[i].state == 1)
					(void)send(cs[i].fd, "x", 1,
					    MSG_NOSIGNAL | MSG_DONTWAIT);
			next_drib += 1;
		}
	}
	{
		int open = 0, closed = 0, answered = 0;

		for (int i = 0; i < n; i++) {
			open += cs[i].state == 1;
			closed += cs[i].state == 2;
			answered += cs[i].answered;
		}
		printf("open %d closed %d answered %d\nfirst: %s\n", open,
		    closed, answered, first);
	}
	return 0;
}
