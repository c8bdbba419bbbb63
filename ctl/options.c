/* Command-line helpers shared by every stressctl command (see options.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "ctl.h"
#include "fmt.h"
#include "options.h"
#include "proto.h"
#include "records.h"
#include "suggest.h"

/* A usage message on stderr; the caller returns CTL_EXIT_USAGE. */
void
options_usage_error(const struct ctl_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "stressctl%s%s: ", cmd ? " " : "",
	    cmd ? cmd->name : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'stressctl%s%s --help'.\n", cmd ? " " : "",
	    cmd ? cmd->name : "");
}

void
options_print_exit_codes(FILE *f)
{
	fprintf(f, "\nExit status:\n"
	    "  %d  success\n"
	    "  %d  error reply from stressd, the run failed, or a file could "
	    "not be read\n     or written\n"
	    "  %d  usage error (unknown option, bad value)\n"
	    "  %d  cannot connect to the control socket\n"
	    "  %d  no reply within --timeout (default %d s)\n",
	    CTL_EXIT_OK, CTL_EXIT_ERROR, CTL_EXIT_USAGE, CTL_EXIT_CONNECT,
	    CTL_EXIT_TIMEOUT, OPTIONS_DEFAULT_TIMEOUT);
}


/* "; did you mean '--NAME'?" for a long option not in opts, or "". */
static const char *
option_hint(const char *arg, const struct option *opts)
{
	static char hint[256];
	const char **names;
	char word[64];
	size_t n = 0;

	hint[0] = '\0';
	if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
		return hint;
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(arg + 2, "="),
	    arg + 2);
	while (opts[n].name != NULL)
		n++;
	names = fmt_nomem(calloc(n + 1, sizeof(*names)));
	for (size_t i = 0; i < n; i++)
		names[i] = opts[i].name;
	suggest_phrase(word, names, n, "--", hint, sizeof(hint));
	free(names);
	return hint;
}

/*
 * Report a getopt_long failure, naming the option.  getopt's own messages
 * are off (opterr = 0) so that they carry the command name.
 */
int
options_error(const struct ctl_cmd *cmd, int c, char **argv,
    const struct option *opts)
{
	const char *arg = argv[optind - 1];
	const char *eq;

	if (c == ':') {
		if (optopt > 0 && optopt < 256)
			options_usage_error(cmd, "option '-%c' requires a "
			    "value", optopt);
		else
			options_usage_error(cmd, "option '%s' requires a "
			    "value", arg);
		return CTL_EXIT_USAGE;
	}
	if (optopt > 0 && optopt < 256) {
		options_usage_error(cmd, "unknown option '-%c'", optopt);
		return CTL_EXIT_USAGE;
	}
	/* A known option that takes no value, given one (--no-wait=x). */
	if (strncmp(arg, "--", 2) == 0 && (eq = strchr(arg, '=')) != NULL)
		for (const struct option *o = opts; o->name != NULL; o++)
			if (strlen(o->name) == (size_t)(eq - arg - 2) &&
			    strncmp(o->name, arg + 2, strlen(o->name)) == 0) {
				options_usage_error(cmd, "option '--%s' takes "
				    "no value, not '%s'", o->name, eq + 1);
				return CTL_EXIT_USAGE;
			}
	options_usage_error(cmd, "unknown or ambiguous option '%s'%s", arg,
	    option_hint(arg, opts));
	return CTL_EXIT_USAGE;
}

/* Options any command accepts; returns true if c was one of them. */
bool
options_common(struct ctl *ctl, int c)
{
	switch (c) {
	case OPT_JSON:
		ctl->json = true;
		return true;
	case OPT_SOCKET:
		ctl->socket = optarg;
		ctl->socket_from = "--socket";
		return true;
	case OPT_TIMEOUT:
		if (options_number(ctl->cmd, "--timeout", optarg, 0,
		    OPTIONS_MAX_TIMEOUT, false, &ctl->timeout) != PARSE_OK)
			exit(CTL_EXIT_USAGE);
		return true;
	}
	return false;
}


/* A RUN operand: a run id (a positive integer) or a report.json path. */
static int
check_run_operand(const struct ctl_cmd *cmd, const char *run)
{
	unsigned long long id;
	char *end;

	if (records_is_path(run))
		return PARSE_OK;
	errno = 0;
	id = strtoull(run, &end, 10);
	if (!isdigit((unsigned char)run[0]) || *end != '\0' || errno != 0 ||
	    id == 0 || id > UINT32_MAX) {
		options_usage_error(cmd, "'%s' is neither a run id (a positive "
		    "integer) nor a report.json path", run);
		return CTL_EXIT_USAGE;
	}
	return PARSE_OK;
}

/* Operands beyond max_runs are refused with the first of them; RUN
 * operands are checked here so a typo costs no round trip. */
int
options_operands(struct ctl *ctl, int argc, char **argv)
{
	int n = argc - optind, ret;
	int min = ctl->cmd->min_runs, max = ctl->cmd->max_runs;

	if (n < min) {
		options_usage_error(ctl->cmd, min == 1 ? "a RUN is required" :
		    "at least %d RUNs are required, %d given", min, n);
		return CTL_EXIT_USAGE;
	}
	if (max >= 0 && n > max) {
		options_usage_error(ctl->cmd, "unexpected argument '%s'",
		    argv[optind + max]);
		return CTL_EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++)
		if ((ret = check_run_operand(ctl->cmd, argv[i])) != PARSE_OK)
			return ret;
	ctl->rec.runs = argv + optind;
	ctl->rec.nruns = n;
	return PARSE_OK;
}

/* A number option in [min, max]; integer: no fraction allowed. */
int
options_number(const struct ctl_cmd *cmd, const char *opt, const char *text,
    double min, double max, bool integer, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(text, &end);
	if (*text == '\0' || *end != '\0' || errno != 0 || !isfinite(d) ||
	    d < min || d > max || (integer && d != floor(d))) {
		options_usage_error(cmd, "%s: '%s' is not %s from %g to %g",
		    opt, text, integer ? "a whole number" : "a number", min,
		    max);
		return CTL_EXIT_USAGE;
	}
	*out = d;
	return PARSE_OK;
}

void
options_print_help(const struct ctl_cmd *cmd)
{
	char *u;

	if (cmd->help != NULL) {
		cmd->help(cmd);
		return;
	}
	u = fmt_xprintf("stressctl [--socket PATH] [--json] %s%s%s",
	    cmd->name, cmd->usage[0] ? " " : "", cmd->usage);
	fputs("usage: ", stdout);
	columns_wrap(stdout, u, strlen("usage: "));
	printf("\n\n%c%s.\n", toupper((unsigned char)cmd->summary[0]),
	    cmd->summary + 1);
	free(u);
	if (cmd->details != NULL)
		printf("\n%s", cmd->details);
	options_print_exit_codes(stdout);
}

int
options_parse(struct ctl *ctl, int argc, char **argv)
{
	static const struct option plain[] = {
		OPTIONS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	const struct ctl_cmd *cmd = ctl->cmd;
	const struct option *opts = cmd->options ? cmd->options : plain;
	int c, ret;

	while ((c = getopt_long(argc, argv, cmd->shortopts ? cmd->shortopts :
	    ":h", opts, NULL)) != -1) {
		if (options_common(ctl, c))
			continue;
		if (c == 'h') {
			options_print_help(cmd);
			return CTL_EXIT_OK;
		}
		/* Listed only by the entries with a full view. */
		if (c == OPT_ALL) {
			ctl->all = true;
			continue;
		}
		ret = cmd->option != NULL ? cmd->option(ctl, c) :
		    OPTIONS_UNKNOWN;
		if (ret == OPTIONS_UNKNOWN)
			return options_error(cmd, c, argv, opts);
		if (ret != PARSE_OK)
			return ret;
	}
	return PARSE_OK;
}

int
options_parse_plain(struct ctl *ctl, int argc, char **argv)
{
	int ret;

	if ((ret = options_parse(ctl, argc, argv)) != PARSE_OK)
		return ret;
	return options_operands(ctl, argc, argv);
}

int
options_job(struct ctl *ctl, int c)
{
	switch (c) {
	case OPT_CAP_ATTACH:
		ctl->cap_attach = true;
		return PARSE_OK;
	case OPT_CAP_DETACH:
		ctl->cap_detach = true;
		return PARSE_OK;
	case OPT_CAP_ON_INTERRUPT:
		if (strcmp(optarg, "stop") == 0 ||
		    strcmp(optarg, "detach") == 0) {
			ctl->cap_int_stop = strcmp(optarg, "stop") == 0;
			return PARSE_OK;
		}
		options_usage_error(ctl->cmd, "--on-interrupt: '%s' is neither "
		    "detach nor stop", optarg);
		return CTL_EXIT_USAGE;
	}
	return OPTIONS_UNKNOWN;
}
