/* The control socket: accepts clients, frames newline-delimited JSON,
 * checks the envelope and hands each request to the dispatch callback it
 * was given (the command table's, cmd.c).  It knows no command and never
 * touches the engine; handlers answer through control_reply_*. */
#ifndef STRESSD_CONTROL_H
#define STRESSD_CONTROL_H

#include <stdbool.h>
#include <sys/types.h>
#include <event2/event.h>
#include <json-c/json.h>

/* A client whose unread replies pass this is disconnected, so one that
 * never reads cannot grow the daemon's memory. */
#define CONTROL_MAX_PENDING_OUTPUT	(256 * 1024)
/* Requests of a client with more replies than this unsent wait until they
 * have left (a pipelining client is slowed, not cut off). */
#define CONTROL_OUTPUT_RESUME		(64 * 1024)
/* A client whose unsent replies (past the socket buffer) do not move for
 * this long is disconnected: one that pipelines requests and never reads
 * would otherwise hold its connection, and its memory, for ever. */
#define CONTROL_WRITE_STALL_S		10
/* The caps on clients connected at once are clientcap.h's. */
/* A client that sends nothing for this long is closed (one parked on
 * wait or start is not idle). */
#define CONTROL_IDLE_S			60

struct control_limits {
	unsigned	max_clients;	/* connections at once, in all */
	unsigned	privileged;	/* of them, for root and our uid only */
	unsigned	per_uid;	/* one other uid at most */
	double		idle_s;		/* close after so long silent; 0: never */
};

struct control_conn;

/* Answers one well-formed request (args an object or NULL, id NULL or
 * what to echo): replies, or defers, through the functions below. */
typedef void	(*control_dispatch_fn)(struct control_conn *c, json_object *id,
		    const char *cmd, json_object *args);

/* Listen on path, created with mode and group ("" leaves the group), or
 * on the socket systemd passed (a stale socket file is replaced; a live
 * daemon on it makes this fail); requests go to dispatch.  0, or -1 with
 * a message logged. */
int	control_init(struct event_base *base, const char *path, unsigned mode,
	    const char *group, control_dispatch_fn dispatch);
/* The caps and the idle timeout, before control_init. */
void	control_set_limits(const struct control_limits *l);
/* Close the listening socket (and remove it); clients stay. */
void	control_stop_accepting(void);
/* True while some client still has replies to be sent. */
bool	control_output_pending(void);
/* Close every client and the listening socket. */
void	control_shutdown(void);

/* May c run cmd, which changes the daemon's state (root, the daemon's
 * user and the socket's group may)?  Logged either way; when not, c is
 * answered `denied`. */
bool	control_admit_change(struct control_conn *c, json_object *id,
	    const char *cmd);

/* The oldest descriptor the client passed (SCM_RIGHTS) with the request
 * being handled, now the caller's to close; -1 if it sent none.  Those a
 * request does not take are closed once it is handled. */
int	control_take_fd(struct control_conn *c);
/* The client's uid (SO_PEERCRED), (uid_t)-1 when unknown. */
uid_t	control_peer_uid(const struct control_conn *c);

/* Reply to a request; the result is consumed. */
void	control_reply_ok(struct control_conn *c, json_object *id,
	    json_object *result);
void	control_reply_error(struct control_conn *c, json_object *id,
	    const char *code, const char *field, const char *fmt, ...)
	    __attribute__((format(printf, 5, 6)));
/* What a parked connection waits for. */
enum control_wait {
	CONTROL_WAIT_START = 1,		/* the prepared run launched or not */
	CONTROL_WAIT_RUN_END,		/* the run ended (wait, stop) */
	CONTROL_WAIT_CAPACITY_START,	/* a search's first step launched */
	CONTROL_WAIT_CAPACITY_END,	/* the search ended (wait, stop) */
	CONTROL_WAIT_SWEEP_START,	/* a sweep's first run launched */
	CONTROL_WAIT_SWEEP_END,		/* the sweep ended (wait, stop) */
};

/* Answer later: the connection is parked until its event. */
void	control_defer(struct control_conn *c, json_object *id,
	    enum control_wait what);
/* Reply to every connection parked for what with a copy of result
 * (consumed). */
void	control_complete_deferred(enum control_wait what, json_object *result);
/* Reply with an error to every connection parked for what. */
void	control_fail_deferred(enum control_wait what, const char *code,
	    const char *field, const char *message);

#endif
