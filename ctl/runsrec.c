/* The runs reply read once into structs (see runsrec.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "recparse.h"
#include "runsrec.h"

#define REQ	RECPARSE_REQ
#define OPT	RECPARSE_OPT

static bool
parse_dirs(struct recparse *p, json_object *o, size_t k,
    struct runsrec_run *r)
{
	json_object *arr;

	recparse_at(p, "runs[%zu]", k);
	if (!recparse_arr(p, o, "dirs", OPT, &arr))
		return false;
	r->ndirs = arr != NULL ? json_object_array_length(arr) : 0;
	r->dirs = fmt_nomem(calloc(r->ndirs + 1, sizeof(*r->dirs)));
	for (size_t i = 0; i < r->ndirs; i++) {
		json_object *d = json_object_array_get_idx(arr, i);
		struct runsrec_dir *e = &r->dirs[i];

		recparse_at(p, "runs[%zu].dirs[%zu]", k, i);
		if (!json_object_is_type(d, json_type_object))
			return recparse_fail(p, NULL, "not an object");
		if (!recparse_str(p, d, "dir", OPT, &e->dir) ||
		    !recparse_str(p, d, "fs_type", OPT, &e->fs_type) ||
		    !recparse_str(p, d, "limited_by", OPT, &e->limited_by) ||
		    !recparse_num(p, d, "capacity_rate", OPT,
		    &e->capacity_rate) ||
		    !recparse_num(p, d, "behind_rate", OPT, &e->behind_rate))
			return false;
	}
	return true;
}

static bool
parse_numbers(struct recparse *p, json_object *o, struct runsrec_run *r)
{
	return recparse_number(p, o, "id", OPT, &r->id) &&
	    recparse_number(p, o, "updates_completed", OPT,
	    &r->updates_completed) &&
	    recparse_number(p, o, "updates_on_disk", OPT,
	    &r->updates_on_disk) &&
	    recparse_number(p, o, "files", OPT, &r->files) &&
	    recparse_number(p, o, "max_updates", OPT, &r->max_updates) &&
	    recparse_number(p, o, "update_time", OPT, &r->update_time) &&
	    recparse_number(p, o, "significant_avg", OPT,
	    &r->significant_avg) &&
	    recparse_number(p, o, "warnings", OPT, &r->warnings) &&
	    recparse_number(p, o, "steps", OPT, &r->steps);
}

static bool
parse_run(struct recparse *p, json_object *o, size_t k,
    struct runsrec_run *r)
{
	json_object *cap, *v;

	recparse_at(p, "runs[%zu]", k);
	if (!json_object_is_type(o, json_type_object))
		return recparse_fail(p, NULL, "not an object");
	/* "kept_up": null is a verdict that cannot tell; no member, an
	 * older stressd's record without one. */
	r->has_verdict = json_object_object_get_ex(o, "kept_up", &v);
	if (!recparse_str(p, o, "kind", OPT, &r->kind) ||
	    !recparse_str(p, o, "state", OPT, &r->state) ||
	    !recparse_str(p, o, "started_at", OPT, &r->started_at) ||
	    !recparse_str(p, o, "dir", OPT, &r->dir) ||
	    !recparse_str(p, o, "fs_type", OPT, &r->fs_type) ||
	    !recparse_str(p, o, "sync", OPT, &r->sync) ||
	    !recparse_str(p, o, "label", OPT, &r->label) ||
	    !recparse_str(p, o, "sweep_id", OPT, &r->sweep_id) ||
	    !recparse_bool(p, o, "kept_up", OPT, &r->kept_up) ||
	    !parse_numbers(p, o, r) ||
	    !recparse_obj(p, o, "capacity", OPT, &cap))
		return false;
	r->has_capacity = cap != NULL;
	recparse_at(p, "runs[%zu].capacity", k);
	if (!recparse_num(p, cap, "id", OPT, &r->capacity_id) ||
	    !recparse_num(p, cap, "step", OPT, &r->capacity_step))
		return false;
	return parse_dirs(p, o, k, r);
}

struct runsrec *
runsrec_parse(json_object *o, char **err)
{
	struct runsrec *r = fmt_nomem(calloc(1, sizeof(*r)));
	struct recparse p;
	json_object *list;
	bool has;

	recparse_init(&p, "runs reply");
	if (!json_object_is_type(o, json_type_object)) {
		recparse_fail(&p, NULL, "not a JSON object");
		goto fail;
	}
	r->json = json_object_get(o);
	if (!recparse_arr(&p, o, "runs", REQ, &list) ||
	    !recparse_int(&p, o, "next_before", OPT, &r->next_before, &has))
		goto fail;
	r->nruns = json_object_array_length(list);
	r->runs = fmt_nomem(calloc(r->nruns + 1, sizeof(*r->runs)));
	for (size_t i = 0; i < r->nruns; i++)
		if (!parse_run(&p, json_object_array_get_idx(list, i), i,
		    &r->runs[i]))
			goto fail;
	return r;
fail:
	recparse_give_error(&p, err);
	runsrec_free(r);
	return NULL;
}

void
runsrec_free(struct runsrec *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->nruns; i++)
		free(r->runs[i].dirs);
	free(r->runs);
	json_object_put(r->json);
	free(r);
}

bool
runsrec_is_capacity(const struct runsrec_run *r)
{
	return r->kind != NULL && strcmp(r->kind, "capacity") == 0;
}
