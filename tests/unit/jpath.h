/* The unit tests' probe of JSON they are handed (a ranking, a record):
 * values by dotted path ("latency_ms.update_call.p99"), a missing or
 * mistyped member an answer (NULL, false, "-"), never an error.  stressctl
 * itself reads a record through its record module (runrec, runsrec, ...),
 * which checks it once, never by path. */
#ifndef STRESSCTL_JPATH_H
#define STRESSCTL_JPATH_H

#include <stdbool.h>

#include <json-c/json.h>

/* The value at path (each dot one object level; "" is o itself), or NULL. */
json_object	*jpath(json_object *o, const char *path);
/* A number (int or double) at path into *out; false if there is none. */
bool		 jpath_num(json_object *o, const char *path, double *out);
/* The number at path, or 0 if there is none. */
double		 jpath_num0(json_object *o, const char *path);
/* A string member, or NULL if missing or not a string. */
const char	*jpath_str(json_object *o, const char *path);
/* A value as a malloc'd text: numbers with dfmt (integers as integers when
 * dfmt is NULL), strings and booleans as they are, "-" for anything else. */
char		*jpath_text(json_object *o, const char *path, const char *dfmt);

#endif
