/* stressctl's side of the control socket: connect, send one request line,
 * read one reply line.  Nothing here knows about JSON or commands. */
#ifndef STRESSCTL_CLIENT_H
#define STRESSCTL_CLIENT_H

#include <stddef.h>

/* How a call ended; call_request (call.c) maps these onto exit codes. */
enum client_status {
	CLIENT_OK,
	CLIENT_CONNECT,		/* could not connect: exit 3 */
	CLIENT_IO,		/* connected, then a send/receive failed */
	CLIENT_TIMEOUT,		/* no complete reply before the deadline */
	CLIENT_CONNECT_TIMEOUT,	/* connect (or send) outlasted its timeout */
};

/* Bound connecting and sending the request (seconds; <= 0: no bound). */
void			client_set_connect_timeout(double seconds);

/*
 * Connect to the Unix socket at path, send line (a '\n' is appended) and
 * read the reply up to its '\n'.  timeout is in seconds; a value <= 0
 * waits forever (wait and stop may legitimately take minutes).  On
 * CLIENT_OK *reply holds the NUL-terminated line without its newline, to be
 * freed by the caller; otherwise err describes what went wrong, naming the
 * socket path.
 */
enum client_status	client_call(const char *path, const char *line,
			    double timeout, char **reply, char *err,
			    size_t errlen);
/* The same, passing descriptor pass_fd (not -1) with the request line
 * (SCM_RIGHTS on the message that starts it). */
enum client_status	client_call_fd(const char *path, const char *line,
			    int pass_fd, double timeout, char **reply,
			    char *err, size_t errlen);

#endif
