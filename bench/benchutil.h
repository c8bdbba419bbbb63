/* Small pieces the bench tools share (the clock is common/util.h's). */
#ifndef STRESSD_BENCHUTIL_H
#define STRESSD_BENCHUTIL_H

#include <stddef.h>
#include <stdint.h>

/* Option --name's value as an integer in [min, max]; -1 with a message
 * "prog: --name: ..." on stderr when it is not one. */
int	bench_parse_u64(const char *prog, const char *name, const char *text,
	    uint64_t min, uint64_t max, uint64_t *out);

#endif
