/*
 * What a stressctl command is and what its command line decided: the
 * type of a command's entry (struct ctl_cmd) and the state its parser
 * fills (struct ctl).  A header of its own, below the table: the
 * commands, their parsers (options.c) and the request (call.c) need the
 * types, and the table (cmd.c) needs them all, so none of them includes
 * the table.
 */
#ifndef STRESSCTL_CTL_H
#define STRESSCTL_CTL_H

#include <getopt.h>
#include <stdbool.h>

#include <json-c/json.h>

#include "records.h"

/* A parser's verdict besides an exit code: go on and send the request. */
#define PARSE_OK	(-1)

/* A view prints the "result" object of a successful reply (which may be
 * NULL if the daemon sent none) on stdout. */
typedef void	(*ctl_view_fn)(json_object *result);

/*
 * A kind of result a command's reply may carry besides its own (wait at
 * the end of a capacity search gets the search's record), and its views:
 * the first kind whose is accepts the result and has a view for the
 * text asked for (text, or text_all with --all; NULL: none) prints it.
 */
struct ctl_kind {
	bool		(*is)(json_object *result);
	ctl_view_fn	  text, text_all;
};

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
	ctl_view_fn	 text, json, text_all;
	/* The other kinds of result the reply may carry, tried in order
	 * before text and text_all, ended by one whose is is NULL; NULL:
	 * none.  The JSON view shows every kind. */
	const struct ctl_kind *kinds;
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

#endif
