/*
 * The sweep record (STATE/runs/N/sweep.json, "schema": "stressd-sweep",
 * written by stressd's sweeprecord.c) and the sweep's place in status and
 * stats ("sweep"), read once into structs: the schema, the type of every
 * member the views read and the required ones are checked here, so a
 * renamed or mistyped field fails the parse, named.  What may be absent
 * is NAN for a number, NULL for a string, a has_ flag for an id.
 */
#ifndef STRESSCTL_SWEEPREC_H
#define STRESSCTL_SWEEPREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "recparse.h"

#define SWEEPREC_SCHEMA		"stressd-sweep"
#define SWEEPREC_VERSION	1

struct sweeprec_dir {
	const char	*dir;		/* required */
	const char	*label;
};

struct sweeprec_run {
	int64_t		 n;		/* required: from 1 */
	int64_t		 run_id;	/* required */
	int64_t		 dir_index;	/* required, < ndirs */
	const char	*dir;
	const char	*state;		/* required: running, done, ... */
};

struct sweeprec {
	json_object		*json;		/* the record as read (a ref) */
	int64_t			 schema_version;
	bool			 has_schema_version;
	int64_t			 id;		/* required: its first run's */
	const char		*sweep_id;
	const char		*state;		/* required */
	const char		*reason;
	double			 repeat, runs_planned, runs_failed;
	struct sweeprec_dir	*dirs;
	size_t			 ndirs;
	struct sweeprec_run	*runs;
	size_t			 nruns;
};

/* Where a running sweep is: status's and stats' "sweep" object. */
struct sweeprec_where {
	bool		 has;		/* false: no sweep in the reply */
	int64_t		 id;		/* required when has */
	const char	*sweep_id;
	const char	*state;		/* required when has */
	const char	*label;
	double		 run, runs_planned, runs_done, runs_failed;
};

/* Whether o claims to be a sweep record (its "schema"). */
bool		 sweeprec_is_record(json_object *o);
/* o checked and read into a new struct sweeprec (keeping a reference to
 * o); NULL on any error, with *err (if not NULL) a malloc'd message
 * naming the member: "sweep record: runs[2].state: not a string". */
struct sweeprec	*sweeprec_parse(json_object *o, char **err);
void		 sweeprec_free(struct sweeprec *r);
/* Member key ("sweep") of o, absent or an object, into *w; false, the
 * error recorded in p, when it is of another shape. */
bool		 sweeprec_parse_where(struct recparse *p, json_object *o,
		    const char *key, struct sweeprec_where *w);

#endif
