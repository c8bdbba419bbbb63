/* The view of capacity records: directories, steps and the ranking (see
 * capview.h), printed from the structs of caprec.c, which checked the
 * record; what a record lacks shows as "-". */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "caprec.h"
#include "capname.h"
#include "capspread.h"
#include "capview.h"
#include "columns.h"
#include "fmt.h"

/* One directory of one record, as the ranking sees it. */
struct capdir {
	const struct caprec	*rec;
	const struct caprec_dir	*d;
	double			 cap, behind, prec;
	bool			 has_cap, has_behind;
	const char		*limited;	/* limited_by, or "" */
};

bool
capview_is_record(json_object *o)
{
	return caprec_is_record(o);
}

/* The views of JSON records, for callers that have no structs: the n
 * records parsed into *v, *m of them (one that does not parse is left
 * out, its error said on stderr, as is the warning of another version). */
static const struct caprec *const *
parse_all(json_object *const *recs, int n, int *m)
{
	struct caprec **v = fmt_nomem(calloc((size_t)n + 1, sizeof(*v)));

	*m = 0;
	for (int i = 0; i < n; i++) {
		char *err = NULL;

		if ((v[*m] = caprec_parse(recs[i], &err)) == NULL ||
		    (err = caprec_version_warning(v[*m])) != NULL)
			fprintf(stderr, "stressctl: %s%s\n", v[*m] != NULL ?
			    "warning: the capacity record " : "", err);
		free(err);
		*m += v[*m] != NULL;
	}
	return (const struct caprec *const *)v;
}

static void
free_all(const struct caprec *const *v, int n)
{
	for (int i = 0; i < n; i++)
		caprec_free((struct caprec *)v[i]);
	free((void *)v);
}

bool
capview_state_ended(const char *state)
{
	return state != NULL && strcmp(state, "running") != 0 &&
	    strcmp(state, "pending") != 0;
}

char *
capview_rate(double r)
{
	/* %.0f of 1e308 is 309 digits: a copied record may hold it. */
	return fmt_xprintf(fabs(r) >= 100 && fabs(r) < 1e15 ? "%.0f" :
	    "%.3g", r);
}

/* A ceiling of the tool, not of the storage. */
static bool
is_ceiling(const struct capdir *c)
{
	return strcmp(c->limited, "cpu") == 0 ||
	    strcmp(c->limited, "max_rate") == 0;
}

static int
by_capacity(const void *a, const void *b)
{
	const struct capdir *x = a, *y = b;
	double cx = x->has_cap ? x->cap : -1, cy = y->has_cap ? y->cap : -1;

	if (cx != cy)
		return cx > cy ? -1 : 1;
	/* Neither kept up: the one that fell behind later first. */
	cx = x->has_behind ? x->behind : -1;
	cy = y->has_behind ? y->behind : -1;
	return cx > cy ? -1 : cx < cy;
}

/* The directories of the n records, sorted by capacity; *nd of them. */
static struct capdir *
collect(const struct caprec *const *recs, int n, size_t *nd)
{
	struct capdir *v = NULL;
	size_t cap = 0;

	*nd = 0;
	for (int i = 0; i < n; i++) {
		double prec = recs[i]->search.precision_pct;

		if (isnan(prec))
			prec = 10;
		for (size_t k = 0; k < recs[i]->ndirs; k++) {
			struct capdir *c;
			const char *l;

			v = fmt_grow(v, &cap, *nd, sizeof(*v));
			c = &v[(*nd)++];
			c->rec = recs[i];
			c->d = &recs[i]->dirs[k];
			c->prec = prec;
			c->cap = c->d->capacity_rate;
			c->has_cap = !isnan(c->cap);
			c->behind = c->d->behind_rate;
			c->has_behind = !isnan(c->behind);
			l = c->d->limited_by;
			c->limited = l != NULL ? l : "";
		}
	}
	if (*nd > 1)
		qsort(v, *nd, sizeof(*v), by_capacity);
	return v;
}

/* The directory's name in views of the n records. */
static char *
dir_name(const struct caprec *const *recs, int n, const struct capdir *c)
{
	return capname_dir(recs, n, c->rec, (size_t)(c->d - c->rec->dirs));
}

static const char *
ceiling_what(const struct capdir *c)
{
	return strcmp(c->limited, "cpu") == 0 ? "this machine's CPU "
	    "ceiling, not the storage's" : "max_rate, the most offered, not "
	    "the storage's limit";
}

/* The relation of u to the directory below it, l: its word, and a
 * sentence into *text. */
static const char *
relation(const struct capdir *u, const struct capdir *l, const char *un,
    const char *ln, double *margin, bool *has_margin, char **text)
{
	double p = fmax(u->prec, l->prec);

	*has_margin = u->has_cap && l->has_cap && l->cap > 0;
	*margin = *has_margin ? (u->cap / l->cap - 1) * 100 : 0;
	if (!u->has_cap) {
		*text = fmt_xprintf("neither kept up at the lowest rate "
		    "offered");
		return "unknown";
	}
	/* A ceiling's figure is a lower bound of its storage: it may be
	 * ahead of a bracket it clears, never behind anything. */
	if (is_ceiling(l) && is_ceiling(u)) {
		*text = fmt_xprintf("not ranked on storage: both figures "
		    "are ceilings (%s's %s, %s's %s)", un, ceiling_what(u), ln,
		    ceiling_what(l));
		return "ceiling";
	}
	if (is_ceiling(l)) {
		*text = fmt_xprintf("not ranked on storage: %s's figure is "
		    "%s", ln, ceiling_what(l));
		return "ceiling";
	}
	/* No upper end below: its search did not finish. */
	if (!l->has_behind) {
		*text = fmt_xprintf("not ranked: %s's search did not find "
		    "its limit (%s)", ln, l->d->state != NULL ?
		    l->d->state : "no state");
		return "unknown";
	}
	if (l->has_behind && u->cap >= l->behind) {
		*text = is_ceiling(u) ? fmt_xprintf("%s ahead of %s by at "
		    "least %.0f %% (the brackets do not overlap; %s's own "
		    "limit is higher: its figure is %s)", un, ln, *margin, un,
		    ceiling_what(u)) : fmt_xprintf("%s ahead of %s by %.0f "
		    "%% (the brackets do not overlap)", un, ln, *margin);
		return "ahead";
	}
	if (is_ceiling(u)) {
		*text = fmt_xprintf("not ranked on storage: %s's figure is "
		    "%s", un, ceiling_what(u));
		return "ceiling";
	}
	if (*has_margin)
		*text = fmt_xprintf("%s and %s within the precision (+-%g "
		    "%%): %.0f %% apart, the brackets overlap", un, ln, p,
		    *margin);
	else
		*text = fmt_xprintf("%s and %s within the precision (+-%g "
		    "%%)", un, ln, p);
	return "within_precision";
}

static void
add_num(json_object *o, const char *key, bool has, double v)
{
	json_object_object_add(o, key, has ? json_object_new_double(v) : NULL);
}

static void
add_str(json_object *o, const char *key, const char *s)
{
	json_object_object_add(o, key, s != NULL ?
	    fmt_nomem(json_object_new_string(s)) : NULL);
}

json_object *
capview_ranking_recs(const struct caprec *const *recs, int n)
{
	json_object *arr = fmt_nomem(json_object_new_array());
	size_t nd;
	struct capdir *v = collect(recs, n, &nd);

	for (size_t i = 0; i < nd; i++) {
		json_object *e = fmt_nomem(json_object_new_object());
		json_object *next = NULL;

		json_object_object_add(e, "rank", json_object_new_int64(
		    (int64_t)i + 1));
		json_object_object_add(e, "id", json_object_new_int64(
		    v[i].rec->id));
		add_str(e, "host", v[i].rec->host);
		add_str(e, "dir", v[i].d->dir);
		add_str(e, "label", v[i].d->label);
		add_str(e, "fs_type", v[i].d->fs_type);
		add_num(e, "capacity_rate", v[i].has_cap, v[i].cap);
		add_num(e, "behind_rate", v[i].has_behind, v[i].behind);
		add_str(e, "limited_by", v[i].d->limited_by);
		json_object_object_add(e, "precision_pct",
		    json_object_new_double(v[i].prec));
		if (i + 1 < nd) {
			char *un = dir_name(recs, n, &v[i]);
			char *ln = dir_name(recs, n, &v[i + 1]), *text;
			double m;
			bool hm;
			const char *rel = relation(&v[i], &v[i + 1], un, ln,
			    &m, &hm, &text);

			next = fmt_nomem(json_object_new_object());
			add_str(next, "dir", v[i + 1].d->dir);
			add_num(next, "margin_pct", hm, m);
			json_object_object_add(next, "relation",
			    json_object_new_string(rel));
			json_object_object_add(next, "text",
			    json_object_new_string(text));
			free(un);
			free(ln);
			free(text);
		}
		json_object_object_add(e, "next", next);
		json_object_array_add(arr, e);
	}
	free(v);
	return arr;
}

json_object *
capview_ranking(json_object *const *recs, int n)
{
	int m;
	const struct caprec *const *v = parse_all(recs, n, &m);
	json_object *r = capview_ranking_recs(v, m);

	free_all(v, m);
	return r;
}

json_object *
capview_json_recs(const struct caprec *const *recs, int n)
{
	json_object *o = NULL, *arr;

	if (n == 1) {
		if (json_object_deep_copy(recs[0]->json, &o, NULL) != 0)
			fmt_nomem(NULL);
		json_object_object_add(o, "ranking", capview_ranking_recs(recs,
		    n));
		return o;
	}
	o = fmt_nomem(json_object_new_object());
	arr = fmt_nomem(json_object_new_array());
	for (int i = 0; i < n; i++)
		json_object_array_add(arr, json_object_get(recs[i]->json));
	json_object_object_add(o, "records", arr);
	json_object_object_add(o, "ranking", capview_ranking_recs(recs, n));
	return o;
}

json_object *
capview_json(json_object *const *recs, int n)
{
	int m;
	const struct caprec *const *v = parse_all(recs, n, &m);
	json_object *j = capview_json_recs(v, m);

	free_all(v, m);
	return j;
}

/* ---------------------------------------------------------------- text */

/* A number with fmt, or "-" when absent. */
static char *
num(double x, const char *fmt)
{
	return !isnan(x) ? fmt_xprintf(fmt, x) : fmt_xstrdup("-");
}

static void
print_search(const struct caprec *rec, FILE *f)
{
	const struct caprec_search *s = &rec->search;
	const char *reason = rec->reason, *host = rec->host, *st = rec->state;
	char *id = fmt_xprintf("%" PRId64, rec->id), *a;
	char t0[64], t1[64];
	const char *started = rec->started, *ended = rec->ended;
	char *v[] = { num(s->start_rate, "%.0f"), num(s->max_rate, "%.0f"),
	    num(s->precision_pct, "%g"), num(s->step_min_s, "%g"),
	    num(s->step_max_s, "%g"), num(s->settle_s, "%g"),
	    num(s->latency_bound_s, "%g") };

	fprintf(f, "Capacity search %s: %s%s%s\n", id, st ? st : "-",
	    reason != NULL && *reason != '\0' ? ": " : "",
	    reason != NULL ? reason : "");
	fprintf(f, "  host %s, %s to %s\n", host ? host : "-",
	    started ? fmt_local_time(started, false, t0, sizeof(t0)) : "-",
	    ended ? fmt_local_time(ended, false, t1, sizeof(t1)) :
	    capview_state_ended(st) ? "-" : "(still running)");
	fprintf(f, "  rates %s to %s updates/s, precision %s %%, steps %s to "
	    "%s s (settle %s s),\n  latency bound %s s", v[0], v[1], v[2],
	    v[3], v[4], v[5], v[6]);
	for (size_t k = 0; k < sizeof(v) / sizeof(*v); k++)
		free(v[k]);
	a = rec->has_files ? fmt_xprintf("%" PRId64, rec->files) :
	    fmt_xstrdup("-");
	fprintf(f, ", %s files, sync %s\n", a, rec->sync != NULL ? rec->sync :
	    "-");
	free(a);
	free(id);
}

/* "  label         text" (label NULL: text from column at), text wrapped
 * at spaces to 79 columns, its next lines under its first. */
static void
print_wrapped(FILE *f, int at, const char *label, const char *text)
{
	int width = 79 - at;

	if (label != NULL)
		fprintf(f, "  %-*s", at - 2, label);
	else
		fprintf(f, "%*s", at, "");
	while (*text != '\0') {
		int n = (int)strlen(text);

		if (n > width) {
			for (n = width; n > 0 && text[n] != ' '; n--)
				;
			if (n == 0)
				n = width;
		}
		fprintf(f, "%.*s\n", n, text);
		text += n;
		while (*text == ' ')
			text++;
		if (*text != '\0')
			fprintf(f, "%*s", at, "");
	}
}

static void
print_para(FILE *f, const char *label, const char *text)
{
	print_wrapped(f, 16, label, text);
}

/* "the storage", "this machine's CPU", ... with what it means, and the
 * daemon's reason. */
static void
print_limit(const struct capdir *c, FILE *f)
{
	const char *why = c->d->limit_reason;
	const char *what = strcmp(c->limited, "storage") == 0 ?
	    "the storage" : strcmp(c->limited, "cpu") == 0 ? "this machine's "
	    "CPU: the figure is this machine's ceiling, not the storage's" :
	    strcmp(c->limited, "max_rate") == 0 ? "max_rate reached: the "
	    "storage may take more" : "unknown";
	char *t;

	if (*c->limited == '\0')
		return;
	t = fmt_xprintf("%s%s%s", what, why != NULL && *why != '\0' ?
	    " (" : "", why != NULL && *why != '\0' ? why : "");
	if (why != NULL && *why != '\0') {
		char *u = fmt_xprintf("%s)", t);

		free(t);
		t = u;
	}
	print_para(f, "limited by", t);
	free(t);
}

static void
print_dir(const struct capdir *c, int i, int nd, FILE *f)
{
	const struct caprec_figures *at = &c->d->at;
	const char *dir = c->d->dir, *fs = c->d->fs_type, *st = c->d->state;
	const char *br = c->d->behind_reason;
	char *a, *b;
	double iv;

	fprintf(f, "\nDirectory %d/%d %s (%s): %s\n", i + 1, nd,
	    dir ? dir : "-", fs ? fs : "-", st ? st : "-");
	if (c->has_cap) {
		a = capview_rate(c->cap);
		if (isnan(iv = c->d->capacity_interval_s))
			iv = c->rec->has_files && c->cap > 0 ?
			    (double)c->rec->files / c->cap : NAN;
		fprintf(f, "  capacity      %s updates/s", a);
		if (!isnan(iv)) {
			b = c->rec->has_files ? fmt_xprintf("%" PRId64,
			    c->rec->files) : fmt_xstrdup("-");
			fprintf(f, ": each of the %s files updated every %.3g s",
			    b, iv);
			free(b);
		}
		fputc('\n', f);
		free(a);
	} else
		fprintf(f, "  capacity      - (%s)\n", c->has_behind ?
		    "it did not keep up even at the first rate" :
		    "no step finished");
	if (c->d->has_at) {
		char *v[] = { num(at->queue_avg, "%.2f"),
		    num(at->queue_p99, "%.0f"), num(at->latency_p99_ms, "%.1f"),
		    num(at->cpu_writers_pct, "%.0f"),
		    num(at->cpu_process_pct, "%.0f") };

		fprintf(f, "  at capacity   queue avg %s, p99 %s; latency p99 %s "
		    "ms;\n                CPU: writers %s %% of a CPU each, the "
		    "process %s %% of all\n", v[0], v[1], v[2], v[3], v[4]);
		for (size_t k = 0; k < sizeof(v) / sizeof(*v); k++)
			free(v[k]);
	}
	if ((a = capspread_text(c->d)) != NULL)
		print_para(f, "over repeats", a);
	free(a);
	if (c->has_behind) {
		a = capview_rate(c->behind);
		b = fmt_xprintf("at %s updates/s%s%s", a, br != NULL &&
		    *br != '\0' ? ": " : "", br ? br : "");
		print_para(f, "fell behind", b);
		free(a);
		free(b);
	}
	print_limit(c, f);
	if ((a = capspread_grid_text(c->d)) != NULL)
		print_para(f, "grid", a);
	free(a);
}

/* The ranking, one line per directory, the relation to the next between
 * them. */
static void
print_ranking(const struct caprec *const *recs, int n, FILE *f)
{
	size_t nd;
	struct capdir *v = collect(recs, n, &nd);

	fprintf(f, "\nRanking (highest sustained rate first)\n");
	for (size_t i = 0; i < nd; i++) {
		char *name = dir_name(recs, n, &v[i]), *cap, *beh, *text = NULL;

		/* The ranking's next.text, as --json gives it. */
		if (i + 1 < nd) {
			char *ln = dir_name(recs, n, &v[i + 1]);
			double m;
			bool hm;

			relation(&v[i], &v[i + 1], name, ln, &m, &hm, &text);
			free(ln);
		}

		cap = v[i].has_cap ? capview_rate(v[i].cap) :
		    fmt_xstrdup("-");
		beh = v[i].has_behind ? capview_rate(v[i].behind) :
		    fmt_xstrdup("-");
		fprintf(f, "  %zu. %s  %s updates/s%s%s%s%s\n",
		    i + 1, name, cap, v[i].has_behind ? " (fell behind at " :
		    "", v[i].has_behind ? beh : "", v[i].has_behind ? ")" : "",
		    is_ceiling(&v[i]) ?
		    strcmp(v[i].limited, "cpu") == 0 ? "  [CPU-limited]" :
		    "  [max_rate]" : "");
		if (text != NULL)
			print_wrapped(f, 7, NULL, text);
		free(text);
		free(name);
		free(cap);
		free(beh);
	}
	free(v);
}

void
capview_step_line_rec(const struct caprec *rec, const struct caprec_step *s,
    FILE *f)
{
	const char *phase = s->phase, *st = s->state;
	char *rate = capview_rate(s->rate), *qa, *lat, *line;
	int at;

	qa = num(s->f.queue_avg, "%.2f");
	/* Whole milliseconds from 100 on: the line stays in 80 columns. */
	lat = num(s->f.latency_p99_ms, s->f.latency_p99_ms >= 100 ? "%.0f" :
	    "%.1f");
	at = fprintf(f, "dir %.0f/%zu  ", (double)s->dir_index + 1, rec->ndirs);
	line = fmt_xprintf("step %" PRId64 "  %-6s %7s/s  %-11s  queue avg "
	    "%s  lat p99 %s ms%s%s%s", s->n, phase ? phase : "-", rate,
	    s->kept_up < 0 ? "cannot tell" : s->kept_up ? "kept up" :
	    "fell behind", qa, lat,
	    s->cpu_limited == 1 ? "  [CPU-limited]" : "", st != NULL &&
	    strcmp(st, "done") != 0 ? "  " : "", st != NULL &&
	    strcmp(st, "done") != 0 ? st : "");
	/* Past the width, the rest goes under the step, not off screen. */
	columns_wrap(f, line, at > 0 ? (size_t)at : 0);
	putc('\n', f);
	free(line);
	free(rate);
	free(qa);
	free(lat);
}

void
capview_print_recs(const struct caprec *const *recs, int n, bool steps,
    FILE *f)
{
	size_t nd;
	struct capdir *v;

	for (int i = 0; i < n; i++) {
		int m = (int)recs[i]->ndirs;

		if (i > 0)
			fputc('\n', f);
		print_search(recs[i], f);
		if (steps && recs[i]->nsteps > 0) {
			fputc('\n', f);
			for (size_t s = 0; s < recs[i]->nsteps; s++)
				capview_step_line_rec(recs[i],
				    &recs[i]->steps[s], f);
		}
		/* In the record's order, not the ranking's. */
		v = collect(&recs[i], 1, &nd);
		for (int d = 0; d < m; d++)
			for (size_t k = 0; k < nd; k++)
				if (v[k].d == &recs[i]->dirs[d])
					print_dir(&v[k], d, m, f);
		free(v);
	}
	v = collect(recs, n, &nd);
	free(v);
	if (nd > 1)
		print_ranking(recs, n, f);
}

void
capview_print(json_object *const *recs, int n, bool steps, FILE *f)
{
	int m;
	const struct caprec *const *v = parse_all(recs, n, &m);

	capview_print_recs(v, m, steps, f);
	free_all(v, m);
}

/* Rows: a string (fmt NULL) or number at off in struct caprec_dir. */
static const struct cmp_row {
	const char	*label;
	size_t		 off;
	const char	*fmt;
} cmp_rows[] = {
	{ "filesystem", offsetof(struct caprec_dir, fs_type), NULL },
	{ "state", offsetof(struct caprec_dir, state), NULL },
	{ "capacity (updates/s)", offsetof(struct caprec_dir, capacity_rate),
	    "%.0f" },
	{ "each file every (s)", offsetof(struct caprec_dir,
	    capacity_interval_s), "%.3g" },
	{ "queue avg", offsetof(struct caprec_dir, at.queue_avg), "%.2f" },
	{ "queue p99", offsetof(struct caprec_dir, at.queue_p99), "%.0f" },
	{ "latency p99 (ms)", offsetof(struct caprec_dir, at.latency_p99_ms),
	    "%.1f" },
	{ "fell behind at", offsetof(struct caprec_dir, behind_rate), "%.0f" },
	{ "limited by", offsetof(struct caprec_dir, limited_by), NULL },
};

/* One row of the side-by-side table: label, then a cell per directory. */
static void
compare_row(struct columns *t, const struct cmp_row *row,
    const struct capdir *v, size_t nd)
{
	columns_add(t, "%s", row->label);
	for (size_t i = 0; i < nd; i++) {
		const char *base = (const char *)v[i].d + row->off;

		if (row->fmt == NULL) {
			const char *x = *(const char *const *)(const void *)
			    base;

			columns_add(t, "%s", x != NULL ? x : "-");
		} else {
			char *c = num(*(const double *)(const void *)base,
			    row->fmt);

			columns_add(t, "%s", c);
			free(c);
		}
	}
}

void
capview_compare_recs(const struct caprec *const *recs, int n, FILE *f)
{
	size_t nd;
	struct capdir *v = collect(recs, n, &nd);
	char *align = fmt_nomem(calloc(nd + 2, 1));
	struct columns *t;

	align[0] = 'l';
	memset(align + 1, 'r', nd);
	t = columns_new(align);
	columns_add(t, "%s", "");
	for (size_t i = 0; i < nd; i++) {
		char *name = dir_name(recs, n, &v[i]);

		columns_add(t, "%s", name);
		free(name);
	}
	for (size_t r = 0; r < sizeof(cmp_rows) / sizeof(*cmp_rows); r++)
		compare_row(t, &cmp_rows[r], v, nd);
	fprintf(f, "Capacity of %zu directories in %d record%s, highest "
	    "first\n\n", nd, n, n == 1 ? "" : "s");
	columns_print(t, f, 0);
	columns_free(t);
	free(align);
	free(v);
	if (nd > 1)
		print_ranking(recs, n, f);
}

void
capview_compare(json_object *const *recs, int n, FILE *f)
{
	int m;
	const struct caprec *const *v = parse_all(recs, n, &m);

	capview_compare_recs(v, m, f);
	free_all(v, m);
}
