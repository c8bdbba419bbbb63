/* Pausing a listener; see acceptpause.h. */
#include <errno.h>
#include <stdlib.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "acceptpause.h"
#include "log.h"

struct acceptpause {
	struct evconnlistener	*listener;
	struct event		*resume_ev;
	acceptpause_busy_fn	 busy;
	void			*arg;
	bool			 paused;
};

static void
arm(struct acceptpause *p)
{
	struct timeval tv = { 0, ACCEPTPAUSE_MS * 1000 };

	event_add(p->resume_ev, &tv);
}

static void
resume(evutil_socket_t fd, short what, void *arg)
{
	struct acceptpause *p = arg;

	(void)fd;
	(void)what;
	if (p->busy != NULL && p->busy(p->arg)) {
		arm(p);
		return;
	}
	p->paused = false;
	evconnlistener_enable(p->listener);
}

struct acceptpause *
acceptpause_new(struct event_base *base, struct evconnlistener *listener,
    acceptpause_busy_fn busy, void *arg)
{
	struct acceptpause *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return NULL;
	if ((p->resume_ev = evtimer_new(base, resume, p)) == NULL) {
		free(p);
		return NULL;
	}
	p->listener = listener;
	p->busy = busy;
	p->arg = arg;
	return p;
}

void
acceptpause_free(struct acceptpause *p)
{
	if (p == NULL)
		return;
	event_free(p->resume_ev);
	free(p);
}

void
acceptpause_pause(struct acceptpause *p, const char *why)
{
	if (p == NULL || p->paused)
		return;
	p->paused = true;
	evconnlistener_disable(p->listener);
	arm(p);
	if (why != NULL)
		log_warnx("not accepting clients for now: %s", why);
}

bool
acceptpause_out_of_fds(int e)
{
	return e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM;
}
