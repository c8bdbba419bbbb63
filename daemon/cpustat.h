/*
 * CPU time of the daemon's threads by role, for `stats` and report.json.
 *
 * Each reading sums the CPU time of every thread in /proc/self/task by the
 * role its name gives (writer-N, gen-N, the main thread's event loop,
 * anything else), and takes the whole process's (see cpustat.c).
 * A thread that ends takes its time with it out of /proc/self/task, so
 * the engine's threads call cpustat_thread_exit() last: their final time
 * is kept for their role and the reading skips them while they finish
 * dying.  A run keeps the reading at its start and reports the difference.
 */
#ifndef STRESSD_CPUSTAT_H
#define STRESSD_CPUSTAT_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

enum cpustat_role {
	CPUSTAT_WRITERS,	/* writer-N: queue take/return, librrd */
	CPUSTAT_GENERATORS,	/* gen-N: values, pacing, queue push */
	CPUSTAT_EVENT_LOOP,	/* the main thread: control, sampler, reports */
	CPUSTAT_OTHER,		/* run-setup and any unnamed thread */
	CPUSTAT_NROLES
};

struct cpustat {
	bool		valid;			/* false: /proc unreadable */
	uint64_t	role[CPUSTAT_NROLES];	/* ns */
	/* ns the role's threads waited for a CPU (on a run queue:
	 * schedstat's second field; 0 where unknown) */
	uint64_t	runq[CPUSTAT_NROLES];
	uint64_t	process;		/* ns, every thread ever */
};

/* Now, since the daemon started; -1 (and !valid) if /proc fails. */
int		 cpustat_read(struct cpustat *cs);
/* Close the files kept open between readings; the next reading opens
 * them again.  A run closes them when it ends, so an idle daemon holds
 * none. */
void		 cpustat_close(void);
/* The calling thread's CPU time so far, kept for its role; call it last
 * thing before the thread returns. */
void		 cpustat_thread_exit(void);
/*
 * {"writers", "generators", "event_loop", "other", "process" (seconds),
 * "generators_pct"} from `from` to `to` (NULL: now); from NULL: all zero.
 * NULL (JSON null) when a reading is not valid.
 */
json_object	*cpustat_json(const struct cpustat *from,
		    const struct cpustat *to);

#endif
