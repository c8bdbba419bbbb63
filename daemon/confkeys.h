/* The global keys of stressd.conf, one row each, in the order
 * conffile_print shows them; used by conffile.c and confprint.c only. */
#ifndef STRESSD_CONFKEYS_H
#define STRESSD_CONFKEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct config;

/* Room for the global keys (conffile_load checks it). */
#define CONFKEYS_MAX	16

struct confkeys_key {
	const char	*name;
	/* On a bad value: -1 and "expected ..." in the buffer. */
	int		(*set)(struct config *, const char *, char *, size_t);
	/* Print the value; false when the key is not set. */
	bool		(*get)(const struct config *, FILE *);
	const char	*unset;		/* what leaving it out means */
};

extern const struct confkeys_key confkeys[];
extern const size_t confkeys_count;

/* The key named name, or NULL. */
const struct confkeys_key *confkeys_find(const char *name);
/* Shortest of %.15g and %.17g that reads back as d, so 0.1 stays 0.1. */
void	confkeys_print_number(FILE *fp, double d);

#endif
