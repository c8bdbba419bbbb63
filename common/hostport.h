/* host:port, [v6]:port and listen addresses: the one parser of the
 * addresses stressd takes (the target knob, allowed_targets, metrics_listen,
 * --metrics-listen and the rrdcached client). */
#ifndef STRESSD_HOSTPORT_H
#define STRESSD_HOSTPORT_H

#include <sys/socket.h>

#include <stdbool.h>
#include <stddef.h>

#define HOSTPORT_HOST_MAX	256

struct hostport {
	char	host[HOSTPORT_HOST_MAX];	/* brackets removed */
	long	port;		/* 0 to 65535; -1: none given */
	bool	bracketed;	/* written [v6] */
	bool	bare_v6;	/* two or more ':' outside brackets: the whole
				   text is the host, with no port */
};

enum hostport_error {
	HOSTPORT_OK,
	HOSTPORT_EMPTY,
	HOSTPORT_BRACKET,	/* no ']', or not ']' or ']:PORT' at the end */
	HOSTPORT_TOO_LONG,	/* host of HOSTPORT_HOST_MAX bytes or more */
	HOSTPORT_PORT,		/* not digits, or over 65535 */
};

/* A listen address: a text without ':' is a PORT, and a port is needed. */
#define HOSTPORT_LISTEN		0x1

/* Split s into hp: HOST, HOST:PORT, [V6], [V6]:PORT or a bare IPv6 address
 * (with HOSTPORT_LISTEN: PORT, HOST:PORT or [V6]:PORT).  Only the shape is
 * checked; what a host may be is the caller's rule. */
enum hostport_error	hostport_split(const char *s, unsigned flags,
	    struct hostport *hp);

/* A listen address, [ADDR:]PORT or [IPV6]:PORT with a numeric address
 * (none or localhost: 127.0.0.1, since resolving a name could block), into
 * a socket address; 0, or -1 with a message quoting s in err. */
int	hostport_listen(const char *s, struct sockaddr_storage *ss,
	    socklen_t *sslen, char *err, size_t errlen);

#endif
