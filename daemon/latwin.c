/* Latency since a moment, from snapshots of a cumulative histogram. */
#include <string.h>

#include "hist.h"
#include "latwin.h"

void
latwin_init(struct latwin *w)
{
	memset(w, 0, sizeof(*w));
	w->stride = 1;
}

void
latwin_free(struct latwin *w)
{
	for (size_t i = 0; i < LATWIN_KEEP; i++)
		hist_destroy(w->snap[i]);
	memset(w, 0, sizeof(*w));
}

/* Keep every other snapshot (the first, the third, ...); the others'
 * histograms go to the free slots at the end for reuse. */
static void
thin(struct latwin *w)
{
	size_t k = 0;

	for (size_t i = 0; i < w->n; i += 2, k++) {
		struct hist *h = w->snap[k];

		w->snap[k] = w->snap[i];
		w->snap[i] = h;
		w->at[k] = w->at[i];
	}
	w->n = k;
	w->stride *= 2;
}

int
latwin_add(struct latwin *w, double t, const struct hist *now)
{
	if (w->calls++ % w->stride != 0)
		return 0;
	if (w->n == LATWIN_KEEP) {
		thin(w);
		/* this call is still on the doubled stride's grid */
		if ((w->calls - 1) % w->stride != 0)
			return 0;
	}
	if (w->snap[w->n] == NULL && (w->snap[w->n] = hist_create()) == NULL)
		return -1;
	hist_reset(w->snap[w->n]);
	hist_merge(w->snap[w->n], now);
	w->at[w->n++] = t;
	return 0;
}

void
latwin_since(const struct latwin *w, const struct hist *now, double t,
    struct hist *out, double *from_s)
{
	size_t i = w->n;

	while (i > 0 && w->at[i - 1] > t)
		i--;
	hist_reset(out);
	hist_merge(out, now);
	*from_s = 0;
	if (i == 0)
		return;
	hist_subtract(out, w->snap[i - 1]);
	*from_s = w->at[i - 1];
}
