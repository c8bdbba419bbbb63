/* Dotted-path access to JSON, for the unit tests (see jpath.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "fmt.h"
#include "jpath.h"
#include "recparse.h"

/* The value at a dotted path ("latency_ms.update_call.p99"), or NULL. */
json_object *
jpath(json_object *o, const char *path)
{
	char key[128];
	const char *dot;

	while (o != NULL && *path != '\0') {
		dot = strchr(path, '.');
		snprintf(key, sizeof(key), "%.*s",
		    dot ? (int)(dot - path) : (int)strlen(path), path);
		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, key, &o))
			return NULL;
		path = dot ? dot + 1 : "";
	}
	return o;
}

bool
jpath_num(json_object *o, const char *path, double *out)
{
	json_object *v = jpath(o, path);

	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return false;
	*out = json_object_get_double(v);
	return true;
}

double
jpath_num0(json_object *o, const char *path)
{
	double d = 0;

	jpath_num(o, path, &d);
	return d;
}

/* A string member, or NULL if missing or not a string. */
const char *
jpath_str(json_object *o, const char *path)
{
	json_object *v = jpath(o, path);

	return json_object_is_type(v, json_type_string) ?
	    json_object_get_string(v) : NULL;
}

/* A value as text: numbers with dfmt (or as integers), "-" if missing. */
char *
jpath_text(json_object *o, const char *path, const char *dfmt)
{
	json_object *v = jpath(o, path);

	if (dfmt != NULL && (json_object_is_type(v, json_type_int) ||
	    json_object_is_type(v, json_type_double)))
		return fmt_xprintf(dfmt, json_object_get_double(v));
	return recparse_value_text(v);
}

