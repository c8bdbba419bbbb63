/* A run as a step of a capacity search: its figures for capacity.c (the
 * verdict with the step's own bound, the queue, latency and CPU) and the
 * tag its record carries. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpustat.h"
#include "hist.h"
#include "loadgen.h"
#include "runpriv.h"
#include "util.h"
#include "verdict.h"

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Mean and p99 of the points in [from, to]. */
static void
queue_of(const struct verdict_input *in, double from, double to,
    struct run_step *f)
{
	double *ys = calloc(in->npts > 0 ? in->npts : 1, sizeof(*ys)), sum = 0;
	size_t n = 0;

	for (size_t i = 0; ys != NULL && i < in->npts; i++)
		if (in->pts[i].t >= from && in->pts[i].t <= to) {
			ys[n++] = in->pts[i].y;
			sum += in->pts[i].y;
		}
	if (n > 0) {
		qsort(ys, n, sizeof(*ys), by_value);
		f->queue_avg = sum / (double)n;
		f->queue_p99 = ys[(size_t)((double)(n - 1) * 0.99)];
	}
	free(ys);
}

/* CPU shares over the run so far: per writer, and of the machine. */
static void
cpu_of(struct run *r, double wall, struct run_step *f)
{
	struct cpustat now;
	const struct cpustat *end = &r->cpu1;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (run_active(r)) {
		if (cpustat_read(&now) == -1)
			return;
		end = &now;
	}
	if (!r->cpu0.valid || !end->valid || wall <= 0)
		return;
	f->cpu_writers_pct = 100 * (double)(end->role[CPUSTAT_WRITERS] -
	    r->cpu0.role[CPUSTAT_WRITERS]) / 1e9 / wall /
	    (double)(r->p.write_threads > 0 ? r->p.write_threads : 1);
	f->cpu_process_pct = 100 * (double)(end->process - r->cpu0.process) /
	    1e9 / wall / (double)(ncpu > 0 ? ncpu : 1);
}

void
run_step_figures(struct run *r, double settle_s, double rate,
    double growth_share, struct verdict *v, struct run_step *f)
{
	struct queue_counters c;
	struct verdict_input in;
	struct verdict_point *pts = NULL;
	uint64_t generated;
	double now, p99, share;

	memset(f, 0, sizeof(*f));
	if (run_active(r)) {
		run_snapshot(r, &c);
		generated = r->lg != NULL ? loadgen_generated(r->lg) : 0;
		now = c.taken_at;
	} else {
		c = r->final;
		generated = r->generated;
		now = r->end_mono;
	}
	pthread_mutex_lock(&r->lat.mu);
	p99 = runview_e2p_p99_ms(r->lat.e2p);
	pthread_mutex_unlock(&r->lat.mu);
	runview_verdict_input(r, &c, generated, p99, now, &in, &pts);
	/* The settle is not judged: the step's queue forms in it. */
	if (in.load_from_s >= 0)
		in.load_from_s += settle_s;
	share = c.enqueued > 0 ? (double)c.significant_ops_enqueued /
	    (double)c.enqueued : 1;
	/* Growth under this share of what was offered: the storage wrote
	 * all but that share of it. */
	f->growth_bound_per_s = growth_share * rate * share;
	in.growth_bound_per_s = f->growth_bound_per_s > 0 ?
	    f->growth_bound_per_s : 1e-9;
	verdict_compute(&in, v);
	f->load_s = in.load_from_s >= 0 ? in.load_to_s - in.load_from_s +
	    settle_s : 0;
	queue_of(&in, v->from_s, v->to_s, f);
	f->latency_p99_ms = p99;
	f->dropped = c.dropped;
	f->failed = c.updates_failed + c.creates_failed;
	cpu_of(r, now - r->start_mono, f);
	free(pts);
}

void
run_set_capacity(struct run *r, unsigned id, int step, double rate)
{
	r->cap_id = id;
	r->cap_step = step;
	r->cap_rate = rate;
}
