/* stressctl capacity: start a capacity search in the daemon (the search
 * runs there, so it outlives this process and the ssh session that
 * started it), follow it one line per finished step, and show the
 * result; or attach to the running (or last) one. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "call.h"
#include "capgraph.h"
#include "capline.h"
#include "caprec.h"
#include "capview.h"
#include "cmd-capacity.h"
#include "cmd-start.h"
#include "ctl.h"
#include "fmt.h"
#include "follow.h"
#include "options.h"
#include "proto.h"
#include "records.h"
#include "text.h"

/* The search's own options: the request key, its bounds (min excluded
 * when open), whether a whole number, and the daemon's default (for the
 * checks between them). */
static const struct search_opt {
	const char	*opt, *key;
	double		 min, max, def;
	bool		 open_min, open_max, integer;
} search_opts[] = {
	{ "start-rate", "start_rate", 0, 1e9, 100, true, false, false },
	{ "max-rate", "max_rate", 0, 1e9, 1000000, true, false, false },
	{ "precision", "precision", 0, 100, 10, true, true, false },
	{ "step-min", "step_min", 0, 86400, 10, true, false, false },
	{ "step-max", "step_max", 0, 86400, 30, true, false, false },
	{ "settle", "settle", 0, 86400, 2, false, false, false },
	{ "repeats", "repeats", 0, 10, 1, false, false, true },
};

#define NSEARCH	(sizeof(search_opts) / sizeof(*search_opts))
/* Its getopt entry; name as in search_opts[i]. */
#define SEARCH_OPT(name, i) \
	{ name, required_argument, NULL, OPT_CAP_SEARCH + (i) }

/* ---------------------------------------------------------------- show */

/* The n records read into v, each checked once here where it is shown;
 * false (the first error said) when one does not parse. */
static bool
parse_recs(const struct records_ctx *ctx, json_object **recs, int n,
    struct caprec **v)
{
	for (int i = 0; i < n; i++) {
		char *err = NULL;

		if ((v[i] = caprec_parse(recs[i], &err)) == NULL) {
			records_error(ctx, "%s%s%s", ctx->nruns > i ?
			    ctx->runs[i] : "", ctx->nruns > i ? ": " : "",
			    err);
			free(err);
			return false;
		}
		if ((err = caprec_version_warning(v[i])) != NULL) {
			records_error(ctx, "warning: %s %s", ctx->nruns > i ?
			    ctx->runs[i] : "the record", err);
			free(err);
		}
	}
	return true;
}

/* Two operands that are one search (id, host and start alike) would be
 * ranked against themselves: refused, both named. */
static bool
same_search(const struct records_ctx *ctx, const struct caprec *const *v,
    int n)
{
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			const char *h = v[i]->host;

			if (v[i]->id != v[j]->id || !text_same(h, v[j]->host) ||
			    !text_same(v[i]->started, v[j]->started))
				continue;
			records_error(ctx, "%s and %s are the same capacity "
			    "search (search %" PRId64 "%s%s): compare it with "
			    "another", ctx->nruns > j ? ctx->runs[i] : "a record",
			    ctx->nruns > j ? ctx->runs[j] : "the same record",
			    v[i]->id, h ? " of " : "", h ? h : "");
			return true;
		}
	return false;
}

int
cmd_capacity_show(const struct records_ctx *ctx, json_object **recs, int n,
    bool steps)
{
	struct caprec **v = fmt_nomem(calloc((size_t)n + 1, sizeof(*v)));
	const struct caprec *const *cv = (const struct caprec *const *)v;
	int rc = CTL_EXIT_OK;

	if (!parse_recs(ctx, recs, n, v) || same_search(ctx, cv, n)) {
		rc = CTL_EXIT_ERROR;
		goto fail;
	}
	if (ctx->json) {
		json_object *j = capview_json_recs(cv, n);

		printf("%s\n", fmt_json_string(j));
		json_object_put(j);
	} else if (n > 1)
		capview_compare_recs(cv, n, stdout);
	else
		capview_print_recs(cv, n, steps, stdout);
	if (ctx->png != NULL)
		rc = capgraph_draw_recs(ctx, cv, n, ctx->json ? stderr :
		    stdout);
fail:
	for (int i = 0; i < n; i++)
		caprec_free(v[i]);
	free(v);
	return rc;
}

/* ---------------------------------------------------------------- follow */

static json_object *
load_id(const struct records_ctx *ctx, int64_t id, int *rc)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRId64, id);
	return records_load(ctx, buf, rc);
}

/* Print the steps of rep from *printed on; where: stdout, or stderr
 * with --json (stdout stays one JSON). */
static void
print_new_steps(const struct records_ctx *ctx, json_object *rep,
    size_t *printed)
{
	struct caprec *r = caprec_parse(rep, NULL);

	/* A record caught half-written shows its steps on the next poll,
	 * or fails cmd_capacity_show at the end, named. */
	while (r != NULL && *printed < r->nsteps)
		capview_step_line_rec(r, &r->steps[(*printed)++], ctx->json ?
		    stderr : stdout);
	caprec_free(r);
	fflush(ctx->json ? stderr : stdout);
}

/* The step now running, on stderr, when it changes. */
static void
print_progress(const struct caprec_progress *cap, double *last)
{
	char *s;

	if (cap->step == *last)
		return;
	*last = cap->step;
	s = capline_progress(cap);
	fprintf(stderr, "stressctl capacity: %s\n", s);
	free(s);
}

/* Whether search record rep says it ended, and how: *rc the exit status
 * its final state calls for (a record that does not parse: an error). */
static bool
rec_ended(json_object *rep, int *rc)
{
	struct caprec *r = caprec_parse(rep, NULL);
	bool ended = r != NULL && capview_state_ended(r->state);

	*rc = r != NULL && strcmp(r->state, "done") == 0 ? CTL_EXIT_OK :
	    CTL_EXIT_ERROR;
	caprec_free(r);
	return ended;
}

/* What following a search keeps between polls. */
struct cap_follow {
	int64_t		 id;
	json_object	*rep;		/* its record, as last loaded */
	size_t		 printed;	/* steps printed */
	double		 done, step;	/* steps_done, step, as last seen */
};

/* One poll: the step running on stderr, the steps that finished since
 * the last one from the record. */
static int
cap_poll(const struct records_ctx *ctx, void *arg, json_object *status)
{
	struct cap_follow *f = arg;
	struct caprec_progress cap = { .has = false };
	double n = -2;
	int rc = CTL_EXIT_OK;

	if (status != NULL) {
		struct recparse p;

		recparse_init(&p, "status reply");
		if (!caprec_parse_progress(&p, status, "capacity", &cap)) {
			char *err = recparse_take_error(&p);

			records_error(ctx, "%s", err);
			free(err);
			return CTL_EXIT_ERROR;
		}
		n = isnan(cap.steps_done) ? 0 : cap.steps_done;
		print_progress(&cap, &f->step);
	}
	/* Gone from status: read the record again until it says so. */
	if (n != f->done || f->rep == NULL || status == NULL) {
		json_object_put(f->rep);
		if ((f->rep = load_id(ctx, f->id, &rc)) == NULL)
			return rc;
		f->done = n;
		print_new_steps(ctx, f->rep, &f->printed);
	}
	return status == NULL && rec_ended(f->rep, &rc) ? FOLLOW_ENDED :
	    FOLLOW_ON;
}

/* Follow search id to its end, then show its record. */
static int
follow(const struct records_ctx *ctx, int64_t id)
{
	struct ctl *ctl = ctx->call_arg;
	struct cap_follow f = { .id = id, .done = -1, .step = -1 };
	struct follow_job j = { "capacity", "search", "capacity_id",
	    ctl->cap_detach, ctl->cap_int_stop, cap_poll, &f };
	bool stopping;
	int rc;

	if ((rc = follow_run(ctx, &j, id, &stopping)) != FOLLOW_ENDED)
		goto out;
	if (f.rep == NULL && (f.rep = load_id(ctx, id, &rc)) == NULL)
		goto out;
	if (!ctx->json)
		putchar('\n');
	rc = cmd_capacity_show(ctx, &f.rep, 1, false);
	if (rc == CTL_EXIT_OK)
		rec_ended(f.rep, &rc);
	if (stopping && rc == CTL_EXIT_ERROR)
		rc = 128 + SIGINT;
out:
	json_object_put(f.rep);
	return rc;
}

/* The id of the running search, else of the last recorded one; 0 if
 * there is none. */
static int64_t
find_search(const struct records_ctx *ctx, bool *running, int *rc)
{
	struct runsrec *rs;
	int64_t id = follow_running(ctx, "capacity", rc);

	*running = id > 0;
	if (id != 0)
		return id;
	if ((rs = records_runs_read(ctx, 0, 0, rc)) == NULL)
		return -1;
	for (size_t i = 0; i < rs->nruns; i++)
		if (runsrec_is_capacity(&rs->runs[i]))
			id = rs->runs[i].id.has ? (int64_t)rs->runs[i].id.d : 0;
	runsrec_free(rs);
	return id;
}

static int
attach(const struct records_ctx *ctx)
{
	json_object *rep;
	bool running;
	int rc = CTL_EXIT_OK;
	int64_t id = find_search(ctx, &running, &rc);

	if (id < 0)
		return rc;
	if (id == 0) {
		records_error(ctx, "no capacity search running or recorded");
		return CTL_EXIT_ERROR;
	}
	if (running) {
		fprintf(stderr, "stressctl capacity: following search %" PRId64
		    "\n", id);
		return follow(ctx, id);
	}
	if ((rep = load_id(ctx, id, &rc)) == NULL)
		return rc;
	if ((rc = cmd_capacity_show(ctx, &rep, 1, true)) == CTL_EXIT_OK)
		rec_ended(rep, &rc);
	json_object_put(rep);
	return rc;
}

/* The request: the run knobs, "dirs" for --dir, "labels" for the
 * --label after each (an unlabelled one gets ""), when any is given. */
static json_object *
request_args(struct ctl *ctl)
{
	json_object *args = NULL, *dirs, *labels;
	bool labelled = false;

	if (json_object_deep_copy(ctl->args, &args, NULL) != 0)
		fmt_nomem(NULL);
	dirs = fmt_nomem(json_object_new_array());
	labels = fmt_nomem(json_object_new_array());
	for (int i = 0; i < ctl->nsweep_dirs; i++) {
		const char *l = ctl->sweep_labels[i];

		json_object_array_add(dirs,
		    json_object_new_string(ctl->sweep_dirs[i]));
		json_object_array_add(labels, json_object_new_string(l != NULL ?
		    l : ""));
		labelled = labelled || l != NULL;
	}
	json_object_object_add(args, "dirs", dirs);
	if (labelled)
		json_object_object_add(args, "labels", labels);
	else
		json_object_put(labels);
	return args;
}

static int
run_capacity(const struct records_ctx *ctx)
{
	struct ctl *ctl = ctx->call_arg;
	struct follow_job j = { "capacity", "search", "capacity_id",
	    ctl->cap_detach, ctl->cap_int_stop, NULL, NULL };
	json_object *args;
	int64_t id;
	int rc = CTL_EXIT_OK;

	if (ctl->cap_attach)
		return attach(ctx);
	args = request_args(ctl);
	id = follow_start(ctx, &j, args, &rc);
	json_object_put(args);
	return id > 0 ? follow(ctx, id) : rc;
}

/* ---------------------------------------------------------------- parse */

static int
search_option(struct ctl *ctl, const struct search_opt *o)
{
	char what[32];
	double d;
	int ret;

	snprintf(what, sizeof(what), "--%s", o->opt);
	if ((ret = options_number(ctl->cmd, what, optarg, o->min, o->max,
	    o->integer, &d)) != PARSE_OK)
		return ret;
	if (o->open_max && (d <= o->min || d >= o->max)) {
		options_usage_error(ctl->cmd, "%s: '%s' must be above %g and "
		    "below %g", what, optarg, o->min, o->max);
		return CTL_EXIT_USAGE;
	}
	if (o->open_min && d <= o->min) {
		options_usage_error(ctl->cmd, "%s: '%s' must be above %g",
		    what, optarg, o->min);
		return CTL_EXIT_USAGE;
	}
	json_object_object_add(ctl->args, o->key, o->integer ?
	    json_object_new_int64((int64_t)d) : json_object_new_double(d));
	return PARSE_OK;
}

static int
capacity_option(struct ctl *ctl, int c)
{
	if (c >= OPT_CAP_SEARCH && c < OPT_CAP_SEARCH + (int)NSEARCH)
		return search_option(ctl, &search_opts[c - OPT_CAP_SEARCH]);
	return options_job(ctl, c);
}

/* The value of search key (given, else the daemon's default). */
static double
search_value(const struct ctl *ctl, size_t i)
{
	json_object *v;

	if (json_object_object_get_ex(ctl->args, search_opts[i].key, &v))
		return json_object_get_double(v);
	return search_opts[i].def;
}

/* A pair of search options that must be in order: a <= b (strict: <). */
static int
check_order(struct ctl *ctl, size_t a, size_t b, bool strict)
{
	double x = search_value(ctl, a), y = search_value(ctl, b);
	bool given_b = json_object_object_get_ex(ctl->args,
	    search_opts[b].key, NULL);
	const struct search_opt *named = given_b ? &search_opts[b] :
	    &search_opts[a], *other = given_b ? &search_opts[a] :
	    &search_opts[b];

	if (strict ? x < y : x <= y)
		return PARSE_OK;
	options_usage_error(ctl->cmd, "--%s: %g is %s --%s (%g%s)", named->opt,
	    given_b ? y : x, given_b ? strict ? "not above" : "below" :
	    strict ? "not below" : "above", other->opt, given_b ? x : y,
	    json_object_object_get_ex(ctl->args, other->key, NULL) ? "" :
	    ", its default");
	return CTL_EXIT_USAGE;
}

/* What the options must add up to, checked before anything is sent. */
static int
check_capacity(struct ctl *ctl)
{
	int ret;

	if (ctl->cap_attach && (ctl->nsweep_dirs > 0 ||
	    json_object_object_length(ctl->args) > 0 || ctl->cap_detach)) {
		options_usage_error(ctl->cmd, "--attach follows the running or "
		    "last search: no --dir, --detach nor run options");
		return CTL_EXIT_USAGE;
	}
	if (ctl->nsweep_dirs > CMD_CAPACITY_MAX_DIRS) {
		options_usage_error(ctl->cmd, "--dir: at most %d directories",
		    CMD_CAPACITY_MAX_DIRS);
		return CTL_EXIT_USAGE;
	}
	/* start_rate <= max_rate, step_min <= step_max, settle < step_min */
	if ((ret = check_order(ctl, 0, 1, false)) != PARSE_OK ||
	    (ret = check_order(ctl, 3, 4, false)) != PARSE_OK ||
	    (ret = check_order(ctl, 5, 3, true)) != PARSE_OK)
		return ret;
	return PARSE_OK;
}

static int
parse_capacity(struct ctl *ctl, int argc, char **argv)
{
	int ret;

	/* --attach takes no --dir: look for it before the dirs are
	 * required. */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--attach") == 0)
			ctl->cap_attach = true;
	if ((ret = cmd_start_options(ctl, argc, argv, true)) != PARSE_OK)
		return ret;
	return check_capacity(ctl);
}

const struct ctl_cmd cmd_capacity_entry = {
	.name = "capacity",
	.usage = "--dir DIR... [options]",
	.summary = "find the highest update rate each directory sustains",
	.details =
	    "stressd searches, directory by directory, for the highest "
	    "offered rate\n(updates/s) the storage keeps up with: the same "
	    "files (created once per\ndirectory, with the same knobs) get "
	    "steps of one rate each, growing\ngeometrically from "
	    "--start-rate until a step falls behind, then bisecting\nbetween "
	    "the last rate that kept up and the first that did not until they "
	    "are\nwithin --precision.  A step kept up by the rule of any run: "
	    "its significant\nqueue steady after --settle (not growing: see "
	    "stressd(8), Steady), nothing\ndropped or failed, and the values "
	    "of its steady window landing within the\nlatency bound "
	    "(enqueue_to_persist p99); a step that cannot tell by\n"
	    "--step-max counts as not kept up.\n"
	    "The search runs in stressd: it survives this process.\n\n"
	    "One line per finished step, then per directory: its capacity, "
	    "as\n\"each file updated every N s\" too, the queue and latency at "
	    "it, the first\nrate that fell behind and how, and what limited "
	    "it (the storage; this\nmachine's CPU: the figure is then the "
	    "tool's ceiling, not the storage's;\nmax_rate), then a ranking: "
	    "one directory is ahead of the next only when\ntheir brackets do "
	    "not overlap, else they are within the precision.\n\nOptions:\n"
	    "  --dir DIR           a directory to search (repeatable, 1 to 16)\n"
	    "  --profile P         the run knobs of [profile P] of stressd.conf\n"
	    "  --start-rate N      the rates' start: the first step runs at N x a "
	    "random\n                      factor from 1 to 1.999 (default 100)\n"
	    "  --max-rate N        never offer more (default 1000000)\n"
	    "  --precision PCT     bisect until the bracket is within PCT %, "
	    "above 0 and\n                      below 100 (default 10)\n"
	    "  --step-min S        load of a step before it may end early "
	    "(default 10)\n"
	    "  --step-max S        load of a step at most (default 30)\n"
	    "  --settle S          start of a step not judged, below "
	    "--step-min (default 2)\n"
	    "  --repeats N         extra steps at the final kept-up rate, 0 "
	    "to 10\n                      (default 1)\n"
	    "  --graph FILE        draw how late each step's values landed "
	    "(p99 over the\n                      bound) against the rate "
	    "(log scales) into FILE, a PNG,\n                      the "
	    "capacity marked\n"
	    "  --detach            start the search and return at once\n"
	    "  --on-interrupt A    what Ctrl-C does: detach (default; the "
	    "search goes on)\n                      or stop (the current step "
	    "is drained, the search stopped)\n"
	    "  --attach            follow the running search, or show the "
	    "last one\n"
	    "  -h, --help          print this help and exit\nand every option "
	    "of start (see stressctl start --help) but --sweep-id; a --label\n"
	    "names the --dir before it; --latency-bound defaults to 5 s and\n"
	    "--sample-interval to 0.1 s in a search.  stressctl capacity "
	    "--attach\n[--on-interrupt A] takes no other option.\n\nThe exit "
	    "status is 0 "
	    "when the search is done, 1 when it failed or was\nstopped, 130 "
	    "after Ctrl-C.\n",
	.options = (const struct option[]){
		SEARCH_OPT("start-rate", 0), SEARCH_OPT("max-rate", 1),
		SEARCH_OPT("precision", 2), SEARCH_OPT("step-min", 3),
		SEARCH_OPT("step-max", 4), SEARCH_OPT("settle", 5),
		SEARCH_OPT("repeats", 6),
		{ "graph", required_argument, NULL, OPT_GRAPH },
		{ "attach", no_argument, NULL, OPT_CAP_ATTACH },
		{ "detach", no_argument, NULL, OPT_CAP_DETACH },
		{ "on-interrupt", required_argument, NULL,
		    OPT_CAP_ON_INTERRUPT },
		OPTIONS_COMMON,
		{ NULL, 0, NULL, 0 }
	},
	.option = capacity_option,
	.parse = parse_capacity,
	.run = run_capacity,
};
