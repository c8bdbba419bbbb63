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
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "rrdcc.h"
#include "rrdccnet.h"
#include "util.h"

struct rrdcc {
	char	addr[300];
	int	fd;
	int	timeout_ms;	/* of an exchange: connect, send, reply */
	double	deadline;	/* util_now() the current exchange ends by */
	unsigned	gen;		/* abort_gen when the exchange began */
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
/* Bumped by rrdcc_abort_all: an exchange that sees it move gives up. */
static _Atomic unsigned abort_gen;

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

/* The connect of an exchange gets what is left of its deadline. */
static int
connect_by(struct rrdcc *c, int ms, char *err, size_t errlen)
{
	if (c->fd != -1)
		return 0;
	c->fd = rrdccnet_open(c->addr, ms, &c->sa, &c->salen, err, errlen);
	return c->fd == -1 ? -1 : 0;
}

int
rrdcc_connect(struct rrdcc *c, char *err, size_t errlen)
{
	return connect_by(c, c->timeout_ms, err, errlen);
}

/* Milliseconds left of the exchange's deadline, at least 0. */
static int
ms_left(const struct rrdcc *c)
{
	double left = c->deadline - util_now();

	return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

/* Wait for EVENTS on the connection within the exchange's deadline: 0, or
 * -1 with err naming the deadline and the command (WHAT). */
static int
wait_for(struct rrdcc *c, short events, const char *what, char *err,
    size_t errlen)
{
	struct pollfd pfd = { c->fd, events, 0 };
	int rc = 0, ms;

	/* In slices, to see an abort soon; never past the deadline, even for
	 * a peer that floods bytes without a newline. */
	do {
		if (abort_gen != c->gen) {
			snprintf(err, errlen, "rrdcached %s: %s abandoned: "
			    "the queue was discarded", c->addr, what);
			return -1;
		}
		if ((ms = ms_left(c)) == 0)
			break;
		rc = poll(&pfd, 1, ms < RRDCC_ABORT_SLICE_MS ? ms :
		    RRDCC_ABORT_SLICE_MS);
	} while ((rc == 0 && ms > RRDCC_ABORT_SLICE_MS) ||
	    (rc == -1 && errno == EINTR));
	if (rc > 0)
		return 0;
	snprintf(err, errlen, "rrdcached %s: no whole reply to %s within "
	    "%.3g s", c->addr, what, c->timeout_ms / 1000.0);
	return -1;
}

/* The whole command, within the exchange's deadline. */
static int
send_cmd(struct rrdcc *c, const char *cmd, size_t len, const char *what,
    char *err, size_t errlen)
{
	/* Sent first, waited for only when the socket is full: a command
	 * nearly always fits at once. */
	while (len > 0) {
		ssize_t n = send(c->fd, cmd, len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN) {
			if (wait_for(c, POLLOUT, what, err, errlen) == -1)
				return -1;
			continue;
		}
		if (n == -1) {
			snprintf(err, errlen, "rrdcached %s: send: %s",
			    c->addr, strerror(errno));
			return -1;
		}
		cmd += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One line of the reply, without its newline, within the exchange's
 * deadline (a peer that sends a byte at a time cannot stretch it); -1 on
 * a closed, broken or late connection (err says which). */
static int
read_line(struct rrdcc *c, char *line, size_t len, const char *what,
    char *err, size_t errlen)
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
		if (wait_for(c, POLLIN, what, err, errlen) == -1)
			return -1;
		ssize_t r = recv(c->fd, c->rbuf, sizeof(c->rbuf), MSG_DONTWAIT);

		if (r == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0) {
			snprintf(err, errlen, "rrdcached %s: %s", c->addr,
			    r == 0 ? "connection closed" : strerror(errno));
			return -1;
		}
		c->rpos = 0;
		c->rlen = (size_t)r;
	}
}

/* Send one command and read its reply on the connection as it is, by the
 * exchange's deadline. */
static int
exchange_once(struct rrdcc *c, const char *cmd, size_t len, struct reply *r,
    char *err, size_t errlen)
{
	char line[1024], what[32], *end;

	snprintf(what, sizeof(what), "%.*s", (int)strcspn(cmd, " \n"), cmd);
	if (connect_by(c, ms_left(c) > 0 ? ms_left(c) : 1, err, errlen) == -1 ||
	    send_cmd(c, cmd, len, what, err, errlen) == -1 ||
	    read_line(c, line, sizeof(line), what, err, errlen) == -1)
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
	/* No reply of ours has more lines (STATS about 10, INFO one per
	 * field): a peer announcing more is not rrdcached. */
	if (r->status > RRDCC_REPLY_LINES_MAX) {
		snprintf(err, errlen, "rrdcached %s: the reply to %s announces "
		    "%ld lines, at most %d", c->addr, what, r->status,
		    RRDCC_REPLY_LINES_MAX);
		goto fail;
	}
	for (long i = 0; i < r->status; i++) {
		if (read_line(c, line, sizeof(line), what, err, errlen) == -1)
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
 * says whether it was, as the first may have been carried out.  One
 * deadline, timeout_ms from now, bounds all of it: connect, send, reply
 * and the second try.
 */
static int
exchange(struct rrdcc *c, const char *cmd, size_t len, struct reply *r,
    bool *retried, char *err, size_t errlen)
{
	int rc;

	*retried = false;
	c->deadline = util_now() + c->timeout_ms / 1000.0;
	c->gen = abort_gen;
	if ((rc = exchange_once(c, cmd, len, r, err, errlen)) == 0 ||
	    !c->resend || ms_left(c) == 0)
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

void
rrdcc_abort_all(void)
{
	abort_gen++;
}
