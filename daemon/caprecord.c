/* The capacity search's record (capacity.json) and the judgement of each
 * directory from its steps; see capstate.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "capstate.h"
#include "log.h"
#include "memcap.h"
#include "report.h"
#include "runrecords.h"
#include "runsindex.h"
#include "util.h"

const char *
capstate_name(enum capstate_state s)
{
	static const char *const names[] = {
		"running", "done", "stopped", "failed"
	};

	return names[s];
}

struct capstep *
capstate_add_step(struct capstate *c)
{
	if (c->nsteps == c->capsteps) {
		int n = c->capsteps ? c->capsteps * 2 : 32;
		struct capstep *ns = realloc(c->steps, (size_t)n *
		    sizeof(*ns));

		if (ns == NULL)
			return NULL;
		c->steps = ns;
		c->capsteps = n;
	}
	memset(&c->steps[c->nsteps], 0, sizeof(c->steps[0]));
	return &c->steps[c->nsteps++];
}

/* The last step of directory d at rate whose kept_up is (or is not) 1. */
static int
step_at(const struct capstate *c, size_t d, double rate, bool kept)
{
	for (int i = c->nsteps - 1; i >= 0; i--)
		if (c->steps[i].dir == d && c->steps[i].rate == rate &&
		    (c->steps[i].kept_up == 1) == kept)
			return i + 1;
	return 0;
}

void
capstate_judge_dir(struct capstate *c, size_t d)
{
	struct capdir *cd = &c->dirs[d];
	const struct capstep *b;

	cd->lo = c->cs.lo;
	cd->hi = c->cs.hi;
	cd->at_step = cd->lo > 0 ? step_at(c, d, cd->lo, true) : 0;
	cd->behind_step = cd->hi > 0 ? step_at(c, d, cd->hi, false) : 0;
	cd->limited_by = NULL;
	cd->limit_reason[0] = '\0';
	b = cd->behind_step > 0 ? &c->steps[cd->behind_step - 1] : NULL;
	if (c->cs.done && c->cs.end == CAPSEARCH_MAX_RATE) {
		cd->limited_by = "max_rate";
		snprintf(cd->limit_reason, sizeof(cd->limit_reason), "kept up "
		    "at the maximum rate asked, %.0f updates/s: the limit is "
		    "higher (raise max_rate to find it)", cd->lo);
	} else if (c->cs.done && c->cs.end == CAPSEARCH_TOO_MANY) {
		cd->limited_by = "unknown";
		snprintf(cd->limit_reason, sizeof(cd->limit_reason), "the "
		    "search took %d steps without closing its bracket",
		    CAPSEARCH_MAX_STEPS);
	} else if (b != NULL && b->cpu_limited) {
		cd->limited_by = "cpu";
		snprintf(cd->limit_reason, sizeof(cd->limit_reason), "at %.0f "
		    "updates/s this machine's CPU was the limit (writers on a "
		    "CPU %.0f %% and waiting for one %.0f %% of the time each, "
		    "generators %.0f %% and %.0f %%, the process %.0f %% of "
		    "all CPUs%s): the figure is stressd's ceiling here, not "
		    "the storage's", b->rate, b->f.cpu_writers_pct,
		    b->f.cpu_writers_runq_pct, b->f.cpu_generators_pct,
		    b->f.cpu_generators_runq_pct, b->f.cpu_process_pct,
		    strstr(b->reason, "generat") != NULL ?
		    "; the generators missed their pace" : "");
	} else if (b != NULL) {
		cd->limited_by = "storage";
		snprintf(cd->limit_reason, sizeof(cd->limit_reason), "at %.0f "
		    "updates/s the storage %s while the writers were on a CPU "
		    "%.0f %% and waiting for one %.0f %% of the time each (the "
		    "process %.0f %% of all CPUs): they waited on the storage",
		    b->rate, b->kept_up == 0 ? "fell behind" : "could not be "
		    "shown to keep up by step_max (counted as not kept up)",
		    b->f.cpu_writers_pct, b->f.cpu_writers_runq_pct,
		    b->f.cpu_process_pct);
	}
}

/* d as a JSON number of at most 15 significant digits: a rate of 45.9
 * reads 45.9, not json-c's 45.899999999999999. */
static json_object *
dbl(double d)
{
	char buf[40];

	snprintf(buf, sizeof(buf), "%.15g", d);
	return json_object_new_double_s(d, buf);
}

static json_object *
num_or_null(bool have, double d)
{
	return have ? dbl(d) : NULL;
}

static void
add_figures(json_object *o, const struct run_step *f)
{
	json_object_object_add(o, "queue_avg",
	    dbl(f->queue_avg));
	json_object_object_add(o, "queue_p99",
	    dbl(f->queue_p99));
	json_object_object_add(o, "latency_p99_ms",
	    num_or_null(f->latency_p99_ms >= 0, f->latency_p99_ms));
	json_object_object_add(o, "cpu_writers_pct",
	    dbl(f->cpu_writers_pct));
	json_object_object_add(o, "cpu_writers_runq_pct",
	    dbl(f->cpu_writers_runq_pct));
	json_object_object_add(o, "cpu_generators_pct",
	    dbl(f->cpu_generators_pct));
	json_object_object_add(o, "cpu_generators_runq_pct",
	    dbl(f->cpu_generators_runq_pct));
	json_object_object_add(o, "cpu_process_pct",
	    dbl(f->cpu_process_pct));
}

static json_object *
step_json(const struct capstep *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "n", json_object_new_int(s->n));
	json_object_object_add(o, "dir_index",
	    json_object_new_int64((int64_t)s->dir));
	json_object_object_add(o, "run_id", json_object_new_int64(s->run_id));
	json_object_object_add(o, "phase",
	    json_object_new_string(capsearch_phase_name(s->phase)));
	json_object_object_add(o, "rate", dbl(s->rate));
	json_object_object_add(o, "state", json_object_new_string(s->state));
	json_object_object_add(o, "ended_early",
	    json_object_new_boolean(s->ended_early));
	json_object_object_add(o, "load_s",
	    dbl(s->f.load_s));
	json_object_object_add(o, "samples",
	    json_object_new_int64((int64_t)s->samples));
	add_figures(o, &s->f);
	json_object_object_add(o, "slope_per_s",
	    num_or_null(s->have_slope, s->slope));
	json_object_object_add(o, "slope_stderr",
	    num_or_null(s->have_slope, s->se));
	json_object_object_add(o, "steady", verdict_steady_json(&s->v));
	json_object_object_add(o, "latency_bound_ms",
	    dbl(s->v.latency_bound_ms));
	json_object_object_add(o, "cpu_limited",
	    json_object_new_boolean(s->cpu_limited));
	json_object_object_add(o, "dropped",
	    json_object_new_int64((int64_t)s->f.dropped));
	json_object_object_add(o, "failed",
	    json_object_new_int64((int64_t)s->f.failed));
	json_object_object_add(o, "kept_up", s->kept_up < 0 ? NULL :
	    json_object_new_boolean(s->kept_up == 1));
	json_object_object_add(o, "reason", json_object_new_string(s->reason));
	return o;
}

/* [min, max] of n values, or null when fewer than 2 (no spread). */
static json_object *
range_json(int n, const double mm[2])
{
	json_object *a;

	if (n < 2)
		return NULL;
	a = json_object_new_array();
	json_object_array_add(a, dbl(mm[0]));
	json_object_array_add(a, dbl(mm[1]));
	return a;
}

static void
widen(double mm[2], double x)
{
	if (x < mm[0])
		mm[0] = x;
	if (x > mm[1])
		mm[1] = x;
}

/* The steps of directory d at its capacity rate (the one that found it
 * and its repeats, as the search counted them): how many, and how far
 * their figures lie apart, which says what one step's figures are worth.
 * NULL with no capacity yet. */
static json_object *
spread_json(const struct capstate *c, size_t d)
{
	double q[2] = { INFINITY, -INFINITY }, l[2] = { INFINITY, -INFINITY };
	int n = 0, nl = 0;
	json_object *o;

	if (c->dirs[d].lo <= 0)
		return NULL;
	for (int i = 0; i < c->nsteps; i++) {
		const struct capstep *s = &c->steps[i];

		if (s->dir != d || s->rate != c->dirs[d].lo || s->kept_up != 1 ||
		    strcmp(s->state, "done") != 0)
			continue;
		n++;
		widen(q, s->f.queue_avg);
		if (s->f.latency_p99_ms >= 0) {
			nl++;
			widen(l, s->f.latency_p99_ms);
		}
	}
	o = json_object_new_object();
	json_object_object_add(o, "steps", json_object_new_int(n));
	json_object_object_add(o, "queue_avg", range_json(n, q));
	json_object_object_add(o, "latency_p99_ms", range_json(nl, l));
	return o;
}

/* The grid directory d's search stepped on; NULL before it began. */
static json_object *
grid_json(const struct capdir *cd)
{
	json_object *o;

	if (cd->first_rate <= 0)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "jitter", dbl(cd->jitter));
	json_object_object_add(o, "first_rate", dbl(cd->first_rate));
	return o;
}

static json_object *
dir_json(const struct capstate *c, size_t d)
{
	const struct capdir *cd = &c->dirs[d];
	json_object *o = json_object_new_object(), *at;
	const char *label = c->o.labels[d] != NULL ? c->o.labels[d] :
	    c->base.label;

	json_object_object_add(o, "dir", json_object_new_string(c->o.dirs[d]));
	json_object_object_add(o, "label", json_object_new_string(label));
	json_object_object_add(o, "fs_type", cd->at_step + cd->behind_step > 0 ?
	    json_object_new_string(c->steps[(cd->at_step > 0 ? cd->at_step :
	    cd->behind_step) - 1].fs_type) : NULL);
	json_object_object_add(o, "state", json_object_new_string(cd->state));
	json_object_object_add(o, "capacity_rate", num_or_null(cd->lo > 0,
	    cd->lo));
	json_object_object_add(o, "capacity_interval_s", num_or_null(cd->lo >
	    0, (double)c->base.files / (cd->lo > 0 ? cd->lo : 1)));
	json_object_object_add(o, "behind_rate", num_or_null(cd->hi > 0,
	    cd->hi));
	json_object_object_add(o, "behind_reason", cd->behind_step > 0 ?
	    json_object_new_string(c->steps[cd->behind_step - 1].reason) :
	    NULL);
	json_object_object_add(o, "limited_by", cd->limited_by != NULL ?
	    json_object_new_string(cd->limited_by) : NULL);
	json_object_object_add(o, "limit_reason", cd->limit_reason[0] ?
	    json_object_new_string(cd->limit_reason) : NULL);
	at = NULL;
	if (cd->at_step > 0) {
		at = json_object_new_object();
		add_figures(at, &c->steps[cd->at_step - 1].f);
	}
	json_object_object_add(o, "at_capacity", at);
	json_object_object_add(o, "at_capacity_spread", spread_json(c, d));
	json_object_object_add(o, "grid", grid_json(cd));
	return o;
}

static json_object *
search_json(const struct capopts *o, double latency_bound)
{
	json_object *s = json_object_new_object();

	json_object_object_add(s, "start_rate",
	    dbl(o->start_rate));
	json_object_object_add(s, "max_rate",
	    dbl(o->max_rate));
	json_object_object_add(s, "precision_pct",
	    dbl(o->precision_pct));
	json_object_object_add(s, "step_min_s",
	    dbl(o->step_min));
	json_object_object_add(s, "step_max_s",
	    dbl(o->step_max));
	json_object_object_add(s, "settle_s",
	    dbl(o->settle));
	json_object_object_add(s, "repeats", json_object_new_int(o->repeats));
	json_object_object_add(s, "latency_bound_s",
	    dbl(latency_bound));
	return s;
}

/* The host's name, as the records of its runs give it. */
static json_object *
host_name(void)
{
	char host[256];

	if (gethostname(host, sizeof(host)) != 0)
		return NULL;
	host[sizeof(host) - 1] = '\0';
	return json_object_new_string(host);
}

static json_object *
machine_json(void)
{
	json_object *m = report_host_json();
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);

	json_object_object_add(m, "mem_total_bytes", pages > 0 && psize > 0 ?
	    json_object_new_int64((int64_t)pages * psize) : NULL);
	json_object_object_add(m, "memory", memcap_json());
	return m;
}

json_object *
caprecord_json(const struct capstate *c)
{
	json_object *o = json_object_new_object(), *p, *a;

	json_object_object_add(o, "schema",
	    json_object_new_string(CAPACITY_SCHEMA));
	json_object_object_add(o, "schema_version",
	    json_object_new_int(CAPACITY_SCHEMA_VERSION));
	json_object_object_add(o, "id", json_object_new_int64(c->id));
	json_object_object_add(o, "state",
	    json_object_new_string(capstate_name(c->state)));
	json_object_object_add(o, "reason", json_object_new_string(c->reason));
	json_object_object_add(o, "started", report_time_json(c->started));
	json_object_object_add(o, "ended", report_time_json(c->ended));
	json_object_object_add(o, "version",
	    json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(o, "host", host_name());
	json_object_object_add(o, "machine", machine_json());
	p = knobs_to_json(&c->base);
	/* Set by the search for each step, per directory. */
	json_object_object_del(p, "dir");
	json_object_object_del(p, "max_updates");
	json_object_object_del(p, "update_time");
	json_object_object_add(o, "params", p);
	json_object_object_add(o, "search", search_json(&c->o,
	    c->base.latency_bound));
	a = json_object_new_array();
	for (size_t d = 0; d < c->o.ndirs; d++)
		json_object_array_add(a, dir_json(c, d));
	json_object_object_add(o, "dirs", a);
	a = json_object_new_array();
	for (int i = 0; i < c->nsteps; i++)
		json_object_array_add(a, step_json(&c->steps[i]));
	json_object_object_add(o, "steps", a);
	return o;
}

static void
record_path(char *buf, size_t len, const char *state_dir, unsigned id,
    const char *name)
{
	snprintf(buf, len, "%s/runs/%u%s%s", state_dir, id,
	    name != NULL ? "/" : "", name != NULL ? name : "");
}

/* The object o whole into run id's directory as capacity.json. */
static int
write_record(const char *state_dir, unsigned id, json_object *o)
{
	char dir[4200], path[4300];
	FILE *fp;
	int rv = -1;

	record_path(dir, sizeof(dir), state_dir, id, NULL);
	record_path(path, sizeof(path), state_dir, id, "capacity.json");
	if (util_mkdir_p(dir, 0755) == -1 || (fp = util_tmp_open(path)) ==
	    NULL)
		goto out;
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
	    JSON_C_TO_STRING_NOSLASHESCAPE), fp);
	fputc('\n', fp);
	if ((rv = util_tmp_commit(fp, path)) == 0)
		runsindex_put(id, o);	/* what runs lists of it */
out:
	if (rv == -1)
		log_warn("capacity %u: cannot write %s", id, path);
	return rv;
}

void
caprecord_write(const struct capstate *c)
{
	json_object *o = caprecord_json(c);

	write_record(c->state_dir, c->id, o);
	json_object_put(o);
}

void
caprecord_remove(const struct capstate *c)
{
	char dir[4200], path[4300];

	record_path(dir, sizeof(dir), c->state_dir, c->id, NULL);
	record_path(path, sizeof(path), c->state_dir, c->id, "capacity.json");
	unlink(path);
	rmdir(dir);
	runsindex_drop(c->id);
}

void
caprecord_recover(const char *state_dir)
{
	runrecords_interrupt(state_dir, "capacity.json", "dirs", "stressd "
	    "ended (a crash or kill) during the search; the steps it finished "
	    "are kept; ended is when the next stressd found it", "capacity",
	    write_record);
}
