/* Prometheus exporter; see prom.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>

#include "acceptpause.h"
#include "hostport.h"
#include "prom.h"

static struct evhttp		*http;
static struct acceptpause	*pause_accept;	/* out of descriptors */
static struct evconnlistener	*listener;	/* owned by http */
static prom_render_fn		 render_fn;
static void			*render_arg;
static int			 bound_port = -1;

/* ------------------------------------------------------------ format */

/*
 * The escaped form of the character at s: its bytes, or a backslash
 * escape, or U+FFFD for a byte that does not start a well-formed UTF-8
 * sequence (Prometheus rejects invalid UTF-8, and label values come from
 * paths, which may hold anything).  Fills u (at most 4 bytes, not
 * terminated), sets *ulen and returns the input bytes consumed; 0 at the
 * end of s.
 */
static size_t
escape_char(const char *s, bool quote, char *u, size_t *ulen)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	size_t n;

	switch (p[0]) {
	case '\0':
		return 0;
	case '\\':
		memcpy(u, "\\\\", *ulen = 2);
		return 1;
	case '\n':
		memcpy(u, "\\n", *ulen = 2);
		return 1;
	case '"':
		if (quote) {
			memcpy(u, "\\\"", *ulen = 2);
			return 1;
		}
		break;
	}
	if (p[0] < 0x80) {
		u[0] = (char)p[0];
		*ulen = 1;
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		cp = p[0] & 0x07;
	} else
		goto bad;
	/* A NUL terminator is not a continuation byte, so this stops at the
	 * end of s. */
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			goto bad;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates and code points past U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		goto bad;
	memcpy(u, s, *ulen = n);
	return n;
bad:
	memcpy(u, "\xef\xbf\xbd", *ulen = 3);
	return 1;
}

void
prom_label_escape(char *dst, size_t len, const char *value)
{
	size_t used = 0, in, ulen;
	char u[4];

	if (len == 0)
		return;
	if (value != NULL)
		while ((in = escape_char(value, true, u, &ulen)) > 0 &&
		    used + ulen < len) {
			memcpy(dst + used, u, ulen);
			used += ulen;
			value += in;
		}
	dst[used] = '\0';
}

/*
 * v as Prometheus reads it: NaN, +Inf, -Inf, otherwise the shortest of
 * %.15g and %.17g that reads back as v, so 3 prints as "3" and 0.1 as
 * "0.1" (not 0.10000000000000001) while nothing is lost.  The daemon never
 * calls setlocale, so the decimal point is '.'.
 */
static void
format_double(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "NaN");
	else if (isinf(v))
		snprintf(buf, len, "%s", v > 0 ? "+Inf" : "-Inf");
	else {
		snprintf(buf, len, "%.15g", v);
		if (strtod(buf, NULL) != v)
			snprintf(buf, len, "%.17g", v);
	}
}

void
prom_header(struct evbuffer *out, const char *name, const char *type,
    const char *help)
{
	size_t in, ulen;
	char u[4];

	if (help != NULL) {
		evbuffer_add_printf(out, "# HELP %s ", name);
		while ((in = escape_char(help, false, u, &ulen)) > 0) {
			evbuffer_add(out, u, ulen);
			help += in;
		}
		evbuffer_add(out, "\n", 1);
	}
	evbuffer_add_printf(out, "# TYPE %s %s\n", name, type);
}

void
prom_sample(struct evbuffer *out, const char *name, const char *labels,
    double value)
{
	char num[32];

	format_double(num, sizeof(num), value);
	if (labels != NULL && labels[0] != '\0')
		evbuffer_add_printf(out, "%s{%s} %s\n", name, labels, num);
	else
		evbuffer_add_printf(out, "%s %s\n", name, num);
}

/* The le boundaries in ns: 10 us .. 100 s in 1-2-5 steps, the span from a
 * fast rrd_update_r to a badly stalled queue.  Fixed, so every scrape
 * has the same series and rate()/histogram_quantile() can combine them. */
static const uint64_t ladder_ns[PROM_LADDER_LEN] = {
	10000, 20000, 50000,
	100000, 200000, 500000,
	1000000, 2000000, 5000000,
	10000000, 20000000, 50000000,
	100000000, 200000000, 500000000,
	1000000000, 2000000000, 5000000000,
	10000000000, 20000000000, 50000000000,
	100000000000,
};

static void
bucket_line(struct evbuffer *out, const char *name, const char *labels,
    const char *le, uint64_t count)
{
	evbuffer_add_printf(out, "%s_bucket{%s%sle=\"%s\"} %ju\n", name,
	    labels != NULL ? labels : "",
	    labels != NULL && labels[0] != '\0' ? "," : "", le, (uintmax_t)count);
}

/*
 * A hist bucket is counted under the first boundary at or above its upper
 * bound.  A bucket straddling a boundary (at most 0.79% wide) is counted
 * above it, so a count may miss records lying just below its le but never
 * includes one above it.  Clamped records (the overflow bucket, bound
 * UINT64_MAX) count only in +Inf.
 */
void
prom_histogram(struct evbuffer *out, const char *name, const char *help,
    const struct hist *h, double scale, const char *labels)
{
	uint64_t *upper = NULL, *count = NULL, cum = 0, total = 0;
	size_t n = 0, j = 0;
	char num[32];

	if (h != NULL && hist_count(h) > 0) {
		/* 75 KiB: too much for a stack shared with libevent. */
		upper = malloc(HIST_BUCKETS * sizeof(*upper));
		count = malloc(HIST_BUCKETS * sizeof(*count));
		if (upper == NULL || count == NULL)
			goto fail;	/* the series are missing from this scrape */
		n = hist_buckets(h, upper, count, HIST_BUCKETS);
		total = hist_count(h);
	}
	prom_header(out, name, "histogram", help);
	/* A bucket is counted under its fixed upper edge only: placing the
	 * top one by the max seen so far would move it to a higher le as the
	 * max grows, and a cumulative count would go down between scrapes. */
	for (size_t i = 0; i < PROM_LADDER_LEN; i++) {
		while (j < n && upper[j] <= ladder_ns[i])
			cum += count[j++];
		/* %.15g: the product's rounding noise must not show, so the
		 * labels read 1e-05, 0.0002, 100. */
		snprintf(num, sizeof(num), "%.15g",
		    (double)ladder_ns[i] * scale);
		bucket_line(out, name, labels, num, cum);
	}
	bucket_line(out, name, labels, "+Inf", total);

	evbuffer_add_printf(out, "%s_sum", name);
	prom_sample(out, "", labels,
	    h != NULL ? hist_mean(h) * (double)total * scale : 0);
	evbuffer_add_printf(out, "%s_count", name);
	prom_sample(out, "", labels, (double)total);
fail:
	free(upper);
	free(count);
}

/* -------------------------------------------------------------- http */

static void
reply_text(struct evhttp_request *req, int code, const char *reason,
    const char *body)
{
	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Content-Type", "text/plain; charset=utf-8");
	evbuffer_add(evhttp_request_get_output_buffer(req), body,
	    strlen(body));
	evhttp_send_reply(req, code, reason, NULL);
}

static void
handle_request(struct evhttp_request *req, void *arg)
{
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri != NULL ? evhttp_uri_get_path(uri) : NULL;
	enum evhttp_cmd_type method = evhttp_request_get_command(req);
	struct evkeyvalq *headers = evhttp_request_get_output_headers(req);
	struct evbuffer *body = evhttp_request_get_output_buffer(req);
	char len[32];

	(void)arg;
	/* Only /metrics exists, and only for GET (and its HEAD). */
	if (path == NULL || strcmp(path, "/metrics") != 0) {
		reply_text(req, HTTP_NOTFOUND, "Not Found",
		    "404 page not found\n");
		return;
	}
	if (method != EVHTTP_REQ_GET && method != EVHTTP_REQ_HEAD) {
		evhttp_add_header(headers, "Allow", "GET, HEAD");
		reply_text(req, 405, "Method Not Allowed",
		    "405 method not allowed: GET /metrics\n");
		return;
	}
	render_fn(body, render_arg);
	/* The length always, by hand: evhttp 2.1 leaves it out for HTTP/1.0
	 * and for HEAD, and sends a HTTP/1.0 HEAD the body, so that is
	 * dropped here. */
	snprintf(len, sizeof(len), "%zu", evbuffer_get_length(body));
	evhttp_add_header(headers, "Content-Type", PROM_CONTENT_TYPE);
	evhttp_add_header(headers, "Content-Length", len);
	if (method == EVHTTP_REQ_HEAD)
		evbuffer_drain(body, evbuffer_get_length(body));
	evhttp_send_reply(req, HTTP_OK, "OK", NULL);
}

/* Out of descriptors: libevent's listener would retry at once, forever,
 * starving the control socket; pause accepting for a while instead. */
static void
accept_error(struct evconnlistener *lev, void *arg)
{
	(void)lev;
	(void)arg;
	if (acceptpause_out_of_fds(EVUTIL_SOCKET_ERROR()))
		acceptpause_pause(pause_accept, NULL);
}

int
prom_start(struct event_base *base, const char *addr, prom_render_fn render,
    void *arg, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sslen;
	int fd = -1, one = 1, port;

	if (http != NULL) {
		snprintf(err, errlen, "metrics listener already running");
		return -1;
	}
	if (hostport_listen(addr, &ss, &sslen, err, errlen) == -1)
		return -1;

	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (fd == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		goto fail;
	}
	/* A restarted daemon gets its port back despite TIME_WAIT; [::]
	 * means IPv6 only, so an IPv4 listener can share the port. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1 ||
	    (ss.ss_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6,
	    IPV6_V6ONLY, &one, sizeof(one)) == -1)) {
		snprintf(err, errlen, "setsockopt: %s", strerror(errno));
		goto fail;
	}
	if (bind(fd, (struct sockaddr *)&ss, sslen) == -1) {
		snprintf(err, errlen, "bind %s: %s", addr, strerror(errno));
		goto fail;
	}
	if (listen(fd, 64) == -1) {
		snprintf(err, errlen, "listen %s: %s", addr, strerror(errno));
		goto fail;
	}
	/* Read back, for port 0. */
	sslen = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &sslen) == -1) {
		snprintf(err, errlen, "getsockname: %s", strerror(errno));
		goto fail;
	}
	port = ntohs(ss.ss_family == AF_INET6 ?
	    ((struct sockaddr_in6 *)&ss)->sin6_port :
	    ((struct sockaddr_in *)&ss)->sin_port);

	if ((http = evhttp_new(base)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	/* Every method evhttp knows reaches handle_request, which gives 404
	 * off /metrics and 405 on it: restricted here, evhttp 2.1 would
	 * answer 501 to all of them.  Bodies are refused (413) before. */
	evhttp_set_allowed_methods(http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD |
	    EVHTTP_REQ_POST | EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE |
	    EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE | EVHTTP_REQ_CONNECT |
	    EVHTTP_REQ_PATCH);
	evhttp_set_max_headers_size(http, PROM_MAX_HEADERS_SIZE);
	evhttp_set_max_body_size(http, PROM_MAX_BODY_SIZE);
	evhttp_set_timeout(http, PROM_TIMEOUT_S);
	evhttp_set_gencb(http, handle_request, NULL);

	/* Our own listener (not evhttp_bind_socket) so the fd is ours until
	 * evhttp takes it, and so accept errors reach accept_error. */
	listener = evconnlistener_new(base, NULL, NULL,
	    LEV_OPT_CLOSE_ON_FREE, 0, fd);
	if (listener == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	fd = -1;	/* the listener closes it */
	if (evhttp_bind_listener(http, listener) == NULL) {
		evconnlistener_free(listener);
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if ((pause_accept = acceptpause_new(base, listener, NULL,
	    NULL)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;	/* evhttp frees the listener it owns */
	}
	evconnlistener_set_error_cb(listener, accept_error);
	render_fn = render;
	render_arg = arg;
	bound_port = port;
	return 0;
fail:
	listener = NULL;
	if (fd != -1)
		close(fd);
	prom_stop();
	return -1;
}

int
prom_port(void)
{
	return bound_port;
}

void
prom_stop(void)
{
	/* Frees the listener (closing its socket) and every connection. */
	if (http != NULL)
		evhttp_free(http);
	acceptpause_free(pause_accept);
	http = NULL;
	pause_accept = NULL;
	listener = NULL;
	render_fn = NULL;
	render_arg = NULL;
	bound_port = -1;
}
