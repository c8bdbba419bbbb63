/*
 * The insides of the capacity search, shared by capacity.c (the driver)
 * and caprecord.c (its record and the judgement of each directory) only.
 */
#ifndef STRESSD_CAPSTATE_H
#define STRESSD_CAPSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <json-c/json.h>

#include "capacity.h"
#include "capsearch.h"
#include "cpustat.h"
#include "knobs.h"
#include "run.h"
#include "verdict.h"

enum capstate_state {
	CAPSTATE_RUNNING, CAPSTATE_DONE, CAPSTATE_STOPPED, CAPSTATE_FAILED
};

/* One finished step. */
struct capstep {
	int			 n;		/* from 1 */
	size_t			 dir;
	unsigned		 run_id;
	double			 rate;
	enum capsearch_phase	 phase;
	const char		*state;		/* done, stopped, failed */
	bool			 ended_early;	/* had its answer */
	int			 kept_up;	/* 1, 0, -1 cannot tell */
	size_t			 samples;
	bool			 have_slope;
	double			 slope, se;
	bool			 cpu_limited;
	struct verdict		 v;		/* its steady window */
	struct run_step		 f;
	char			 fs_type[64];
	char			 reason[600];
};

/* A directory's result so far. */
struct capdir {
	const char		*state;	/* pending running done stopped failed */
	const char		*limited_by;	/* NULL: not known yet */
	char			 limit_reason[700];
	int			 at_step;	/* the step at capacity; 0 */
	int			 behind_step;	/* the first one behind; 0 */
	double			 lo, hi;	/* the bracket; 0: none */
	double			 jitter, first_rate;	/* its grid; 0: not begun */
};

struct capstate {
	bool			 active;
	unsigned		 id;
	char			 state_dir[4096];	/* its record's */
	enum capstate_state	 state;
	char			 reason[1200];
	struct stress_params	 base;
	struct capopts		 o;
	time_t			 started, ended;
	size_t			 di;		/* the directory searched */
	struct capsearch	 cs;		/* its search */
	struct capdir		 dirs[CAPOPTS_MAX_DIRS];
	struct capstep		*steps;
	int			 nsteps, capsteps;
	unsigned		 step_run;	/* the step's run id; 0 */
	bool			 preparing;	/* being prepared */
	bool			 replied;	/* the command was answered */
	bool			 no_record;	/* refused at once: none kept */
	bool			 ended_early, drain_cut;
	double			 last_judged, drain_since;	/* mono s */
	/* CPU as the step's load began and at its latest judgement: the
	 * step's CPU shares are the load's, not its creates' or drain's */
	struct cpustat		 cpu_load0, cpu_last;
	double			 cpu_load0_t, cpu_last_t;	/* 0: none */
	bool			 stop_requested;
	char			 stop_why[256];
};

const char	*capstate_name(enum capstate_state s);
/* A new zeroed step at the end (nsteps counts it), or NULL. */
struct capstep	*capstate_add_step(struct capstate *c);
/* Directory d's capacity, bracket and limit from its steps so far. */
void		 capstate_judge_dir(struct capstate *c, size_t d);
/* capacity.json: the object; written whole to the search's directory;
 * the directory removed (a search refused before its first step). */
json_object	*caprecord_json(const struct capstate *c);
void		 caprecord_write(const struct capstate *c);
void		 caprecord_remove(const struct capstate *c);
/* At start: records of searches a crash left running are marked
 * interrupted, their steps kept. */
void		 caprecord_recover(const char *state_dir);

#endif
