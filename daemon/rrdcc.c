/*
 * Written by hand, not with librrd's client: the issue asks for one
 * connection per writer thread, and Debian 12's librrd 1.7.2 exports only
 * the process-wide rrdc_* calls (one connection and one lock for every
 * thread; not even rrdc_flushall), not the per-handle rrd_client_* its
 * header declares (nm -D librrd.so.8).  What is used of the protocol is
 * rrdcached(1)'s: a command per line; a reply "STATUS MESSAGE" where a
 * negative STATUS is an error and a positive one the count of lines that
 * follow.
 */
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostport.h"
#include "log.h"
#include "rrdcc.h"
#include "util.h"

struct rrdcc {
	char	addr[300];
	int	fd;
	int	timeout_ms;	/* of a connect, a reply, a send */
	bool	resend;		/* a failed command goes once more */
	/* TCP: the address the name resolved to when a connection first
	 * worked, so later reconnects (the event loop's among them) make
	 * no DNS lookup, which has no time limit */
	struct sockaddr_storage	sa;
	socklen_t		salen;
	char	rbuf[16384];
	size_t	rpos, rlen;
};

/* A reply: its status and first line; the lines after it go to each. */
struct reply {
	long	status;
	char	msg[1024];
	void	(*each)(void *arg, const char *line);
	void	*arg;
};

struct rrdcc *
rrdcc_new(const char *addr)
{
	struct rrdcc *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	snprintf(c->addr, sizeof(c->addr), "%s", addr);
	c->fd = -1;
	c->timeout_ms = RRDCC_TIMEOUT_S * 1000;
	c->resend = true;
	return c;
}

static void
disconnect(struct rrdcc *c)
{
	if (c->fd != -1)
		close(c->fd);
	c->fd = -1;
	c->rpos = c->rlen = 0;
}

void
rrdcc_free(struct rrdcc *c)
{
	if (c == NULL)
		return;
	disconnect(c);
	free(c);
}

void
rrdcc_set_timeout(struct rrdcc *c, int ms, bool resend)
{
	c->timeout_ms = ms;
	c->resend = resend;
	disconnect(c);	/* the next command connects with it */
}

const char *
rrdcc_addr(const struct rrdcc *c)
{
	return c->addr;
}

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
static int
open_socket(struct rrdcc *c, const char *addr, int ms, char *err,
    size_t errlen)
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
	if (c->salen > 0) {
		if ((fd = socket(c->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC,
		    0)) == -1 || connect_timed(fd, (struct sockaddr *)&c->sa,
		    c->salen, ms) == -1)
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
			if (ai->ai_addrlen <= sizeof(c->sa)) {
				memcpy(&c->sa, ai->ai_addr, ai->ai_addrlen);
				c->salen = ai->ai_addrlen;
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

int
rrdcc_connect(struct rrdcc *c, char *err, size_t errlen)
{
	if (c->fd != -1)
		return 0;
	c->fd = open_socket(c, c->addr, c->timeout_ms, err, errlen);
	return c->fd == -1 ? -1 : 0;
}

/* One line of the reply, without its newline; -1 on a closed, broken or
 * silent connection (err says which). */
static int
read_line(struct rrdcc *c, char *line, size_t len, char *err, size_t errlen)
{
	size_t n = 0;

	for (;;) {
		while (c->rpos < c->rlen) {
			char ch = c->rbuf[c->rpos++];

			if (ch == '\n') {
				line[n] = '\0';
				return 0;
			}
			if (n + 1 < len)	/* a longer line is cut */
				line[n++] = ch;
		}
		ssize_t r = recv(c->fd, c->rbuf, sizeof(c->rbuf), 0);

		if (r <= 0) {
			if (r == -1 && errno == EINTR)
				continue;
			snprintf(err, errlen, "rrdcached %s: %s", c->addr,
			    r == 0 ? "connection closed" : errno == EAGAIN ?
			    "no reply in time" : strerror(errno));
			return -1;
		}
		c->rpos = 0;
		c->rlen = (size_t)r;
	}
}

/* Send one command and read its reply on the connection as it is. */
static int
exchange_once(struct rrdcc *c, const char *cmd, size_t len, struct reply *r,
    char *err, size_t errlen)
{
	char line[1024], *end;

	if (rrdcc_connect(c, err, errlen) == -1)
		goto fail;
	if (util_send_all(c->fd, cmd, len) == -1) {
		snprintf(err, errlen, "rrdcached %s: send: %s", c->addr,
		    errno == EAGAIN ? "stalled, timed out" : strerror(errno));
		goto fail;
	}
	if (read_line(c, line, sizeof(line), err, errlen) == -1)
		goto fail;
	errno = 0;
	r->status = strtol(line, &end, 10);
	if (end == line || errno != 0) {
		snprintf(err, errlen, "rrdcached %s: not a reply: '%.200s'",
		    c->addr, line);
		goto fail;
	}
	snprintf(r->msg, sizeof(r->msg), "%s", *end == ' ' ? end + 1 : end);
	rrdfile_printable(r->msg);
	for (long i = 0; i < r->status; i++) {
		if (read_line(c, line, sizeof(line), err, errlen) == -1)
			goto fail;
		if (r->each != NULL)
			r->each(r->arg, line);
	}
	return 0;
fail:
	disconnect(c);
	return -1;
}

/*
 * A command and its reply; a connection that fails (or was lost since the
 * last command) is made anew and the command sent once more.  *retried
 * says whether it was, as the first may have been carried out.
 */
static int
exchange(struct rrdcc *c, const char *cmd, size_t len, struct reply *r,
    bool *retried, char *err, size_t errlen)
{
	int rc;

	*retried = false;
	if ((rc = exchange_once(c, cmd, len, r, err, errlen)) == 0 ||
	    !c->resend)
		return rc;
	*retried = true;
	return exchange_once(c, cmd, len, r, err, errlen);
}

/* "path: " before a connection's error, as every write error names its
 * file. */
static void
name_path(const char *path, char *err, size_t errlen)
{
	char tmp[1200];

	snprintf(tmp, sizeof(tmp), "%s", err);
	snprintf(err, errlen, "%.2000s: %s", path, tmp);
}

/* The time of the last value in a line of "ts:v" values. */
static double
last_time(const char *const *argv, int i)
{
	return strtod(argv[i], NULL);
}

/*
 * After a retry, "illegal attempt to update using time T when last update
 * time is L" with L at or past the line's last value means the first send
 * had landed and only its reply was lost.
 */
static bool
landed_before(const char *msg, double last)
{
	const char *s = strstr(msg, "when last update time is ");

	return strstr(msg, "illegal attempt to update") != NULL && s != NULL &&
	    strtod(s + strlen("when last update time is "), NULL) >= last;
}

/* "N errors, enqueued M value(s)." */
static long
enqueued_count(const char *msg)
{
	const char *s = strstr(msg, "enqueued ");

	return s != NULL ? strtol(s + strlen("enqueued "), NULL, 10) : -1;
}

static void
keep_first(void *arg, const char *line)
{
	char *first = arg;

	if (first[0] == '\0')
		snprintf(first, 512, "%s", line);
}

int
rrdcc_update(struct rrdcc *c, const char *path, int argc,
    const char *const *argv, int *done, enum rrdfile_kind *kind, char *err,
    size_t errlen)
{
	char line[RRDCC_LINE_MAX + 1], first[512];
	size_t head = (size_t)snprintf(line, sizeof(line), "UPDATE %s", path);
	struct reply r;
	bool retried;
	int i = 0;

	*done = 0;
	if (head + 2 >= sizeof(line)) {
		snprintf(err, errlen, "%.2000s: path too long for rrdcached's "
		    "%d-byte command line", path, RRDCC_LINE_MAX);
		*kind = RRDFILE_OTHER;
		return -1;
	}
	while (i < argc) {
		size_t len = head;
		int from = i;
		long took;

		/* As many values as fit the line, at least one. */
		while (i < argc && (len + 1 + strlen(argv[i]) + 1 <
		    sizeof(line) || i == from)) {
			size_t vl = strlen(argv[i]);

			if (len + 1 + vl + 1 >= sizeof(line)) {
				snprintf(err, errlen, "%.2000s: a value too "
				    "long for rrdcached's command line", path);
				*kind = RRDFILE_OTHER;
				return -1;
			}
			line[len++] = ' ';
			memcpy(line + len, argv[i], vl);
			len += vl;
			i++;
		}
		line[len++] = '\n';
		memset(&r, 0, sizeof(r));
		first[0] = '\0';
		r.each = keep_first;
		r.arg = first;
		if (exchange(c, line, len, &r, &retried, err, errlen) == -1) {
			name_path(path, err, errlen);
			*kind = RRDFILE_CONNECTION;
			return -1;
		}
		if (r.status < 0 && retried &&
		    landed_before(r.msg, last_time(argv, i - 1))) {
			*done += i - from;
			continue;
		}
		if (r.status < 0) {
			snprintf(err, errlen, "%.2000s: rrdcached: %s", path,
			    r.msg);
			*kind = rrdfile_kind_of_message(r.msg);
			return -1;
		}
		took = enqueued_count(r.msg);
		if (took < 0 || took > i - from)
			took = r.status > 0 ? 0 : i - from;
		*done += (int)took;
		if (took < i - from) {
			snprintf(err, errlen, "%.2000s: rrdcached took %ld of "
			    "%d values: %s", path, took, i - from,
			    first[0] != '\0' ? first : r.msg);
			*kind = rrdfile_kind_of_message(first);
			return -1;
		}
	}
	return 0;
}

int
rrdcc_create(struct rrdcc *c, const struct stress_params *p,
    const char *path, time_t last_up, enum rrdfile_kind *kind, char *err,
    size_t errlen)
{
	char ds[64][48], *cmd = NULL;
	const char *argv[64 + KNOBS_MAX_RRAS];
	int argc = rrdfile_create_args(p, ds, argv);
	size_t len = 0, cap = 64 + strlen(path);
	struct reply r;
	bool retried;
	int rc = -1;

	for (int i = 0; i < argc; i++)
		cap += strlen(argv[i]) + 1;
	if ((cmd = malloc(cap)) == NULL)
		fatal("rrdcached create");
	/* rrdcached keeps a file's last update time after the file is gone
	 * (a directory removed, a filesystem made anew between runs): the
	 * new file's updates, from the start again, would all be refused
	 * as older.  FORGET drops that, whatever its answer. */
	len = (size_t)snprintf(cmd, cap, "FORGET %s\n", path);
	memset(&r, 0, sizeof(r));
	if (exchange(c, cmd, len, &r, &retried, err, errlen) == -1) {
		name_path(path, err, errlen);
		if (kind != NULL)
			*kind = RRDFILE_CONNECTION;
		goto out;
	}
	len = (size_t)snprintf(cmd, cap, "CREATE %s -s %llu -b %lld", path,
	    (unsigned long long)p->step, (long long)last_up);
	for (int i = 0; i < argc; i++)
		len += (size_t)snprintf(cmd + len, cap - len, " %s", argv[i]);
	cmd[len++] = '\n';
	if (len > RRDCC_LINE_MAX) {
		snprintf(err, errlen, "%.2000s: CREATE of %zu bytes, longer "
		    "than rrdcached's %d-byte command line (path or RRAs too "
		    "long)", path, len, RRDCC_LINE_MAX);
		if (kind != NULL)
			*kind = RRDFILE_OTHER;
		goto out;
	}
	memset(&r, 0, sizeof(r));
	if (exchange(c, cmd, len, &r, &retried, err, errlen) == -1) {
		name_path(path, err, errlen);
		if (kind != NULL)
			*kind = RRDFILE_CONNECTION;
		goto out;
	}
	if (r.status < 0) {
		snprintf(err, errlen, "%.2000s: rrdcached: %s", path, r.msg);
		if (kind != NULL)
			*kind = rrdfile_kind_of_message(r.msg);
		goto out;
	}
	rc = 0;
out:
	free(cmd);
	return rc;
}

/* INFO's lines: "key type value", type as rrd_info's. */
struct layout_acc {
	char	*out;
	size_t	 outlen, used;
	time_t	 last;
};

static void
layout_line(void *arg, const char *line)
{
	struct layout_acc *a = arg;
	char key[256];
	int type, off = 0;

	if (sscanf(line, "%255s %d %n", key, &type, &off) < 2 || off == 0)
		return;
	if (strcmp(key, "last_update") == 0 && type == 1)
		a->last = (time_t)strtoll(line + off, NULL, 10);
	rrdfile_layout_add(key, type, type == 0 ? strtod(line + off, NULL) : 0,
	    type == 1 ? strtoul(line + off, NULL, 10) : 0, line + off, a->out,
	    a->outlen, &a->used);
}

int
rrdcc_layout(struct rrdcc *c, const char *path, char *out, size_t outlen,
    time_t *last, enum rrdfile_kind *kind, char *err, size_t errlen)
{
	struct layout_acc a = { out, outlen, 0, 0 };
	char cmd[4400];
	struct reply r;
	bool retried;
	int len;

	out[0] = '\0';
	/* What rrdcached holds of the file is not in INFO, which reads
	 * the file: write it out first.  A file it does not hold is no
	 * error here. */
	len = snprintf(cmd, sizeof(cmd), "FLUSH %s\n", path);
	memset(&r, 0, sizeof(r));
	if (len < 0 || (size_t)len >= sizeof(cmd) ||
	    exchange(c, cmd, (size_t)len, &r, &retried, err, errlen) == -1)
		goto conn;
	len = snprintf(cmd, sizeof(cmd), "INFO %s\n", path);
	memset(&r, 0, sizeof(r));
	r.each = layout_line;
	r.arg = &a;
	if (exchange(c, cmd, (size_t)len, &r, &retried, err, errlen) == -1)
		goto conn;
	if (r.status < 0) {
		snprintf(err, errlen, "%.2000s: rrdcached: %s", path, r.msg);
		*kind = rrdfile_kind_of_message(r.msg);
		return -1;
	}
	if (a.used >= outlen) {
		snprintf(err, errlen, "%s: layout too large to compare", path);
		*kind = RRDFILE_OTHER;
		return -1;
	}
	*last = a.last;
	return 0;
conn:
	if (len < 0 || (size_t)len >= sizeof(cmd))
		snprintf(err, errlen, "%.2000s: path too long", path);
	*kind = RRDFILE_CONNECTION;
	return -1;
}

const struct rrdcc_field rrdcc_stat_fields[] = {
#define F(n, f) { n, offsetof(struct rrdcc_stats, f) }
	F("QueueLength", queue_length),
	F("UpdatesReceived", updates_received),
	F("FlushesReceived", flushes_received),
	F("UpdatesWritten", updates_written),
	F("DataSetsWritten", data_sets_written),
	F("TreeNodesNumber", tree_nodes_number),
	F("TreeDepth", tree_depth),
	F("JournalBytes", journal_bytes),
	F("JournalRotate", journal_rotate),
#undef F
};
const size_t rrdcc_nstat_fields =
    sizeof(rrdcc_stat_fields) / sizeof(rrdcc_stat_fields[0]);

uint64_t
rrdcc_stat_value(const struct rrdcc_stats *st, size_t i)
{
	return *(const uint64_t *)(const void *)((const char *)st +
	    rrdcc_stat_fields[i].off);
}

/* "Name: value" */
static void
stats_line(void *arg, const char *line)
{
	const char *colon = strchr(line, ':');

	if (colon == NULL)
		return;
	for (size_t i = 0; i < rrdcc_nstat_fields; i++) {
		const struct rrdcc_field *f = &rrdcc_stat_fields[i];

		if (strlen(f->name) == (size_t)(colon - line) &&
		    strncmp(line, f->name, (size_t)(colon - line)) == 0)
			*(uint64_t *)(void *)((char *)arg + f->off) =
			    strtoull(colon + 1, NULL, 10);
	}
}

/* A command whose error reply is an error of the call. */
static int
simple(struct rrdcc *c, const char *cmd, struct reply *r, char *err,
    size_t errlen)
{
	bool retried;

	if (exchange(c, cmd, strlen(cmd), r, &retried, err, errlen) == -1)
		return -1;
	if (r->status < 0) {
		snprintf(err, errlen, "rrdcached %s: %.*s: %s", c->addr,
		    (int)strcspn(cmd, "\n"), cmd, r->msg);
		return -1;
	}
	return 0;
}

int
rrdcc_stats(struct rrdcc *c, struct rrdcc_stats *s, char *err, size_t errlen)
{
	struct reply r;

	memset(s, 0, sizeof(*s));
	memset(&r, 0, sizeof(r));
	r.each = stats_line;
	r.arg = s;
	return simple(c, "STATS\n", &r, err, errlen);
}

int
rrdcc_flushall(struct rrdcc *c, char *err, size_t errlen)
{
	struct reply r;

	memset(&r, 0, sizeof(r));
	return simple(c, "FLUSHALL\n", &r, err, errlen);
}
