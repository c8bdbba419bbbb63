/*
 * Jobs: what a client starts and the daemon then runs on its own until
 * it ends, whether or not the client stays: a single run (jobrun.c), a
 * capacity search (capacity.c), a sweep.  A job is one or more ordinary
 * runs, one after the other, each in lifecycle's run slot
 * (lifecycle_prepare, lifecycle_run).
 *
 * Each kind of job fills in one struct job_kind, an operations table as
 * fio's ioengines are; main.c registers the kinds at start-up.
 * lifecycle drives the current job through this file and never includes
 * a kind, nor do the commands that stop, wait for, show or list jobs.
 *
 * One job at a time, of any kind: a kind keeps its job in a static of
 * its own file, so the operations take no instance.  What it keeps
 * outlives the job (its record stays readable through record_json)
 * until its next start or finish.
 *
 * Replies: the command that starts a job parks its client on
 * CONTROL_WAIT_JOB_START; `wait` and `stop` park theirs on
 * CONTROL_WAIT_JOB_END.  The kind answers the first with job_started or
 * job_refused once (its first run launched, or it gave up before), the
 * second with job_ended when the job is over.
 *
 * Required: name, start, active, stop, stop_reply, busy.  NULL is
 * allowed for the rest and means what each one's comment says.
 */
#ifndef STRESSD_JOB_H
#define STRESSD_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

struct config;
struct evbuffer;
struct request_args;

/* What happened to the job's run in the run slot (lifecycle_tick). */
enum job_run_event {
	JOB_RUN_LAUNCHED,	/* prepared: now lifecycle_run() */
	JOB_RUN_REFUSED,	/* never started: lifecycle_refusal says why */
	JOB_RUN_ENDED,		/* lifecycle_run() ended (done, stopped,
				   failed): its report.json is final */
};

struct job_kind {
	/* "run", "capacity": logs, and the job's key in status and stats. */
	const char	*name;
	/* The file in STATE/runs/<id>/ holding the record of a job of this
	 * kind, which report and runs read once it is not live; NULL: the
	 * kind's runs' report.json is its record. */
	const char	*record_file;
	/* True when the kind takes no id of its own but its first run's,
	 * its record_file beside that run's report.json (a sweep): report
	 * reads it only when asked for the kind by name ("kind"), and
	 * job_record_json/job_record_load pass it by. */
	bool		 record_by_name;
	/* NULL, or the id of the kind's current or last job since start-up
	 * (0: none), for a report of the kind that names no id. */
	unsigned	(*last_id)(void);

	/* Start a job from the command's checked arguments: take what it
	 * keeps (clearing it in a, which is freed after), take an id
	 * (lifecycle_take_id) if it writes a record of its own, prepare
	 * its first run or leave that to tick.  update_fd (-1: none) is
	 * the kind's to close.  0, or -1 out of resources with nothing
	 * started.  The client is parked on CONTROL_WAIT_JOB_START then,
	 * and the job ticked once. */
	int		(*start)(struct request_args *a, int update_fd);
	/* Is the job still running, a run being prepared or draining
	 * included?  Until false no other job starts and the daemon does
	 * not exit. */
	bool		(*active)(void);
	/* NULL, or on every loop tick while this is the current job, after
	 * the run slot moved (and after run_event): watch the run, prepare
	 * the next one, end the job. */
	void		(*tick)(void);
	/* NULL, or the event of the job's run, as it happens. */
	void		(*run_event)(enum job_run_event ev);
	/* Stop the job: the run drains (drain) or discards its queue, and
	 * the job ends stopped, at once or once its run has.  why: NULL for
	 * a client's stop, else the reason (shutdown).  May come again (a
	 * second signal discards). */
	void		(*stop)(bool drain, const char *why);
	/* Right after a client's stop: what it is answered at once (a new
	 * object), or NULL to park it until the job ends (wait: it asked
	 * to hear the end). */
	json_object	*(*stop_reply)(bool wait);
	/* While active: the `busy` error's message to a start of any job. */
	void		(*busy)(char *buf, size_t len);
	/* NULL, or the job under its name in status (every kind's key is
	 * there, JSON null when NULL is returned) and, while the job is
	 * active, in stats (which watch reads).  NULL: the kind shows no
	 * more than its run, which status and stats show anyway. */
	json_object	*(*status_json)(void);
	/* NULL, or the live record of id (a new object), NULL when id is
	 * not the kind's live job or run; report and runs ask every kind,
	 * in their order of registration, before the files. */
	json_object	*(*record_json)(unsigned id);
	/* NULL, or systemd's STATUS= line while active; false, or NULL:
	 * the run's own line. */
	bool		(*summary)(char *buf, size_t len);
	/* NULL, or the kind's gauges appended to /metrics, idle too. */
	void		(*metrics)(struct evbuffer *out);
	/* NULL, or once at start-up, before any client: the records of
	 * jobs a crash left running are marked interrupted, what they
	 * finished kept.  cfg: as recover_runs takes it. */
	void		(*recover)(const char *state_dir,
			    const struct config *cfg);
	/* NULL, or at exit: free what the kind keeps. */
	void		(*finish)(void);
};

/* Register kind k (main.c, at start-up; k lives for ever).  0, or -1
 * when the table is full or has a kind of that name. */
int	job_register(const struct job_kind *k);
/* The registered kind named name, or NULL. */
const struct job_kind *job_find(const char *name);

/* For the commands.  Start a job of kind k (NULL: -1): k->start. */
int	job_start(const struct job_kind *k, struct request_args *a,
	    int update_fd);
/* Is the current job active?  Its busy message into buf. */
bool	job_active(void);
void	job_busy(char *buf, size_t len);
/* Stop the current job if active, then what a client's stop hears
 * (NULL: park it on CONTROL_WAIT_JOB_END). */
void	job_stop(bool drain, const char *why);
json_object *job_stop_reply(bool wait);
/* Add every kind's status_json to o under its name (active_only: the
 * current job's, if active). */
void	job_add_status(json_object *o, bool active_only);
/* A live record of id from the kinds, or NULL; the record of id from
 * a kind's record_file under state_dir, or NULL. */
json_object *job_record_json(unsigned id);
json_object *job_record_load(const char *state_dir, unsigned id);
/* The record of id of kind k: live, else its record_file under
 * state_dir; NULL when there is none. */
json_object *job_kind_record(const struct job_kind *k, const char *state_dir,
	    unsigned id);
/* Every kind's gauges (/metrics). */
void	job_metrics(struct evbuffer *out);

/* For lifecycle and main. */
void	job_tick(void);
void	job_run_event(enum job_run_event ev);
bool	job_summary(char *buf, size_t len);
void	job_recover(const char *state_dir, const struct config *cfg);
void	job_finish(void);

/* For the kinds: answer the clients parked on the current job. */
void	job_started(json_object *result);		/* consumed */
void	job_refused(const char *code, const char *field,
	    const char *message);
void	job_ended(json_object *result);			/* consumed */

#endif
