/* stressctl sweep: the same run in each of several directories, repeated
 * and interleaved, run by stressd as a job (so it outlives this process),
 * followed here, then compared as by compare, with each directory's mean
 * and spread across its repeats. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "call.h"
#include "cmd-compare.h"
#include "cmd-graph.h"
#include "cmd-start.h"
#include "cmd-sweep.h"
#include "columns.h"
#include "fmt.h"
#include "follow.h"
#include "options.h"
#include "proto.h"
#include "recparse.h"
#include "records.h"
#include "sweeprec.h"

/* The most directories a sweep takes (the daemon's limit too). */
#define CMD_SWEEP_MAX_DIRS	64

/* The record being shown, for --json's "sweep" (compare_more's views
 * take no argument of their own). */
static const struct sweeprec *shown;

/* ---------------------------------------------------------------- spread */

/* Mean, sample standard deviation (n - 1), min and max of one compare row
 * over the done runs of sweep directory d; false if fewer than two. */
struct spread {
	int	n;
	double	mean, sd, min, max;
};

/* Row's value of a done run into *x; false for another run or none. */
static bool
done_value(const struct runrec *r, const struct compare_row *row, double *x)
{
	const struct recparse_number *v = cmd_compare_number(r, row);

	if (strcmp(r->state, "done") != 0 || v == NULL || !v->has)
		return false;
	*x = v->d;
	return true;
}

static bool
sweep_spread(const struct records_ctx *ctx, const struct runrec *const *reps,
    int n, int d, const struct compare_row *row, struct spread *s)
{
	double sum = 0, sq = 0, x;

	memset(s, 0, sizeof(*s));
	for (int i = d; i < n; i += ctx->nsweep_dirs) {
		/* A stopped or failed run would pull the mean. */
		if (!done_value(reps[i], row, &x))
			continue;
		if (s->n == 0 || x < s->min)
			s->min = x;
		if (s->n == 0 || x > s->max)
			s->max = x;
		sum += x;
		s->n++;
	}
	if (s->n < 2)
		return false;
	s->mean = sum / s->n;
	for (int i = d; i < n; i += ctx->nsweep_dirs)
		if (done_value(reps[i], row, &x))
			sq += (x - s->mean) * (x - s->mean);
	s->sd = sqrt(sq / (s->n - 1));
	return true;
}

/* The rows worth a mean: numbers that vary with the storage. */
static bool
sweep_row(const struct compare_row *r)
{
	return r->off != CMD_COMPARE_STATE;
}

static void
sweep_text(const struct records_ctx *ctx, const struct runrec *const *reps,
    int n)
{
	struct columns *t;
	struct spread s;
	bool any = false;
	int nd = ctx->nsweep_dirs;

	for (int d = 0; d < nd && !any; d++)
		any = sweep_spread(ctx, reps, n, d,
		    &cmd_compare_rows[CMD_COMPARE_DONE], &s);
	if (!any)
		return;
	printf("\nAcross repeats: mean +- sample standard deviation [min, max] "
	    "of each\ndirectory's done runs\n");
	t = cmd_compare_columns('l', nd);
	columns_add(t, "%s", "");
	for (int d = 0; d < nd; d++) {
		const char *dir = ctx->sweep_dirs[d];
		const char *label = d < n ? reps[d]->label : NULL;
		size_t len = strlen(dir);

		if (label != NULL && *label != '\0')
			columns_add(t, "%s", label);
		else if (len > CMD_COMPARE_MIN_COL)
			columns_add(t, "...%s", dir + len -
			    (CMD_COMPARE_MIN_COL - 3));
		else
			columns_add(t, "%s", dir);
	}
	columns_add(t, "done runs");
	for (int d = 0; d < nd; d++) {
		sweep_spread(ctx, reps, n, d,
		    &cmd_compare_rows[CMD_COMPARE_DONE], &s);
		columns_add(t, "%d", s.n);
	}
	for (size_t r = 0; r < cmd_compare_nrows; r++) {
		const struct compare_row *row = &cmd_compare_rows[r];
		const char *fmt = row->dfmt ? row->dfmt : "%.1f";

		if (!sweep_row(row) || !cmd_compare_row_shown(reps, n, row))
			continue;
		columns_add(t, "%s", row->label);
		for (int d = 0; d < nd; d++) {
			char *m, *sd, *lo, *hi;

			if (!sweep_spread(ctx, reps, n, d, row, &s)) {
				columns_add(t, "-");
				continue;
			}
			m = fmt_xprintf(fmt, s.mean);
			sd = fmt_xprintf(fmt, s.sd);
			lo = fmt_xprintf(fmt, s.min);
			hi = fmt_xprintf(fmt, s.max);
			columns_add(t, "%s +- %s [%s, %s]", m, sd, lo, hi);
			free(m);
			free(sd);
			free(lo);
			free(hi);
		}
	}
	columns_print(t, stdout, 0);
	columns_free(t);
}

/* {"id": ID, "record": N, "state", "directories": [{"dir", "runs",
 * "stats": {PATH: {n, mean, stddev, min, max}}}]} for --json: the
 * sweep's record id and final state are the job's. */
static json_object *
sweep_json(const struct records_ctx *ctx, const struct runrec *const *reps,
    int n)
{
	json_object *o = fmt_nomem(json_object_new_object());
	json_object *dirs = fmt_nomem(json_object_new_array());
	struct spread s;

	json_object_object_add(o, "id", json_object_new_string(
	    ctx->sweep_id ? ctx->sweep_id : ""));
	json_object_object_add(o, "record", json_object_new_int64(shown->id));
	json_object_object_add(o, "state", json_object_new_string(
	    shown->state));
	for (int d = 0; d < ctx->nsweep_dirs; d++) {
		json_object *e = fmt_nomem(json_object_new_object());
		json_object *ids = fmt_nomem(json_object_new_array());
		json_object *st = fmt_nomem(json_object_new_object());

		json_object_object_add(e, "dir",
		    json_object_new_string(ctx->sweep_dirs[d]));
		json_object_object_add(e, "label",
		    d < n && reps[d]->label != NULL ?
		    json_object_new_string(reps[d]->label) : NULL);
		for (int i = d; i < n; i += ctx->nsweep_dirs)
			json_object_array_add(ids,
			    json_object_new_int64(reps[i]->run_id));
		json_object_object_add(e, "runs", ids);
		for (size_t r = 0; r < cmd_compare_nrows; r++) {
			const struct compare_row *row = &cmd_compare_rows[r];
			json_object *v;

			if (!sweep_row(row) ||
			    !cmd_compare_row_shown(reps, n, row) ||
			    !sweep_spread(ctx, reps, n, d, row, &s))
				continue;
			v = fmt_nomem(json_object_new_object());
			json_object_object_add(v, "n",
			    json_object_new_int(s.n));
			json_object_object_add(v, "mean",
			    json_object_new_double(s.mean));
			json_object_object_add(v, "stddev",
			    json_object_new_double(s.sd));
			json_object_object_add(v, "min",
			    json_object_new_double(s.min));
			json_object_object_add(v, "max",
			    json_object_new_double(s.max));
			json_object_object_add(st, row->path, v);
		}
		json_object_object_add(e, "stats", st);
		json_object_array_add(dirs, e);
	}
	json_object_object_add(o, "directories", dirs);
	return o;
}

static void
sweep_more_json(const struct records_ctx *ctx,
    const struct runrec *const *reps, int n, json_object *all)
{
	json_object_object_add(all, "sweep", sweep_json(ctx, reps, n));
}

static const struct compare_more sweep_more = { sweep_text, sweep_more_json };

/* ---------------------------------------------------------------- follow */

/* What following a sweep keeps between polls. */
struct sweep_follow {
	int64_t		 id;
	struct sweeprec	*rec;		/* its record, as last loaded */
	size_t		 started, ended;	/* runs whose line is printed */
	double		 run, done;	/* status's run, runs_done, as seen */
};

/* The sweep record of sweep id (its first run's), read; NULL with *rc
 * (the error said when it does not parse). */
static struct sweeprec *
load_record(const struct records_ctx *ctx, int64_t id, int *rc)
{
	json_object *args = fmt_nomem(json_object_new_object()), *o;
	struct sweeprec *rec;
	char *err = NULL;

	json_object_object_add(args, "run", json_object_new_int64(id));
	json_object_object_add(args, "kind", json_object_new_string("sweep"));
	o = ctx->call(ctx->call_arg, "report", args, rc);
	json_object_put(args);
	if (o == NULL)
		return NULL;
	if ((rec = sweeprec_parse(o, &err)) == NULL) {
		records_error(ctx, "%s", err);
		free(err);
		*rc = CTL_EXIT_ERROR;
	}
	json_object_put(o);
	return rec;
}

/* Each run's start and end on stderr, as the record lists them, from
 * what was printed on. */
static void
print_runs(struct sweep_follow *f)
{
	const struct sweeprec *rec = f->rec;

	while (f->ended < rec->nruns) {
		const struct sweeprec_run *r = &rec->runs[f->ended];

		if (f->started <= f->ended) {
			fprintf(stderr, "stressctl sweep: run %" PRId64 " (%"
			    PRId64 " of %.0f) in %s\n", r->run_id, r->n,
			    isnan(rec->runs_planned) ? 0 : rec->runs_planned,
			    r->dir ? r->dir : "?");
			f->started = f->ended + 1;
		}
		if (strcmp(r->state, "running") == 0)
			break;
		fprintf(stderr, "stressctl sweep: run %" PRId64 " %s\n",
		    r->run_id, r->state);
		f->ended++;
	}
}

/* One poll: the record again when a run started or ended. */
static int
sweep_poll(const struct records_ctx *ctx, void *arg, json_object *status)
{
	struct sweep_follow *f = arg;
	struct sweeprec_where w = { .has = false };
	double run = -1, done = -1;
	int rc = CTL_EXIT_OK;

	if (status != NULL) {
		struct recparse p;

		recparse_init(&p, "status reply");
		if (!sweeprec_parse_where(&p, status, "sweep", &w)) {
			char *err = recparse_take_error(&p);

			records_error(ctx, "%s", err);
			free(err);
			return CTL_EXIT_ERROR;
		}
		run = isnan(w.run) ? 0 : w.run;
		done = isnan(w.runs_done) ? 0 : w.runs_done;
	}
	/* Gone from status: read the record again until it says so. */
	if (run != f->run || done != f->done || f->rec == NULL ||
	    status == NULL) {
		sweeprec_free(f->rec);
		if ((f->rec = load_record(ctx, f->id, &rc)) == NULL)
			return rc;
		f->run = run;
		f->done = done;
		print_runs(f);
	}
	return status == NULL && records_state_ended(f->rec->state) ?
	    FOLLOW_ENDED : FOLLOW_ON;
}

/* ---------------------------------------------------------------- show */

/*
 * The runs of sweep record rec compared as compare does, with the
 * spread table, then --graph.  stopped: a Ctrl-C of ours stopped it.
 * Returns the exit status: 1 when a run failed or the sweep did not
 * complete, 130 after our stop.
 */
static int
show(const struct records_ctx *ctx, const struct sweeprec *rec, bool stopped)
{
	struct records_ctx cmp = *ctx;
	char **ids = fmt_nomem(calloc(rec->nruns + 1, sizeof(*ids)));
	char **dnames = fmt_nomem(calloc(rec->ndirs + 1, sizeof(*dnames)));
	int rc = CTL_EXIT_OK, failed = 0;

	for (size_t i = 0; i < rec->nruns; i++) {
		ids[i] = fmt_xprintf("%" PRId64, rec->runs[i].run_id);
		failed |= strcmp(rec->runs[i].state, "failed") == 0;
	}
	for (size_t d = 0; d < rec->ndirs; d++)
		dnames[d] = fmt_xstrdup(rec->dirs[d].dir);
	cmp.runs = ids;
	cmp.nruns = (int)rec->nruns;
	cmp.name = "sweep";
	cmp.sweep_dirs = dnames;
	cmp.nsweep_dirs = (int)rec->ndirs;
	cmp.sweep_id = rec->sweep_id;
	shown = rec;
	if (cmp.nruns > 0 && cmp.nsweep_dirs > 0)
		rc = cmd_compare_show(&cmp, &sweep_more);
	/* --graph: the picture of the same runs; its line goes to stderr
	 * with the progress, so stdout stays one compare (--json). */
	if (cmp.nruns > 0 && cmp.nsweep_dirs > 0 && ctx->png != NULL) {
		int grc;

		cmp.json = false;
		if ((grc = cmd_graph_show(&cmp, stderr)) != CTL_EXIT_OK &&
		    rc == CTL_EXIT_OK)
			rc = grc;
	}
	shown = NULL;
	fprintf(stderr, "stressctl sweep: sweep %" PRId64 " (%s) %s%s%s\n",
	    rec->id, cmp.sweep_id ? cmp.sweep_id : "?", rec->state,
	    rec->reason && *rec->reason ? ": " : "",
	    rec->reason ? rec->reason : "");
	for (size_t i = 0; i < rec->nruns; i++)
		free(ids[i]);
	for (size_t d = 0; d < rec->ndirs; d++)
		free(dnames[d]);
	free(ids);
	free(dnames);
	if (stopped)
		return 128 + SIGINT;
	if (rc == CTL_EXIT_OK && (failed || strcmp(rec->state, "done") != 0))
		rc = CTL_EXIT_ERROR;
	return rc;
}

/* Follow sweep id to its end, then show it. */
static int
follow(const struct records_ctx *ctx, const struct follow_job *j,
    int64_t id)
{
	struct sweep_follow f = { .id = id, .run = -2, .done = -2 };
	struct follow_job fj = *j;
	bool stopped;
	int rc;

	fj.poll = sweep_poll;
	fj.arg = &f;
	if ((rc = follow_run(ctx, &fj, id, &stopped)) == FOLLOW_ENDED &&
	    (f.rec != NULL || (f.rec = load_record(ctx, id, &rc)) != NULL))
		rc = show(ctx, f.rec, stopped);
	sweeprec_free(f.rec);
	return rc;
}

/* The last sweep recorded: its first run's id, found as the first run
 * of the last run's sweep_id; 0 if none. */
static int64_t
last_sweep(const struct records_ctx *ctx, int *rc)
{
	struct runsrec *rs;
	const char *sid = NULL;
	int64_t id = 0;
	size_t n;

	if ((rs = records_runs_read(ctx, 0, 0, rc)) == NULL)
		return -1;
	n = rs->nruns;
	for (size_t i = n; i-- > 0 && sid == NULL;) {
		sid = rs->runs[i].sweep_id;
		if (sid != NULL && *sid == '\0')
			sid = NULL;
	}
	for (size_t i = 0; sid != NULL && i < n && id == 0; i++) {
		const struct runsrec_run *r = &rs->runs[i];

		if (r->sweep_id != NULL && strcmp(r->sweep_id, sid) == 0)
			id = r->id.has ? (int64_t)r->id.d : 0;
	}
	runsrec_free(rs);
	return id;
}

/* --attach [ID]: follow the running sweep (or ID), else show ID or the
 * last one. */
static int
attach(const struct records_ctx *ctx, const struct follow_job *j)
{
	struct sweeprec *rec;
	int rc = CTL_EXIT_OK;
	int64_t running = follow_running(ctx, "sweep", &rc), id;

	if (running < 0)
		return rc;
	id = ctx->nruns > 0 ? strtoll(ctx->runs[0], NULL, 10) : running > 0 ?
	    running : last_sweep(ctx, &rc);
	if (id < 0)
		return rc;
	if (id == 0) {
		records_error(ctx, "no sweep running or recorded");
		return CTL_EXIT_ERROR;
	}
	if (id == running) {
		fprintf(stderr, "stressctl sweep: following sweep %" PRId64
		    "\n", id);
		return follow(ctx, j, id);
	}
	if ((rec = load_record(ctx, id, &rc)) == NULL)
		return rc;
	rc = show(ctx, rec, false);
	sweeprec_free(rec);
	return rc;
}

/* The request: the run knobs, "dirs" for --dir, "labels" for the
 * --label after each (an unlabelled one gets ""), when any is given,
 * "repeat". */
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
	json_object_object_add(args, "repeat",
	    json_object_new_int64((int64_t)ctl->repeat));
	return args;
}

/* The sweep command (a record command: it makes its own requests). */
static int
run_sweep(const struct records_ctx *ctx)
{
	struct ctl *ctl = ctx->call_arg;
	struct follow_job j = { "sweep", "sweep", "id", ctl->cap_detach,
	    ctl->cap_int_stop, NULL, NULL };
	json_object *args;
	int64_t id;
	int rc = CTL_EXIT_OK;

	if (ctl->cap_attach)
		return attach(ctx, &j);
	args = request_args(ctl);
	id = follow_start(ctx, &j, args, &rc);
	json_object_put(args);
	return id > 0 ? follow(ctx, &j, id) : rc;
}

/* ---------------------------------------------------------------- parse */

/* A paced run sampled every 1 s has too few samples in its load phase
 * for a verdict when the load is short: with --update-time and no
 * --sample-interval (nor a --profile, which may set one), sample about
 * 60 times over the load, every update_time / 60 s within 0.1 to 1 s.
 * (stressd does the same for a request without one; set here, the
 * request says what the runs get.) */
static void
sweep_sample_interval(json_object *args)
{
	json_object *ut;
	double si;

	if (json_object_object_get_ex(args, "sample_interval", NULL) ||
	    json_object_object_get_ex(args, "profile", NULL) ||
	    !json_object_object_get_ex(args, "update_time", &ut))
		return;
	si = fmin(1, fmax(0.1, json_object_get_double(ut) / 60));
	json_object_object_add(args, "sample_interval",
	    json_object_new_double(round(si * 1000) / 1000));
}

static int
parse_sweep(struct ctl *ctl, int argc, char **argv)
{
	int rc;

	ctl->repeat = 1;
	/* --attach takes no --dir: look for it before the dirs are
	 * required. */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--attach") == 0)
			ctl->cap_attach = true;
	if ((rc = cmd_start_options(ctl, argc, argv, true)) != PARSE_OK)
		return rc;
	if (ctl->cap_attach && (ctl->nsweep_dirs > 0 ||
	    json_object_object_length(ctl->args) > 0 || ctl->cap_detach ||
	    ctl->repeat != 1)) {
		options_usage_error(ctl->cmd, "--attach follows the running or "
		    "last sweep: no --dir, --detach, --repeat nor run options");
		return CTL_EXIT_USAGE;
	}
	if (!ctl->cap_attach && ctl->rec.nruns > 0) {
		options_usage_error(ctl->cmd, "unexpected argument '%s' (a "
		    "sweep id goes with --attach)", ctl->rec.runs[0]);
		return CTL_EXIT_USAGE;
	}
	if (ctl->rec.nruns > 0 && records_is_path(ctl->rec.runs[0])) {
		options_usage_error(ctl->cmd, "--attach ID: '%s' is not a "
		    "sweep id", ctl->rec.runs[0]);
		return CTL_EXIT_USAGE;
	}
	if (ctl->nsweep_dirs > CMD_SWEEP_MAX_DIRS) {
		options_usage_error(ctl->cmd, "--dir: at most %d directories",
		    CMD_SWEEP_MAX_DIRS);
		return CTL_EXIT_USAGE;
	}
	sweep_sample_interval(ctl->args);
	return PARSE_OK;
}

const struct ctl_cmd cmd_sweep_entry = {
	.name = "sweep",
	.usage = "--dir DIR... [options] | --attach [ID]",
	.summary = "run the same run in each directory and compare them",
	.details =
	    "stressd runs the sweep (it survives this process and the ssh "
	    "session that\nstarted it).  The runs go one after another in the "
	    "order A B C A B C ...\n(each directory once per repeat, "
	    "interleaved to expose drift), all with the\nsame knobs, so the "
	    "same seed.  Each run writes fresh files in a new\nsubdirectory "
	    "DIR/sweep-ID-K (K: the run's number in the sweep), created by\n"
	    "stressd; nothing is removed.  Each run is recorded as usual, its "
	    "sweep_id\nknob set to ID (s-TIME-N, shown by runs); the sweep's "
	    "record is sweep.json\nin the directory of its first run, N.  At "
	    "the end the runs are compared as\nby compare, verdicts and "
	    "ranking included (a winner needs --repeat 3);\nwith --repeat "
	    "above 1, each directory's mean, sample standard\ndeviation, "
	    "minimum and maximum across its done runs come first.  Progress\n"
	    "goes to stderr.  With --update-time S and neither "
	    "--sample-interval nor\n--profile, the runs sample every S/60 s "
	    "(0.1 to 1 s), enough for a verdict.\n\nOptions:\n"
	    "  --dir DIR       a directory to sweep (repeatable, 1 to 64)\n"
	    "  --label TEXT    what the --dir before it is (its runs' label "
	    "knob;\n                  default the directory): compare's "
	    "heading, and how\n                  the ranking groups repeats\n"
	    "  --repeat N      runs per directory, 1 to 1000 (default 1)\n"
	    "  --profile P     start every run from [profile P] of "
	    "stressd.conf\n"
	    "  --graph FILE    draw the runs' significant queues into FILE (a "
	    "PNG), as\n                  by stressctl graph\n"
	    "  --detach        start the sweep and return at once\n"
	    "  --on-interrupt A  what Ctrl-C does: detach (default; the sweep "
	    "goes on)\n                  or stop (the current run is drained, "
	    "the sweep stopped)\n"
	    "  --attach [ID]   follow the running sweep (or sweep ID), or show "
	    "the last\n                  one (or ID) when none runs\n"
	    "  -h, --help      print this help and exit\nand every option of "
	    "start but --sweep-id (see stressctl start --help).\n"
	    "stressctl sweep --attach [ID] [--on-interrupt A] takes no other "
	    "option.\n\nCtrl-C detaches: the sweep goes on in stressd "
	    "(stressctl sweep --attach\nfollows it again, stressctl stop "
	    "stops it).  With --on-interrupt stop it\nstops the current run "
	    "with a drain, waits for it, prints the compare of the\nruns so "
	    "far (the stopped one included, not in the means) and exits with\n"
	    "status 130; a second Ctrl-C detaches.  A failed run does not end "
	    "the sweep,\nbut the exit status is then 1, as it is when the "
	    "sweep is stopped by\nanother client or a refused start ends "
	    "it.\n",
	.options = (const struct option[]){
		{ "repeat", required_argument, NULL, OPT_REPEAT },
		{ "graph", required_argument, NULL, OPT_GRAPH },
		{ "attach", no_argument, NULL, OPT_CAP_ATTACH },
		{ "detach", no_argument, NULL, OPT_CAP_DETACH },
		{ "on-interrupt", required_argument, NULL,
		    OPT_CAP_ON_INTERRUPT },
		OPTIONS_COMMON,
		{ NULL, 0, NULL, 0 }
	},
	.option = options_job,
	.max_runs = 1,
	.parse = parse_sweep,
	.run = run_sweep,
};
