/*
 * The capacity record (STATE/runs/N/capacity.json, "schema":
 * "stressd-capacity", written by stressd's caprecord.c), read once into
 * structs: the schema, its version, the type of every member the views
 * read and the required ones are checked here, so a renamed or mistyped
 * field fails the parse, named, rather than showing as "-" in one view.
 * What a record may lack (null in the daemon's record, or absent from an
 * older or hand-made one) is NAN for a number, NULL for a string, -1 for
 * a boolean, a has_ flag for the rest.
 */
#ifndef STRESSCTL_CAPREC_H
#define STRESSCTL_CAPREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "recparse.h"

#define CAPREC_SCHEMA	"stressd-capacity"
/* The schema_version this stressctl reads (another is read with a
 * warning, as a newer run report is). */
#define CAPREC_VERSION	1

/* A step's (or a directory's at_capacity) figures; NAN when absent. */
struct caprec_figures {
	double	queue_avg, queue_p99, latency_p99_ms;
	double	cpu_writers_pct, cpu_writers_runq_pct;
	double	cpu_generators_pct, cpu_generators_runq_pct;
	double	cpu_process_pct;
};

struct caprec_dir {
	const char		*dir;		/* required */
	const char		*label;		/* NULL or "": none */
	const char		*fs_type;
	const char		*state;		/* required */
	double			 capacity_rate;	/* NAN: kept up at no rate */
	double			 capacity_interval_s;
	double			 behind_rate;	/* NAN: fell behind at none */
	const char		*behind_reason;
	const char		*limited_by;	/* storage, cpu, max_rate, ... */
	const char		*limit_reason;
	bool			 has_at;	/* at_capacity is an object */
	struct caprec_figures	 at;
	/* at_capacity_spread: the steps at the capacity rate, the range
	 * [0] to [1] of their figures (NAN: fewer than two) */
	bool			 has_spread;
	int64_t			 spread_steps;
	double			 spread_queue_avg[2], spread_latency_p99_ms[2];
	/* grid: the offset of its rates (NAN: not said, as in older
	 * records, or not begun) */
	double			 jitter, first_rate;
};

struct caprec_step {
	int64_t			 n;		/* required */
	int64_t			 dir_index;	/* required, < ndirs */
	int64_t			 run_id;
	bool			 has_run_id;
	const char		*phase;
	double			 rate;		/* required */
	const char		*state;
	int			 kept_up;	/* 1, 0, -1: cannot tell */
	int			 cpu_limited;	/* 1, 0, -1: not said */
	double			 slope_per_s, slope_stderr;
	double			 latency_bound_ms;
	double			 window_p99_ms;	/* steady.latency_p99_ms */
	struct caprec_figures	 f;
};

/* The search's options (NAN when absent). */
struct caprec_search {
	double	start_rate, max_rate, precision_pct;
	double	step_min_s, step_max_s, settle_s, latency_bound_s;
};

struct caprec {
	json_object		*json;		/* the record as read (a ref) */
	int64_t			 schema_version;	/* any: see below */
	bool			 has_schema_version;
	int64_t			 id;		/* required */
	const char		*state;		/* required */
	const char		*reason;
	const char		*started, *ended;
	const char		*host;		/* "host", else machine.name */
	int64_t			 files;		/* params.files */
	bool			 has_files;
	const char		*sync;		/* params.sync */
	struct caprec_search	 search;
	struct caprec_dir	*dirs;
	size_t			 ndirs;
	struct caprec_step	*steps;
	size_t			 nsteps;
};

/* Where a running search is: status's and stats' "capacity" object. */
struct caprec_progress {
	bool		 has;		/* false: no search in the reply */
	int64_t		 id;		/* required when has */
	const char	*state;		/* required when has */
	const char	*dir, *phase;
	double		 dir_index, ndirs, step, rate;
	double		 kept_up_rate, behind_rate;	/* NAN: none yet */
	double		 steps_done;
};

/* Whether o claims to be a capacity record (its "schema"); a claim that
 * caprec_parse then checks. */
bool		 caprec_is_record(json_object *o);
/*
 * o checked and read into a new struct caprec (which keeps a reference
 * to o); NULL on any error, with *err (if not NULL) a malloc'd message
 * naming the member: "capacity record: dirs[1].label: not a string".
 */
struct caprec	*caprec_parse(json_object *o, char **err);
/* NULL for a record of CAPREC_VERSION; else what to warn about ("has
 * schema_version 2, this stressctl reads schema_version 1"), malloc'd:
 * such a record is read as this version, what it lacks absent. */
char		*caprec_version_warning(const struct caprec *r);
void		 caprec_free(struct caprec *r);
/* Member key ("capacity") of o, absent or an object, into *g; false, the
 * error recorded in p, when it is of another shape. */
bool		 caprec_parse_progress(struct recparse *p, json_object *o,
		    const char *key, struct caprec_progress *g);

#endif
