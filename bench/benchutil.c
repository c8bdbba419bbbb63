#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchutil.h"

int
bench_parse_u64(const char *prog, const char *name, const char *text,
    uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(text, &end, 10);
	/* strtoull takes "-1" as a huge number: refuse any sign. */
	if (*text == '\0' || *end != '\0' || errno != 0 ||
	    strchr(text, '-') != NULL || v < min || v > max) {
		fprintf(stderr, "%s: --%s: '%s' is not an integer in "
		    "[%" PRIu64 ", %" PRIu64 "]\n", prog, name, text, min, max);
		return -1;
	}
	*out = v;
	return 0;
}
