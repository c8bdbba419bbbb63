/* The status reply read once into a struct (see statusrec.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "fmt.h"
#include "recparse.h"
#include "statusrec.h"

struct statusrec *
statusrec_parse(json_object *o, char **err)
{
	struct statusrec *s = fmt_nomem(calloc(1, sizeof(*s)));
	struct recparse p;

	s->sample_interval = s->update_time = NAN;
	recparse_init(&p, "status reply");
	if (!json_object_is_type(o, json_type_object)) {
		recparse_fail(&p, NULL, "not a JSON object");
		goto fail;
	}
	s->json = json_object_get(o);
	if (!recparse_str(&p, o, "state", RECPARSE_OPT, &s->state) ||
	    !recparse_obj(&p, o, "run", RECPARSE_OPT, &s->run))
		goto fail;
	recparse_at(&p, "run");
	if (!recparse_obj(&p, s->run, "params", RECPARSE_OPT, &s->params))
		goto fail;
	recparse_at(&p, "run.params");
	if (!recparse_num(&p, s->params, "sample_interval", RECPARSE_OPT,
	    &s->sample_interval) ||
	    !recparse_num(&p, s->params, "update_time", RECPARSE_OPT,
	    &s->update_time))
		goto fail;
	return s;
fail:
	recparse_give_error(&p, err);
	statusrec_free(s);
	return NULL;
}

void
statusrec_free(struct statusrec *s)
{
	if (s == NULL)
		return;
	json_object_put(s->json);
	free(s);
}
