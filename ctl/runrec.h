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

/* A histogram's entry: {value, [upper,] count}. */
struct runrec_bucket {
	int64_t		 value, upper, count;
	bool		 has_upper;	/* a range value..upper */
};

/* One of queue_depth's gauges, or rrdcached's queue_length. */
struct runrec_depth {
	bool			 has;
	int64_t			 samples;
	struct recparse_number	 average;
	struct recparse_number	 min, max, p50, p90, p99;
	json_object		*histogram;	/* the array, checked */
	struct runrec_bucket	*buckets;	/* its entries */
	size_t			 nbuckets;
};

/* One of latency_ms's summaries (ms). */
struct runrec_latency {
	bool			 has;
	struct recparse_number	 count, min, mean, p50, p90, p99, p999, max;
};

/* rrdcached's STATS figures the report shows grow over the run. */
struct runrec_rrdc_stats {
	double	updates_received, data_sets_written, updates_written;
};

/* "rrdcached": a target rrdcached's queue beside ours. */
struct runrec_rrdcached {
	bool			 has;
	const char		*address;
	struct runrec_depth	 queue;		/* queue_length */
	int			 restarted;	/* 1, 0, -1: not said */
	struct runrec_rrdc_stats at_start, latest;
	struct recparse_number	 flush_s;
	double			 samples_without_stats;
};

/* "recount": an interrupted run's updates counted on disk. */
struct runrec_recount {
	bool			 has;
	const char		*skipped;	/* why not, or NULL */
	struct recparse_number	 updates_on_disk;
	double			 files_read, seconds;
};

/* What the views show of "counters" and "throughput". */
struct runrec_counters {
	struct recparse_number	 updates_completed, updates_failed, dropped;
	struct recparse_number	 creates_completed, discarded;
	struct recparse_number	 creates_discarded, update_calls;
};

struct runrec_throughput {
	struct recparse_number	 since_first_update, all_time;
	struct recparse_number	 creates_per_s, ops_per_update;
};

/* "generators": whether the queue's memory bound held them back. */
struct runrec_generators {
	bool			 has;
	int			 held_back;	/* 1, 0, -1: not said */
	double			 wait_s, queue_memory_max_bytes;
	double			 queue_memory_peak_bytes;
	struct recparse_number	 waits;
};

/* "cold_cache" (sync drop-caches or drop-host-caches). */
struct runrec_cold_cache {
	const char		*method, *first_error;
	double			 seconds, files, failed;
	double			 resident_before_bytes, resident_after_bytes;
};

/* "errors". */
struct runrec_errors {
	struct recparse_number	 count, updates_failed, creates_failed;
	const char		**first_messages;
	size_t			 nfirst_messages;
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
	struct recparse_number	 files_knob;	/* params.files */
	/* target */
	const char		*target_dir, *fs_type, *mount_options;
	const char		*mount_point, *mount_source;
	struct runrec_verdict	 verdict;
	struct runrec_warning	*warnings;
	size_t			 nwarnings;
	struct recparse_number	 samples;
	double			 sample_interval_s;
	struct runrec_depth	 sig, total;	/* queue_depth's two */
	/* stress_log: each block's significantOpsPending (has: false in
	 * records made before it was kept) */
	struct runrec_depth	 slog_sig;
	bool			 has_recount;	/* recount.has */
	struct runrec_recount	 recount;
	struct runrec_counters	 counters;
	struct runrec_throughput throughput;
	struct runrec_generators generators;
	struct runrec_cold_cache cold_cache;
	double			 memory_limit_bytes;	/* memory. */
	const char		*memory_source;
	struct runrec_rrdcached	 rrdcached;
	struct runrec_latency	 enqueue_to_persist, update_call, fdatasync;
	struct runrec_errors	 errors;
	/* files: where the run's files were written */
	const char		*samples_csv, *metrics_rrd;
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
