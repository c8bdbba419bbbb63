/*
 * Following a job of the daemon (a capacity search, a sweep) from
 * stressctl: start it, poll status until it ends, and on Ctrl-C detach
 * (the job goes on in stressd) or stop it, as --on-interrupt says.  The
 * kind's own part (what to print as it goes, when its record says it
 * ended) is its poll callback; the start, the polling, the signal and
 * the messages are shared, so every job is followed the same way.
 */
#ifndef STRESSCTL_FOLLOW_H
#define STRESSCTL_FOLLOW_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "records.h"

/* What a poll callback returns besides an exit status. */
#define FOLLOW_ON	(-1)	/* poll again */
#define FOLLOW_ENDED	(-2)	/* the job's record says it ended */

struct follow_job {
	const char	*cmd;	/* its command, and its key in status */
	const char	*what;	/* what messages call one: "search" */
	const char	*id_key;	/* the id in the start reply */
	bool		 detach;	/* --detach: start, do not follow */
	bool		 int_stop;	/* --on-interrupt stop */
	/*
	 * Once a poll: status is the status reply while this job runs
	 * (the kind reads its own object, status's cmd, with its record
	 * module's parser), NULL once it does not.  Returns FOLLOW_ON, FOLLOW_ENDED or
	 * an exit status (an error).
	 */
	int		(*poll)(const struct records_ctx *ctx, void *arg,
			    json_object *status);
	void		*arg;
};

/*
 * Send the job's request with args.  Returns its id (> 0) to follow; 0
 * with *rc when there is nothing to follow: refused, a dry run, or
 * --detach (the start then said how to follow and stop it).
 */
int64_t	follow_start(const struct records_ctx *ctx, const struct follow_job *j,
	    json_object *args, int *rc);
/*
 * Poll job id until its poll says it ended: FOLLOW_ENDED then, *stopped
 * when a Ctrl-C of ours stopped it.  Else the exit status: 130 after a
 * Ctrl-C that detached, or an error's.
 */
int	follow_run(const struct records_ctx *ctx, const struct follow_job *j,
	    int64_t id, bool *stopped);
/* The id of the job of kind cmd running now, 0 when none runs, or -1
 * with *rc set. */
int64_t	follow_running(const struct records_ctx *ctx, const char *cmd, int *rc);

#endif
