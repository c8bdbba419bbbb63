/*
 * The `status` reply (stressd's cmd-info.c, its run by runview.c's
 * run_status_json), read once into a struct: the type of every member read
 * here is checked, a wrong one named in the error ("status reply:
 * run.params.update_time: not a number").  Every member is optional (an
 * idle daemon that ran nothing has no run: then run and params are NULL;
 * the tests' fake daemons send little more than a run).  The
 * search and the sweep in the reply are caprec's and sweeprec's
 * (caprec_parse_progress, sweeprec_parse_where).
 */
#ifndef STRESSCTL_STATUSREC_H
#define STRESSCTL_STATUSREC_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

struct statusrec {
	json_object	*json;		/* the reply's result (a ref) */
	const char	*state;
	json_object	*run;		/* the current or last run, or NULL */
	/* run.params: the run's knobs (kept whole: status lists them), and
	 * those read by name (NAN: absent) */
	json_object	*params;
	double		 sample_interval, update_time;
};

/* o checked and read into a new struct statusrec (which keeps a reference
 * to o); NULL on any error, with *err (if not NULL) a malloc'd message
 * naming the member. */
struct statusrec	*statusrec_parse(json_object *o, char **err);
void			 statusrec_free(struct statusrec *s);

#endif
