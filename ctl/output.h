/* stressctl output: one set of functions per format, chosen once by the
 * --json flag, so command code never tests the format itself. */
#ifndef STRESSCTL_OUTPUT_H
#define STRESSCTL_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

/* What a reply's result is shown as; the command table names one. */
enum output_view {
	VIEW_START,
	VIEW_STOP,
	VIEW_STATS,	/* stats and wait */
	VIEW_STATUS,
	VIEW_HELP,
	VIEW_VERSION,
	VIEW_RUNS,
	VIEW_COUNT
};

/* Each function prints the "result" object of a successful reply (which
 * may be NULL if the daemon sent none) on stdout. */
struct output {
	void	(*print[VIEW_COUNT])(json_object *result);
};

extern const struct output output_text;
extern const struct output output_json;

/* Serialise j the way every JSON the ctl prints or sends is serialised. */
const char	*output_json_string(json_object *j);

/*
 * A table of text cells in columns, for views wider than the key/value
 * layout above (runs, compare, latency).  align holds one 'l' or 'r' per
 * column; cells are added row by row, and widths come from the widest
 * cell of each column, counted in characters, not bytes.
 */
struct output_cols;

struct output_cols	*output_cols_new(const char *align);
/* The next cell: row after row, each row as many cells as columns. */
void			 output_cols_add(struct output_cols *t,
			    const char *fmt, ...)
			    __attribute__((format(printf, 2, 3)));
/* Print with indent spaces before each row; no trailing blanks. */
void			 output_cols_print(const struct output_cols *t,
			    int indent);
void			 output_cols_free(struct output_cols *t);

/* Characters (not bytes) of a UTF-8 string. */
size_t		 output_text_width(const char *s);

/* "2026-11-30T11:20:54Z" (the daemon's UTC times) as local time,
 * "2026-11-30 12:20:54" (with_zone adds " +0100"); anything that does not
 * parse is copied as it is.  Returns buf. */
const char	*output_local_time(const char *iso, bool with_zone, char *buf,
		    size_t len);

/* p, or exit 1 with "out of memory" when it is NULL. */
void		*output_nomem(void *p);
/* A malloc'd formatted string (exits on out of memory). */
char		*output_xprintf(const char *fmt, ...)
		    __attribute__((format(printf, 1, 2)));

#endif
