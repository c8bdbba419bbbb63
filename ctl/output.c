/* Text and JSON renderings of stressctl replies.  The text side is built on
 * one small table printer, so every command aligns its columns the same way
 * and keys the ctl does not know yet are still shown, not hidden. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output.h"
#include "proto.h"

#define TABLE_CELLS	3
/* In a right-aligned table a lone value longer than this (a failure reason,
 * a path) is printed as is, so it does not push every number rightwards. */
#define WIDE_CELL	24
/* Lists of scalars up to this long print on one line. */
#define SHORT_LIST	60

struct row {
	int		 indent;
	char		*name;
	char		*cell[TABLE_CELLS];
	int		 ncells;	/* 0: the name is a line of its own */
	const char	*unit;		/* after the last cell, may be NULL */
};

struct table {
	struct row	*rows;
	size_t		 n, cap;
	bool		 right;		/* right-align cells (numbers) */
	int		 indent;	/* indent of rows added from now on */
};

enum field_kind {
	FIELD_PLAIN,
	FIELD_TIME,		/* epoch seconds, shown as local time */
	FIELD_PROGRESS,		/* generated, shown with max_updates */
	FIELD_SHOWN,		/* shown by another field's row */
	FIELD_COUNTS,		/* {name: count} on one row, no zeros */
};

/* How a known key is shown. */
struct field {
	const char	*key;		/* NULL: blank line between groups */
	const char	*label;		/* NULL: the key itself */
	const char	*unit;
	const char	*dfmt;		/* printf format for numbers, or NULL */
	enum field_kind	 kind;
};

#define F(k)		{ (k), NULL, NULL, NULL, FIELD_PLAIN }
#define F_SEP		{ NULL, NULL, NULL, NULL, FIELD_PLAIN }

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* A CLI has nothing sensible to do when malloc fails mid-output. */
void *
output_nomem(void *p)
{
	if (p == NULL) {
		fputs("stressctl: out of memory\n", stderr);
		exit(CTL_EXIT_ERROR);
	}
	return p;
}

static char *
xstrdup(const char *s)
{
	return output_nomem(strdup(s));
}

char *
output_xprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	return output_nomem(r == -1 ? NULL : s);
}

const char *
output_json_string(json_object *j)
{
	/* NOSLASHESCAPE: paths stay readable; "\/" and "/" are the same
	 * JSON string, so scripts still see the result unchanged. */
	return json_object_to_json_string_ext(j,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* o[key]; *found tells a missing key from a null value. */
static json_object *
get(json_object *o, const char *key, bool *found)
{
	json_object *v = NULL;
	bool f = json_object_is_type(o, json_type_object) &&
	    json_object_object_get_ex(o, key, &v);

	if (found != NULL)
		*found = f;
	return f ? v : NULL;
}

static bool
has(json_object *o, const char *key)
{
	bool f;

	get(o, key, &f);
	return f;
}

/* ---------------------------------------------------------------- table */

/* Takes ownership of name. */
static struct row *
table_add(struct table *t, char *name)
{
	struct row *r;

	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 32;
		t->rows = output_nomem(realloc(t->rows, t->cap * sizeof(*t->rows)));
	}
	r = &t->rows[t->n++];
	memset(r, 0, sizeof(*r));
	r->indent = t->indent;
	r->name = name;
	return r;
}

/* Takes ownership of text. */
static void
row_cell(struct row *r, char *text)
{
	if (r->ncells == TABLE_CELLS) {
		free(text);
		return;
	}
	r->cell[r->ncells++] = text;
}

static bool
row_blank(const struct row *r)
{
	return r->ncells == 0 && r->name[0] == '\0';
}

/* A blank line between groups; never two in a row, never first. */
static void
table_blank(struct table *t)
{
	if (t->n == 0 || row_blank(&t->rows[t->n - 1]))
		return;
	table_add(t, xstrdup(""))->indent = 0;
}

static bool
cell_sets_width(const struct table *t, const struct row *r, int c)
{
	if (t->right)
		return !(r->ncells == 1 && strlen(r->cell[0]) > WIDE_CELL);
	/* A left-aligned last cell needs no padding, so may be any length. */
	return c < r->ncells - 1;
}

static void
table_print(const struct table *t)
{
	size_t namew = 0, w[TABLE_CELLS] = { 0 }, last = t->n;

	while (last > 0 && row_blank(&t->rows[last - 1]))
		last--;

	for (size_t i = 0; i < last; i++) {
		const struct row *r = &t->rows[i];
		size_t nw = (size_t)r->indent + strlen(r->name);

		if (r->ncells == 0)
			continue;
		if (nw > namew)
			namew = nw;
		for (int c = 0; c < r->ncells; c++)
			if (cell_sets_width(t, r, c) &&
			    strlen(r->cell[c]) > w[c])
				w[c] = strlen(r->cell[c]);
	}

	for (size_t i = 0; i < last; i++) {
		const struct row *r = &t->rows[i];

		printf("%*s", r->indent, "");
		if (r->ncells == 0) {
			printf("%s\n", r->name);
			continue;
		}
		printf("%-*s", (int)(namew - (size_t)r->indent), r->name);
		for (int c = 0; c < r->ncells; c++) {
			if (!cell_sets_width(t, r, c))
				printf("  %s", r->cell[c]);
			else if (t->right)
				printf("  %*s", (int)w[c], r->cell[c]);
			else
				printf("  %-*s", (int)w[c], r->cell[c]);
		}
		if (r->unit != NULL)
			printf(" %s", r->unit);
		putchar('\n');
	}
}

static void
table_free(struct table *t)
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

/* ---------------------------------------------------------------- columns */

struct output_cols {
	char		*align;		/* 'l' or 'r' per column */
	size_t		 ncols;
	char		**cell;		/* row-major */
	size_t		 n, cap;
};

struct output_cols *
output_cols_new(const char *align)
{
	struct output_cols *t = output_nomem(calloc(1, sizeof(*t)));

	t->align = xstrdup(align);
	t->ncols = strlen(align);
	if (t->ncols == 0) {
		/* A programming error, not a user's. */
		fprintf(stderr, "stressctl: table without columns\n");
		exit(CTL_EXIT_ERROR);
	}
	return t;
}

void
output_cols_add(struct output_cols *t, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	output_nomem(r == -1 ? NULL : s);
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->cell = output_nomem(realloc(t->cell, t->cap * sizeof(*t->cell)));
	}
	t->cell[t->n++] = s;
}

size_t
output_text_width(const char *s)
{
	size_t w = 0;

	/* Count every byte but UTF-8 continuation bytes. */
	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

void
output_cols_print(const struct output_cols *t, int indent)
{
	size_t *w = output_nomem(calloc(t->ncols, sizeof(*w))), rows, last;

	rows = (t->n + t->ncols - 1) / t->ncols;
	for (size_t i = 0; i < t->n; i++) {
		size_t cw = output_text_width(t->cell[i]);

		if (cw > w[i % t->ncols])
			w[i % t->ncols] = cw;
	}
	for (size_t r = 0; r < rows; r++) {
		/* The last non-empty cell ends the line: no trailing blanks. */
		last = 0;
		for (size_t c = 0; c < t->ncols; c++) {
			size_t i = r * t->ncols + c;

			if (i < t->n && t->cell[i][0] != '\0')
				last = c;
		}
		printf("%*s", indent, "");
		for (size_t c = 0; c <= last; c++) {
			size_t i = r * t->ncols + c;
			const char *s = i < t->n ? t->cell[i] : "";
			int pad = (int)(w[c] - output_text_width(s));

			if (c > 0)
				fputs("  ", stdout);
			if (t->align[c] == 'r')
				printf("%*s%s", pad, "", s);
			else if (c < last)
				printf("%s%*s", s, pad, "");
			else
				fputs(s, stdout);
		}
		putchar('\n');
	}
	free(w);
}

void
output_cols_free(struct output_cols *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->cell[i]);
	free(t->cell);
	free(t->align);
	free(t);
}

const char *
output_local_time(const char *iso, bool with_zone, char *buf, size_t len)
{
	struct tm tm;
	const char *end;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	end = strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (end == NULL || *end != '\0' || (t = timegm(&tm)) == (time_t)-1 ||
	    localtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, with_zone ? "%Y-%m-%d %H:%M:%S %z" :
	    "%Y-%m-%d %H:%M:%S", &tm) == 0)
		snprintf(buf, len, "%s", iso);
	return buf;
}

/* ---------------------------------------------------------------- values */

/* One value as text; dfmt formats numbers when given. */
static char *
value_text(json_object *v, const char *dfmt)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		return xstrdup("-");
	case json_type_boolean:
		return xstrdup(json_object_get_boolean(v) ? "true" : "false");
	case json_type_int:
		if (dfmt != NULL)
			return output_xprintf(dfmt, json_object_get_double(v));
		return output_xprintf("%" PRId64, json_object_get_int64(v));
	case json_type_double:
		return output_xprintf(dfmt != NULL ? dfmt : "%g",
		    json_object_get_double(v));
	case json_type_string:
		/* An empty string would vanish into the padding. */
		if (json_object_get_string_len(v) == 0)
			return xstrdup("\"\"");
		return xstrdup(json_object_get_string(v));
	case json_type_object:
	case json_type_array:
		break;
	}
	return xstrdup(output_json_string(v));
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
		return value_text(v, NULL);
	t = (time_t)json_object_get_double(v);
	if (localtime_r(&t, &tm) == NULL ||
	    strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S %z", &tm) == 0)
		return value_text(v, NULL);
	return xstrdup(buf);
}

static bool
is_scalar(json_object *v)
{
	return !json_object_is_type(v, json_type_object) &&
	    !json_object_is_type(v, json_type_array);
}

static void add_value(struct table *, const char *, json_object *,
    const char *, const char *);

/* An object as "name:" and its members indented below. */
static void
add_object(struct table *t, const char *name, json_object *o)
{
	if (json_object_object_length(o) == 0) {
		row_cell(table_add(t, xstrdup(name)), xstrdup("{}"));
		return;
	}
	table_add(t, output_xprintf("%s:", name));
	t->indent += 2;
	json_object_object_foreach(o, key, val)
		add_value(t, key, val, NULL, NULL);
	t->indent -= 2;
}

/* Short lists of scalars on one line, anything else one element a line. */
static void
add_array(struct table *t, const char *name, json_object *a)
{
	size_t n = json_object_array_length(a), total = 0;
	bool oneline = true;
	char *line;

	if (n == 0) {
		row_cell(table_add(t, xstrdup(name)), xstrdup("(none)"));
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
		line = xstrdup("");
		for (size_t i = 0; i < n; i++) {
			char *v = value_text(json_object_array_get_idx(a, i),
			    NULL);
			char *next = output_xprintf("%s%s%s", line, i ? ", " : "", v);

			free(v);
			free(line);
			line = next;
		}
		row_cell(table_add(t, xstrdup(name)), line);
		return;
	}
	table_add(t, output_xprintf("%s:", name));
	t->indent += 2;
	for (size_t i = 0; i < n; i++) {
		char *v = value_text(json_object_array_get_idx(a, i), NULL);

		table_add(t, output_xprintf("- %s", v));
		free(v);
	}
	t->indent -= 2;
}

static void
add_value(struct table *t, const char *name, json_object *v, const char *dfmt,
    const char *unit)
{
	struct row *r;

	if (json_object_is_type(v, json_type_object)) {
		add_object(t, name, v);
		return;
	}
	if (json_object_is_type(v, json_type_array)) {
		add_array(t, name, v);
		return;
	}
	r = table_add(t, xstrdup(name));
	row_cell(r, value_text(v, dfmt));
	/* A unit only qualifies a number. */
	if (json_object_is_type(v, json_type_int) ||
	    json_object_is_type(v, json_type_double))
		r->unit = unit;
}

static bool
field_listed(const struct field *f, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].key != NULL && strcmp(f[i].key, key) == 0)
			return true;
	return false;
}

static bool
name_listed(const char *const *names, const char *key)
{
	for (size_t i = 0; names != NULL && names[i] != NULL; i++)
		if (strcmp(names[i], key) == 0)
			return true;
	return false;
}

static void add_progress(struct table *, json_object *);

/* {"no_space": 0, "corrupt": 7, ...} as "corrupt 7", or "none". */
static void
add_counts(struct table *t, const char *label, json_object *v)
{
	char *text = NULL, *next;

	if (!json_object_is_type(v, json_type_object)) {
		add_value(t, label, v, NULL, NULL);
		return;
	}
	json_object_object_foreach(v, key, val) {
		char *n = value_text(val, NULL);

		if (json_object_is_type(val, json_type_int) &&
		    json_object_get_int64(val) == 0) {
			free(n);
			continue;
		}
		next = text == NULL ? output_xprintf("%s %s", key, n) :
		    output_xprintf("%s, %s %s", text, key, n);
		free(text);
		free(n);
		text = next;
	}
	row_cell(table_add(t, xstrdup(label)), text != NULL ? text :
	    xstrdup("none"));
}

/* The listed fields of o that are present, in the listed order. */
static void
add_known(struct table *t, json_object *o, const struct field *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *label = f[i].label ? f[i].label : f[i].key;
		json_object *v;
		bool found;

		if (f[i].key == NULL) {
			table_blank(t);
			continue;
		}
		v = get(o, f[i].key, &found);
		/* Progress is drawn from two keys, either may be missing. */
		if (!found && f[i].kind != FIELD_PROGRESS)
			continue;
		switch (f[i].kind) {
		case FIELD_PLAIN:
			add_value(t, label, v, f[i].dfmt, f[i].unit);
			break;
		case FIELD_TIME:
			row_cell(table_add(t, xstrdup(label)), time_text(v));
			break;
		case FIELD_PROGRESS:
			add_progress(t, o);
			break;
		case FIELD_SHOWN:
			break;
		case FIELD_COUNTS:
			add_counts(t, label, v);
			break;
		}
	}
}

/* Every key of o neither in f nor in skip, in the reply's order. */
static void
add_unknown(struct table *t, json_object *o, const struct field *f, size_t n,
    const char *const *skip)
{
	if (!json_object_is_type(o, json_type_object))
		return;
	json_object_object_foreach(o, key, val)
		if (!field_listed(f, n, key) && !name_listed(skip, key))
			add_value(t, key, val, NULL, NULL);
}

/* A result that is not an object still gets shown. */
static bool
check_object(json_object *res)
{
	if (json_object_is_type(res, json_type_object))
		return true;
	printf("%s\n", output_json_string(res));
	return false;
}

/* ---------------------------------------------------------------- stats */

static const struct field stats_fields[] = {
	F("state"), F("run_id"), F("reason"),
	{ "elapsed_s", "elapsed", "s", "%.1f", FIELD_PLAIN },
	{ "generated", "progress", NULL, NULL, FIELD_PROGRESS },
	{ "max_updates", NULL, NULL, NULL, FIELD_SHOWN },
	F_SEP,
	F("total_operations_pending"), F("significant_ops_pending"),
	F("files_with_significant_work"), F("files_with_insignificant_work"),
	F("in_flight"), F("creates_pending"),
	F_SEP,
	F("offered"), F("enqueued"), F("dropped"), F("discarded"),
	F("significant_ops_enqueued"), F("significant_ops_dequeued"),
	F("significant_ops_completed"), F("dequeued_operations"),
	F("dequeued_items"), F("creates_completed"), F("creates_failed"),
	F("updates_completed"), F("updates_failed"), F("update_calls"),
	F("errors"),
	{ "errors_by_kind", NULL, NULL, NULL, FIELD_COUNTS },
	F("promotion_count"),
	{ "cpu", NULL, NULL, NULL, FIELD_COUNTS },	/* seconds, one row */
	F_SEP,
};

static const char *const rate_triples[] = {
	"current_enqueue", "current_dequeue", "overall_enqueue",
	"overall_dequeue", NULL
};

static const char *const rate_columns[] = {
	"significant", "insignificant", "total", NULL
};

static const struct field rate_fields[] = {
	{ "ops_per_update_current", NULL, NULL, "%.2f", FIELD_PLAIN },
	{ "ops_per_update_overall", NULL, NULL, "%.2f", FIELD_PLAIN },
	{ "percent_significant_current", NULL, "%", "%.1f", FIELD_PLAIN },
	{ "percent_significant_overall", NULL, "%", "%.1f", FIELD_PLAIN },
};

/* "generated/max_updates (pct%)", or whichever half is there. */
static void
add_progress(struct table *t, json_object *o)
{
	bool hg, hm;
	json_object *g = get(o, "generated", &hg);
	json_object *m = get(o, "max_updates", &hm);
	int64_t gen, max;
	struct row *r;

	if (!hg || !hm) {
		if (hg)
			add_value(t, "generated", g, NULL, NULL);
		if (hm)
			add_value(t, "max_updates", m, NULL, NULL);
		return;
	}
	gen = json_object_get_int64(g);
	max = json_object_get_int64(m);
	r = table_add(t, xstrdup("progress"));
	if (max > 0)
		row_cell(r, output_xprintf("%" PRId64 "/%" PRId64 " (%.1f%%)", gen,
		    max, 100.0 * (double)gen / (double)max));
	else
		row_cell(r, output_xprintf("%" PRId64 "/%" PRId64, gen, max));
}

/* An object shaped like {"significant", "insignificant", "total"}. */
static bool
is_triple(json_object *v)
{
	for (int i = 0; rate_columns[i] != NULL; i++)
		if (has(v, rate_columns[i]))
			return true;
	return false;
}

static void
add_triple(struct table *t, const char *name, json_object *v)
{
	struct row *r = table_add(t, xstrdup(name));

	for (int c = 0; rate_columns[c] != NULL; c++)
		row_cell(r, value_text(get(v, rate_columns[c], NULL), "%.1f"));
}

/* Rates as their own block: the enqueue/dequeue triples as a grid, then
 * the single figures below it. */
static void
print_rates(json_object *rates)
{
	struct table grid = { .right = true }, rest = { .right = true };
	struct row *r;

	r = table_add(&grid, xstrdup("rates (/s)"));
	for (int c = 0; rate_columns[c] != NULL; c++)
		row_cell(r, xstrdup(rate_columns[c]));
	grid.indent = rest.indent = 2;

	for (int i = 0; rate_triples[i] != NULL; i++) {
		json_object *v = get(rates, rate_triples[i], NULL);

		if (is_triple(v))
			add_triple(&grid, rate_triples[i], v);
	}
	json_object_object_foreach(rates, key, val)
		if (is_triple(val) && !name_listed(rate_triples, key))
			add_triple(&grid, key, val);

	add_known(&rest, rates, rate_fields, NELEM(rate_fields));
	json_object_object_foreach(rates, key2, val2)
		if (!is_triple(val2) &&
		    !field_listed(rate_fields, NELEM(rate_fields), key2))
			add_value(&rest, key2, val2, NULL, NULL);

	table_print(&grid);
	table_print(&rest);
	table_free(&grid);
	table_free(&rest);
}

static void
text_stats(json_object *res)
{
	static const char *const skip[] = { "rates", NULL };
	struct table t = { .right = true };
	json_object *rates = get(res, "rates", NULL);
	bool rates_block = json_object_is_type(rates, json_type_object);

	if (!check_object(res))
		return;
	add_known(&t, res, stats_fields, NELEM(stats_fields));
	/* A "rates" of unexpected shape is shown with the other extras. */
	add_unknown(&t, res, stats_fields, NELEM(stats_fields),
	    rates_block ? skip : NULL);
	table_print(&t);
	table_free(&t);
	if (rates_block) {
		putchar('\n');
		print_rates(rates);
	}
}

/* ---------------------------------------------------------------- others */

static void
text_start(json_object *res)
{
	char *id, *state, *log;

	if (!check_object(res))
		return;
	id = value_text(get(res, "run_id", NULL), NULL);
	state = value_text(get(res, "state", NULL), NULL);
	log = value_text(get(res, "log", NULL), NULL);
	printf("run %s started (%s), log: %s\n", id, state, log);
	free(id);
	free(state);
	free(log);
}

static void
text_stop(json_object *res)
{
	char *id, *state;

	if (!check_object(res))
		return;
	/* stop with wait answers with the final stats. */
	if (has(res, "generated") || has(res, "rates")) {
		text_stats(res);
		return;
	}
	id = value_text(get(res, "run_id", NULL), NULL);
	state = value_text(get(res, "state", NULL), NULL);
	printf("run %s: %s\n", id, state);
	free(id);
	free(state);
}

static const struct field status_fields[] = {
	F("version"), F("protocol"),
	{ "uptime_s", "uptime", "s", "%.0f", FIELD_PLAIN },
	F("pid"), F("socket"), F("state_dir"),
};

static const struct field run_fields[] = {
	F("id"), F("state"), F("dir"), F("log"),
	{ "started_at", NULL, NULL, NULL, FIELD_TIME },
	{ "ended_at", NULL, NULL, NULL, FIELD_TIME },
	F("reason"), F("errors"),
	{ "errors_by_kind", NULL, NULL, NULL, FIELD_COUNTS },
};

/* Shown last, as blocks, after the run's single values. */
static const char *const run_blocks[] = { "error_messages", "params", NULL };

static void
text_status(json_object *res)
{
	static const char *const skip[] = { "run", NULL };
	struct table t = { .right = false };
	json_object *run;
	bool found;

	if (!check_object(res))
		return;
	add_known(&t, res, status_fields, NELEM(status_fields));
	add_unknown(&t, res, status_fields, NELEM(status_fields), skip);

	run = get(res, "run", &found);
	if (json_object_is_type(run, json_type_object)) {
		table_add(&t, xstrdup("run:"));
		t.indent += 2;
		add_known(&t, run, run_fields, NELEM(run_fields));
		add_unknown(&t, run, run_fields, NELEM(run_fields),
		    run_blocks);
		for (int i = 0; run_blocks[i] != NULL; i++) {
			json_object *v = get(run, run_blocks[i], &found);

			if (found)
				add_value(&t, run_blocks[i], v, NULL, NULL);
		}
		t.indent -= 2;
	} else if (found) {
		/* null: no run since the daemon started. */
		row_cell(table_add(&t, xstrdup("run")), json_object_is_type(run,
		    json_type_null) ? xstrdup("none") : value_text(run, NULL));
	}
	table_print(&t);
	table_free(&t);
}

static void
text_help(json_object *res)
{
	struct table t = { .right = false };
	json_object *cmds = get(res, "commands", NULL);
	struct row *r;

	if (!json_object_is_type(cmds, json_type_array)) {
		/* Unknown shape: show it rather than nothing. */
		if (check_object(res)) {
			add_unknown(&t, res, NULL, 0, NULL);
			table_print(&t);
			table_free(&t);
		}
		return;
	}
	r = table_add(&t, xstrdup("COMMAND"));
	row_cell(r, xstrdup("READ-ONLY"));
	row_cell(r, xstrdup("USAGE"));
	row_cell(r, xstrdup("SUMMARY"));
	for (size_t i = 0; i < json_object_array_length(cmds); i++) {
		json_object *c = json_object_array_get_idx(cmds, i);
		json_object *ro = get(c, "read_only", NULL);

		r = table_add(&t, value_text(get(c, "name", NULL), NULL));
		row_cell(r, xstrdup(ro == NULL ? "-" :
		    json_object_get_boolean(ro) ? "yes" : "no"));
		row_cell(r, value_text(get(c, "usage", NULL), NULL));
		row_cell(r, value_text(get(c, "summary", NULL), NULL));
	}
	table_print(&t);
	table_free(&t);
}

static const struct field version_fields[] = {
	{ "version", "stressd version", NULL, NULL, FIELD_PLAIN },
	{ "protocol", "stressd protocol", NULL, NULL, FIELD_PLAIN },
	F("librrd"),
};

static void
text_version(json_object *res)
{
	struct table t = { .right = false };

	if (!check_object(res))
		return;
	add_known(&t, res, version_fields, NELEM(version_fields));
	add_unknown(&t, res, version_fields, NELEM(version_fields), NULL);
	row_cell(table_add(&t, xstrdup("stressctl version")),
	    xstrdup(PACKAGE_VERSION));
	row_cell(table_add(&t, xstrdup("stressctl protocol")),
	    output_xprintf("%d", PROTO_VERSION));
	table_print(&t);
	table_free(&t);
}

/* ---------------------------------------------------------------- runs */

/* Mount options beyond this are cut ("..."): the rest is in the report. */
#define RUNS_OPTIONS_WIDTH	32

static char *
runs_cell(json_object *run, const char *key, const char *dfmt)
{
	bool found;
	json_object *v = get(run, key, &found);

	return found ? value_text(v, dfmt) : xstrdup("-");
}

static void
text_runs(json_object *res)
{
	json_object *runs = get(res, "runs", NULL);
	struct output_cols *t;
	char when[64];

	if (!json_object_is_type(runs, json_type_array)) {
		if (check_object(res)) {
			struct table u = { .right = false };

			add_unknown(&u, res, NULL, 0, NULL);
			table_print(&u);
			table_free(&u);
		}
		return;
	}
	if (json_object_array_length(runs) == 0) {
		printf("no runs recorded\n");
		return;
	}
	t = output_cols_new("rllrrllll");
	output_cols_add(t, "ID");
	output_cols_add(t, "STARTED");
	output_cols_add(t, "STATE");
	output_cols_add(t, "UPDATES");
	output_cols_add(t, "SIG AVG");
	output_cols_add(t, "FS");
	output_cols_add(t, "DIR");
	output_cols_add(t, "MOUNT OPTIONS");
	output_cols_add(t, "SWEEP");
	for (size_t i = 0; i < json_object_array_length(runs); i++) {
		json_object *r = json_object_array_get_idx(runs, i);
		json_object *v = get(r, "started_at", NULL);
		char *cells[6];

		cells[0] = runs_cell(r, "id", NULL);
		cells[1] = runs_cell(r, "state", NULL);
		cells[2] = runs_cell(r, "updates_completed", NULL);
		cells[3] = runs_cell(r, "significant_avg", "%.2f");
		cells[4] = runs_cell(r, "fs_type", NULL);
		cells[5] = runs_cell(r, "dir", NULL);
		output_cols_add(t, "%s", cells[0]);
		output_cols_add(t, "%s", json_object_is_type(v,
		    json_type_string) ? output_local_time(
		    json_object_get_string(v), false, when, sizeof(when)) : "-");
		output_cols_add(t, "%s", cells[1]);
		output_cols_add(t, "%s", cells[2]);
		output_cols_add(t, "%s", cells[3]);
		output_cols_add(t, "%s", cells[4]);
		output_cols_add(t, "%s", cells[5]);
		v = get(r, "mount_options", NULL);
		if (!json_object_is_type(v, json_type_string))
			output_cols_add(t, "-");
		else if (json_object_get_string_len(v) > RUNS_OPTIONS_WIDTH)
			output_cols_add(t, "%.*s...", RUNS_OPTIONS_WIDTH - 3,
			    json_object_get_string(v));
		else
			output_cols_add(t, "%s", json_object_get_string(v));
		/* Empty outside a sweep. */
		v = get(r, "sweep_id", NULL);
		output_cols_add(t, "%s", json_object_is_type(v,
		    json_type_string) && json_object_get_string_len(v) > 0 ?
		    json_object_get_string(v) : "-");
		for (size_t c = 0; c < NELEM(cells); c++)
			free(cells[c]);
	}
	output_cols_print(t, 0);
	output_cols_free(t);
}

const struct output output_text = { {
	[VIEW_START] = text_start,
	[VIEW_STOP] = text_stop,
	[VIEW_STATS] = text_stats,
	[VIEW_STATUS] = text_status,
	[VIEW_HELP] = text_help,
	[VIEW_VERSION] = text_version,
	[VIEW_RUNS] = text_runs,
} };

/* ---------------------------------------------------------------- json */

/* Scripts get the result exactly as the daemon sent it, for every command. */
static void
json_result(json_object *res)
{
	printf("%s\n", output_json_string(res));
}

const struct output output_json = { {
	[VIEW_START] = json_result,
	[VIEW_STOP] = json_result,
	[VIEW_STATS] = json_result,
	[VIEW_STATUS] = json_result,
	[VIEW_HELP] = json_result,
	[VIEW_VERSION] = json_result,
	[VIEW_RUNS] = json_result,
} };
