/*
 * The run report (report.json, or the `report` reply; written by stressd's
 * report.c, its verdict by verdict.c; schema 1, see stressd(8)), read once
 * into structs: the schema, the type of every member read here and the
 * required ones (schema, run_id, state) are checked, a wrong one named
 * in the error.  A newer schema only adds keys, and an older stressd's
 * record lacks some (no verdict, no warnings): what a record may lack is
 * NAN for a number, NULL for a string, -1 for a boolean, a has_ flag for
 * the rest.  The verdict and warnings are shared with the stats reply
 * (statsrec.c), whose verdict is the same object.
 */
#ifndef STRESSCTL_RUNREC_H
#define STRESSCTL_RUNREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "recparse.h"

/* The schema this stressctl reads; a newer one is read with a warning. */
#define RUNREC_SCHEMA	1

/* "verdict" (verdict.c). */
struct runrec_verdict {
	bool		 has;		/* false: an older stressd's record */
	int		 kept_up;	/* 1, 0, -1: cannot tell */
	const char	*reason;
	double		 load_samples;	/* load_phase.samples */
	double		 slope_per_s, slope_stderr;
	double		 backlog_in_1h, backlog_threshold;
	double		 latency_p99_ms, latency_bound_ms;
};

/* One of "warnings". */
struct runrec_warning {
	const char	*code, *message;	/* required */
};

/* One of queue_depth's gauges. */
struct runrec_depth {
	bool		 has;
	int64_t		 samples;
	double		 average, min, max, p50, p90, p99;
	json_object	*histogram;	/* [{value, [upper,] count}] checked */
};

struct runrec {
	json_object		*json;		/* the record as read (a ref) */
	int64_t			 schema;	/* required */
	int64_t			 run_id;	/* required */
	const char		*state;		/* required */
	const char		*reason;
	const char		*stressd_version, *librrd_version;
	const char		*started_at, *ended_at;
	double			 elapsed_s;
	/* host */
	const char		*host_name, *host_kernel, *host_machine;
	int64_t			 host_cpus;
	bool			 has_host_cpus;
	/* params: the run's knobs (the object kept for the ones listed
	 * whole), those the views read by name here */
	json_object		*params;
	const char		*label, *dir, *sweep_id, *sync;
	double			 max_updates, update_time, sample_interval;
	/* target */
	const char		*target_dir, *fs_type, *mount_options;
	const char		*mount_point, *mount_source;
	struct runrec_verdict	 verdict;
	struct runrec_warning	*warnings;
	size_t			 nwarnings;
	double			 samples, sample_interval_s;
	struct runrec_depth	 sig, total;	/* queue_depth's two */
	bool			 has_recount;
};

/*
 * o checked and read into a new struct runrec (which keeps a reference to
 * o); NULL on any error, with *err (if not NULL) a malloc'd message naming
 * the member: "run report: verdict.kept_up: not a boolean".
 */
struct runrec	*runrec_parse(json_object *o, char **err);
void		 runrec_free(struct runrec *r);

/* What the stats reply shares: its "verdict" and "warnings" members of o
 * read into *v and a malloc'd array of *nw warnings.  False on an error,
 * recorded in p. */
bool		 runrec_parse_verdict(struct recparse *p, json_object *o,
		    struct runrec_verdict *v, struct runrec_warning **w,
		    size_t *nw);

#endif
