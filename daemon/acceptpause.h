/* Pausing a libevent listener: when accepting fails for lack of
 * descriptors (or a caller's cap is reached) the listener is disabled and
 * re-enabled from a timer, so a listener that keeps firing on EMFILE
 * neither spins the loop nor floods the log.  Used by the control socket
 * and the metrics listener. */
#ifndef STRESSD_ACCEPTPAUSE_H
#define STRESSD_ACCEPTPAUSE_H

#include <stdbool.h>
#include <event2/event.h>
#include <event2/listener.h>

/* How long accepting pauses before it is tried again. */
#define ACCEPTPAUSE_MS		200

struct acceptpause;

/* Still too busy to accept (the pause goes on), or NULL: never. */
typedef bool	(*acceptpause_busy_fn)(void *arg);

/* A pauser for listener (not owned); NULL when out of memory. */
struct acceptpause *acceptpause_new(struct event_base *base,
	    struct evconnlistener *listener, acceptpause_busy_fn busy,
	    void *arg);
void	acceptpause_free(struct acceptpause *p);
/* Stop accepting for ACCEPTPAUSE_MS (or longer while busy says so); why
 * is logged, unless NULL.  Harmless while paused. */
void	acceptpause_pause(struct acceptpause *p, const char *why);
/* Is accept's errno e a lack of descriptors or memory (worth a pause)? */
bool	acceptpause_out_of_fds(int e);

#endif
