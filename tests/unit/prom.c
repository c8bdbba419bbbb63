/* Unit tests of daemon/prom.c: the exposition format helpers, the
 * histogram ladder, and the HTTP listener driven by a client thread while
 * this thread turns the event loop without blocking. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <event2/buffer.h>
#include <event2/event.h>

#include "hist.h"
#include "prom.h"

/* ---------------------------------------------------------- helpers */

/* The evbuffer's contents as a NUL-terminated string; the caller frees. */
static char *
drain(struct evbuffer *b)
{
	size_t n = evbuffer_get_length(b);
	char *s = malloc(n + 1);

	assert_non_null(s);
	evbuffer_remove(b, s, n);
	s[n] = '\0';
	return s;
}

static void
assert_sample(const char *labels, double v, const char *expect)
{
	struct evbuffer *b = evbuffer_new();
	char *s;

	prom_sample(b, "m", labels, v);
	s = drain(b);
	assert_string_equal(s, expect);
	free(s);
	evbuffer_free(b);
}

static void
assert_escaped(size_t len, const char *value, const char *expect)
{
	char buf[64];

	memset(buf, 'X', sizeof(buf));
	prom_label_escape(buf, len, value);
	assert_string_equal(buf, expect);
	assert_true(strlen(buf) < len);
}

/* ----------------------------------------------------------- format */

static void
test_label_escape(void **state)
{
	char one = 'X';

	(void)state;
	assert_escaped(64, "plain", "plain");
	assert_escaped(64, "a\\b\"c\nd", "a\\\\b\\\"c\\nd");
	assert_escaped(64, "", "");
	assert_escaped(64, NULL, "");
	/* Cut short: never half an escape, always terminated. */
	assert_escaped(4, "ab\"c", "ab");
	assert_escaped(5, "ab\"c", "ab\\\"");
	assert_escaped(1, "abc", "");
	prom_label_escape(&one, 0, "abc");
	assert_int_equal(one, 'X');
	/* UTF-8 kept whole, and not split when cut. */
	assert_escaped(64, "/mnt/\xc3\xa9t\xc3\xa9", "/mnt/\xc3\xa9t\xc3\xa9");
	assert_escaped(3, "\xc3\xa9\xc3\xa9", "\xc3\xa9");
	assert_escaped(2, "\xc3\xa9", "");
	assert_escaped(64, "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");
	/* Invalid UTF-8 becomes U+FFFD, one per bad byte. */
	assert_escaped(64, "a\xff" "b", "a\xef\xbf\xbd" "b");
	assert_escaped(64, "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd");
	assert_escaped(64, "\xe2\x82", "\xef\xbf\xbd\xef\xbf\xbd");
	assert_escaped(64, "\xed\xa0\x80",
	    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	assert_escaped(64, "\xf4\x90\x80\x80",
	    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
}

static void
test_header(void **state)
{
	struct evbuffer *b = evbuffer_new();
	char *s;

	(void)state;
	prom_header(b, "stressd_x", "gauge", "back\\slash\nnew \"line\"");
	prom_header(b, "stressd_y_total", "counter", NULL);
	s = drain(b);
	assert_string_equal(s,
	    "# HELP stressd_x back\\\\slash\\nnew \"line\"\n"
	    "# TYPE stressd_x gauge\n"
	    "# TYPE stressd_y_total counter\n");
	free(s);
	evbuffer_free(b);
}

static void
test_sample(void **state)
{
	const double odd[] = { 1.0 / 3, 0.1 + 0.2, 1e-300, 123456.789,
	    -2.5e-7, 9007199254740993.0 };

	(void)state;
	assert_sample(NULL, 0, "m 0\n");
	assert_sample(NULL, 42, "m 42\n");
	assert_sample(NULL, -3, "m -3\n");
	assert_sample(NULL, 1e15, "m 1e+15\n");
	assert_sample(NULL, 9007199254740992.0, "m 9007199254740992\n");
	assert_sample(NULL, 18446744073709551615.0,
	    "m 1.8446744073709552e+19\n");
	assert_sample(NULL, 0.1, "m 0.1\n");
	assert_sample(NULL, 1.5, "m 1.5\n");
	assert_sample("", 7, "m 7\n");
	assert_sample("a=\"b\",c=\"d\"", 0.25, "m{a=\"b\",c=\"d\"} 0.25\n");
	assert_sample(NULL, INFINITY, "m +Inf\n");
	assert_sample(NULL, -INFINITY, "m -Inf\n");
	assert_sample(NULL, NAN, "m NaN\n");
	/* Whatever the digits, they read back as the same double. */
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		struct evbuffer *b = evbuffer_new();
		char *s;

		prom_sample(b, "m", NULL, odd[i]);
		s = drain(b);
		assert_true(strtod(s + 2, NULL) == odd[i]);
		free(s);
		evbuffer_free(b);
	}
}

/* --------------------------------------------------------- histogram */

struct parsed {
	char		le[PROM_LADDER_LEN + 1][32];
	uint64_t	bucket[PROM_LADDER_LEN + 1];
	size_t		nbuckets;
	double		sum;
	uint64_t	count;
	int		have_sum, have_count, have_help, have_type;
};

/* Parse prom_histogram's output for name, checking every line's shape;
 * labels is what must precede le (with its comma), or "". */
static void
parse_histogram(const char *text, const char *name, const char *labels,
    struct parsed *p)
{
	char *copy = strdup(text), *save = NULL, prefix[256], sumpfx[256];
	char cntpfx[256];

	assert_non_null(copy);
	memset(p, 0, sizeof(*p));
	snprintf(prefix, sizeof(prefix), "%s_bucket{%s", name, labels);
	snprintf(sumpfx, sizeof(sumpfx), "%s_sum", name);
	snprintf(cntpfx, sizeof(cntpfx), "%s_count", name);
	for (char *line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "# HELP ", 7) == 0) {
			p->have_help++;
		} else if (strncmp(line, "# TYPE ", 7) == 0) {
			char want[256];

			snprintf(want, sizeof(want), "# TYPE %s histogram",
			    name);
			assert_string_equal(line, want);
			p->have_type++;
		} else if (strncmp(line, prefix, strlen(prefix)) == 0) {
			char *le = line + strlen(prefix), *q;

			assert_true(strncmp(le, "le=\"", 4) == 0);
			le += 4;
			q = strchr(le, '"');
			assert_non_null(q);
			assert_true(strncmp(q, "\"} ", 3) == 0);
			assert_true(p->nbuckets < PROM_LADDER_LEN + 1);
			*q = '\0';
			snprintf(p->le[p->nbuckets], sizeof(p->le[0]), "%s", le);
			p->bucket[p->nbuckets++] = strtoull(q + 3, NULL, 10);
		} else if (strncmp(line, sumpfx, strlen(sumpfx)) == 0) {
			p->sum = strtod(strchr(line, ' ') + 1, NULL);
			p->have_sum++;
		} else if (strncmp(line, cntpfx, strlen(cntpfx)) == 0) {
			p->count = strtoull(strchr(line, ' ') + 1, NULL, 10);
			p->have_count++;
		} else
			fail_msg("unexpected line: %s", line);
	}
	free(copy);
	assert_int_equal(p->have_type, 1);
	assert_int_equal(p->have_sum, 1);
	assert_int_equal(p->have_count, 1);
	assert_int_equal(p->nbuckets, PROM_LADDER_LEN + 1);
	assert_string_equal(p->le[PROM_LADDER_LEN], "+Inf");
	for (size_t i = 1; i < p->nbuckets; i++)
		assert_true(p->bucket[i] >= p->bucket[i - 1]);
	assert_int_equal(p->bucket[PROM_LADDER_LEN], p->count);
}

static char *
render_histogram(const struct hist *h, double scale, const char *labels)
{
	struct evbuffer *b = evbuffer_new();
	char *s;

	prom_histogram(b, "stressd_lat_seconds", "Latency.", h, scale, labels);
	s = drain(b);
	evbuffer_free(b);
	return s;
}

static const char *const ladder_s[PROM_LADDER_LEN] = {
	"1e-05", "2e-05", "5e-05", "0.0001", "0.0002", "0.0005",
	"0.001", "0.002", "0.005", "0.01", "0.02", "0.05",
	"0.1", "0.2", "0.5", "1", "2", "5", "10", "20", "50", "100",
};

static void
test_histogram(void **state)
{
	/* Below the ladder, on a boundary, between, far past the top, and
	 * past HIST_MAX_NS (clamped into the overflow bucket). */
	const uint64_t v[] = { 5000, 10000, 150000, 150000, 3000000,
	    2000000000, 200000000000, UINT64_C(10000000000000000) };
	const size_t nv = sizeof(v) / sizeof(v[0]);
	/* Expected cumulative counts.  10000 ns shares a bucket reaching
	 * 10047 ns, so it is counted from le=2e-05 on, and 2 s one reaching
	 * 2.0049 s, so from le=5 on. */
	const uint64_t expect[PROM_LADDER_LEN] = {
		1, 2, 2, 2, 4, 4, 4, 4, 5, 5, 5, 5,
		5, 5, 5, 5, 5, 6, 6, 6, 6, 6,
	};
	struct hist *h = hist_create();
	struct parsed p;
	double sum = 0;
	char *s;

	(void)state;
	assert_non_null(h);
	for (size_t i = 0; i < nv; i++) {
		hist_record(h, v[i]);
		sum += (double)v[i];
	}
	s = render_histogram(h, 1e-9, NULL);
	parse_histogram(s, "stressd_lat_seconds", "", &p);
	assert_int_equal(p.have_help, 1);
	for (size_t i = 0; i < PROM_LADDER_LEN; i++) {
		assert_string_equal(p.le[i], ladder_s[i]);
		assert_int_equal(p.bucket[i], expect[i]);
	}
	assert_int_equal(p.count, nv);
	assert_true(fabs(p.sum - sum * 1e-9) <= sum * 1e-9 * 1e-9);
	free(s);

	/* Labels go before le and on _sum and _count; milliseconds. */
	s = render_histogram(h, 1e-6, "op=\"update\"");
	parse_histogram(s, "stressd_lat_seconds", "op=\"update\",", &p);
	assert_string_equal(p.le[0], "0.01");
	assert_string_equal(p.le[PROM_LADDER_LEN - 1], "100000");
	assert_int_equal(p.bucket[0], 1);
	assert_int_equal(p.count, nv);
	assert_true(fabs(p.sum - sum * 1e-6) <= sum * 1e-6 * 1e-9);
	assert_non_null(strstr(s, "\nstressd_lat_seconds_sum{op=\"update\"} "));
	assert_non_null(strstr(s, "\nstressd_lat_seconds_count{op=\"update\"} 8\n"));
	free(s);
	hist_destroy(h);
}

/* Buckets are placed by their fixed edges, so a cumulative count never
 * goes down from one scrape to the next as larger values arrive (it did
 * when the top bucket was placed by the max seen so far). */
static void
test_histogram_monotone(void **state)
{
	struct hist *h = hist_create();
	struct parsed p1, p2;
	char *s;

	(void)state;
	assert_non_null(h);
	hist_record(h, 9900);	/* its bucket, 9856..9919, ends below 1e-05 s */
	s = render_histogram(h, 1e-9, NULL);
	parse_histogram(s, "stressd_lat_seconds", "", &p1);
	free(s);
	hist_record(h, 15000);
	s = render_histogram(h, 1e-9, NULL);
	parse_histogram(s, "stressd_lat_seconds", "", &p2);
	free(s);
	for (size_t i = 0; i <= PROM_LADDER_LEN; i++)
		assert_true(p2.bucket[i] >= p1.bucket[i]);
	/* 9900 ns is under 1e-05 s in both scrapes */
	assert_int_equal(p1.bucket[0], 1);
	assert_int_equal(p2.bucket[0], 1);
	assert_int_equal(p2.count, 2);
	hist_destroy(h);
}

static void
test_histogram_empty(void **state)
{
	struct hist *h = hist_create();
	struct parsed p;
	char *s;

	(void)state;
	assert_non_null(h);
	for (int round = 0; round < 2; round++) {
		s = render_histogram(round == 0 ? h : NULL, 1e-9, NULL);
		parse_histogram(s, "stressd_lat_seconds", "", &p);
		for (size_t i = 0; i <= PROM_LADDER_LEN; i++)
			assert_int_equal(p.bucket[i], 0);
		assert_int_equal(p.count, 0);
		assert_true(p.sum == 0);
		free(s);
	}
	hist_destroy(h);
}

/* -------------------------------------------------------------- http */

#define BODY	"# TYPE stressd_up gauge\nstressd_up 1\n"

static void
render(struct evbuffer *out, void *arg)
{
	(*(int *)arg)++;
	evbuffer_add(out, BODY, strlen(BODY));
}

struct client {
	int		 port;
	const char	*request;
	size_t		 reqlen;
	char		 resp[65536];
	size_t		 len;
	int		 connect_errno;
	atomic_bool	 done;
};

/* Send the request, then read until the server closes. */
static void *
client_main(void *arg)
{
	struct client *c = arg;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct timeval tv = { 5, 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ssize_t r;

	sin.sin_port = htons((uint16_t)c->port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
		c->connect_errno = errno;
		goto out;
	}
	for (size_t off = 0; off < c->reqlen; off += (size_t)r)
		if ((r = send(fd, c->request + off, c->reqlen - off,
		    MSG_NOSIGNAL)) <= 0)
			break;
	while (c->len < sizeof(c->resp) - 1 && (r = read(fd, c->resp + c->len,
	    sizeof(c->resp) - 1 - c->len)) > 0)
		c->len += (size_t)r;
out:
	c->resp[c->len] = '\0';
	close(fd);
	atomic_store(&c->done, true);
	return NULL;
}

/* One exchange: the loop turns here, without blocking, until the client
 * thread is done (or 10 s pass). */
static void
exchange(struct event_base *base, int port, const char *request,
    size_t reqlen, struct client *c)
{
	struct timespec nap = { 0, 1000000 };
	pthread_t t;

	memset(c, 0, sizeof(*c));
	c->port = port;
	c->request = request;
	c->reqlen = reqlen;
	assert_int_equal(pthread_create(&t, NULL, client_main, c), 0);
	for (int i = 0; i < 10000 && !atomic_load(&c->done); i++) {
		assert_true(event_base_loop(base, EVLOOP_NONBLOCK) >= 0);
		nanosleep(&nap, NULL);
	}
	assert_true(atomic_load(&c->done));
	pthread_join(t, NULL);
}

static int
status_of(const struct client *c)
{
	int code = 0;

	if (sscanf(c->resp, "HTTP/1.%*d %d", &code) != 1)
		return 0;
	return code;
}

/* The value of header name (case as evhttp writes it), or "". */
static void
header_of(const struct client *c, const char *name, char *buf, size_t len)
{
	char key[64];
	const char *p, *end;

	snprintf(key, sizeof(key), "\r\n%s: ", name);
	buf[0] = '\0';
	if ((p = strstr(c->resp, key)) == NULL)
		return;
	p += strlen(key);
	end = strstr(p, "\r\n");
	snprintf(buf, len, "%.*s", (int)(end != NULL ? end - p :
	    (ptrdiff_t)strlen(p)), p);
}

static const char *
body_of(const struct client *c)
{
	const char *p = strstr(c->resp, "\r\n\r\n");

	return p != NULL ? p + 4 : "";
}

static void
get(struct event_base *base, int port, const char *request, struct client *c)
{
	exchange(base, port, request, strlen(request), c);
}

static void
test_http(void **state)
{
	struct event_base *base = event_base_new();
	static struct client c;
	char err[256], hdr[256], *big;
	int renders = 0, port, before;

	(void)state;
	assert_non_null(base);
	assert_int_equal(prom_port(), -1);
	assert_int_equal(prom_start(base, "127.0.0.1:0", render, &renders,
	    err, sizeof(err)), 0);
	port = prom_port();
	assert_true(port > 0 && port < 65536);
	/* One listener at a time. */
	assert_int_equal(prom_start(base, "127.0.0.1:0", render, &renders,
	    err, sizeof(err)), -1);
	assert_non_null(strstr(err, "already"));

	get(base, port, "GET /metrics HTTP/1.0\r\n\r\n", &c);
	assert_int_equal(status_of(&c), 200);
	header_of(&c, "Content-Type", hdr, sizeof(hdr));
	assert_string_equal(hdr, PROM_CONTENT_TYPE);
	header_of(&c, "Content-Length", hdr, sizeof(hdr));
	assert_int_equal(atoi(hdr), strlen(BODY));
	assert_string_equal(body_of(&c), BODY);
	assert_int_equal(renders, 1);

	get(base, port, "GET /metrics?name[]=x HTTP/1.1\r\nHost: a\r\n"
	    "Connection: close\r\n\r\n", &c);
	assert_int_equal(status_of(&c), 200);
	assert_string_equal(body_of(&c), BODY);

	/* Keep-alive, as Prometheus scrapes: two answers on one connection,
	 * each with its length. */
	get(base, port, "GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n"
	    "GET /metrics HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
	    &c);
	assert_int_equal(status_of(&c), 200);
	header_of(&c, "Content-Length", hdr, sizeof(hdr));
	assert_int_equal(atoi(hdr), strlen(BODY));
	{
		const char *second = strstr(body_of(&c), "HTTP/1.1 200 OK\r\n");

		assert_non_null(second);
		assert_int_equal(second - body_of(&c), strlen(BODY));
		assert_string_equal(strstr(second, "\r\n\r\n") + 4, BODY);
	}

	/* HEAD: the headers of a GET, no body, in both versions. */
	get(base, port, "HEAD /metrics HTTP/1.0\r\n\r\n", &c);
	assert_int_equal(status_of(&c), 200);
	header_of(&c, "Content-Length", hdr, sizeof(hdr));
	assert_int_equal(atoi(hdr), strlen(BODY));
	assert_string_equal(body_of(&c), "");
	get(base, port, "HEAD /metrics HTTP/1.1\r\nHost: a\r\n"
	    "Connection: close\r\n\r\n", &c);
	assert_int_equal(status_of(&c), 200);
	header_of(&c, "Content-Length", hdr, sizeof(hdr));
	assert_int_equal(atoi(hdr), strlen(BODY));
	assert_string_equal(body_of(&c), "");

	before = renders;
	get(base, port, "GET /other HTTP/1.0\r\n\r\n", &c);
	assert_int_equal(status_of(&c), 404);
	get(base, port, "GET / HTTP/1.0\r\n\r\n", &c);
	assert_int_equal(status_of(&c), 404);
	get(base, port, "GET /metrics/ HTTP/1.0\r\n\r\n", &c);
	assert_int_equal(status_of(&c), 404);
	get(base, port, "GET /metricsx HTTP/1.0\r\n\r\n", &c);
	assert_int_equal(status_of(&c), 404);
	/* /metrics exists: another method is not allowed there (405, with
	 * the methods that are), and nothing is rendered for it. */
	get(base, port, "POST /metrics HTTP/1.0\r\nContent-Length: 0\r\n\r\n",
	    &c);
	assert_int_equal(status_of(&c), 405);
	header_of(&c, "Allow", hdr, sizeof(hdr));
	assert_string_equal(hdr, "GET, HEAD");
	get(base, port, "DELETE /metrics HTTP/1.0\r\n\r\n", &c);
	assert_int_equal(status_of(&c), 405);
	get(base, port, "PUT /other HTTP/1.0\r\nContent-Length: 0\r\n\r\n",
	    &c);
	assert_int_equal(status_of(&c), 404);
	get(base, port, "OPTIONS * HTTP/1.0\r\n\r\n", &c);
	assert_int_equal(status_of(&c), 404);
	/* A body is refused, and so are oversized headers. */
	get(base, port, "GET /metrics HTTP/1.0\r\nContent-Length: 5\r\n\r\n"
	    "hello", &c);
	assert_int_equal(status_of(&c), 413);
	/* RFC 9112 5.1: whitespace between a field name and its colon is
	 * rejected with 400 (else "Content-Length : 5" hides a body). */
	get(base, port, "GET /metrics HTTP/1.0\r\nContent-Length : 5\r\n"
	    "\r\nhello", &c);
	assert_int_equal(status_of(&c), 400);
	get(base, port, "GET /metrics HTTP/1.0\r\nHost\t: a\r\n\r\n", &c);
	assert_int_equal(status_of(&c), 400);
	big = malloc(PROM_MAX_HEADERS_SIZE * 2 + 64);
	assert_non_null(big);
	strcpy(big, "GET /metrics HTTP/1.0\r\nX-Big: ");
	memset(big + strlen(big), 'a', PROM_MAX_HEADERS_SIZE * 2);
	strcpy(big + strlen("GET /metrics HTTP/1.0\r\nX-Big: ") +
	    PROM_MAX_HEADERS_SIZE * 2, "\r\n\r\n");
	get(base, port, big, &c);
	assert_true(status_of(&c) != 200);
	free(big);
	get(base, port, "garbage\r\n\r\n", &c);
	assert_true(status_of(&c) != 200);
	assert_int_equal(renders, before);

	/* Still serving after all that. */
	get(base, port, "GET /metrics HTTP/1.0\r\n\r\n", &c);
	assert_int_equal(status_of(&c), 200);

	prom_stop();
	assert_int_equal(prom_port(), -1);
	get(base, port, "GET /metrics HTTP/1.0\r\n\r\n", &c);
	assert_int_equal(c.connect_errno, ECONNREFUSED);
	prom_stop();	/* twice is harmless */
	event_base_free(base);
}

/* Turn the loop for about ms milliseconds. */
static void
spin(struct event_base *base, int ms)
{
	struct timespec nap = { 0, 1000000 };

	for (int i = 0; i < ms; i++) {
		assert_true(event_base_loop(base, EVLOOP_NONBLOCK) >= 0);
		nanosleep(&nap, NULL);
	}
}

static int
tcp_to(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	return fd;
}

/* Closed by the server: recv sees EOF (or a reset). */
static bool
closed_by_peer(int fd)
{
	char b[256];
	ssize_t r;

	while ((r = recv(fd, b, sizeof(b), MSG_DONTWAIT)) > 0)
		;
	return r == 0 || (r == -1 && errno != EAGAIN);
}

/* Past the cap a connection takes the place of one whose first request
 * is unfinished, one with part of it in before an older one with none
 * (issue 22); a request that dribbles in is cut at the deadline from
 * accept, however often bytes come. */
static void
test_limits(void **state)
{
	struct event_base *base = event_base_new();
	static struct client c;
	char err[256];
	int renders = 0, port, a, b, x;

	(void)state;
	assert_non_null(base);
	prom_set_limits(2, 1.0);
	assert_int_equal(prom_start(base, "127.0.0.1:0", render, &renders,
	    err, sizeof(err)), 0);
	port = prom_port();
	b = tcp_to(port);
	spin(base, 50);
	a = tcp_to(port);
	assert_int_equal(send(a, "GET /metrics HTTP/1.1\r\n", 23, 0), 23);
	spin(base, 100);
	assert_int_equal(prom_connections(), 2);
	x = tcp_to(port);
	spin(base, 100);
	assert_true(closed_by_peer(a));		/* partial: gave way */
	assert_false(closed_by_peer(b));	/* older, but nothing in */
	assert_false(closed_by_peer(x));
	assert_int_equal(prom_connections(), 2);
	/* A byte every 100 ms does not keep x past its second. */
	for (int i = 0; i < 15; i++) {
		(void)send(x, "X", 1, MSG_NOSIGNAL);
		spin(base, 100);
	}
	assert_true(closed_by_peer(x));
	assert_true(closed_by_peer(b));
	assert_int_equal(prom_connections(), 0);
	assert_int_equal(renders, 0);
	get(base, port, "GET /metrics HTTP/1.0\r\n\r\n", &c);
	assert_int_equal(status_of(&c), 200);
	close(a);
	close(b);
	close(x);
	prom_stop();
	prom_set_limits(PROM_MAX_CONNS, PROM_DEADLINE_S);
	event_base_free(base);
}

/* A server capped at 2 connections with a 5 s deadline: its port. */
static int
capped_start(struct event_base *base, int *renders)
{
	char err[256];

	assert_non_null(base);
	prom_set_limits(2, 5.0);
	assert_int_equal(prom_start(base, "127.0.0.1:0", render, renders,
	    err, sizeof(err)), 0);
	return prom_port();
}

static void
capped_stop(struct event_base *base)
{
	prom_stop();
	prom_set_limits(PROM_MAX_CONNS, PROM_DEADLINE_S);
	event_base_free(base);
}

/* At the cap, a connection kept alive between requests gives way to a
 * new one (the longest idle first), so clients that only hold their
 * connections open do not lock a scraper out; one in mid its first
 * request does not give way before it. */
static void
test_cap_evicts_idle(void **state)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	struct event_base *base = event_base_new();
	static struct client c;
	int renders = 0, port, a, b;

	(void)state;
	port = capped_start(base, &renders);
	a = tcp_to(port);
	assert_int_equal(send(a, req, sizeof(req) - 1, 0),
	    (ssize_t)sizeof(req) - 1);
	spin(base, 100);
	b = tcp_to(port);			/* mid-request */
	assert_int_equal(send(b, "GET /met", 8, 0), 8);
	spin(base, 100);
	assert_int_equal(renders, 1);
	assert_int_equal(prom_connections(), 2);
	get(base, port, "GET /metrics HTTP/1.0\r\n\r\n", &c);
	assert_int_equal(status_of(&c), 200);
	spin(base, 50);
	assert_true(closed_by_peer(a));		/* idle: gave way */
	assert_false(closed_by_peer(b));	/* mid-request: kept */
	close(a);
	close(b);
	capped_stop(base);
}

/* Issue 22: connections that each start their next request as soon as
 * one is answered are never idle; at the cap the one answered the longest
 * ago gives way all the same, so a new scrape gets in while they churn. */
static void
test_cap_evicts_churning(void **state)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	struct event_base *base = event_base_new();
	static struct client c;
	int renders = 0, port, fds[2];

	(void)state;
	port = capped_start(base, &renders);
	for (int i = 0; i < 2; i++) {
		fds[i] = tcp_to(port);
		assert_int_equal(send(fds[i], req, sizeof(req) - 1, 0),
		    (ssize_t)sizeof(req) - 1);
		spin(base, 50);
		assert_int_equal(send(fds[i], "GET /met", 8, 0), 8);
		spin(base, 50);
	}
	assert_int_equal(renders, 2);
	assert_int_equal(prom_connections(), 2);
	get(base, port, "GET /metrics HTTP/1.0\r\n\r\n", &c);
	assert_int_equal(status_of(&c), 200);
	spin(base, 50);
	assert_true(closed_by_peer(fds[0]));	/* answered longest ago */
	assert_false(closed_by_peer(fds[1]));
	close(fds[0]);
	close(fds[1]);
	capped_stop(base);
}

static void
test_listen_forms(void **state)
{
	const char *good[] = { ":0", "0", "localhost:0", "0.0.0.0:0" };
	const char *bad[] = { "", "abc", "127.0.0.1:", "127.0.0.1:65536",
	    "127.0.0.1:-1", "127.0.0.1:+80", "127.0.0.1: 80", "::1:80",
	    "[::1]", "[::1]80", "[127.0.0.1]:80", "example.com:80",
	    "1.2.3:80", "[::1]:x" };
	struct event_base *base = event_base_new();
	static struct client c;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t slen = sizeof(sin);
	char err[256];
	int renders = 0, fd;

	(void)state;
	assert_non_null(base);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(prom_start(base, good[i], render, &renders,
		    err, sizeof(err)), 0);
		get(base, prom_port(), "GET /metrics HTTP/1.0\r\n\r\n", &c);
		assert_int_equal(status_of(&c), 200);
		prom_stop();
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(prom_start(base, bad[i], render, &renders,
		    err, sizeof(err)), -1);
		assert_true(err[0] != '\0');
		assert_int_equal(prom_port(), -1);
	}
	assert_int_equal(prom_start(base, NULL, render, &renders, err,
	    sizeof(err)), -1);

	/* A port in use is refused with the reason. */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &slen), 0);
	snprintf(c.resp, sizeof(c.resp), "127.0.0.1:%d", ntohs(sin.sin_port));
	assert_int_equal(prom_start(base, c.resp, render, &renders, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, strerror(EADDRINUSE)));
	close(fd);
	/* And a failed start leaves nothing behind. */
	assert_int_equal(prom_start(base, ":0", render, &renders, err,
	    sizeof(err)), 0);
	prom_stop();
	event_base_free(base);
}

/* IPv6 loopback, where the host has it. */
static void
test_listen_ipv6(void **state)
{
	struct event_base *base = event_base_new();
	char err[256];
	int renders = 0;

	(void)state;
	assert_non_null(base);
	if (prom_start(base, "[::1]:0", render, &renders, err,
	    sizeof(err)) == -1) {
		event_base_free(base);
		print_message("no IPv6 loopback here: %s\n", err);
		skip();
	}
	assert_true(prom_port() > 0);
	prom_stop();
	event_base_free(base);
}

/* A failed test must not leave its listener to the next one. */
static int
teardown(void **state)
{
	(void)state;
	prom_stop();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_escape),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_histogram_monotone),
		cmocka_unit_test(test_histogram_empty),
		cmocka_unit_test_teardown(test_http, teardown),
		cmocka_unit_test_teardown(test_limits, teardown),
		cmocka_unit_test_teardown(test_cap_evicts_idle, teardown),
		cmocka_unit_test_teardown(test_cap_evicts_churning, teardown),
		cmocka_unit_test_teardown(test_listen_forms, teardown),
		cmocka_unit_test_teardown(test_listen_ipv6, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
