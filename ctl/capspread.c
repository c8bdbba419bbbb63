/* A capacity directory's spread at its capacity and its grid in words
 * (see capspread.h). */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "capspread.h"
#include "fmt.h"

/* "a to b" of mm, without decimals from 100 on: the line stays within
 * 80 columns. */
static char *
range_text(const double mm[2], int dec)
{
	return fmt_xprintf("%.*f to %.*f", mm[0] >= 100 ? 0 : dec, mm[0],
	    mm[1] >= 100 ? 0 : dec, mm[1]);
}

char *
capspread_text(const struct caprec_dir *d)
{
	const double *q = d->spread_queue_avg, *l = d->spread_latency_p99_ms;
	bool hl = !isnan(l[0]) && !isnan(l[1]);
	char *qt, *lt, *t;

	if (!d->has_spread || d->spread_steps < 2 || isnan(q[0]) ||
	    isnan(q[1]))
		return NULL;
	qt = range_text(q, 2);
	lt = hl ? range_text(l, 1) : fmt_xstrdup("");
	t = fmt_xprintf("%" PRId64 " steps: queue avg %s%s%s%s",
	    d->spread_steps, qt, hl ? ", latency p99 " : "", lt,
	    hl ? " ms" : "");
	free(qt);
	free(lt);
	return t;
}

char *
capspread_grid_text(const struct caprec_dir *d)
{
	double r = d->first_rate;

	if (isnan(r) || isnan(d->jitter))
		return NULL;
	/* As capview_rate: whole updates/s from 100 on. */
	return fmt_xprintf(fabs(r) >= 100 && fabs(r) < 1e15 ?
	    "from %.0f updates/s: the start rate x %.4g, drawn at random" :
	    "from %.3g updates/s: the start rate x %.4g, drawn at random", r,
	    d->jitter);
}
