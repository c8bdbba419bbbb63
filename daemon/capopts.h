/*
 * The `capacity` command's own arguments (the knobs are the runs') and
 * their defaults: what request.c checks them into and the search takes.
 * A module of its own, below both, so the request checks need not know
 * the search that runs them.
 */
#ifndef STRESSD_CAPOPTS_H
#define STRESSD_CAPOPTS_H

#include <stddef.h>

#define CAPOPTS_MAX_DIRS	16
/* The search's defaults (man stressctl, CAPACITY). */
#define CAPOPTS_START_RATE	100.0
#define CAPOPTS_MAX_RATE	1000000.0
#define CAPOPTS_PRECISION_PCT	10.0
#define CAPOPTS_STEP_MIN_S	10.0
#define CAPOPTS_STEP_MAX_S	30.0
#define CAPOPTS_SETTLE_S	2.0
#define CAPOPTS_REPEATS		1
#define CAPOPTS_LATENCY_BOUND_S	5.0
#define CAPOPTS_SAMPLE_INTERVAL	0.1

struct capopts {
	double		 start_rate, max_rate, precision_pct;
	double		 step_min, step_max, settle;
	int		 repeats;
	size_t		 ndirs;
	char		*dirs[CAPOPTS_MAX_DIRS];
	char		*labels[CAPOPTS_MAX_DIRS];	/* NULL: the knob's */
};

/* Free the strings; o is empty after (freeing twice is harmless). */
void	capopts_free(struct capopts *o);

#endif
