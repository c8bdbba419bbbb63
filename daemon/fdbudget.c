/* The descriptor budget; see fdbudget.h. */
#include <sys/resource.h>

#include "fdbudget.h"

static unsigned
min_u(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

int
fdbudget_split(unsigned limit, struct fdbudget *b)
{
	unsigned rest;

	if (limit < 16)
		return -1;
	b->limit = limit;
	b->reserve = min_u(FDBUDGET_ENGINE + FDBUDGET_PASSED +
	    FDBUDGET_PER_WRITER * FDBUDGET_WRITERS, limit / 2);
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

unsigned
fdbudget_raise_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return 1024;	/* the usual default; nothing better known */
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
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > FDBUDGET_MAX_LIMIT)
		return FDBUDGET_MAX_LIMIT;
	return (unsigned)rl.rlim_cur;
}
