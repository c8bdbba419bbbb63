/*
 * The one column engine of stressctl: every aligned table it prints (the
 * key/value views of kv.c, runs, report, compare, sweep) goes through it.
 * Text is measured in characters (UTF-8 code points), not bytes, so
 * non-ASCII names line up.  Cells are added row by row; a column is as
 * wide as its widest measured cell; two spaces separate columns; a row
 * ends at its last non-empty cell with no trailing blanks (a left-aligned
 * last cell is not padded).  Fitted to the output width (if set): a
 * left-aligned last cell is wrapped at blanks, and a table still too wide
 * is printed in parts, each repeating the first column, a blank line
 * between them.
 */
#ifndef STRESSCTL_COLUMNS_H
#define STRESSCTL_COLUMNS_H

#include <stddef.h>
#include <stdio.h>

/* A cell neither measured nor padded: printed as it is after the
 * separator (a long message that would otherwise widen its column). */
#define COLUMNS_FREE	0x1

struct columns;

/* align holds 'l' or 'r' per column; its length is the number of columns. */
struct columns	*columns_new(const char *align);
/* Start a new row, indented by indent spaces that count towards the first
 * column's width (a nested key/value row). */
void		 columns_row(struct columns *t, int indent);
/* The next cell of the current row, starting a new row when the current
 * one is full (or there is none yet). */
void		 columns_add(struct columns *t, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
/* Likewise with text as it is and flags (COLUMNS_FREE). */
void		 columns_cell(struct columns *t, const char *text,
		    unsigned flags);
/* Text printed right after the current row's last cell (a unit). */
void		 columns_tail(struct columns *t, const char *text);
/* Print on f with indent more spaces before every row. */
void		 columns_print(const struct columns *t, FILE *f, int indent);
void		 columns_free(struct columns *t);

/* The width every table is fitted to (0, the default: none). */
void		 columns_set_width(size_t width);
/* The width text on fd should fit: the terminal's on a terminal, else
 * $COLUMNS if it is a number from 40, else COLUMNS_DEFAULT_WIDTH. */
size_t		 columns_out_width(int fd);
#define COLUMNS_DEFAULT_WIDTH	80
/* text on f from column at on, wrapped at blanks so no line passes the
 * width set (no newline after the last line). */
void		 columns_wrap(FILE *f, const char *text, size_t at);
/* A last column wrapped into fewer than this many columns starts on a
 * line of its own at column COLUMNS_HANG instead. */
#define COLUMNS_MIN_WRAP	24
#define COLUMNS_HANG		8

/* Characters (UTF-8 code points, not bytes) of s. */
size_t		 columns_width(const char *s);

#endif
