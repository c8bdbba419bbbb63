/*
 * The summaries `runs` lists, kept in memory by id so that a `runs`
 * request costs a lookup, not a read of every record on the event loop
 * (issue 22).  Filled once at start-up from STATE/runs, then kept up to
 * date where records are written: a run's report.json when it ends, a
 * capacity search's capacity.json whenever it is written.
 */
#ifndef STRESSD_RUNSINDEX_H
#define STRESSD_RUNSINDEX_H

#include <stddef.h>
#include <json-c/json.h>

struct runsindex_entry {
	unsigned	 id;
	/* The summary as compact JSON; NULL: a job's record that is only
	 * live so far (a run just launched). */
	char		*summary;
};

/* Read every record under state_dir (report.json, else a job kind's
 * record file): 0, or -1 out of memory (the index then partial). */
int	runsindex_fill(const char *state_dir);
/* Record rec of id (report.json or a job's record) is now on disk:
 * its summary replaces id's.  0, or -1 out of memory. */
int	runsindex_put(unsigned id, json_object *rec);
/* id's record is being made (it is live): listed from its live record
 * until put. */
int	runsindex_touch(unsigned id);
/* Read id's record from state_dir again (its run ended); dropped when
 * it has none. */
void	runsindex_reload(const char *state_dir, unsigned id);
/* id has no record any more. */
void	runsindex_drop(unsigned id);
/* The at most limit highest ids below before (0: no bound), in
 * increasing order: *first and the count; *more when lower ids are
 * left. */
size_t	runsindex_page(unsigned before, size_t limit,
	    const struct runsindex_entry **first, int *more);
/* Entries held and the bytes of their summaries (for the log). */
size_t	runsindex_count(size_t *bytes);
/* At exit. */
void	runsindex_free(void);

#endif
