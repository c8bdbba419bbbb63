/*
 * rrdcfeed: feeds rrdcached the update stream a flat-out stressd run
 * writes, and times it until every value is on disk.
 *
 * Update i of the run goes to file i % N, as stressd's generators take
 * files from one round-robin cursor; the k-th value this run sends to a
 * file carries last + k*step (last: the file's rrd_last, read before the
 * timed part) and rawupdate's synthetic value.  The lines are formatted
 * before the clock starts, so the timed part is write(2) on the socket
 * and rrdcached's work.  With C connections, file f's lines go on
 * connection f % C, so each file's values still arrive in order.
 *
 * Timed: from the first UPDATE line written, through every BATCH's "."
 * and its reply, FLUSHALL, to the first STATS that shows an empty queue
 * and DataSetsWritten grown by M.  Then, untimed, rrd_last of every file
 * is checked against the timestamps sent.
 *
 * --null sends the same stream into a socket pair drained by a thread
 * instead: the feeder's own speed, to show it is not the bottleneck.
 */
#include <sys/socket.h>
#include <sys/un.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rrd.h>

#include "benchutil.h"
#include "util.h"

#define FEED_MAX_CONN		64
#define FEED_LINE_MAX		96	/* "UPDATE <n>.rrd <ts>:<v>\n" */

struct feed_opts {
	const char	*sock;
	const char	*dir;
	uint64_t	 files;
	uint64_t	 updates;
	uint64_t	 step;
	uint64_t	 conns;
	double		 timeout;
	bool		 null;
};

/* One connection: its pre-formatted lines, its socket, and what the
 * server said at the end of its BATCH. */
struct feed_conn {
	char		*text;
	size_t		 len;
	uint64_t	 lines;
	int		 fd;
	int		 drain_fd;	/* --null: the other end */
	pthread_t	 tid, drain_tid;
	long		 errors;	/* from the BATCH reply; -1: I/O error */
	char		 first_err[512];
	uint64_t	 drained;	/* --null: bytes read */
};

struct feed_stats {
	uint64_t	queue_length;
	uint64_t	updates_received;
	uint64_t	updates_written;
	uint64_t	data_sets_written;
};

static void
feed_usage(FILE *fp)
{
	fprintf(fp,
	    "usage: rrdcfeed --socket PATH --dir D --files N --updates M\n"
	    "                [--step 300] [--connections C] [--timeout S]\n"
	    "       rrdcfeed --null --dir D --files N --updates M [...]\n"
	    "Sends M updates to D/<n>.rrd (n < N) through rrdcached on PATH\n"
	    "(started with -b D) in BATCH mode, FLUSHALL, waits for STATS to\n"
	    "show them written, checks rrd_last, and prints one JSON line.\n");
}

/* Read one line (without its newline) into buf; a tiny per-fd buffer
 * would be faster, but only replies are read this way, never the stream.
 * Returns 0, or -1 on EOF or error. */
static int
feed_read_line(int fd, char *buf, size_t size)
{
	size_t n = 0;
	char c;

	for (;;) {
		ssize_t r = read(fd, &c, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		if (c == '\n')
			break;
		if (n + 1 < size)
			buf[n++] = c;
	}
	buf[n] = '\0';
	return 0;
}

static int
feed_connect(const char *path)
{
	struct sockaddr_un sun;
	int fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "rrdcfeed: socket path too long: %s\n", path);
		return -1;
	}
	strcpy(sun.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		fprintf(stderr, "rrdcfeed: connect %s: %s\n", path,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	return fd;
}

/* One command whose reply is a status line "<n> text": returns n (the
 * count of lines that follow for STATS, an error when negative). */
static long
feed_command(int fd, const char *cmd, char *line, size_t size)
{
	if (util_send_all(fd, cmd, strlen(cmd)) == -1 ||
	    feed_read_line(fd, line, size) == -1)
		return -1000;
	return strtol(line, NULL, 10);
}

static int
feed_stats(int fd, struct feed_stats *st)
{
	char line[256];
	long n;

	memset(st, 0, sizeof(*st));
	if ((n = feed_command(fd, "STATS\n", line, sizeof(line))) < 0) {
		fprintf(stderr, "rrdcfeed: STATS: %s\n", line);
		return -1;
	}
	for (long i = 0; i < n; i++) {
		char name[64];
		unsigned long long v;

		if (feed_read_line(fd, line, sizeof(line)) == -1)
			return -1;
		if (sscanf(line, "%63[^:]: %llu", name, &v) != 2)
			continue;
		if (strcmp(name, "QueueLength") == 0)
			st->queue_length = v;
		else if (strcmp(name, "UpdatesReceived") == 0)
			st->updates_received = v;
		else if (strcmp(name, "UpdatesWritten") == 0)
			st->updates_written = v;
		else if (strcmp(name, "DataSetsWritten") == 0)
			st->data_sets_written = v;
	}
	return 0;
}

/* Send a connection's lines and the closing ".", read the BATCH reply:
 * "<errors> errors" then one line per error. */
static void *
feed_conn_main(void *arg)
{
	struct feed_conn *c = arg;
	char line[512];

	c->errors = -1;
	if (util_send_all(c->fd, c->text, c->len) == -1 ||
	    util_send_all(c->fd, ".\n", 2) == -1) {
		snprintf(c->first_err, sizeof(c->first_err), "write: %s",
		    strerror(errno));
		return NULL;
	}
	if (feed_read_line(c->fd, line, sizeof(line)) == -1) {
		snprintf(c->first_err, sizeof(c->first_err),
		    "no reply to the end of BATCH");
		return NULL;
	}
	c->errors = strtol(line, NULL, 10);
	for (long i = 0; i < c->errors; i++) {
		if (feed_read_line(c->fd, line, sizeof(line)) == -1)
			break;
		if (i == 0)
			snprintf(c->first_err, sizeof(c->first_err), "%s",
			    line);
	}
	return NULL;
}

/* --null: read everything the feeder sends, as a server that does nothing
 * with it would. */
static void *
feed_drain_main(void *arg)
{
	struct feed_conn *c = arg;
	char buf[65536];
	ssize_t n;

	while ((n = read(c->drain_fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		c->drained += (uint64_t)n;
	}
	return NULL;
}

static int
feed_parse_args(int argc, char **argv, struct feed_opts *o)
{
	enum { O_SOCK = 256, O_DIR, O_FILES, O_UPDATES, O_STEP, O_CONNS,
	    O_TIMEOUT, O_NULL, O_HELP };
	static const struct option longopts[] = {
		{ "socket",		required_argument, NULL, O_SOCK },
		{ "dir",		required_argument, NULL, O_DIR },
		{ "files",		required_argument, NULL, O_FILES },
		{ "updates",		required_argument, NULL, O_UPDATES },
		{ "step",		required_argument, NULL, O_STEP },
		{ "connections",	required_argument, NULL, O_CONNS },
		{ "timeout",		required_argument, NULL, O_TIMEOUT },
		{ "null",		no_argument,	   NULL, O_NULL },
		{ "help",		no_argument,	   NULL, O_HELP },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t timeout = 600;
	int ch, rv = 0;

	memset(o, 0, sizeof(*o));
	o->step = 300;
	o->conns = 1;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case O_SOCK:
			o->sock = optarg;
			break;
		case O_DIR:
			o->dir = optarg;
			break;
		case O_FILES:
			rv |= bench_parse_u64("rrdcfeed", "files", optarg, 1,
			    100000000, &o->files);
			break;
		case O_UPDATES:
			rv |= bench_parse_u64("rrdcfeed", "updates", optarg, 1,
			    UINT64_C(1) << 32, &o->updates);
			break;
		case O_STEP:
			rv |= bench_parse_u64("rrdcfeed", "step", optarg, 1,
			    31536000, &o->step);
			break;
		case O_CONNS:
			rv |= bench_parse_u64("rrdcfeed", "connections", optarg,
			    1, FEED_MAX_CONN, &o->conns);
			break;
		case O_TIMEOUT:
			rv |= bench_parse_u64("rrdcfeed", "timeout", optarg, 1,
			    86400, &timeout);
			break;
		case O_NULL:
			o->null = true;
			break;
		case O_HELP:
			feed_usage(stdout);
			exit(0);
		default:
			feed_usage(stderr);
			return -1;
		}
	}
	o->timeout = (double)timeout;
	if (optind < argc || o->dir == NULL || o->files == 0 ||
	    o->updates == 0 || (o->sock == NULL && !o->null)) {
		fprintf(stderr, "rrdcfeed: --dir, --files, --updates and "
		    "--socket (or --null) are required\n");
		rv = -1;
	}
	if (rv != 0)
		feed_usage(stderr);
	return rv;
}

int
main(int argc, char **argv)
{
	struct feed_opts o;
	struct feed_conn *conns = NULL;
	struct feed_stats st0, st;
	time_t *last = NULL;
	uint64_t *sent = NULL, calls = 0, sets = 0, bad_last = 0;
	size_t bytes = 0;
	char path[4096], line[512];
	double t0, t_fed, t_end = 0, feed_s, total_s;
	long errors = 0;
	int ctl = -1, status = 1;
	bool io_error = false;

	if (feed_parse_args(argc, argv, &o) != 0)
		return 2;
	if ((conns = calloc(o.conns, sizeof(*conns))) == NULL ||
	    (last = calloc(o.files, sizeof(*last))) == NULL ||
	    (sent = calloc(o.files, sizeof(*sent))) == NULL)
		goto nomem;
	for (uint64_t c = 0; c < o.conns; c++)
		conns[c].fd = conns[c].drain_fd = -1;

	/* Untimed: each file's last update, then the whole stream as text. */
	for (uint64_t f = 0; f < o.files; f++) {
		snprintf(path, sizeof(path), "%s/%" PRIu64 ".rrd", o.dir, f);
		if ((last[f] = rrd_last_r(path)) == (time_t)-1) {
			fprintf(stderr, "rrdcfeed: %s\n", rrd_get_error());
			goto out;
		}
	}
	for (uint64_t c = 0; c < o.conns; c++) {
		/* Files c, c + C, ...: at most ceil(N / C) files of
		 * ceil(M / N) lines each. */
		size_t cap = (o.updates / o.conns + o.files + o.updates /
		    o.files + 2) * FEED_LINE_MAX;

		if ((conns[c].text = malloc(cap)) == NULL)
			goto nomem;
	}
	for (uint64_t i = 0; i < o.updates; i++) {
		uint64_t f = i % o.files, k = ++sent[f];
		struct feed_conn *c = &conns[f % o.conns];

		c->len += (size_t)snprintf(c->text + c->len, FEED_LINE_MAX,
		    "UPDATE %" PRIu64 ".rrd %lld:%" PRIu64 "\n", f,
		    (long long)last[f] + (long long)(k * o.step),
		    (f * 7919 + k) % 100000 + 1);
		c->lines++;
	}

	/* Connect and enter BATCH mode everywhere before the clock starts. */
	if (!o.null) {
		if ((ctl = feed_connect(o.sock)) == -1 ||
		    feed_stats(ctl, &st0) == -1)
			goto out;
	}
	for (uint64_t c = 0; c < o.conns; c++) {
		if (o.null) {
			int sv[2];

			if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
			    sv) == -1) {
				fprintf(stderr, "rrdcfeed: socketpair: %s\n",
				    strerror(errno));
				goto out;
			}
			conns[c].fd = sv[0];
			conns[c].drain_fd = sv[1];
			continue;
		}
		if ((conns[c].fd = feed_connect(o.sock)) == -1)
			goto out;
		if (feed_command(conns[c].fd, "BATCH\n", line,
		    sizeof(line)) != 0) {
			fprintf(stderr, "rrdcfeed: BATCH refused: %s\n", line);
			goto out;
		}
	}

	t0 = util_now();
	for (uint64_t c = 0; c < o.conns; c++) {
		if (o.null && pthread_create(&conns[c].drain_tid, NULL,
		    feed_drain_main, &conns[c]) != 0)
			goto threads;
		if (!o.null && pthread_create(&conns[c].tid, NULL,
		    feed_conn_main, &conns[c]) != 0)
			goto threads;
	}
	if (o.null) {
		/* The whole text in send(2) calls as large as the socket
		 * takes, then EOF: the drain thread ends when it read all. */
		for (uint64_t c = 0; c < o.conns; c++) {
			if (util_send_all(conns[c].fd, conns[c].text,
			    conns[c].len) == -1)
				io_error = true;
			shutdown(conns[c].fd, SHUT_WR);
		}
		for (uint64_t c = 0; c < o.conns; c++) {
			pthread_join(conns[c].drain_tid, NULL);
			io_error |= conns[c].drained != conns[c].len;
		}
		t_fed = t_end = util_now();
		goto report;
	}
	for (uint64_t c = 0; c < o.conns; c++) {
		pthread_join(conns[c].tid, NULL);
		if (conns[c].errors < 0) {
			fprintf(stderr, "rrdcfeed: connection %" PRIu64
			    ": %s\n", c, conns[c].first_err);
			io_error = true;
		} else if (conns[c].errors > 0) {
			fprintf(stderr, "rrdcfeed: connection %" PRIu64
			    ": %ld errors; first: %s\n", c, conns[c].errors,
			    conns[c].first_err);
			errors += conns[c].errors;
		}
	}
	t_fed = util_now();
	if (io_error)
		goto out;
	if (feed_command(ctl, "FLUSHALL\n", line, sizeof(line)) != 0) {
		fprintf(stderr, "rrdcfeed: FLUSHALL: %s\n", line);
		goto out;
	}
	/*
	 * Written when the queue is empty and the values counted; a 0.5 ms
	 * poll costs rrdcached one STATS under its stats lock, and bounds
	 * the error of the end time.
	 */
	for (;;) {
		if (feed_stats(ctl, &st) == -1)
			goto out;
		if (st.queue_length == 0 && st.data_sets_written -
		    st0.data_sets_written >= o.updates - (uint64_t)errors) {
			t_end = util_now();
			break;
		}
		if (util_now() - t0 > o.timeout) {
			fprintf(stderr, "rrdcfeed: not written after %.0f s: "
			    "QueueLength %" PRIu64 ", %" PRIu64 " of %" PRIu64
			    " data sets\n", o.timeout, st.queue_length,
			    st.data_sets_written - st0.data_sets_written,
			    o.updates);
			goto out;
		}
		usleep(500);
	}
	calls = st.updates_written - st0.updates_written;
	sets = st.data_sets_written - st0.data_sets_written;

	/* Untimed: did every value land?  rrdcached counts a data set as
	 * written even when rrd_update_r failed, so ask the files. */
	for (uint64_t f = 0; f < o.files; f++) {
		snprintf(path, sizeof(path), "%s/%" PRIu64 ".rrd", o.dir, f);
		if (rrd_last_r(path) != last[f] +
		    (time_t)(sent[f] * o.step))
			bad_last++;
	}

report:
	for (uint64_t c = 0; c < o.conns; c++)
		bytes += conns[c].len;
	feed_s = t_fed - t0;
	total_s = t_end - t0;
	printf("{\"files\":%" PRIu64 ",\"updates\":%" PRIu64
	    ",\"connections\":%" PRIu64 ",\"null\":%s,\"bytes\":%zu"
	    ",\"feed_seconds\":%.6f,\"seconds\":%.6f,\"updates_per_s\":%.1f"
	    ",\"update_calls\":%" PRIu64 ",\"data_sets_written\":%" PRIu64
	    ",\"values_per_call\":%.2f,\"errors\":%ld"
	    ",\"files_short\":%" PRIu64 "}\n",
	    o.files, o.updates, o.conns, o.null ? "true" : "false", bytes,
	    feed_s, total_s,
	    total_s > 0 ? (double)o.updates / total_s : 0.0, calls, sets,
	    calls > 0 ? (double)sets / (double)calls : 0.0, errors, bad_last);
	fflush(stdout);
	status = errors == 0 && bad_last == 0 && !io_error ? 0 : 1;
	if (bad_last > 0)
		fprintf(stderr, "rrdcfeed: %" PRIu64 " files do not end at "
		    "the last timestamp sent\n", bad_last);
	goto out;
threads:
	fprintf(stderr, "rrdcfeed: cannot start a thread\n");
	exit(1);
nomem:
	fprintf(stderr, "rrdcfeed: out of memory\n");
out:
	if (ctl != -1)
		close(ctl);
	for (uint64_t c = 0; conns != NULL && c < o.conns; c++) {
		if (conns[c].fd != -1)
			close(conns[c].fd);
		if (conns[c].drain_fd != -1)
			close(conns[c].drain_fd);
		free(conns[c].text);
	}
	free(conns);
	free(last);
	free(sent);
	return status;
}
