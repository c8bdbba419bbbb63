/* The sweep record and the sweep's place in status, read once into
 * structs (see sweeprec.h).  The required members are those the daemon
 * always writes and the views cannot do without. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "recparse.h"
#include "sweeprec.h"

#define REQ	RECPARSE_REQ
#define OPT	RECPARSE_OPT

bool
sweeprec_is_record(json_object *o)
{
	return recparse_is_schema(o, SWEEPREC_SCHEMA);
}

static bool
parse_run(struct recparse *p, json_object *o, struct sweeprec_run *r,
    size_t ndirs)
{
	bool has;

	if (!json_object_is_type(o, json_type_object))
		return recparse_fail(p, NULL, "not an object");
	if (!recparse_int(p, o, "n", REQ, &r->n, &has) ||
	    !recparse_int(p, o, "run_id", REQ, &r->run_id, &has) ||
	    !recparse_int(p, o, "dir_index", REQ, &r->dir_index, &has) ||
	    !recparse_str(p, o, "dir", OPT, &r->dir) ||
	    !recparse_str(p, o, "state", REQ, &r->state))
		return false;
	if (r->dir_index < 0 || (size_t)r->dir_index >= ndirs)
		return recparse_fail(p, "dir_index", "%lld: the record has "
		    "%zu director%s", (long long)r->dir_index, ndirs,
		    ndirs == 1 ? "y" : "ies");
	return true;
}

static bool
parse_top(struct recparse *p, json_object *o, struct sweeprec *r)
{
	const char *schema;
	bool has;

	if (!recparse_str(p, o, "schema", REQ, &schema))
		return false;
	if (strcmp(schema, SWEEPREC_SCHEMA) != 0)
		return recparse_fail(p, "schema", "\"%s\", not \"%s\"",
		    schema, SWEEPREC_SCHEMA);
	return recparse_int(p, o, "schema_version", OPT, &r->schema_version,
	    &r->has_schema_version) &&
	    recparse_int(p, o, "id", REQ, &r->id, &has) &&
	    recparse_str(p, o, "sweep_id", OPT, &r->sweep_id) &&
	    recparse_str(p, o, "state", REQ, &r->state) &&
	    recparse_str(p, o, "reason", OPT, &r->reason) &&
	    recparse_num(p, o, "repeat", OPT, &r->repeat) &&
	    recparse_num(p, o, "runs_planned", OPT, &r->runs_planned) &&
	    recparse_num(p, o, "runs_failed", OPT, &r->runs_failed);
}

struct sweeprec *
sweeprec_parse(json_object *o, char **err)
{
	struct sweeprec *r = fmt_nomem(calloc(1, sizeof(*r)));
	struct recparse p;
	json_object *dirs, *runs;

	recparse_init(&p, "sweep record");
	if (!json_object_is_type(o, json_type_object)) {
		recparse_fail(&p, NULL, "not a JSON object");
		goto fail;
	}
	r->json = json_object_get(o);
	if (!parse_top(&p, o, r) ||
	    !recparse_arr(&p, o, "dirs", REQ, &dirs) ||
	    !recparse_arr(&p, o, "runs", REQ, &runs))
		goto fail;
	r->ndirs = json_object_array_length(dirs);
	r->dirs = fmt_nomem(calloc(r->ndirs + 1, sizeof(*r->dirs)));
	for (size_t i = 0; i < r->ndirs; i++) {
		json_object *d = json_object_array_get_idx(dirs, i);

		recparse_at(&p, "dirs[%zu]", i);
		if (!json_object_is_type(d, json_type_object)) {
			recparse_fail(&p, NULL, "not an object");
			goto fail;
		}
		if (!recparse_str(&p, d, "dir", REQ, &r->dirs[i].dir) ||
		    !recparse_str(&p, d, "label", OPT, &r->dirs[i].label))
			goto fail;
	}
	r->nruns = json_object_array_length(runs);
	r->runs = fmt_nomem(calloc(r->nruns + 1, sizeof(*r->runs)));
	for (size_t i = 0; i < r->nruns; i++) {
		recparse_at(&p, "runs[%zu]", i);
		if (!parse_run(&p, json_object_array_get_idx(runs, i),
		    &r->runs[i], r->ndirs))
			goto fail;
	}
	return r;
fail:
	recparse_give_error(&p, err);
	sweeprec_free(r);
	return NULL;
}

void
sweeprec_free(struct sweeprec *r)
{
	if (r == NULL)
		return;
	json_object_put(r->json);
	free(r->dirs);
	free(r->runs);
	free(r);
}

bool
sweeprec_parse_where(struct recparse *p, json_object *o, const char *key,
    struct sweeprec_where *w)
{
	json_object *s;
	char here[sizeof(p->at)];

	memset(w, 0, sizeof(*w));
	w->run = w->runs_planned = w->runs_done = w->runs_failed = NAN;
	if (!recparse_obj(p, o, key, OPT, &s))
		return false;
	if (s == NULL)
		return true;
	w->has = true;
	snprintf(here, sizeof(here), "%s", p->at);
	recparse_at(p, "%s%s%s", here, *here ? "." : "", key);
	if (!recparse_int(p, s, "id", REQ, &w->id, &w->has) ||
	    !recparse_str(p, s, "sweep_id", OPT, &w->sweep_id) ||
	    !recparse_str(p, s, "state", REQ, &w->state) ||
	    !recparse_str(p, s, "label", OPT, &w->label) ||
	    !recparse_num(p, s, "run", OPT, &w->run) ||
	    !recparse_num(p, s, "runs_planned", OPT, &w->runs_planned) ||
	    !recparse_num(p, s, "runs_done", OPT, &w->runs_done) ||
	    !recparse_num(p, s, "runs_failed", OPT, &w->runs_failed))
		return false;
	recparse_at(p, "%s", here);
	return true;
}
