/*
 * daemon/rrdcc.c against a fake rrdcached: a thread serving a Unix socket
 * in a temporary directory, one connection at a time, that records every
 * line it receives (and on which connection) and answers as each test
 * scripts it: a reply, no reply and the connection closed (a lost
 * connection), or no reply at all (a stalled daemon).  Like rrdcached
 * 1.7.2 it drops a connection on a line of 8192 bytes or more.  The real
 * daemon is tests/integration/rrdcached.sh's.
 */
#include <sys/socket.h>
#include <sys/un.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <rrd.h>

#include "knobs.h"
#include "rrdcc.h"
#include "rrdfile.h"
#include "util.h"

#define MAX_LINES	64		/* recorded per test */
#define REPLY_MAX	65536
#define DROP_AT		8192		/* rrdcached 1.7.2's longest line + 1 */
#define BASE_TS		946710000LL

enum action {
	REPLY,		/* send the reply */
	CLOSE,		/* close the connection, no reply */
	SILENT,		/* never answer, keep reading */
};

struct fake;
/* Answer line, the nth (from 0) of the test; reply gets the whole reply,
 * newlines included. */
typedef enum action (*script_fn)(struct fake *f, const char *line, int nth,
    char *reply, size_t len);

struct fake {
	char		 dir[64];
	char		 sock[100];
	int		 lfd;
	pthread_t	 thread;
	pthread_mutex_t	 mu;		/* the fields below */
	bool		 stop;
	script_fn	 script;
	const char	*text;		/* a reply some scripts send */
	long long	 param;		/* and a number they use */
	char		*lines[MAX_LINES];	/* without the newline */
	int		 conn_of[MAX_LINES];
	int		 nlines;
	int		 nconns;
};

/* ------------------------------------------------------------ the fake */

static bool
stopping(struct fake *f)
{
	bool s;

	pthread_mutex_lock(&f->mu);
	s = f->stop;
	pthread_mutex_unlock(&f->mu);
	return s;
}

static enum action
take_line(struct fake *f, const char *line, int conn, char *reply,
    size_t len)
{
	enum action a;
	int nth;

	pthread_mutex_lock(&f->mu);
	nth = f->nlines;
	if (f->nlines < MAX_LINES) {
		f->lines[f->nlines] = strdup(line);
		f->conn_of[f->nlines++] = conn;
	}
	reply[0] = '\0';
	a = f->script(f, line, nth, reply, len);
	pthread_mutex_unlock(&f->mu);
	return a;
}

static void
send_reply(int fd, const char *s)
{
	size_t len = strlen(s);

	while (len > 0) {
		ssize_t w = send(fd, s, len, MSG_NOSIGNAL);

		if (w <= 0)
			return;		/* the client went away: its business */
		s += w;
		len -= (size_t)w;
	}
}

/* Serve one connection until the client closes it or a script does. */
static void
serve_conn(struct fake *f, int fd, int conn)
{
	size_t cap = 1 << 20, used = 0;
	char *buf = malloc(cap), *reply = malloc(REPLY_MAX), *nl;

	if (buf == NULL || reply == NULL)
		goto out;
	while (!stopping(f)) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		ssize_t r;

		if (poll(&pfd, 1, 20) <= 0)
			continue;
		if ((r = recv(fd, buf + used, cap - 1 - used, 0)) <= 0)
			break;
		used += (size_t)r;
		while ((nl = memchr(buf, '\n', used)) != NULL) {
			size_t ll = (size_t)(nl - buf);
			enum action a;

			*nl = '\0';
			a = take_line(f, buf, conn, reply, REPLY_MAX);
			memmove(buf, nl + 1, used - ll - 1);
			used -= ll + 1;
			if (ll + 1 >= DROP_AT || a == CLOSE)
				goto out;
			if (a == REPLY)
				send_reply(fd, reply);
		}
		if (used >= DROP_AT || used == cap - 1)
			goto out;
	}
out:
	free(buf);
	free(reply);
}

static void *
serve(void *arg)
{
	struct fake *f = arg;

	while (!stopping(f)) {
		struct pollfd pfd = { f->lfd, POLLIN, 0 };
		int fd, conn;

		if (poll(&pfd, 1, 20) <= 0)
			continue;
		if ((fd = accept(f->lfd, NULL, NULL)) == -1)
			continue;
		pthread_mutex_lock(&f->mu);
		conn = f->nconns++;
		pthread_mutex_unlock(&f->mu);
		serve_conn(f, fd, conn);
		close(fd);
	}
	return NULL;
}

/* The words after "UPDATE path": the values of an UPDATE line. */
static int
count_values(const char *line)
{
	int n = -2;

	for (const char *s = line; *s != '\0'; s++)
		if (*s != ' ' && (s == line || s[-1] == ' '))
			n++;
	return n < 0 ? 0 : n;
}

/* rrdcached's answer to an UPDATE it took whole; "0 ..." to others. */
static enum action
s_enqueue(struct fake *f, const char *line, int nth, char *reply, size_t len)
{
	(void)f;
	(void)nth;
	if (strncmp(line, "UPDATE ", 7) == 0)
		snprintf(reply, len, "0 errors, enqueued %d value(s).\n",
		    count_values(line));
	else
		snprintf(reply, len, "0 Success\n");
	return REPLY;
}

/* f->text to every line. */
static enum action
s_text(struct fake *f, const char *line, int nth, char *reply, size_t len)
{
	(void)line;
	(void)nth;
	snprintf(reply, len, "%s", f->text);
	return REPLY;
}

/* The connection lost after the line numbered f->param. */
static enum action
s_lose_once(struct fake *f, const char *line, int nth, char *reply,
    size_t len)
{
	if (nth == f->param)
		return CLOSE;
	return s_enqueue(f, line, nth, reply, len);
}

/* Lines from the second on: the connection lost, every time. */
static enum action
s_lose_from_second(struct fake *f, const char *line, int nth, char *reply,
    size_t len)
{
	if (nth >= 1)
		return CLOSE;
	return s_enqueue(f, line, nth, reply, len);
}

/* The first send is carried out but its reply lost; the resend is refused
 * as rrdcached refuses a time it has seen, last update f->param. */
static enum action
s_landed(struct fake *f, const char *line, int nth, char *reply, size_t len)
{
	(void)line;
	if (nth == 0)
		return CLOSE;
	snprintf(reply, len, "-1 illegal attempt to update using time %lld "
	    "when last update time is %lld (minimum one second step)\n",
	    f->param - 600, f->param);
	return REPLY;
}

/* FLUSH: "0 ..."; INFO: f->text. */
static enum action
s_info(struct fake *f, const char *line, int nth, char *reply, size_t len)
{
	(void)nth;
	if (strncmp(line, "INFO ", 5) == 0)
		snprintf(reply, len, "%s", f->text);
	else if (f->param == 0)
		snprintf(reply, len, "0 Successfully flushed %s.\n",
		    line + strlen("FLUSH "));
	else
		snprintf(reply, len, "-1 No such file: %s\n",
		    line + strlen("FLUSH "));
	return REPLY;
}

static enum action
s_silent(struct fake *f, const char *line, int nth, char *reply, size_t len)
{
	(void)f;
	(void)line;
	(void)nth;
	(void)reply;
	(void)len;
	return SILENT;
}

static void
set_script(struct fake *f, script_fn fn, const char *text, long long param)
{
	pthread_mutex_lock(&f->mu);
	f->script = fn;
	f->text = text;
	f->param = param;
	pthread_mutex_unlock(&f->mu);
}

/* Forget what was recorded. */
static void
reset(struct fake *f)
{
	pthread_mutex_lock(&f->mu);
	for (int i = 0; i < f->nlines && i < MAX_LINES; i++)
		free(f->lines[i]);
	f->nlines = 0;
	f->nconns = 0;
	pthread_mutex_unlock(&f->mu);
}

/* The fake's record, read once the client's call returned (a line is
 * recorded before it is answered or its connection closed). */
static int
nlines(struct fake *f)
{
	int n;

	pthread_mutex_lock(&f->mu);
	n = f->nlines;
	pthread_mutex_unlock(&f->mu);
	return n;
}

static int
setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct sockaddr_un sun;

	if (f == NULL)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/stressd-rrdcc.XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	snprintf(f->sock, sizeof(f->sock), "%s/sock", f->dir);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", f->sock);
	if ((f->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    bind(f->lfd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    listen(f->lfd, 8) == -1)
		return -1;
	pthread_mutex_init(&f->mu, NULL);
	f->script = s_enqueue;
	if (pthread_create(&f->thread, NULL, serve, f) != 0)
		return -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fake *f = *state;
	char path[200];

	pthread_mutex_lock(&f->mu);
	f->stop = true;
	pthread_mutex_unlock(&f->mu);
	pthread_join(f->thread, NULL);
	close(f->lfd);
	unlink(f->sock);
	snprintf(path, sizeof(path), "%s/l.rrd", f->dir);
	unlink(path);
	rmdir(f->dir);
	for (int i = 0; i < f->nlines && i < MAX_LINES; i++)
		free(f->lines[i]);
	pthread_mutex_destroy(&f->mu);
	free(f);
	return 0;
}

/* A client of the fake; a hung client fails in 5 s, not rrdcc's 10. */
static struct rrdcc *
client(struct fake *f)
{
	struct rrdcc *c = rrdcc_new(f->sock);

	assert_non_null(c);
	rrdcc_set_timeout(c, 5000, true);
	return c;
}

/* ------------------------------------------------------------ updates */

#define NVALUES		3000

/* NVALUES "ts:v" values, a step apart, and a path of about 200 bytes. */
struct batch {
	char		 path[256];
	char		 text[NVALUES][32];
	const char	*argv[NVALUES];
};

static struct batch *
batch_new(void)
{
	struct batch *b = calloc(1, sizeof(*b));

	assert_non_null(b);
	snprintf(b->path, sizeof(b->path), "/var/lib/stressd/%s/%s/%s/7.rrd",
	    "a-rather-long-directory-name-to-make-the-path-about-two-hundred",
	    "bytes-so-that-the-head-of-each-update-line-takes-its-share",
	    "of-the-eight-thousand-bytes-rrdcached-takes-in-one-line");
	for (int i = 0; i < NVALUES; i++) {
		snprintf(b->text[i], sizeof(b->text[i]), "%lld:%d.5",
		    BASE_TS + 300LL * (i + 1), 123456 + i);
		b->argv[i] = b->text[i];
	}
	return b;
}

/*
 * Lines [from, to) of the record are UPDATE lines of b's path, no longer
 * than rrdcached takes, whose values, in order, are b's whole: *values
 * of the first line.
 */
static void
assert_lines_carry(struct fake *f, const struct batch *b, int from, int to,
    int *first_values)
{
	char head[300];
	size_t hl = (size_t)snprintf(head, sizeof(head), "UPDATE %s ",
	    b->path);
	int k = 0;

	for (int i = from; i < to; i++) {
		const char *s = f->lines[i], *e;
		int n = 0;

		assert_true(strlen(s) <= RRDCC_LINE_MAX);
		assert_true(strlen(s) + 1 < DROP_AT);
		assert_memory_equal(s, head, hl);
		for (s += hl; *s != '\0'; s = *e == ' ' ? e + 1 : e, n++) {
			e = s + strcspn(s, " ");
			if (k >= NVALUES)
				fail_msg("line %d: more values than sent", i);
			if ((size_t)(e - s) != strlen(b->argv[k]) ||
			    memcmp(s, b->argv[k], (size_t)(e - s)) != 0)
				fail_msg("line %d: value %d is '%.*s', want "
				    "'%s'", i, k, (int)(e - s), s, b->argv[k]);
			k++;
		}
		assert_true(n > 0);
		if (i == from && first_values != NULL)
			*first_values = n;
	}
	assert_int_equal(k, NVALUES);
}

/* 3000 values: several lines, each within the limit, all in order. */
static void
test_update_split(void **state)
{
	struct fake *f = *state;
	struct batch *b = batch_new();
	struct rrdcc *c = client(f);
	enum rrdfile_kind kind = RRDFILE_NKINDS;
	char err[512] = "";
	int done = -1, n, longest = 0;

	assert_true(strlen(b->path) >= 190);
	assert_int_equal(rrdcc_update(c, b->path, NVALUES, b->argv, &done,
	    &kind, err, sizeof(err)), 0);
	assert_int_equal(done, NVALUES);
	n = nlines(f);
	for (int i = 0; i < n; i++) {
		if ((int)strlen(f->lines[i]) > longest)
			longest = (int)strlen(f->lines[i]);
		assert_int_equal(f->conn_of[i], 0);
	}
	print_message("%d values of %zu bytes, %zu-byte path: %d lines, "
	    "longest %d bytes\n", NVALUES, strlen(b->argv[0]),
	    strlen(b->path), n, longest);
	/* 3000 * 19 bytes need at least 8 lines of 8000; no more than
	 * twice that when each line is reasonably full. */
	assert_true(n >= 8 && n <= 16);
	assert_lines_carry(f, b, 0, n, NULL);
	rrdcc_free(c);
	free(b);
}

/* The first line's connection lost: sent once more on a new one. */
static void
test_update_lost_once(void **state)
{
	struct fake *f = *state;
	struct batch *b = batch_new();
	struct rrdcc *c = client(f);
	enum rrdfile_kind kind = RRDFILE_NKINDS;
	char err[512] = "";
	int done = -1, n;

	set_script(f, s_lose_once, NULL, 0);
	assert_int_equal(rrdcc_update(c, b->path, NVALUES, b->argv, &done,
	    &kind, err, sizeof(err)), 0);
	assert_int_equal(done, NVALUES);
	n = nlines(f);
	assert_true(n >= 3);
	assert_string_equal(f->lines[0], f->lines[1]);
	assert_int_equal(f->conn_of[0], 0);
	assert_int_equal(f->conn_of[1], 1);
	for (int i = 2; i < n; i++)
		assert_int_equal(f->conn_of[i], 1);
	assert_lines_carry(f, b, 1, n, NULL);
	rrdcc_free(c);
	free(b);
}

/* The second line lost twice: a connection error naming the path, and
 * only the first line's values done. */
static void
test_update_lost_twice(void **state)
{
	struct fake *f = *state;
	struct batch *b = batch_new();
	struct rrdcc *c = client(f);
	enum rrdfile_kind kind = RRDFILE_NKINDS;
	char err[512] = "";
	int done = -1, first;

	set_script(f, s_lose_from_second, NULL, 0);
	assert_int_equal(rrdcc_update(c, b->path, NVALUES, b->argv, &done,
	    &kind, err, sizeof(err)), -1);
	print_message("lost twice: %s\n", err);
	assert_int_equal(kind, RRDFILE_CONNECTION);
	assert_non_null(strstr(err, b->path));
	assert_int_equal(nlines(f), 3);		/* ok, lost, lost again */
	assert_string_equal(f->lines[1], f->lines[2]);
	assert_int_equal(f->conn_of[0], 0);
	assert_int_equal(f->conn_of[1], 0);
	assert_int_equal(f->conn_of[2], 1);
	first = count_values(f->lines[0]);
	assert_true(first > 0 && first < NVALUES);
	assert_int_equal(done, first);
	rrdcc_free(c);
	free(b);
}

/* The first send landed, its reply was lost: the resend's "illegal
 * attempt" at or past the line's last time means done, before it not. */
static void
test_update_landed(void **state)
{
	static const char *const argv[] = {
		"946710300:1", "946710600:2", "946710900:3"
	};
	struct fake *f = *state;
	struct rrdcc *c = client(f);
	enum rrdfile_kind kind = RRDFILE_NKINDS;
	char err[512] = "";
	int done = -1;

	set_script(f, s_landed, NULL, 946710900);
	assert_int_equal(rrdcc_update(c, "/x/y.rrd", 3, argv, &done, &kind,
	    err, sizeof(err)), 0);
	assert_int_equal(done, 3);
	assert_int_equal(nlines(f), 2);
	assert_string_equal(f->lines[0], f->lines[1]);
	assert_string_equal(f->lines[0], "UPDATE /x/y.rrd 946710300:1 "
	    "946710600:2 946710900:3");
	rrdcc_free(c);

	/* Only past the line's second value: the last was not taken. */
	reset(f);
	c = client(f);
	set_script(f, s_landed, NULL, 946710600);
	assert_int_equal(rrdcc_update(c, "/x/y.rrd", 3, argv, &done, &kind,
	    err, sizeof(err)), -1);
	assert_int_equal(done, 0);
	assert_true(kind != RRDFILE_CONNECTION);
	assert_non_null(strstr(err, "illegal attempt"));
	rrdcc_free(c);

	/* The same reply to a first send is an error. */
	c = client(f);
	set_script(f, s_text, "-1 illegal attempt to update using time "
	    "946710300 when last update time is 946712000 (minimum one "
	    "second step)\n", 0);
	assert_int_equal(rrdcc_update(c, "/x/y.rrd", 3, argv, &done, &kind,
	    err, sizeof(err)), -1);
	assert_int_equal(done, 0);
	rrdcc_free(c);
}

static void
expect_update_error(struct fake *f, const char *reply, enum rrdfile_kind want)
{
	static const char *const argv[] = { "946710300:1", "946710600:2" };
	struct rrdcc *c = client(f);
	enum rrdfile_kind kind = RRDFILE_NKINDS;
	char err[512] = "";
	int done = -1;

	set_script(f, s_text, reply, 0);
	assert_int_equal(rrdcc_update(c, "/x/y.rrd", 2, argv, &done, &kind,
	    err, sizeof(err)), -1);
	assert_int_equal(kind, want);
	assert_int_equal(done, 0);
	assert_non_null(strstr(err, "/x/y.rrd"));
	rrdcc_free(c);
}

static void
test_update_errors(void **state)
{
	struct fake *f = *state;

	expect_update_error(f, "-1 No such file: /x/y.rrd\n",
	    RRDFILE_MISSING);
	expect_update_error(f, "-1 Cannot stat '/x/y.rrd': Permission "
	    "denied\n", RRDFILE_PERMISSION);
	expect_update_error(f, "-1 No permission\n", RRDFILE_PERMISSION);
}

/* Two of three values taken: done 2, the error line in err. */
static void
test_update_partial(void **state)
{
	static const char *const argv[] = {
		"946710300:1", "946710600:2", "946710600:3"
	};
	static const char reply[] = "1 errors, enqueued 2 value(s).\n"
	    "946710600: illegal attempt to update using time 946710600 "
	    "when last update time is 946710600 (minimum one second step)\n";
	struct fake *f = *state;
	struct rrdcc *c = client(f);
	enum rrdfile_kind kind = RRDFILE_NKINDS;
	char err[512] = "";
	int done = -1;

	set_script(f, s_text, reply, 0);
	assert_int_equal(rrdcc_update(c, "/x/y.rrd", 3, argv, &done, &kind,
	    err, sizeof(err)), -1);
	print_message("partial: %s\n", err);
	assert_int_equal(done, 2);
	assert_true(kind != RRDFILE_CONNECTION);
	assert_non_null(strstr(err, "/x/y.rrd"));
	assert_non_null(strstr(err, "946710600: illegal attempt to update "
	    "using time 946710600"));
	/* The error line was read as part of the reply, not taken for the
	 * next command's. */
	assert_int_equal(rrdcc_update(c, "/x/y.rrd", 1, argv, &done, &kind,
	    err, sizeof(err)), -1);
	assert_int_equal(done, 0);
	assert_int_equal(nlines(f), 2);
	rrdcc_free(c);
}

/* ------------------------------------------------------ the other calls */

static void
test_stats(void **state)
{
	static const char reply[] = "10 Statistics follow\n"
	    "QueueLength: 3\n"
	    "UpdatesReceived: 30\n"
	    "FlushesReceived: 2\n"
	    "UpdatesWritten: 13\n"
	    "DataSetsWritten: 390\n"
	    "TreeNodesNumber: 7\n"
	    "TreeDepth: 4\n"
	    "JournalBytes: 12345678901\n"
	    "JournalRotate: 5\n"
	    "QueueLengthMax: 99\n";	/* no such name: ignored */
	struct fake *f = *state;
	struct rrdcc *c = client(f);
	struct rrdcc_stats s;
	char err[512] = "";

	set_script(f, s_text, reply, 0);
	assert_int_equal(rrdcc_stats(c, &s, err, sizeof(err)), 0);
	assert_int_equal(s.queue_length, 3);
	assert_int_equal(s.updates_received, 30);
	assert_int_equal(s.flushes_received, 2);
	assert_int_equal(s.updates_written, 13);
	assert_int_equal(s.data_sets_written, 390);
	assert_int_equal(s.tree_nodes_number, 7);
	assert_int_equal(s.tree_depth, 4);
	assert_int_equal(s.journal_bytes, 12345678901ULL);
	assert_int_equal(s.journal_rotate, 5);
	assert_int_equal(rrdcc_nstat_fields, 9);
	assert_int_equal(nlines(f), 1);
	assert_string_equal(f->lines[0], "STATS");

	set_script(f, s_text, "-1 Unknown command: STATS\n", 0);
	assert_int_equal(rrdcc_stats(c, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "Unknown command"));

	set_script(f, s_text, "0 Started flush.\n", 0);
	assert_int_equal(rrdcc_flushall(c, err, sizeof(err)), 0);
	assert_int_equal(nlines(f), 3);
	assert_string_equal(f->lines[2], "FLUSHALL");
	rrdcc_free(c);
}

/* Params with 2 data sources and 2 RRAs. */
static void
small_params(struct stress_params *p)
{
	json_object *o = json_tokener_parse("{\"dir\":\"/x\","
	    "\"data_sources\":2,\"rras\":\"RRA:AVERAGE:0.5:1:10,"
	    "RRA:MAX:0.5:12:5\"}");
	const char *field;
	char err[256];

	assert_non_null(o);
	knobs_defaults(p);
	if (knobs_apply(p, o, &field, err, sizeof(err)) == -1)
		fail_msg("knobs_apply: %s", err);
	json_object_put(o);
	assert_int_equal(p->step, 300);
	assert_int_equal(p->nrras, 2);
}

/* rrdcached's INFO reply for a file, from librrd's info of it. */
static char *
info_reply(const char *path)
{
	rrd_info_t *info = rrd_info_r(path), *i;
	char *out = malloc(REPLY_MAX), *body = malloc(REPLY_MAX);
	size_t used = 0;
	int n = 0;

	assert_non_null(info);
	assert_non_null(out);
	assert_non_null(body);
	for (i = info; i != NULL; i = i->next, n++) {
		used += (size_t)snprintf(body + used, REPLY_MAX - used, "%s %d ",
		    i->key, (int)i->type);
		switch (i->type) {
		case RD_I_VAL:
			if (isnan(i->value.u_val))
				used += (size_t)snprintf(body + used,
				    REPLY_MAX - used, "NaN\n");
			else
				used += (size_t)snprintf(body + used,
				    REPLY_MAX - used, "%0.10e\n",
				    i->value.u_val);
			break;
		case RD_I_CNT:
			used += (size_t)snprintf(body + used, REPLY_MAX - used,
			    "%lu\n", i->value.u_cnt);
			break;
		case RD_I_STR:
			used += (size_t)snprintf(body + used, REPLY_MAX - used,
			    "%s\n", i->value.u_str);
			break;
		case RD_I_INT:
			used += (size_t)snprintf(body + used, REPLY_MAX - used,
			    "%d\n", i->value.u_int);
			break;
		default:
			used += (size_t)snprintf(body + used, REPLY_MAX - used,
			    "BLOB_SIZE %lu\n", i->value.u_blo.size);
			break;
		}
		assert_true(used < REPLY_MAX);
	}
	rrd_info_free(info);
	snprintf(out, REPLY_MAX, "%d Info for %s follows\n%s", n, path, body);
	free(body);
	return out;
}

/* rrdcc_layout of a real file's INFO is rrdfile_layout of the file. */
static void
test_layout(void **state)
{
	struct fake *f = *state;
	struct stress_params p;
	struct rrdcc *c = client(f);
	enum rrdfile_kind kind = RRDFILE_NKINDS;
	char path[200], want[8192], got[8192], err[512] = "", cmd[256];
	time_t want_last = 0, got_last = 0;
	char *reply;

	small_params(&p);
	snprintf(path, sizeof(path), "%s/l.rrd", f->dir);
	if (rrdfile_create(&p, path, (time_t)BASE_TS, &kind, err,
	    sizeof(err)) == -1)
		fail_msg("rrdfile_create: %s", err);
	if (rrdfile_layout(path, want, sizeof(want), &want_last, err,
	    sizeof(err)) == -1)
		fail_msg("rrdfile_layout: %s", err);
	reply = info_reply(path);
	print_message("layout: %s\n", want);
	/* Both DS and both RRAs are in it, and their type. */
	assert_non_null(strstr(want, "ds[ds1].type=GAUGE"));
	assert_non_null(strstr(want, "rra[1].cf=MAX"));

	/* FLUSH answered "0 ..." and, for a file rrdcached does not hold,
	 * "-1 ...": no error either way. */
	for (int flush = 0; flush >= -1; flush--) {
		set_script(f, s_info, reply, flush);
		memset(got, 'x', sizeof(got));
		got_last = 0;
		assert_int_equal(rrdcc_layout(c, path, got, sizeof(got),
		    &got_last, &kind, err, sizeof(err)), 0);
		assert_string_equal(got, want);
		assert_int_equal(got_last, want_last);
		assert_int_equal(got_last, BASE_TS);
	}
	assert_int_equal(nlines(f), 4);
	snprintf(cmd, sizeof(cmd), "FLUSH %s", path);
	assert_string_equal(f->lines[0], cmd);
	snprintf(cmd, sizeof(cmd), "INFO %s", path);
	assert_string_equal(f->lines[1], cmd);

	set_script(f, s_info, "-1 RRD Error: opening '/p': No such file or "
	    "directory\n", -1);
	assert_int_equal(rrdcc_layout(c, "/p", got, sizeof(got), &got_last,
	    &kind, err, sizeof(err)), -1);
	assert_int_equal(kind, RRDFILE_MISSING);
	assert_non_null(strstr(err, "/p"));

	free(reply);
	knobs_free(&p);
	rrdcc_free(c);
}

/* A daemon that takes the line and never answers: a lost connection
 * after the timeout, twice (the resend). */
static void
test_timeout(void **state)
{
	static const char *const argv[] = { "946710300:1" };
	struct fake *f = *state;
	struct rrdcc *c = client(f);
	enum rrdfile_kind kind = RRDFILE_NKINDS;
	char err[512] = "";
	int done = -1;
	double t0, elapsed;

	set_script(f, s_silent, NULL, 0);
	rrdcc_set_timeout(c, 200, true);
	t0 = util_now();
	assert_int_equal(rrdcc_update(c, "/x/y.rrd", 1, argv, &done, &kind,
	    err, sizeof(err)), -1);
	elapsed = util_now() - t0;
	print_message("no reply, timeout 200 ms: failed after %.3f s: %s\n",
	    elapsed, err);
	assert_int_equal(kind, RRDFILE_CONNECTION);
	assert_int_equal(done, 0);
	assert_true(elapsed >= 0.15);
	assert_true(elapsed < 2);
	assert_non_null(strstr(err, "/x/y.rrd"));
	rrdcc_free(c);

	/* Without resend (the event loop's connection): one timeout. */
	reset(f);
	c = client(f);
	rrdcc_set_timeout(c, 200, false);
	t0 = util_now();
	assert_int_equal(rrdcc_update(c, "/x/y.rrd", 1, argv, &done, &kind,
	    err, sizeof(err)), -1);
	elapsed = util_now() - t0;
	print_message("no reply, no resend: failed after %.3f s\n", elapsed);
	assert_int_equal(kind, RRDFILE_CONNECTION);
	assert_true(elapsed < 0.35);
	assert_int_equal(nlines(f), 1);
	rrdcc_free(c);

	/* Nobody listening: a connection error, at once. */
	c = rrdcc_new("/nonexistent/stressd-rrdcc.sock");
	assert_non_null(c);
	assert_int_equal(rrdcc_update(c, "/x/y.rrd", 1, argv, &done, &kind,
	    err, sizeof(err)), -1);
	assert_int_equal(kind, RRDFILE_CONNECTION);
	assert_int_equal(rrdcc_connect(c, err, sizeof(err)), -1);
	rrdcc_free(c);
}

/* A listener that takes its first connection late, as a busy rrdcached
 * whose backlog (10 on its Unix socket) is full when writers connect. */
struct late {
	int		lfd;
	_Atomic bool	quit;
	char		line[64];	/* the line its second connection sent */
};

static int
late_accept(struct late *l)
{
	struct pollfd pfd = { l->lfd, POLLIN, 0 };

	while (!l->quit)
		if (poll(&pfd, 1, 20) == 1)
			return accept(l->lfd, NULL, NULL);
	return -1;
}

static void *
late_serve(void *arg)
{
	struct late *l = arg;
	int fd;
	ssize_t r;
	char drain;

	usleep(150 * 1000);
	if ((fd = late_accept(l)) == -1)	/* the test's, filling it */
		return NULL;
	close(fd);
	if ((fd = late_accept(l)) == -1)	/* the client's */
		return NULL;
	if ((r = recv(fd, l->line, sizeof(l->line) - 1, 0)) > 0) {
		l->line[r] = '\0';
		send_reply(fd, "0 Statistics follow\n");
	}
	while (recv(fd, &drain, 1, 0) > 0)	/* until the client closes */
		;
	close(fd);
	return NULL;
}

/* A connect that finds the backlog full waits (within the timeout) for
 * the daemon to accept, as a blocking connect(2) would. */
static void
test_connect_backlog(void **state)
{
	struct fake *f = *state;
	struct late l = { .lfd = -1 };
	struct sockaddr_un sun;
	struct rrdcc_stats st;
	struct rrdcc *c;
	pthread_t th;
	char err[512] = "";
	double t0, elapsed;
	int filler, rc;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/late", f->dir);
	/* Backlog 0: one connection not yet accepted fills it. */
	assert_int_not_equal(l.lfd = socket(AF_UNIX, SOCK_STREAM, 0), -1);
	assert_int_equal(bind(l.lfd, (struct sockaddr *)&sun, sizeof(sun)),
	    0);
	assert_int_equal(listen(l.lfd, 0), 0);
	assert_int_not_equal(filler = socket(AF_UNIX, SOCK_STREAM, 0), -1);
	assert_int_equal(connect(filler, (struct sockaddr *)&sun,
	    sizeof(sun)), 0);
	assert_int_equal(pthread_create(&th, NULL, late_serve, &l), 0);
	c = rrdcc_new(sun.sun_path);
	assert_non_null(c);
	rrdcc_set_timeout(c, 3000, true);
	t0 = util_now();
	rc = rrdcc_stats(c, &st, err, sizeof(err));
	elapsed = util_now() - t0;
	rrdcc_free(c);
	l.quit = true;
	pthread_join(th, NULL);
	close(filler);
	close(l.lfd);
	unlink(sun.sun_path);
	print_message("backlog full, accepted after 0.15 s: %s after %.3f s "
	    "%s\n", rc == 0 ? "connected" : "failed", elapsed, err);
	assert_int_equal(rc, 0);
	assert_string_equal(l.line, "STATS\n");
	assert_true(elapsed < 2);
}

static void
test_create(void **state)
{
	struct fake *f = *state;
	struct stress_params p;
	struct rrdcc *c = client(f);
	enum rrdfile_kind kind = RRDFILE_NKINDS;
	char err[512] = "";

	small_params(&p);
	set_script(f, s_text, "0 RRD created OK\n", 0);
	assert_int_equal(rrdcc_create(c, &p, "/x/y.rrd", (time_t)BASE_TS,
	    &kind, err, sizeof(err)), 0);
	/* FORGET first: rrdcached may still hold a gone file's last
	 * update time, which would refuse the new file's updates. */
	assert_int_equal(nlines(f), 2);
	assert_string_equal(f->lines[0], "FORGET /x/y.rrd");
	assert_string_equal(f->lines[1], "CREATE /x/y.rrd -s 300 -b 946710000 "
	    "DS:ds0:GAUGE:600:U:U DS:ds1:GAUGE:600:U:U RRA:AVERAGE:0.5:1:10 "
	    "RRA:MAX:0.5:12:5");

	set_script(f, s_text, "-1 RRD Error: creating '/x/y.rrd': Permission "
	    "denied\n", 0);
	assert_int_equal(rrdcc_create(c, &p, "/x/y.rrd", (time_t)BASE_TS,
	    &kind, err, sizeof(err)), -1);
	assert_int_equal(kind, RRDFILE_PERMISSION);
	assert_non_null(strstr(err, "/x/y.rrd"));
	assert_non_null(strstr(err, "Permission denied"));

	/* A CREATE past the line rrdcached takes is refused here, as too
	 * long, not sent to be dropped as a lost connection. */
	{
		char path[7990], lerr[4096];

		memset(path, 'a', sizeof(path) - 1);
		path[0] = '/';
		path[sizeof(path) - 1] = '\0';
		set_script(f, s_text, "0 RRD created OK\n", 0);
		reset(f);
		assert_int_equal(rrdcc_create(c, &p, path, (time_t)BASE_TS,
		    &kind, lerr, sizeof(lerr)), -1);
		assert_int_equal(kind, RRDFILE_OTHER);
		assert_non_null(strstr(lerr, "command line"));
		for (int i = 0; i < nlines(f); i++)
			assert_true(strncmp(f->lines[i], "CREATE", 6) != 0);
	}
	knobs_free(&p);
	rrdcc_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_update_split, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_update_lost_once, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_update_lost_twice, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_update_landed, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_update_errors, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_update_partial, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connect_backlog, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
