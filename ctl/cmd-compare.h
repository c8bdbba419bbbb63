/* What compare shares with sweep, which shows its runs as compare does
 * and then their spread (cmd-compare.c). */
#ifndef STRESSCTL_CMD_COMPARE_H
#define STRESSCTL_CMD_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "columns.h"
#include "ctl.h"
#include "records.h"
#include "recparse.h"
#include "runrec.h"

extern const struct ctl_cmd cmd_compare_entry;

/* compare: narrowest run column (mount options are wrapped to it). */
#define CMD_COMPARE_MIN_COL	20

/* One row of the comparison: a label and the record's value, the number
 * at offset off of struct runrec (CMD_COMPARE_STATE: its state); path
 * names it where the record has it (and in sweep --json's "stats"). */
struct compare_row {
	const char	*label;
	const char	*path;
	const char	*dfmt;		/* printf format of numbers, or NULL */
	size_t		 off;
};
#define CMD_COMPARE_STATE	((size_t)-1)
/* The index in cmd_compare_rows of "updates completed". */
#define CMD_COMPARE_DONE	1

extern const struct compare_row	cmd_compare_rows[];
extern const size_t		cmd_compare_nrows;

/* Row's number of record r; NULL for the state row. */
const struct recparse_number *cmd_compare_number(const struct runrec *r,
		    const struct compare_row *row);
/* Row's cell of record r, malloc'd ("-" when r has no value). */
char		*cmd_compare_cell(const struct runrec *r,
		    const struct compare_row *row);
/* Whether compare shows row: some record has its value (and, for a
 * fdatasync row, some run had sync=data). */
bool		 cmd_compare_row_shown(const struct runrec *const *reps, int n,
		    const struct compare_row *row);
/* A table of a label column (aligned 'l' or 'r') and n right-aligned
 * columns, one a run (or a directory). */
struct columns	*cmd_compare_columns(char first, int n);

/* What a caller adds after the comparison of the records: more text, and
 * more members of the JSON object {"runs": [...]}. */
struct compare_more {
	void	(*text)(const struct records_ctx *,
		    const struct runrec *const *, int);
	void	(*json)(const struct records_ctx *,
		    const struct runrec *const *, int, json_object *all);
};

/* Load ctx's runs and show them side by side (more may be NULL); returns
 * the exit status. */
int		 cmd_compare_show(const struct records_ctx *ctx,
		    const struct compare_more *more);

#endif
