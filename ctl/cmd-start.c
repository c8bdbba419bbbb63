/* stressctl start, and the run options it shares with sweep: one option
 * per knob of common/knobs.c (two per boolean), -D PROPERTY=VALUE for the
 * original stresser's Java properties, --profile; and start's --help, made
 * from the knob table. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cmd-start.h"
#include "ctl.h"
#include "knobs.h"
#include "options.h"
#include "proto.h"
#include "replyview.h"

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

/* Check a parsed value beyond its syntax with the daemon's own check
 * (knobs_check_value); paths are made absolute here, so a relative one
 * passes. */
static int
check_value(const struct knob *k, json_object *v, const char *what,
    const char *text, const struct ctl_cmd *cmd)
{
	size_t bad = 0;
	char lo[32], hi[32];

	switch (knobs_check_value(k, v, &bad)) {
	case KNOBS_VALUE_OK:
	case KNOBS_VALUE_PATH:
		return PARSE_OK;
	case KNOBS_VALUE_RANGE:
		options_usage_error(cmd, "%s: '%s' is out of range (%s to %s)",
		    what, text, knobs_num_text(k->min, lo, sizeof(lo)),
		    knobs_num_text(k->max, hi, sizeof(hi)));
		break;
	case KNOBS_VALUE_NO_RRA:
		options_usage_error(cmd, "%s: '%s' holds no RRA definition",
		    what, text);
		break;
	case KNOBS_VALUE_TOO_MANY_RRAS:
		options_usage_error(cmd, "%s: at most %d RRAs", what,
		    KNOBS_MAX_RRAS);
		break;
	case KNOBS_VALUE_CONTROL:
		/* Not echoed: it would reach the terminal. */
		if (k->type == KNOB_STRING)
			options_usage_error(cmd, "%s: byte 0x%02x at offset %zu "
			    "is a control character", what,
			    (unsigned)(unsigned char)text[bad], bad);
		else
			options_usage_error(cmd, "%s: RRA definition %zu holds "
			    "a control character", what, bad + 1);
		break;
	case KNOBS_VALUE_NOT_RRA:
		options_usage_error(cmd, "%s: '%s' is not an RRA definition "
		    "(RRA:CF:XFF:STEPS:ROWS)", what, json_object_get_string(
		    json_object_array_get_idx(v, bad)));
		break;
	}
	return CTL_EXIT_USAGE;
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
	const struct ctl_cmd *cmd = ctl->cmd;
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
		options_usage_error(cmd, "%s: %s", what, msg);
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
			options_usage_error(cmd, "%s: at most %d RRAs", what,
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
			options_usage_error(cmd, "%s: at most %d RRAs", what,
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
			    n < 47 ? 47 - n : 1, "", knobs_table[i].option);
			p = end ? end + 1 : NULL;
		}
	}
	for (size_t i = 0; knobs_ignored_properties[i] != NULL; i++)
		fprintf(f, "  %-46s (accepted and ignored)\n",
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
		options_usage_error(ctl->cmd, "-D '%s': expected "
		    "PROPERTY=VALUE", def);
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
print_start_help(const struct ctl_cmd *cmd)
{
	(void)cmd;
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
	options_print_exit_codes(stdout);
}

/* sweep: --dir adds a directory to sweep rather than setting the knob. */
static int
sweep_dir(struct ctl *ctl, const char *text)
{
	char **dirs, *path;

	if (*text == '\0') {
		options_usage_error(ctl->cmd, "--dir: empty path");
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
	dirs[ctl->nsweep_dirs] = path;
	dirs = realloc(ctl->sweep_labels, (size_t)(ctl->nsweep_dirs + 1) *
	    sizeof(*dirs));
	if (dirs == NULL) {
		fprintf(stderr, "stressctl: out of memory\n");
		return CTL_EXIT_ERROR;
	}
	ctl->sweep_labels = dirs;
	dirs[ctl->nsweep_dirs++] = NULL;
	return PARSE_OK;
}

/* sweep --label names the candidate of the --dir before it. */
static int
sweep_label(struct ctl *ctl, const struct knob *k, const char *text)
{
	char err[160];
	int d = ctl->nsweep_dirs - 1;

	if (d < 0 || ctl->sweep_labels[d] != NULL) {
		options_usage_error(ctl->cmd, "--label names the --dir before "
		    "it: one --label after each --dir");
		return CTL_EXIT_USAGE;
	}
	if (knobs_check_text(k, text, strlen(text), err, sizeof(err)) == -1) {
		options_usage_error(ctl->cmd, "--%s", err);
		return CTL_EXIT_USAGE;
	}
	if ((ctl->sweep_labels[d] = strdup(text)) == NULL) {
		fprintf(stderr, "stressctl: out of memory\n");
		return CTL_EXIT_ERROR;
	}
	return PARSE_OK;
}

/* The knob table drives the options: two per boolean (--X[=BOOL] and
 * --no-X), one per other knob, then the common ones.  *nonames holds the
 * --no-X names, to be freed with the options. */
static int
build_options(const struct ctl_cmd *cmd, struct option **optsp,
    char ***nonamesp, bool sweep)
{
	static const struct option common[] = { OPTIONS_COMMON };
	struct option *opts;
	size_t nopts = 0, nown = 0;

	/* A command with options of its own (capacity) lists them all. */
	while (cmd->options != NULL && cmd->options[nown].name != NULL)
		nown++;
	*optsp = opts = calloc(2 * knobs_count + 8 + nown, sizeof(*opts));
	*nonamesp = calloc(knobs_count, sizeof(**nonamesp));
	if (opts == NULL || *nonamesp == NULL)
		return CTL_EXIT_ERROR;
	for (size_t i = 0; i < knobs_count; i++) {
		const struct knob *k = &knobs_table[i];

		opts[nopts].name = k->option;
		opts[nopts].has_arg = k->type == KNOB_BOOL ?
		    optional_argument : required_argument;
		opts[nopts++].val = OPT_KNOB + (int)i;
		if (k->type != KNOB_BOOL)
			continue;
		if (asprintf(&(*nonamesp)[i], "no-%s", k->option) == -1) {
			(*nonamesp)[i] = NULL;
			return CTL_EXIT_ERROR;
		}
		opts[nopts].name = (*nonamesp)[i];
		opts[nopts].has_arg = no_argument;
		opts[nopts++].val = OPT_NO_KNOB + (int)i;
	}
	for (size_t i = 0; i < sizeof(common) / sizeof(*common); i++)
		opts[nopts++] = common[i];
	opts[nopts].name = "profile";
	opts[nopts].has_arg = required_argument;
	opts[nopts++].val = OPT_PROFILE;
	for (size_t i = 0; i < nown; i++) {
		bool dup = false;

		for (size_t j = 0; j < sizeof(common) / sizeof(*common); j++)
			dup = dup || strcmp(common[j].name,
			    cmd->options[i].name) == 0;
		if (!dup)
			opts[nopts++] = cmd->options[i];
	}
	if (sweep && nown == 0) {
		opts[nopts].name = "repeat";
		opts[nopts].has_arg = required_argument;
		opts[nopts++].val = OPT_REPEAT;
		opts[nopts].name = "graph";
		opts[nopts].has_arg = required_argument;
		opts[nopts++].val = OPT_GRAPH;
	}
	return PARSE_OK;
}

/* The knob option c names, or NULL. */
static const struct knob *
option_knob(int c, int base)
{
	return c >= base && c < base + (int)knobs_count ?
	    &knobs_table[c - base] : NULL;
}

/* One option other than the common ones and -h. */
static int
run_option(struct ctl *ctl, int c, bool sweep)
{
	const struct knob *k = option_knob(c, OPT_KNOB);
	char what[128];
	double d;
	int ret;

	if (c == OPT_REPEAT) {
		if ((ret = options_number(ctl->cmd, "--repeat", optarg,
		    1, 1000, true, &d)) != PARSE_OK)
			return ret;
		ctl->repeat = (unsigned long)d;
	} else if (c == OPT_GRAPH) {
		if (*optarg == '\0') {
			options_usage_error(ctl->cmd, "--graph: empty file name");
			return CTL_EXIT_USAGE;
		}
		ctl->rec.png = optarg;
	} else if (sweep && k != NULL && strcmp(k->name, "dir") == 0) {
		return sweep_dir(ctl, optarg);
	} else if (sweep && k != NULL && strcmp(k->name, "label") == 0) {
		return sweep_label(ctl, k, optarg);
	} else if (sweep && k != NULL && strcmp(k->name, "sweep_id") == 0) {
		options_usage_error(ctl->cmd, "--sweep-id: %s sets it",
		    ctl->cmd->name);
		return CTL_EXIT_USAGE;
	} else if (c == 'D') {
		return set_property(ctl, optarg);
	} else if (c == OPT_PROFILE) {
		/* Named in stressd.conf; options given here override its
		 * knobs. */
		json_object_object_add(ctl->args, "profile",
		    json_object_new_string(optarg));
	} else if (k != NULL) {
		snprintf(what, sizeof(what), "--%s", k->option);
		/* A boolean option alone means true. */
		return set_knob(ctl, k, optarg ? optarg : "true", what,
		    k->type == KNOB_RRAS);
	} else if ((k = option_knob(c, OPT_NO_KNOB)) != NULL) {
		snprintf(what, sizeof(what), "--no-%s", k->option);
		return set_knob(ctl, k, "false", what, false);
	} else if (ctl->cmd->option != NULL)
		return ctl->cmd->option(ctl, c);
	else
		return OPTIONS_UNKNOWN;
	return PARSE_OK;
}

/* What the options must add up to: sweep's directories, start's dir. */
static int
check_dirs(struct ctl *ctl, bool sweep)
{
	json_object *dir;

	if (sweep) {
		if (ctl->nsweep_dirs == 0 && ctl->cap_attach)
			return PARSE_OK;	/* capacity --attach */
		if (ctl->nsweep_dirs == 0)
			options_usage_error(ctl->cmd,
			    "at least one --dir is required");
		else if (json_object_object_get_ex(ctl->args, "dir", NULL))
			options_usage_error(ctl->cmd, "-D stresstest.file: "
			    "give the directories with --dir");
		else
			return PARSE_OK;
		return CTL_EXIT_USAGE;
	}
	/* Caught here so a typo costs no round trip; the daemon checks too.
	 * A profile may hold the dir. */
	if ((!json_object_object_get_ex(ctl->args, "dir", &dir) ||
	    json_object_get_string_len(dir) == 0) &&
	    !json_object_object_get_ex(ctl->args, "profile", NULL)) {
		options_usage_error(ctl->cmd, "--dir is required (or -D "
		    "stresstest.file=DIR, or a --profile that sets dir)");
		return CTL_EXIT_USAGE;
	}
	return PARSE_OK;
}

int
cmd_start_options(struct ctl *ctl, int argc, char **argv, bool sweep)
{
	struct option *opts = NULL;
	char **nonames = NULL;
	int c, ret;

	if ((ret = build_options(ctl->cmd, &opts, &nonames, sweep)) !=
	    PARSE_OK) {
		fprintf(stderr, "stressctl: out of memory\n");
		goto fail;
	}
	while ((c = getopt_long(argc, argv, ":D:h", opts, NULL)) != -1) {
		if (options_common(ctl, c))
			continue;
		if (c == 'h') {
			options_print_help(ctl->cmd);
			ret = CTL_EXIT_OK;
			goto fail;
		}
		if ((ret = run_option(ctl, c, sweep)) == OPTIONS_UNKNOWN)
			ret = options_error(ctl->cmd, c, argv, opts);
		if (ret != PARSE_OK)
			goto fail;
	}
	if ((ret = options_operands(ctl, argc, argv)) == PARSE_OK)
		ret = check_dirs(ctl, sweep);
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
	return cmd_start_options(ctl, argc, argv, false);
}

const struct ctl_cmd cmd_start_entry = {
	.name = "start",
	.usage = "[options]",
	.summary = "start a run",
	.parse = parse_start,
	.text = replyview_start,
	.json = replyview_json,
	.help = print_start_help,
};
