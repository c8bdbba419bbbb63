/* Drawing with gnuplot (Debian's gnuplot-nox): librrd draws time series
 * only, so a figure whose x axis is not time (the capacity search's rate)
 * is a gnuplot script, run by the gnuplot program, whose PNG lands in a
 * file. */
#ifndef STRESSCTL_GNUPLOT_H
#define STRESSCTL_GNUPLOT_H

#include <stddef.h>

/* The program run: $STRESSCTL_GNUPLOT if set and not empty, else
 * "gnuplot" from PATH. */
const char	*gnuplot_program(void);

/* s as a double-quoted gnuplot string: every byte but letters, digits,
 * space and a few marks as an octal escape, so no text of a record can
 * end the string, expand a macro (@) or run a command (`). */
char		*gnuplot_quote(const char *s);

/* Run the program with script on its standard input, its standard
 * output written to path (through a temporary file renamed into place,
 * so a failure leaves no truncated image).  0, or -1 with *err set to a
 * message (malloc'd) naming the program, its exit status or the file. */
int		 gnuplot_render(const char *script, size_t len,
		    const char *path, char **err);

#endif
