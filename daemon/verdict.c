/* The keep-up verdict and the warnings of a run (rule in verdict.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "steady.h"
#include "verdict.h"

#define MIB	(1024.0 * 1024.0)

static const char *const warning_codes[VERDICT_NWARNINGS] = {
	"few_samples", "flat_out", "page_cache", "no_queue",
};

const char *
verdict_warning_code(enum verdict_warning w)
{
	return (unsigned)w < VERDICT_NWARNINGS ? warning_codes[w] : "unknown";
}

/* Rule 2: the steady window of the load phase and the latency of the
 * values persisted in it. */
static void
measure_steady(const struct verdict_input *in, struct verdict *v)
{
	struct steady *s = &v->steady;
	struct steady_load ld = {
		.files = in->files,
		/* the queue's values: the significant ones */
		.rate = in->update_time > 0 ? (double)in->max_updates /
		    in->update_time * (in->significant_share > 0 ?
		    in->significant_share : 1) : 0,
		.bound_s = in->latency_bound_ms / 1000,
	};

	/* a capacity step's settle is never judged */
	steady_find(in->pts, in->npts, fmin(in->load_from_s + in->settle_s,
	    in->load_to_s), in->load_to_s, in->sample_interval, &ld, s);
	if (s->found)
		s->fill_s = s->from_s - in->load_from_s;
	else if (s->need_s > 0)
		s->need_s = ceil(s->need_s + in->settle_s);
	v->have_slope = s->line.ok;
	v->slope = s->line.slope;
	v->se = s->line.se;
	if (!s->found)
		return;
	if (in->latency_since != NULL)
		v->have_window_latency = in->latency_since(in->latency_arg,
		    s->from_s, &v->window_from_s, &v->window_p50_ms,
		    &v->window_p99_ms);
	else if (in->latency_p99_ms >= 0) {
		/* no window known: the whole run's stands for it */
		v->have_window_latency = true;
		v->window_p50_ms = NAN;
		v->window_p99_ms = in->latency_p99_ms;
	}
}

/* The load phase, its samples and their steady window. */
static void
measure(const struct verdict_input *in, struct verdict *v)
{
	size_t i0, i1;

	if (in->load_from_s < 0)
		return;
	steady_span(in->pts, in->npts, in->load_from_s, in->load_to_s, &i0,
	    &i1);
	for (size_t i = i0; i < i1; i++) {
		if (in->pts[i].y > v->max_y)
			v->max_y = in->pts[i].y;
		v->queued += in->pts[i].y > 1;
	}
	v->load_samples = i1 - i0;
	v->to_s = in->load_to_s;
	v->from_s = in->load_from_s;
	v->samples = v->load_samples;
	measure_steady(in, v);
}

#define SAY(...)	snprintf(v->reason, sizeof(v->reason), __VA_ARGS__)

/* A rate as a person reads it: 3 significant digits, no e-notation. */
static const char *
rate(double d, char *buf, size_t len)
{
	snprintf(buf, len, fabs(d) >= 100 ? "%.0f" : fabs(d) >= 1 ? "%.2f" :
	    "%.3f", d);
	return buf;
}

/* A count of values with thousands separated: 1,370. */
static const char *
count(double d, char *buf, size_t len)
{
	char digits[32];
	size_t n, k = 0;
	const char *p = digits;

	snprintf(digits, sizeof(digits), "%.0f", fabs(d) < 1e18 ? d : 0);
	if (*p == '-' && k + 1 < len)
		buf[k++] = *p++;
	n = strlen(p);
	for (size_t i = 0; i < n && k + 2 < len; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = p[i];
	}
	buf[k] = '\0';
	return buf;
}

/* A duration in ms as a person reads it: "44.8 s", "5.2 ms". */
static const char *
dur(double ms, char *buf, size_t len)
{
	if (ms >= 1000)
		snprintf(buf, len, "%.1f s", ms / 1000);
	else
		snprintf(buf, len, "%.1f ms", ms);
	return buf;
}

/* Rule 2, step 7: the steady window and the latency in it. */
static void
judge_steady(struct verdict *v)
{
	const struct steady *s = &v->steady;
	double len = v->to_s - v->from_s;
	char lv[32], tol[32], p99[32], p50[64], bound[32], tr[32], se[32];

	count(s->level, lv, sizeof(lv));
	count(s->tolerance, tol, sizeof(tol));
	dur(v->latency_bound_ms, bound, sizeof(bound));
	if (s->why_not == STEADY_SHORT) {
		/* samples enough in the load, not after its settle */
		v->kept_up = -1;
		v->cause = VERDICT_BY_FEW_SAMPLES;
		SAY("no window of %d samples after the settle of %.1f s (the "
		    "load from %.1f to %.1f s); run at least %.0f s.",
		    STEADY_MIN_SAMPLES, v->settle_s, v->from_s, v->to_s,
		    s->need_s);
		return;
	}
	if (!s->found) {
		v->kept_up = -1;
		v->cause = s->why_not == STEADY_EMPTYING ? VERDICT_BY_EMPTYING :
		    s->why_not == STEADY_NOISY ? VERDICT_BY_NOISY :
		    VERDICT_BY_FILLING;
		rate(s->line.slope, tr, sizeof(tr));
		rate(STEADY_T * s->line.se, se, sizeof(se));
		SAY("%s after %.1f s (significant_ops_pending %s values/s "
		    "+/- %s from %.1f to %.1f s, around %s; steady is within "
		    "+/- %s); run at least %.0f s.", v->cause ==
		    VERDICT_BY_EMPTYING ? "still emptying" : v->cause ==
		    VERDICT_BY_NOISY ? "not steady (too noisy)" :
		    "still filling", len, tr, se, s->from_s, s->to_s, lv, tol,
		    s->need_s);
		return;
	}
	if (!v->have_window_latency) {
		v->kept_up = -1;
		v->cause = VERDICT_BY_STEADY;
		SAY("queue steady at %s values from %.1f to %.1f s (after a "
		    "fill of %.1f s), but no value was persisted in it to "
		    "time.", lv, s->from_s, s->to_s, s->fill_s);
		return;
	}
	dur(v->window_p99_ms, p99, sizeof(p99));
	if (isnan(v->window_p50_ms))
		snprintf(p50, sizeof(p50), "over the whole run");
	else
		snprintf(p50, sizeof(p50), "from %.1f s; p50 %s",
		    v->window_from_s, dur(v->window_p50_ms, tr, sizeof(tr)));
	v->kept_up = v->window_p99_ms <= v->latency_bound_ms;
	v->cause = v->kept_up ? VERDICT_BY_STEADY : VERDICT_BY_STEADY_LATE;
	SAY("queue steady at %s values from %.1f to %.1f s (after a fill of "
	    "%.1f s); values land within %s (enqueue_to_persist p99 %s), %s "
	    "%s.", lv, s->from_s, s->to_s, s->fill_s, p99, p50, v->kept_up ?
	    "bound" : "past the bound of", bound);
}

/* Rule steps 1 to 4, each setting kept_up; false when none applies. */
static bool
judge_counts(const struct verdict_input *in, struct verdict *v)
{
	if (in->failed > 0 && in->denied > 0 && in->denied >= in->errors) {
		v->kept_up = -1;
		v->cause = VERDICT_BY_REFUSED;
		SAY("%llu writes failed, every error of kind denied: the run's "
		    "files were refused (not regular files: see errors), a "
		    "setup problem, not the storage's; fix the files and run "
		    "again.", (unsigned long long)in->failed);
	} else if (in->failed > 0) {
		v->kept_up = 0;
		v->cause = VERDICT_BY_FAILED;
		SAY("%llu writes failed (update values and creates): the "
		    "storage did not take the load.",
		    (unsigned long long)in->failed);
	} else if (in->flat_out) {
		v->kept_up = -1;
		v->cause = VERDICT_BY_FLAT_OUT;
		SAY("the run was flat out (update_time 0): its queue shows how "
		    "fast the generators fill it, not whether the storage "
		    "keeps up.");
	} else if (in->dropped > 0) {
		v->kept_up = 0;
		v->cause = VERDICT_BY_DROPPED;
		SAY("%llu updates were dropped at a high-water mark.",
		    (unsigned long long)in->dropped);
	} else if (in->latency_p99_ms > in->latency_bound_ms) {
		v->kept_up = 0;
		v->cause = VERDICT_BY_LATENCY;
		SAY("enqueue_to_persist p99 is %.1f ms, over the bound of %.0f "
		    "ms.", in->latency_p99_ms, in->latency_bound_ms);
	} else
		return false;
	return true;
}

/* Rule step 5: whether the load was offered as scheduled (the n-th
 * update is due n x update_time / max_updates s into the load). */
static bool
judge_pace(const struct verdict_input *in, struct verdict *v)
{
	double took, due, late;

	if (in->load_from_s < 0 || in->update_time <= 0 ||
	    in->max_updates == 0)
		return false;
	took = in->load_to_s - in->load_from_s;
	due = in->update_time * (double)in->generated /
	    (double)in->max_updates;
	late = took - due;
	if (in->generator_waits > 0) {
		v->kept_up = 0;
		v->cause = VERDICT_BY_WAITS;
		SAY("the generators waited %llu times (%.1f s in all) at the "
		    "queue's memory bound (queue_memory_max): the storage did "
		    "not take the load as offered; %llu updates took %.1f s, "
		    "due in %.1f s.", (unsigned long long)in->generator_waits,
		    in->generator_wait_s, (unsigned long long)in->generated,
		    took, due);
	} else if (late > fmax(VERDICT_LATE_SHARE * due, VERDICT_LATE_MIN_S)) {
		v->kept_up = in->no_queue ? 0 : -1;
		v->cause = in->no_queue ? VERDICT_BY_BEHIND :
		    VERDICT_BY_GENERATORS;
		if (in->no_queue)
			SAY("the generators write directly (use_queue false) "
			    "and fell %.0f %% behind: %llu updates took %.1f "
			    "s, due in %.1f s; the storage did not take the "
			    "load as offered.", 100 * late / fmax(due, 1e-9),
			    (unsigned long long)in->generated, took, due);
		else
			SAY("generation fell %.0f %% behind its schedule "
			    "(%llu updates took %.1f s, due in %.1f s) without "
			    "waiting at the queue's memory bound: the "
			    "generators could not offer the load (CPU), so "
			    "the storage was not tested at this rate; try a "
			    "lower one.", 100 * late / fmax(due, 1e-9),
			    (unsigned long long)in->generated, took, due);
	} else
		return false;
	return true;
}

/* Rule step 6: too few samples to judge; false when there are enough. */
static bool
judge_samples(const struct verdict_input *in, struct verdict *v)
{
	if (v->samples >= VERDICT_MIN_SAMPLES)
		return false;
	v->kept_up = -1;
	v->cause = VERDICT_BY_FEW_SAMPLES;
	if (in->load_from_s < 0)
		SAY("the load %s.", in->stopped_early ? "never started" :
		    "has not started yet");
	else if (in->stopped_early)
		SAY("the run stopped after %llu of %llu updates, with %zu "
		    "samples in its load phase; the rule needs %d.",
		    (unsigned long long)in->generated,
		    (unsigned long long)in->max_updates, v->samples,
		    VERDICT_MIN_SAMPLES);
	else
		SAY("only %zu samples in the load phase (%.1f to %.1f s); the "
		    "rule needs %d: run at least %.0f s.", v->samples,
		    v->from_s, v->to_s, VERDICT_MIN_SAMPLES, v->steady.need_s);
	return true;
}

/* Rule step 7 without a queue: the pace was kept (step 5 passed). */
static void
judge_direct(const struct verdict_input *in, struct verdict *v)
{
	v->kept_up = 1;
	v->cause = VERDICT_BY_PACE_KEPT;
	SAY("the generators write directly (use_queue false), so there is no "
	    "queue to judge; they kept their schedule: %llu updates in %.1f "
	    "s, due in %.1f s.", (unsigned long long)in->generated,
	    in->load_to_s - in->load_from_s, in->update_time *
	    (double)in->generated / (double)in->max_updates);
}

static void
add_warnings(const struct verdict_input *in, struct verdict *v)
{
	if (in->load_from_s >= 0 && v->samples < VERDICT_MIN_SAMPLES)
		v->warnings |= 1u << VERDICT_W_FEW_SAMPLES;
	if (in->flat_out)
		v->warnings |= 1u << VERDICT_W_FLAT_OUT;
	if (in->sync_none && in->run_bytes > 0 && in->mem_available > 0 &&
	    in->run_bytes <= in->mem_available)
		v->warnings |= 1u << VERDICT_W_PAGE_CACHE;
	/* a rare stall of this machine is no queue; without a queue the
	 * reason says why it is empty */
	if (!in->no_queue && v->load_samples > 0 &&
	    (double)v->queued <= VERDICT_NO_QUEUE_SHARE * (double)v->load_samples)
		v->warnings |= 1u << VERDICT_W_NO_QUEUE;
}

void
verdict_compute(const struct verdict_input *in, struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->rule = VERDICT_RULE_STEADY;
	v->dropped = in->dropped;
	v->failed = in->failed;
	v->stopped_early = in->stopped_early;
	v->latency_p99_ms = in->latency_p99_ms;
	v->latency_bound_ms = in->latency_bound_ms;
	v->settle_s = in->settle_s;
	v->steady.why_not = STEADY_SHORT;
	measure(in, v);
	if (judge_counts(in, v) || judge_pace(in, v) || judge_samples(in, v))
		;
	else if (in->no_queue)
		judge_direct(in, v);
	else
		judge_steady(v);
	if (in->stopped_early && v->cause != VERDICT_BY_FEW_SAMPLES) {
		size_t len = strlen(v->reason);

		snprintf(v->reason + len, sizeof(v->reason) - len, " The run "
		    "stopped early, after %llu of %llu updates.",
		    (unsigned long long)in->generated,
		    (unsigned long long)in->max_updates);
	}
	add_warnings(in, v);
}

bool
verdict_may_change(const struct verdict *v)
{
	bool long_enough = v->samples >= 2 * VERDICT_MIN_SAMPLES;

	switch (v->cause) {
	case VERDICT_BY_FAILED:
	case VERDICT_BY_REFUSED:
	case VERDICT_BY_FLAT_OUT:
	case VERDICT_BY_DROPPED:
	case VERDICT_BY_WAITS:
		return false;
	case VERDICT_BY_LATENCY:
	case VERDICT_BY_PACE_KEPT:
		return !long_enough;
	default:
		return true;
	}
}

bool
verdict_by_window(const struct verdict *v)
{
	return v->cause == VERDICT_BY_STEADY ||
	    v->cause == VERDICT_BY_STEADY_LATE;
}

bool
verdict_may_end_load(const struct verdict *v, double load_s, double max_s,
    double dt)
{
	/* failures, drops and waits need no more samples; a window does */
	if (!verdict_decided(v))
		return false;
	return !verdict_by_window(v) || load_s >=
	    fmin(VERDICT_WINDOW_MIN_LOAD_S, max_s - 1.5 * dt);
}

bool
verdict_decided(const struct verdict *v)
{
	if (v->kept_up < 0)
		return false;
	return verdict_by_window(v) || !verdict_may_change(v);
}

/* d as a JSON number, or null when not finite or when !have. */
static json_object *
num_or_null(bool have, double d)
{
	return have && isfinite(d) ? json_object_new_double(d) : NULL;
}

/* Rule 2's "steady": the window, or why there is none. */
json_object *
verdict_steady_json(const struct verdict *v)
{
	const struct steady *s = &v->steady;
	const char *why = steady_why_name(s->why_not);
	json_object *o = json_object_new_object();
	bool judged = s->samples > 0;

	json_object_object_add(o, "found", json_object_new_boolean(s->found));
	json_object_object_add(o, "why_not", why != NULL ?
	    json_object_new_string(why) : NULL);
	json_object_object_add(o, "fill_s", num_or_null(s->found, s->fill_s));
	json_object_object_add(o, "from_s", num_or_null(judged, s->from_s));
	json_object_object_add(o, "to_s", num_or_null(judged, s->to_s));
	json_object_object_add(o, "samples",
	    json_object_new_int64((int64_t)s->samples));
	json_object_object_add(o, "level", num_or_null(judged, s->level));
	json_object_object_add(o, "tolerance",
	    num_or_null(judged, s->tolerance));
	json_object_object_add(o, "latency_from_s", num_or_null(
	    v->have_window_latency && !isnan(v->window_p50_ms),
	    v->window_from_s));
	json_object_object_add(o, "latency_p50_ms",
	    num_or_null(v->have_window_latency, v->window_p50_ms));
	json_object_object_add(o, "latency_p99_ms",
	    num_or_null(v->have_window_latency, v->window_p99_ms));
	json_object_object_add(o, "run_at_least_s",
	    num_or_null(!s->found && s->need_s > 0, s->need_s));
	return o;
}

json_object *
verdict_json(const struct verdict *v)
{
	json_object *o = json_object_new_object(), *p;

	json_object_object_add(o, "kept_up", v->kept_up < 0 ? NULL :
	    json_object_new_boolean(v->kept_up == 1));
	json_object_object_add(o, "reason", json_object_new_string(v->reason));
	json_object_object_add(o, "rule", json_object_new_int(v->rule));
	p = json_object_new_object();
	json_object_object_add(p, "from_s", json_object_new_double(v->from_s));
	json_object_object_add(p, "to_s", json_object_new_double(v->to_s));
	json_object_object_add(p, "samples",
	    json_object_new_int64((int64_t)v->samples));
	json_object_object_add(o, "load_phase", p);
	json_object_object_add(o, "slope_per_s",
	    num_or_null(v->have_slope, v->slope));
	json_object_object_add(o, "slope_stderr",
	    num_or_null(v->have_slope, v->se));
	json_object_object_add(o, "steady", verdict_steady_json(v));
	json_object_object_add(o, "latency_p99_ms",
	    num_or_null(v->latency_p99_ms >= 0, v->latency_p99_ms));
	json_object_object_add(o, "latency_bound_ms",
	    json_object_new_double(v->latency_bound_ms));
	json_object_object_add(o, "dropped",
	    json_object_new_int64((int64_t)v->dropped));
	json_object_object_add(o, "failed",
	    json_object_new_int64((int64_t)v->failed));
	json_object_object_add(o, "stopped_early",
	    json_object_new_boolean(v->stopped_early));
	return o;
}

/* The sentence of warning w. */
static void
warning_text(enum verdict_warning w, const struct verdict *v,
    const struct verdict_input *in, char *buf, size_t len)
{
	switch (w) {
	case VERDICT_W_FEW_SAMPLES:
		if (in->sample_interval > VERDICT_MIN_INTERVAL)
			snprintf(buf, len, "Only %zu samples in the load "
			    "phase, the verdict needs %d: spread the run over "
			    "more time (a longer update_time) or sample more "
			    "often (a smaller sample_interval than %g s, down "
			    "to %g).", v->samples, VERDICT_MIN_SAMPLES,
			    in->sample_interval, VERDICT_MIN_INTERVAL);
		else
			snprintf(buf, len, "Only %zu samples in the load "
			    "phase, the verdict needs %d: spread the run over "
			    "more time (a longer update_time: at a "
			    "sample_interval of %g s, at least %.0f s).",
			    v->samples,
			    VERDICT_MIN_SAMPLES, in->sample_interval,
			    ceil(VERDICT_MIN_SAMPLES * in->sample_interval));
		break;
	case VERDICT_W_FLAT_OUT:
		snprintf(buf, len, "update_time 0 ran the generators flat out: "
		    "the queue shows how fast they fill it, not how fast the "
		    "storage writes; run paced (update_time > 0) at the rate "
		    "to judge, and at a few rates around it to find the "
		    "highest the storage sustains.");
		break;
	case VERDICT_W_PAGE_CACHE:
		snprintf(buf, len, "The run's files (%.1f MiB) fit in the free "
		    "page cache (%.0f MiB available at start) and sync is "
		    "none: the run measured memory, not the disk; use --sync "
		    "data, more files than fit in memory, or --sync "
		    "drop-caches.", (double)in->run_bytes / MIB,
		    (double)in->mem_available / MIB);
		break;
	case VERDICT_W_NO_QUEUE:
		snprintf(buf, len, "significant_ops_pending was 0 or 1 in %zu "
		    "of the load phase's %zu samples: no queue formed, so the "
		    "storage was never tested; raise the rate (more "
		    "max_updates in the same update_time).",
		    v->load_samples - v->queued, v->load_samples);
		break;
	default:
		buf[0] = '\0';
	}
}

json_object *
verdict_warnings_json(const struct verdict *v, const struct verdict_input *in)
{
	json_object *a = json_object_new_array();
	char msg[512];

	for (int w = 0; w < VERDICT_NWARNINGS; w++) {
		json_object *o;

		if ((v->warnings & (1u << w)) == 0)
			continue;
		warning_text((enum verdict_warning)w, v, in, msg, sizeof(msg));
		o = json_object_new_object();
		json_object_object_add(o, "code",
		    json_object_new_string(warning_codes[w]));
		json_object_object_add(o, "message",
		    json_object_new_string(msg));
		json_object_array_add(a, o);
	}
	return a;
}
