/* The command table, dispatch and help; see cmd.h.  Adding a command:
 * its entry in the file of its family, and its line here.  help lives
 * here, beside the table it lists, so no family reads the table. */
#include <string.h>

#include "cmd.h"
#include "control.h"
#include "lifecycle.h"
#include "proto.h"
#include "text.h"

extern const struct cmd_entry cmd_start_entry, cmd_stop_entry,
    cmd_stats_entry, cmd_status_entry, cmd_wait_entry, cmd_report_entry,
    cmd_runs_entry, cmd_version_entry, cmd_capacity_entry, cmd_sweep_entry;

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


static const struct cmd_entry cmd_help_entry = {
	"help", "help", "list the commands", true, NULL, request_check_none,
	cmd_help,
};

const struct cmd_entry *const cmd_table[] = {
	&cmd_start_entry,	/* cmd-run.c */
	&cmd_stop_entry,	/* cmd-run.c */
	&cmd_stats_entry,	/* cmd-info.c */
	&cmd_status_entry,	/* cmd-info.c */
	&cmd_wait_entry,	/* cmd-run.c */
	&cmd_capacity_entry,	/* cmd-run.c */
	&cmd_sweep_entry,	/* cmd-run.c */
	&cmd_report_entry,	/* cmd-records.c */
	&cmd_runs_entry,	/* cmd-records.c */
	&cmd_help_entry,	/* here */
	&cmd_version_entry,	/* cmd-info.c */
};
const size_t cmd_count = sizeof(cmd_table) / sizeof(cmd_table[0]);

const struct cmd_entry *
cmd_find(const char *name)
{
	for (size_t i = 0; i < cmd_count; i++)
		if (strcmp(cmd_table[i]->name, name) == 0)
			return cmd_table[i];
	return NULL;
}

void
cmd_dispatch(struct control_conn *c, json_object *id, const char *name,
    json_object *args)
{
	const struct cmd_entry *e = cmd_find(name);
	struct request_error err;
	struct request_args a;

	if (e == NULL) {
		char q[128];

		control_reply_error(c, id, PROTO_ERR_UNKNOWN_CMD, "cmd",
		    "unknown command '%s'; 'help' lists them",
		    text_quote(q, sizeof(q), name, 100));
		return;
	}
	if (!e->read_only && !control_admit_change(c, id, e->name))
		return;
	if (e->ready != NULL && !e->ready(c, id))
		return;
	if (request_check_args(e->check, args, lifecycle_config(), &a,
	    &err) == -1) {
		control_reply_error(c, id, err.code, err.field, "%s",
		    err.message);
		return;
	}
	e->handler(c, id, &a);
	request_args_free(&a);
}
