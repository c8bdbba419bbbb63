/*
 * Control-socket clients the shell tools cannot be, built by
 * tests/integration/protocol_abuse.sh at test time:
 *
 * sockclient many SOCKET N PID: open N connections to SOCKET, wait until
 * the daemon PID holds all of them (counted in /proc/PID/fd), then send
 * one request on each and wait for every reply.  Exit 0 when each
 * connection got {"ok":true,"id":<its number>,...}; else 1, naming the
 * first that did not.  (A thousand socat processes take longer to start
 * than the test should run, and one process with poll() can tell exactly
 * which connection went unanswered.)
 *
 * sockclient slowread SOCKET LINES...: with a 4 KiB receive buffer, send
 * the LINES pipelined, wait 0.5 s, then read slowly (16 KiB every 2 ms)
 * until as many replies came as lines were sent, the daemon closed, or
 * 8 s passed; print the bytes read, the replies counted and the first
 * 60 bytes of the second reply.
 *
 * sockclient bigline SOCKET BYTES: send one line of BYTES 'x' and no
 * newline, going on after the daemon stops reading or closes (socat
 * exits at the first failed write, before reading the reply); print what
 * came back and, on stderr, how many bytes the daemon took.
 *
 * sockclient repeat SOCKET N PERIOD SECONDS LINE: open N connections and,
 * every PERIOD s for SECONDS, send LINE on each whose last reply came
 * (a flood that never piles up unread requests); print the requests sent
 * and the replies read.
 *
 * sockclient latency SOCKET COUNT PAUSE LINE: COUNT times, PAUSE s apart,
 * connect, send LINE and read its reply line (30 s at most); print the
 * slowest of the fastest 99 % and the slowest, in ms ("p99 P max M").
 */
#include <signal.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
sockets_of(const char *pid)
{
	char path[64], link[384], dst[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		ssize_t len;

		snprintf(link, sizeof(link), "%s/%s", path, de->d_name);
		if ((len = readlink(link, dst, sizeof(dst) - 1)) <= 0)
			continue;
		dst[len] = '\0';
		if (strncmp(dst, "socket:", 7) == 0)
			n++;
	}
	closedir(d);
	return n;
}

static int
connect_to(const char *path)
{
	struct sockaddr_un sun;
	int fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		return -1;
	return fd;
}

static int
bigline(const char *path, long bytes)
{
	char chunk[65536], reply[4096];
	long sent = 0;
	size_t got = 0;
	ssize_t k;
	int fd;

	signal(SIGPIPE, SIG_IGN);
	if ((fd = connect_to(path)) == -1) {
		fprintf(stderr, "connect %s: %s\n", path, strerror(errno));
		return 1;
	}
	memset(chunk, 'x', sizeof(chunk));
	/* Non-blocking, so a daemon that stops reading ends the sending. */
	while (sent < bytes) {
		struct pollfd p = { fd, POLLOUT, 0 };
		long n = bytes - sent < (long)sizeof(chunk) ?
		    bytes - sent : (long)sizeof(chunk);

		if (poll(&p, 1, 2000) != 1 || (p.revents & POLLOUT) == 0)
			break;
		if ((k = send(fd, chunk, n, MSG_DONTWAIT)) <= 0)
			break;
		sent += k;
	}
	fprintf(stderr, "sent %ld of %ld bytes\n", sent, bytes);
	while (got < sizeof(reply) - 1 &&
	    (k = read(fd, reply + got, sizeof(reply) - 1 - got)) > 0)
		got += k;
	reply[got] = '\0';
	fputs(reply, stdout);
	close(fd);
	return 0;
}

static int
slowread(const char *path, int nlines, char **lines)
{
	int fd = connect_to(path), rcv = 4096, seen = 0;
	size_t len = 0, cap = 1 << 20;
	char *buf = malloc(cap), *second;
	double deadline;

	if (fd == -1 || buf == NULL)
		return 1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	for (int i = 0; i < nlines; i++)
		if (write(fd, lines[i], strlen(lines[i])) < 0 ||
		    write(fd, "\n", 1) != 1)
			return 1;
	usleep(500000);
	deadline = now() + 8;
	while (seen < nlines && now() < deadline) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		if (len + 16384 > cap && (buf = realloc(buf, cap *= 2)) ==
		    NULL)
			return 1;
		if ((n = read(fd, buf + len, 16384)) <= 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			seen += buf[len + i] == '\n';
		len += (size_t)n;
		usleep(2000);
	}
	buf[len < cap ? len : cap - 1] = '\0';
	second = strchr(buf, '\n');
	printf("%zu %d %.60s\n", len, seen, second != NULL ? second + 1 :
	    "-");
	return 0;
}

static void
sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

static int
repeat(const char *path, int n, double period, double secs,
    const char *line)
{
	struct pollfd *pfd = calloc(n, sizeof(*pfd));
	int *waiting = calloc(n, sizeof(*waiting));
	long sent = 0, replies = 0;
	double end = now() + secs, next = now();
	char buf[65536];

	signal(SIGPIPE, SIG_IGN);
	if (pfd == NULL || waiting == NULL)
		return 1;
	for (int i = 0; i < n; i++) {
		if ((pfd[i].fd = connect_to(path)) == -1) {
			fprintf(stderr, "connect %d: %s\n", i, strerror(errno));
			return 1;
		}
		pfd[i].events = POLLIN;
	}
	while (now() < end) {
		if (now() >= next) {
			for (int i = 0; i < n; i++)
				if (!waiting[i] && pfd[i].fd >= 0 &&
				    write(pfd[i].fd, line, strlen(line)) > 0 &&
				    write(pfd[i].fd, "\n", 1) == 1) {
					waiting[i] = 1;
					sent++;
				}
			next += period;
		}
		if (poll(pfd, n, 10) <= 0)
			continue;
		for (int i = 0; i < n; i++) {
			ssize_t k;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			if ((k = read(pfd[i].fd, buf, sizeof(buf))) <= 0) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				continue;
			}
			for (ssize_t j = 0; j < k; j++)
				if (buf[j] == '\n') {
					replies++;
					waiting[i] = 0;
				}
		}
	}
	printf("sent %ld replies %ld\n", sent, replies);
	return 0;
}

static int
by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
latency(const char *path, int count, double pause, const char *line)
{
	double *ms = calloc(count, sizeof(*ms));
	char buf[65536];

	if (ms == NULL)
		return 1;
	for (int i = 0; i < count; i++) {
		double t0 = now();
		int fd = connect_to(path), done = 0;

		if (fd == -1 || write(fd, line, strlen(line)) <= 0 ||
		    write(fd, "\n", 1) != 1) {
			fprintf(stderr, "request %d: %s\n", i, strerror(errno));
			return 1;
		}
		while (!done && now() - t0 < 30) {
			struct pollfd p = { fd, POLLIN, 0 };
			ssize_t k;

			if (poll(&p, 1, 1000) != 1)
				continue;
			if ((k = read(fd, buf, sizeof(buf))) <= 0)
				break;
			done = memchr(buf, '\n', k) != NULL;
		}
		close(fd);
		ms[i] = (now() - t0) * 1000;
		if (!done) {
			fprintf(stderr, "request %d: no reply in %.0f ms\n", i,
			    ms[i]);
			return 1;
		}
		sleep_s(pause);
	}
	qsort(ms, count, sizeof(*ms), by_double);
	printf("p99 %.1f max %.1f\n", ms[(count * 99 - 1) / 100],
	    ms[count - 1]);
	return 0;
}

int
main(int argc, char **argv)
{
	struct rlimit rl;
	struct pollfd *pfd;
	char **buf;
	size_t *got;
	int n, base, left;
	double t0, deadline;

	if (argc == 4 && strcmp(argv[1], "bigline") == 0)
		return bigline(argv[2], atol(argv[3]));
	if (argc == 7 && strcmp(argv[1], "repeat") == 0)
		return repeat(argv[2], atoi(argv[3]), atof(argv[4]),
		    atof(argv[5]), argv[6]);
	if (argc == 6 && strcmp(argv[1], "latency") == 0 && atoi(argv[3]) > 0)
		return latency(argv[2], atoi(argv[3]), atof(argv[4]), argv[5]);
	if (argc >= 4 && strcmp(argv[1], "slowread") == 0)
		return slowread(argv[2], argc - 3, argv + 3);
	if (argc != 5 || strcmp(argv[1], "many") != 0 ||
	    (n = atoi(argv[3])) <= 0) {
		fprintf(stderr, "usage: sockclient many SOCKET N PID\n"
		    "       sockclient bigline SOCKET BYTES\n"
		    "       sockclient slowread SOCKET LINE...\n"
		    "       sockclient repeat SOCKET N PERIOD SECONDS LINE\n"
		    "       sockclient latency SOCKET COUNT PAUSE LINE\n");
		return 2;
	}
	argv++;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	pfd = calloc(n, sizeof(*pfd));
	buf = calloc(n, sizeof(*buf));
	got = calloc(n, sizeof(*got));
	if (pfd == NULL || buf == NULL || got == NULL)
		return 1;
	base = sockets_of(argv[3]);
	for (int i = 0; i < n; i++) {
		if ((pfd[i].fd = connect_to(argv[1])) == -1) {
			fprintf(stderr, "connection %d of %d: %s\n", i + 1, n,
			    strerror(errno));
			return 1;
		}
		if ((buf[i] = malloc(4096)) == NULL)
			return 1;
	}
	/* All N are accepted and open at the daemon before any request. */
	deadline = now() + 60;
	while (sockets_of(argv[3]) < base + n) {
		if (now() > deadline) {
			fprintf(stderr, "the daemon never held %d connections "
			    "at once (%d)\n", n, sockets_of(argv[3]) - base);
			return 1;
		}
		usleep(50000);
	}
	t0 = now();
	for (int i = 0; i < n; i++) {
		char req[64];
		int len = snprintf(req, sizeof(req),
		    "{\"cmd\":\"status\",\"id\":%d}\n", i + 1);

		if (write(pfd[i].fd, req, len) != len) {
			fprintf(stderr, "connection %d: write: %s\n", i + 1,
			    strerror(errno));
			return 1;
		}
		pfd[i].events = POLLIN;
	}
	left = n;
	deadline = now() + 60;
	while (left > 0) {
		int r = poll(pfd, n, 1000);

		if (r == -1 || now() > deadline)
			break;
		for (int i = 0; i < n; i++) {
			ssize_t k;

			if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN |
			    POLLHUP | POLLERR)))
				continue;
			k = read(pfd[i].fd, buf[i] + got[i], 4095 - got[i]);
			if (k > 0)
				got[i] += k;
			buf[i][got[i]] = '\0';
			if (k <= 0 || strchr(buf[i], '\n') != NULL ||
			    got[i] == 4095) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				left--;
			}
		}
	}
	for (int i = 0; i < n; i++) {
		char id[32];

		snprintf(id, sizeof(id), "\"id\":%d,", i + 1);
		if (strstr(buf[i], "\"ok\":true") == NULL ||
		    strstr(buf[i], id) == NULL ||
		    strchr(buf[i], '\n') == NULL) {
			fprintf(stderr, "connection %d of %d: no good reply: "
			    "%.200s\n", i + 1, n, buf[i]);
			return 1;
		}
	}
	printf("%d clients connected at once, all answered in %.0f ms\n", n,
	    (now() - t0) * 1000);
	return 0;
}
