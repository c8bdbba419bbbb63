/*
 * until_steady (stressd(8) "How long to run"): instead of a fixed count,
 * the run's load goes on at its rate, max_updates / update_time, until
 * its verdict is decided or until_steady s of load have passed (the
 * generators' limit, loadgen_limit).  At each sample the verdict is
 * judged on the samples so far, by the same rule the record's uses; once
 * decided, the load phase ends at that sample, so the record's verdict
 * is judged on the same window.  A steady window decides it never
 * before VERDICT_WINDOW_MIN_LOAD_S of load (or the last sample before the
 * maximum, 1.5 sample intervals before it, if that is sooner): a fast
 * storage is "steady" after its 30 samples, 3 s at 0.1 s, a window that
 * holds none of the kernel's periodic writeback
 * (vm.dirty_expire_centisecs, 30 s by default; ext4's journal commit,
 * 5 s), so says little of the storage under it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "loadgen.h"
#include "log.h"
#include "runpriv.h"
#include "verdict.h"

static double
load_s(const struct run *r)
{
	return r->load_end_mono - r->load_start_mono;
}

void
rununtil_check(struct run *r, const struct queue_counters *c)
{
	struct verdict_input in;
	struct verdict v;
	struct steady_point *pts;
	double p99;

	if (r->p.until_steady <= 0 || r->state != RUN_RUNNING ||
	    r->lg == NULL || r->until_ended != RUN_UNTIL_NOT)
		return;
	p99 = runview_run_p99_ms(r);
	runview_verdict_input(r, c, loadgen_generated(r->lg), p99, c->taken_at,
	    &in, &pts);
	verdict_compute(&in, &v);
	free(pts);
	if (!verdict_may_end_load(&v, c->taken_at - r->load_start_mono,
	    r->p.until_steady, r->p.sample_interval))
		return;
	r->until_ended = verdict_by_window(&v) ? RUN_UNTIL_STEADY :
	    RUN_UNTIL_DECIDED;
	r->load_end_mono = c->taken_at;
	loadgen_stop(r->lg);
	snprintf(r->reason, sizeof(r->reason), "%s after %.1f s of load "
	    "(until_steady %g s)", verdict_by_window(&v) ? "steady" :
	    "decided",
	    load_s(r), r->p.until_steady);
	log_info("run %u: %s", r->id, r->reason);
}

void
rununtil_loaded(struct run *r)
{
	if (r->p.until_steady <= 0 || r->until_ended != RUN_UNTIL_NOT ||
	    r->stop_requested || r->failed)
		return;
	r->until_ended = RUN_UNTIL_MAX;
	snprintf(r->reason, sizeof(r->reason), "undecided after %g s of load "
	    "(until_steady %g s)", r->p.until_steady, r->p.until_steady);
}

const char *
rununtil_name(const struct run *r)
{
	static const char *const names[] = { NULL, "steady", "decided",
	    "max" };

	return names[r->until_ended];
}

double
rununtil_after_s(const struct run *r)
{
	return r->until_ended != RUN_UNTIL_NOT && r->load_end_mono > 0 ?
	    load_s(r) : -1;
}

void
rununtil_plan(const struct run *r, uint64_t generated, uint64_t *max,
    double *update_time)
{
	*max = r->p.max_updates;
	*update_time = r->p.update_time;
	if (r->p.until_steady <= 0)
		return;
	if (r->until_ended != RUN_UNTIL_NOT && !run_active(r)) {
		/* what was generated, at the same rate */
		*max = generated;
		*update_time = r->p.update_time * (double)generated /
		    (double)r->p.max_updates;
		return;
	}
	*max = loadgen_limit(&r->p);
	*update_time = r->p.until_steady;
}
