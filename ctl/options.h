/* The command-line helpers every stressctl command parser shares: usage
 * messages, the options every command takes, the getopt loop, operands and
 * number options. */
#ifndef STRESSCTL_OPTIONS_H
#define STRESSCTL_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "ctl.h"

/* Long-option values outside the range of short options. */
enum {
	OPT_JSON = 256,
	OPT_SOCKET,
	OPT_VERSION,
	OPT_NO_DRAIN,
	OPT_NO_WAIT,
	OPT_TIMEOUT,
	OPT_PROFILE,
	OPT_CSV,
	OPT_INTERVAL,
	OPT_COUNT,
	OPT_WIDTH,
	OPT_HEIGHT,
	OPT_REPEAT,
	OPT_ALL,
	OPT_GRAPH,		/* sweep --graph */
	OPT_LIMIT,		/* runs --limit */
	OPT_BEFORE,		/* runs --before */
	OPT_CAP_SEARCH,		/* capacity: + index of its search option */
	OPT_CAP_ATTACH = OPT_CAP_SEARCH + 16,
	OPT_CAP_DETACH,
	OPT_CAP_ON_INTERRUPT,
	OPT_KNOB = 1000,		/* + index into knobs_table */
	OPT_NO_KNOB = 2000,		/* + index, for --no-BOOL */
};

/* The options every command also accepts after its name. */
#define OPTIONS_COMMON \
	{ "help", no_argument, NULL, 'h' }, \
	{ "json", no_argument, NULL, OPT_JSON }, \
	{ "socket", required_argument, NULL, OPT_SOCKET }, \
	{ "timeout", required_argument, NULL, OPT_TIMEOUT }

/* --all, for the commands with a full view (text_all). */
#define OPTIONS_ALL \
	{ "all", no_argument, NULL, OPT_ALL }

/* The --timeout of a command that should answer at once (not wait, stop
 * or start, whose replies wait for the run): seconds, when not given. */
#define OPTIONS_DEFAULT_TIMEOUT	30
#define OPTIONS_MAX_TIMEOUT	31536000

/* What an option handler returns for an option it does not know. */
#define OPTIONS_UNKNOWN	(-2)

/* A usage message on stderr ("stressctl CMD: ...", cmd may be NULL); the
 * caller returns CTL_EXIT_USAGE. */
void	options_usage_error(const struct ctl_cmd *cmd, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* Report a getopt_long failure (c is ':' or '?'), naming the option. */
int	options_error(const struct ctl_cmd *cmd, int c, char **argv,
	    const struct option *opts);
/* --json, --socket and --timeout; returns true if c was one of them (a
 * bad --timeout exits with CTL_EXIT_USAGE). */
bool	options_common(struct ctl *ctl, int c);
/* The exit status table of every --help. */
void	options_print_exit_codes(FILE *f);
/* A command's --help: its entry's help, or usage, summary and details. */
void	options_print_help(const struct ctl_cmd *cmd);

/*
 * getopt_long over ctl->cmd's options: the common ones and -h are handled
 * here, every other one is given to the entry's option function.  Returns
 * PARSE_OK when the options are done (optind at the first operand) or the
 * exit status.
 */
int	options_parse(struct ctl *ctl, int argc, char **argv);
/* The operands left after the options, as ctl->cmd's min_runs and
 * max_runs allow; RUN operands go to ctl->rec. */
int	options_operands(struct ctl *ctl, int argc, char **argv);
/* The parser of most commands: options_parse, then options_operands. */
int	options_parse_plain(struct ctl *ctl, int argc, char **argv);
/* A number option in [min, max]; integer: no fraction allowed. */
int	options_number(const struct ctl_cmd *cmd, const char *opt,
	    const char *text, double min, double max, bool integer,
	    double *out);
/* The options of a job the daemon runs (capacity, sweep): --attach,
 * --detach, --on-interrupt detach|stop; OPTIONS_UNKNOWN for others. */
int	options_job(struct ctl *ctl, int c);

#endif
