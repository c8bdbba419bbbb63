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

void
fixture_edit(json_object *at, const char *key, json_object *v)
{
	if (v == NULL)
		json_object_object_del(at, key);
	else
		json_object_object_add(at, key, v);
}

char *
fixture_refused(json_object *o, void *(*parse)(json_object *, char **),
    void (*free_rec)(void *))
{
	char *err = NULL;
	void *r = parse(o, &err);

	if (r != NULL) {
		free_rec(r);
		fail_msg("the edited record was read");
	}
	assert_non_null(err);
	json_object_put(o);
	return err;
}
