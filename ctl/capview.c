/* The view of capacity records: directories, steps and the ranking (see
 * capview.h).  A missing key shows as "-", so older or newer records
 * still read. */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "capview.h"
#include "columns.h"
#include "fmt.h"
#include "jpath.h"

/* One directory of one record, as the ranking sees it. */
struct capdir {
	json_object	*rec, *d;
	double		 cap, behind, prec;
	bool		 has_cap, has_behind;
	const char	*limited;	/* limited_by, or "" */
};

const char *
capview_host(json_object *rec)
{
	const char *h = jpath_str(rec, "host");

	/* The contract's "host", or the daemon's machine.name. */
	return h != NULL ? h : jpath_str(rec, "machine.name");
}

bool
capview_is_record(json_object *o)
{
	const char *s = jpath_str(o, "schema");

	return json_object_is_type(o, json_type_object) && s != NULL &&
	    strcmp(s, CAPVIEW_SCHEMA) == 0;
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
collect(json_object *const *recs, int n, size_t *nd)
{
	struct capdir *v = NULL;
	size_t cap = 0;

	*nd = 0;
	for (int i = 0; i < n; i++) {
		json_object *dirs = jpath(recs[i], "dirs");
		double prec;

		if (!jpath_num(recs[i], "search.precision_pct", &prec))
			prec = 10;
		for (size_t k = 0; json_object_is_type(dirs, json_type_array) &&
		    k < json_object_array_length(dirs); k++) {
			struct capdir *c;
			const char *l;

			v = fmt_grow(v, &cap, *nd, sizeof(*v));
			c = &v[(*nd)++];
			c->rec = recs[i];
			c->d = json_object_array_get_idx(dirs, k);
			c->prec = prec;
			c->has_cap = jpath_num(c->d, "capacity_rate", &c->cap);
			c->has_behind = jpath_num(c->d, "behind_rate",
			    &c->behind);
			l = jpath_str(c->d, "limited_by");
			c->limited = l != NULL ? l : "";
		}
	}
	if (*nd > 1)
		qsort(v, *nd, sizeof(*v), by_capacity);
	return v;
}

/* "label" if any, else "dir", with the host when the records come from
 * several. */
static char *
dir_name(const struct capdir *c, bool hosts)
{
	const char *label = jpath_str(c->d, "label");
	const char *dir = jpath_str(c->d, "dir");
	const char *host = capview_host(c->rec);
	const char *name = label != NULL && *label != '\0' ? label :
	    dir != NULL ? dir : "-";

	if (hosts && host != NULL)
		return fmt_xprintf("%s:%s", host, name);
	return fmt_xstrdup(name);
}

/* Whether the records come from more than one host. */
static bool
several_hosts(json_object *const *recs, int n)
{
	for (int i = 1; i < n; i++) {
		const char *a = capview_host(recs[0]);
		const char *b = capview_host(recs[i]);

		if (a == NULL || b == NULL || strcmp(a, b) != 0)
			return true;
	}
	return false;
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
		    "its limit (%s)", ln, jpath_str(l->d, "state") != NULL ?
		    jpath_str(l->d, "state") : "no state");
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
add_from(json_object *o, const char *key, json_object *src, const char *path)
{
	json_object_object_add(o, key, json_object_get(jpath(src, path)));
}

json_object *
capview_ranking(json_object *const *recs, int n)
{
	json_object *arr = fmt_nomem(json_object_new_array());
	bool hosts = several_hosts(recs, n);
	size_t nd;
	struct capdir *v = collect(recs, n, &nd);

	for (size_t i = 0; i < nd; i++) {
		json_object *e = fmt_nomem(json_object_new_object());
		json_object *next = NULL;

		json_object_object_add(e, "rank", json_object_new_int64(
		    (int64_t)i + 1));
		add_from(e, "id", v[i].rec, "id");
		json_object_object_add(e, "host", capview_host(v[i].rec) ?
		    json_object_new_string(capview_host(v[i].rec)) : NULL);
		add_from(e, "dir", v[i].d, "dir");
		add_from(e, "label", v[i].d, "label");
		add_from(e, "fs_type", v[i].d, "fs_type");
		add_num(e, "capacity_rate", v[i].has_cap, v[i].cap);
		add_num(e, "behind_rate", v[i].has_behind, v[i].behind);
		add_from(e, "limited_by", v[i].d, "limited_by");
		json_object_object_add(e, "precision_pct",
		    json_object_new_double(v[i].prec));
		if (i + 1 < nd) {
			char *un = dir_name(&v[i], hosts);
			char *ln = dir_name(&v[i + 1], hosts), *text;
			double m;
			bool hm;
			const char *rel = relation(&v[i], &v[i + 1], un, ln,
			    &m, &hm, &text);

			next = fmt_nomem(json_object_new_object());
			add_from(next, "dir", v[i + 1].d, "dir");
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
capview_json(json_object *const *recs, int n)
{
	json_object *o = NULL, *arr;

	if (n == 1) {
		if (json_object_deep_copy(recs[0], &o, NULL) != 0)
			fmt_nomem(NULL);
		json_object_object_add(o, "ranking", capview_ranking(recs, n));
		return o;
	}
	o = fmt_nomem(json_object_new_object());
	arr = fmt_nomem(json_object_new_array());
	for (int i = 0; i < n; i++)
		json_object_array_add(arr, json_object_get(recs[i]));
	json_object_object_add(o, "records", arr);
	json_object_object_add(o, "ranking", capview_ranking(recs, n));
	return o;
}

/* ---------------------------------------------------------------- text */

/* A number at path with fmt, or "-". */
static char *
num(json_object *o, const char *path, const char *fmt)
{
	double x;

	return jpath_num(o, path, &x) ? fmt_xprintf(fmt, x) :
	    fmt_xstrdup("-");
}

static void
print_search(json_object *rec, FILE *f)
{
	json_object *s = jpath(rec, "search");
	const char *reason = jpath_str(rec, "reason");
	const char *host = capview_host(rec);
	const char *st = jpath_str(rec, "state");
	char *id = jpath_text(rec, "id", NULL), *a, *b, *c, *d, *e, *g, *h;
	char t0[64], t1[64];
	const char *started = jpath_str(rec, "started");
	const char *ended = jpath_str(rec, "ended");

	fprintf(f, "Capacity search %s: %s%s%s\n", id, st ? st : "-",
	    reason != NULL && *reason != '\0' ? ": " : "",
	    reason != NULL ? reason : "");
	fprintf(f, "  host %s, %s to %s\n", host ? host : "-",
	    started ? fmt_local_time(started, false, t0, sizeof(t0)) : "-",
	    ended ? fmt_local_time(ended, false, t1, sizeof(t1)) :
	    capview_state_ended(st) ? "-" : "(still running)");
	a = num(s, "start_rate", "%.0f");
	b = num(s, "max_rate", "%.0f");
	c = num(s, "precision_pct", "%g");
	d = num(s, "step_min_s", "%g");
	e = num(s, "step_max_s", "%g");
	g = num(s, "settle_s", "%g");
	h = num(s, "latency_bound_s", "%g");
	fprintf(f, "  rates %s to %s updates/s, precision %s %%, steps %s to "
	    "%s s (settle %s s),\n  latency bound %s s", a, b, c, d, e, g, h);
	free(a);
	free(b);
	free(c);
	free(d);
	free(e);
	free(g);
	free(h);
	a = jpath_text(rec, "params.files", NULL);
	b = jpath_text(rec, "params.sync", NULL);
	fprintf(f, ", %s files, sync %s\n", a, b);
	free(a);
	free(b);
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
	const char *why = jpath_str(c->d, "limit_reason");
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
	json_object *at = jpath(c->d, "at_capacity");
	const char *dir = jpath_str(c->d, "dir"), *fs = jpath_str(c->d,
	    "fs_type"), *st = jpath_str(c->d, "state");
	const char *br = jpath_str(c->d, "behind_reason");
	char *a, *b, *e, *g, *h;
	double iv, files;

	fprintf(f, "\nDirectory %d/%d %s (%s): %s\n", i + 1, nd,
	    dir ? dir : "-", fs ? fs : "-", st ? st : "-");
	if (c->has_cap) {
		a = capview_rate(c->cap);
		if (!jpath_num(c->d, "capacity_interval_s", &iv))
			iv = jpath_num(c->rec, "params.files", &files) &&
			    c->cap > 0 ? files / c->cap : NAN;
		fprintf(f, "  capacity      %s updates/s", a);
		if (!isnan(iv)) {
			b = jpath_text(c->rec, "params.files", NULL);
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
	if (json_object_is_type(at, json_type_object)) {
		a = num(at, "queue_avg", "%.2f");
		b = num(at, "queue_p99", "%.0f");
		e = num(at, "latency_p99_ms", "%.1f");
		g = num(at, "cpu_writers_pct", "%.0f");
		h = num(at, "cpu_process_pct", "%.0f");
		fprintf(f, "  at capacity   queue avg %s, p99 %s; latency p99 %s "
		    "ms;\n                CPU: writers %s %% of a CPU each, the "
		    "process %s %% of all\n", a, b, e, g, h);
		free(a);
		free(b);
		free(e);
		free(g);
		free(h);
	}
	if (c->has_behind) {
		a = capview_rate(c->behind);
		b = fmt_xprintf("at %s updates/s%s%s", a, br != NULL &&
		    *br != '\0' ? ": " : "", br ? br : "");
		print_para(f, "fell behind", b);
		free(a);
		free(b);
	}
	print_limit(c, f);
}

/* The ranking, one line per directory, the relation to the next between
 * them. */
static void
print_ranking(json_object *const *recs, int n, FILE *f)
{
	json_object *r = capview_ranking(recs, n);
	bool hosts = several_hosts(recs, n);
	size_t nd;
	struct capdir *v = collect(recs, n, &nd);

	fprintf(f, "\nRanking (highest sustained rate first)\n");
	for (size_t i = 0; i < nd; i++) {
		json_object *e = json_object_array_get_idx(r, i);
		char *name = dir_name(&v[i], hosts), *cap, *beh;
		const char *text = jpath_str(e, "next.text");

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
		free(name);
		free(cap);
		free(beh);
	}
	free(v);
	json_object_put(r);
}

void
capview_step_line(json_object *rec, json_object *step, FILE *f)
{
	json_object *dirs = jpath(rec, "dirs");
	int nd = json_object_is_type(dirs, json_type_array) ?
	    (int)json_object_array_length(dirs) : 0;
	json_object *k = jpath(step, "kept_up");
	const char *phase = jpath_str(step, "phase");
	const char *st = jpath_str(step, "state");
	char *n = jpath_text(step, "n", NULL), *rate, *qa, *lat;
	double di = jpath_num0(step, "dir_index"), r;

	rate = jpath_num(step, "rate", &r) ? capview_rate(r) :
	    fmt_xstrdup("-");
	qa = num(step, "queue_avg", "%.2f");
	lat = num(step, "latency_p99_ms", "%.1f");
	fprintf(f, "dir %.0f/%d  step %s  %-6s %8s/s  %-11s  queue avg %s  "
	    "latency p99 %s ms%s%s%s\n", di + 1, nd, n, phase ? phase : "-",
	    rate, !json_object_is_type(k, json_type_boolean) ?
	    "cannot tell" : json_object_get_boolean(k) ? "kept up" :
	    "fell behind", qa, lat, json_object_get_boolean(jpath(step,
	    "cpu_limited")) ? "  [CPU-limited]" : "", st != NULL &&
	    strcmp(st, "done") != 0 ? "  " : "", st != NULL &&
	    strcmp(st, "done") != 0 ? st : "");
	free(n);
	free(rate);
	free(qa);
	free(lat);
}

void
capview_print(json_object *const *recs, int n, bool steps, FILE *f)
{
	size_t nd;
	struct capdir *v;

	for (int i = 0; i < n; i++) {
		json_object *dirs = jpath(recs[i], "dirs");
		json_object *st = jpath(recs[i], "steps");
		int m = json_object_is_type(dirs, json_type_array) ?
		    (int)json_object_array_length(dirs) : 0;

		if (i > 0)
			fputc('\n', f);
		print_search(recs[i], f);
		if (steps && json_object_is_type(st, json_type_array) &&
		    json_object_array_length(st) > 0) {
			fputc('\n', f);
			for (size_t s = 0; s < json_object_array_length(st);
			    s++)
				capview_step_line(recs[i],
				    json_object_array_get_idx(st, s), f);
		}
		/* In the record's order, not the ranking's. */
		v = collect(&recs[i], 1, &nd);
		for (int d = 0; d < m; d++)
			for (size_t k = 0; k < nd; k++)
				if (v[k].d == json_object_array_get_idx(dirs,
				    (size_t)d))
					print_dir(&v[k], d, m, f);
		free(v);
	}
	v = collect(recs, n, &nd);
	free(v);
	if (nd > 1)
		print_ranking(recs, n, f);
}

/* One row of the side-by-side table: label, then a cell per directory. */
static void
compare_row(struct columns *t, const char *label, const struct capdir *v,
    size_t nd, const char *path, const char *fmt)
{
	columns_add(t, "%s", label);
	for (size_t i = 0; i < nd; i++) {
		json_object *x = jpath(v[i].d, path);

		if (json_object_is_type(x, json_type_string))
			columns_add(t, "%s", json_object_get_string(x));
		else {
			char *c = num(v[i].d, path, fmt);

			columns_add(t, "%s", c);
			free(c);
		}
	}
}

void
capview_compare(json_object *const *recs, int n, FILE *f)
{
	static const char *const rows[][3] = {
		{ "filesystem", "fs_type", NULL },
		{ "state", "state", NULL },
		{ "capacity (updates/s)", "capacity_rate", "%.0f" },
		{ "each file every (s)", "capacity_interval_s", "%.3g" },
		{ "queue avg", "at_capacity.queue_avg", "%.2f" },
		{ "queue p99", "at_capacity.queue_p99", "%.0f" },
		{ "latency p99 (ms)", "at_capacity.latency_p99_ms", "%.1f" },
		{ "fell behind at", "behind_rate", "%.0f" },
		{ "limited by", "limited_by", NULL },
	};
	bool hosts = several_hosts(recs, n);
	size_t nd;
	struct capdir *v = collect(recs, n, &nd);
	char *align = fmt_nomem(calloc(nd + 2, 1));
	struct columns *t;

	align[0] = 'l';
	memset(align + 1, 'r', nd);
	t = columns_new(align);
	columns_add(t, "%s", "");
	for (size_t i = 0; i < nd; i++) {
		char *name = dir_name(&v[i], hosts);

		columns_add(t, "%s", name);
		free(name);
	}
	for (size_t r = 0; r < sizeof(rows) / sizeof(*rows); r++)
		compare_row(t, rows[r][0], v, nd, rows[r][1], rows[r][2]);
	fprintf(f, "Capacity of %zu directories in %d record%s, highest "
	    "first\n\n", nd, n, n == 1 ? "" : "s");
	columns_print(t, f, 0);
	columns_free(t);
	free(align);
	free(v);
	if (nd > 1)
		print_ranking(recs, n, f);
}
