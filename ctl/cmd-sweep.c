/* stressctl sweep: the same run in each of several directories, repeated
 * and interleaved, then compared as by compare, with each directory's
 * mean and spread across its repeats. */
#include "config.h"

#include <sys/stat.h>

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
#include "cmd-compare.h"
#include "cmd-graph.h"
#include "cmd-start.h"
#include "cmd-sweep.h"
#include "columns.h"
#include "fmt.h"
#include "jpath.h"
#include "knobs.h"
#include "proto.h"
#include "records.h"

/* ---------------------------------------------------------------- spread */

/* Mean, sample standard deviation (n - 1), min and max of one compare row
 * over the done runs of sweep directory d; false if fewer than two. */
struct spread {
	int	n;
	double	mean, sd, min, max;
};

static bool
sweep_spread(const struct records_ctx *ctx, json_object **reps, int n, int d,
    const char *path, struct spread *s)
{
	double sum = 0, sq = 0, x;

	memset(s, 0, sizeof(*s));
	for (int i = d; i < n; i += ctx->nsweep_dirs) {
		const char *state = jpath_str(reps[i], "state");

		/* A stopped or failed run would pull the mean. */
		if (state == NULL || strcmp(state, "done") != 0 ||
		    !jpath_num(reps[i], path, &x))
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
	for (int i = d; i < n; i += ctx->nsweep_dirs) {
		const char *state = jpath_str(reps[i], "state");

		if (state != NULL && strcmp(state, "done") == 0 &&
		    jpath_num(reps[i], path, &x))
			sq += (x - s->mean) * (x - s->mean);
	}
	s->sd = sqrt(sq / (s->n - 1));
	return true;
}

/* The rows worth a mean: numbers that vary with the storage. */
static bool
sweep_row(const struct compare_row *r)
{
	return strcmp(r->path, "state") != 0;
}

static void
sweep_text(const struct records_ctx *ctx, json_object **reps, int n)
{
	struct columns *t;
	struct spread s;
	bool any = false;
	int nd = ctx->nsweep_dirs;

	for (int d = 0; d < nd && !any; d++)
		any = sweep_spread(ctx, reps, n, d,
		    "counters.updates_completed", &s);
	if (!any)
		return;
	printf("\nAcross repeats: mean +- sample standard deviation [min, max] "
	    "of each\ndirectory's done runs\n");
	t = cmd_compare_columns('l', nd);
	columns_add(t, "%s", "");
	for (int d = 0; d < nd; d++) {
		const char *dir = ctx->sweep_dirs[d];
		const char *label = d < n ? jpath_str(reps[d], "params.label") :
		    NULL;
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
		sweep_spread(ctx, reps, n, d, "counters.updates_completed", &s);
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

			if (!sweep_spread(ctx, reps, n, d, row->path, &s)) {
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

/* {"id": ID, "directories": [{"dir", "runs", "stats": {PATH: {n, mean,
 * stddev, min, max}}}]} for --json. */
static json_object *
sweep_json(const struct records_ctx *ctx, json_object **reps, int n)
{
	json_object *o = fmt_nomem(json_object_new_object());
	json_object *dirs = fmt_nomem(json_object_new_array());
	struct spread s;

	json_object_object_add(o, "id", json_object_new_string(
	    ctx->sweep_id ? ctx->sweep_id : ""));
	for (int d = 0; d < ctx->nsweep_dirs; d++) {
		json_object *e = fmt_nomem(json_object_new_object());
		json_object *ids = fmt_nomem(json_object_new_array());
		json_object *st = fmt_nomem(json_object_new_object());

		json_object_object_add(e, "dir",
		    json_object_new_string(ctx->sweep_dirs[d]));
		json_object_object_add(e, "label", d < n ? json_object_get(
		    jpath(reps[d], "params.label")) : NULL);
		for (int i = d; i < n; i += ctx->nsweep_dirs)
			json_object_array_add(ids,
			    json_object_get(jpath(reps[i], "run_id")));
		json_object_object_add(e, "runs", ids);
		for (size_t r = 0; r < cmd_compare_nrows; r++) {
			const struct compare_row *row = &cmd_compare_rows[r];
			json_object *v;

			if (!sweep_row(row) ||
			    !cmd_compare_row_shown(reps, n, row) ||
			    !sweep_spread(ctx, reps, n, d, row->path, &s))
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
sweep_more_json(const struct records_ctx *ctx, json_object **reps, int n,
    json_object *all)
{
	json_object_object_add(all, "sweep", sweep_json(ctx, reps, n));
}

static const struct compare_more sweep_more = { sweep_text, sweep_more_json };

/* ---------------------------------------------------------------- driver */

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

/* The label of sweep directory d's runs: its --label, else the directory
 * (its end, if too long for a label), else "dir D". */
static json_object *
sweep_label(const struct ctl *ctl, int d)
{
	const struct knob *k = knobs_find("label");
	const char *dir = ctl->sweep_dirs[d];
	size_t len = strlen(dir);
	char buf[KNOBS_TEXT_MAX], err[160];

	if (ctl->sweep_labels[d] != NULL)
		return json_object_new_string(ctl->sweep_labels[d]);
	if (len < sizeof(buf))
		snprintf(buf, sizeof(buf), "%s", dir);
	else
		snprintf(buf, sizeof(buf), "...%s", dir + len -
		    (sizeof(buf) - 4));
	/* A cut character or bytes that are not UTF-8 fail the check. */
	if (knobs_check_text(k, buf, strlen(buf), err, sizeof(err)) == -1)
		snprintf(buf, sizeof(buf), "dir %d", d + 1);
	return json_object_new_string(buf);
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
		json_object_object_add(args, "dir",
		    json_object_new_string(sub));
		json_object_object_add(args, "sweep_id",
		    json_object_new_string(sweep_id));
		json_object_object_add(args, "label", sweep_label(ctl,
		    (int)(n % (unsigned long)ctl->nsweep_dirs)));
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
		if ((ids[n] = fmt_xprintf("%" PRId64, id)) == NULL ||
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
		int crc = cmd_compare_show(&cmp, &sweep_more);

		if (rc == CTL_EXIT_OK)
			rc = crc;
	}
	/* --graph: the picture of the same runs; its line goes to stderr
	 * with the progress, so stdout stays one compare (--json). */
	if (cmp.nruns > 0 && rec->png != NULL) {
		int grc;

		cmp.json = false;
		if ((grc = cmd_graph_show(&cmp, stderr)) != CTL_EXIT_OK &&
		    rc == CTL_EXIT_OK)
			rc = grc;
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

/* A paced run sampled every 1 s has too few samples in its load phase
 * for a verdict when the load is short: with --update-time and no
 * --sample-interval (nor a --profile, which may set one), sample about
 * 60 times over the load, every update_time / 60 s within 0.1 to 1 s. */
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
	if ((rc = cmd_start_options(ctl, argc, argv, true)) == PARSE_OK)
		sweep_sample_interval(ctl->args);
	return rc;
}

const struct ctl_cmd cmd_sweep_entry = {
	.name = "sweep",
	.usage = "--dir DIR... [options]",
	.summary = "run the same run in each directory and compare them",
	.details =
	    "The runs go one after another in the order A B C A B C ... (each "
	    "directory\nonce per repeat, interleaved to expose drift), all "
	    "with the same knobs, so\nthe same seed.  Each run writes fresh "
	    "files in a new subdirectory\nDIR/sweep-ID-K (K: the run's number "
	    "in the sweep), created by stressd;\nnothing is removed.  Each run "
	    "is recorded as usual, its sweep_id knob set\nto ID (s-TIME-PID, "
	    "shown by runs).  At the end the runs are compared as\nby compare, "
	    "verdicts and ranking included (a winner needs --repeat 3);\n"
	    "with --repeat above 1, each directory's mean, sample standard\n"
	    "deviation, minimum and maximum across its done runs come first.  "
	    "Progress goes to\nstderr.  With --update-time S and neither "
	    "--sample-interval nor --profile,\nthe runs sample every S/60 s "
	    "(0.1 to 1 s), enough for a verdict.\n\nOptions:\n"
	    "  --dir DIR     a directory to sweep (repeatable; at least one)\n"
	    "  --label TEXT  what the --dir before it is (its runs' label knob;\n"
	    "                default the directory): compare's heading, and\n"
	    "                how the ranking groups repeats\n"
	    "  --repeat N    runs per directory, 1 to 1000 (default 1)\n"
	    "  --profile P   start every run from [profile P] of stressd.conf\n"
	    "  --graph FILE  draw the runs' significant queues into FILE (a "
	    "PNG), as\n                by stressctl graph\n"
	    "  -h, --help    print this help and exit\nand every option of "
	    "start but --sweep-id (see stressctl start --help).\n\nCtrl-C "
	    "stops the current run with a drain, waits for it, prints the "
	    "compare\nof the runs so far (the stopped one included, not in the "
	    "means) and exits\nwith status 130; a second Ctrl-C exits at once. "
	    " A failed run does not end\nthe sweep, but the exit status is "
	    "then 1; a refused start ends it.\n",
	.parse = parse_sweep,
	.run = run_sweep,
};
