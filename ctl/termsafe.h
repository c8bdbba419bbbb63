/* What stressctl prints to a terminal cannot drive it: text from replies
 * and records (a run's directory, a copied report.json, a daemon's error)
 * reaches a terminal with its control characters shown as \xNN. */
#ifndef STRESSCTL_TERMSAFE_H
#define STRESSCTL_TERMSAFE_H

#include <stdio.h>

/* Put the filter on stdout and stderr where each is a terminal (a pipe or
 * a file gets the bytes as they are: data is data there). */
void	termsafe_init(void);

/* Filter the output of f to fd from now on; the FILE to use instead of f,
 * or NULL (errno set).  termsafe_init's building block, for tests. */
FILE	*termsafe_open(int fd);

/* Write seq to stdout's terminal as it is: watch's own cursor moves. */
void	termsafe_raw(const char *seq);

#endif
