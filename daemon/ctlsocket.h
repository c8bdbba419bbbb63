/* The control socket's file (see ctlsocket.c); control.c listens on it. */
#ifndef STRESSD_CTLSOCKET_H
#define STRESSD_CTLSOCKET_H

#include <stddef.h>

/*
 * The listening socket systemd passed (socket activation), if any: 1 and
 * *fd set, 0 when not activated, -1 on a socket stressd cannot use.
 */
int	ctlsocket_activated(int *fd);
/* Create and bind path (replacing a stale socket file) with the given
 * mode and group ("" leaves the group); the fd or -1, logged. */
int	ctlsocket_bind(const char *path, unsigned mode, const char *group);
/* Log who can connect to the socket file at path, as its mode (write
 * permission), owner and group say, and put in tail what that leaves of
 * the others, for the line on who may start runs ("; anyone else who
 * connects may only read", ...). */
struct stat;
void	ctlsocket_log_access(const char *path, const struct stat *st,
	    char *tail, size_t len);
/* Remove the socket file ctlsocket_bind made, if it is still that one:
 * another stressd may have replaced it meanwhile. */
void	ctlsocket_unlink(void);

#endif
