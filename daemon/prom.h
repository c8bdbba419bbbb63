/*
 * Prometheus exporter: an HTTP listener (promhttp.c) that answers GET
 * /metrics with whatever the render callback writes, and helpers (prom.c)
 * that write the text exposition format 0.0.4 into an evbuffer.
 *
 * The listener runs on the daemon's event loop beside the control socket,
 * so nothing here blocks: replies are rendered from memory and queued;
 * at most PROM_MAX_CONNS connections are held (past that one held gives
 * way to the new one, or the new one is closed as it is accepted), each
 * request must be read and answered within PROM_DEADLINE_S of its
 * connection's accept (or of the previous reply on a kept-alive
 * connection), however its bytes trickle in, and a connection is answered
 * at most PROM_MAX_REQUESTS requests.
 *
 * Metric names passed to the helpers must already be valid Prometheus
 * names ([a-zA-Z_:][a-zA-Z0-9_:]*); label values from outside (paths, run
 * ids) go through prom_label_escape first.
 */
#ifndef STRESSD_PROM_H
#define STRESSD_PROM_H

#include <stddef.h>
#include <event2/buffer.h>
#include <event2/event.h>

#include "hist.h"

#define PROM_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"
/* A scrape is a few lines of request: anything bigger is not Prometheus. */
#define PROM_MAX_HEADERS_SIZE	8192
#define PROM_MAX_BODY_SIZE	0
/* Seconds a request may take, from accept to its reply sent; bytes do
 * not extend it, so a slow client cannot hold a descriptor for long. */
#define PROM_DEADLINE_S		10
/* Connections held at once, unless prom_set_limits says otherwise (the
 * descriptor budget, fdbudget.h, gives the daemon's). */
#define PROM_MAX_CONNS		64
/* Requests answered on one connection: the last reply says
 * "Connection: close", so no client holds a slot for ever. */
#define PROM_MAX_REQUESTS	100

/* Write the body of one scrape into out. */
typedef void	(*prom_render_fn)(struct evbuffer *out, void *arg);

/* Listen on addr: "ADDR:PORT", ":PORT" or "PORT" (then 127.0.0.1),
 * "[IPV6]:PORT"; ADDR is numeric or "localhost".  Port 0 picks a free
 * port (see prom_port).  0, or -1 with a message in err. */
int	prom_start(struct event_base *base, const char *addr,
	    prom_render_fn render, void *arg, char *err, size_t errlen);
/* Cap the connections held at once and set the request deadline (s);
 * before prom_start. */
void	prom_set_limits(unsigned max_connections, double deadline_s);
/* Connections held now. */
unsigned	prom_connections(void);
/* The port listened on, or -1 when not listening. */
int	prom_port(void);
/* Close the listener and every connection; harmless when not started. */
void	prom_stop(void);

/* # HELP (escaped) and # TYPE lines; no HELP line when help is NULL. */
void	prom_header(struct evbuffer *out, const char *name, const char *type,
	    const char *help);
/* One sample line; labels is NULL, "" or a pre-built a="b",c="d". */
void	prom_sample(struct evbuffer *out, const char *name,
	    const char *labels, double value);
/* value as a label value: backslash, double quote and newline escaped,
 * invalid UTF-8 replaced by U+FFFD.  Always NUL-terminated when len > 0;
 * when too long it is cut, never inside an escape or a character. */
void	prom_label_escape(char *dst, size_t len, const char *value);
/* h (NULL: empty) as a Prometheus histogram of name, values in ns
 * multiplied by scale (1e-9 for seconds), with the fixed le ladder of
 * PROM_LADDER_LEN boundaries 10 us .. 100 s (1-2-5 steps) and +Inf. */
#define PROM_LADDER_LEN		22
void	prom_histogram(struct evbuffer *out, const char *name,
	    const char *help, const struct hist *h, double scale,
	    const char *labels);

#endif
