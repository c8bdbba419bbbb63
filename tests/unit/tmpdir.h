/* A temporary directory for a unit test, made and removed whole. */
#ifndef TESTS_UNIT_TMPDIR_H
#define TESTS_UNIT_TMPDIR_H

#include <stddef.h>

/* mkdtemp /tmp/<name>.XXXXXX into buf; 0, or -1. */
int	tmpdir_make(char *buf, size_t size, const char *name);
/* Remove the directory and everything below it; 0, or -1. */
int	tmpdir_remove(const char *dir);

#endif
