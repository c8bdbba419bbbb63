/* The capacity record read once into structs (see caprec.h).  The
 * required members are those the daemon always writes and the views
 * cannot do without; the rest are optional, as hand-made and older
 * records lack them. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caprec.h"
#include "fmt.h"
#include "recparse.h"

#define REQ	RECPARSE_REQ
#define OPT	RECPARSE_OPT

bool
caprec_is_record(json_object *o)
{
	return recparse_is_schema(o, CAPREC_SCHEMA);
}

static bool
parse_figures(struct recparse *p, json_object *o, struct caprec_figures *f)
{
	return recparse_num(p, o, "queue_avg", OPT, &f->queue_avg) &&
	    recparse_num(p, o, "queue_p99", OPT, &f->queue_p99) &&
	    recparse_num(p, o, "latency_p99_ms", OPT, &f->latency_p99_ms) &&
	    recparse_num(p, o, "cpu_writers_pct", OPT, &f->cpu_writers_pct) &&
	    recparse_num(p, o, "cpu_writers_runq_pct", OPT,
	    &f->cpu_writers_runq_pct) &&
	    recparse_num(p, o, "cpu_generators_pct", OPT,
	    &f->cpu_generators_pct) &&
	    recparse_num(p, o, "cpu_generators_runq_pct", OPT,
	    &f->cpu_generators_runq_pct) &&
	    recparse_num(p, o, "cpu_process_pct", OPT, &f->cpu_process_pct);
}

/* Member key of o: absent, or [min, max] of two numbers (NAN: absent). */
static bool
parse_range(struct recparse *p, json_object *o, const char *key,
    double mm[2])
{
	json_object *a, *v;

	mm[0] = mm[1] = NAN;
	if (!recparse_arr(p, o, key, OPT, &a))
		return false;
	if (a == NULL)
		return true;
	if (json_object_array_length(a) != 2)
		return recparse_fail(p, key, "not [min, max]");
	for (size_t i = 0; i < 2; i++) {
		v = json_object_array_get_idx(a, i);
		if (!json_object_is_type(v, json_type_int) &&
		    !json_object_is_type(v, json_type_double))
			return recparse_fail(p, key, "[%zu]: not a number", i);
		mm[i] = json_object_get_double(v);
	}
	return true;
}

/* A directory's grid and the spread at its capacity, which records
 * before them lack. */
static bool
parse_grid_spread(struct recparse *p, json_object *o, struct caprec_dir *d)
{
	json_object *g, *s;
	char here[sizeof(p->at)];
	bool ok;

	d->jitter = d->first_rate = NAN;
	d->spread_queue_avg[0] = d->spread_queue_avg[1] = NAN;
	d->spread_latency_p99_ms[0] = d->spread_latency_p99_ms[1] = NAN;
	if (!recparse_obj(p, o, "grid", OPT, &g) ||
	    !recparse_obj(p, o, "at_capacity_spread", OPT, &s))
		return false;
	snprintf(here, sizeof(here), "%s", p->at);
	recparse_at(p, "%s.grid", here);
	ok = g == NULL || (recparse_num(p, g, "jitter", OPT, &d->jitter) &&
	    recparse_num(p, g, "first_rate", OPT, &d->first_rate));
	recparse_at(p, "%s.at_capacity_spread", here);
	ok = ok && (s == NULL || (recparse_int(p, s, "steps", REQ,
	    &d->spread_steps, &d->has_spread) &&
	    parse_range(p, s, "queue_avg", d->spread_queue_avg) &&
	    parse_range(p, s, "latency_p99_ms", d->spread_latency_p99_ms)));
	recparse_at(p, "%s", here);
	return ok;
}

static bool
parse_dir(struct recparse *p, json_object *o, struct caprec_dir *d)
{
	json_object *at;
	char here[sizeof(p->at)];

	if (!json_object_is_type(o, json_type_object))
		return recparse_fail(p, NULL, "not an object");
	if (!recparse_str(p, o, "dir", REQ, &d->dir) ||
	    !recparse_str(p, o, "label", OPT, &d->label) ||
	    !recparse_str(p, o, "fs_type", OPT, &d->fs_type) ||
	    !recparse_str(p, o, "state", REQ, &d->state) ||
	    !recparse_num(p, o, "capacity_rate", OPT, &d->capacity_rate) ||
	    !recparse_num(p, o, "capacity_interval_s", OPT,
	    &d->capacity_interval_s) ||
	    !recparse_num(p, o, "behind_rate", OPT, &d->behind_rate) ||
	    !recparse_str(p, o, "behind_reason", OPT, &d->behind_reason) ||
	    !recparse_str(p, o, "limited_by", OPT, &d->limited_by) ||
	    !recparse_str(p, o, "limit_reason", OPT, &d->limit_reason) ||
	    !recparse_obj(p, o, "at_capacity", OPT, &at) ||
	    !parse_grid_spread(p, o, d))
		return false;
	d->has_at = at != NULL;
	if (at == NULL)
		return parse_figures(p, NULL, &d->at);
	snprintf(here, sizeof(here), "%s", p->at);
	recparse_at(p, "%s.at_capacity", here);
	return parse_figures(p, at, &d->at);
}

static bool
parse_step(struct recparse *p, json_object *o, struct caprec_step *s,
    size_t ndirs)
{
	json_object *st = NULL;
	bool has;

	if (!json_object_is_type(o, json_type_object))
		return recparse_fail(p, NULL, "not an object");
	s->window_p99_ms = NAN;
	if (!recparse_int(p, o, "n", REQ, &s->n, &has) ||
	    !recparse_int(p, o, "dir_index", REQ, &s->dir_index, &has) ||
	    !recparse_int(p, o, "run_id", OPT, &s->run_id, &s->has_run_id) ||
	    !recparse_str(p, o, "phase", OPT, &s->phase) ||
	    !recparse_num(p, o, "rate", REQ, &s->rate) ||
	    !recparse_str(p, o, "state", OPT, &s->state) ||
	    !recparse_bool(p, o, "kept_up", OPT, &s->kept_up) ||
	    !recparse_bool(p, o, "cpu_limited", OPT, &s->cpu_limited) ||
	    !recparse_num(p, o, "slope_per_s", OPT, &s->slope_per_s) ||
	    !recparse_num(p, o, "slope_stderr", OPT, &s->slope_stderr) ||
	    !recparse_num(p, o, "latency_bound_ms", OPT,
	    &s->latency_bound_ms) ||
	    !recparse_obj(p, o, "steady", OPT, &st) ||
	    (st != NULL && !recparse_num(p, st, "latency_p99_ms", OPT,
	    &s->window_p99_ms)) ||
	    !parse_figures(p, o, &s->f))
		return false;
	/* A step names its directory by index: one past the list would
	 * be drawn and counted as no directory at all. */
	if (s->dir_index < 0 || (size_t)s->dir_index >= ndirs)
		return recparse_fail(p, "dir_index", "%lld: the record has "
		    "%zu director%s", (long long)s->dir_index, ndirs,
		    ndirs == 1 ? "y" : "ies");
	return true;
}

static bool
parse_search(struct recparse *p, json_object *o, struct caprec_search *s)
{
	return recparse_num(p, o, "start_rate", OPT, &s->start_rate) &&
	    recparse_num(p, o, "max_rate", OPT, &s->max_rate) &&
	    recparse_num(p, o, "precision_pct", OPT, &s->precision_pct) &&
	    recparse_num(p, o, "step_min_s", OPT, &s->step_min_s) &&
	    recparse_num(p, o, "step_max_s", OPT, &s->step_max_s) &&
	    recparse_num(p, o, "settle_s", OPT, &s->settle_s) &&
	    recparse_num(p, o, "latency_bound_s", OPT, &s->latency_bound_s);
}

/* The top object's members, the search, the params and the host. */
static bool
parse_top(struct recparse *p, json_object *o, struct caprec *r)
{
	json_object *sub;
	const char *schema;
	bool has;

	if (!recparse_str(p, o, "schema", REQ, &schema))
		return false;
	if (strcmp(schema, CAPREC_SCHEMA) != 0)
		return recparse_fail(p, "schema", "\"%s\", not \"%s\"",
		    schema, CAPREC_SCHEMA);
	/* Another version is read as this one, as a newer run report is
	 * (records.c): the caller warns, and what it lacks shows as "-",
	 * so no record that displayed before is refused for its version. */
	if (!recparse_int(p, o, "schema_version", OPT, &r->schema_version,
	    &r->has_schema_version))
		return false;
	if (!recparse_int(p, o, "id", REQ, &r->id, &has) ||
	    !recparse_str(p, o, "state", REQ, &r->state) ||
	    !recparse_str(p, o, "reason", OPT, &r->reason) ||
	    !recparse_str(p, o, "started", OPT, &r->started) ||
	    !recparse_str(p, o, "ended", OPT, &r->ended) ||
	    !recparse_str(p, o, "host", OPT, &r->host) ||
	    !recparse_obj(p, o, "machine", OPT, &sub))
		return false;
	/* The contract's "host", or the daemon's machine.name. */
	recparse_at(p, "machine");
	if (r->host == NULL && !recparse_str(p, sub, "name", OPT, &r->host))
		return false;
	recparse_at(p, "%s", "");
	if (!recparse_obj(p, o, "params", OPT, &sub))
		return false;
	recparse_at(p, "params");
	if (!recparse_int(p, sub, "files", OPT, &r->files, &r->has_files) ||
	    !recparse_str(p, sub, "sync", OPT, &r->sync))
		return false;
	recparse_at(p, "%s", "");
	if (!recparse_obj(p, o, "search", OPT, &sub))
		return false;
	recparse_at(p, "search");
	if (!parse_search(p, sub, &r->search))
		return false;
	recparse_at(p, "%s", "");
	return true;
}

struct caprec *
caprec_parse(json_object *o, char **err)
{
	struct caprec *r = fmt_nomem(calloc(1, sizeof(*r)));
	struct recparse p;
	json_object *dirs, *steps;

	recparse_init(&p, "capacity record");
	if (!json_object_is_type(o, json_type_object)) {
		recparse_fail(&p, NULL, "not a JSON object");
		goto fail;
	}
	r->json = json_object_get(o);
	if (!parse_top(&p, o, r) ||
	    !recparse_arr(&p, o, "dirs", REQ, &dirs) ||
	    !recparse_arr(&p, o, "steps", REQ, &steps))
		goto fail;
	r->ndirs = json_object_array_length(dirs);
	r->dirs = fmt_nomem(calloc(r->ndirs + 1, sizeof(*r->dirs)));
	for (size_t i = 0; i < r->ndirs; i++) {
		recparse_at(&p, "dirs[%zu]", i);
		if (!parse_dir(&p, json_object_array_get_idx(dirs, i),
		    &r->dirs[i]))
			goto fail;
	}
	r->nsteps = json_object_array_length(steps);
	r->steps = fmt_nomem(calloc(r->nsteps + 1, sizeof(*r->steps)));
	for (size_t i = 0; i < r->nsteps; i++) {
		recparse_at(&p, "steps[%zu]", i);
		if (!parse_step(&p, json_object_array_get_idx(steps, i),
		    &r->steps[i], r->ndirs))
			goto fail;
	}
	return r;
fail:
	recparse_give_error(&p, err);
	caprec_free(r);
	return NULL;
}

char *
caprec_version_warning(const struct caprec *r)
{
	if (!r->has_schema_version)
		return fmt_xprintf("has no schema_version, this stressctl "
		    "reads schema_version %d", CAPREC_VERSION);
	if (r->schema_version == CAPREC_VERSION)
		return NULL;
	return fmt_xprintf("has schema_version %lld, this stressctl reads "
	    "schema_version %d", (long long)r->schema_version,
	    CAPREC_VERSION);
}

void
caprec_free(struct caprec *r)
{
	if (r == NULL)
		return;
	json_object_put(r->json);
	free(r->dirs);
	free(r->steps);
	free(r);
}

bool
caprec_parse_progress(struct recparse *p, json_object *o, const char *key,
    struct caprec_progress *g)
{
	json_object *c;
	char here[sizeof(p->at)];

	memset(g, 0, sizeof(*g));
	g->dir_index = g->ndirs = g->step = g->rate = NAN;
	g->kept_up_rate = g->behind_rate = g->steps_done = NAN;
	if (!recparse_obj(p, o, key, OPT, &c))
		return false;
	if (c == NULL)
		return true;
	snprintf(here, sizeof(here), "%s", p->at);
	recparse_at(p, "%s%s%s", here, *here ? "." : "", key);
	if (!recparse_int(p, c, "id", REQ, &g->id, &g->has) ||
	    !recparse_str(p, c, "state", REQ, &g->state) ||
	    !recparse_str(p, c, "dir", OPT, &g->dir) ||
	    !recparse_str(p, c, "phase", OPT, &g->phase) ||
	    !recparse_num(p, c, "dir_index", OPT, &g->dir_index) ||
	    !recparse_num(p, c, "ndirs", OPT, &g->ndirs) ||
	    !recparse_num(p, c, "step", OPT, &g->step) ||
	    !recparse_num(p, c, "rate", OPT, &g->rate) ||
	    !recparse_num(p, c, "kept_up_rate", OPT, &g->kept_up_rate) ||
	    !recparse_num(p, c, "behind_rate", OPT, &g->behind_rate) ||
	    !recparse_num(p, c, "steps_done", OPT, &g->steps_done))
		return false;
	recparse_at(p, "%s", here);
	return true;
}
