/* The capacity command's arguments; see capopts.h. */
#include <stdlib.h>

#include "capopts.h"

void
capopts_free(struct capopts *o)
{
	for (size_t i = 0; i < CAPOPTS_MAX_DIRS; i++) {
		free(o->dirs[i]);
		free(o->labels[i]);
		o->dirs[i] = o->labels[i] = NULL;
	}
	o->ndirs = 0;
}
