/*
 * A run's record: STATE/runs/<id>/report.json (schema 1; the keys other
 * tools rely on are listed in README "Reading the results") and
 * samples.csv beside it.  Written at run end and every REPORT_REFRESH_S
 * while the run goes, each time to a temporary file renamed over the old
 * one, so a reader never sees half a record.
 */
#ifndef STRESSD_REPORT_H
#define STRESSD_REPORT_H

#include <stdint.h>
#include <time.h>
#include <json-c/json.h>

#include "cpustat.h"
#include "dist.h"
#include "evict.h"
#include "hist.h"
#include "knobs.h"
#include "mountinfo.h"
#include "queue.h"
#include "rrdcc.h"
#include "rrdfile.h"
#include "sampler.h"
#include "verdict.h"

#define REPORT_SCHEMA		1
#define REPORT_REFRESH_S	10.0

/*
 * The run's files as setup found them, counted for the record; each
 * file's own last update is in baseline.bin (baseline.h), from which a
 * recount after a crash goes file by file (recover.c).
 */
struct report_baseline {
	uint64_t	files_reused;	/* existing files, same layout */
	uint64_t	files_missing;	/* to be created, at start */
	uint64_t	files_refused;	/* not regular files: never written */
};

struct report_input {
	unsigned			 id;
	const char			*state;
	const char			*reason;	/* "" when none */
	const struct stress_params	*p;
	const struct queue_counters	*c;
	uint64_t			 generated;
	time_t				 start_wall, end_wall;	/* end 0: running */
	double				 start_mono, end_mono;	/* end: now */
	const struct sampler		*sampler;
	/* each stress.log block's significantOpsPending (NULL: unknown) */
	const struct dist		*stresslog_sig;
	const struct hist		*enqueue_to_persist, *update_call;
	const struct hist		*fdatasync;	/* sync=data; NULL: none */
	uint64_t			 fdatasync_failed;
	const struct mountinfo		*mount;		/* NULL: unknown */
	const struct evict_result	*cold_cache;	/* NULL: no sync
							   drop-*caches */
	const char			*const *errors;	/* first messages */
	unsigned			 nerrors;
	uint64_t			 errors_by_kind[RRDFILE_NKINDS];
	const char			*run_dir;	/* for "files" */
	const struct cpustat		*cpu_start, *cpu_end;	/* end NULL: now */
	/* target rrdcached (else NULL): its STATS as the run began, the
	 * latest (NULL: none yet) and how long the flush at its end took
	 * (negative: not done) */
	const struct rrdcc_stats	*rrdc_start, *rrdc_latest;
	double				 rrdc_flush_s;
	bool				 rrdc_restarted;	/* counters went back */
	const struct report_baseline	*baseline;	/* NULL: not known */
	/* "verdict" and "warnings" (NULL: none) */
	const struct verdict		*verdict;
	const struct verdict_input	*verdict_in;
	/* a capacity search's step: "capacity" {id, step, rate}; id 0 none */
	unsigned			 cap_id;
	int				 cap_step;
	double				 cap_rate;
	/* until_steady: "until_steady" {max_s, ended, after_s}; max_s 0
	 * none; ended NULL and after_s < 0 while it runs or when stopped */
	double				 until_max_s;
	const char			*until_ended;
	double				 until_after_s;
};

json_object	*report_json(const struct report_input *in);
/* A baseline as report.json's "baseline". */
json_object	*report_baseline_json(const struct report_baseline *b);
/* rrdcached's STATS by its own names. */
json_object	*report_rrdcached_json(const struct rrdcc_stats *st);
/* t as an ISO 8601 UTC string, or JSON null for 0 (not yet). */
json_object	*report_time_json(time_t t);
/* The machine: {"name", "kernel", "machine", "cpus"}. */
json_object	*report_host_json(void);
/* j, pretty, to path through a temporary file and a rename; 0, or -1
 * with errno. */
int		 report_write_json(const char *path, json_object *j);
/* report.json and samples.csv into run_dir; 0, or -1 with err. */
int		 report_write(const char *run_dir, const struct report_input *in,
		    char *err, size_t errlen);

#endif
