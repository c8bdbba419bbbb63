/*
 * The key/value views of stressctl (stats, status, version, help): rows of
 * a name and up to KV_CELLS values, nested objects indented below their
 * name, printed through the column engine.  Keys the ctl does not know yet
 * are still shown, not hidden.
 */
#ifndef STRESSCTL_KV_H
#define STRESSCTL_KV_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#define KV_CELLS	3

struct kv_row {
	int		 indent;
	char		*name;
	char		*cell[KV_CELLS];
	int		 ncells;	/* 0: the name is a line of its own */
	const char	*unit;		/* after the last cell, may be NULL */
};

struct kv {
	struct kv_row	*rows;
	size_t		 n, cap;
	bool		 right;		/* right-align cells (numbers) */
	int		 indent;	/* indent of rows added from now on */
};

enum kv_kind {
	KV_PLAIN,
	KV_TIME,		/* epoch seconds, shown as local time */
	KV_PROGRESS,		/* generated, shown with max_updates */
	KV_SHOWN,		/* shown by another field's row */
	KV_COUNTS,		/* {name: count} on one row, no zeros */
};

/* How a known key is shown. */
struct kv_field {
	const char	*key;		/* NULL: blank line between groups */
	const char	*label;		/* NULL: the key itself */
	const char	*unit;
	const char	*dfmt;		/* printf format for numbers, or NULL */
	enum kv_kind	 kind;
};

#define KV_F(k)		{ (k), NULL, NULL, NULL, KV_PLAIN }
#define KV_SEP		{ NULL, NULL, NULL, NULL, KV_PLAIN }

/* o[key]; *found (may be NULL) tells a missing key from a null value. */
json_object	*kv_get(json_object *o, const char *key, bool *found);
bool		 kv_has(json_object *o, const char *key);
/* Whether o is an object; anything else is printed as its JSON, so that a
 * reply of an unexpected shape is still shown, not lost. */
bool		 kv_object_or_print(json_object *o);
/* One value as a malloc'd text; dfmt formats numbers when given. */
char		*kv_text(json_object *v, const char *dfmt);

/* A new row named name (taken over), and a cell of it (text taken over). */
struct kv_row	*kv_add(struct kv *t, char *name);
void		 kv_cell(struct kv_row *r, char *text);
/* A blank line between groups; never two in a row, never first. */
void		 kv_blank(struct kv *t);
/* A value under name: scalars as one row, objects and arrays nested. */
void		 kv_value(struct kv *t, const char *name, json_object *v,
		    const char *dfmt, const char *unit);
/* The listed fields of o that are present, in the listed order. */
void		 kv_known(struct kv *t, json_object *o,
		    const struct kv_field *f, size_t n);
/* Every key of o neither in f nor in skip, in the reply's order. */
void		 kv_unknown(struct kv *t, json_object *o,
		    const struct kv_field *f, size_t n,
		    const char *const *skip);
bool		 kv_field_listed(const struct kv_field *f, size_t n,
		    const char *key);
bool		 kv_name_listed(const char *const *names, const char *key);
void		 kv_print(const struct kv *t);
void		 kv_free(struct kv *t);

#endif
