/* The column engine (see columns.h). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

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

/* The columns every part of a too wide table repeats: the key or id. */
#define COLUMNS_KEPT	1

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

/* The width rows are fitted to; 0: none. */
static size_t out_width;

void
columns_set_width(size_t width)
{
	out_width = width;
}

size_t
columns_out_width(int fd)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");
	char *end;
	long n;

	if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col;
	if (env != NULL && *env != '\0') {
		errno = 0;
		n = strtol(env, &end, 10);
		if (errno == 0 && *end == '\0' && n >= 40 && n <= 100000)
			return (size_t)n;
	}
	return COLUMNS_DEFAULT_WIDTH;
}

/* Characters in the first n bytes of s. */
static size_t
width_n(const char *s, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n && s[i] != '\0'; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			w++;
	return w;
}

/* Bytes of the first line of text (up to '\n') that fit room characters,
 * broken at blanks; a first word longer than room whole. */
static size_t
line_fit(const char *text, size_t room)
{
	size_t end = strcspn(text, "\n"), fit = 0, pos = 0;

	while (pos < end) {
		size_t w = pos + strcspn(text + pos, " \n");

		if (w > end)
			w = end;
		if (fit > 0 && width_n(text, w) > room)
			break;
		fit = w;
		pos = w + strspn(text + w, " ");
	}
	return fit;
}

/* See columns.h.  The lines after the first start at column at, or,
 * when fewer than COLUMNS_MIN_WRAP columns are left there, every line
 * starts at column COLUMNS_HANG on a line of its own.  A word longer
 * than a line stands alone. */
void
columns_wrap(FILE *f, const char *text, size_t at)
{
	size_t cont = at, room;
	bool first = true;

	if (out_width == 0 || (strchr(text, '\n') == NULL &&
	    at + columns_width(text) <= out_width)) {
		fputs(text, f);
		return;
	}
	if (out_width < at + COLUMNS_MIN_WRAP) {
		cont = at < COLUMNS_HANG ? at : COLUMNS_HANG;
		first = false;
	}
	room = out_width - cont;
	/* A line of text that starts with blanks keeps them as the indent
	 * of the lines it wraps into. */
	for (size_t lead = 0, in = 0; *text != '\0'; in = lead) {
		size_t len;

		if (in == 0) {
			lead = strspn(text, " ");
			lead = lead < room / 2 ? lead : 0;
		}
		len = line_fit(text, room - in);
		if (!first) {
			fputc('\n', f);
			pad(f, cont + in);
		}
		fwrite(text, 1, len, f);
		text += len;
		text += strspn(text, " ");
		if (*text == '\n') {
			text++;
			lead = 0;
		}
		first = false;
	}
}

/* The columns of one part of a table: those it keeps in every part,
 * then the next that fit. */
struct part {
	size_t		*col;
	size_t		 n;
	size_t		 keep;		/* the first keep columns of col */
	bool		 first;
};

static void
print_row(const struct columns *t, const struct crow *r, const size_t *w,
    const struct part *p, FILE *f, int indent)
{
	size_t last = 0, row_last = 0, start = (size_t)indent;
	bool tail = false;

	/* The last non-empty cell ends the line: no trailing blanks. */
	for (size_t k = 0; k < p->n; k++)
		if (p->col[k] < r->n && r->cell[p->col[k]].text[0] != '\0')
			last = k;
	for (size_t c = 0; c < r->n; c++)
		if (r->cell[c].text[0] != '\0')
			row_last = c;
	pad(f, (size_t)(indent + r->indent));
	for (size_t k = 0; k <= last && k < p->n; k++) {
		size_t c = p->col[k];
		const char *text = c < r->n ? r->cell[c].text : "";
		unsigned flags = c < r->n ? r->cell[c].flags : 0;
		size_t in = k == 0 ? (size_t)r->indent : 0;
		size_t cw = columns_width(text) + in;
		size_t fill = w[c] > cw ? w[c] - cw : 0;

		if (k > 0)
			fputs("  ", f);
		if (k == last && (t->align[c] == 'l' || (flags & COLUMNS_FREE)))
			columns_wrap(f, text, start + in);
		else if (flags & COLUMNS_FREE)
			fputs(text, f);
		else if (t->align[c] == 'r') {
			pad(f, fill);
			fputs(text, f);
		} else {
			fputs(text, f);
			pad(f, fill);
		}
		start += w[c] + 2;
		tail = tail || c == row_last;
	}
	/* The tail goes with the part that holds the row's last cell (the
	 * first part when that is a kept column). */
	if (r->tail != NULL && tail && (p->first || row_last >= p->keep))
		fputs(r->tail, f);
	putc('\n', f);
}

/* The first `keep` columns, then those from next on that fit beside
 * them (at least one); their number. */
static size_t
next_part(const struct columns *t, const size_t *w, size_t keep,
    size_t next, int indent, size_t *col)
{
	size_t n = 0, used = (size_t)indent;

	for (size_t c = 0; c < keep; c++) {
		used += (n > 0 ? 2 : 0) + w[c];
		col[n++] = c;
	}
	for (size_t c = next; c < t->ncols; c++) {
		size_t need = (n > 0 ? 2 : 0) + w[c];

		/* A left-aligned last column wraps: its minimum will do. */
		if (c + 1 == t->ncols && t->align[c] == 'l' &&
		    w[c] > COLUMNS_MIN_WRAP)
			need = (n > 0 ? 2 : 0) + COLUMNS_MIN_WRAP;
		if (n > keep && out_width != 0 && used + need > out_width)
			break;
		used += need;
		col[n++] = c;
	}
	return n;
}

void
columns_print(const struct columns *t, FILE *f, int indent)
{
	size_t *w = fmt_nomem(calloc(t->ncols, sizeof(*w)));
	size_t *col = fmt_nomem(calloc(t->ncols, sizeof(*col)));
	size_t keep = COLUMNS_KEPT < t->ncols ? COLUMNS_KEPT : t->ncols - 1;
	struct part p = { .col = col, .first = true, .keep = keep };
	size_t next = keep;

	for (size_t i = 0; i < t->n; i++)
		for (size_t c = 0; c < t->rows[i].n; c++) {
			const struct cell *e = &t->rows[i].cell[c];
			size_t cw = columns_width(e->text) +
			    (c == 0 ? (size_t)t->rows[i].indent : 0);

			if (!(e->flags & COLUMNS_FREE) && cw > w[c])
				w[c] = cw;
		}
	/* Too wide for out_width: in parts, each with the kept columns,
	 * a blank line between them. */
	do {
		p.n = next_part(t, w, keep, next, indent, col);
		if (!p.first)
			putc('\n', f);
		for (size_t i = 0; i < t->n; i++)
			print_row(t, &t->rows[i], w, &p, f, indent);
		if (p.n <= keep)
			break;
		next = col[p.n - 1] + 1;
		p.first = false;
	} while (next < t->ncols);
	free(col);
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
