/*
 * What the record modules (caprec, runrec, statsrec) share to read a JSON
 * record once into their structs: typed look-ups of a member that name
 * the member in the first error ("capacity record: dirs[1].label: not a
 * string").  A bottom-layer module beside fmt: it includes no view or
 * command.
 *
 * A member that is absent or JSON null is "absent" (the daemon writes
 * null for what it does not know), which fails only a required member;
 * a member of the wrong type always fails.  Strings point into the
 * parsed JSON, which the record keeps a reference to.
 */
#ifndef STRESSCTL_RECPARSE_H
#define STRESSCTL_RECPARSE_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

struct recparse {
	const char	*what;		/* "capacity record", for messages */
	char		 at[128];	/* the object read now: "dirs[1]" */
	char		*err;		/* the first error (malloc'd), or NULL */
};

/* A number as the record wrote it: an integer stays one, so that a view
 * prints it as written (see recparse_number_text). */
struct recparse_number {
	bool	has;		/* false: absent (d is NAN) */
	bool	is_int;
	int64_t	i;		/* the integer, when is_int */
	double	d;		/* the value, also of an integer */
};

#define RECPARSE_REQ	true
#define RECPARSE_OPT	false

/* Start reading a record called what; at "" (the top object). */
void		 recparse_init(struct recparse *p, const char *what);
/* Read members of the object at the printf-formatted path from now. */
void		 recparse_at(struct recparse *p, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
/* Record an error about member key (NULL: the object itself); only the
 * first is kept.  Returns false. */
bool		 recparse_fail(struct recparse *p, const char *key,
		    const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));
/* The first error, handed over (the caller frees it); NULL if none. */
char		*recparse_take_error(struct recparse *p);
/* The first error into *err (the caller frees it), or freed when err is
 * NULL: a parser's fail path. */
void		 recparse_give_error(struct recparse *p, char **err);
/* Whether o is an object whose "schema" is the string schema: a record's
 * claim, which its parser then checks. */
bool		 recparse_is_schema(json_object *o, const char *schema);

/* Member key of o: a string (*out NULL when absent), a number (NAN when
 * absent), an integer (*has false when absent), a boolean (-1 when
 * absent, else 0 or 1), an object or an array (NULL when absent).
 * Each returns false, the error recorded, when the member is of another
 * type or absent but required. */
bool		 recparse_str(struct recparse *p, json_object *o,
		    const char *key, bool req, const char **out);
bool		 recparse_num(struct recparse *p, json_object *o,
		    const char *key, bool req, double *out);
bool		 recparse_int(struct recparse *p, json_object *o,
		    const char *key, bool req, int64_t *out, bool *has);
bool		 recparse_bool(struct recparse *p, json_object *o,
		    const char *key, bool req, int *out);
bool		 recparse_obj(struct recparse *p, json_object *o,
		    const char *key, bool req, json_object **out);
bool		 recparse_arr(struct recparse *p, json_object *o,
		    const char *key, bool req, json_object **out);
/* Member key of o, a number kept as written (*out absent when it is
 * absent); false, the error recorded, as recparse_num. */
bool		 recparse_number(struct recparse *p, json_object *o,
		    const char *key, bool req, struct recparse_number *out);
/* n as a malloc'd text: with dfmt (a printf format of a double), else an
 * integer as one and another number with "%g"; "-" when absent. */
char		*recparse_number_text(const struct recparse_number *n,
		    const char *dfmt);
/* A member of an object kept whole (a run's params) as a malloc'd text:
 * an integer as one, another number with "%g", a string or boolean as it
 * is, "-" for anything else. */
char		*recparse_value_text(json_object *v);

#endif
