/* The run report read once into structs (see runrec.h). */
#include "config.h"

#include <math.h>
#include <stddef.h>
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

/* A histogram's entries, {value, [upper,] count} integers, into d. */
static bool
parse_histogram(struct recparse *p, struct runrec_depth *d, const char *at)
{
	json_object *h = d->histogram;

	d->nbuckets = h != NULL ? json_object_array_length(h) : 0;
	d->buckets = fmt_nomem(calloc(d->nbuckets + 1, sizeof(*d->buckets)));
	for (size_t i = 0; i < d->nbuckets; i++) {
		json_object *e = json_object_array_get_idx(h, i);
		struct runrec_bucket *b = &d->buckets[i];
		bool has;

		recparse_at(p, "%s.histogram[%zu]", at, i);
		if (!json_object_is_type(e, json_type_object))
			return recparse_fail(p, NULL, "not an object");
		if (!recparse_int(p, e, "value", REQ, &b->value, &has) ||
		    !recparse_int(p, e, "upper", OPT, &b->upper,
		    &b->has_upper) ||
		    !recparse_int(p, e, "count", REQ, &b->count, &has))
			return false;
	}
	return true;
}

/* The distribution at key of parent (at: parent's path) into *d. */
static bool
parse_depth(struct recparse *p, json_object *parent, const char *at,
    const char *key, struct runrec_depth *d)
{
	json_object *o;
	char here[sizeof(p->at)];
	bool has;

	recparse_at(p, "%s", at);
	if (!recparse_obj(p, parent, key, OPT, &o))
		return false;
	snprintf(here, sizeof(here), "%s%s%s", at, *at ? "." : "", key);
	recparse_at(p, "%s", here);
	d->has = o != NULL;
	return recparse_int(p, o, "samples", OPT, &d->samples, &has) &&
	    recparse_number(p, o, "average", OPT, &d->average) &&
	    recparse_number(p, o, "min", OPT, &d->min) &&
	    recparse_number(p, o, "max", OPT, &d->max) &&
	    recparse_number(p, o, "p50", OPT, &d->p50) &&
	    recparse_number(p, o, "p90", OPT, &d->p90) &&
	    recparse_number(p, o, "p99", OPT, &d->p99) &&
	    recparse_arr(p, o, "histogram", OPT, &d->histogram) &&
	    parse_histogram(p, d, here);
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
	    recparse_number(p, r->params, "files", OPT, &r->files_knob) &&
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
parse_recount(struct recparse *p, json_object *o, struct runrec_recount *c)
{
	json_object *x;

	recparse_at(p, "%s", "");
	if (!recparse_obj(p, o, "recount", OPT, &x))
		return false;
	c->has = x != NULL;
	recparse_at(p, "recount");
	return recparse_str(p, x, "skipped", OPT, &c->skipped) &&
	    recparse_number(p, x, "updates_on_disk", OPT,
	    &c->updates_on_disk) &&
	    recparse_num(p, x, "files_read", OPT, &c->files_read) &&
	    recparse_num(p, x, "seconds", OPT, &c->seconds);
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
	    !recparse_number(p, o, "samples", OPT, &r->samples) ||
	    !recparse_num(p, o, "sample_interval_s", OPT,
	    &r->sample_interval_s) ||
	    !parse_recount(p, o, &r->recount))
		return false;
	r->has_recount = r->recount.has;
	recparse_at(p, "%s", "");
	if (!recparse_obj(p, o, "queue_depth", OPT, &x))
		return false;
	if (!parse_depth(p, x, "queue_depth", "significant_ops_pending",
	    &r->sig) ||
	    !parse_depth(p, x, "queue_depth", "total_operations_pending",
	    &r->total))
		return false;
	recparse_at(p, "%s", "");
	if (!recparse_obj(p, o, "stress_log", OPT, &x))
		return false;
	return parse_depth(p, x, "stress_log", "significant_ops_pending",
	    &r->slog_sig);
}

/* Members of o (at its path at) into the numbers of a table. */
struct numkey {
	const char	*key;
	size_t		 off;		/* of a struct recparse_number */
};

static bool
parse_numbers(struct recparse *p, json_object *o, const char *at,
    const struct numkey *keys, size_t n, void *base)
{
	recparse_at(p, "%s", at);
	for (size_t i = 0; i < n; i++)
		if (!recparse_number(p, o, keys[i].key, OPT,
		    (struct recparse_number *)((char *)base + keys[i].off)))
			return false;
	return true;
}

#define NK(type, m)	{ #m, offsetof(struct type, m) }

static bool
parse_latency(struct recparse *p, json_object *lat, const char *key,
    struct runrec_latency *l)
{
	static const struct numkey keys[] = {
		NK(runrec_latency, count), NK(runrec_latency, min),
		NK(runrec_latency, mean), NK(runrec_latency, p50),
		NK(runrec_latency, p90), NK(runrec_latency, p99),
		NK(runrec_latency, p999), NK(runrec_latency, max),
	};
	json_object *o;
	char at[64];

	recparse_at(p, "latency_ms");
	if (!recparse_obj(p, lat, key, OPT, &o))
		return false;
	l->has = o != NULL;
	snprintf(at, sizeof(at), "latency_ms.%s", key);
	return parse_numbers(p, o, at, keys, sizeof(keys) / sizeof(*keys), l);
}

/* counters, throughput, latency_ms and errors. */
static bool
parse_figures(struct recparse *p, json_object *o, struct runrec *r)
{
	static const struct numkey counters[] = {
		NK(runrec_counters, updates_completed),
		NK(runrec_counters, updates_failed),
		NK(runrec_counters, dropped),
		NK(runrec_counters, creates_completed),
		NK(runrec_counters, discarded),
		NK(runrec_counters, creates_discarded),
		NK(runrec_counters, update_calls),
	}, throughput[] = {
		{ "updates_per_s_since_first_update",
		  offsetof(struct runrec_throughput, since_first_update) },
		{ "updates_per_s_all_time",
		  offsetof(struct runrec_throughput, all_time) },
		NK(runrec_throughput, creates_per_s),
		NK(runrec_throughput, ops_per_update),
	}, errors[] = {
		NK(runrec_errors, count), NK(runrec_errors, updates_failed),
		NK(runrec_errors, creates_failed),
	};
	json_object *c, *t, *lat, *e, *msgs;

	recparse_at(p, "%s", "");
	if (!recparse_obj(p, o, "counters", OPT, &c) ||
	    !recparse_obj(p, o, "throughput", OPT, &t) ||
	    !recparse_obj(p, o, "latency_ms", OPT, &lat) ||
	    !recparse_obj(p, o, "errors", OPT, &e))
		return false;
	if (!parse_numbers(p, c, "counters", counters,
	    sizeof(counters) / sizeof(*counters), &r->counters) ||
	    !parse_numbers(p, t, "throughput", throughput,
	    sizeof(throughput) / sizeof(*throughput), &r->throughput) ||
	    !parse_latency(p, lat, "enqueue_to_persist",
	    &r->enqueue_to_persist) ||
	    !parse_latency(p, lat, "update_call", &r->update_call) ||
	    !parse_latency(p, lat, "fdatasync", &r->fdatasync) ||
	    !parse_numbers(p, e, "errors", errors,
	    sizeof(errors) / sizeof(*errors), &r->errors) ||
	    !recparse_arr(p, e, "first_messages", OPT, &msgs))
		return false;
	r->errors.nfirst_messages = msgs != NULL ?
	    json_object_array_length(msgs) : 0;
	r->errors.first_messages = fmt_nomem(calloc(
	    r->errors.nfirst_messages + 1, sizeof(char *)));
	for (size_t i = 0; i < r->errors.nfirst_messages; i++) {
		json_object *m = json_object_array_get_idx(msgs, i);

		recparse_at(p, "errors.first_messages[%zu]", i);
		if (!json_object_is_type(m, json_type_string))
			return recparse_fail(p, NULL, "not a string");
		r->errors.first_messages[i] = json_object_get_string(m);
	}
	return true;
}

static bool
parse_rrdcached(struct recparse *p, json_object *o,
    struct runrec_rrdcached *c)
{
	static const struct { const char *key; size_t off; } grew[] = {
		{ "UpdatesReceived",
		  offsetof(struct runrec_rrdc_stats, updates_received) },
		{ "DataSetsWritten",
		  offsetof(struct runrec_rrdc_stats, data_sets_written) },
		{ "UpdatesWritten",
		  offsetof(struct runrec_rrdc_stats, updates_written) },
	};
	json_object *x, *st[2];
	struct runrec_rrdc_stats *to[2] = { &c->at_start, &c->latest };

	recparse_at(p, "%s", "");
	if (!recparse_obj(p, o, "rrdcached", OPT, &x))
		return false;
	c->has = x != NULL;
	recparse_at(p, "rrdcached");
	if (!recparse_str(p, x, "address", OPT, &c->address) ||
	    !recparse_bool(p, x, "restarted", OPT, &c->restarted) ||
	    !recparse_number(p, x, "flush_s", OPT, &c->flush_s) ||
	    !recparse_num(p, x, "samples_without_stats", OPT,
	    &c->samples_without_stats) ||
	    !recparse_obj(p, x, "at_start", OPT, &st[0]) ||
	    !recparse_obj(p, x, "latest", OPT, &st[1]))
		return false;
	for (size_t k = 0; k < 2; k++) {
		recparse_at(p, "rrdcached.%s", k == 0 ? "at_start" : "latest");
		for (size_t i = 0; i < sizeof(grew) / sizeof(*grew); i++)
			if (!recparse_num(p, st[k], grew[i].key, OPT,
			    (double *)((char *)to[k] + grew[i].off)))
				return false;
	}
	return parse_depth(p, x, "rrdcached", "queue_length", &c->queue);
}

static bool
parse_generators(struct recparse *p, json_object *o,
    struct runrec_generators *g)
{
	json_object *x;

	recparse_at(p, "%s", "");
	if (!recparse_obj(p, o, "generators", OPT, &x))
		return false;
	g->has = x != NULL;
	recparse_at(p, "generators");
	return recparse_bool(p, x, "held_back", OPT, &g->held_back) &&
	    recparse_num(p, x, "wait_s", OPT, &g->wait_s) &&
	    recparse_num(p, x, "queue_memory_max_bytes", OPT,
	    &g->queue_memory_max_bytes) &&
	    recparse_num(p, x, "queue_memory_peak_bytes", OPT,
	    &g->queue_memory_peak_bytes) &&
	    recparse_number(p, x, "waits", OPT, &g->waits);
}

/* generators, cold_cache, memory, rrdcached and files. */
static bool
parse_extras(struct recparse *p, json_object *o, struct runrec *r)
{
	struct runrec_cold_cache *cc = &r->cold_cache;
	json_object *x, *m, *f;

	if (!parse_generators(p, o, &r->generators) ||
	    !parse_rrdcached(p, o, &r->rrdcached))
		return false;
	recparse_at(p, "%s", "");
	if (!recparse_obj(p, o, "cold_cache", OPT, &x) ||
	    !recparse_obj(p, o, "memory", OPT, &m) ||
	    !recparse_obj(p, o, "files", OPT, &f))
		return false;
	recparse_at(p, "cold_cache");
	if (!recparse_str(p, x, "method", OPT, &cc->method) ||
	    !recparse_str(p, x, "first_error", OPT, &cc->first_error) ||
	    !recparse_num(p, x, "seconds", OPT, &cc->seconds) ||
	    !recparse_num(p, x, "files", OPT, &cc->files) ||
	    !recparse_num(p, x, "failed", OPT, &cc->failed) ||
	    !recparse_num(p, x, "resident_before_bytes", OPT,
	    &cc->resident_before_bytes) ||
	    !recparse_num(p, x, "resident_after_bytes", OPT,
	    &cc->resident_after_bytes))
		return false;
	recparse_at(p, "memory");
	if (!recparse_num(p, m, "limit_bytes", OPT, &r->memory_limit_bytes) ||
	    !recparse_str(p, m, "source", OPT, &r->memory_source))
		return false;
	recparse_at(p, "files");
	return recparse_str(p, f, "samples_csv", OPT, &r->samples_csv) &&
	    recparse_str(p, f, "metrics_rrd", OPT, &r->metrics_rrd);
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
	    !parse_figures(&p, o, r) || !parse_extras(&p, o, r) ||
	    !runrec_parse_verdict(&p, o, &r->verdict, &r->warnings,
	    &r->nwarnings))
		goto fail;
	return r;
fail:
	recparse_give_error(&p, err);
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
	free(r->sig.buckets);
	free(r->slog_sig.buckets);
	free(r->total.buckets);
	free(r->rrdcached.queue.buckets);
	free(r->errors.first_messages);
	free(r);
}
