/* The keep-up verdict and the warnings of a run (rule in verdict.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* The samples with from <= t <= to: [*i0, *i1). */
static void
phase_range(const struct verdict_input *in, double from, double to,
    size_t *i0, size_t *i1)
{
	size_t i = 0;

	while (i < in->npts && in->pts[i].t < from)
		i++;
	*i0 = i;
	while (i < in->npts && in->pts[i].t <= to)
		i++;
	*i1 = i;
}

/* The line through the batch means of pts[i0..i1): slope and its
 * standard error (v->slope, v->se). */
static void
trend(const struct verdict_point *pts, size_t i0, size_t i1,
    struct verdict *v)
{
	double bt[VERDICT_BATCHES], by[VERDICT_BATCHES];
	double mt = 0, my = 0, sxx = 0, sxy = 0, rss = 0;
	size_t n = i1 - i0;

	for (size_t b = 0; b < VERDICT_BATCHES; b++) {
		size_t lo = i0 + b * n / VERDICT_BATCHES;
		size_t hi = i0 + (b + 1) * n / VERDICT_BATCHES;

		bt[b] = by[b] = 0;
		for (size_t i = lo; i < hi; i++) {
			bt[b] += pts[i].t;
			by[b] += pts[i].y;
		}
		bt[b] /= (double)(hi - lo);
		by[b] /= (double)(hi - lo);
		mt += bt[b] / VERDICT_BATCHES;
		my += by[b] / VERDICT_BATCHES;
	}
	for (size_t b = 0; b < VERDICT_BATCHES; b++) {
		sxx += (bt[b] - mt) * (bt[b] - mt);
		sxy += (bt[b] - mt) * (by[b] - my);
	}
	v->slope = sxx > 0 ? sxy / sxx : 0;
	for (size_t b = 0; b < VERDICT_BATCHES; b++) {
		double r = by[b] - my - v->slope * (bt[b] - mt);

		rss += r * r;
	}
	v->se = sxx > 0 ? sqrt(rss / (VERDICT_BATCHES - 2) / sxx) : 0;
	v->have_slope = sxx > 0;
	v->backlog_1h = v->slope * 3600;
}

/* The load phase after its settle, its samples and their trend. */
static void
measure(const struct verdict_input *in, struct verdict *v)
{
	size_t i0, i1;
	double len;

	if (in->load_from_s < 0)
		return;
	len = in->load_to_s - in->load_from_s;
	phase_range(in, in->load_from_s, in->load_to_s, &i0, &i1);
	for (size_t i = i0; i < i1; i++) {
		if (in->pts[i].y > v->max_y)
			v->max_y = in->pts[i].y;
		v->queued += in->pts[i].y > 1;
	}
	v->load_samples = i1 - i0;
	v->to_s = in->load_to_s;
	v->from_s = in->load_from_s + (len > 0 ? VERDICT_SETTLE * len : 0) +
	    in->settle_s;
	if (v->from_s > v->to_s)
		v->from_s = v->to_s;
	phase_range(in, v->from_s, v->to_s, &i0, &i1);
	v->samples = i1 - i0;
	if (v->samples >= VERDICT_MIN_SAMPLES)
		trend(in->pts, i0, i1, v);
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

/* A capacity step's trend against its growth bound (values/s). */
static void
judge_step_trend(struct verdict *v, const char *s, const char *l,
    const char *h)
{
	char b[32];

	rate(v->growth_bound_per_s, b, sizeof(b));
	if (v->kept_up == 0) {
		v->cause = VERDICT_BY_TREND_UP;
		SAY("significant_ops_pending grew %s values/s (95 %% interval "
		    "%s to %s) from %.1f to %.1f s, over the step's bound of "
		    "%s values/s.", s, l, h, v->from_s, v->to_s, b);
	} else if (v->kept_up == 1) {
		v->cause = VERDICT_BY_TREND_BOUNDED;
		SAY("significant_ops_pending stayed bounded from %.1f to %.1f "
		    "s: trend %s values/s (95 %% interval %s to %s), under the "
		    "step's bound of %s values/s.", v->from_s, v->to_s, s, l, h,
		    b);
	} else {
		v->cause = VERDICT_BY_TREND_UNSURE;
		SAY("the trend of significant_ops_pending, %s values/s (95 %% "
		    "interval %s to %s), straddles the step's bound of %s "
		    "values/s.", s, l, h, b);
	}
}

/* kept_up and its reason by the trend (rule step 7). */
static void
judge_trend(struct verdict *v)
{
	double lo = (v->slope - VERDICT_T * v->se) * 3600;
	double hi = (v->slope + VERDICT_T * v->se) * 3600;
	char s[32], l[32], h[32];

	rate(v->slope, s, sizeof(s));
	rate(lo / 3600, l, sizeof(l));
	rate(hi / 3600, h, sizeof(h));
	v->kept_up = lo > v->threshold ? 0 : hi < v->threshold ? 1 : -1;
	if (v->growth_bound_per_s > 0) {
		judge_step_trend(v, s, l, h);
		return;
	}
	if (lo > v->threshold) {
		v->cause = VERDICT_BY_TREND_UP;
		SAY("significant_ops_pending grew %s values/s (95 %% interval "
		    "%s to %s) from %.1f to %.1f s: at least %.0f more pending "
		    "in 1 h, over the %.0f allowed.", s, l, h, v->from_s,
		    v->to_s, lo, v->threshold);
	} else if (hi < v->threshold && lo > 0) {
		/* under the threshold, yet surely growing: not "bounded" */
		v->cause = VERDICT_BY_TREND_BOUNDED;
		SAY("significant_ops_pending grew by %s values/s (95 %% "
		    "interval %s to %s) from %.1f to %.1f s, under the material "
		    "backlog of %.0f in 1 h: at most %.0f more pending in 1 h.",
		    s, l, h, v->from_s, v->to_s, v->threshold, hi);
	} else if (hi < 0) {
		/* surely shrinking: the queue of the settle draining */
		v->cause = VERDICT_BY_TREND_BOUNDED;
		SAY("significant_ops_pending shrank from %.1f to %.1f s: trend "
		    "%s values/s (95 %% interval %s to %s), at least %.0f fewer "
		    "pending in 1 h.", v->from_s, v->to_s, s, l, h, -hi);
	} else if (hi < v->threshold) {
		v->cause = VERDICT_BY_TREND_BOUNDED;
		SAY("significant_ops_pending stayed bounded from %.1f to %.1f "
		    "s: trend %s values/s (95 %% interval %s to %s), at most "
		    "%.0f more pending in 1 h, under %.0f.", v->from_s,
		    v->to_s, s, l, h, hi, v->threshold);
	} else {
		v->cause = VERDICT_BY_TREND_UNSURE;
		SAY("the trend of significant_ops_pending, %s values/s (95 %% "
		    "interval %s to %s), can neither rule out nor show a "
		    "backlog of %.0f in 1 h; a longer run can tell.", s, l, h,
		    v->threshold);
	}
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
		    "rule needs %d.", v->samples, v->from_s, v->to_s,
		    VERDICT_MIN_SAMPLES);
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
	v->dropped = in->dropped;
	v->failed = in->failed;
	v->stopped_early = in->stopped_early;
	v->latency_p99_ms = in->latency_p99_ms;
	v->latency_bound_ms = in->latency_bound_ms;
	v->threshold = fmax(VERDICT_FLOOR,
	    VERDICT_FILES_SHARE * (double)in->files);
	if (in->growth_bound_per_s > 0) {
		v->growth_bound_per_s = in->growth_bound_per_s;
		v->threshold = 3600 * in->growth_bound_per_s;
	}
	measure(in, v);
	if (judge_counts(in, v) || judge_pace(in, v) || judge_samples(in, v))
		;
	else if (in->no_queue)
		judge_direct(in, v);
	else
		judge_trend(v);
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
	double lo = (v->slope - VERDICT_T * v->se) * 3600;
	double hi = (v->slope + VERDICT_T * v->se) * 3600;

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
	case VERDICT_BY_TREND_UP:
		return !(long_enough && lo >= 2 * v->threshold);
	case VERDICT_BY_TREND_BOUNDED:
		return !(long_enough && hi <= v->threshold / 2);
	default:
		return true;
	}
}

/* d as a JSON number, or null when not finite or when !have. */
static json_object *
num_or_null(bool have, double d)
{
	return have && isfinite(d) ? json_object_new_double(d) : NULL;
}

json_object *
verdict_json(const struct verdict *v)
{
	json_object *o = json_object_new_object(), *p;

	json_object_object_add(o, "kept_up", v->kept_up < 0 ? NULL :
	    json_object_new_boolean(v->kept_up == 1));
	json_object_object_add(o, "reason", json_object_new_string(v->reason));
	json_object_object_add(o, "rule", json_object_new_int(VERDICT_RULE));
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
	json_object_object_add(o, "backlog_in_1h",
	    num_or_null(v->have_slope, v->backlog_1h));
	json_object_object_add(o, "backlog_threshold",
	    json_object_new_double(v->threshold));
	if (v->growth_bound_per_s > 0)
		json_object_object_add(o, "growth_bound_per_s",
		    json_object_new_double(v->growth_bound_per_s));
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
			    ceil(VERDICT_MIN_SAMPLES * in->sample_interval /
			    (1 - VERDICT_SETTLE)));
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
