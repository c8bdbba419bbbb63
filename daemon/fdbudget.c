/* The descriptor budget; see fdbudget.h. */
#include <limits.h>
#include <stddef.h>
#include <sys/resource.h>

#include "fdbudget.h"

static unsigned
min_u(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

/* a * b + c, or UINT_MAX if that does not fit. */
static unsigned
muladd(unsigned a, unsigned b, unsigned c)
{
	unsigned long long v = (unsigned long long)a * b + c;

	return v > UINT_MAX ? UINT_MAX : (unsigned)v;
}

unsigned
fdbudget_need(unsigned writers, unsigned generators)
{
	return muladd(writers, FDBUDGET_PER_WRITER, muladd(generators,
	    FDBUDGET_PER_GENERATOR, FDBUDGET_ENGINE + FDBUDGET_PASSED));
}

int
fdbudget_split(unsigned limit, unsigned need, struct fdbudget *b)
{
	unsigned rest, standing;

	if (limit < 16)
		return -1;
	standing = min_u(fdbudget_need(FDBUDGET_WRITERS, 0), limit / 2);
	if (need > standing && (need > limit ||
	    limit - need < FDBUDGET_MIN_CLIENTS))
		return -1;
	b->limit = limit;
	b->reserve = need > standing ? need : standing;
	rest = limit - b->reserve;
	b->metrics = min_u(FDBUDGET_MAX_METRICS, rest / 8);
	if (b->metrics == 0)
		b->metrics = 1;
	b->control = min_u(FDBUDGET_MAX_CONTROL, rest - b->metrics);
	b->privileged = b->control / 16;
	if (b->privileged < FDBUDGET_MIN_PRIVILEGED)
		b->privileged = FDBUDGET_MIN_PRIVILEGED;
	b->privileged = min_u(b->privileged, b->control / 2);
	b->per_uid = (b->control - b->privileged) / 2;
	if (b->per_uid == 0)
		b->per_uid = 1;
	return 0;
}

int
fdbudget_admit(unsigned limit, unsigned need, unsigned control,
    unsigned metrics, struct fdbudget *b)
{
	if (fdbudget_split(limit, need, b) == -1)
		return -1;
	return control > b->control || metrics > b->metrics;
}

unsigned
fdbudget_max_writers(unsigned limit, unsigned generators, unsigned control,
    unsigned metrics, unsigned max)
{
	struct fdbudget b;

	/* Each writer fewer leaves the clients more: the first that fits
	 * is the most.  Bounded: past limit / PER_WRITER none fits. */
	if (max > limit / FDBUDGET_PER_WRITER)
		max = limit / FDBUDGET_PER_WRITER;
	for (unsigned w = max; w > 0; w--)
		if (fdbudget_admit(limit, fdbudget_need(w, generators), control,
		    metrics, &b) == 0)
			return w;
	return 0;
}

/* A limit as the budget counts it. */
static unsigned
clamp(rlim_t v)
{
	if (v == RLIM_INFINITY || v > FDBUDGET_MAX_LIMIT)
		return FDBUDGET_MAX_LIMIT;
	return (unsigned)v;
}

unsigned
fdbudget_raise_limit(unsigned *hard)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1) {
		if (hard != NULL)
			*hard = 1024;
		return 1024;	/* the usual default; nothing better known */
	}
	if (rl.rlim_cur < rl.rlim_max && rl.rlim_cur < FDBUDGET_MAX_LIMIT) {
		rlim_t want = rl.rlim_max < FDBUDGET_MAX_LIMIT ? rl.rlim_max :
		    FDBUDGET_MAX_LIMIT;

		if (want > rl.rlim_cur) {
			rlim_t old = rl.rlim_cur;

			rl.rlim_cur = want;
			if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
				rl.rlim_cur = old;
		}
	}
	if (hard != NULL)
		*hard = clamp(rl.rlim_max);
	return clamp(rl.rlim_cur);
}
