/* The sweep command: the same run in each directory, as a job of the
 * daemon (sweep.c), so it outlives the client that started it. */
#include <stdio.h>
#include <unistd.h>

#include "capacity.h"
#include "cmd.h"
#include "control.h"
#include "lifecycle.h"
#include "policy.h"
#include "proto.h"
#include "run.h"
#include "sweep.h"

/* One job at a time, none once shutting down. */
static bool
sweep_ready(struct control_conn *c, json_object *id)
{
	struct run *run = lifecycle_run(), *pending = lifecycle_pending();

	if (lifecycle_shutting_down())
		control_reply_error(c, id, PROTO_ERR_BUSY, NULL,
		    "stressd is shutting down");
	else if (sweep_active())
		control_reply_error(c, id, PROTO_ERR_BUSY, NULL, "sweep %u is "
		    "running; stop it or wait for it first", sweep_id());
	else if (capacity_active())
		control_reply_error(c, id, PROTO_ERR_BUSY, NULL,
		    "capacity search %u is running; stop it or wait for it "
		    "first", capacity_id());
	else if (pending != NULL)
		control_reply_error(c, id, PROTO_ERR_BUSY, NULL,
		    "run %u is being prepared", run_id(pending));
	else if (run_active(run))
		control_reply_error(c, id, PROTO_ERR_BUSY, NULL,
		    "run %u is %s; stop it or wait for it first",
		    run_id(run), run_state_name(run_state(run)));
	else
		return true;
	return false;
}

/* Every directory and the target through the policy, as start checks
 * its own (each run's subdirectory is checked again as it starts). */
static bool
allowed(struct control_conn *c, json_object *id, const struct request_args *a)
{
	const struct config *cfg = lifecycle_config();
	char err[PROTO_MAX_RUN_ERROR], field[32];

	for (size_t i = 0; cfg != NULL && i < a->sweep.ndirs; i++)
		if (policy_dir_allowed(cfg, a->sweep.dirs[i], err,
		    sizeof(err)) != 1) {
			snprintf(field, sizeof(field), "dirs[%zu]", i);
			control_reply_error(c, id, PROTO_ERR_DENIED, field,
			    "%s", err);
			return false;
		}
	if (cfg != NULL && policy_target_allowed(cfg, a->params.target, err,
	    sizeof(err)) != 1) {
		control_reply_error(c, id, PROTO_ERR_DENIED, "target", "%s",
		    err);
		return false;
	}
	return true;
}

/* The replayed file, as start takes it: the client's descriptor, or a
 * path only root and the daemon's user may name.  -2 when refused. */
static int
update_source(struct control_conn *c, json_object *id,
    const struct request_args *a)
{
	uid_t uid = control_peer_uid(c);
	int fd = -1;

	if (a->update_fd && (fd = control_take_fd(c)) == -1) {
		control_reply_error(c, id, PROTO_ERR_BAD_ARGUMENT, "update_fd",
		    "update_fd is set, but no descriptor came with the request "
		    "(SCM_RIGHTS on its line), or it was not kept");
		return -2;
	}
	if (!a->update_fd && a->update_path_given && uid != 0 &&
	    uid != geteuid()) {
		control_reply_error(c, id, PROTO_ERR_BAD_ARGUMENT,
		    "update_file", "stressd opens an update_file path only for "
		    "root; pass the file as a descriptor instead (update_fd "
		    "and SCM_RIGHTS, as stressctl --update-file does)");
		return -2;
	}
	return fd;
}

static void
cmd_sweep(struct control_conn *c, json_object *id, struct request_args *a)
{
	int fd;

	if (!allowed(c, id, a) || (fd = update_source(c, id, a)) == -2)
		return;
	if (sweep_start(&a->params, &a->sweep, fd) == -1) {
		control_reply_error(c, id, PROTO_ERR_INTERNAL, NULL,
		    "cannot start the sweep: out of memory");
		return;
	}
	/* The reply comes once the first run's files are checked. */
	control_defer(c, id, CONTROL_WAIT_SWEEP_START);
	sweep_tick();
}

const struct cmd_entry cmd_sweep_entry = {
	"sweep", "sweep {\"dirs\": [dir, ...], \"labels\": [label, ...], "
	"\"repeat\": n, knob: value, ...}",
	"run the same run in each directory, repeats interleaved, each in a "
	"fresh subdirectory", false, sweep_ready, request_check_sweep,
	cmd_sweep,
};
