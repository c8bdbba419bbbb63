/* Loading the unit tests' fixtures (see fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fixture.h"

json_object *
fixture_load(const char *name)
{
	const char *top = getenv("TOP_SRCDIR");
	char path[4096];
	json_object *o;

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s",
	    top != NULL ? top : ".", name);
	o = json_object_from_file(path);
	if (o == NULL)
		fail_msg("cannot read %s: %s", path, json_util_get_last_err());
	return o;
}
