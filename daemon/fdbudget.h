/* The descriptor budget: how the RLIMIT_NOFILE limit is shared between
 * the writers and the engine (a reserve no client can take), the /metrics
 * connections and the control connections, so that no number of clients
 * makes a write fail with EMFILE.  Pure arithmetic and the limit itself:
 * fdreserve.c applies a split, at startup and for each run. */
#ifndef STRESSD_FDBUDGET_H
#define STRESSD_FDBUDGET_H

/* The soft limit is raised to the hard one, but no further than this. */
#define FDBUDGET_MAX_LIMIT	1048576
/* The engine's own descriptors (stdio, the listeners, the event loop,
 * signals, the state lock, the run's stress.log, samples, report and
 * metrics.rrd, its held directories, the setup thread, the sampler's
 * /proc reads, the rrdcached stats connection) and those clients pass
 * with requests (FDQUEUE_MAX_TOTAL). */
#define FDBUDGET_ENGINE		64
#define FDBUDGET_PASSED		32
/* Measured with strace over runs with sync data, files_per_dir, openat2
 * and the O_NOFOLLOW walk: a writer holds at most 2 at once (the file
 * reached beneath the run's directory and librrd's or fdatasync's open
 * of it; a walk's directory and the next), 3 with its rrdcached
 * connection; one more for what a library opens once (a zone, a locale). */
#define FDBUDGET_PER_WRITER	4
/* A generator feeding the queue holds at most 1 (its /proc/thread-self
 * stat), one more to spare; without the queue it writes: a writer. */
#define FDBUDGET_PER_GENERATOR	2
/* The standing reserve holds this many writers: a run that needs no more
 * than the standing reserve leaves the clients' caps as they are. */
#define FDBUDGET_WRITERS	128
/* Left to clients, at least, while a run holds a larger reserve. */
#define FDBUDGET_MIN_CLIENTS	32
/* Client caps, whatever the limit allows. */
#define FDBUDGET_MAX_METRICS	64
#define FDBUDGET_MAX_CONTROL	2048
/* Control slots only root and the daemon's own uid may take. */
#define FDBUDGET_MIN_PRIVILEGED	8

struct fdbudget {
	unsigned	limit;		/* the descriptor limit split */
	unsigned	reserve;	/* writers and engine: never a client's */
	unsigned	metrics;	/* /metrics connections at once */
	unsigned	control;	/* control connections at once, in all */
	unsigned	privileged;	/* of control: root's and ours only */
	unsigned	per_uid;	/* of control: one other uid at most */
};

/* What a run of writers writer threads and generators generator threads
 * (writers, too, when they write themselves: use_queue false) needs:
 * ENGINE + PASSED + PER_WRITER * writers + PER_GENERATOR * generators,
 * saturating at UINT_MAX. */
unsigned	fdbudget_need(unsigned writers, unsigned generators);
/*
 * Split limit descriptors for a run that needs need of them (0: none
 * running):
 *   reserve    = max(min(ENGINE + PASSED + PER_WRITER * WRITERS, limit / 2),
 *                    need)   (the first term is 608 from limit 1216 on)
 *   rest       = limit - reserve
 *   metrics    = min(MAX_METRICS, rest / 8)
 *   control    = min(MAX_CONTROL, rest - metrics)
 *   privileged = max(MIN_PRIVILEGED, control / 16), at most control / 2
 *   per_uid    = (control - privileged) / 2
 * Each client share is at least 1.  -1 when limit is below 16, or when
 * need leaves clients fewer than MIN_CLIENTS.
 */
int		fdbudget_split(unsigned limit, unsigned need, struct fdbudget *b);
/* Does a run needing need fit under limit while clients hold control
 * control and metrics /metrics connections?  0: yes, *b is its split;
 * 1: only once clients hold fewer (*b is the split it would take); -1:
 * never under this limit. */
int		fdbudget_admit(unsigned limit, unsigned need, unsigned control,
		    unsigned metrics, struct fdbudget *b);
/* The most writer threads (at most max) beside generators generator
 * threads that fdbudget_admit lets in now; 0 if none. */
unsigned	fdbudget_max_writers(unsigned limit, unsigned generators,
		    unsigned control, unsigned metrics, unsigned max);
/* Raise the soft RLIMIT_NOFILE to the hard limit (at most
 * FDBUDGET_MAX_LIMIT) and return the limit in force; *hard (if not NULL)
 * gets the hard limit (at most FDBUDGET_MAX_LIMIT). */
unsigned	fdbudget_raise_limit(unsigned *hard);

#endif
