/* "Did you mean": the names nearest a misspelled command or option, by
 * edit distance, and what to say when --socket names a directory. */
#ifndef STRESSCTL_SUGGEST_H
#define STRESSCTL_SUGGEST_H

#include <stddef.h>

/* At most this many names are suggested (all at the same distance). */
#define SUGGEST_MAX	3

/* Edits that turn a into b: insert, delete or replace a character, or
 * swap two neighbours (optimal string alignment). */
size_t	suggest_distance(const char *a, const char *b);
/*
 * The names of names[0..n) nearest word, within the edits a typo makes
 * (1 for words up to 3 characters, 2 up to 6, else 3), or the names word
 * is a prefix of: at most SUGGEST_MAX, in list order, into best.
 * Returns how many.
 */
size_t	suggest_nearest(const char *word, const char *const *names,
	    size_t n, const char *best[SUGGEST_MAX]);
/* "; did you mean 'PRE NAME' or 'PRE NAME'?" for word into buf, or ""
 * when nothing is near; pre is put before each name ("--" for options). */
void	suggest_phrase(const char *word, const char *const *names, size_t n,
	    const char *pre, char *buf, size_t len);
/*
 * If path is a directory, what to say of it (origin is "--socket" or
 * "STRESSD_SOCKET"; name the default socket's file name): "ORIGIN PATH:
 * is a directory; the socket is PATH/NAME?" when that or another socket
 * is in it, else "... is e.g. PATH/NAME?".  Returns 0 with buf filled,
 * -1 when path is not a directory.
 */
int	suggest_socket(const char *path, const char *origin, const char *name,
	    char *buf, size_t len);

#endif
