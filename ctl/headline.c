/* stressctl's concise views (see headline.h): what a person asks of a run
 * first, in a few lines; every counter stays one --all away.  The verdict
 * and the warnings are the daemon's: shown, never worked out here. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capline.h"
#include "fmt.h"
#include "headline.h"
#include "statusrec.h"
#include "knobs.h"
#include "replyview.h"
#include "text.h"
#include "verdicts.h"
#include "records.h"
#include "statsrec.h"
#include "sweeprec.h"

/* The label column of the headline. */
#define LABEL_WIDTH	11

double
headline_eta(double max, double generated, double done, double elapsed,
    double update_time, double backlog, double rate)
{
	double eta;

	if (max <= 0)
		return -1;
	if (done >= max)
		return 0;
	if (update_time > 0) {
		eta = generated < max ? (max - generated) * update_time / max :
		    0;
		if (backlog > 0 && rate > 0)
			eta += backlog / rate;
		else if (backlog > 0 && generated >= max)
			return -1;	/* draining, at no pace seen yet */
		/* Behind its schedule (the writers hold the generators
		 * back), a run takes what is left at the rate seen, if
		 * that is longer. */
		if (generated < max * fmin(1, elapsed / update_time) &&
		    rate > 0)
			eta = fmax(eta, (max - done) / rate);
		return eta;
	}
	if (elapsed <= 0 || done <= 0)
		return -1;
	return (max - done) / (done / elapsed);
}

void
headline_eta_text(double eta, char *buf, size_t len)
{
	long s = (long)llround(eta);

	if (eta < 0)
		snprintf(buf, len, "?");
	else if (s >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60,
		    s % 60);
	else
		snprintf(buf, len, "%ld:%02ld", s / 60, s % 60);
}

/* "label  text", text wrapped at spaces under its first column. */
static void
line(const char *label, const char *text)
{
	size_t width = RECORDS_TEXT_WIDTH - LABEL_WIDTH - 2, n;

	printf("%-*s  ", LABEL_WIDTH, label);
	while (strlen(text) > width) {
		for (n = width; n > 0 && text[n] != ' '; n--)
			;
		if (n == 0)
			break;		/* one long word: left whole */
		printf("%.*s\n%*s", (int)n, text, LABEL_WIDTH + 2, "");
		text += n + 1;
	}
	printf("%s\n", text);
}

/* text's first line only, cut at a blank with an ellipsis: a warning in
 * the headline (the whole of it is in `report` and --all).  True if cut. */
static bool
first_line(const char *label, const char *text)
{
	size_t width = RECORDS_TEXT_WIDTH - LABEL_WIDTH - 2 - 4, n;

	if (strlen(text) <= width + 4) {
		line(label, text);
		return false;
	}
	for (n = width; n > 0 && text[n] != ' '; n--)
		;
	if (n == 0)
		n = text_cut(text, width);
	printf("%-*s  %.*s ...\n", LABEL_WIDTH, label, (int)n, text);
	return true;
}

static void
linef(const char *label, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
linef(const char *label, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = fmt_vxprintf(fmt, ap);
	va_end(ap);
	line(label, s);
	free(s);
}

/* "1000/s", "1667/s", "33.3/s". */
static char *
per_second(double v)
{
	return fmt_xprintf(v >= 100 ? "%.0f/s" : "%.3g/s", v);
}

/* stats' NAN (absent) counted as 0, as the views always have. */
static double
z(double x)
{
	return isnan(x) ? 0 : x;
}

/* "; paced at 1000/s", "; flat out", or "" from an older stressd. */
static char *
pace_text(const struct statsrec *st)
{
	char *pace, *t;

	if (isnan(st->update_time))
		return fmt_xstrdup("");
	if (st->update_time <= 0)
		return fmt_xstrdup("; flat out");
	pace = per_second(z(st->max_updates) / st->update_time);
	t = fmt_xprintf("; paced at %s", pace);
	free(pace);
	return t;
}

static void
progress_line(const struct statsrec *st, bool ended)
{
	double max = z(st->max_updates), gen = z(st->generated);
	double done = z(st->updates_completed) + z(st->updates_failed) +
	    z(st->dropped) + z(st->discarded);
	char eta[32];

	headline_eta_text(headline_eta(max, gen, done, z(st->elapsed_s),
	    z(st->update_time), z(st->total_operations_pending),
	    z(st->rates.current_dequeue)), eta, sizeof(eta));
	linef("progress", "%.0f/%.0f generated (%.1f%%), %.0f completed%s%s",
	    gen, max, max > 0 ? 100 * gen / max : 0,
	    z(st->updates_completed), ended ? "" : ", ETA ", ended ? "" : eta);
}

/* The two queues now and on average (stressd's queue_average). */
static void
queue_lines(const struct statsrec *st)
{
	double samples = z(st->avg_samples);

	if (isnan(st->avg_significant))
		linef("significant", "%.0f pending now",
		    z(st->significant_ops_pending));
	else
		linef("significant", "%.0f pending now, %.2f on average",
		    z(st->significant_ops_pending), st->avg_significant);
	if (isnan(st->avg_total))
		linef("total", "%.0f pending now",
		    z(st->total_operations_pending));
	else
		linef("total", "%.0f pending now, %.2f on average (%.0f "
		    "sample%s)", z(st->total_operations_pending), st->avg_total,
		    samples, samples == 1 ? "" : "s");
}

/* " (no_space 3, other 1)": the kinds that occurred, or "" (statsrec
 * checked that each count is an integer). */
static char *
kinds_text(json_object *kinds)
{
	char *by = fmt_xstrdup(""), *t;

	if (kinds == NULL)
		return by;
	json_object_object_foreach(kinds, k, v) {
		if (json_object_get_int64(v) <= 0)
			continue;
		t = fmt_xprintf("%s%s%s %lld", by, *by ? ", " : " (", k,
		    (long long)json_object_get_int64(v));
		free(by);
		by = t;
	}
	if (*by != '\0') {
		t = fmt_xprintf("%s)", by);
		free(by);
		by = t;
	}
	return by;
}

/* Errors, drops and failures, with the kinds and the first message. */
static void
problem_lines(const struct statsrec *st)
{
	json_object *m0 = NULL;
	char *by = kinds_text(st->errors_by_kind);

	linef("problems", "%.0f errors%s; %.0f dropped; %.0f updates, %.0f "
	    "creates failed", z(st->errors), by, z(st->dropped),
	    z(st->updates_failed), z(st->creates_failed));
	if (st->error_messages != NULL)
		m0 = json_object_array_get_idx(st->error_messages, 0);
	if (json_object_is_type(m0, json_type_string))
		line("first error", json_object_get_string(m0));
	free(by);
}

/*
 * The daemon's verdict so far and its warnings.  The words are those of
 * every one-line view of a run: kept up, fell behind, cannot tell.
 */
static void
verdict_lines(const struct statsrec *st, bool ended)
{
	const struct runrec_verdict *v = &st->verdict;
	bool cut = false;
	char *head;

	if (!v->has) {
		line("verdict", ended ? "no verdict (from an older stressd)" :
		    "no verdict yet");
	} else {
		char *word = fmt_xprintf("%s%s",
		    verdicts_kept_word_rec(v->kept_up), ended ? "" : " so far");

		head = verdicts_counted(word, st->nwarnings);
		free(word);
		if (v->reason != NULL)
			linef("verdict", "%s: %s", head, v->reason);
		else
			line("verdict", head);
		free(head);
	}
	for (size_t i = 0; i < st->nwarnings; i++)
		cut |= first_line("warning", st->warnings[i].message);
	if (cut)
		linef("", "(in full, with what to do: stressctl report %lld)",
		    (long long)st->run_id);
}

/* A sweep's record (schema stressd-sweep): where it is, in two lines. */
bool
headline_is_sweep(json_object *o)
{
	return sweeprec_is_record(o);
}

void
headline_sweep(json_object *o)
{
	char *err = NULL;
	struct sweeprec *r = sweeprec_parse(o, &err);

	if (r == NULL) {
		fprintf(stderr, "stressctl: %s\n", err);
		free(err);
		printf("%s\n", fmt_json_string(o));
		return;
	}
	linef("sweep", "%lld (%s): %s%s%s", (long long)r->id,
	    r->sweep_id ? r->sweep_id : "?", r->state,
	    r->reason != NULL && *r->reason ? ": " : "",
	    r->reason ? r->reason : "");
	linef("runs", "%zu of %.0f started, %.0f failed (stressctl sweep "
	    "--attach %lld compares them)", r->nruns, z(r->runs_planned),
	    z(r->runs_failed), (long long)r->id);
	sweeprec_free(r);
}

static void
stats_lines(const struct statsrec *st)
{
	char *pace;
	bool ended;

	if (strcmp(st->state, "idle") == 0) {
		line("state", "idle: no run since stressd started");
		return;
	}
	ended = records_state_ended(st->state);
	pace = pace_text(st);
	linef("state", "%s (run %lld, %.1f s%s)", st->state,
	    (long long)(st->has_run_id ? st->run_id : 0), z(st->elapsed_s),
	    pace);
	free(pace);
	if (st->capacity.has) {
		char *s = capline_progress(&st->capacity);

		line("search", s);
		free(s);
	}
	if (st->sweep.has)
		linef("sweep", "%lld: run %.0f of %.0f in %s",
		    (long long)st->sweep.id, z(st->sweep.run),
		    z(st->sweep.runs_planned),
		    st->sweep.label ? st->sweep.label : "?");
	if (st->reason != NULL)
		line("reason", st->reason);
	progress_line(st, ended);
	linef("rates (/s)", "enqueue %.1f (%.1f overall), dequeue %.1f "
	    "(%.1f overall)", z(st->rates.current_enqueue),
	    z(st->rates.overall_enqueue), z(st->rates.current_dequeue),
	    z(st->rates.overall_dequeue));
	queue_lines(st);
	problem_lines(st);
	verdict_lines(st, ended);
}

void
headline_stats(json_object *o)
{
	char *err = NULL;
	struct statsrec *st;

	if (!json_object_is_type(o, json_type_object)) {
		printf("%s\n", fmt_json_string(o));
		return;
	}
	/* A reply this stressctl cannot read is shown as it came, with
	 * the member that is wrong named. */
	if ((st = statsrec_parse(o, &err)) == NULL) {
		fprintf(stderr, "stressctl: %s\n", err);
		free(err);
		printf("%s\n", fmt_json_string(o));
		return;
	}
	stats_lines(st);
	statsrec_free(st);
}

/* ---------------------------------------------------------------- status */

/* The same value: numbers compared as numbers (10 and 10.0 alike). */
static bool
same_value(json_object *a, json_object *b)
{
	bool na = json_object_is_type(a, json_type_int) ||
	    json_object_is_type(a, json_type_double);
	bool nb = json_object_is_type(b, json_type_int) ||
	    json_object_is_type(b, json_type_double);

	if (na && nb)
		return json_object_get_double(a) == json_object_get_double(b);
	return json_object_equal(a, b) != 0;
}

/* The defaults as a run of this many files gets them: those derived from
 * files (zero_files) follow it, files and dir keep their own. */
static json_object *
defaults_for(json_object *params)
{
	struct stress_params p;
	json_object *args = fmt_nomem(json_object_new_object()), *v, *d;
	json_object *plain;
	const char *field;
	char err[256];

	knobs_defaults(&p);
	plain = fmt_nomem(knobs_to_json(&p));
	json_object_object_add(args, "dir", json_object_new_string("/"));
	if (json_object_object_get_ex(params, "files", &v))
		json_object_object_add(args, "files", json_object_get(v));
	if (knobs_apply(&p, args, &field, err, sizeof(err)) == -1) {
		knobs_free(&p);
		knobs_defaults(&p);
	}
	d = fmt_nomem(knobs_to_json(&p));
	knobs_free(&p);
	json_object_object_foreach(args, k, unused) {
		(void)unused;
		if (json_object_object_get_ex(plain, k, &v))
			json_object_object_add(d, k, json_object_get(v));
	}
	json_object_put(args);
	json_object_put(plain);
	return d;
}

void
headline_status(json_object *res)
{
	json_object *copy = NULL, *params, *defaults, *changed, *d, *run;
	struct statusrec *s;
	size_t hidden = 0;
	char *err = NULL;

	/* A reply this stressctl cannot read is shown as it came, with
	 * the member that is wrong named. */
	if ((s = statusrec_parse(res, &err)) == NULL) {
		fprintf(stderr, "stressctl: %s\n", err);
		free(err);
		replyview_status(res);
		return;
	}
	params = s->params;
	if (params == NULL || json_object_deep_copy(res, &copy, NULL) != 0) {
		statusrec_free(s);
		replyview_status(res);
		return;
	}
	defaults = defaults_for(params);
	changed = fmt_nomem(json_object_new_object());
	json_object_object_foreach(params, k, v) {
		if (json_object_object_get_ex(defaults, k, &d) &&
		    same_value(v, d)) {
			hidden++;
			continue;
		}
		json_object_object_add(changed, k, json_object_get(v));
	}
	/* The copy's run is an object, as the reply's. */
	json_object_object_get_ex(copy, "run", &run);
	json_object_object_add(run, "params", changed);
	replyview_status(copy);
	if (hidden > 0)
		printf("  (%zu knobs at their defaults; status --all lists "
		    "them)\n", hidden);
	json_object_put(copy);
	json_object_put(defaults);
	statusrec_free(s);
}
