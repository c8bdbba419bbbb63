/*
 * The capacity search's plan for one directory, as a pure state machine:
 * which offered rate the next step runs at, given whether the steps so
 * far kept up.  Grow geometrically (x CAPSEARCH_GROWTH) from the start
 * rate until a step falls behind (or down, halving, when the first one
 * does); then bisect (geometric mean) between the highest rate that kept
 * up and the lowest that did not, until their ratio is within 1 +
 * precision; then run the rate found `repeats` more times, and should a
 * repeat fall behind, take that rate as the new upper end and go on.
 * No knowledge of runs: capacity.c feeds it, tests/unit/capsearch checks
 * it.
 *
 * The grid is offset by a factor (jitter) in [1, CAPSEARCH_GROWTH): the
 * first step runs at start x jitter, so that searches drawn with other
 * factors step at other rates (the same rates again would only repeat
 * the same figures).  The factor is the caller's (capacity.c draws it):
 * this stays pure.
 */
#ifndef STRESSD_CAPSEARCH_H
#define STRESSD_CAPSEARCH_H

#include <stdbool.h>
#include <stdint.h>

#define CAPSEARCH_GROWTH	2.0
/* Going down stops below start / CAPSEARCH_FLOOR_DIV (or 1 update/s). */
#define CAPSEARCH_FLOOR_DIV	1024.0
/* Steps of one directory at most (a bound, not expected to be met). */
#define CAPSEARCH_MAX_STEPS	64
#define CAPSEARCH_MAX_KEPT	CAPSEARCH_MAX_STEPS

enum capsearch_phase {
	CAPSEARCH_GROW, CAPSEARCH_DOWN, CAPSEARCH_BISECT, CAPSEARCH_REPEAT
};

/* Why a directory's search ended. */
enum capsearch_end {
	CAPSEARCH_FOUND,	/* bracketed within the precision */
	CAPSEARCH_MAX_RATE,	/* kept up at max_rate: the limit is above */
	CAPSEARCH_NONE_KEPT,	/* fell behind down to the floor */
	CAPSEARCH_TOO_MANY,	/* CAPSEARCH_MAX_STEPS reached */
};

struct capsearch {
	double			 start, max, precision;	/* precision: 0.1 */
	double			 jitter;	/* in [1, CAPSEARCH_GROWTH) */
	double			 first;		/* the first step's rate */
	int			 repeats;
	double			 rate;		/* of the next step */
	enum capsearch_phase	 phase;		/* of the next step */
	double			 lo, hi;	/* kept up, fell behind; 0 none */
	int			 repeats_left;
	int			 steps;
	bool			 done;
	enum capsearch_end	 end;
	double			 kept[CAPSEARCH_MAX_KEPT];	/* rates */
	int			 nkept;
};

/* jitter outside [1, CAPSEARCH_GROWTH) counts as 1; a first step above
 * max runs at max. */
void	capsearch_init(struct capsearch *s, double start, double max,
	    double precision, int repeats, double jitter);
/* A factor for capsearch_init from a random number r: uniform over
 * [1, CAPSEARCH_GROWTH) in steps of 0.001, a figure a person reads. */
double	capsearch_jitter(uint64_t r);
/* The step at s->rate ended: it kept up or not. */
void	capsearch_result(struct capsearch *s, bool kept_up);
const char *capsearch_phase_name(enum capsearch_phase p);

#endif
