/* The `capacity` command's arguments: "dirs" (and "labels"), the
 * search's own keys, and every other key a run knob checked as `start`
 * checks it (a profile included) with the first directory as "dir". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capopts.h"
#include "conffile.h"
#include "knobs.h"
#include "proto.h"
#include "request.h"
#include "verdict.h"

/* A number key of the search in [lo, hi] (lo excluded when open). */
static int
num_key(json_object *args, const char *key, double lo, bool open,
    double hi, double *out, struct request_error *err)
{
	json_object *v;
	double d;

	if (!json_object_object_get_ex(args, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double)) {
		request_set_error(err, PROTO_ERR_BAD_ARGUMENT, key,
		    "%s must be a number", key);
		return -1;
	}
	d = json_object_get_double(v);
	if (!isfinite(d) || d > hi || (open ? d <= lo : d < lo)) {
		request_set_error(err, PROTO_ERR_BAD_ARGUMENT, key,
		    "%s must be %s %g and at most %g", key, open ?
		    "over" : "at least", lo, hi);
		return -1;
	}
	*out = d;
	return 0;
}

static int
search_keys(json_object *args, struct capopts *o,
    struct request_error *err)
{
	double rep = CAPOPTS_REPEATS;

	o->start_rate = CAPOPTS_START_RATE;
	o->max_rate = CAPOPTS_MAX_RATE;
	o->precision_pct = CAPOPTS_PRECISION_PCT;
	o->step_min = CAPOPTS_STEP_MIN_S;
	o->step_max = CAPOPTS_STEP_MAX_S;
	o->settle = CAPOPTS_SETTLE_S;
	if (num_key(args, "start_rate", 0, true, 1e9, &o->start_rate,
	    err) == -1 ||
	    num_key(args, "max_rate", 0, true, 1e9, &o->max_rate, err) == -1 ||
	    num_key(args, "precision", 0, true, 100, &o->precision_pct,
	    err) == -1 ||
	    num_key(args, "step_min", 0, true, 86400, &o->step_min,
	    err) == -1 ||
	    num_key(args, "step_max", 0, true, 86400, &o->step_max,
	    err) == -1 ||
	    num_key(args, "settle", 0, false, 86400, &o->settle, err) == -1 ||
	    num_key(args, "repeats", 0, false, 10, &rep, err) == -1)
		return -1;
	o->repeats = (int)rep;
	if (rep != floor(rep)) {
		request_set_error(err, PROTO_ERR_BAD_ARGUMENT, "repeats",
		    "repeats must be a whole number");
		return -1;
	}
	if (o->precision_pct >= 100) {
		request_set_error(err, PROTO_ERR_BAD_ARGUMENT, "precision",
		    "precision must be over 0 and below 100 (percent)");
		return -1;
	}
	if (o->max_rate < o->start_rate) {
		request_set_error(err, PROTO_ERR_BAD_ARGUMENT, "max_rate",
		    "max_rate (%g) is below start_rate (%g)", o->max_rate,
		    o->start_rate);
		return -1;
	}
	if (o->step_max < o->step_min) {
		request_set_error(err, PROTO_ERR_BAD_ARGUMENT, "step_max",
		    "step_max (%g s) is below step_min (%g s)", o->step_max,
		    o->step_min);
		return -1;
	}
	if (o->settle >= o->step_min) {
		request_set_error(err, PROTO_ERR_BAD_ARGUMENT, "settle",
		    "settle (%g s) must be shorter than step_min (%g s)",
		    o->settle, o->step_min);
		return -1;
	}
	return 0;
}

/* Each directory (and label) as the knob checks it, none twice. */
static int
check_dirs(struct request_args *a, struct request_error *err)
{
	struct capopts *o = &a->cap;

	for (size_t i = 0; i < o->ndirs; i++) {
		struct stress_params scratch;
		json_object *k = json_object_new_object();
		const char *field;
		int rv;

		json_object_object_add(k, "dir",
		    json_object_new_string(o->dirs[i]));
		if (o->labels[i] != NULL)
			json_object_object_add(k, "label",
			    json_object_new_string(o->labels[i]));
		knobs_defaults(&scratch);
		rv = knobs_apply(&scratch, k, &field, err->message,
		    sizeof(err->message));
		knobs_free(&scratch);
		json_object_put(k);
		if (rv == -1) {
			err->code = PROTO_ERR_BAD_ARGUMENT;
			err->field = request_indexed(strcmp(field, "dir") == 0 ?
			    "dirs" : "labels", i);
			return -1;
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(o->dirs[j], o->dirs[i]) == 0) {
				request_set_error(err, PROTO_ERR_BAD_ARGUMENT,
				    request_indexed("dirs", i), "dirs[%zu] is "
				    "dirs[%zu] again: each directory once", i,
				    j);
				return -1;
			}
	}
	return 0;
}

/* The keys the search sets itself, refused when the client gives them
 * (a profile's are replaced). */
static const char *const search_sets[] = {
	"max_updates", "update_time", "until_steady", "queue_creates", "dir",
	"update_fd", NULL
};

static const char *const search_own[] = {
	"dirs", "labels", "start_rate", "max_rate", "precision", "step_min",
	"step_max", "settle", "repeats", NULL
};

/* Whether the client's args or the profile they name set key. */
static bool
given(json_object *args, const struct config *cfg, const char *key)
{
	json_object *name, *prof;

	if (json_object_object_get_ex(args, key, NULL))
		return true;
	return cfg != NULL && json_object_object_get_ex(args, "profile",
	    &name) && json_object_is_type(name, json_type_string) &&
	    (prof = conffile_profile(cfg, json_object_get_string(name))) !=
	    NULL && json_object_object_get_ex(prof, key, NULL);
}

static int
run_knobs(json_object *args, const struct config *cfg,
    struct request_args *a, struct request_error *err)
{
	json_object *knobs = json_object_new_object();
	bool have_latency, have_interval;
	int rv;

	json_object_object_foreach(args, k, v) {
		bool own = false;

		for (size_t i = 0; search_own[i] != NULL; i++)
			own = own || strcmp(k, search_own[i]) == 0;
		if (!own)
			json_object_object_add(knobs, k, json_object_get(v));
	}
	have_latency = given(args, cfg, "latency_bound");
	have_interval = given(args, cfg, "sample_interval");
	json_object_object_add(knobs, "dir",
	    json_object_new_string(a->cap.dirs[0]));
	rv = request_check_start(knobs, cfg, a, err);
	json_object_put(knobs);
	if (rv == -1)
		return -1;
	/* The search's defaults where the client set none (a profile's
	 * RRD step of 300 s would let any queue pass a step of 30 s). */
	if (!have_latency)
		a->params.latency_bound = CAPOPTS_LATENCY_BOUND_S;
	if (!have_interval)
		a->params.sample_interval = CAPOPTS_SAMPLE_INTERVAL;
	return 0;
}

/* A step too short to hold the verdict's least samples could never
 * keep up: the search would only go down. */
static int
step_long_enough(const struct request_args *a, struct request_error *err)
{
	double need = a->cap.settle + 1 + VERDICT_MIN_SAMPLES *
	    a->params.sample_interval;

	if (a->cap.step_max >= need)
		return 0;
	request_set_error(err, PROTO_ERR_BAD_ARGUMENT, "step_max",
	    "step_max (%g s) is too short: a step judges at least %d samples "
	    "after its settle, which at sample_interval %g s takes %.1f s",
	    a->cap.step_max, VERDICT_MIN_SAMPLES, a->params.sample_interval,
	    need);
	return -1;
}

int
request_check_capacity(json_object *args, const struct config *cfg,
    struct request_args *a, struct request_error *err)
{
	struct capopts *o = &a->cap;
	size_t nlabels;

	if (args == NULL || !json_object_object_get_ex(args, "dirs", NULL)) {
		request_set_error(err, PROTO_ERR_BAD_ARGUMENT, "dirs",
		    "dirs is required: the directories to search, one per "
		    "candidate storage");
		return -1;
	}
	for (size_t i = 0; search_sets[i] != NULL; i++)
		if (json_object_object_get_ex(args, search_sets[i], NULL)) {
			request_set_error(err, PROTO_ERR_BAD_ARGUMENT,
			    search_sets[i], "%s is not for capacity: %s",
			    search_sets[i], strcmp(search_sets[i], "dir") == 0 ?
			    "give the directories as dirs" :
			    strcmp(search_sets[i], "update_fd") == 0 ?
			    "a search replays no passed file" :
			    "the search sets it for each step");
			return -1;
		}
	if (request_string_list(args, "dirs", CAPOPTS_MAX_DIRS, o->dirs,
	    &o->ndirs, err) == -1 || request_string_list(args, "labels",
	    CAPOPTS_MAX_DIRS, o->labels, &nlabels, err) == -1)
		goto fail;
	if (nlabels > 0 && nlabels != o->ndirs) {
		request_set_error(err, PROTO_ERR_BAD_ARGUMENT, "labels",
		    "labels has %zu entries for %zu dirs", nlabels, o->ndirs);
		goto fail;
	}
	if (search_keys(args, o, err) == -1 || check_dirs(a, err) == -1 ||
	    run_knobs(args, cfg, a, err) == -1)
		goto fail;
	if (step_long_enough(a, err) == -1) {
		knobs_free(&a->params);
		goto fail;
	}
	return 0;
fail:
	capopts_free(o);
	return -1;
}
