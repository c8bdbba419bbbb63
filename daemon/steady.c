/* The steady window of a run's queue (rule in steady.h). */
#include <math.h>
#include <string.h>

#include "steady.h"

const char *
steady_why_name(enum steady_why w)
{
	static const char *const names[] = {
		NULL, "filling", "emptying", "noisy", "short",
	};

	return (unsigned)w <= STEADY_SHORT ? names[w] : NULL;
}

void
steady_span(const struct steady_point *pts, size_t n, double from,
    double to, size_t *i0, size_t *i1)
{
	size_t i = 0;

	while (i < n && pts[i].t < from)
		i++;
	*i0 = i;
	while (i < n && pts[i].t <= to)
		i++;
	*i1 = i;
}

void
steady_range(const struct steady_point *pts, size_t n,
    struct steady_stats *s)
{
	double sum = 0;

	memset(s, 0, sizeof(*s));
	s->n = n;
	for (size_t i = 0; i < n; i++) {
		sum += pts[i].y;
		if (i == 0 || pts[i].y < s->min)
			s->min = pts[i].y;
		if (i == 0 || pts[i].y > s->max)
			s->max = pts[i].y;
	}
	s->mean = n > 0 ? sum / (double)n : 0;
}

void
steady_trend(const struct steady_point *pts, size_t n,
    struct steady_line *l)
{
	double bt[STEADY_BATCHES], by[STEADY_BATCHES];
	double mt = 0, my = 0, sxx = 0, sxy = 0, rss = 0;

	memset(l, 0, sizeof(*l));
	if (n < STEADY_BATCHES)
		return;
	for (size_t b = 0; b < STEADY_BATCHES; b++) {
		size_t lo = b * n / STEADY_BATCHES;
		size_t hi = (b + 1) * n / STEADY_BATCHES;

		bt[b] = by[b] = 0;
		for (size_t i = lo; i < hi; i++) {
			bt[b] += pts[i].t;
			by[b] += pts[i].y;
		}
		bt[b] /= (double)(hi - lo);
		by[b] /= (double)(hi - lo);
		mt += bt[b] / STEADY_BATCHES;
		my += by[b] / STEADY_BATCHES;
	}
	for (size_t b = 0; b < STEADY_BATCHES; b++) {
		sxx += (bt[b] - mt) * (bt[b] - mt);
		sxy += (bt[b] - mt) * (by[b] - my);
	}
	if (!(sxx > 0))
		return;
	l->slope = sxy / sxx;
	for (size_t b = 0; b < STEADY_BATCHES; b++) {
		double r = by[b] - my - l->slope * (bt[b] - mt);

		rss += r * r;
	}
	l->se = sqrt(rss / (STEADY_BATCHES - 2) / sxx);
	l->ok = true;
}

/* Judge the window [from, b] into *s; true when it is steady. */
static bool
judge_window(const struct steady_point *pts, size_t n, double from, double b,
    double len, double dt, const struct steady_load *ld, struct steady *s)
{
	struct steady_stats st;
	size_t i0, i1;
	double w, lo, hi, level_tol, max_growth;

	steady_span(pts, n, from, b, &i0, &i1);
	if (i1 - i0 < STEADY_MIN_SAMPLES)
		return false;
	steady_range(pts + i0, i1 - i0, &st);
	steady_trend(pts + i0, i1 - i0, &s->line);
	s->from_s = from;
	s->to_s = b;
	s->samples = st.n;
	s->level = st.mean;
	s->min = st.min;
	s->max = st.max;
	level_tol = fmax(fmax(STEADY_LEVEL_SHARE * st.mean, ld->rate * dt),
	    STEADY_FLOOR);
	s->tolerance = fmax(level_tol, STEADY_FILES_SHARE * (double)ld->files);
	w = pts[i1 - 1].t - pts[i0].t;
	/* a rise the level's tolerance holds over the whole phase, or one
	 * that moves the latency by less than the bound in an hour */
	max_growth = fmax(ld->rate * ld->bound_s / STEADY_HORIZON_S,
	    len > 0 ? level_tol / len : 0);
	lo = (s->line.slope - STEADY_T * s->line.se) * w;
	hi = (s->line.slope + STEADY_T * s->line.se) * w;
	if (s->line.ok && lo >= -s->tolerance && hi <= s->tolerance &&
	    !(max_growth > 0 && s->line.slope + STEADY_T * s->line.se >
	    max_growth))
		return true;
	/* filling or emptying only when surely so: noise is noisy */
	s->why_not = lo > 0 ? STEADY_FILLING : hi < 0 ? STEADY_EMPTYING :
	    STEADY_NOISY;
	return false;
}

void
steady_find(const struct steady_point *pts, size_t n, double a, double b,
    double dt, const struct steady_load *ld, struct steady *s)
{
	double len = b - a, need;

	memset(s, 0, sizeof(*s));
	s->why_not = STEADY_SHORT;
	for (int k = 0; len > 0 && k < STEADY_CANDIDATES; k++) {
		double from = a + k * len / STEADY_STEPS;

		if (judge_window(pts, n, from, b, len, dt, ld, s)) {
			s->found = true;
			s->why_not = STEADY_FOUND;
			s->fill_s = from - a;
			return;
		}
	}
	need = fmax(fmax(4.0 / 3.0 * len, len + STEADY_MIN_SAMPLES * dt),
	    4 * STEADY_MIN_SAMPLES * dt);
	/* 4/3 of 60 must be 80, not a rounding error's 81 */
	s->need_s = ceil(need - 1e-9 * need);
}
