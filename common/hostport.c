/* The address parser; see hostport.h. */
#include <arpa/inet.h>
#include <netinet/in.h>

#include <string.h>
#include <stdio.h>

#include "hostport.h"

/* Digits only (strtoul would take signs and blanks), at most 65535. */
static long
port_value(const char *s)
{
	long v = 0;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > 65535)
			return -1;
	}
	return v;
}

static enum hostport_error
set_host(struct hostport *hp, const char *s, size_t len)
{
	if (len >= sizeof(hp->host))
		return HOSTPORT_TOO_LONG;
	memcpy(hp->host, s, len);
	hp->host[len] = '\0';
	return HOSTPORT_OK;
}

enum hostport_error
hostport_split(const char *s, unsigned flags, struct hostport *hp)
{
	const char *colon, *port = NULL;
	enum hostport_error e;

	memset(hp, 0, sizeof(*hp));
	hp->port = -1;
	if (s == NULL || *s == '\0')
		return HOSTPORT_EMPTY;
	if (*s == '[') {
		const char *rb = strchr(s, ']');

		if (rb == NULL || (rb[1] != '\0' && rb[1] != ':') ||
		    (rb[1] == '\0' && (flags & HOSTPORT_LISTEN)))
			return HOSTPORT_BRACKET;
		hp->bracketed = true;
		if ((e = set_host(hp, s + 1, (size_t)(rb - s - 1))) !=
		    HOSTPORT_OK)
			return e;
		port = rb[1] == ':' ? rb + 2 : NULL;
	} else if ((colon = strrchr(s, ':')) != NULL) {
		if (memchr(s, ':', (size_t)(colon - s)) != NULL) {
			hp->bare_v6 = true;
			return set_host(hp, s, strlen(s));
		}
		if ((e = set_host(hp, s, (size_t)(colon - s))) != HOSTPORT_OK)
			return e;
		port = colon + 1;
	} else if (flags & HOSTPORT_LISTEN)
		port = s;
	else
		return set_host(hp, s, strlen(s));
	if (port != NULL && (hp->port = port_value(port)) == -1)
		return HOSTPORT_PORT;
	return HOSTPORT_OK;
}

int
hostport_listen(const char *s, struct sockaddr_storage *ss,
    socklen_t *sslen, char *err, size_t errlen)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct hostport hp;
	enum hostport_error e = hostport_split(s, HOSTPORT_LISTEN, &hp);

	if (e == HOSTPORT_EMPTY) {
		snprintf(err, errlen, "empty listen address");
		return -1;
	}
	if (e == HOSTPORT_BRACKET) {
		snprintf(err, errlen, "\"%s\": expected [IPV6]:PORT", s);
		return -1;
	}
	if (hp.bare_v6) {
		snprintf(err, errlen, "\"%s\": an IPv6 address goes in "
		    "brackets: [ADDR]:PORT", s);
		return -1;
	}
	if (e == HOSTPORT_TOO_LONG || strlen(hp.host) > INET6_ADDRSTRLEN) {
		snprintf(err, errlen, "\"%s\": address too long", s);
		return -1;
	}
	if (e == HOSTPORT_PORT) {
		snprintf(err, errlen, "\"%s\": port must be a number from 0 "
		    "to 65535", s);
		return -1;
	}
	memset(ss, 0, sizeof(*ss));
	/* Loopback unless asked otherwise: metrics are for this host. */
	if (!hp.bracketed && (hp.host[0] == '\0' ||
	    strcmp(hp.host, "localhost") == 0))
		strcpy(hp.host, "127.0.0.1");
	if (hp.bracketed) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)hp.port);
		*sslen = sizeof(*sin6);
		if (inet_pton(AF_INET6, hp.host, &sin6->sin6_addr) == 1)
			return 0;
	} else {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)hp.port);
		*sslen = sizeof(*sin);
		if (inet_pton(AF_INET, hp.host, &sin->sin_addr) == 1)
			return 0;
	}
	snprintf(err, errlen, "\"%s\": \"%s\" is not a numeric IPv%d address",
	    s, hp.host, hp.bracketed ? 6 : 4);
	return -1;
}
