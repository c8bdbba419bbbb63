/* The run report read once into structs (see runrec.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "recparse.h"
#include "runrec.h"

#define REQ	RECPARSE_REQ
#define OPT	RECPARSE_OPT

static bool
parse_warnings(struct recparse *p, json_object *o, struct runrec_warning **w,
    size_t *nw)
{
	json_object *arr;

	*w = NULL;
	*nw = 0;
	recparse_at(p, "%s", "");
	if (!recparse_arr(p, o, "warnings", OPT, &arr))
		return false;
	if (arr == NULL)
		return true;
	*nw = json_object_array_length(arr);
	*w = fmt_nomem(calloc(*nw + 1, sizeof(**w)));
	for (size_t i = 0; i < *nw; i++) {
		json_object *e = json_object_array_get_idx(arr, i);

		recparse_at(p, "warnings[%zu]", i);
		if (!json_object_is_type(e, json_type_object))
			return recparse_fail(p, NULL, "not an object");
		if (!recparse_str(p, e, "code", REQ, &(*w)[i].code) ||
		    !recparse_str(p, e, "message", REQ, &(*w)[i].message))
			return false;
	}
	recparse_at(p, "%s", "");
	return true;
}

bool
runrec_parse_verdict(struct recparse *p, json_object *o,
    struct runrec_verdict *v, struct runrec_warning **w, size_t *nw)
{
	json_object *vo, *lp;

	memset(v, 0, sizeof(*v));
	*w = NULL;
	*nw = 0;
	recparse_at(p, "%s", "");
	if (!recparse_obj(p, o, "verdict", OPT, &vo))
		return false;
	v->has = vo != NULL;
	recparse_at(p, "verdict");
	if (!recparse_bool(p, vo, "kept_up", OPT, &v->kept_up) ||
	    !recparse_str(p, vo, "reason", OPT, &v->reason) ||
	    !recparse_num(p, vo, "slope_per_s", OPT, &v->slope_per_s) ||
	    !recparse_num(p, vo, "slope_stderr", OPT, &v->slope_stderr) ||
	    !recparse_num(p, vo, "backlog_in_1h", OPT, &v->backlog_in_1h) ||
	    !recparse_num(p, vo, "backlog_threshold", OPT,
	    &v->backlog_threshold) ||
	    !recparse_num(p, vo, "latency_p99_ms", OPT, &v->latency_p99_ms) ||
	    !recparse_num(p, vo, "latency_bound_ms", OPT,
	    &v->latency_bound_ms) ||
	    !recparse_obj(p, vo, "load_phase", OPT, &lp))
		return false;
	recparse_at(p, "verdict.load_phase");
	if (!recparse_num(p, lp, "samples", OPT, &v->load_samples))
		return false;
	return parse_warnings(p, o, w, nw);
}

/* A histogram's entries: {value, [upper,] count}, integers. */
static bool
parse_histogram(struct recparse *p, json_object *h, const char *at)
{
	for (size_t i = 0; h != NULL && i < json_object_array_length(h); i++) {
		json_object *e = json_object_array_get_idx(h, i);
		int64_t x;
		bool has;

		recparse_at(p, "%s.histogram[%zu]", at, i);
		if (!json_object_is_type(e, json_type_object))
			return recparse_fail(p, NULL, "not an object");
		if (!recparse_int(p, e, "value", REQ, &x, &has) ||
		    !recparse_int(p, e, "upper", OPT, &x, &has) ||
		    !recparse_int(p, e, "count", REQ, &x, &has))
			return false;
	}
	return true;
}

static bool
parse_depth(struct recparse *p, json_object *qd, const char *key,
    struct runrec_depth *d)
{
	json_object *o;
	char at[64];

	recparse_at(p, "queue_depth");
	if (!recparse_obj(p, qd, key, OPT, &o))
		return false;
	snprintf(at, sizeof(at), "queue_depth.%s", key);
	recparse_at(p, "%s", at);
	d->has = o != NULL;
	return recparse_int(p, o, "samples", OPT, &d->samples, &d->has) &&
	    recparse_num(p, o, "average", OPT, &d->average) &&
	    recparse_num(p, o, "min", OPT, &d->min) &&
	    recparse_num(p, o, "max", OPT, &d->max) &&
	    recparse_num(p, o, "p50", OPT, &d->p50) &&
	    recparse_num(p, o, "p90", OPT, &d->p90) &&
	    recparse_num(p, o, "p99", OPT, &d->p99) &&
	    recparse_arr(p, o, "histogram", OPT, &d->histogram) &&
	    parse_histogram(p, d->histogram, at);
}

static bool
parse_params(struct recparse *p, json_object *o, struct runrec *r)
{
	if (!recparse_obj(p, o, "params", OPT, &r->params))
		return false;
	recparse_at(p, "params");
	return recparse_str(p, r->params, "label", OPT, &r->label) &&
	    recparse_str(p, r->params, "dir", OPT, &r->dir) &&
	    recparse_str(p, r->params, "sweep_id", OPT, &r->sweep_id) &&
	    recparse_str(p, r->params, "sync", OPT, &r->sync) &&
	    recparse_num(p, r->params, "max_updates", OPT, &r->max_updates) &&
	    recparse_num(p, r->params, "update_time", OPT, &r->update_time) &&
	    recparse_num(p, r->params, "sample_interval", OPT,
	    &r->sample_interval);
}

/* host and target. */
static bool
parse_where(struct recparse *p, json_object *o, struct runrec *r)
{
	json_object *h, *t;

	recparse_at(p, "%s", "");
	if (!recparse_obj(p, o, "host", OPT, &h) ||
	    !recparse_obj(p, o, "target", OPT, &t))
		return false;
	recparse_at(p, "host");
	if (!recparse_str(p, h, "name", OPT, &r->host_name) ||
	    !recparse_str(p, h, "kernel", OPT, &r->host_kernel) ||
	    !recparse_str(p, h, "machine", OPT, &r->host_machine) ||
	    !recparse_int(p, h, "cpus", OPT, &r->host_cpus,
	    &r->has_host_cpus))
		return false;
	recparse_at(p, "target");
	return recparse_str(p, t, "dir", OPT, &r->target_dir) &&
	    recparse_str(p, t, "fs_type", OPT, &r->fs_type) &&
	    recparse_str(p, t, "mount_options", OPT, &r->mount_options) &&
	    recparse_str(p, t, "mount_point", OPT, &r->mount_point) &&
	    recparse_str(p, t, "mount_source", OPT, &r->mount_source);
}

static bool
parse_top(struct recparse *p, json_object *o, struct runrec *r)
{
	json_object *x;
	bool has;

	if (!recparse_int(p, o, "schema", REQ, &r->schema, &has) ||
	    !recparse_int(p, o, "run_id", REQ, &r->run_id, &has) ||
	    !recparse_str(p, o, "state", REQ, &r->state) ||
	    !recparse_str(p, o, "reason", OPT, &r->reason) ||
	    !recparse_str(p, o, "stressd_version", OPT, &r->stressd_version) ||
	    !recparse_str(p, o, "librrd_version", OPT, &r->librrd_version) ||
	    !recparse_str(p, o, "started_at", OPT, &r->started_at) ||
	    !recparse_str(p, o, "ended_at", OPT, &r->ended_at) ||
	    !recparse_num(p, o, "elapsed_s", OPT, &r->elapsed_s) ||
	    !recparse_num(p, o, "samples", OPT, &r->samples) ||
	    !recparse_num(p, o, "sample_interval_s", OPT,
	    &r->sample_interval_s) ||
	    !recparse_obj(p, o, "recount", OPT, &x))
		return false;
	r->has_recount = x != NULL;
	if (!recparse_obj(p, o, "queue_depth", OPT, &x))
		return false;
	return parse_depth(p, x, "significant_ops_pending", &r->sig) &&
	    parse_depth(p, x, "total_operations_pending", &r->total);
}

struct runrec *
runrec_parse(json_object *o, char **err)
{
	struct runrec *r = fmt_nomem(calloc(1, sizeof(*r)));
	struct recparse p;

	recparse_init(&p, "run report");
	if (!json_object_is_type(o, json_type_object)) {
		recparse_fail(&p, NULL, "not a JSON object");
		goto fail;
	}
	r->json = json_object_get(o);
	if (!parse_top(&p, o, r))
		goto fail;
	recparse_at(&p, "%s", "");
	if (!parse_params(&p, o, r) || !parse_where(&p, o, r) ||
	    !runrec_parse_verdict(&p, o, &r->verdict, &r->warnings,
	    &r->nwarnings))
		goto fail;
	return r;
fail:
	if (err != NULL)
		*err = recparse_take_error(&p);
	else
		free(recparse_take_error(&p));
	runrec_free(r);
	return NULL;
}

void
runrec_free(struct runrec *r)
{
	if (r == NULL)
		return;
	json_object_put(r->json);
	free(r->warnings);
	free(r);
}
