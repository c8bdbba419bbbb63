/* Unit tests of daemon/latwin.c: the latency of the values recorded
 * since a moment, and the thinning that keeps the snapshots bounded and
 * evenly spaced. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hist.h"
#include "latwin.h"

/* Samples s0 .. s0+n-1 at t = s: each records ten values of (s + 1) us
 * into now, then the window samples it. */
static void
feed(struct latwin *w, struct hist *now, unsigned s0, unsigned n)
{
	for (unsigned s = s0; s < s0 + n; s++) {
		for (int k = 0; k < 10; k++)
			hist_record(now, (uint64_t)(s + 1) * 1000);
		assert_int_equal(latwin_add(w, s, now), 0);
	}
}

static void
test_since(void **state)
{
	struct hist *now = hist_create(), *out = hist_create();
	struct latwin w;
	double from;

	(void)state;
	assert_non_null(now);
	assert_non_null(out);
	latwin_init(&w);
	/* before any snapshot: all of it */
	hist_record(now, 5);
	latwin_since(&w, now, 10, out, &from);
	assert_int_equal(hist_count(out), 1);
	assert_true(from == 0);
	hist_reset(now);
	feed(&w, now, 0, 10);
	/* the snapshot at 4 holds samples 0 .. 4: 5 .. 9 are left */
	latwin_since(&w, now, 4.5, out, &from);
	assert_true(from == 4);
	assert_int_equal(hist_count(out), 50);
	assert_true(hist_max(out) == 10000);
	assert_true(hist_min(out) <= 6000 && hist_min(out) >= 5900);
	/* at the last snapshot: nothing since */
	latwin_since(&w, now, 100, out, &from);
	assert_true(from == 9);
	assert_int_equal(hist_count(out), 0);
	latwin_free(&w);
	hist_destroy(now);
	hist_destroy(out);
}

static void
test_thinning(void **state)
{
	struct hist *now = hist_create(), *out = hist_create();
	struct latwin w;
	double from;

	(void)state;
	latwin_init(&w);
	feed(&w, now, 0, 100);
	/* 32 at every sample, thinned at 32 and 64: every 4th, 0 .. 96 */
	assert_int_equal(w.n, 25);
	assert_int_equal(w.stride, 4);
	for (size_t i = 0; i < w.n; i++)
		assert_true(w.at[i] == 4.0 * (double)i);
	latwin_since(&w, now, 50.5, out, &from);
	assert_true(from == 48);
	assert_int_equal(hist_count(out), 510);	/* samples 49 .. 99 */
	/* a day of samples: still bounded, evenly spaced */
	feed(&w, now, 100, 86400);
	assert_true(w.n <= LATWIN_KEEP && w.n >= LATWIN_KEEP / 2);
	for (size_t i = 1; i < w.n; i++)
		assert_true(w.at[i] - w.at[i - 1] == (double)w.stride);
	latwin_free(&w);
	hist_destroy(now);
	hist_destroy(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_since),
		cmocka_unit_test(test_thinning),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
