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
#include "jpath.h"
#include "knobs.h"
#include "replyview.h"
#include "text.h"
#include "verdicts.h"
#include "records.h"

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

/* "; paced at 1000/s", "; flat out", or "" from an older stressd. */
static char *
pace_text(json_object *st)
{
	double ut, max = jpath_num0(st, "max_updates");
	char *pace, *t;

	if (!jpath_num(st, "update_time", &ut))
		return fmt_xstrdup("");
	if (ut <= 0)
		return fmt_xstrdup("; flat out");
	pace = per_second(max / ut);
	t = fmt_xprintf("; paced at %s", pace);
	free(pace);
	return t;
}

static void
progress_line(json_object *st, bool ended)
{
	double max = jpath_num0(st, "max_updates");
	double gen = jpath_num0(st, "generated");
	double done = jpath_num0(st, "updates_completed") +
	    jpath_num0(st, "updates_failed") + jpath_num0(st, "dropped") +
	    jpath_num0(st, "discarded");
	char eta[32];

	headline_eta_text(headline_eta(max, gen, done,
	    jpath_num0(st, "elapsed_s"), jpath_num0(st, "update_time"),
	    jpath_num0(st, "total_operations_pending"),
	    jpath_num0(st, "rates.current_dequeue.total")), eta, sizeof(eta));
	linef("progress", "%.0f/%.0f generated (%.1f%%), %.0f completed%s%s",
	    gen, max, max > 0 ? 100 * gen / max : 0,
	    jpath_num0(st, "updates_completed"), ended ? "" : ", ETA ",
	    ended ? "" : eta);
}

/* The two queues now and on average (stressd's queue_average). */
static void
queue_lines(json_object *st)
{
	static const char *const q[][3] = {
		{ "significant", "significant_ops_pending",
		    "queue_average.significant_ops_pending" },
		{ "total", "total_operations_pending",
		    "queue_average.total_operations_pending" },
	};
	double a, samples = jpath_num0(st, "queue_average.samples");

	for (size_t i = 0; i < 2; i++) {
		if (!jpath_num(st, q[i][2], &a)) {
			linef(q[i][0], "%.0f pending now",
			    jpath_num0(st, q[i][1]));
			continue;
		}
		if (i == 0)
			linef(q[i][0], "%.0f pending now, %.2f on average",
			    jpath_num0(st, q[i][1]), a);
		else
			linef(q[i][0], "%.0f pending now, %.2f on average "
			    "(%.0f sample%s)", jpath_num0(st, q[i][1]), a,
			    samples, samples == 1 ? "" : "s");
	}
}

/* " (no_space 3, other 1)": the kinds that occurred, or "". */
static char *
kinds_text(json_object *kinds)
{
	char *by = fmt_xstrdup(""), *t;

	if (!json_object_is_type(kinds, json_type_object))
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
problem_lines(json_object *st)
{
	json_object *msgs = jpath(st, "error_messages"), *m0 = NULL;
	char *by = kinds_text(jpath(st, "errors_by_kind"));

	linef("problems", "%.0f errors%s; %.0f dropped; %.0f updates, %.0f "
	    "creates failed", jpath_num0(st, "errors"), by,
	    jpath_num0(st, "dropped"), jpath_num0(st, "updates_failed"),
	    jpath_num0(st, "creates_failed"));
	if (json_object_is_type(msgs, json_type_array))
		m0 = json_object_array_get_idx(msgs, 0);
	if (json_object_is_type(m0, json_type_string))
		line("first error", json_object_get_string(m0));
	free(by);
}

/*
 * The daemon's verdict so far and its warnings.  The words are those of
 * every one-line view of a run: kept up, fell behind, cannot tell.
 */
static void
verdict_lines(json_object *st, bool ended)
{
	json_object *v = jpath(st, "verdict"), *w = jpath(st, "warnings");
	json_object *kept = jpath(v, "kept_up");
	size_t nw = verdicts_nwarnings(st);
	const char *reason = jpath_str(v, "reason");
	bool cut = false;
	char *head;

	if (!json_object_is_type(v, json_type_object)) {
		line("verdict", ended ? "no verdict (from an older stressd)" :
		    "no verdict yet");
	} else {
		char *word = fmt_xprintf("%s%s", verdicts_kept_word(kept),
		    ended ? "" : " so far");

		head = verdicts_counted(word, nw);
		free(word);
		if (reason != NULL)
			linef("verdict", "%s: %s", head, reason);
		else
			line("verdict", head);
		free(head);
	}
	for (size_t i = 0; i < nw; i++) {
		json_object *e = json_object_array_get_idx(w, i);
		const char *m = jpath_str(e, "message");

		cut |= first_line("warning", m != NULL ? m : jpath_str(e,
		    "code") != NULL ? jpath_str(e, "code") : "?");
	}
	if (cut)
		linef("", "(in full, with what to do: stressctl report %lld)",
		    (long long)json_object_get_int64(jpath(st, "run_id")));
}

/* A sweep's record (schema stressd-sweep), or stats' "sweep" while one
 * runs: where it is, in a line or two. */
bool
headline_is_sweep(json_object *o)
{
	const char *s = jpath_str(o, "schema");

	return s != NULL && strcmp(s, "stressd-sweep") == 0;
}

void
headline_sweep(json_object *rec)
{
	json_object *runs = jpath(rec, "runs");
	const char *reason = jpath_str(rec, "reason");

	linef("sweep", "%.0f (%s): %s%s%s", jpath_num0(rec, "id"),
	    jpath_str(rec, "sweep_id") ? jpath_str(rec, "sweep_id") : "?",
	    jpath_str(rec, "state") ? jpath_str(rec, "state") : "?",
	    reason != NULL && *reason ? ": " : "", reason ? reason : "");
	linef("runs", "%zu of %.0f started, %.0f failed (stressctl sweep "
	    "--attach %.0f compares them)", json_object_is_type(runs,
	    json_type_array) ? json_object_array_length(runs) : 0,
	    jpath_num0(rec, "runs_planned"), jpath_num0(rec, "runs_failed"),
	    jpath_num0(rec, "id"));
}

void
headline_stats(json_object *st)
{
	const char *state = jpath_str(st, "state"), *reason;
	char *pace;
	bool ended;

	if (!json_object_is_type(st, json_type_object)) {
		printf("%s\n", fmt_json_string(st));
		return;
	}
	if (state == NULL)
		state = "?";
	if (strcmp(state, "idle") == 0) {
		line("state", "idle: no run since stressd started");
		return;
	}
	ended = records_state_ended(state);
	pace = pace_text(st);
	linef("state", "%s (run %.0f, %.1f s%s)", state,
	    jpath_num0(st, "run_id"), jpath_num0(st, "elapsed_s"), pace);
	free(pace);
	if (json_object_is_type(jpath(st, "capacity"), json_type_object)) {
		char *s = capline_progress(jpath(st, "capacity"));

		line("search", s);
		free(s);
	}
	if (json_object_is_type(jpath(st, "sweep"), json_type_object))
		linef("sweep", "%.0f: run %.0f of %.0f in %s",
		    jpath_num0(st, "sweep.id"), jpath_num0(st, "sweep.run"),
		    jpath_num0(st, "sweep.runs_planned"),
		    jpath_str(st, "sweep.label") ? jpath_str(st, "sweep.label") :
		    "?");
	if ((reason = jpath_str(st, "reason")) != NULL)
		line("reason", reason);
	progress_line(st, ended);
	linef("rates (/s)", "enqueue %.1f (%.1f overall), dequeue %.1f "
	    "(%.1f overall)", jpath_num0(st, "rates.current_enqueue.total"),
	    jpath_num0(st, "rates.overall_enqueue.total"),
	    jpath_num0(st, "rates.current_dequeue.total"),
	    jpath_num0(st, "rates.overall_dequeue.total"));
	queue_lines(st);
	problem_lines(st);
	verdict_lines(st, ended);
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
	json_object *copy = NULL, *params, *defaults, *changed, *d;
	size_t hidden = 0;

	params = jpath(res, "run.params");
	if (!json_object_is_type(params, json_type_object) ||
	    json_object_deep_copy(res, &copy, NULL) != 0) {
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
	json_object_object_add(jpath(copy, "run"), "params", changed);
	replyview_status(copy);
	if (hidden > 0)
		printf("  (%zu knobs at their defaults; status --all lists "
		    "them)\n", hidden);
	json_object_put(copy);
	json_object_put(defaults);
}
