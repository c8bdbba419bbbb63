/* A run as a step of a capacity search: its figures for capacity.c (the
 * verdict by rule 2 after the step's settle, the queue, latency and CPU)
 * and the tag its record carries. */
#include <math.h>
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

/* Percent of wall s per thread of n that the ns from a to b are. */
static double
share(uint64_t a, uint64_t b, double wall, uint64_t n)
{
	return b > a ? 100 * (double)(b - a) / 1e9 / wall /
	    (double)(n > 0 ? n : 1) : 0;
}

void
run_step_cpu(const struct cpustat *from, const struct cpustat *to,
    double wall, const struct stress_params *p, struct run_step *f)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (!from->valid || !to->valid || wall <= 0)
		return;
	f->cpu_writers_pct = share(from->role[CPUSTAT_WRITERS],
	    to->role[CPUSTAT_WRITERS], wall, p->write_threads);
	f->cpu_writers_runq_pct = share(from->runq[CPUSTAT_WRITERS],
	    to->runq[CPUSTAT_WRITERS], wall, p->write_threads);
	f->cpu_generators_pct = share(from->role[CPUSTAT_GENERATORS],
	    to->role[CPUSTAT_GENERATORS], wall, p->threads);
	f->cpu_generators_runq_pct = share(from->runq[CPUSTAT_GENERATORS],
	    to->runq[CPUSTAT_GENERATORS], wall, p->threads);
	f->cpu_process_pct = share(from->process, to->process, wall,
	    (uint64_t)(ncpu > 0 ? ncpu : 1));
}

/* CPU shares over the run so far (capacity.c takes the load's own when
 * it has them). */
static void
cpu_of(struct run *r, double wall, struct run_step *f)
{
	struct cpustat now;
	const struct cpustat *end = &r->cpu1;

	if (run_active(r)) {
		if (cpustat_read(&now) == -1)
			return;
		end = &now;
	}
	run_step_cpu(&r->cpu0, end, wall, &r->p, f);
}

void
run_step_figures(struct run *r, double settle_s, struct verdict *v,
    struct run_step *f)
{
	struct queue_counters c;
	struct verdict_input in;
	struct steady_point *pts = NULL;
	uint64_t generated;
	double now, p99;

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
	p99 = runview_run_p99_ms(r);
	runview_verdict_input(r, &c, generated, p99, now, &in, &pts);
	in.settle_s = settle_s;
	verdict_compute(&in, v);
	f->load_s = in.load_from_s >= 0 ? in.load_to_s - in.load_from_s : 0;
	/* the queue judged: the steady window, else what follows the
	 * settle */
	if (v->steady.found)
		queue_of(&in, v->steady.from_s, v->steady.to_s, f);
	else
		queue_of(&in, fmin(v->from_s + settle_s, v->to_s), v->to_s, f);
	f->latency_p99_ms = p99;
	f->dropped = c.dropped;
	f->failed = c.updates_failed + c.creates_failed;
	cpu_of(r, now - r->start_mono, f);
	free(pts);
}

void
run_set_capacity(struct run *r, unsigned id, int step, double rate,
    double settle_s)
{
	r->cap_id = id;
	r->cap_step = step;
	r->cap_rate = rate;
	r->cap_settle_s = settle_s;
}
