/* Typed members of a JSON record, the first error naming the member
 * (see recparse.h). */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "recparse.h"

void
recparse_init(struct recparse *p, const char *what)
{
	p->what = what;
	p->at[0] = '\0';
	p->err = NULL;
}

void
recparse_at(struct recparse *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->at, sizeof(p->at), fmt, ap);
	va_end(ap);
}

bool
recparse_fail(struct recparse *p, const char *key, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (p->err != NULL)
		return false;
	va_start(ap, fmt);
	msg = fmt_vxprintf(fmt, ap);
	va_end(ap);
	if (key == NULL && p->at[0] == '\0')
		p->err = fmt_xprintf("%s: %s", p->what, msg);
	else
		p->err = fmt_xprintf("%s: %s%s%s: %s", p->what, p->at,
		    p->at[0] != '\0' && key != NULL ? "." : "",
		    key != NULL ? key : "", msg);
	free(msg);
	return false;
}

char *
recparse_take_error(struct recparse *p)
{
	char *e = p->err;

	p->err = NULL;
	return e;
}

void
recparse_give_error(struct recparse *p, char **err)
{
	if (err != NULL)
		*err = recparse_take_error(p);
	else
		free(recparse_take_error(p));
}

bool
recparse_is_schema(json_object *o, const char *schema)
{
	json_object *s;

	return json_object_is_type(o, json_type_object) &&
	    json_object_object_get_ex(o, "schema", &s) &&
	    json_object_is_type(s, json_type_string) &&
	    strcmp(json_object_get_string(s), schema) == 0;
}

/* Member key of o, or NULL when absent or null; *ok false (the error
 * recorded) when it is absent but required. */
static json_object *
member(struct recparse *p, json_object *o, const char *key, bool req,
    bool *ok)
{
	json_object *v = NULL;

	*ok = true;
	if (json_object_is_type(o, json_type_object))
		json_object_object_get_ex(o, key, &v);
	if (json_object_is_type(v, json_type_null))
		v = NULL;
	if (v == NULL && req)
		*ok = recparse_fail(p, key, "missing");
	return v;
}

bool
recparse_str(struct recparse *p, json_object *o, const char *key, bool req,
    const char **out)
{
	bool ok;
	json_object *v = member(p, o, key, req, &ok);

	*out = NULL;
	if (v == NULL)
		return ok;
	if (!json_object_is_type(v, json_type_string))
		return recparse_fail(p, key, "not a string");
	*out = json_object_get_string(v);
	return true;
}

bool
recparse_num(struct recparse *p, json_object *o, const char *key, bool req,
    double *out)
{
	bool ok;
	json_object *v = member(p, o, key, req, &ok);

	*out = NAN;
	if (v == NULL)
		return ok;
	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return recparse_fail(p, key, "not a number");
	*out = json_object_get_double(v);
	return true;
}

bool
recparse_int(struct recparse *p, json_object *o, const char *key, bool req,
    int64_t *out, bool *has)
{
	bool ok;
	json_object *v = member(p, o, key, req, &ok);

	*out = 0;
	*has = false;
	if (v == NULL)
		return ok;
	if (!json_object_is_type(v, json_type_int))
		return recparse_fail(p, key, "not an integer");
	*out = json_object_get_int64(v);
	*has = true;
	return true;
}

bool
recparse_bool(struct recparse *p, json_object *o, const char *key, bool req,
    int *out)
{
	bool ok;
	json_object *v = member(p, o, key, req, &ok);

	*out = -1;
	if (v == NULL)
		return ok;
	if (!json_object_is_type(v, json_type_boolean))
		return recparse_fail(p, key, "not a boolean");
	*out = json_object_get_boolean(v) ? 1 : 0;
	return true;
}

bool
recparse_obj(struct recparse *p, json_object *o, const char *key, bool req,
    json_object **out)
{
	bool ok;
	json_object *v = member(p, o, key, req, &ok);

	*out = NULL;
	if (v == NULL)
		return ok;
	if (!json_object_is_type(v, json_type_object))
		return recparse_fail(p, key, "not an object");
	*out = v;
	return true;
}

bool
recparse_arr(struct recparse *p, json_object *o, const char *key, bool req,
    json_object **out)
{
	bool ok;
	json_object *v = member(p, o, key, req, &ok);

	*out = NULL;
	if (v == NULL)
		return ok;
	if (!json_object_is_type(v, json_type_array))
		return recparse_fail(p, key, "not an array");
	*out = v;
	return true;
}

bool
recparse_number(struct recparse *p, json_object *o, const char *key,
    bool req, struct recparse_number *out)
{
	bool ok;
	json_object *v = member(p, o, key, req, &ok);

	memset(out, 0, sizeof(*out));
	out->d = NAN;
	if (v == NULL)
		return ok;
	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return recparse_fail(p, key, "not a number");
	out->has = true;
	out->is_int = json_object_is_type(v, json_type_int);
	out->i = out->is_int ? json_object_get_int64(v) : 0;
	out->d = json_object_get_double(v);
	return true;
}

char *
recparse_number_text(const struct recparse_number *n, const char *dfmt)
{
	if (!n->has)
		return fmt_xstrdup("-");
	if (n->is_int && dfmt == NULL)
		return fmt_xprintf("%" PRId64, n->i);
	return fmt_xprintf(dfmt != NULL ? dfmt : "%g", n->d);
}

char *
recparse_value_text(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_int:
		return fmt_xprintf("%" PRId64, json_object_get_int64(v));
	case json_type_double:
		return fmt_xprintf("%g", json_object_get_double(v));
	case json_type_string:
	case json_type_boolean:
		return fmt_xprintf("%s", json_object_get_string(v));
	case json_type_null:
	case json_type_object:
	case json_type_array:
		break;
	}
	return fmt_xstrdup("-");
}
