/*
 * The `runs` reply (stressd's cmd-records.c, each summary built by
 * runrecords.c from a run's report.json or a capacity search's
 * capacity.json), read once into structs: "runs" is required and every
 * member read here is type-checked, a wrong one named in the error
 * ("runs reply: runs[3].state: not a string").  A summary copies what its
 * record had, so every member of one is optional: absent for a number,
 * NULL for a string.
 */
#ifndef STRESSCTL_RUNSREC_H
#define STRESSCTL_RUNSREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "recparse.h"

/* One directory of a capacity search's summary. */
struct runsrec_dir {
	const char	*dir, *fs_type, *limited_by;
	double		 capacity_rate, behind_rate;	/* NAN: none */
};

/* One summary: a run's, or (kind "capacity") a capacity search's. */
struct runsrec_run {
	const char		*kind;		/* NULL: a run's */
	struct recparse_number	 id;
	const char		*state, *started_at;
	const char		*dir, *fs_type, *sync, *label, *sweep_id;
	struct recparse_number	 updates_completed, updates_on_disk;
	struct recparse_number	 files, max_updates, update_time;
	struct recparse_number	 significant_avg, warnings;
	bool			 has_verdict;	/* a member kept_up */
	int			 kept_up;	/* 1, 0, -1: cannot tell */
	/* A step of a capacity search: its search and step. */
	bool			 has_capacity;
	double			 capacity_id, capacity_step;	/* NAN: none */
	/* A capacity search's. */
	struct recparse_number	 steps;
	struct runsrec_dir	*dirs;
	size_t			 ndirs;
};

struct runsrec {
	json_object		*json;		/* the reply's result (a ref) */
	struct runsrec_run	*runs;		/* "runs", required */
	size_t			 nruns;
	int64_t			 next_before;	/* 0: no page before */
};

/* o checked and read into a new struct runsrec (which keeps a reference
 * to o); NULL on any error, with *err (if not NULL) a malloc'd message
 * naming the member. */
struct runsrec	*runsrec_parse(json_object *o, char **err);
void		 runsrec_free(struct runsrec *r);

/* Whether run r is a capacity search's summary. */
bool		 runsrec_is_capacity(const struct runsrec_run *r);

#endif
