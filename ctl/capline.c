/* The capacity search in other commands' views: the status object as a
 * line (stats, capacity's progress) and runs' table of searches (see
 * capline.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "capline.h"
#include "capview.h"
#include "columns.h"
#include "fmt.h"
#include "recparse.h"
#include "runsrec.h"

/* A rate, "-" when absent. */
static char *
rate_text(double r)
{
	return isnan(r) ? fmt_xstrdup("-") : capview_rate(r);
}

char *
capline_progress(const struct caprec_progress *c)
{
	char *rate = rate_text(c->rate), *k = rate_text(c->kept_up_rate);
	char *b = rate_text(c->behind_rate), *s;

	s = fmt_xprintf("capacity %lld: dir %.0f/%.0f %s, step %.0f (%s) at "
	    "%s updates/s; kept up at %s, fell behind at %s",
	    (long long)c->id, (isnan(c->dir_index) ? 0 : c->dir_index) + 1,
	    isnan(c->ndirs) ? 0 : c->ndirs, c->dir ? c->dir : "-",
	    isnan(c->step) ? 0 : c->step, c->phase ? c->phase : "-", rate, k,
	    b);
	free(rate);
	free(k);
	free(b);
	return s;
}

/* A rate cell of runs, "-" when null. */
static void
runs_rate(struct columns *t, double r)
{
	char *c;

	if (isnan(r)) {
		columns_add(t, "-");
		return;
	}
	c = capview_rate(r);
	columns_add(t, "%s", c);
	free(c);
}

/* A string member as the table shows it, "-" when absent. */
static const char *
word(const char *s)
{
	return s != NULL ? s : "-";
}

void
capline_runs(const struct runsrec *rs, FILE *f)
{
	static const char *const head[] = {
		"ID", "STARTED", "STATE", "FILES", "SYNC", "STEPS", "FS", "DIR",
		"CAPACITY/S", "BEHIND/S", "LIMITED BY",
	};
	static const struct runsrec_dir none = { .capacity_rate = NAN,
	    .behind_rate = NAN };
	struct columns *t = columns_new("rllrlrllrrl");

	for (size_t i = 0; i < sizeof(head) / sizeof(*head); i++)
		columns_add(t, "%s", head[i]);
	for (size_t i = 0; i < rs->nruns; i++) {
		const struct runsrec_run *r = &rs->runs[i];

		if (!runsrec_is_capacity(r))
			continue;
		for (size_t k = 0; k < (r->ndirs > 0 ? r->ndirs : 1); k++) {
			const struct runsrec_dir *d = k < r->ndirs ?
			    &r->dirs[k] : &none;
			char buf[64], *c;

			c = k > 0 ? fmt_xstrdup("") :
			    recparse_number_text(&r->id, NULL);
			columns_add(t, "%s", c);
			free(c);
			columns_add(t, "%s", k > 0 ? "" :
			    r->started_at == NULL ? "-" :
			    fmt_local_time(r->started_at, false, buf,
			    sizeof(buf)));
			columns_add(t, "%s", k > 0 ? "" : word(r->state));
			c = k > 0 ? fmt_xstrdup("") :
			    recparse_number_text(&r->files, NULL);
			columns_add(t, "%s", c);
			free(c);
			columns_add(t, "%s", k > 0 ? "" : word(r->sync));
			c = k > 0 ? fmt_xstrdup("") :
			    recparse_number_text(&r->steps, NULL);
			columns_add(t, "%s", c);
			free(c);
			columns_add(t, "%s", word(d->fs_type));
			columns_add(t, "%s", word(d->dir));
			runs_rate(t, d->capacity_rate);
			runs_rate(t, d->behind_rate);
			columns_add(t, "%s", word(d->limited_by));
		}
	}
	columns_print(t, f, 0);
	columns_free(t);
}
