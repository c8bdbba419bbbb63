/*
 * The `sweep` command's own arguments, as request checks them and the
 * sweep takes them: a type with no code of its own, so that request.c
 * holds it without reaching up to the sweep.
 */
#ifndef STRESSD_SWEEPOPTS_H
#define STRESSD_SWEEPOPTS_H

#include <stddef.h>

#define SWEEP_MAX_DIRS		64
#define SWEEP_MAX_REPEAT	1000

struct sweep_opts {
	unsigned long	 repeat;			/* 1..SWEEP_MAX_REPEAT */
	size_t		 ndirs;
	char		*dirs[SWEEP_MAX_DIRS];
	char		*labels[SWEEP_MAX_DIRS];	/* never NULL once
							   checked */
};

#endif
