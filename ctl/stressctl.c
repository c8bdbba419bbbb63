/* stressctl: command-line client of stressd.  Parses the command line,
 * builds one JSON request, sends it over the control socket and renders the
 * reply (see client.c for the transport, output.c for the rendering). */
#include "config.h"

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "client.h"
#include "knobs.h"
#include "output.h"
#include "proto.h"
#include "records.h"

/* A parser's verdict besides an exit code: go on and send the request. */
#define PARSE_OK	(-1)

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
	OPT_KNOB = 1000,		/* + index into knobs_table */
	OPT_NO_KNOB = 2000,		/* + index, for --no-BOOL */
};

/* Everything the command line decided. */
struct ctl {
	const char		*socket;
	bool			 json;
	const struct command	*cmd;
	json_object		*args;		/* the request's "args" */
	double			 timeout;	/* seconds, <= 0: none */
	struct records_ctx	 rec;		/* for the record commands */
	char			**sweep_dirs;	/* sweep --dir, absolute */
	int			 nsweep_dirs;
	unsigned long		 repeat;	/* sweep --repeat */
};

struct command {
	const char	*name;
	const char	*usage;		/* after "stressctl NAME" */
	const char	*summary;
	const char	*details;	/* more --help text, or NULL */
	int		(*parse)(struct ctl *, int, char **);
	/* How the result is shown (VIEW_COUNT: no single result; the
	 * record commands show their own). */
	enum output_view view;
	/* The exit status the result calls for; NULL: 0. */
	int		(*check)(struct ctl *, json_object *);
	/* Set for the record commands, which make their own requests (or
	 * none) instead of the one request named after the command. */
	int		(*records)(const struct records_ctx *);
};

/* The options every command also accepts after its name. */
#define COMMON_OPTIONS \
	{ "help", no_argument, NULL, 'h' }, \
	{ "json", no_argument, NULL, OPT_JSON }, \
	{ "socket", required_argument, NULL, OPT_SOCKET }

static void usage_error(const struct command *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
static int number_option(const struct command *, const char *, const char *,
    double, double, bool, double *);
static int run_sweep(const struct records_ctx *);

/* A usage message on stderr; the caller returns CTL_EXIT_USAGE. */
static void
usage_error(const struct command *cmd, const char *fmt, ...)
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

static void
print_exit_codes(FILE *f)
{
	fprintf(f, "\nExit status:\n"
	    "  %d  success\n"
	    "  %d  error reply from stressd, the run failed, or a file could "
	    "not be read\n     or written\n"
	    "  %d  usage error (unknown option, bad value)\n"
	    "  %d  cannot connect to the control socket\n",
	    CTL_EXIT_OK, CTL_EXIT_ERROR, CTL_EXIT_USAGE, CTL_EXIT_CONNECT);
}

static void
print_command_usage(const struct command *cmd)
{
	printf("usage: stressctl [--socket PATH] [--json] %s%s%s\n\n%c%s.\n",
	    cmd->name, cmd->usage[0] ? " " : "", cmd->usage,
	    toupper((unsigned char)cmd->summary[0]), cmd->summary + 1);
	if (cmd->details != NULL)
		printf("\n%s", cmd->details);
	print_exit_codes(stdout);
}

/*
 * Report a getopt_long failure, naming the option.  getopt's own messages
 * are off (opterr = 0) so that they carry the command name.
 */
static int
option_error(const struct command *cmd, int c, char **argv,
    const struct option *opts)
{
	const char *arg = argv[optind - 1];
	const char *eq;

	if (c == ':') {
		if (optopt > 0 && optopt < 256)
			usage_error(cmd, "option '-%c' requires a value",
			    optopt);
		else
			usage_error(cmd, "option '%s' requires a value", arg);
		return CTL_EXIT_USAGE;
	}
	if (optopt > 0 && optopt < 256) {
		usage_error(cmd, "unknown option '-%c'", optopt);
		return CTL_EXIT_USAGE;
	}
	/* A known option that takes no value, given one (--no-wait=x). */
	if (strncmp(arg, "--", 2) == 0 && (eq = strchr(arg, '=')) != NULL)
		for (const struct option *o = opts; o->name != NULL; o++)
			if (strlen(o->name) == (size_t)(eq - arg - 2) &&
			    strncmp(o->name, arg + 2, strlen(o->name)) == 0) {
				usage_error(cmd, "option '--%s' takes no value, "
				    "not '%s'", o->name, eq + 1);
				return CTL_EXIT_USAGE;
			}
	usage_error(cmd, "unknown or ambiguous option '%s'", arg);
	return CTL_EXIT_USAGE;
}

/* Options any command accepts; returns true if c was one of them. */
static bool
common_option(struct ctl *ctl, int c)
{
	switch (c) {
	case OPT_JSON:
		ctl->json = true;
		return true;
	case OPT_SOCKET:
		ctl->socket = optarg;
		return true;
	}
	return false;
}

/* Nothing may follow a command's options. */
static int
no_operands(const struct command *cmd, int argc, char **argv)
{
	if (optind < argc) {
		usage_error(cmd, "unexpected argument '%s'", argv[optind]);
		return CTL_EXIT_USAGE;
	}
	return PARSE_OK;
}

/* ---------------------------------------------------------------- start */

/* Relative paths resolved against the cwd, since the daemon's cwd is not
 * ours; trailing slashes of a directory dropped ("/rrd/stress/" is the
 * Java stresser's file prefix, which names the directory). */
static char *
absolute_path(const char *path, bool is_dir)
{
	char *cwd = NULL, *res = NULL;
	size_t len;

	/* "" stays "" (an empty update_file means none). */
	if (path[0] != '\0') {
		while (path[0] == '.' && path[1] == '/')
			for (path += 2; *path == '/'; path++)
				;
		if (path[0] == '\0')
			path = ".";
	}
	if (path[0] == '/' || path[0] == '\0') {
		if ((res = strdup(path)) == NULL)
			goto fail;
	} else {
		if ((cwd = getcwd(NULL, 0)) == NULL)
			goto fail;
		if (strcmp(path, ".") == 0)
			path = "";
		if (asprintf(&res, "%s%s%s", cwd,
		    path[0] != '\0' && strcmp(cwd, "/") != 0 ? "/" : "",
		    path) == -1) {
			res = NULL;
			goto fail;
		}
	}
	len = strlen(res);
	while (is_dir && len > 1 && res[len - 1] == '/')
		res[--len] = '\0';
fail:
	free(cwd);
	return res;
}

/* Check a parsed value beyond its syntax, as the daemon would. */
static int
check_value(const struct knob *k, json_object *v, const char *what,
    const char *text, const struct command *cmd)
{
	switch (k->type) {
	case KNOB_UINT:
	case KNOB_DOUBLE: {
		double d = json_object_get_double(v);

		/* A huge unsigned value wraps to a negative int64. */
		if (!isfinite(d) || d < k->min || d > k->max ||
		    (k->type == KNOB_UINT && json_object_get_int64(v) < 0)) {
			usage_error(cmd, "%s: '%s' is out of range (%.15g to "
			    "%.15g)", what, text, k->min, k->max);
			return CTL_EXIT_USAGE;
		}
		return PARSE_OK;
	}
	case KNOB_RRAS:
		if (json_object_array_length(v) == 0) {
			usage_error(cmd, "%s: '%s' holds no RRA definition",
			    what, text);
			return CTL_EXIT_USAGE;
		}
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			const char *s = json_object_get_string(
			    json_object_array_get_idx(v, i));

			if (strncmp(s, "RRA:", 4) != 0) {
				usage_error(cmd, "%s: '%s' is not an RRA "
				    "definition (RRA:CF:XFF:STEPS:ROWS)", what,
				    s);
				return CTL_EXIT_USAGE;
			}
		}
		return PARSE_OK;
	case KNOB_BOOL:
	case KNOB_STRING:
	case KNOB_CHOICE:	/* checked by knobs_parse_text */
	case KNOB_TEXT:		/* likewise */
		break;
	}
	return PARSE_OK;
}

/*
 * Set one knob in the request from text.  what names the source for
 * messages ("--files", "-D stresstest.filecount").  append: add to the RRA
 * list so far (--rra) instead of replacing it (-D rras.list).
 */
static int
set_knob(struct ctl *ctl, const struct knob *k, const char *text,
    const char *what, bool append)
{
	const struct command *cmd = ctl->cmd;
	json_object *v = NULL, *old;
	char err[512], *path = NULL;
	const char *msg = err;
	size_t nlen = strlen(k->name);
	int ret = CTL_EXIT_USAGE;

	if ((v = knobs_parse_text(k, text, err, sizeof(err))) == NULL) {
		/* The message starts with the JSON name; we name the option. */
		if (strncmp(err, k->name, nlen) == 0 &&
		    strncmp(err + nlen, ": ", 2) == 0)
			msg += nlen + 2;
		usage_error(cmd, "%s: %s", what, msg);
		goto fail;
	}
	if ((ret = check_value(k, v, what, text, cmd)) != PARSE_OK)
		goto fail;

	if (k->type == KNOB_STRING) {
		bool is_dir = strcmp(k->name, "dir") == 0;

		if ((path = absolute_path(text, is_dir)) == NULL) {
			fprintf(stderr, "stressctl %s: %s: cannot make '%s' "
			    "absolute: %s\n", cmd->name, what, text,
			    strerror(errno));
			ret = CTL_EXIT_ERROR;
			goto fail;
		}
		json_object_put(v);
		v = json_object_new_string(path);
	}

	if (append && json_object_object_get_ex(ctl->args, k->name, &old) &&
	    json_object_is_type(old, json_type_array)) {
		if (json_object_array_length(old) +
		    json_object_array_length(v) > KNOBS_MAX_RRAS) {
			usage_error(cmd, "%s: at most %d RRAs", what,
			    KNOBS_MAX_RRAS);
			goto fail;
		}
		for (size_t i = 0; i < json_object_array_length(v); i++)
			json_object_array_add(old, json_object_get(
			    json_object_array_get_idx(v, i)));
		json_object_put(v);
	} else {
		if (k->type == KNOB_RRAS &&
		    json_object_array_length(v) > KNOBS_MAX_RRAS) {
			usage_error(cmd, "%s: at most %d RRAs", what,
			    KNOBS_MAX_RRAS);
			goto fail;
		}
		/* Replaces an earlier value: the later option wins. */
		json_object_object_add(ctl->args, k->name, v);
	}
	free(path);
	return PARSE_OK;
fail:
	json_object_put(v);
	free(path);
	return ret;
}

static bool
property_ignored(const char *prop)
{
	for (size_t i = 0; knobs_ignored_properties[i] != NULL; i++)
		if (strcmp(knobs_ignored_properties[i], prop) == 0)
			return true;
	return false;
}

/* Print "PROPERTY  --option" lines, one per property name. */
static void
print_properties(FILE *f)
{
	for (size_t i = 0; i < knobs_count; i++) {
		const char *p = knobs_table[i].properties;

		while (p != NULL && *p != '\0') {
			const char *end = strchr(p, ',');
			int n = end ? (int)(end - p) : (int)strlen(p);

			fprintf(f, "  %.*s%*s--%s\n", n, p,
			    n < 54 ? 54 - n : 1, "", knobs_table[i].option);
			p = end ? end + 1 : NULL;
		}
	}
	for (size_t i = 0; knobs_ignored_properties[i] != NULL; i++)
		fprintf(f, "  %-53s (accepted and ignored)\n",
		    knobs_ignored_properties[i]);
}

/* -D PROPERTY=VALUE, the original stresser's Java system properties. */
static int
set_property(struct ctl *ctl, const char *def)
{
	const char *eq = strchr(def, '=');
	const struct knob *k;
	char *name = NULL, *what = NULL;
	int ret = CTL_EXIT_USAGE;

	if (eq == NULL || eq == def) {
		usage_error(ctl->cmd, "-D '%s': expected PROPERTY=VALUE", def);
		goto fail;
	}
	if ((name = strndup(def, (size_t)(eq - def))) == NULL ||
	    asprintf(&what, "-D %s", name) == -1) {
		what = NULL;
		fprintf(stderr, "stressctl: out of memory\n");
		ret = CTL_EXIT_ERROR;
		goto fail;
	}
	if ((k = knobs_find_property(name)) != NULL) {
		/* rras.list is a whole list: it replaces, never appends. */
		ret = set_knob(ctl, k, eq + 1, what, false);
		goto fail;
	}
	if (property_ignored(name)) {
		fprintf(stderr, "stressctl start: warning: property %s is "
		    "ignored\n", name);
		ret = PARSE_OK;
		goto fail;
	}
	fprintf(stderr, "stressctl start: -D %s: unknown property; known "
	    "properties:\n", name);
	print_properties(stderr);
fail:
	free(name);
	free(what);
	return ret;
}

static const char *
knob_metavar(const struct knob *k)
{
	switch (k->type) {
	case KNOB_UINT:		return " N";
	case KNOB_DOUBLE:	return " NUM";
	case KNOB_BOOL:		return "[=BOOL]";
	case KNOB_STRING:	return " PATH";
	case KNOB_RRAS:		return " RRA";
	case KNOB_CHOICE:	return " MODE";
	case KNOB_TEXT:		return " TEXT";
	}
	return "";
}

#define HELP_COL	34	/* where option descriptions start */
#define HELP_WIDTH	79

/* Print text from column col (where the cursor is), wrapping at word
 * boundaries; continuation lines start at HELP_COL. */
static void
print_wrapped(const char *text, int col)
{
	while (*text != '\0') {
		int room = HELP_WIDTH - col, n = (int)strlen(text);

		if (n > room) {
			/* Break at the last space that fits, or else the
			 * first one after (a word longer than the room). */
			for (n = room; n > 0 && text[n] != ' '; n--)
				;
			if (n == 0) {
				const char *sp = strchr(text, ' ');

				n = sp ? (int)(sp - text) : (int)strlen(text);
			}
		}
		printf("%.*s\n", n, text);
		text += n;
		while (*text == ' ')
			text++;
		if (*text != '\0')
			printf("%*s", HELP_COL, "");
		col = HELP_COL;
	}
}

static void
print_start_help(void)
{
	printf("usage: stressctl [--socket PATH] [--json] start [options]\n\n"
	    "Start a run.  Each option sets one knob; knobs not given keep "
	    "the daemon's\ndefaults.\n\nOptions:\n");
	for (size_t i = 0; i < knobs_count; i++) {
		const struct knob *k = &knobs_table[i];
		int n = (int)(strlen(k->option) + strlen(knob_metavar(k)));
		char text[512];

		size_t len;

		len = (size_t)snprintf(text, sizeof(text), "%s", k->help);
		if (k->defval != NULL && k->defval[0] != '\0') {
			len += (size_t)snprintf(text + len, sizeof(text) - len,
			    " (default ");
			/* A space after each comma lets the RRA list wrap. */
			for (const char *d = k->defval; *d != '\0' &&
			    len + 3 < sizeof(text); d++) {
				text[len++] = *d;
				if (*d == ',')
					text[len++] = ' ';
			}
			snprintf(text + len, sizeof(text) - len, ")");
		}
		printf("  --%s%s%*s", k->option, knob_metavar(k),
		    n < HELP_COL - 4 ? HELP_COL - 4 - n : 1, "");
		print_wrapped(text, n < HELP_COL - 4 ? HELP_COL : n + 5);
	}
	printf("  -D PROPERTY=VALUE               set a knob by the Java "
	    "property name of the\n"
	    "                                  original stresser "
	    "(repeatable)\n"
	    "  --profile NAME                  start from the knobs of [profile "
	    "NAME] in\n"
	    "                                  stressd.conf; options given "
	    "here override them\n"
	    "  -h, --help                      print this help and exit\n\n"
	    "A boolean option alone means true; --no-NAME means "
	    "--NAME=false.  BOOL is\n"
	    "true/false, yes/no, on/off or 1/0.  Each --rra adds one RRA "
	    "(or several,\n"
	    "comma separated) to the list; -D rras.list=LIST replaces the "
	    "whole list.\n"
	    "Options and -D set the same knobs; when one is given twice, "
	    "the later wins.\n"
	    "Relative paths for --dir and --update-file are made absolute "
	    "against the\n"
	    "current directory.  --dir (or -D stresstest.file) is "
	    "required unless the\nprofile sets it.\n\n"
	    "Properties for -D:\n");
	print_properties(stdout);
	print_exit_codes(stdout);
}

/* sweep: --dir adds a directory to sweep rather than setting the knob. */
static int
sweep_dir(struct ctl *ctl, const char *text)
{
	char **dirs, *path;

	if (*text == '\0') {
		usage_error(ctl->cmd, "--dir: empty path");
		return CTL_EXIT_USAGE;
	}
	if ((path = absolute_path(text, true)) == NULL) {
		fprintf(stderr, "stressctl sweep: --dir: cannot make '%s' "
		    "absolute: %s\n", text, strerror(errno));
		return CTL_EXIT_ERROR;
	}
	dirs = realloc(ctl->sweep_dirs, (size_t)(ctl->nsweep_dirs + 1) *
	    sizeof(*dirs));
	if (dirs == NULL) {
		free(path);
		fprintf(stderr, "stressctl: out of memory\n");
		return CTL_EXIT_ERROR;
	}
	ctl->sweep_dirs = dirs;
	dirs[ctl->nsweep_dirs++] = path;
	return PARSE_OK;
}

/* The options of start; sweep takes them too, with --dir repeatable and
 * --repeat. */
static int
parse_run_options(struct ctl *ctl, int argc, char **argv, bool sweep)
{
	static const struct option common[] = { COMMON_OPTIONS };
	struct option *opts;
	char **nonames = NULL;
	size_t nopts = 0;
	json_object *dir;
	double d;
	int c, ret = CTL_EXIT_USAGE;

	/* The knob table drives the options: two per boolean (--X[=BOOL]
	 * and --no-X), one per other knob, then the common ones. */
	opts = calloc(2 * knobs_count + 6, sizeof(*opts));
	nonames = calloc(knobs_count, sizeof(*nonames));
	if (opts == NULL || nonames == NULL)
		goto nomem;
	for (size_t i = 0; i < knobs_count; i++) {
		const struct knob *k = &knobs_table[i];

		opts[nopts].name = k->option;
		opts[nopts].has_arg = k->type == KNOB_BOOL ?
		    optional_argument : required_argument;
		opts[nopts++].val = OPT_KNOB + (int)i;
		if (k->type != KNOB_BOOL)
			continue;
		if (asprintf(&nonames[i], "no-%s", k->option) == -1) {
			nonames[i] = NULL;
			goto nomem;
		}
		opts[nopts].name = nonames[i];
		opts[nopts].has_arg = no_argument;
		opts[nopts++].val = OPT_NO_KNOB + (int)i;
	}
	for (size_t i = 0; i < sizeof(common) / sizeof(*common); i++)
		opts[nopts++] = common[i];
	opts[nopts].name = "profile";
	opts[nopts].has_arg = required_argument;
	opts[nopts++].val = OPT_PROFILE;
	if (sweep) {
		opts[nopts].name = "repeat";
		opts[nopts].has_arg = required_argument;
		opts[nopts++].val = OPT_REPEAT;
	}

	while ((c = getopt_long(argc, argv, ":D:h", opts, NULL)) != -1) {
		if (common_option(ctl, c))
			continue;
		if (c == 'h') {
			if (sweep)
				print_command_usage(ctl->cmd);
			else
				print_start_help();
			ret = CTL_EXIT_OK;
			goto fail;
		}
		if (c == OPT_REPEAT) {
			if ((ret = number_option(ctl->cmd, "--repeat", optarg,
			    1, 1000, true, &d)) != PARSE_OK)
				goto fail;
			ctl->repeat = (unsigned long)d;
		} else if (sweep && c >= OPT_KNOB &&
		    c < OPT_KNOB + (int)knobs_count &&
		    strcmp(knobs_table[c - OPT_KNOB].name, "dir") == 0) {
			if ((ret = sweep_dir(ctl, optarg)) != PARSE_OK)
				goto fail;
		} else if (sweep && c >= OPT_KNOB &&
		    c < OPT_KNOB + (int)knobs_count &&
		    strcmp(knobs_table[c - OPT_KNOB].name, "sweep_id") == 0) {
			usage_error(ctl->cmd, "--sweep-id: the sweep sets it");
			goto fail;
		} else if (c == 'D') {
			if ((ret = set_property(ctl, optarg)) != PARSE_OK)
				goto fail;
		} else if (c == OPT_PROFILE) {
			/* Named in stressd.conf; options given here override
			 * its knobs. */
			json_object_object_add(ctl->args, "profile",
			    json_object_new_string(optarg));
		} else if (c >= OPT_KNOB && c < OPT_KNOB + (int)knobs_count) {
			const struct knob *k = &knobs_table[c - OPT_KNOB];
			char what[128];

			snprintf(what, sizeof(what), "--%s", k->option);
			/* A boolean option alone means true. */
			if ((ret = set_knob(ctl, k, optarg ? optarg : "true",
			    what, k->type == KNOB_RRAS)) != PARSE_OK)
				goto fail;
		} else if (c >= OPT_NO_KNOB &&
		    c < OPT_NO_KNOB + (int)knobs_count) {
			const struct knob *k = &knobs_table[c - OPT_NO_KNOB];
			char what[128];

			snprintf(what, sizeof(what), "--no-%s", k->option);
			if ((ret = set_knob(ctl, k, "false", what, false)) !=
			    PARSE_OK)
				goto fail;
		} else {
			ret = option_error(ctl->cmd, c, argv, opts);
			goto fail;
		}
	}
	if ((ret = no_operands(ctl->cmd, argc, argv)) != PARSE_OK)
		goto fail;
	ret = CTL_EXIT_USAGE;
	if (sweep) {
		if (ctl->nsweep_dirs == 0)
			usage_error(ctl->cmd, "at least one --dir is required");
		else if (json_object_object_get_ex(ctl->args, "dir", NULL))
			usage_error(ctl->cmd, "-D stresstest.file: give the "
			    "directories with --dir");
		else
			ret = PARSE_OK;
		goto fail;
	}
	/* Caught here so a typo costs no round trip; the daemon checks too.
	 * A profile may hold the dir. */
	if ((!json_object_object_get_ex(ctl->args, "dir", &dir) ||
	    json_object_get_string_len(dir) == 0) &&
	    !json_object_object_get_ex(ctl->args, "profile", NULL)) {
		usage_error(ctl->cmd, "--dir is required (or -D "
		    "stresstest.file=DIR, or a --profile that sets dir)");
		ret = CTL_EXIT_USAGE;
		goto fail;
	}
	ret = PARSE_OK;
	goto fail;
nomem:
	fprintf(stderr, "stressctl: out of memory\n");
	ret = CTL_EXIT_ERROR;
fail:
	for (size_t i = 0; nonames != NULL && i < knobs_count; i++)
		free(nonames[i]);
	free(nonames);
	free(opts);
	return ret;
}

static int
parse_start(struct ctl *ctl, int argc, char **argv)
{
	return parse_run_options(ctl, argc, argv, false);
}

static int
parse_sweep(struct ctl *ctl, int argc, char **argv)
{
	ctl->repeat = 1;
	return parse_run_options(ctl, argc, argv, true);
}

/* ---------------------------------------------------------------- others */

static int
parse_stop(struct ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "no-drain", no_argument, NULL, OPT_NO_DRAIN },
		{ "no-wait", no_argument, NULL, OPT_NO_WAIT },
		COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	bool drain = true, wait = true;
	int c;

	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (common_option(ctl, c))
			continue;
		switch (c) {
		case 'h':
			print_command_usage(ctl->cmd);
			return CTL_EXIT_OK;
		case OPT_NO_DRAIN:
			drain = false;
			break;
		case OPT_NO_WAIT:
			wait = false;
			break;
		default:
			return option_error(ctl->cmd, c, argv, opts);
		}
	}
	json_object_object_add(ctl->args, "drain",
	    json_object_new_boolean(drain));
	json_object_object_add(ctl->args, "wait",
	    json_object_new_boolean(wait));
	return no_operands(ctl->cmd, argc, argv);
}

static int
parse_wait(struct ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (common_option(ctl, c))
			continue;
		switch (c) {
		case 'h':
			print_command_usage(ctl->cmd);
			return CTL_EXIT_OK;
		case OPT_TIMEOUT:
			errno = 0;
			ctl->timeout = strtod(optarg, &end);
			if (*optarg == '\0' || *end != '\0' || errno != 0 ||
			    !isfinite(ctl->timeout) || ctl->timeout <= 0) {
				usage_error(ctl->cmd, "--timeout: '%s' is not a "
				    "positive number of seconds", optarg);
				return CTL_EXIT_USAGE;
			}
			break;
		default:
			return option_error(ctl->cmd, c, argv, opts);
		}
	}
	return no_operands(ctl->cmd, argc, argv);
}

/* Only the common options; operands are left to the caller. */
static int
parse_plain_options(struct ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (common_option(ctl, c))
			continue;
		if (c == 'h') {
			print_command_usage(ctl->cmd);
			return CTL_EXIT_OK;
		}
		return option_error(ctl->cmd, c, argv, opts);
	}
	return PARSE_OK;
}

/* Commands whose only options are the common ones. */
static int
parse_plain(struct ctl *ctl, int argc, char **argv)
{
	int ret;

	if ((ret = parse_plain_options(ctl, argc, argv)) != PARSE_OK)
		return ret;
	return no_operands(ctl->cmd, argc, argv);
}

/* ---------------------------------------------------------------- records */

/* A RUN operand: a run id (a positive integer) or a report.json path. */
static int
check_run_operand(const struct command *cmd, const char *run)
{
	unsigned long long id;
	char *end;

	if (records_is_path(run))
		return PARSE_OK;
	errno = 0;
	id = strtoull(run, &end, 10);
	if (!isdigit((unsigned char)run[0]) || *end != '\0' || errno != 0 ||
	    id == 0 || id > UINT32_MAX) {
		usage_error(cmd, "'%s' is neither a run id (a positive integer) "
		    "nor a report.json path", run);
		return CTL_EXIT_USAGE;
	}
	return PARSE_OK;
}

/* The RUN operands left after the options: at least min, at most max
 * (max < 0: any number). */
static int
run_operands(struct ctl *ctl, int argc, char **argv, int min, int max)
{
	int n = argc - optind, ret;

	if (n < min) {
		usage_error(ctl->cmd, min == 1 ? "a RUN is required" :
		    "at least %d RUNs are required, %d given", min, n);
		return CTL_EXIT_USAGE;
	}
	if (max >= 0 && n > max) {
		usage_error(ctl->cmd, "unexpected argument '%s'",
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
static int
number_option(const struct command *cmd, const char *opt, const char *text,
    double min, double max, bool integer, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(text, &end);
	if (*text == '\0' || *end != '\0' || errno != 0 || !isfinite(d) ||
	    d < min || d > max || (integer && d != floor(d))) {
		usage_error(cmd, "%s: '%s' is not %s from %g to %g", opt, text,
		    integer ? "a whole number" : "a number", min, max);
		return CTL_EXIT_USAGE;
	}
	*out = d;
	return PARSE_OK;
}

static int
parse_report(struct ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "csv", no_argument, NULL, OPT_CSV },
		COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (common_option(ctl, c))
			continue;
		switch (c) {
		case 'h':
			print_command_usage(ctl->cmd);
			return CTL_EXIT_OK;
		case OPT_CSV:
			ctl->rec.csv = true;
			break;
		default:
			return option_error(ctl->cmd, c, argv, opts);
		}
	}
	if (ctl->rec.csv && ctl->json) {
		usage_error(ctl->cmd, "--csv and --json exclude each other");
		return CTL_EXIT_USAGE;
	}
	return run_operands(ctl, argc, argv, 0, 1);
}

static int
parse_compare(struct ctl *ctl, int argc, char **argv)
{
	int ret;

	if ((ret = parse_plain_options(ctl, argc, argv)) != PARSE_OK)
		return ret;
	return run_operands(ctl, argc, argv, 2, -1);
}

static int
parse_watch(struct ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "count", required_argument, NULL, OPT_COUNT },
		COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	double d;
	int c, ret;

	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (common_option(ctl, c))
			continue;
		switch (c) {
		case 'h':
			print_command_usage(ctl->cmd);
			return CTL_EXIT_OK;
		case OPT_INTERVAL:
			if ((ret = number_option(ctl->cmd, "--interval",
			    optarg, 0.1, 3600, false, &d)) != PARSE_OK)
				return ret;
			ctl->rec.interval = d;
			break;
		case OPT_COUNT:
			if ((ret = number_option(ctl->cmd, "--count", optarg,
			    1, 1e9, true, &d)) != PARSE_OK)
				return ret;
			ctl->rec.count = (unsigned long)d;
			break;
		default:
			return option_error(ctl->cmd, c, argv, opts);
		}
	}
	return no_operands(ctl->cmd, argc, argv);
}

static int
parse_graph(struct ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "width", required_argument, NULL, OPT_WIDTH },
		{ "height", required_argument, NULL, OPT_HEIGHT },
		COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 }
	};
	double d;
	int c, ret;

	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		if (common_option(ctl, c))
			continue;
		switch (c) {
		case 'h':
			print_command_usage(ctl->cmd);
			return CTL_EXIT_OK;
		case 'o':
			if (*optarg == '\0') {
				usage_error(ctl->cmd, "-o: empty file name");
				return CTL_EXIT_USAGE;
			}
			ctl->rec.png = optarg;
			break;
		case OPT_WIDTH:
		case OPT_HEIGHT:
			if ((ret = number_option(ctl->cmd, c == OPT_WIDTH ?
			    "--width" : "--height", optarg, c == OPT_WIDTH ?
			    RECORDS_GRAPH_MIN_WIDTH : RECORDS_GRAPH_MIN_HEIGHT,
			    RECORDS_GRAPH_MAX_SIZE, true, &d)) != PARSE_OK)
				return ret;
			if (c == OPT_WIDTH)
				ctl->rec.width = (unsigned)d;
			else
				ctl->rec.height = (unsigned)d;
			break;
		default:
			return option_error(ctl->cmd, c, argv, opts);
		}
	}
	if (ctl->rec.png == NULL) {
		usage_error(ctl->cmd, "-o FILE.png is required");
		return CTL_EXIT_USAGE;
	}
	return run_operands(ctl, argc, argv, 0, 1);
}

/* ---------------------------------------------------------------- replies */

static const char *
result_state(json_object *res)
{
	json_object *v;

	if (!json_object_is_type(res, json_type_object) ||
	    !json_object_object_get_ex(res, "state", &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* Exit status for the final stats of a run (stop, wait). */
static int
run_outcome(const struct command *cmd, json_object *res, bool final)
{
	const char *state = result_state(res);
	json_object *v;

	if (state == NULL) {
		fprintf(stderr, "stressctl %s: reply has no run state\n",
		    cmd->name);
		return CTL_EXIT_ERROR;
	}
	if (strcmp(state, "failed") == 0) {
		fprintf(stderr, "stressctl %s: run %s failed%s%s\n", cmd->name,
		    json_object_object_get_ex(res, "run_id", &v) ?
		    json_object_get_string(v) : "?",
		    json_object_object_get_ex(res, "reason", &v) &&
		    json_object_is_type(v, json_type_string) ? ": " : "",
		    json_object_object_get_ex(res, "reason", &v) &&
		    json_object_is_type(v, json_type_string) ?
		    json_object_get_string(v) : "");
		return CTL_EXIT_ERROR;
	}
	/* idle: there was no run to wait for, which is not a failure. */
	if (final && strcmp(state, "done") != 0 &&
	    strcmp(state, "stopped") != 0 && strcmp(state, "idle") != 0) {
		fprintf(stderr, "stressctl %s: run is still %s\n", cmd->name,
		    state);
		return CTL_EXIT_ERROR;
	}
	return CTL_EXIT_OK;
}

static int
check_stop(struct ctl *ctl, json_object *res)
{
	json_object *wait = NULL;

	/* Without wait the run is still draining: only failed counts. */
	json_object_object_get_ex(ctl->args, "wait", &wait);
	return run_outcome(ctl->cmd, res, json_object_get_boolean(wait));
}

static int
check_wait(struct ctl *ctl, json_object *res)
{
	return run_outcome(ctl->cmd, res, true);
}

static int
check_version(struct ctl *ctl, json_object *res)
{
	json_object *v;

	(void)ctl;
	/* Warn, not fail: the reply was understood well enough to print. */
	if (json_object_is_type(res, json_type_object) &&
	    json_object_object_get_ex(res, "protocol", &v) &&
	    json_object_get_int(v) != PROTO_VERSION)
		fprintf(stderr, "stressctl: warning: stressd speaks protocol "
		    "%s, stressctl protocol %d\n", json_object_get_string(v),
		    PROTO_VERSION);
	return CTL_EXIT_OK;
}

static const struct command commands[] = {
	{ "start", "[options]", "start a run", NULL,
	  parse_start, VIEW_START, NULL, NULL },
	{ "stop", "[--no-drain] [--no-wait]",
	  "stop the current run",
	  "Options:\n"
	  "  --no-drain  drop the queued updates instead of writing them\n"
	  "  --no-wait   reply at once instead of when the run has ended\n"
	  "  -h, --help  print this help and exit\n\n"
	  "With wait (the default) the final stats are printed and the exit "
	  "status is 1\nif the run failed.\n",
	  parse_stop, VIEW_STOP, check_stop, NULL },
	{ "stats", "", "show the counters of the current or last run", NULL,
	  parse_plain, VIEW_STATS, NULL, NULL },
	{ "status", "", "show the daemon's state and the current or last run",
	  NULL, parse_plain, VIEW_STATUS, NULL, NULL },
	{ "wait", "[--timeout SECONDS]",
	  "wait until the current run ends and show its final stats",
	  "Options:\n"
	  "  --timeout SECONDS  give up after this long (exit status 1)\n"
	  "  -h, --help         print this help and exit\n\n"
	  "The exit status is 0 if the run is done or stopped (or there was "
	  "none), 1 if it\nfailed.\n",
	  parse_wait, VIEW_STATS, check_wait, NULL },
	{ "help", "", "list the commands stressd supports", NULL,
	  parse_plain, VIEW_HELP, NULL, NULL },
	{ "version", "", "show the versions of stressd and stressctl", NULL,
	  parse_plain, VIEW_VERSION, check_version, NULL },
	{ "runs", "", "list the recorded runs",
	  "One line per run the daemon has a record of, oldest first: id, "
	  "start (local\ntime), state, updates completed, the average of "
	  "significant_ops_pending,\nfilesystem type, directory and mount "
	  "options (cut at 32 characters).\n",
	  parse_plain, VIEW_RUNS, NULL, NULL },
	{ "report", "[--csv] [RUN]", "summarise a run's record",
	  "RUN is a run id, or the path of a report.json file (anything with "
	  "a '/' or\nending in .json), which is read without asking the "
	  "daemon; the default is\nthe current or last run.\n\n"
	  "Options:\n"
	  "  --csv       print the run's samples (samples.csv) instead\n"
	  "  --json      print the record (report.json) unchanged\n"
	  "  -h, --help  print this help and exit\n\n"
	  "The exit status is 1 if there is no such run or a file cannot be "
	  "read.\n",
	  parse_report, VIEW_COUNT, NULL, records_report },
	{ "compare", "RUN RUN [RUN...]", "show two or more runs side by side",
	  "Each RUN is a run id or the path of a report.json file, as for "
	  "report.  One\ncolumn per run: throughput, both queues, latency and "
	  "errors, then the\nhistograms of significant_ops_pending.  --json "
	  "prints {\"runs\": [REPORT, ...]}.\n",
	  parse_compare, VIEW_COUNT, NULL, records_compare },
	{ "watch", "[--interval S] [--count N]",
	  "follow the current run live",
	  "Options:\n"
	  "  --interval SECONDS  refresh period, 0.1 to 3600 (default: the "
	  "run's\n                      sample interval)\n"
	  "  --count N           stop after N refreshes\n"
	  "  --json              print each refresh's stats as one line of "
	  "JSON\n"
	  "  -h, --help          print this help and exit\n\n"
	  "On a terminal the view is redrawn in place; otherwise one line is "
	  "printed per\nrefresh.  The exit status is 0 when the run ends done "
	  "or stopped (or none is\nactive), 1 if it failed.  Ctrl-C stops "
	  "watching with status 0.\n",
	  parse_watch, VIEW_COUNT, NULL, records_watch },
	{ "graph", "-o FILE.png [options] [RUN]",
	  "draw a run's queues and update rate as a PNG",
	  "RUN is a run id or a report.json path, as for report; the default "
	  "is the\ncurrent or last run.  The graph is drawn with librrd from "
	  "the run's\nmetrics.rrd.\n\n"
	  "Options:\n"
	  "  -o, --output FILE.png  the PNG to write (required)\n"
	  "  --width W              image width in pixels, 200 to 8192 "
	  "(default 800)\n"
	  "  --height H             image height in pixels, 100 to 8192 "
	  "(default 300)\n"
	  "  -h, --help             print this help and exit\n",
	  parse_graph, VIEW_COUNT, NULL, records_graph },
	{ "sweep", "--dir DIR... [options]",
	  "run the same run in each directory and compare them",
	  "The runs go one after another in the order A B C A B C ... (each "
	  "directory\nonce per repeat, interleaved to expose drift), all with "
	  "the same knobs, so\nthe same seed.  Each run writes fresh files "
	  "in a new subdirectory\nDIR/sweep-ID-K (K: the run's number in the "
	  "sweep), created by stressd;\nnothing is removed.  Each run is "
	  "recorded as usual, its sweep_id knob set\nto ID (s-TIME-PID, "
	  "shown by runs).  At the end the runs are compared as\nby compare; "
	  "with --repeat above 1, each directory's mean, sample standard\n"
	  "deviation, minimum and maximum across its done runs follow.  "
	  "Progress goes to\nstderr.\n\n"
	  "Options:\n"
	  "  --dir DIR     a directory to sweep (repeatable; at least one)\n"
	  "  --repeat N    runs per directory, 1 to 1000 (default 1)\n"
	  "  --profile P   start every run from [profile P] of stressd.conf\n"
	  "  -h, --help    print this help and exit\n"
	  "and every option of start but --sweep-id (see stressctl start "
	  "--help).\n\n"
	  "Ctrl-C stops the current run with a drain, waits for it, prints "
	  "the compare\nof the runs so far (the stopped one included, not in "
	  "the means) and exits\nwith status 130; a second Ctrl-C exits at "
	  "once.  A failed run does not end\nthe sweep, but the exit status "
	  "is then 1; a refused start ends it.\n",
	  parse_sweep, VIEW_COUNT, NULL, run_sweep },
	{ NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL }
};

/* ---------------------------------------------------------------- main */

static void
print_usage(FILE *f)
{
	int w = 0;

	fprintf(f, "usage: stressctl [--socket PATH] [--json] [--help] "
	    "[--version] COMMAND [options]\n\n"
	    "Control stressd, the RRD storage stress-test daemon.\n\n"
	    "Commands:\n");
	for (const struct command *c = commands; c->name != NULL; c++) {
		int n = (int)(strlen(c->name) + strlen(c->usage) + 1);

		if (n > w)
			w = n;
	}
	for (const struct command *c = commands; c->name != NULL; c++)
		fprintf(f, "  %s %-*s  %s\n", c->name,
		    w - (int)strlen(c->name) - 1, c->usage, c->summary);
	fprintf(f, "\nOptions:\n"
	    "  --socket PATH  control socket (default: $STRESSD_SOCKET, "
	    "else %s)\n"
	    "  --json         print each reply's result as one line of JSON\n"
	    "  -h, --help     print this help and exit\n"
	    "  --version      print stressctl's version and exit\n\n"
	    "--socket and --json may also follow the command.  Every command "
	    "takes --help.\n", STRESSD_DEFAULT_SOCKET);
	print_exit_codes(f);
}


/* What request() left: a reply to show, or only an exit status. */
#define REQUEST_OK	(-1)

/*
 * Check a reply's envelope.  Returns REQUEST_OK with *reply the parsed
 * reply (to be put by the caller), or the exit status, an error reply
 * already printed.
 */
static int
parse_reply(struct ctl *ctl, const char *line, json_object **reply)
{
	struct json_tokener *tok = NULL;
	json_object *ok, *id, *err, *v;
	int ret = CTL_EXIT_ERROR;
	size_t len = strlen(line);

	*reply = NULL;
	if ((tok = json_tokener_new()) == NULL) {
		fprintf(stderr, "stressctl: out of memory\n");
		goto fail;
	}
	*reply = json_tokener_parse_ex(tok, line, (int)len);
	if (*reply == NULL ||
	    json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_is_type(*reply, json_type_object) ||
	    !json_object_object_get_ex(*reply, "ok", &ok) ||
	    !json_object_is_type(ok, json_type_boolean)) {
		fprintf(stderr, "stressctl: malformed reply from %s: %.200s\n",
		    ctl->socket, line);
		goto fail;
	}
	/* We sent id 1; anything else is somebody else's answer. */
	if (json_object_object_get_ex(*reply, "id", &id) &&
	    json_object_get_int(id) != 1) {
		fprintf(stderr, "stressctl: reply from %s carries id %s, not "
		    "1\n", ctl->socket, json_object_get_string(id));
		goto fail;
	}
	if (!json_object_get_boolean(ok)) {
		const char *code = "error", *msg = "(no message)";
		const char *field = NULL;

		if (json_object_object_get_ex(*reply, "error", &err)) {
			if (json_object_object_get_ex(err, "code", &v))
				code = json_object_get_string(v);
			if (json_object_object_get_ex(err, "message", &v))
				msg = json_object_get_string(v);
			if (json_object_object_get_ex(err, "field", &v) &&
			    !json_object_is_type(v, json_type_null))
				field = json_object_get_string(v);
		}
		fprintf(stderr, "stressctl: %s: %s%s%s%s\n", code, msg,
		    field ? " (field: " : "", field ? field : "",
		    field ? ")" : "");
		goto fail;
	}
	ret = REQUEST_OK;
fail:
	if (ret != REQUEST_OK) {
		json_object_put(*reply);
		*reply = NULL;
	}
	if (tok != NULL)
		json_tokener_free(tok);
	return ret;
}

/* STRESSCTL_DRY_RUN: print the request instead of sending it. */
static bool
dry_run(void)
{
	const char *e = getenv("STRESSCTL_DRY_RUN");

	return e != NULL && *e != '\0' && strcmp(e, "0") != 0;
}

/*
 * Send {"cmd": name, "args": args, "id": 1} and read the reply.  Returns
 * REQUEST_OK with *reply the checked reply, or the exit status with
 * *reply NULL (a dry run: CTL_EXIT_OK, the request printed).
 */
static int
request(struct ctl *ctl, const char *name, json_object *args,
    json_object **reply)
{
	json_object *req;
	const char *line;
	char *text = NULL, err[1024];
	int ret = CTL_EXIT_ERROR;

	*reply = NULL;
	if ((req = json_object_new_object()) == NULL) {
		fprintf(stderr, "stressctl: out of memory\n");
		goto fail;
	}
	json_object_object_add(req, "cmd", json_object_new_string(name));
	json_object_object_add(req, "args", args != NULL ?
	    json_object_get(args) : json_object_new_object());
	json_object_object_add(req, "id", json_object_new_int(1));
	line = output_json_string(req);

	if (dry_run()) {
		printf("%s\n", line);
		ret = CTL_EXIT_OK;
		goto fail;
	}

	switch (client_call(ctl->socket, line, ctl->timeout, &text, err,
	    sizeof(err))) {
	case CLIENT_OK:
		ret = parse_reply(ctl, text, reply);
		break;
	case CLIENT_CONNECT:
		fprintf(stderr, "stressctl: %s\n", err);
		ret = CTL_EXIT_CONNECT;
		break;
	case CLIENT_TIMEOUT:
		/* Only we stop waiting; the daemon's run goes on. */
		fprintf(stderr, "stressctl %s: the run was still going after "
		    "%g s (the timeout); it goes on\n", ctl->cmd->name,
		    ctl->timeout);
		break;
	case CLIENT_IO:
		fprintf(stderr, "stressctl: %s\n", err);
		break;
	}
fail:
	free(text);
	json_object_put(req);
	return ret;
}

/* The record commands' way to the daemon (a records_call_fn). */
static json_object *
call_daemon(void *arg, const char *name, json_object *args, int *rc)
{
	json_object *reply, *res = NULL;

	if ((*rc = request(arg, name, args, &reply)) != REQUEST_OK)
		return NULL;
	*rc = CTL_EXIT_OK;
	/* A reply without a result is treated as an empty one. */
	if (!json_object_object_get_ex(reply, "result", &res) || res == NULL)
		res = json_object_new_object();
	else
		json_object_get(res);
	json_object_put(reply);
	if (res == NULL) {
		fprintf(stderr, "stressctl: out of memory\n");
		*rc = CTL_EXIT_ERROR;
	}
	return res;
}

/* ---------------------------------------------------------------- sweep */

static volatile sig_atomic_t sweep_interrupted;

/* The first Ctrl-C asks the sweep to stop; a second one leaves at once. */
static void
sweep_sigint(int sig)
{
	static const char msg[] = "\nstressctl sweep: interrupted again\n";

	if (sweep_interrupted) {
		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) == -1)
			_exit(128 + sig);
		_exit(128 + sig);
	}
	sweep_interrupted = 1;
}

static const char *
result_str(json_object *res, const char *key)
{
	json_object *v;

	if (!json_object_is_type(res, json_type_object) ||
	    !json_object_object_get_ex(res, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static int64_t
result_id(json_object *res)
{
	json_object *v;

	if (!json_object_is_type(res, json_type_object) ||
	    !json_object_object_get_ex(res, "run_id", &v))
		return -1;
	return json_object_get_int64(v);
}

/*
 * Follow run id to its end, polling stats (a blocking wait would not
 * return on Ctrl-C); on Ctrl-C stop it with a drain.  Returns its final
 * state (a new string), or NULL with *rc set on an error.
 */
static char *
sweep_follow(struct ctl *ctl, int64_t id, int *rc)
{
	json_object *args, *res;
	const char *state;
	char *ret;

	for (;;) {
		if (sweep_interrupted) {
			fprintf(stderr, "stressctl sweep: stopping run %" PRId64
			    " (Ctrl-C again to quit at once)\n", id);
			args = json_object_new_object();
			json_object_object_add(args, "drain",
			    json_object_new_boolean(1));
			json_object_object_add(args, "wait",
			    json_object_new_boolean(1));
			res = call_daemon(ctl, "stop", args, rc);
			json_object_put(args);
		} else
			res = call_daemon(ctl, "stats", NULL, rc);
		if (res == NULL)
			return NULL;
		state = result_str(res, "state");
		/* Another run than ours means ours has ended. */
		if (state != NULL && (sweep_interrupted ||
		    result_id(res) != id || strcmp(state, "done") == 0 ||
		    strcmp(state, "stopped") == 0 ||
		    strcmp(state, "failed") == 0 || strcmp(state, "idle") == 0))
			break;
		json_object_put(res);
		/* Interrupted early by Ctrl-C, which is what we want. */
		nanosleep(&(struct timespec){ 0, 200000000 }, NULL);
	}
	ret = strdup(result_id(res) == id ? state : "ended");
	json_object_put(res);
	if (ret == NULL) {
		fprintf(stderr, "stressctl: out of memory\n");
		*rc = CTL_EXIT_ERROR;
	}
	return ret;
}

/* The sweep command (a record command: it makes its own requests). */
static int
run_sweep(const struct records_ctx *rec)
{
	struct ctl *ctl = rec->call_arg;
	struct records_ctx cmp = *rec;
	struct sigaction sa = { .sa_handler = sweep_sigint }, old;
	unsigned long total = ctl->repeat * (unsigned long)ctl->nsweep_dirs;
	char sweep_id[KNOBS_TEXT_MAX], **ids, *sub = NULL, *state;
	json_object *args = NULL, *res;
	struct stat st;
	unsigned long n = 0;
	int rc = CTL_EXIT_OK, failed = 0;

	snprintf(sweep_id, sizeof(sweep_id), "s-%lld-%ld",
	    (long long)time(NULL), (long)getpid());
	if ((ids = calloc(total, sizeof(*ids))) == NULL) {
		fprintf(stderr, "stressctl: out of memory\n");
		return CTL_EXIT_ERROR;
	}
	/* No SA_RESTART: the poll's sleep ends at once. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	for (n = 0; n < total && !sweep_interrupted; n++) {
		const char *dir = ctl->sweep_dirs[n % (unsigned long)
		    ctl->nsweep_dirs];
		int64_t id;

		free(sub);
		if (asprintf(&sub, "%s/sweep-%s-%lu", dir, sweep_id, n + 1) ==
		    -1) {
			sub = NULL;
			fprintf(stderr, "stressctl: out of memory\n");
			rc = CTL_EXIT_ERROR;
			break;
		}
		/* Fresh files: stressd would continue existing ones. */
		if (lstat(sub, &st) == 0) {
			fprintf(stderr, "stressctl sweep: %s exists\n", sub);
			rc = CTL_EXIT_ERROR;
			break;
		}
		json_object_put(args);
		args = NULL;	/* deep_copy wants an empty destination */
		if (json_object_deep_copy(ctl->args, &args, NULL) != 0) {
			args = NULL;
			fprintf(stderr, "stressctl: out of memory\n");
			rc = CTL_EXIT_ERROR;
			break;
		}
		json_object_object_add(args, "dir", json_object_new_string(sub));
		json_object_object_add(args, "sweep_id",
		    json_object_new_string(sweep_id));
		if ((res = call_daemon(ctl, "start", args, &rc)) == NULL) {
			if (rc == CTL_EXIT_OK)	/* a dry run */
				continue;
			break;
		}
		id = result_id(res);
		json_object_put(res);
		if (id <= 0) {
			fprintf(stderr, "stressctl sweep: start's reply has no "
			    "run id\n");
			rc = CTL_EXIT_ERROR;
			break;
		}
		fprintf(stderr, "stressctl sweep: run %" PRId64 " (%lu of %lu) "
		    "in %s\n", id, n + 1, total, sub);
		if ((ids[n] = output_xprintf("%" PRId64, id)) == NULL ||
		    (state = sweep_follow(ctl, id, &rc)) == NULL)
			break;
		fprintf(stderr, "stressctl sweep: run %" PRId64 " %s\n", id,
		    state);
		if (strcmp(state, "failed") == 0)
			failed = 1;
		free(state);
	}
	json_object_put(args);
	free(sub);
	/* Compare what is recorded, whatever ended the sweep. */
	cmp.runs = ids;
	for (cmp.nruns = 0; (unsigned long)cmp.nruns < total &&
	    ids[cmp.nruns] != NULL; cmp.nruns++)
		;
	cmp.name = "sweep";
	cmp.sweep_dirs = ctl->sweep_dirs;
	cmp.nsweep_dirs = ctl->nsweep_dirs;
	cmp.sweep_id = sweep_id;
	if (cmp.nruns > 0) {
		int crc = records_sweep(&cmp);

		if (rc == CTL_EXIT_OK)
			rc = crc;
	}
	for (unsigned long i = 0; i < total; i++)
		free(ids[i]);
	free(ids);
	if (sweep_interrupted)
		return 128 + SIGINT;
	sigaction(SIGINT, &old, NULL);
	if (rc == CTL_EXIT_OK && failed)
		rc = CTL_EXIT_ERROR;
	return rc;
}

/* Show a reply's result with the command's view and check it. */
static int
show_reply(struct ctl *ctl, json_object *reply)
{
	const struct output *out = ctl->json ? &output_json : &output_text;
	json_object *v = NULL;
	int ret;

	json_object_object_get_ex(reply, "result", &v);
	out->print[ctl->cmd->view](v);
	ret = ctl->cmd->check != NULL ? ctl->cmd->check(ctl, v) : CTL_EXIT_OK;
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "stressctl: stdout: %s\n", strerror(errno));
		ret = CTL_EXIT_ERROR;
	}
	return ret;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, OPT_SOCKET },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct ctl ctl = { .socket = NULL };
	json_object *reply = NULL;
	const char *env;
	int c, ret = CTL_EXIT_USAGE;

	if ((env = getenv("STRESSD_SOCKET")) != NULL && *env != '\0')
		ctl.socket = env;
	else
		ctl.socket = STRESSD_DEFAULT_SOCKET;

	opterr = 0;
	/* "+": stop at the command; its options are parsed by its parser. */
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		if (common_option(&ctl, c))
			continue;
		switch (c) {
		case 'h':
			print_usage(stdout);
			return CTL_EXIT_OK;
		case OPT_VERSION:
			printf("stressctl %s (protocol %d)\n", PACKAGE_VERSION,
			    PROTO_VERSION);
			return CTL_EXIT_OK;
		default:
			return option_error(NULL, c, argv, opts);
		}
	}
	if (optind >= argc) {
		usage_error(NULL, "no command given");
		return CTL_EXIT_USAGE;
	}
	for (const struct command *cmd = commands; cmd->name != NULL; cmd++)
		if (strcmp(cmd->name, argv[optind]) == 0)
			ctl.cmd = cmd;
	if (ctl.cmd == NULL) {
		usage_error(NULL, "unknown command '%s'", argv[optind]);
		return CTL_EXIT_USAGE;
	}

	if ((ctl.args = json_object_new_object()) == NULL) {
		fprintf(stderr, "stressctl: out of memory\n");
		ret = CTL_EXIT_ERROR;
		goto fail;
	}
	argc -= optind;
	argv += optind;
	optind = 0;		/* glibc: restart scanning from scratch */
	if ((ret = ctl.cmd->parse(&ctl, argc, argv)) != PARSE_OK)
		goto fail;
	if (*ctl.socket == '\0') {
		usage_error(NULL, "--socket: empty path");
		ret = CTL_EXIT_USAGE;
		goto fail;
	}

	if (ctl.cmd->records != NULL) {
		ctl.rec.name = ctl.cmd->name;
		ctl.rec.json = ctl.json;
		ctl.rec.call = call_daemon;
		ctl.rec.call_arg = &ctl;
		ret = ctl.cmd->records(&ctl.rec);
		if (fflush(stdout) == EOF || ferror(stdout)) {
			fprintf(stderr, "stressctl: stdout: %s\n",
			    strerror(errno));
			ret = CTL_EXIT_ERROR;
		}
		goto fail;
	}
	if ((ret = request(&ctl, ctl.cmd->name, ctl.args, &reply)) ==
	    REQUEST_OK)
		ret = show_reply(&ctl, reply);
fail:
	json_object_put(reply);
	json_object_put(ctl.args);
	for (int i = 0; i < ctl.nsweep_dirs; i++)
		free(ctl.sweep_dirs[i]);
	free(ctl.sweep_dirs);
	return ret;
}
