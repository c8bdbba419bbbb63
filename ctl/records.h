/*
 * stressctl's view of run records: report, compare, watch and graph.
 * A record is a run's report.json, fetched from stressd (`report`) or read
 * from a file, so runs from other hosts can be read and compared here.
 * These commands make several requests, or none, so they are given a way
 * to call the daemon instead of the single request of the other commands.
 */
#ifndef STRESSCTL_RECORDS_H
#define STRESSCTL_RECORDS_H

#include <stdbool.h>

#include <json-c/json.h>

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

	/* sweep: runs[k] ran in a subdirectory of sweep_dirs[k %
	 * nsweep_dirs]. */
	char		**sweep_dirs;
	int		  nsweep_dirs;
	const char	 *sweep_id;
};

/* graph image size in pixels: default and bounds of --width/--height. */
#define RECORDS_GRAPH_WIDTH		800
#define RECORDS_GRAPH_HEIGHT		300
#define RECORDS_GRAPH_MIN_WIDTH		200
#define RECORDS_GRAPH_MIN_HEIGHT	100
#define RECORDS_GRAPH_MAX_SIZE		8192

/* A RUN operand that names a report.json file rather than a run id:
 * anything containing '/' or ending in ".json". */
bool	records_is_path(const char *run);

/* Each returns stressctl's exit status. */
int	records_report(const struct records_ctx *ctx);
int	records_compare(const struct records_ctx *ctx);
/* compare of a sweep's runs, then each directory's mean and spread across
 * its repeats. */
int	records_sweep(const struct records_ctx *ctx);
int	records_watch(const struct records_ctx *ctx);
int	records_graph(const struct records_ctx *ctx);

#endif
