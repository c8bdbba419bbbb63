/*
 * stressctl's run records: a run's report.json, fetched from stressd
 * (`report`) or read from a file, so runs from other hosts can be read and
 * compared here.  The record commands (report, compare, watch, graph,
 * sweep) make several requests, or none, so they are given a way to call
 * the daemon instead of the single request of the other commands.
 */
#ifndef STRESSCTL_RECORDS_H
#define STRESSCTL_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "runrec.h"
#include "runsrec.h"

/*
 * Send one request to stressd and return the reply's result (a new
 * reference, never NULL on success: a missing result is an empty object).
 * On failure returns NULL with *rc the exit status, the reason already
 * printed on stderr.  NULL with *rc 0 means there is nothing more to do
 * (a dry run printed the request instead of sending it).
 */
typedef json_object	*(*records_call_fn)(void *arg, const char *cmd,
			    json_object *args, int *rc);

struct records_ctx {
	const char	 *name;		/* the stressctl command, for messages */
	bool		  json;		/* --json */
	records_call_fn	  call;
	void		 *call_arg;

	/* Operands and options, as the command's parser left them. */
	char		**runs;		/* RUN operands: ids or report paths */
	int		  nruns;
	bool		  csv;		/* report --csv */
	const char	 *png;		/* graph -o */
	unsigned	  width, height; /* graph; 0: the default */
	double		  interval;	/* watch; 0: the run's sample interval */
	unsigned long	  count;	/* watch; 0: until the run ends */
	int64_t		  limit;	/* runs --limit; 0: all */
	int64_t		  before;	/* runs --before; 0: the newest */

	/* sweep: runs[k] ran in a subdirectory of sweep_dirs[k %
	 * nsweep_dirs]. */
	char		**sweep_dirs;
	int		  nsweep_dirs;
	const char	 *sweep_id;
};

/*
 * The daemon's runs, every page of them (its "runs" takes at most
 * RECORDS_RUNS_PAGE a request), joined into one {"runs": [...]} in
 * increasing ids: the newest limit (0: all) with ids below before (0:
 * no bound).  NULL with *rc as records_load.
 */
json_object	*records_runs(const struct records_ctx *ctx, int64_t limit,
		    int64_t before, int *rc);
/* records_runs read into a struct runsrec; NULL with *rc, the error said
 * (the member named when the reply does not parse). */
struct runsrec	*records_runs_read(const struct records_ctx *ctx,
		    int64_t limit, int64_t before, int *rc);
#define RECORDS_RUNS_PAGE	10000

/* Text is wrapped to this many columns. */
#define RECORDS_TEXT_WIDTH	79

/* A RUN operand that names a report.json file rather than a run id:
 * anything containing '/' or ending in ".json". */
bool	 records_is_path(const char *run);

/* "stressctl CMD: message" on stderr. */
void	 records_error(const struct records_ctx *ctx, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/*
 * The record of run (an id or a report.json path; NULL: the daemon's
 * current or last run).  NULL with *rc the exit status on failure, the
 * reason printed (*rc 0: a dry run, nothing more to do).
 */
json_object	*records_load(const struct records_ctx *ctx, const char *run,
		    int *rc);
/*
 * The same, read once into a struct runrec, which the caller frees: NULL
 * with *rc as records_load, or with *rc 1 and the member named when the
 * record does not parse.  A capacity record is not a run's: with cap not
 * NULL it is handed over in *cap instead (NULL returned, *rc 0).
 */
struct runrec	*records_load_run(const struct records_ctx *ctx,
		    const char *run, json_object **cap, int *rc);
/*
 * The path of a file of the record (files.KEY, named name by default), a
 * malloc'd string.  A record read from a file may have travelled from
 * another host, so the same name beside it comes first; the path in the
 * record is used when there is none.  NULL if the record names no such
 * file.
 */
char		*records_file(const char *run, json_object *rep,
		    const char *key, const char *name);

/* records_file given the path the record names (NULL: none), as a
 * struct runrec holds it. */
char		*records_file_named(const char *run, const char *named,
		    const char *name);

/* Whether a run in state has ended (done, stopped, failed, interrupted;
 * idle: none). */
bool	 records_state_ended(const char *state);

/* An interrupted run's recount (report.json's "recount"), one line at
 * indent; nothing for another run. */
void	 records_print_recount_rec(const struct runrec_recount *c,
	    int indent);

/* The report.json a path operand names (a run directory stands for its
 * report.json); NULL for a run id.  A malloc'd string. */
char	*records_file_path(const char *run);

/* "value: count" lines of a histogram (report.json's [{value, [upper,]
 * count}]) with a bar of '#' proportional to the count; more than
 * RECORDS_HIST_ROWS values are shown in ranges of one width. */
void	 records_histogram(json_object *hist, int indent);
void	 records_histogram_buckets(const struct runrec_bucket *b, size_t n,
	    int indent);

/* The most rows a histogram is shown in (a queue can take hundreds of
 * values; the record keeps up to 64). */
#define RECORDS_HIST_ROWS	16
/* Widen [*min, *max] by a histogram's values (and bucket ends). */
void	 records_hist_span_buckets(const struct runrec_bucket *b, size_t n,
	    int64_t *min, int64_t *max);
/* The width of ranges (1, 2, 5, 10, 20, 50, ...) that show [min, max] in
 * at most RECORDS_HIST_ROWS rows when they start at multiples of it. */
int64_t	 records_hist_width(int64_t min, int64_t max);

#endif
