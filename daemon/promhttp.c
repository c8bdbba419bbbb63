/*
 * The /metrics HTTP server (prom_start, prom_port, prom_stop of prom.h):
 * HTTP/1.0 and 1.1, GET and HEAD of /metrics, keep-alive, no bodies.
 *
 * Written on bufferevents rather than evhttp because evhttp 2.1 neither
 * caps its connections nor bounds a request's time (its timeout restarts
 * with every byte, so a client dribbling a byte a second holds its
 * descriptor for ever).  Here a connection past the cap takes the place of
 * one held (evict_one says which), or is closed as it is accepted; each
 * request must arrive, and its reply leave, within a deadline counted
 * from accept (or from the previous reply on a kept connection) that no
 * byte extends; and a connection is closed after PROM_MAX_REQUESTS.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "acceptpause.h"
#include "hostport.h"
#include "log.h"
#include "prom.h"
#include "util.h"

/* Replies past this wait to be sent before the next request is read. */
#define PROM_OUTPUT_RESUME	(256 * 1024)

struct hconn {
	struct bufferevent	*bev;
	struct event		*deadline;
	struct hconn		*next, *prev;
	bool			 closing;	/* free once output is flushed */
	bool			 served;	/* answered a request */
	double			 since;		/* its accept, then its last reply */
	unsigned		 requests;	/* heads read */
};

static struct event_base	*hbase;
static struct evconnlistener	*listener;
static struct acceptpause	*pause_accept;	/* out of descriptors */
static struct hconn		*conns;
static unsigned			 nconns;
static unsigned			 max_conns = PROM_MAX_CONNS;
static double			 deadline_s = PROM_DEADLINE_S;
static uint64_t			 refused;	/* connections over the cap */
static uint64_t			 unfinished;	/* first requests cut at it */
static prom_render_fn		 render_fn;
static void			*render_arg;
static int			 bound_port = -1;

void
prom_set_limits(unsigned max_connections, double deadline)
{
	max_conns = max_connections > 0 ? max_connections : 1;
	deadline_s = deadline > 0 ? deadline : PROM_DEADLINE_S;
}

unsigned
prom_connections(void)
{
	return nconns;
}

static void
conn_free(struct hconn *c)
{
	evutil_socket_t fd;

	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		conns = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	event_free(c->deadline);
	/* Closed here, not by the bufferevent: libevent defers that close to
	 * the next turn of the loop, and one turn of the listener accepts (and
	 * evicts for) every connection queued, so a flood at the cap would hold
	 * a descriptor for each until the turn ends. */
	fd = bufferevent_getfd(c->bev);
	bufferevent_free(c->bev);
	if (fd != -1)
		close(fd);
	free(c);
	nconns--;
}

static void
arm_deadline(struct hconn *c)
{
	struct timeval tv;

	tv.tv_sec = (time_t)deadline_s;
	tv.tv_usec = (suseconds_t)((deadline_s - (double)tv.tv_sec) * 1e6);
	event_add(c->deadline, &tv);
}

static void
on_deadline(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	conn_free(arg);
}

static const char *
reason_of(int code)
{
	switch (code) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 413: return "Payload Too Large";
	case 431: return "Request Header Fields Too Large";
	default: return "Error";
	}
}

/* Queue one reply: body (NULL: none) of type, without the body for HEAD. */
static void
reply(struct hconn *c, int minor, int code, const char *type,
    struct evbuffer *body, const char *text, bool head)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);
	size_t len = body != NULL ? evbuffer_get_length(body) :
	    text != NULL ? strlen(text) : 0;

	evbuffer_add_printf(out, "HTTP/1.%d %d %s\r\nContent-Type: %s\r\n"
	    "Content-Length: %zu\r\n%s%s\r\n", minor, code, reason_of(code),
	    type, len, code == 405 ? "Allow: GET, HEAD\r\n" : "",
	    c->closing ? "Connection: close\r\n" : "");
	if (head)
		return;
	if (body != NULL)
		evbuffer_add_buffer(out, body);
	else if (text != NULL)
		evbuffer_add(out, text, len);
}

static void
reply_text(struct hconn *c, int minor, int code, const char *text)
{
	reply(c, minor, code, "text/plain; charset=utf-8", NULL, text, false);
}

/* The value of header name in the header lines at h (after the request
 * line), copied into buf; false when absent. */
static bool
header_value(const char *h, const char *name, char *buf, size_t len)
{
	size_t n = strlen(name);

	for (const char *l = h; *l != '\0'; l += strcspn(l, "\n"),
	    l += *l == '\n') {
		if (strncasecmp(l, name, n) == 0 && l[n] == ':') {
			const char *v = l + n + 1;
			size_t vl;

			v += strspn(v, " \t");
			vl = strcspn(v, "\r\n");
			while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
				vl--;
			snprintf(buf, len, "%.*s", (int)vl, v);
			return true;
		}
	}
	return false;
}

/* Whether a header line at h has whitespace in its field name, before
 * its colon: RFC 9112 5.1 has a server reject that with 400, since peers
 * disagree on what such a line means ("Content-Length : 5" would hide a
 * body from the body check below). */
static bool
header_name_spaced(const char *h)
{
	for (const char *l = h; *l != '\0'; l += strcspn(l, "\n"),
	    l += *l == '\n') {
		size_t n = strcspn(l, ":\r\n");

		if (l[n] == ':' && strcspn(l, " \t") < n)
			return true;
	}
	return false;
}

/* One request head (NUL-terminated, up to its empty line): answered. */
static void
handle_head(struct hconn *c, char *head)
{
	char method[16], target[2048], version[16], val[64];
	int minor;
	bool get, headm;
	const char *hdrs = head + strcspn(head, "\n");
	struct evbuffer *body;

	if (sscanf(head, "%15[A-Za-z] %2047[^ \r\n] %15[^ \r\n]", method,
	    target, version) != 3 || (strcmp(version, "HTTP/1.0") != 0 &&
	    strcmp(version, "HTTP/1.1") != 0)) {
		c->closing = true;
		reply_text(c, 1, 400, "400 bad request\n");
		return;
	}
	minor = version[7] - '0';
	if (header_name_spaced(hdrs)) {
		c->closing = true;
		reply_text(c, minor, 400, "400 bad request: whitespace before "
		    "a header's colon\n");
		return;
	}
	/* 1.1 keeps the connection unless told; 1.0 closes unless told. */
	if (header_value(hdrs, "Connection", val, sizeof(val)))
		c->closing = strcasecmp(val, "close") == 0 ||
		    (minor == 0 && strcasecmp(val, "keep-alive") != 0);
	else
		c->closing = minor == 0;
	/* A slot is not held for ever by keeping it busy. */
	if (++c->requests >= PROM_MAX_REQUESTS)
		c->closing = true;
	/* No bodies: one would have to be read past to find the next
	 * request. */
	if (header_value(hdrs, "Transfer-Encoding", val, sizeof(val)) ||
	    (header_value(hdrs, "Content-Length", val, sizeof(val)) &&
	    strspn(val, "0") != strlen(val))) {
		c->closing = true;
		reply_text(c, minor, 413, "413 request bodies are not taken\n");
		return;
	}
	target[strcspn(target, "?")] = '\0';
	if (strcmp(target, "/metrics") != 0) {
		reply_text(c, minor, 404, "404 page not found\n");
		return;
	}
	get = strcmp(method, "GET") == 0;
	headm = strcmp(method, "HEAD") == 0;
	if (!get && !headm) {
		reply_text(c, minor, 405, "405 method not allowed: GET "
		    "/metrics\n");
		return;
	}
	if ((body = evbuffer_new()) == NULL) {
		c->closing = true;
		return;
	}
	render_fn(body, render_arg);
	reply(c, minor, 200, PROM_CONTENT_TYPE, body, NULL, headm);
	evbuffer_free(body);
}

/* Where the head in the first len bytes at p ends (past its empty line),
 * or 0 when it is not complete. */
static size_t
head_end(const char *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (p[i] != '\n')
			continue;
		if (p[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && p[i + 1] == '\r' && p[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

static void
conn_read(struct bufferevent *bev, void *arg)
{
	struct hconn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);

	while (!c->closing && evbuffer_get_length(bufferevent_get_output(bev))
	    <= PROM_OUTPUT_RESUME) {
		size_t len = evbuffer_get_length(in), end;
		char *p, *head;

		if (len > PROM_MAX_HEADERS_SIZE + 4)
			len = PROM_MAX_HEADERS_SIZE + 4;
		if (len == 0 || (p = (char *)evbuffer_pullup(in,
		    (ev_ssize_t)len)) == NULL)
			break;
		if ((end = head_end(p, len)) == 0) {
			if (len > PROM_MAX_HEADERS_SIZE) {
				c->closing = true;
				reply_text(c, 1, 431, "431 request headers "
				    "too large\n");
			}
			break;
		}
		if ((head = malloc(end + 1)) == NULL) {
			c->closing = true;
			break;
		}
		evbuffer_remove(in, head, end);
		head[end] = '\0';
		handle_head(c, head);
		free(head);
		/* The next request on this connection has its own time. */
		if (!c->closing) {
			arm_deadline(c);
			c->served = true;
			c->since = util_now();
		}
	}
	if (c->closing) {
		bufferevent_disable(bev, EV_READ);
		evbuffer_drain(in, evbuffer_get_length(in));
		if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
			conn_free(c);
	}
}

/* Output sent: free a closing connection, or read on. */
static void
conn_write(struct bufferevent *bev, void *arg)
{
	struct hconn *c = arg;

	if (c->closing)
		conn_free(c);
	else if (evbuffer_get_length(bufferevent_get_input(bev)) > 0)
		conn_read(bev, c);
}

static void
conn_event(struct bufferevent *bev, short what, void *arg)
{
	struct hconn *c = arg;

	/* After the client's EOF what is queued still goes out. */
	if ((what & BEV_EVENT_EOF) && !(what & BEV_EVENT_ERROR) &&
	    evbuffer_get_length(bufferevent_get_output(bev)) > 0) {
		c->closing = true;
		bufferevent_disable(bev, EV_READ);
		return;
	}
	conn_free(c);
}

/*
 * At the cap one connection gives way to the new one, so that neither
 * idle keep-alives nor requests that never finish lock a scrape out
 * (issue 22).  In this order, within each the one waiting longest (since
 * its last reply, or its accept): a kept-alive connection with nothing of
 * its next request in; one mid its next request (clients that start the
 * next request the moment one is answered are never idle); one with part
 * of its first request in, which it has not finished (a slowloris, or a
 * client gone); one with nothing in yet, last, as a scrape just accepted
 * has its request still in flight.  One with a reply going out is kept.
 * True if one went.
 */
static bool
evict_one(void)
{
	struct hconn *c, *oldest[4] = { NULL, NULL, NULL, NULL };
	int t;

	for (c = conns; c != NULL; c = c->next) {
		bool in = evbuffer_get_length(bufferevent_get_input(c->bev)) > 0;

		if (c->closing ||
		    evbuffer_get_length(bufferevent_get_output(c->bev)) > 0)
			continue;
		t = c->served ? (in ? 1 : 0) : (in ? 2 : 3);
		/* <=: the list runs newest first, so on a tie the older. */
		if (oldest[t] == NULL || c->since <= oldest[t]->since)
			oldest[t] = c;
	}
	for (t = 0; t < 4 && oldest[t] == NULL; t++)
		;
	if (t == 4)
		return false;
	if (t >= 2 && unfinished++ % 1000 == 0)
		log_warnx("/metrics: %u connections, the cap; closing the "
		    "oldest with its first request unfinished for a new one "
		    "(%ju so far)", max_conns, (uintmax_t)unfinished);
	conn_free(oldest[t]);
	return true;
}

static void
accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
    int salen, void *arg)
{
	struct hconn *c;

	(void)l;
	(void)sa;
	(void)salen;
	(void)arg;
	/* Over the cap: closed at once, so a flood costs an accept and a
	 * close each, never a descriptor held. */
	if (nconns >= max_conns && !evict_one()) {
		if (refused++ % 1000 == 0)
			log_warnx("/metrics: %u connections, the cap; closing "
			    "new ones (%ju so far)", max_conns,
			    (uintmax_t)refused);
		close(fd);
		return;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->deadline = evtimer_new(hbase, on_deadline, c)) == NULL ||
	    (c->bev = bufferevent_socket_new(hbase, fd, 0)) == NULL) {
		if (c != NULL && c->deadline != NULL)
			event_free(c->deadline);
		free(c);
		close(fd);
		return;
	}
	c->next = conns;
	if (conns != NULL)
		conns->prev = c;
	conns = c;
	nconns++;
	c->since = util_now();
	bufferevent_setcb(c->bev, conn_read, conn_write, conn_event, c);
	bufferevent_setwatermark(c->bev, EV_READ, 0, PROM_MAX_HEADERS_SIZE + 4);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	arm_deadline(c);
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

/* A bound, listening, non-blocking socket on ss; -1 with err. */
static int
listen_on(const char *addr, struct sockaddr_storage *ss, socklen_t sslen,
    char *err, size_t errlen)
{
	int fd, one = 1;

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (fd == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	/* A restarted daemon gets its port back despite TIME_WAIT; [::]
	 * means IPv6 only, so an IPv4 listener can share the port. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1 ||
	    (ss->ss_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6,
	    IPV6_V6ONLY, &one, sizeof(one)) == -1)) {
		snprintf(err, errlen, "setsockopt: %s", strerror(errno));
		goto fail;
	}
	if (bind(fd, (struct sockaddr *)ss, sslen) == -1) {
		snprintf(err, errlen, "bind %s: %s", addr, strerror(errno));
		goto fail;
	}
	/* A long backlog costs the kernel, not us: with a short one, a
	 * flood's handshakes overflow it and their ACKs are dropped, so a
	 * scraper's connection is accepted only at a late retry. */
	if (listen(fd, SOMAXCONN) == -1) {
		snprintf(err, errlen, "listen %s: %s", addr, strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

int
prom_start(struct event_base *base, const char *addr, prom_render_fn render,
    void *arg, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sslen;
	int fd;

	if (listener != NULL) {
		snprintf(err, errlen, "metrics listener already running");
		return -1;
	}
	if (hostport_listen(addr, &ss, &sslen, err, errlen) == -1)
		return -1;
	if ((fd = listen_on(addr, &ss, sslen, err, errlen)) == -1)
		return -1;
	/* Read back, for port 0. */
	sslen = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &sslen) == -1) {
		snprintf(err, errlen, "getsockname: %s", strerror(errno));
		close(fd);
		return -1;
	}
	hbase = base;
	listener = evconnlistener_new(base, accept_cb, NULL,
	    LEV_OPT_CLOSE_ON_FREE, 0, fd);
	if (listener == NULL) {
		snprintf(err, errlen, "out of memory");
		close(fd);
		return -1;
	}
	if ((pause_accept = acceptpause_new(base, listener, NULL,
	    NULL)) == NULL) {
		snprintf(err, errlen, "out of memory");
		prom_stop();
		return -1;
	}
	evconnlistener_set_error_cb(listener, accept_error);
	render_fn = render;
	render_arg = arg;
	bound_port = ntohs(ss.ss_family == AF_INET6 ?
	    ((struct sockaddr_in6 *)&ss)->sin6_port :
	    ((struct sockaddr_in *)&ss)->sin_port);
	return 0;
}

int
prom_port(void)
{
	return bound_port;
}

void
prom_stop(void)
{
	if (listener != NULL)
		evconnlistener_free(listener);
	while (conns != NULL)
		conn_free(conns);
	acceptpause_free(pause_accept);
	listener = NULL;
	pause_accept = NULL;
	render_fn = NULL;
	render_arg = NULL;
	bound_port = -1;
}
