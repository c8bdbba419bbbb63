/* rrdccnet: a connection to rrdcached made within a time limit. */
#ifndef STRESSD_RRDCCNET_H
#define STRESSD_RRDCCNET_H

#include <sys/socket.h>
#include <stddef.h>

/*
 * A connected socket to ADDR as rrdcached takes it (unix:/path or /path,
 * else host, host:port or [v6]:port) within ms milliseconds, or -1 with
 * err saying why.  *salen > 0: connect to *sa without a DNS lookup; a TCP
 * connection made by name fills them in.
 */
int	rrdccnet_open(const char *addr, int ms, struct sockaddr_storage *sa,
	    socklen_t *salen, char *err, size_t errlen);

#endif
