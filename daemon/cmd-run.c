/* The commands that start, stop and wait for jobs: a run, a capacity
 * search, a sweep.  Which kind a command starts is its job_find name; stop and
 * wait act on the current job whatever its kind. */
#include <sys/stat.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capopts.h"
#include "cmdentry.h"
#include "conffile.h"
#include "control.h"
#include "fdqueue.h"
#include "job.h"
#include "lifecycle.h"
#include "policy.h"
#include "proto.h"
#include "runrecords.h"

/* One job at a time, none once shutting down. */
static bool
start_ready(struct control_conn *c, json_object *id)
{
	char why[256];

	if (lifecycle_shutting_down()) {
		control_reply_error(c, id, PROTO_ERR_BUSY, NULL,
		    "stressd is shutting down");
		return false;
	}
	if (job_active()) {
		job_busy(why, sizeof(why));
		control_reply_error(c, id, PROTO_ERR_BUSY, NULL, "%s", why);
		return false;
	}
	return true;
}

/* Start a job of kind name; the client hears once its first run has
 * launched or been refused.  -1 when it could not start. */
static int
start_job(struct control_conn *c, json_object *id, const char *name,
    struct request_args *a, int fd)
{
	/* Past the last id a record would be left out of `runs` and taken
	 * again after a restart: refused instead (replied here). */
	if (lifecycle_next_id() > RUNRECORDS_MAX_ID) {
		control_reply_error(c, id, PROTO_ERR_INTERNAL, NULL,
		    "no run id left: ids end at %u; move old records out of "
		    "the state directory's runs/ and restart stressd",
		    RUNRECORDS_MAX_ID);
		return 0;
	}
	if (job_start(job_find(name), a, fd) == -1)
		return -1;
	control_defer(c, id, CONTROL_WAIT_JOB_START);
	job_tick();
	return 0;
}

/*
 * Where update_file's values may come from: the descriptor the client
 * passed with the request (*fd), or a path the daemon opens itself, which
 * it does only for root and its own user (who can read it anyway) and for
 * a profile's path (stressd.conf is root's).  A client gets the same
 * answer whether its path exists or not: it is never looked at.  0, or -1
 * when refused (replied).
 */
static int
update_source(struct control_conn *c, json_object *id,
    const struct request_args *a, int *fd)
{
	uid_t uid = control_peer_uid(c);

	*fd = -1;
	if (a->update_fd && (*fd = control_take_fd(c)) == -1) {
		control_reply_error(c, id, PROTO_ERR_BAD_ARGUMENT, "update_fd",
		    "update_fd is set, but no descriptor came with the request "
		    "(SCM_RIGHTS on its line), or it was not kept: stressd "
		    "holds at most %d a client, %d a uid and %d for all uids "
		    "but root's (one more for a uid that holds none), and "
		    "none from a client that may not start runs", FDQUEUE_MAX,
		    FDQUEUE_PER_UID, FDQUEUE_MAX_TOTAL);
		return -1;
	}
	if (!a->update_fd && a->update_path_given && uid != 0 &&
	    uid != geteuid()) {
		control_reply_error(c, id, PROTO_ERR_BAD_ARGUMENT,
		    "update_file", "stressd opens an update_file path only for "
		    "root; pass the file as a descriptor instead (update_fd "
		    "and SCM_RIGHTS, as stressctl --update-file does)");
		return -1;
	}
	return 0;
}

static void
cmd_start(struct control_conn *c, json_object *id, struct request_args *a)
{
	const struct config *cfg = lifecycle_config();
	char err[PROTO_MAX_RUN_ERROR];
	int fd;

	if (cfg != NULL && policy_dir_allowed(cfg, a->params.dir, err,
	    sizeof(err)) != 1)
		control_reply_error(c, id, PROTO_ERR_DENIED, "dir", "%s", err);
	else if (cfg != NULL && policy_target_allowed(cfg,
	    a->params.target, err, sizeof(err)) != 1)
		control_reply_error(c, id, PROTO_ERR_DENIED, "target", "%s",
		    err);
	else if (update_source(c, id, a, &fd) == -1)
		;	/* refused */
	else if (start_job(c, id, "run", a, fd) == -1)
		control_reply_error(c, id, PROTO_ERR_INTERNAL, NULL,
		    "cannot start preparing the run: out of resources");
	/* else the reply comes once the files are checked (lifecycle_tick) */
}

static void
cmd_stop(struct control_conn *c, json_object *id, struct request_args *a)
{
	json_object *res;

	if (!job_active()) {
		control_reply_error(c, id, PROTO_ERR_NO_RUN, NULL,
		    "no run is active");
		return;
	}
	job_stop(a->drain, NULL);
	if ((res = job_stop_reply(a->wait)) != NULL)
		control_reply_ok(c, id, res);
	else
		control_defer(c, id, CONTROL_WAIT_JOB_END);
}

static void
cmd_wait(struct control_conn *c, json_object *id, struct request_args *a)
{
	(void)a;
	if (job_active())
		control_defer(c, id, CONTROL_WAIT_JOB_END);
	else
		control_reply_ok(c, id, lifecycle_stats_json());
}

/* Every directory through the policy, as start checks its dir. */
static bool
dirs_allowed(struct control_conn *c, json_object *id, char *const *dirs,
    size_t ndirs)
{
	const struct config *cfg = lifecycle_config();
	char err[PROTO_MAX_RUN_ERROR], field[32];

	for (size_t i = 0; cfg != NULL && i < ndirs; i++)
		if (policy_dir_allowed(cfg, dirs[i], err,
		    sizeof(err)) != 1) {
			snprintf(field, sizeof(field), "dirs[%zu]", i);
			control_reply_error(c, id, PROTO_ERR_DENIED, field,
			    "%s", err);
			return false;
		}
	return true;
}

/*
 * The directory as the kernel resolves it (or its parent's, and its
 * last name, when it is still to be made) into out; -1 when neither
 * exists.
 */
static int
resolved(const char *d, char *out, size_t len)
{
	char parent[4096], real[PATH_MAX], *slash;
	const char *base;

	if (realpath(d, real) != NULL) {
		snprintf(out, len, "%s", real);
		return 0;
	}
	snprintf(parent, sizeof(parent), "%s", d);
	while ((slash = strrchr(parent, '/')) != NULL && slash[1] == '\0' &&
	    slash != parent)
		*slash = '\0';	/* trailing slashes */
	if ((slash = strrchr(parent, '/')) == NULL)
		return -1;
	base = d + (slash - parent) + 1;
	slash[slash == parent ? 1 : 0] = '\0';
	if (realpath(parent, real) == NULL)
		return -1;
	snprintf(out, len, "%s/%.*s", strcmp(real, "/") == 0 ? "" : real,
	    (int)strcspn(base, "/"), base);
	return 0;
}

/*
 * Every directory, or its parent, must exist: a search runs for hours,
 * and a typo or an unmounted filesystem would otherwise have it create
 * its tree on whatever lies beneath (a run's dir is made if missing).
 * Nor may two name one directory (a/, a//, b/../a, a symlink to a): the
 * second would reuse the first's files and rank it against itself.
 * Asked after the policy, so only of directories the client may use.
 */
static bool
dirs_exist(struct control_conn *c, json_object *id,
    const struct request_args *a)
{
	static char canon[CAPOPTS_MAX_DIRS][PATH_MAX + 256];
	char field[32];

	for (size_t i = 0; i < a->cap.ndirs; i++) {
		snprintf(field, sizeof(field), "dirs[%zu]", i);
		if (resolved(a->cap.dirs[i], canon[i], sizeof(canon[i])) ==
		    -1) {
			control_reply_error(c, id, PROTO_ERR_BAD_ARGUMENT,
			    field, "dirs[%zu]: neither the directory nor its "
			    "parent exists (is its filesystem mounted?)", i);
			return false;
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(canon[i], canon[j]) == 0) {
				control_reply_error(c, id,
				    PROTO_ERR_BAD_ARGUMENT, field, "dirs[%zu] "
				    "is dirs[%zu] again, spelt another way: "
				    "each directory once", i, j);
				return false;
			}
	}
	return true;
}

static void
cmd_capacity(struct control_conn *c, json_object *id, struct request_args *a)
{
	const struct config *cfg = lifecycle_config();
	char err[PROTO_MAX_RUN_ERROR];
	int fd;

	if (!dirs_allowed(c, id, a->cap.dirs, a->cap.ndirs) ||
	    !dirs_exist(c, id, a))
		return;
	if (cfg != NULL && policy_target_allowed(cfg, a->params.target, err,
	    sizeof(err)) != 1) {
		control_reply_error(c, id, PROTO_ERR_DENIED, "target", "%s",
		    err);
		return;
	}
	if (update_source(c, id, a, &fd) == -1)
		return;
	/* The reply comes once the first step's files are checked. */
	if (start_job(c, id, "capacity", a, fd) == -1)
		control_reply_error(c, id, PROTO_ERR_INTERNAL, NULL,
		    "cannot start the search: out of memory");
}

/* A sweep's runs each get a fresh subdirectory of their directory,
 * checked again as each starts (sweep.c): a directory need not exist
 * yet, as start's need not. */
static void
cmd_sweep(struct control_conn *c, json_object *id, struct request_args *a)
{
	const struct config *cfg = lifecycle_config();
	char err[PROTO_MAX_RUN_ERROR];
	int fd;

	if (!dirs_allowed(c, id, a->sweep.dirs, a->sweep.ndirs))
		return;
	if (cfg != NULL && policy_target_allowed(cfg, a->params.target, err,
	    sizeof(err)) != 1) {
		control_reply_error(c, id, PROTO_ERR_DENIED, "target", "%s",
		    err);
		return;
	}
	if (update_source(c, id, a, &fd) == -1)
		return;
	/* The reply comes once the first run's files are checked. */
	if (start_job(c, id, "sweep", a, fd) == -1)
		control_reply_error(c, id, PROTO_ERR_INTERNAL, NULL,
		    "cannot start the sweep: out of memory");
}

const struct cmd_entry cmd_sweep_entry = {
	"sweep", "sweep {\"dirs\": [dir, ...], \"labels\": [label, ...], "
	"\"repeat\": n, knob: value, ...}",
	"run the same run in each directory, repeats interleaved, each in a "
	"fresh subdirectory", false, start_ready, request_check_sweep,
	cmd_sweep,
};

const struct cmd_entry cmd_capacity_entry = {
	"capacity", "capacity {\"dirs\": [dir, ...], knob: value, ..., "
	"\"start_rate\", \"max_rate\", \"precision\", \"step_min\", "
	"\"step_max\", \"settle\", \"repeats\"}",
	"search each directory for the highest update rate it keeps up with, "
	"in steps of ordinary runs", false, start_ready,
	request_check_capacity, cmd_capacity,
};

const struct cmd_entry cmd_start_entry = {
	"start", "start {knob: value, ..., \"profile\": name}",
	"start a run; args are the run knobs, over those of a profile of "
	"stressd.conf", false, start_ready, request_check_start, cmd_start,
};

const struct cmd_entry cmd_stop_entry = {
	"stop", "stop [{\"drain\": bool, \"wait\": bool}]",
	"stop the run: drain the queue (default) or discard it; with wait "
	"(default) reply when it has ended", false, NULL, request_check_stop,
	cmd_stop,
};

const struct cmd_entry cmd_wait_entry = {
	"wait", "wait", "reply with the final stats once the run has ended",
	true, NULL, request_check_none, cmd_wait,
};
