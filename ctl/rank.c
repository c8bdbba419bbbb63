/* The ranking of compare and sweep: candidates, their spread, Welch's
 * t-test, the winner or why there is none. */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "columns.h"
#include "jpath.h"
#include "output.h"
#include "rank.h"
#include "verdicts.h"

/* Student's t, two-sided 95 % (the 0.975 quantile), by degrees of
 * freedom; the standard table's rows. */
static const struct { double df, t; } t_table[] = {
	{ 1, 12.706 }, { 2, 4.303 }, { 3, 3.182 }, { 4, 2.776 },
	{ 5, 2.571 }, { 6, 2.447 }, { 7, 2.365 }, { 8, 2.306 },
	{ 9, 2.262 }, { 10, 2.228 }, { 11, 2.201 }, { 12, 2.179 },
	{ 13, 2.160 }, { 14, 2.145 }, { 15, 2.131 }, { 16, 2.120 },
	{ 17, 2.110 }, { 18, 2.101 }, { 19, 2.093 }, { 20, 2.086 },
	{ 21, 2.080 }, { 22, 2.074 }, { 23, 2.069 }, { 24, 2.064 },
	{ 25, 2.060 }, { 26, 2.056 }, { 27, 2.052 }, { 28, 2.048 },
	{ 29, 2.045 }, { 30, 2.042 }, { 40, 2.021 }, { 60, 2.000 },
	{ 120, 1.980 },
};
#define T_INF	1.960
#define NT	(sizeof(t_table) / sizeof(*t_table))

double
rank_t_crit(double df)
{
	if (df <= 1)
		return t_table[0].t;
	for (size_t i = 1; i < NT; i++)
		if (df <= t_table[i].df) {
			/* The quantile is close to linear in 1/df. */
			double a = 1 / t_table[i - 1].df, b = 1 / t_table[i].df;

			return t_table[i - 1].t + (t_table[i].t -
			    t_table[i - 1].t) * (a - 1 / df) / (a - b);
		}
	return t_table[NT - 1].t + (T_INF - t_table[NT - 1].t) *
	    (1 / t_table[NT - 1].df - 1 / df) / (1 / t_table[NT - 1].df);
}

bool
rank_welch(double m1, double s1, int n1, double m2, double s2, int n2,
    double *t, double *df)
{
	double v1 = s1 * s1 / n1, v2 = s2 * s2 / n2, se = sqrt(v1 + v2);

	if (se == 0) {
		*t = 0;
		*df = 0;
		return m1 != m2;
	}
	*t = fabs(m1 - m2) / se;
	*df = (v1 + v2) * (v1 + v2) / (v1 * v1 / (n1 - 1) + v2 * v2 /
	    (n2 - 1));
	return *t > rank_t_crit(*df);
}

/* ---------------------------------------------------------------- build */

struct cand {
	const char	*name;
	json_object	*runs;		/* run ids */
	int		 n, nruns, kept, behind, unsure, old;
	double		 sum, sq, mean, sd;
};

static void
count_run(struct cand *c, json_object *rep, double *vals)
{
	json_object *k = jpath(rep, "verdict.kept_up");
	const char *state = jpath_str(rep, "state");
	double x;

	c->nruns++;
	json_object_array_add(c->runs, json_object_get(jpath(rep, "run_id")));
	if (!json_object_is_type(jpath(rep, "verdict"), json_type_object))
		c->old++;
	else if (!json_object_is_type(k, json_type_boolean))
		c->unsure++;
	else if (json_object_get_boolean(k))
		c->kept++;
	else
		c->behind++;
	/* A stopped or failed run's average covers a part of the load. */
	if (state != NULL && strcmp(state, "done") == 0 &&
	    jpath_num(rep, RANK_METRIC, &x))
		vals[c->n++] = x;
}

static int
by_mean(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if ((x->n == 0) != (y->n == 0))
		return x->n == 0 ? 1 : -1;
	return (x->mean > y->mean) - (x->mean < y->mean);
}

/* Group the runs; the candidates sorted by mean (none last). */
static struct cand *
group(json_object **reps, char *const *cand, int n, int *ncand)
{
	struct cand *c = output_nomem(calloc((size_t)n, sizeof(*c)));
	double *vals = output_nomem(calloc((size_t)n, sizeof(*vals)));
	int nc = 0;

	for (int i = 0; i < n; i++) {
		struct cand *e = &c[nc];
		int k;

		for (k = 0; k < nc && strcmp(c[k].name, cand[i]) != 0; k++)
			;
		if (k < nc)
			continue;	/* counted with its first run */
		e->name = cand[i];
		e->runs = output_nomem(json_object_new_array());
		for (int j = i; j < n; j++)
			if (strcmp(cand[j], cand[i]) == 0)
				count_run(e, reps[j], vals);
		for (int v = 0; v < e->n; v++)
			e->sum += vals[v];
		e->mean = e->n ? e->sum / e->n : 0;
		for (int v = 0; v < e->n; v++)
			e->sq += (vals[v] - e->mean) * (vals[v] - e->mean);
		e->sd = e->n > 1 ? sqrt(e->sq / (e->n - 1)) : 0;
		nc++;
	}
	free(vals);
	qsort(c, (size_t)nc, sizeof(*c), by_mean);
	*ncand = nc;
	return c;
}

static json_object *
cand_json(const struct cand *c)
{
	json_object *o = output_nomem(json_object_new_object());

	json_object_object_add(o, "label", json_object_new_string(c->name));
	json_object_object_add(o, "runs", c->runs);
	json_object_object_add(o, "n", json_object_new_int(c->n));
	json_object_object_add(o, "mean", c->n ?
	    json_object_new_double(c->mean) : NULL);
	json_object_object_add(o, "stddev", c->n > 1 ?
	    json_object_new_double(c->sd) : NULL);
	json_object_object_add(o, "kept_up", json_object_new_int(c->kept));
	json_object_object_add(o, "fell_behind",
	    json_object_new_int(c->behind));
	json_object_object_add(o, "cannot_tell",
	    json_object_new_int(c->unsure));
	json_object_object_add(o, "no_verdict", json_object_new_int(c->old));
	json_object_object_add(o, "left_out",
	    json_object_new_int(c->nruns - c->n));
	return o;
}

/* "A has 1 run, B has 2 runs" of the candidates short of the test. */
static char *
too_few(const struct cand *c, int nc)
{
	char *s = output_xstrdup(""), *more;

	for (int i = 0; i < nc; i++) {
		if (c[i].n >= RANK_MIN_RUNS)
			continue;
		more = output_xprintf("%s%s%s has %d done run%s", s,
		    *s ? ", " : "", c[i].name, c[i].n, c[i].n == 1 ? "" : "s");
		free(s);
		s = more;
	}
	return s;
}

/* The names of the candidates tied with the best, "A and B", "A, B and
 * C". */
static char *
names_of(const struct cand *c, const bool *in, int nc)
{
	char *s = output_xstrdup(""), *more;
	int total = 0, k = 0;

	for (int i = 0; i < nc; i++)
		total += in[i];
	for (int i = 0; i < nc; i++) {
		if (!in[i])
			continue;
		k++;
		more = output_xprintf("%s%s%s", s, k == 1 ? "" : k == total ?
		    " and " : ", ", c[i].name);
		free(s);
		s = more;
	}
	return s;
}

/* The sentence that closes the ranking; tie[i]: not told apart from the
 * best (the best included). */
static char *
reason(const struct cand *c, int nc, bool judged, const bool *tie,
    bool all_kept)
{
	const char *kept = all_kept ? "  Every run kept up: at this load each "
	    "candidate is good enough; the ranking says only which had the "
	    "shorter queue." : "";
	char *s, *a, *b;
	int ntie = 0;

	for (int i = 0; i < nc; i++)
		ntie += tie[i];
	if (nc < 2)
		return output_xprintf("Only one candidate%s%s: nothing to rank "
		    "it against.%s", nc ? ", " : "", nc ? c[0].name : "", kept);
	if (!judged) {
		a = too_few(c, nc);
		s = output_xprintf("The difference cannot be judged: %s, and a "
		    "difference is called only when it exceeds the run-to-run "
		    "spread, which takes at least %d done runs of each.  Run "
		    "each at least %d times: stressctl sweep --repeat %d (or "
		    "start the repeats with the same --label).%s", a,
		    RANK_MIN_RUNS, RANK_MIN_RUNS, RANK_MIN_RUNS, kept);
		free(a);
		return s;
	}
	if (ntie == 1)
		return output_xprintf("Winner: %s: its significant queue "
		    "average is lower than every other candidate's by more "
		    "than the run-to-run spread explains.%s", c[0].name, kept);
	a = names_of(c, tie, nc);
	if (ntie == nc)
		s = output_xprintf("No winner: %s cannot be told apart: the "
		    "differences are within the run-to-run spread.%s", a,
		    kept);
	else {
		bool *rest = output_nomem(calloc((size_t)nc, sizeof(*rest)));

		for (int i = 0; i < nc; i++)
			rest[i] = !tie[i];
		b = names_of(c, rest, nc);
		s = output_xprintf("No single winner: %s cannot be told apart "
		    "(within the run-to-run spread); each beats %s.%s", a, b,
		    kept);
		free(b);
		free(rest);
	}
	free(a);
	return s;
}

/* The best against each other candidate, into their JSON; tie[i] set
 * for those not told apart from it. */
static void
test_pairs(const struct cand *c, int nc, json_object *list, bool *tie)
{
	tie[0] = true;
	for (int i = 1; i < nc; i++) {
		json_object *o = output_nomem(json_object_new_object());
		double t, df;
		bool diff = rank_welch(c[0].mean, c[0].sd, c[0].n, c[i].mean,
		    c[i].sd, c[i].n, &t, &df);

		tie[i] = !diff;
		json_object_object_add(o, "t", json_object_new_double(t));
		json_object_object_add(o, "df", json_object_new_double(df));
		json_object_object_add(o, "t_crit", df > 0 ?
		    json_object_new_double(rank_t_crit(df)) : NULL);
		json_object_object_add(o, "different",
		    json_object_new_boolean(diff));
		json_object_object_add(json_object_array_get_idx(list,
		    (size_t)i), "vs_best", o);
	}
}

json_object *
rank_build(json_object **reps, char *const *cand, int n)
{
	json_object *o = output_nomem(json_object_new_object());
	json_object *list = output_nomem(json_object_new_array());
	struct cand *c;
	bool judged, winner, all_kept = true, *tie;
	int nc;
	char *why;

	c = group(reps, cand, n, &nc);
	tie = output_nomem(calloc((size_t)nc + 1, sizeof(*tie)));
	judged = nc >= 2;
	for (int i = 0; i < nc; i++) {
		judged = judged && c[i].n >= RANK_MIN_RUNS;
		all_kept = all_kept && c[i].kept == c[i].nruns;
		json_object_array_add(list, cand_json(&c[i]));
	}
	if (judged)
		test_pairs(c, nc, list, tie);
	winner = judged;
	json_object_object_add(o, "metric", json_object_new_string(
	    RANK_METRIC));
	json_object_object_add(o, "lower_is_better",
	    json_object_new_boolean(1));
	json_object_object_add(o, "test", json_object_new_string("welch_t"));
	json_object_object_add(o, "confidence", json_object_new_double(0.95));
	json_object_object_add(o, "min_runs", json_object_new_int(
	    RANK_MIN_RUNS));
	json_object_object_add(o, "candidates", list);
	json_object_object_add(o, "judged", json_object_new_boolean(judged));
	for (int i = 1; i < nc; i++)
		winner = winner && !tie[i];
	json_object_object_add(o, "winner", winner ?
	    json_object_new_string(c[0].name) : NULL);
	json_object_object_add(o, "all_kept_up",
	    json_object_new_boolean(all_kept && n > 0));
	why = reason(c, nc, judged, tie, all_kept && n > 0);
	json_object_object_add(o, "reason", json_object_new_string(why));
	free(why);
	free(tie);
	free(c);
	return o;
}

/* ---------------------------------------------------------------- text */

/* "3 runs: 2 kept up, 1 fell behind" of candidate o. */
static char *
counts_text(json_object *o)
{
	static const char *const keys[][2] = {
		{ "kept_up", "kept up" }, { "fell_behind", "fell behind" },
		{ "cannot_tell", "cannot tell" }, { "no_verdict", "no verdict" },
		{ "left_out", "not done, left out" },
	};
	double n = 0, total = 0, x;
	char *s, *more;

	for (size_t k = 0; k < 4; k++)
		if (jpath_num(o, keys[k][0], &x))
			total += x;
	s = output_xprintf("%.0f run%s:", total, total == 1 ? "" : "s");
	for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
		if (!jpath_num(o, keys[k][0], &x) || x == 0)
			continue;
		more = output_xprintf("%s%s %.0f %s", s, n++ ? "," : "", x,
		    keys[k][1]);
		free(s);
		s = more;
	}
	return s;
}

void
rank_print(json_object *r)
{
	json_object *list = jpath(r, "candidates");
	size_t nc = json_object_is_type(list, json_type_array) ?
	    json_object_array_length(list) : 0;
	const char *best = NULL;
	struct columns *t = columns_new("lrll");
	double n, m, sd, x, df;

	printf("\nRanking by significant queue average (lower is better; "
	    "Welch's t-test at\n95 %%, at least %d done runs each)\n",
	    RANK_MIN_RUNS);
	for (size_t i = 0; i < nc; i++) {
		json_object *o = json_object_array_get_idx(list, i);
		char *cnt = counts_text(o);

		columns_add(t, "%s", jpath_str(o, "label"));
		if (i == 0)
			best = jpath_str(o, "label");
		if (!jpath_num(o, "n", &n) || n == 0 ||
		    !jpath_num(o, "mean", &m))
			columns_add(t, "-");
		else if (!jpath_num(o, "stddev", &sd))
			columns_add(t, "%.2f", m);
		else
			columns_add(t, "%.2f +- %.2f", m, sd);
		columns_add(t, "%s", cnt);
		free(cnt);
		if (jpath(o, "vs_best") == NULL)
			columns_add(t, "%s", "");
		else if (!jpath_num(o, "vs_best.t", &x) ||
		    !jpath_num(o, "vs_best.df", &df) || df == 0)
			columns_add(t, json_object_get_boolean(jpath(o,
			    "vs_best.different")) ? "worse than %s (no spread)" :
			    "the same as %s", best);
		else if (json_object_get_boolean(jpath(o, "vs_best.different")))
			columns_add(t, "worse than %s (t %.2f > %.2f)", best, x,
			    rank_t_crit(df));
		else
			columns_add(t, "not told apart from %s (t %.2f <= %.2f)",
			    best, x, rank_t_crit(df));
	}
	columns_print(t, stdout, 2);
	columns_free(t);
	verdicts_wrap(jpath_str(r, "reason") ? jpath_str(r, "reason") : "", 0);
}
