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
#include "jpath.h"

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
runs_rate(struct columns *t, json_object *d, const char *key)
{
	double r;
	char *c;

	if (!jpath_num(d, key, &r)) {
		columns_add(t, "-");
		return;
	}
	c = capview_rate(r);
	columns_add(t, "%s", c);
	free(c);
}

void
capline_runs(json_object *runs, FILE *f)
{
	static const char *const head[] = {
		"ID", "STARTED", "STATE", "FILES", "SYNC", "STEPS", "FS", "DIR",
		"CAPACITY/S", "BEHIND/S", "LIMITED BY",
	};
	struct columns *t = columns_new("rllrlrllrrl");

	for (size_t i = 0; i < sizeof(head) / sizeof(*head); i++)
		columns_add(t, "%s", head[i]);
	for (size_t i = 0; i < json_object_array_length(runs); i++) {
		json_object *r = json_object_array_get_idx(runs, i);
		json_object *dirs = jpath(r, "dirs");
		const char *kind = jpath_str(r, "kind");
		size_t nd = json_object_is_type(dirs, json_type_array) ?
		    json_object_array_length(dirs) : 0;

		if (kind == NULL || strcmp(kind, "capacity") != 0)
			continue;
		for (size_t k = 0; k < (nd > 0 ? nd : 1); k++) {
			json_object *d = json_object_array_get_idx(dirs, k);
			const char *when = jpath_str(r, "started_at");
			const char *keys[] = { "state", "files", "sync",
			    "steps" };
			char buf[64], *c;

			c = k > 0 ? fmt_xstrdup("") : jpath_text(r, "id",
			    NULL);
			columns_add(t, "%s", c);
			free(c);
			columns_add(t, "%s", k > 0 ? "" : when != NULL ?
			    fmt_local_time(when, false, buf, sizeof(buf)) :
			    "-");
			for (size_t j = 0; j < 4; j++) {
				c = k > 0 ? fmt_xstrdup("") :
				    jpath_text(r, keys[j], NULL);
				columns_add(t, "%s", c);
				free(c);
			}
			columns_add(t, "%s", jpath_str(d, "fs_type") ?
			    jpath_str(d, "fs_type") : "-");
			columns_add(t, "%s", jpath_str(d, "dir") ?
			    jpath_str(d, "dir") : "-");
			runs_rate(t, d, "capacity_rate");
			runs_rate(t, d, "behind_rate");
			columns_add(t, "%s", jpath_str(d, "limited_by") ?
			    jpath_str(d, "limited_by") : "-");
		}
	}
	columns_print(t, f, 0);
	columns_free(t);
}
