/* Key/value views (see kv.h): the rows, the values as text, and their
 * printing through the column engine. */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "columns.h"
#include "fmt.h"
#include "kv.h"

/* In a right-aligned table a lone value longer than this (a failure reason,
 * a path) is printed as is, so it does not push every number rightwards. */
#define WIDE_CELL	24
/* Lists of scalars up to this long print on one line. */
#define SHORT_LIST	60

/* o[key]; *found tells a missing key from a null value. */
json_object *
kv_get(json_object *o, const char *key, bool *found)
{
	json_object *v = NULL;
	bool f = json_object_is_type(o, json_type_object) &&
	    json_object_object_get_ex(o, key, &v);

	if (found != NULL)
		*found = f;
	return f ? v : NULL;
}

bool
kv_has(json_object *o, const char *key)
{
	bool f;

	kv_get(o, key, &f);
	return f;
}

bool
kv_object_or_print(json_object *o)
{
	if (json_object_is_type(o, json_type_object))
		return true;
	printf("%s\n", fmt_json_string(o));
	return false;
}

/* ---------------------------------------------------------------- table */

/* Takes ownership of name. */
struct kv_row *
kv_add(struct kv *t, char *name)
{
	struct kv_row *r;

	t->rows = fmt_grow(t->rows, &t->cap, t->n, sizeof(*t->rows));
	r = &t->rows[t->n++];
	memset(r, 0, sizeof(*r));
	r->indent = t->indent;
	r->name = name;
	return r;
}

/* Takes ownership of text. */
void
kv_cell(struct kv_row *r, char *text)
{
	if (r->ncells == KV_CELLS) {
		free(text);
		return;
	}
	r->cell[r->ncells++] = text;
}

static bool
row_blank(const struct kv_row *r)
{
	return r->ncells == 0 && r->name[0] == '\0';
}

/* A blank line between groups; never two in a row, never first. */
void
kv_blank(struct kv *t)
{
	if (t->n == 0 || row_blank(&t->rows[t->n - 1]))
		return;
	kv_add(t, fmt_xstrdup(""))->indent = 0;
}

static bool
cell_sets_width(const struct kv *t, const struct kv_row *r, int c)
{
	if (t->right)
		return !(r->ncells == 1 &&
		    columns_width(r->cell[0]) > WIDE_CELL);
	/* A left-aligned last cell needs no padding, so may be any length. */
	return c < r->ncells - 1;
}

void
kv_print(const struct kv *t)
{
	struct columns *c = columns_new(t->right ? "lrrr" : "llll");
	size_t last = t->n;

	while (last > 0 && row_blank(&t->rows[last - 1]))
		last--;
	for (size_t i = 0; i < last; i++) {
		const struct kv_row *r = &t->rows[i];

		columns_row(c, r->indent);
		columns_cell(c, r->name, r->ncells == 0 ? COLUMNS_FREE : 0);
		for (int k = 0; k < r->ncells; k++)
			columns_cell(c, r->cell[k], cell_sets_width(t, r, k) ?
			    0 : COLUMNS_FREE);
		if (r->unit != NULL) {
			char *tail = fmt_xprintf(" %s", r->unit);

			columns_tail(c, tail);
			free(tail);
		}
	}
	columns_print(c, stdout, 0);
	columns_free(c);
}

void
kv_free(struct kv *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->rows[i].name);
		for (int c = 0; c < t->rows[i].ncells; c++)
			free(t->rows[i].cell[c]);
	}
	free(t->rows);
	t->rows = NULL;
	t->n = t->cap = 0;
}

/* ---------------------------------------------------------------- values */

/* One value as text; dfmt formats numbers when given. */
char *
kv_text(json_object *v, const char *dfmt)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		return fmt_xstrdup("-");
	case json_type_boolean:
		return fmt_xstrdup(json_object_get_boolean(v) ? "true" :
		    "false");
	case json_type_int:
		if (dfmt != NULL)
			return fmt_xprintf(dfmt, json_object_get_double(v));
		return fmt_xprintf("%" PRId64, json_object_get_int64(v));
	case json_type_double:
		return fmt_xprintf(dfmt != NULL ? dfmt : "%g",
		    json_object_get_double(v));
	case json_type_string:
		/* An empty string would vanish into the padding. */
		if (json_object_get_string_len(v) == 0)
			return fmt_xstrdup("\"\"");
		return fmt_xstrdup(json_object_get_string(v));
	case json_type_object:
	case json_type_array:
		break;
	}
	return fmt_xstrdup(fmt_json_string(v));
}

/* Epoch seconds as local time; anything else as it came. */
static char *
time_text(json_object *v)
{
	char buf[64];
	struct tm tm;
	time_t t;

	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return kv_text(v, NULL);
	t = (time_t)json_object_get_double(v);
	if (localtime_r(&t, &tm) == NULL ||
	    strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S %z", &tm) == 0)
		return kv_text(v, NULL);
	return fmt_xstrdup(buf);
}

static bool
is_scalar(json_object *v)
{
	return !json_object_is_type(v, json_type_object) &&
	    !json_object_is_type(v, json_type_array);
}

/* An object as "name:" and its members indented below. */
static void
add_object(struct kv *t, const char *name, json_object *o)
{
	if (json_object_object_length(o) == 0) {
		kv_cell(kv_add(t, fmt_xstrdup(name)), fmt_xstrdup("{}"));
		return;
	}
	kv_add(t, fmt_xprintf("%s:", name));
	t->indent += 2;
	json_object_object_foreach(o, key, val)
		kv_value(t, key, val, NULL, NULL);
	t->indent -= 2;
}

/* Short lists of scalars on one line, anything else one element a line. */
static void
add_array(struct kv *t, const char *name, json_object *a)
{
	size_t n = json_object_array_length(a), total = 0;
	bool oneline = true;
	char *line;

	if (n == 0) {
		kv_cell(kv_add(t, fmt_xstrdup(name)),
		    fmt_xstrdup("(none)"));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);

		oneline = oneline && is_scalar(e);
		/* A null element has no string. */
		total += 2 + (e != NULL ?
		    strlen(json_object_get_string(e)) : 4);
	}
	if (oneline && total <= SHORT_LIST) {
		line = fmt_xstrdup("");
		for (size_t i = 0; i < n; i++) {
			char *v = kv_text(json_object_array_get_idx(a, i),
			    NULL);
			char *next = fmt_xprintf("%s%s%s", line,
			    i ? ", " : "", v);

			free(v);
			free(line);
			line = next;
		}
		kv_cell(kv_add(t, fmt_xstrdup(name)), line);
		return;
	}
	kv_add(t, fmt_xprintf("%s:", name));
	t->indent += 2;
	for (size_t i = 0; i < n; i++) {
		char *v = kv_text(json_object_array_get_idx(a, i), NULL);

		kv_add(t, fmt_xprintf("- %s", v));
		free(v);
	}
	t->indent -= 2;
}

void
kv_value(struct kv *t, const char *name, json_object *v, const char *dfmt,
    const char *unit)
{
	struct kv_row *r;

	if (json_object_is_type(v, json_type_object)) {
		add_object(t, name, v);
		return;
	}
	if (json_object_is_type(v, json_type_array)) {
		add_array(t, name, v);
		return;
	}
	r = kv_add(t, fmt_xstrdup(name));
	kv_cell(r, kv_text(v, dfmt));
	/* A unit only qualifies a number. */
	if (json_object_is_type(v, json_type_int) ||
	    json_object_is_type(v, json_type_double))
		r->unit = unit;
}

bool
kv_field_listed(const struct kv_field *f, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].key != NULL && strcmp(f[i].key, key) == 0)
			return true;
	return false;
}

bool
kv_name_listed(const char *const *names, const char *key)
{
	for (size_t i = 0; names != NULL && names[i] != NULL; i++)
		if (strcmp(names[i], key) == 0)
			return true;
	return false;
}

/* "generated/max_updates (pct%)", or whichever half is there. */
static void
add_progress(struct kv *t, json_object *o)
{
	bool hg, hm;
	json_object *g = kv_get(o, "generated", &hg);
	json_object *m = kv_get(o, "max_updates", &hm);
	int64_t gen, max;
	struct kv_row *r;

	if (!hg || !hm) {
		if (hg)
			kv_value(t, "generated", g, NULL, NULL);
		if (hm)
			kv_value(t, "max_updates", m, NULL, NULL);
		return;
	}
	gen = json_object_get_int64(g);
	max = json_object_get_int64(m);
	r = kv_add(t, fmt_xstrdup("progress"));
	if (max > 0)
		kv_cell(r, fmt_xprintf("%" PRId64 "/%" PRId64 " (%.1f%%)",
		    gen, max, 100.0 * (double)gen / (double)max));
	else
		kv_cell(r, fmt_xprintf("%" PRId64 "/%" PRId64, gen, max));
}

/* {"no_space": 0, "corrupt": 7, ...} as "corrupt 7", or "none". */
static void
add_counts(struct kv *t, const char *label, json_object *v)
{
	char *text = NULL, *next;

	if (!json_object_is_type(v, json_type_object)) {
		kv_value(t, label, v, NULL, NULL);
		return;
	}
	json_object_object_foreach(v, key, val) {
		char *n = kv_text(val, NULL);

		if (json_object_is_type(val, json_type_int) &&
		    json_object_get_int64(val) == 0) {
			free(n);
			continue;
		}
		next = text == NULL ? fmt_xprintf("%s %s", key, n) :
		    fmt_xprintf("%s, %s %s", text, key, n);
		free(text);
		free(n);
		text = next;
	}
	kv_cell(kv_add(t, fmt_xstrdup(label)), text != NULL ? text :
	    fmt_xstrdup("none"));
}

/* The listed fields of o that are present, in the listed order. */
void
kv_known(struct kv *t, json_object *o, const struct kv_field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *label = f[i].label ? f[i].label : f[i].key;
		json_object *v;
		bool found;

		if (f[i].key == NULL) {
			kv_blank(t);
			continue;
		}
		v = kv_get(o, f[i].key, &found);
		/* Progress is drawn from two keys, either may be missing. */
		if (!found && f[i].kind != KV_PROGRESS)
			continue;
		switch (f[i].kind) {
		case KV_PLAIN:
			kv_value(t, label, v, f[i].dfmt, f[i].unit);
			break;
		case KV_TIME:
			kv_cell(kv_add(t, fmt_xstrdup(label)), time_text(v));
			break;
		case KV_PROGRESS:
			add_progress(t, o);
			break;
		case KV_SHOWN:
			break;
		case KV_COUNTS:
			add_counts(t, label, v);
			break;
		}
	}
}

/* Every key of o neither in f nor in skip, in the reply's order. */
void
kv_unknown(struct kv *t, json_object *o, const struct kv_field *f, size_t n,
    const char *const *skip)
{
	if (!json_object_is_type(o, json_type_object))
		return;
	json_object_object_foreach(o, key, val)
		if (!kv_field_listed(f, n, key) && !kv_name_listed(skip, key))
			kv_value(t, key, val, NULL, NULL);
}
