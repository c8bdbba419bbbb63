/*
 * The insides of the sweep, shared by sweep.c (the driver) and
 * sweeprecord.c (its record and recovery) only: one module.
 */
#ifndef STRESSD_SWEEPPRIV_H
#define STRESSD_SWEEPPRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <json-c/json.h>

#include "knobs.h"
#include "sweep.h"
#include "sweepopts.h"

enum sweepstate_state {
	SWEEPSTATE_RUNNING, SWEEPSTATE_DONE, SWEEPSTATE_STOPPED,
	SWEEPSTATE_FAILED
};

/* One run the sweep started (launched: its record exists). */
struct sweeprun {
	unsigned	 run_id;
	size_t		 dir;		/* index into the sweep's dirs */
	unsigned long	 k;		/* its number in the sweep, from 1 */
	const char	*state;		/* running, done, stopped, failed */
	char		*path;		/* DIR/sweep-<sweep_id>-<k> */
};

struct sweepstate {
	bool			 active;
	unsigned		 id;		/* the first run's */
	char			 sweep_id[KNOBS_TEXT_MAX];
	enum sweepstate_state	 state;
	char			 reason[1200];
	struct stress_params	 base;
	struct sweep_opts	 o;
	int			 update_fd;	/* -1: none */
	time_t			 started, ended;
	unsigned long		 total;		/* runs planned */
	struct sweeprun		*runs;		/* started and launched */
	unsigned long		 nruns, capruns;
	unsigned long		 failed;	/* runs that ended failed */
	unsigned		 run;		/* the current run's id; 0 */
	char			*next_path;	/* the run being prepared's */
	bool			 preparing;
	bool			 replied;	/* the command was answered */
	bool			 have_record;	/* its first run launched */
	bool			 stop_requested;
	char			 stop_why[256];
};

const char	*sweepstate_name(enum sweepstate_state s);
/* sweep.json: the object; written whole into the first run's
 * directory (nothing before that run launched). */
json_object	*sweeprecord_json(const struct sweepstate *s);
void		 sweeprecord_write(const struct sweepstate *s);
/* At start: records of sweeps a crash left running are marked
 * interrupted, their runs kept. */
void		 sweeprecord_recover(const char *state_dir);

#endif
