/* The ranking of compare and sweep: candidates, their spread, Welch's
 * t-test, the winner or why there is none. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "columns.h"
#include "fmt.h"
#include "rank.h"
#include "recparse.h"
#include "runrec.h"
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
		/* No spread to judge by: only a difference a person would
		 * call one. */
		*t = 0;
		*df = 0;
		return fabs(m1 - m2) > RANK_MIN_REL_DIFF * fmax(fabs(m1),
		    fabs(m2));
	}
	*t = fabs(m1 - m2) / se;
	*df = (v1 + v2) * (v1 + v2) / (v1 * v1 / (n1 - 1) + v2 * v2 /
	    (n2 - 1));
	return *t > rank_t_crit(*df);
}

/* ---------------------------------------------------------------- build */

/* A candidate's verdict, best first: the worst of its runs'. */
enum cls { CLS_KEPT, CLS_UNSURE, CLS_BEHIND };
static const char *const cls_text[] = { "kept up", "cannot tell",
    "fell behind" };

struct cand {
	const char	*name;
	json_object	*runs;		/* run ids */
	json_object	*out;		/* "run 3 (flat out)", ... */
	int		 n, nruns, kept, behind, unsure, old;
	enum cls	 cls;
	double		 sum, sq, mean, sd;
};

static bool
has_warning(const struct runrec *rep, const char *code)
{
	for (size_t i = 0; i < rep->nwarnings; i++)
		if (strcmp(rep->warnings[i].code, code) == 0)
			return true;
	return false;
}

/* Why run rep's queue average says nothing of its storage, or NULL. */
static const char *
left_out_why(const struct runrec *rep)
{
	const char *state = rep->state;
	double x = rep->sig.average.d;

	/* A stopped or failed run's average covers a part of the load. */
	if (state == NULL || strcmp(state, "done") != 0)
		return "not done";
	if (!rep->sig.average.has)
		return "no queue average";
	/* json-c takes NaN and Infinity: a copied record's, no average */
	if (!isfinite(x) || x < 0)
		return "no usable queue average";
	/* Flat out, the queue shows the generators' speed; with no or few
	 * samples the average is 0 or a guess, and would win. */
	if (rep->samples.has && rep->samples.d == 0)
		return "0 samples";
	if (has_warning(rep, "flat_out"))
		return "flat out";
	if (has_warning(rep, "few_samples"))
		return "few samples";
	/* No queue formed: its average says nothing of the storage, and a
	 * zero would win. */
	if (has_warning(rep, "no_queue"))
		return "no queue formed";
	return NULL;
}

static void
count_run(struct cand *c, const struct runrec *rep, double *vals)
{
	const char *why = left_out_why(rep);
	char *s;

	c->nruns++;
	json_object_array_add(c->runs, json_object_new_int64(rep->run_id));
	if (!rep->verdict.has)
		c->old++;
	else if (rep->verdict.kept_up < 0)
		c->unsure++;
	else if (rep->verdict.kept_up)
		c->kept++;
	else
		c->behind++;
	c->cls = c->behind ? CLS_BEHIND : c->unsure || c->old ? CLS_UNSURE :
	    CLS_KEPT;
	if (why == NULL) {
		vals[c->n++] = rep->sig.average.d;
		return;
	}
	s = fmt_xprintf("run %" PRId64 " (%s)", rep->run_id, why);
	json_object_array_add(c->out, fmt_nomem(json_object_new_string(s)));
	free(s);
}

static int
by_mean(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if ((x->n == 0) != (y->n == 0))
		return x->n == 0 ? 1 : -1;
	return (x->mean > y->mean) - (x->mean < y->mean);
}

/* Group the runs; the candidates sorted by verdict, then by mean (none
 * last). */
static struct cand *
group(const struct runrec *const *reps, char *const *cand, int n, int *ncand)
{
	struct cand *c = fmt_nomem(calloc((size_t)n, sizeof(*c)));
	double *vals = fmt_nomem(calloc((size_t)n, sizeof(*vals)));
	int nc = 0;

	for (int i = 0; i < n; i++) {
		struct cand *e = &c[nc];
		int k;

		for (k = 0; k < nc && strcmp(c[k].name, cand[i]) != 0; k++)
			;
		if (k < nc)
			continue;	/* counted with its first run */
		e->name = cand[i];
		e->runs = fmt_nomem(json_object_new_array());
		e->out = fmt_nomem(json_object_new_array());
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
	json_object *o = fmt_nomem(json_object_new_object());

	json_object_object_add(o, "label", json_object_new_string(c->name));
	json_object_object_add(o, "runs", c->runs);
	json_object_object_add(o, "verdict", json_object_new_string(
	    cls_text[c->cls]));
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
	json_object_object_add(o, "left_out_runs", c->out);
	return o;
}

/* s + sep + more, s freed. */
static char *
append(char *s, const char *sep, const char *more)
{
	char *r = fmt_xprintf("%s%s%s", s, *s ? sep : "", more);

	free(s);
	return r;
}

/* "A has 1 run, B has 2 runs" of the candidates short of the test. */
static char *
too_few(const struct cand *c, int nc)
{
	char *s = fmt_xstrdup(""), *more;

	for (int i = 0; i < nc; i++) {
		if (c[i].n >= RANK_MIN_RUNS)
			continue;
		more = fmt_xprintf("%s has %d usable run%s", c[i].name,
		    c[i].n, c[i].n == 1 ? "" : "s");
		s = append(s, ", ", more);
		free(more);
	}
	return s;
}

/* The names of the candidates in[i], "A and B", "A, B and C". */
static char *
names_of(const struct cand *c, const bool *in, int nc)
{
	char *s = fmt_xstrdup(""), *more;
	int total = 0, k = 0;

	for (int i = 0; i < nc; i++)
		total += in[i];
	for (int i = 0; i < nc; i++) {
		if (!in[i])
			continue;
		k++;
		more = fmt_xprintf("%s%s%s", s, k == 1 ? "" : k == total ?
		    " and " : ", ", c[i].name);
		free(s);
		s = more;
	}
	return s;
}

/* Whether a kept up where b fell behind, each in enough runs to repeat
 * it: b is beaten whatever the queues. */
static bool
by_verdict(const struct cand *a, const struct cand *b)
{
	return a->cls == CLS_KEPT && b->cls == CLS_BEHIND &&
	    a->nruns >= RANK_MIN_RUNS && b->nruns >= RANK_MIN_RUNS;
}

/* Whether a beats b: by the verdicts, or with a lower queue average by
 * Welch's test. */
static bool
beats(const struct cand *a, const struct cand *b)
{
	double t, df;

	if (by_verdict(a, b))
		return true;
	if (a->n < RANK_MIN_RUNS || b->n < RANK_MIN_RUNS || a->mean >= b->mean)
		return false;
	return rank_welch(a->mean, a->sd, a->n, b->mean, b->sd, b->n, &t, &df);
}

/* " By the verdicts, B kept up; A fell behind." when they differ. */
static char *
verdict_groups(const struct cand *c, int nc)
{
	bool *in = fmt_nomem(calloc((size_t)nc, sizeof(*in)));
	char *s = fmt_xstrdup(""), *names, *more;

	for (int k = CLS_KEPT; k <= CLS_BEHIND; k++) {
		for (int i = 0; i < nc; i++)
			in[i] = (int)c[i].cls == k;
		names = names_of(c, in, nc);
		if (*names && c[0].cls != c[nc - 1].cls) {
			more = fmt_xprintf("%s %s", names, cls_text[k]);
			s = append(s, "; ", more);
			free(more);
		}
		free(names);
	}
	free(in);
	more = fmt_xprintf(*s ? "  By the verdicts, %s." : "%s", s);
	free(s);
	return more;
}

/* After "A and B cannot be told apart": what each of them (tie[i]) was
 * found to beat of the rest, and nothing more; "each beats C." when
 * every one beats every other. */
static char *
tie_claims(const struct cand *c, int nc, const bool *tie)
{
	bool *in = fmt_nomem(calloc((size_t)nc, sizeof(*in)));
	bool all = true;
	char *s = fmt_xstrdup(""), *won, *lost, *more;

	for (int i = 0; i < nc; i++)
		for (int j = 0; j < nc; j++)
			all = all && (!tie[i] || tie[j] || beats(&c[i], &c[j]));
	for (int i = 0; i < nc && !all; i++) {
		if (!tie[i])
			continue;
		for (int j = 0; j < nc; j++)
			in[j] = !tie[j] && beats(&c[i], &c[j]);
		won = names_of(c, in, nc);
		for (int j = 0; j < nc; j++)
			in[j] = !tie[j] && !beats(&c[i], &c[j]);
		lost = names_of(c, in, nc);
		more = fmt_xprintf("%s%s%s%s%s%s", c[i].name, *won ?
		    " beats " : "", won, *won && *lost ? " and" : "",
		    *lost ? " is not told apart from " : "", lost);
		s = append(s, "; ", more);
		free(more);
		free(won);
		free(lost);
	}
	for (int i = 0; i < nc; i++)
		in[i] = !tie[i];
	more = names_of(c, in, nc);
	won = all ? fmt_xprintf("each beats %s.", more) :
	    fmt_xprintf("%s.", s);
	free(more);
	free(s);
	free(in);
	return won;
}

/* The sentence that closes the ranking; tie[i]:
 * not beaten by the best (the best included). */
static char *
reason(const struct cand *c, int nc, bool judged, const bool *tie,
    bool all_kept)
{
	const char *kept = all_kept ? "  Every run kept up: at this load each "
	    "candidate is good enough; the ranking says only which had the "
	    "shorter queue." : "";
	char *s, *a, *b, *vg = verdict_groups(c, nc);
	int ntie = 0;

	for (int i = 0; i < nc; i++)
		ntie += tie[i];
	if (nc < 2)
		s = fmt_xprintf("Only one candidate%s%s: nothing to rank "
		    "it against.%s", nc ? ", " : "", nc ? c[0].name : "", kept);
	else if (!judged) {
		a = too_few(c, nc);
		s = fmt_xprintf("The difference cannot be judged: %s, and a "
		    "difference is called only when it exceeds the run-to-run "
		    "spread, which takes at least %d usable runs of each (done, "
		    "paced, sampled).  Run each at least %d times: stressctl "
		    "sweep --repeat %d (or start the repeats with the same "
		    "--label)."
		    "%s%s", a, RANK_MIN_RUNS, RANK_MIN_RUNS, RANK_MIN_RUNS, vg,
		    kept);
		free(a);
	} else if (ntie == 1)
		s = fmt_xprintf("Winner: %s: every other candidate fell "
		    "behind where it kept up, or had a significant queue "
		    "average higher by more than the run-to-run spread "
		    "explains.%s%s%s", c[0].name, vg, c[0].cls == CLS_BEHIND ?
		    "  It fell behind too: no candidate is good enough at this "
		    "load." : "", kept);
	else {
		a = names_of(c, tie, nc);
		b = tie_claims(c, nc, tie);
		s = ntie == nc ? fmt_xprintf("No winner: %s cannot be told "
		    "apart: the differences are within the run-to-run spread."
		    "%s%s", a, vg, kept) : fmt_xprintf("No single winner: "
		    "%s cannot be told apart (within the run-to-run spread); "
		    "%s%s%s", a, b, vg, kept);
		free(b);
		free(a);
	}
	free(vg);
	return s;
}

/* The best against each other candidate, into their JSON; tie[i] set
 * for those it does not beat. */
static void
test_pairs(const struct cand *c, int nc, json_object *list, bool *tie)
{
	tie[0] = true;
	for (int i = 1; i < nc; i++) {
		json_object *o = fmt_nomem(json_object_new_object());
		double t = 0, df = 0;
		bool v = by_verdict(&c[0], &c[i]);

		if (!v)
			rank_welch(c[0].mean, c[0].sd, c[0].n, c[i].mean,
			    c[i].sd, c[i].n, &t, &df);
		tie[i] = !beats(&c[0], &c[i]);
		json_object_object_add(o, "by_verdict",
		    json_object_new_boolean(v));
		json_object_object_add(o, "t", v ? NULL :
		    json_object_new_double(t));
		json_object_object_add(o, "df", v ? NULL :
		    json_object_new_double(df));
		json_object_object_add(o, "t_crit", !v && df > 0 ?
		    json_object_new_double(rank_t_crit(df)) : NULL);
		json_object_object_add(o, "different",
		    json_object_new_boolean(!tie[i]));
		json_object_object_add(json_object_array_get_idx(list,
		    (size_t)i), "vs_best", o);
	}
}

/* "run 3 (flat out), run 5 (0 samples)" of all candidates, or NULL. */
static json_object *
left_out_all(const struct cand *c, int nc)
{
	char *s = fmt_xstrdup("");
	json_object *o;

	for (int i = 0; i < nc; i++)
		for (size_t k = 0; k < json_object_array_length(c[i].out); k++)
			s = append(s, ", ", json_object_get_string(
			    json_object_array_get_idx(c[i].out, k)));
	o = *s ? fmt_nomem(json_object_new_string(s)) : NULL;
	free(s);
	return o;
}

json_object *
rank_build(const struct runrec *const *reps, char *const *cand, int n)
{
	json_object *o = fmt_nomem(json_object_new_object());
	json_object *list = fmt_nomem(json_object_new_array());
	struct cand *c;
	bool judged, winner, all_kept = true, *tie;
	int nc;
	char *why;

	c = group(reps, cand, n, &nc);
	tie = fmt_nomem(calloc((size_t)nc + 1, sizeof(*tie)));
	/* Judged when the best can be held against every other: by the
	 * verdicts, or by the queues of enough runs. */
	judged = nc >= 2;
	for (int i = 0; i < nc; i++) {
		judged = judged && (i == 0 || by_verdict(&c[0], &c[i]) ||
		    (c[0].n >= RANK_MIN_RUNS && c[i].n >= RANK_MIN_RUNS));
		all_kept = all_kept && c[i].kept == c[i].nruns;
	}
	json_object_object_add(o, "left_out", left_out_all(c, nc));
	for (int i = 0; i < nc; i++)
		json_object_array_add(list, cand_json(&c[i]));
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
	json_object_object_add(o, "min_rel_diff_no_spread",
	    json_object_new_double(RANK_MIN_REL_DIFF));
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

/* The counts of a candidate, as rank_build wrote them. */
static const char *const count_keys[][2] = {
	{ "kept_up", "kept up" }, { "fell_behind", "fell behind" },
	{ "cannot_tell", "cannot tell" }, { "no_verdict", "no verdict" },
	{ "left_out", "left out" },
};
#define NCOUNTS	(sizeof(count_keys) / sizeof(*count_keys))

/* One candidate of a ranking read back (NAN: absent). */
struct line {
	const char	*label;
	double		 n, mean, sd, count[NCOUNTS];
	bool		 has_vs;	/* vs_best: against the best */
	int		 by_verdict, different;
	double		 t, df;
};

/* Candidate i of the ranking's list into *l; false, the error in p, on a
 * member of another type. */
static bool
read_line(struct recparse *p, json_object *list, size_t i, struct line *l)
{
	json_object *o = json_object_array_get_idx(list, i), *vs;

	recparse_at(p, "candidates[%zu]", i);
	if (!recparse_str(p, o, "label", RECPARSE_REQ, &l->label) ||
	    !recparse_num(p, o, "n", RECPARSE_OPT, &l->n) ||
	    !recparse_num(p, o, "mean", RECPARSE_OPT, &l->mean) ||
	    !recparse_num(p, o, "stddev", RECPARSE_OPT, &l->sd) ||
	    !recparse_obj(p, o, "vs_best", RECPARSE_OPT, &vs))
		return false;
	for (size_t k = 0; k < NCOUNTS; k++)
		if (!recparse_num(p, o, count_keys[k][0], RECPARSE_OPT,
		    &l->count[k]))
			return false;
	l->has_vs = vs != NULL;
	recparse_at(p, "candidates[%zu].vs_best", i);
	return recparse_bool(p, vs, "by_verdict", RECPARSE_OPT,
	    &l->by_verdict) &&
	    recparse_bool(p, vs, "different", RECPARSE_OPT, &l->different) &&
	    recparse_num(p, vs, "t", RECPARSE_OPT, &l->t) &&
	    recparse_num(p, vs, "df", RECPARSE_OPT, &l->df);
}

/* "3 runs: 2 kept up, 1 fell behind" of candidate l. */
static char *
counts_text(const struct line *l)
{
	double n = 0, total = 0;
	char *s, *more;

	for (size_t k = 0; k < 4; k++)
		if (!isnan(l->count[k]))
			total += l->count[k];
	s = fmt_xprintf("%.0f run%s:", total, total == 1 ? "" : "s");
	for (size_t k = 0; k < NCOUNTS; k++) {
		if (isnan(l->count[k]) || l->count[k] == 0)
			continue;
		more = fmt_xprintf("%s%s %.0f %s", s, n++ ? "," : "",
		    l->count[k], count_keys[k][1]);
		free(s);
		s = more;
	}
	return s;
}

/* How candidate l fares against the best one. */
static void
add_vs(struct columns *t, const struct line *l, const char *best)
{
	if (!l->has_vs)
		columns_add(t, "%s", "");
	else if (l->by_verdict == 1)
		columns_add(t, "worse than %s (fell behind)", best);
	else if (isnan(l->t) || isnan(l->df) || l->df == 0)
		columns_add(t, l->different == 1 ? "worse than %s (no spread, "
		    "over 5 %%)" : "not told apart from %s (no spread, "
		    "within 5 %%)", best);
	else if (l->different == 1)
		columns_add(t, "worse than %s (t %.2f > %.2f)", best, l->t,
		    rank_t_crit(l->df));
	else
		columns_add(t, "not told apart from %s (t %.2f <= %.2f)",
		    best, l->t, rank_t_crit(l->df));
}

void
rank_print(json_object *r)
{
	struct recparse p;
	json_object *list;
	const char *best = NULL, *left_out, *why;
	struct columns *t = columns_new("lrll");
	size_t nc;

	/* rank_build's own output, read back as a record. */
	recparse_init(&p, "ranking");
	if (!recparse_arr(&p, r, "candidates", RECPARSE_OPT, &list) ||
	    !recparse_str(&p, r, "left_out", RECPARSE_OPT, &left_out) ||
	    !recparse_str(&p, r, "reason", RECPARSE_OPT, &why))
		list = NULL;
	nc = list != NULL ? json_object_array_length(list) : 0;
	printf("\nRanking by verdict, then by significant queue average (lower "
	    "is better;\nWelch's t-test at 95 %%, at least %d runs each)\n",
	    RANK_MIN_RUNS);
	for (size_t i = 0; i < nc; i++) {
		struct line l;
		char *cnt;

		if (!read_line(&p, list, i, &l))
			break;
		cnt = counts_text(&l);
		columns_add(t, "%s", l.label);
		if (i == 0)
			best = l.label;
		if (isnan(l.n) || l.n == 0 || isnan(l.mean))
			columns_add(t, "-");
		else if (isnan(l.sd))
			columns_add(t, "%.2f", l.mean);
		else
			columns_add(t, "%.2f +- %.2f", l.mean, l.sd);
		columns_add(t, "%s", cnt);
		free(cnt);
		add_vs(t, &l, best);
	}
	free(recparse_take_error(&p));
	columns_print(t, stdout, 2);
	columns_free(t);
	if (left_out != NULL) {
		char *s = fmt_xprintf("left out: %s: their queue average "
		    "says nothing of the storage.", left_out);

		verdicts_wrap(s, 0);
		free(s);
	}
	verdicts_wrap(why != NULL ? why : "", 0);
}
