/* The commands that describe the daemon: stats, status, help, version. */
#include <unistd.h>

#include "config.h"
#include "capacity.h"
#include "cmd.h"
#include "control.h"
#include "lifecycle.h"
#include "memcap.h"
#include "proto.h"
#include "rrdfile.h"
#include "run.h"
#include "sweep.h"
#include "util.h"

/* The versions both `version` and `status` report. */
static json_object *
version_json(void)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "version",
	    json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(o, "protocol",
	    json_object_new_int(PROTO_VERSION));
	json_object_object_add(o, "librrd",
	    json_object_new_string(rrdfile_librrd_version()));
	return o;
}

static void
cmd_stats(struct control_conn *c, json_object *id, struct request_args *a)
{
	json_object *o = lifecycle_stats_json();

	(void)a;
	/* Only while a search runs: stats' keys are the run's otherwise. */
	if (capacity_active())
		json_object_object_add(o, "capacity", capacity_status_json());
	if (sweep_active())
		json_object_object_add(o, "sweep", sweep_status_json());
	control_reply_ok(c, id, o);
}

static void
cmd_status(struct control_conn *c, json_object *id, struct request_args *a)
{
	struct run *run = lifecycle_run(), *pending = lifecycle_pending();
	json_object *o = version_json();

	(void)a;
	json_object_object_add(o, "pid", json_object_new_int(getpid()));
	json_object_object_add(o, "uptime_s",
	    json_object_new_double(util_now() - lifecycle_started()));
	json_object_object_add(o, "socket",
	    json_object_new_string(lifecycle_socket_path()));
	json_object_object_add(o, "state_dir",
	    json_object_new_string(lifecycle_state_dir()));
	json_object_object_add(o, "memory", memcap_json());
	json_object_object_add(o, "state",
	    json_object_new_string(run_state_name(run_state(run))));
	json_object_object_add(o, "preparing_run", pending != NULL ?
	    json_object_new_int64(run_id(pending)) : NULL);
	json_object_object_add(o, "run",
	    run != NULL ? run_status_json(run) : NULL);
	json_object_object_add(o, "capacity", capacity_status_json());
	json_object_object_add(o, "sweep", sweep_status_json());
	control_reply_ok(c, id, o);
}

/* Every entry of the command table. */
static void
cmd_help(struct control_conn *c, json_object *id, struct request_args *a)
{
	json_object *o, *list = json_object_new_array();

	(void)a;
	for (size_t i = 0; i < cmd_count; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "name",
		    json_object_new_string(cmd_table[i]->name));
		json_object_object_add(e, "usage",
		    json_object_new_string(cmd_table[i]->usage));
		json_object_object_add(e, "summary",
		    json_object_new_string(cmd_table[i]->summary));
		json_object_object_add(e, "read_only",
		    json_object_new_boolean(cmd_table[i]->read_only));
		json_object_array_add(list, e);
	}
	o = json_object_new_object();
	json_object_object_add(o, "commands", list);
	control_reply_ok(c, id, o);
}

static void
cmd_version(struct control_conn *c, json_object *id, struct request_args *a)
{
	(void)a;
	control_reply_ok(c, id, version_json());
}

const struct cmd_entry cmd_stats_entry = {
	"stats", "stats", "gauges, counters and rates of the current or "
	"last run", true, NULL, request_check_none, cmd_stats,
};

const struct cmd_entry cmd_status_entry = {
	"status", "status", "daemon version, uptime and the current or "
	"last run", true, NULL, request_check_none, cmd_status,
};

const struct cmd_entry cmd_help_entry = {
	"help", "help", "list the commands", true, NULL, request_check_none,
	cmd_help,
};

const struct cmd_entry cmd_version_entry = {
	"version", "version", "daemon, protocol and librrd versions", true,
	NULL, request_check_none, cmd_version,
};
