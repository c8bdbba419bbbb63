/*
 * The `stats` reply (and `wait`'s final stats; built by stressd's
 * runview.c from stats.c's counters), read once into a struct: the type
 * of every member read here is checked and "state" is required, a wrong
 * one named in the error.  An idle daemon's reply has little more than
 * its state, so every other member is optional: NAN for a number (the
 * views count it as 0, as they always have), NULL for a string or an
 * object.  Its verdict and warnings are the run report's (runrec.h).
 */
#ifndef STRESSCTL_STATSREC_H
#define STRESSCTL_STATSREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "caprec.h"
#include "runrec.h"
#include "sweeprec.h"

struct statsrec_rates {
	double	current_enqueue, current_dequeue;	/* .total */
	double	overall_enqueue, overall_dequeue;
};

struct statsrec {
	json_object		*json;		/* the reply's result (a ref) */
	const char		*state;		/* required */
	const char		*reason;
	int64_t			 run_id;
	bool			 has_run_id;
	double			 elapsed_s, generated, max_updates;
	double			 update_time;
	/* the gauges and counters the views show */
	double			 significant_ops_pending;
	double			 total_operations_pending;
	double			 updates_completed, updates_failed;
	double			 creates_failed, dropped, discarded, errors;
	struct statsrec_rates	 rates;		/* rates.*.total */
	/* queue_average: NAN when the run has not sampled yet */
	double			 avg_samples, avg_significant, avg_total;
	json_object		*errors_by_kind;	/* {kind: count} */
	json_object		*error_messages;	/* [string] */
	struct caprec_progress	 capacity;	/* a search's step */
	struct sweeprec_where	 sweep;		/* a sweep's run */
	struct runrec_verdict	 verdict;
	struct runrec_warning	*warnings;
	size_t			 nwarnings;
};

/* o checked and read into a new struct statsrec (keeping a reference to
 * o); NULL on any error, with *err (if not NULL) a malloc'd message:
 * "stats reply: rates.current_dequeue.total: not a number". */
struct statsrec	*statsrec_parse(json_object *o, char **err);
void		 statsrec_free(struct statsrec *s);

#endif
