/* The column engine (see columns.h). */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "fmt.h"
#include "proto.h"

struct cell {
	char		*text;
	unsigned	 flags;
};

struct crow {
	int		 indent;
	struct cell	*cell;
	size_t		 n;		/* at most the table's ncols */
	char		*tail;
};

struct columns {
	char		*align;		/* 'l' or 'r' per column */
	size_t		 ncols;
	struct crow	*rows;
	size_t		 n, cap;
};

struct columns *
columns_new(const char *align)
{
	struct columns *t = fmt_nomem(calloc(1, sizeof(*t)));

	t->align = fmt_nomem(strdup(align));
	t->ncols = strlen(align);
	if (t->ncols == 0) {
		/* A programming error, not a user's. */
		fprintf(stderr, "stressctl: table without columns\n");
		exit(CTL_EXIT_ERROR);
	}
	return t;
}

void
columns_row(struct columns *t, int indent)
{
	struct crow *r;

	t->rows = fmt_grow(t->rows, &t->cap, t->n, sizeof(*t->rows));
	r = &t->rows[t->n++];
	memset(r, 0, sizeof(*r));
	r->indent = indent;
	r->cell = fmt_nomem(calloc(t->ncols, sizeof(*r->cell)));
}

/* Takes ownership of text. */
static void
add_cell(struct columns *t, char *text, unsigned flags)
{
	struct crow *r;

	if (t->n == 0 || t->rows[t->n - 1].n == t->ncols)
		columns_row(t, 0);
	r = &t->rows[t->n - 1];
	r->cell[r->n].text = text;
	r->cell[r->n++].flags = flags;
}

void
columns_add(struct columns *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_cell(t, fmt_vxprintf(fmt, ap), 0);
	va_end(ap);
}

void
columns_cell(struct columns *t, const char *text, unsigned flags)
{
	add_cell(t, fmt_nomem(strdup(text)), flags);
}

void
columns_tail(struct columns *t, const char *text)
{
	struct crow *r;

	if (t->n == 0)
		columns_row(t, 0);
	r = &t->rows[t->n - 1];
	free(r->tail);
	r->tail = fmt_nomem(strdup(text));
}

size_t
columns_width(const char *s)
{
	size_t w = 0;

	/* Count every byte but UTF-8 continuation bytes. */
	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static void
pad(FILE *f, size_t n)
{
	while (n-- > 0)
		putc(' ', f);
}

static void
print_row(const struct columns *t, const struct crow *r, const size_t *w,
    FILE *f, int indent)
{
	size_t last = 0;

	/* The last non-empty cell ends the line: no trailing blanks. */
	for (size_t c = 0; c < r->n; c++)
		if (r->cell[c].text[0] != '\0')
			last = c;
	pad(f, (size_t)(indent + r->indent));
	for (size_t c = 0; c <= last && c < r->n; c++) {
		const struct cell *e = &r->cell[c];
		size_t cw = columns_width(e->text) +
		    (c == 0 ? (size_t)r->indent : 0);
		size_t fill = w[c] > cw ? w[c] - cw : 0;

		if (c > 0)
			fputs("  ", f);
		if (e->flags & COLUMNS_FREE)
			fputs(e->text, f);
		else if (t->align[c] == 'r') {
			pad(f, fill);
			fputs(e->text, f);
		} else {
			fputs(e->text, f);
			if (c < last)
				pad(f, fill);
		}
	}
	if (r->tail != NULL)
		fputs(r->tail, f);
	putc('\n', f);
}

void
columns_print(const struct columns *t, FILE *f, int indent)
{
	size_t *w = fmt_nomem(calloc(t->ncols, sizeof(*w)));

	for (size_t i = 0; i < t->n; i++)
		for (size_t c = 0; c < t->rows[i].n; c++) {
			const struct cell *e = &t->rows[i].cell[c];
			size_t cw = columns_width(e->text) +
			    (c == 0 ? (size_t)t->rows[i].indent : 0);

			if (!(e->flags & COLUMNS_FREE) && cw > w[c])
				w[c] = cw;
		}
	for (size_t i = 0; i < t->n; i++)
		print_row(t, &t->rows[i], w, f, indent);
	free(w);
}

void
columns_free(struct columns *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->n; i++) {
		for (size_t c = 0; c < t->rows[i].n; c++)
			free(t->rows[i].cell[c].text);
		free(t->rows[i].cell);
		free(t->rows[i].tail);
	}
	free(t->rows);
	free(t->align);
	free(t);
}
