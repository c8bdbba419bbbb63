/*
 * stressctl's command table, the tmux way: one entry per command carries
 * everything about it (name, usage, help, options, operands, parser, how
 * the reply is shown and checked), and dispatch, the usage listing and
 * --help are all generated from the table in cmd.c.  Commands live in
 * files by family (cmd-start.c, cmd-run.c, ...), each exporting its
 * entries.
 */
#ifndef STRESSCTL_CMD_H
#define STRESSCTL_CMD_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "output.h"
#include "records.h"

/* A parser's verdict besides an exit code: go on and send the request. */
#define PARSE_OK	(-1)

struct ctl_cmd;

/* Everything the command line decided. */
struct ctl {
	const char		*socket;
	const char		*socket_from;	/* "--socket", "STRESSD_SOCKET"
						   or "the default socket" */
	bool			 all;		/* --all: the full view */
	bool			 json;
	const struct ctl_cmd	*cmd;
	json_object		*args;		/* the request's "args" */
	double			 timeout;	/* --timeout; 0: none, < 0: not given */
	struct records_ctx	 rec;		/* for the record commands */
	char			**sweep_dirs;	/* sweep --dir, absolute */
	char			**sweep_labels;	/* sweep --label of each, or NULL */
	int			 nsweep_dirs;
	unsigned long		 repeat;	/* sweep --repeat */
	bool			 cap_attach;	/* capacity --attach */
	bool			 cap_detach;	/* capacity --detach */
	bool			 cap_int_stop;	/* capacity --on-interrupt stop */
};

struct ctl_cmd {
	const char	*name;
	const char	*usage;		/* after "stressctl NAME" */
	const char	*summary;	/* one line, lower case, no full stop */
	const char	*details;	/* more --help text, or NULL */
	/* getopt_long's options, the common ones (options.h) included, NULL
	 * terminated; NULL: the common ones only (start and sweep build
	 * theirs from the knob table). */
	const struct option *options;
	const char	*shortopts;	/* NULL: ":h" */
	/* Takes each option but the common ones and -h (optarg set);
	 * returns PARSE_OK, an exit status or OPTIONS_UNKNOWN.  NULL: there
	 * are none. */
	int		(*option)(struct ctl *, int c);
	/* RUN operands (run ids or report.json paths): at least min_runs,
	 * at most max_runs (-1: any number); 0 and 0: no operands. */
	int		 min_runs, max_runs;
	/* Fills the struct ctl from argv; returns PARSE_OK or the exit
	 * status (--help printed, or a usage error).  Most commands take
	 * options_parse_plain: the options, then the operands. */
	int		(*parse)(struct ctl *, int, char **);
	/* The one request's result as text and as JSON; text_all the text
	 * with --all (the entry's options then list it), NULL: no --all. */
	output_view_fn	 text, json, text_all;
	/* The exit status the result calls for; NULL: 0. */
	int		(*check)(struct ctl *, json_object *);
	/* Set instead of the views for the commands that make their own
	 * requests (or none) instead of the one request named after the
	 * command; returns the exit status. */
	int		(*run)(const struct records_ctx *);
	/* --help when the generated one will not do (start); NULL: made from
	 * usage, summary and details. */
	void		(*help)(const struct ctl_cmd *);
};

/* The entries, one file per family. */
extern const struct ctl_cmd cmd_start_entry;		/* cmd-start.c */
extern const struct ctl_cmd cmd_stop_entry;		/* cmd-run.c */
extern const struct ctl_cmd cmd_wait_entry;
extern const struct ctl_cmd cmd_stats_entry;		/* cmd-info.c */
extern const struct ctl_cmd cmd_status_entry;
extern const struct ctl_cmd cmd_help_entry;
extern const struct ctl_cmd cmd_version_entry;
extern const struct ctl_cmd cmd_runs_entry;		/* cmd-report.c */
extern const struct ctl_cmd cmd_report_entry;
extern const struct ctl_cmd cmd_compare_entry;		/* cmd-compare.c */
extern const struct ctl_cmd cmd_watch_entry;		/* cmd-watch.c */
extern const struct ctl_cmd cmd_graph_entry;		/* cmd-graph.c */
extern const struct ctl_cmd cmd_sweep_entry;		/* cmd-sweep.c */
extern const struct ctl_cmd cmd_capacity_entry;		/* cmd-capacity.c */

/* Every command in the order of the usage listing, NULL terminated. */
extern const struct ctl_cmd *const cmd_table[];

/* The command named name, or NULL. */
const struct ctl_cmd	*cmd_find(const char *name);
/* "; did you mean 'NAME'?" for an unknown command name, or "". */
void			 cmd_suggest(const char *name, char *buf, size_t len);
/* stressctl --help: the program's usage and every command's. */
void			 cmd_print_list(FILE *f);
/* What parsing left in ctl: the request's args, sweep's dirs and labels. */
void			 cmd_ctl_free(struct ctl *ctl);

#endif
