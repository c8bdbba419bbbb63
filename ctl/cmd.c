/* The command table of stressctl (see cmd.h): lookup and the usage
 * listing.  Adding a command: its entry in its family's file, declared
 * in the family's header (included by cmd.h), and its line here. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "columns.h"
#include "fmt.h"
#include "options.h"
#include "suggest.h"

const struct ctl_cmd *const cmd_table[] = {
	&cmd_start_entry,
	&cmd_stop_entry,
	&cmd_stats_entry,
	&cmd_status_entry,
	&cmd_wait_entry,
	&cmd_help_entry,
	&cmd_version_entry,
	&cmd_runs_entry,
	&cmd_report_entry,
	&cmd_compare_entry,
	&cmd_watch_entry,
	&cmd_graph_entry,
	&cmd_sweep_entry,
	&cmd_capacity_entry,
	NULL
};

const struct ctl_cmd *
cmd_find(const char *name)
{
	for (size_t i = 0; cmd_table[i] != NULL; i++)
		if (strcmp(cmd_table[i]->name, name) == 0)
			return cmd_table[i];
	return NULL;
}

void
cmd_suggest(const char *name, char *buf, size_t len)
{
	const char **names;
	size_t n = 0;

	while (cmd_table[n] != NULL)
		n++;
	names = fmt_nomem(calloc(n + 1, sizeof(*names)));
	for (size_t i = 0; i < n; i++)
		names[i] = cmd_table[i]->name;
	suggest_phrase(name, names, n, "", buf, len);
	free(names);
}

void
cmd_print_list(FILE *f)
{
	struct columns *t = columns_new("ll");

	fprintf(f, "usage: stressctl [--socket PATH] [--json] [--timeout S] "
	    "[--help]\n                 [--version] COMMAND [options]\n\n"
	    "Control stressd, the RRD storage stress-test daemon.\n\n"
	    "Commands:\n");
	for (size_t i = 0; cmd_table[i] != NULL; i++) {
		const struct ctl_cmd *c = cmd_table[i];

		columns_row(t, 0);
		columns_add(t, "%s%s%s", c->name, c->usage[0] ? " " : "",
		    c->usage);
		columns_add(t, "%s", c->summary);
	}
	columns_print(t, f, 2);
	columns_free(t);
	fprintf(f, "\nOptions:\n"
	    "  --socket PATH  control socket (default: $STRESSD_SOCKET, "
	    "else\n                 %s)\n"
	    "  --json         print each reply's result as one line of JSON\n"
	    "  --timeout S    give up when connecting or a reply takes over S "
	    "seconds\n                 (default 30; wait, stop and start: "
	    "no limit on the reply;\n                 0: none)\n"
	    "  -h, --help     print this help and exit\n"
	    "  --version      print stressctl's version and exit\n\n"
	    "--socket, --json and --timeout may also follow the command.\n"
	    "Every command takes --help.\n", STRESSD_DEFAULT_SOCKET);
	options_print_exit_codes(f);
}

void
cmd_ctl_free(struct ctl *ctl)
{
	json_object_put(ctl->args);
	ctl->args = NULL;
	for (int i = 0; i < ctl->nsweep_dirs; i++) {
		free(ctl->sweep_dirs[i]);
		if (ctl->sweep_labels != NULL)
			free(ctl->sweep_labels[i]);
	}
	free(ctl->sweep_dirs);
	free(ctl->sweep_labels);
	ctl->sweep_dirs = ctl->sweep_labels = NULL;
	ctl->nsweep_dirs = 0;
}
