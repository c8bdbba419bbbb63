/* The capacity search's plan for one directory; see capsearch.h. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "capsearch.h"

/* x (> 0) to digits significant digits. */
static double
round_sig(double x, int digits)
{
	double e = floor(log10(x)) - (digits - 1);

	/* Divided by a whole power of ten, not multiplied by a fraction of
	 * one: 459 / 10 is the double nearest 45.9, 459 * 0.1 is not. */
	return e >= 0 ? round(x / pow(10, e)) * pow(10, e) :
	    round(x * pow(10, -e)) / pow(10, -e);
}

void
capsearch_init(struct capsearch *s, double start, double max,
    double precision, int repeats, double jitter)
{
	memset(s, 0, sizeof(*s));
	s->start = start;
	s->max = max;
	s->precision = precision;
	s->repeats = repeats;
	/* !(a && b), not (!a || !b): NAN is no factor either. */
	s->jitter = !(jitter >= 1 && jitter < CAPSEARCH_GROWTH) ? 1 : jitter;
	/* Rid of the last bits' noise (100 x 1.82 is 181.99999999999997),
	 * which records printed with all digits would show. */
	s->first = fmin(fmax(start, round_sig(start * s->jitter, 12)), max);
	s->rate = s->first;
	s->phase = CAPSEARCH_GROW;
}

static void
finish(struct capsearch *s, enum capsearch_end end)
{
	s->done = true;
	s->end = end;
}

double
capsearch_jitter(uint64_t r)
{
	uint64_t n = (uint64_t)((CAPSEARCH_GROWTH - 1) * 1000);

	/* 1820 / 1000 is the double nearest 1.82, 1 + 820 / 1000 is not. */
	return (double)(1000 + r % n) / 1000;
}

/* The highest rate that kept up below hi, or 0. */
static double
kept_below(const struct capsearch *s, double hi)
{
	double best = 0;

	for (int i = 0; i < s->nkept; i++)
		if (s->kept[i] < hi && s->kept[i] > best)
			best = s->kept[i];
	return best;
}

/* x to 3 significant digits, for rates a person reads, unless that
 * leaves the open interval (lo, hi). */
static double
round3(double x, double lo, double hi)
{
	double r = round_sig(x, 3);

	return r > lo && r < hi ? r : x;
}

/* Next step once both ends are known: bisect, or repeat, or done. */
static void
narrow(struct capsearch *s)
{
	if (s->hi <= s->lo * (1 + s->precision) + 1e-9) {
		if (s->phase != CAPSEARCH_REPEAT)
			s->repeats_left = s->repeats;
		if (s->repeats_left <= 0) {
			finish(s, CAPSEARCH_FOUND);
			return;
		}
		s->phase = CAPSEARCH_REPEAT;
		s->rate = s->lo;
		return;
	}
	s->phase = CAPSEARCH_BISECT;
	s->rate = round3(sqrt(s->lo * s->hi), s->lo, s->hi);
}

static void
go_down(struct capsearch *s)
{
	double floor = fmax(1, s->start / CAPSEARCH_FLOOR_DIV);

	s->phase = CAPSEARCH_DOWN;
	s->rate = s->hi / CAPSEARCH_GROWTH;
	if (s->rate < floor)
		finish(s, CAPSEARCH_NONE_KEPT);
}

void
capsearch_result(struct capsearch *s, bool kept_up)
{
	if (s->done)
		return;
	s->steps++;
	if (kept_up) {
		if (s->nkept < CAPSEARCH_MAX_KEPT)
			s->kept[s->nkept++] = s->rate;
		if (s->phase == CAPSEARCH_REPEAT)
			s->repeats_left--;
		else
			s->lo = s->rate;
	} else if (s->phase == CAPSEARCH_REPEAT) {
		/* The rate found did not hold: it is the new upper end. */
		s->hi = s->lo;
		for (int i = 0; i < s->nkept; i++)
			if (s->kept[i] >= s->hi)
				s->kept[i] = 0;
		s->lo = kept_below(s, s->hi);
		s->phase = CAPSEARCH_BISECT;
	} else
		s->hi = s->rate;
	if (s->steps >= CAPSEARCH_MAX_STEPS) {
		finish(s, CAPSEARCH_TOO_MANY);
		return;
	}
	if (s->hi == 0) {		/* growing: nothing fell behind yet */
		if (s->rate >= s->max) {
			finish(s, CAPSEARCH_MAX_RATE);
			return;
		}
		s->rate = fmin(s->rate * CAPSEARCH_GROWTH, s->max);
		return;
	}
	if (s->lo == 0)
		go_down(s);
	else
		narrow(s);
}

const char *
capsearch_phase_name(enum capsearch_phase p)
{
	static const char *const names[] = {
		"grow", "down", "bisect", "repeat"
	};

	return names[p];
}
