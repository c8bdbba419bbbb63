/* The ctl unit tests' recorded replies and records: tests/fixtures/NAME
 * (below $TOP_SRCDIR, else the current directory), parsed; the test fails
 * when it cannot be read. */
#ifndef STRESSCTL_TEST_FIXTURE_H
#define STRESSCTL_TEST_FIXTURE_H

#include <json-c/json.h>

json_object	*fixture_load(const char *name);
/* Member key of at set to v (NULL: deleted). */
void		 fixture_edit(json_object *at, const char *key, json_object *v);
/* The error of parse, which must refuse o (o is released); parse returns
 * its record (freed by the caller's free_rec) or NULL and the error. */
char		*fixture_refused(json_object *o,
		    void *(*parse)(json_object *, char **), void (*free_rec)(void *));

#endif
