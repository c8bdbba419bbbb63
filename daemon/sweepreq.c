/* The `sweep` command's arguments: "dirs" (and "labels"), "repeat", and
 * every other key a run knob checked as `start` checks it (a profile
 * included) with the first directory as "dir". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conffile.h"
#include "knobs.h"
#include "proto.h"
#include "request.h"
#include "sweepopts.h"

/* What a run's subdirectory adds to its directory: "/sweep-", the sweep
 * id (s-TIME-ID), "-" and the run's number. */
#define SUBDIR_ROOM	64

static int
repeat_key(json_object *args, unsigned long *out, struct request_error *err)
{
	json_object *v;
	double d;

	*out = 1;
	if (!json_object_object_get_ex(args, "repeat", &v))
		return 0;
	d = json_object_get_double(v);
	if ((!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double)) || !isfinite(d) ||
	    d != floor(d) || d < 1 || d > SWEEP_MAX_REPEAT) {
		request_set_error(err, PROTO_ERR_BAD_ARGUMENT, "repeat",
		    "repeat must be a whole number from 1 to %d",
		    SWEEP_MAX_REPEAT);
		return -1;
	}
	*out = (unsigned long)d;
	return 0;
}

/* One directory and its label as the knobs check them: field "dir" or
 * "label" on -1, with the message in err. */
static int
check_knobs(const char *dir, const char *label, const char **field,
    struct request_error *err)
{
	struct stress_params scratch;
	json_object *k = json_object_new_object();
	int rv;

	json_object_object_add(k, "dir", json_object_new_string(dir));
	if (label != NULL)
		json_object_object_add(k, "label",
		    json_object_new_string(label));
	knobs_defaults(&scratch);
	rv = knobs_apply(&scratch, k, field, err->message,
	    sizeof(err->message));
	knobs_free(&scratch);
	json_object_put(k);
	return rv;
}

/* An unlabelled directory's label, as stressctl's sweep always made
 * it: the directory (its end, if too long for a label), else "dir D". */
static char *
default_label(const char *dir, size_t d)
{
	const struct knob *k = knobs_find("label");
	size_t len = strlen(dir);
	char buf[KNOBS_TEXT_MAX], err[160];

	if (len < sizeof(buf))
		snprintf(buf, sizeof(buf), "%s", dir);
	else
		snprintf(buf, sizeof(buf), "...%s", dir + len -
		    (sizeof(buf) - 4));
	/* A cut character or bytes that are not UTF-8 fail the check. */
	if (knobs_check_text(k, buf, strlen(buf), err, sizeof(err)) == -1)
		snprintf(buf, sizeof(buf), "dir %zu", d + 1);
	return strdup(buf);
}

/* Each directory (and label) as the knobs check them, with room for
 * its runs' subdirectories; unlabelled ones get their default. */
static int
check_dirs(struct sweep_opts *o, struct request_error *err)
{
	for (size_t i = 0; i < o->ndirs; i++) {
		const char *field;

		if (o->labels[i] != NULL && o->labels[i][0] == '\0') {
			free(o->labels[i]);
			o->labels[i] = NULL;
		}
		if (check_knobs(o->dirs[i], o->labels[i], &field, err) == -1) {
			err->code = PROTO_ERR_BAD_ARGUMENT;
			err->field = request_indexed(strcmp(field, "dir") == 0 ?
			    "dirs" : "labels", i);
			return -1;
		}
		if (strlen(o->dirs[i]) + SUBDIR_ROOM >=
		    sizeof(((struct stress_params *)NULL)->dir)) {
			request_set_error(err, PROTO_ERR_BAD_ARGUMENT,
			    request_indexed("dirs", i), "dirs[%zu] is too long "
			    "for its runs' subdirectories", i);
			return -1;
		}
		if (o->labels[i] == NULL &&
		    (o->labels[i] = default_label(o->dirs[i], i)) == NULL) {
			request_set_error(err, PROTO_ERR_INTERNAL, NULL,
			    "out of memory");
			return -1;
		}
	}
	return 0;
}

/* The knobs the sweep sets for each run, refused when the client gives
 * them. */
static const struct {
	const char *key, *why;
} sweep_sets[] = {
	{ "dir", "give the directories as dirs" },
	{ "label", "give each directory's label in labels" },
	{ "sweep_id", "the sweep sets it" },
};

static const char *const sweep_own[] = { "dirs", "labels", "repeat", NULL };

/*
 * A paced run sampled every 1 s has too few samples in its load phase
 * for a verdict when the load is short: with update_time and neither
 * sample_interval nor a profile (which may set one) among the client's
 * keys, sample about 60 times over the load, every update_time / 60 s
 * within 0.1 to 1 s, as stressctl's sweep always did.
 */
static void
sample_interval(json_object *args, json_object *knobs)
{
	json_object *ut;
	double si;

	if (json_object_object_get_ex(args, "sample_interval", NULL) ||
	    json_object_object_get_ex(args, "profile", NULL) ||
	    !json_object_object_get_ex(args, "update_time", &ut) ||
	    (!json_object_is_type(ut, json_type_int) &&
	    !json_object_is_type(ut, json_type_double)))
		return;
	si = fmin(1, fmax(0.1, json_object_get_double(ut) / 60));
	json_object_object_add(knobs, "sample_interval",
	    json_object_new_double(round(si * 1000) / 1000));
}

static int
run_knobs(json_object *args, const struct config *cfg,
    struct request_args *a, struct request_error *err)
{
	json_object *knobs = json_object_new_object();
	int rv;

	json_object_object_foreach(args, k, v) {
		bool own = false;

		for (size_t i = 0; sweep_own[i] != NULL; i++)
			own = own || strcmp(k, sweep_own[i]) == 0;
		if (!own)
			json_object_object_add(knobs, k, json_object_get(v));
	}
	sample_interval(args, knobs);
	json_object_object_add(knobs, "dir",
	    json_object_new_string(a->sweep.dirs[0]));
	rv = request_check_start(knobs, cfg, a, err);
	json_object_put(knobs);
	return rv;
}

int
request_check_sweep(json_object *args, const struct config *cfg,
    struct request_args *a, struct request_error *err)
{
	struct sweep_opts *o = &a->sweep;
	size_t nlabels;

	if (args == NULL || !json_object_object_get_ex(args, "dirs", NULL)) {
		request_set_error(err, PROTO_ERR_BAD_ARGUMENT, "dirs",
		    "dirs is required: the directories to sweep, one per "
		    "candidate storage");
		return -1;
	}
	for (size_t i = 0; i < sizeof(sweep_sets) / sizeof(*sweep_sets); i++)
		if (json_object_object_get_ex(args, sweep_sets[i].key, NULL)) {
			request_set_error(err, PROTO_ERR_BAD_ARGUMENT,
			    sweep_sets[i].key, "%s is not for sweep: %s",
			    sweep_sets[i].key, sweep_sets[i].why);
			return -1;
		}
	if (request_string_list(args, "dirs", SWEEP_MAX_DIRS, o->dirs, &o->ndirs,
	    err) == -1 || request_string_list(args, "labels", SWEEP_MAX_DIRS,
	    o->labels, &nlabels, err) == -1)
		goto fail;
	if (nlabels > 0 && nlabels != o->ndirs) {
		request_set_error(err, PROTO_ERR_BAD_ARGUMENT, "labels",
		    "labels has %zu entries for %zu dirs", nlabels, o->ndirs);
		goto fail;
	}
	if (repeat_key(args, &o->repeat, err) == -1 ||
	    check_dirs(o, err) == -1 || run_knobs(args, cfg, a, err) == -1)
		goto fail;
	return 0;
fail:
	request_sweep_opts_free(o);
	return -1;
}
