/* The descriptor budget: how the RLIMIT_NOFILE limit is shared between
 * the writers and the engine (a reserve no client can take), the /metrics
 * connections and the control connections, so that no number of clients
 * makes a write fail with EMFILE.  main() raises the limit and splits it
 * once at startup; control.c and prom.c enforce their shares. */
#ifndef STRESSD_FDBUDGET_H
#define STRESSD_FDBUDGET_H

/* The soft limit is raised to the hard one, but no further than this. */
#define FDBUDGET_MAX_LIMIT	1048576
/* The reserve: the engine's own descriptors (stdio, the listeners, the
 * event loop, signals, the run's stress.log, report and metrics.rrd, the
 * setup thread) plus, per writer thread up to FDBUDGET_WRITERS, what one
 * update may hold at once: the file librrd updates, what else librrd
 * opens, the fdatasync descriptor, the rrdcached connection, doubled;
 * and the descriptors clients pass with requests (FDQUEUE_MAX_TOTAL). */
#define FDBUDGET_ENGINE		64
#define FDBUDGET_PASSED		32
#define FDBUDGET_PER_WRITER	8
#define FDBUDGET_WRITERS	64
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

/*
 * Split limit descriptors:
 *   reserve    = min(ENGINE + PASSED + PER_WRITER * WRITERS, limit / 2)
 *                (608)
 *   rest       = limit - reserve
 *   metrics    = min(MAX_METRICS, rest / 8)
 *   control    = min(MAX_CONTROL, rest - metrics)
 *   privileged = max(MIN_PRIVILEGED, control / 16), at most control / 2
 *   per_uid    = (control - privileged) / 2
 * Each client share is at least 1.  -1 when limit is below 16.
 */
int		fdbudget_split(unsigned limit, struct fdbudget *b);
/* Raise the soft RLIMIT_NOFILE to the hard limit (at most
 * FDBUDGET_MAX_LIMIT) and return the limit in force. */
unsigned	fdbudget_raise_limit(void);

#endif
