/* The stats reply read once into a struct (see statsrec.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "recparse.h"
#include "statsrec.h"

#define REQ	RECPARSE_REQ
#define OPT	RECPARSE_OPT

/* rates.key.total into *out. */
static bool
rate(struct recparse *p, json_object *rates, const char *key, double *out)
{
	json_object *o;

	recparse_at(p, "rates");
	if (!recparse_obj(p, rates, key, OPT, &o))
		return false;
	recparse_at(p, "rates.%s", key);
	return recparse_num(p, o, "total", OPT, out);
}

static bool
parse_rates(struct recparse *p, json_object *o, struct statsrec *s)
{
	json_object *r, *qa;

	recparse_at(p, "%s", "");
	if (!recparse_obj(p, o, "rates", OPT, &r) ||
	    !rate(p, r, "current_enqueue", &s->rates.current_enqueue) ||
	    !rate(p, r, "current_dequeue", &s->rates.current_dequeue) ||
	    !rate(p, r, "overall_enqueue", &s->rates.overall_enqueue) ||
	    !rate(p, r, "overall_dequeue", &s->rates.overall_dequeue))
		return false;
	recparse_at(p, "%s", "");
	if (!recparse_obj(p, o, "queue_average", OPT, &qa))
		return false;
	recparse_at(p, "queue_average");
	return recparse_num(p, qa, "samples", OPT, &s->avg_samples) &&
	    recparse_num(p, qa, "significant_ops_pending", OPT,
	    &s->avg_significant) &&
	    recparse_num(p, qa, "total_operations_pending", OPT,
	    &s->avg_total);
}

static bool
parse_counts(struct recparse *p, json_object *o, struct statsrec *s)
{
	return recparse_num(p, o, "elapsed_s", OPT, &s->elapsed_s) &&
	    recparse_num(p, o, "generated", OPT, &s->generated) &&
	    recparse_num(p, o, "max_updates", OPT, &s->max_updates) &&
	    recparse_num(p, o, "update_time", OPT, &s->update_time) &&
	    recparse_num(p, o, "significant_ops_pending", OPT,
	    &s->significant_ops_pending) &&
	    recparse_num(p, o, "total_operations_pending", OPT,
	    &s->total_operations_pending) &&
	    recparse_num(p, o, "updates_completed", OPT,
	    &s->updates_completed) &&
	    recparse_num(p, o, "updates_failed", OPT, &s->updates_failed) &&
	    recparse_num(p, o, "creates_failed", OPT, &s->creates_failed) &&
	    recparse_num(p, o, "dropped", OPT, &s->dropped) &&
	    recparse_num(p, o, "discarded", OPT, &s->discarded) &&
	    recparse_num(p, o, "errors", OPT, &s->errors);
}

/* errors_by_kind's counts are integers. */
static bool
parse_kinds(struct recparse *p, json_object *o, struct statsrec *s)
{
	if (!recparse_obj(p, o, "errors_by_kind", OPT, &s->errors_by_kind) ||
	    !recparse_arr(p, o, "error_messages", OPT, &s->error_messages) ||
	    !caprec_parse_progress(p, o, "capacity", &s->capacity) ||
	    !sweeprec_parse_where(p, o, "sweep", &s->sweep))
		return false;
	if (s->errors_by_kind == NULL)
		return true;
	recparse_at(p, "errors_by_kind");
	json_object_object_foreach(s->errors_by_kind, k, v) {
		int64_t n;
		bool has;

		(void)v;
		if (!recparse_int(p, s->errors_by_kind, k, OPT, &n, &has))
			return false;
	}
	recparse_at(p, "%s", "");
	return true;
}

struct statsrec *
statsrec_parse(json_object *o, char **err)
{
	struct statsrec *s = fmt_nomem(calloc(1, sizeof(*s)));
	struct recparse p;

	recparse_init(&p, "stats reply");
	if (!json_object_is_type(o, json_type_object)) {
		recparse_fail(&p, NULL, "not a JSON object");
		goto fail;
	}
	s->json = json_object_get(o);
	if (!recparse_str(&p, o, "state", REQ, &s->state) ||
	    !recparse_str(&p, o, "reason", OPT, &s->reason) ||
	    !recparse_int(&p, o, "run_id", OPT, &s->run_id, &s->has_run_id) ||
	    !parse_counts(&p, o, s) || !parse_kinds(&p, o, s) ||
	    !parse_rates(&p, o, s) ||
	    !runrec_parse_verdict(&p, o, &s->verdict, &s->warnings,
	    &s->nwarnings))
		goto fail;
	return s;
fail:
	recparse_give_error(&p, err);
	statsrec_free(s);
	return NULL;
}

void
statsrec_free(struct statsrec *s)
{
	if (s == NULL)
		return;
	json_object_put(s->json);
	free(s->warnings);
	free(s);
}
