/* A run's verdict and warnings in words (verdicts.h). */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "fmt.h"
#include "records.h"
#include "recparse.h"
#include "runrec.h"
#include "text.h"
#include "verdicts.h"

static const char old_record[] = "no verdict (recorded by an older stressd)";

const char *
verdicts_kept_word_rec(int kept_up)
{
	return kept_up < 0 ? "cannot tell" : kept_up ? "kept up" :
	    "fell behind";
}

char *
verdicts_counted(const char *word, size_t n)
{
	if (n == 0)
		return fmt_xstrdup(word);
	return fmt_xprintf("%s (%zu warning%s)", word, n, n == 1 ? "" : "s");
}

char *
verdicts_short_rec(const struct runrec_verdict *v, size_t nwarnings)
{
	if (!v->has)
		return fmt_xstrdup(old_record);
	return verdicts_counted(verdicts_kept_word_rec(v->kept_up),
	    nwarnings);
}

void
verdicts_wrap_fp(FILE *fp, int indent, int more, const char *text)
{
	size_t width = RECORDS_TEXT_WIDTH - (size_t)indent;
	bool first = true;

	while (*text != '\0') {
		size_t n = strlen(text), cut;

		if (n > width) {
			for (cut = width; cut > 0 && text[cut] != ' '; cut--)
				;
			n = cut > 0 ? cut : text_cut(text, width);
		}
		fprintf(fp, "%*s%.*s\n", indent, "", (int)n, text);
		text += n;
		while (*text == ' ')
			text++;
		if (first) {
			indent += more;
			width -= (size_t)more;
		}
		first = false;
	}
}

void
verdicts_wrap(const char *text, int indent)
{
	verdicts_wrap_fp(stdout, indent, 4, text);
}

/* Whether warning x is among the n of w. */
static bool
warning_in(const struct runrec_warning *x, const struct runrec_warning *w,
    size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (strcmp(w[k].code, x->code) == 0 &&
		    strcmp(w[k].message, x->message) == 0)
			return true;
	return false;
}

/* One warning, with every run from i on that has it. */
static void
print_warning(const struct runrec *const *recs, char *const *run, int n,
    int i, const struct runrec_warning *x)
{
	char *runs = fmt_xstrdup(run[i]), *line, *more;

	for (int j = i + 1; j < n; j++)
		if (warning_in(x, recs[j]->warnings, recs[j]->nwarnings)) {
			more = fmt_xprintf("%s, %s", runs, run[j]);
			free(runs);
			runs = more;
		}
	line = fmt_xprintf("%s: %s: %s", runs, x->code, x->message);
	verdicts_wrap(line, 2);
	free(line);
	free(runs);
}

void
verdicts_print_recs(const struct runrec *const *recs, char *const *who,
    char *const *run, int n)
{
	bool any = false;

	printf("\nVerdicts\n");
	for (int i = 0; i < n; i++) {
		const struct runrec_verdict *v = &recs[i]->verdict;
		const char *w = verdicts_kept_word_rec(v->kept_up);
		const char *why = v->reason;
		char *line;

		if (!v->has)
			line = fmt_xprintf("%s: %s", who[i], old_record);
		else if (why != NULL && *why != '\0')
			line = fmt_xprintf("%s: %s: %s", who[i], w, why);
		else
			line = fmt_xprintf("%s: %s", who[i], w);
		verdicts_wrap(line, 2);
		free(line);
	}
	for (int i = 0; i < n; i++)
		for (size_t w = 0; w < recs[i]->nwarnings; w++) {
			const struct runrec_warning *x = &recs[i]->warnings[w];
			bool seen = false;

			/* each warning once, with every run that has it */
			for (int j = 0; j < i && !seen; j++)
				seen = warning_in(x, recs[j]->warnings,
				    recs[j]->nwarnings);
			if (seen)
				continue;
			if (!any)
				printf("Warnings\n");
			any = true;
			print_warning(recs, run, n, i, x);
		}
}

/* "load phase 71 samples, trend +0.06 values/s (stderr 0.08), +215
 * pending in 1 h (material: 1000)" and the latency against its bound. */
static void
print_figures(const struct runrec_verdict *v, FILE *fp)
{
	char line[512];
	size_t len = 0;

	line[0] = '\0';
	if (!isnan(v->load_samples))
		len += (size_t)snprintf(line + len, sizeof(line) - len,
		    "load phase %.0f samples", v->load_samples);
	if (!isnan(v->slope_per_s) && !isnan(v->slope_stderr) &&
	    len < sizeof(line))
		len += (size_t)snprintf(line + len, sizeof(line) - len,
		    ", trend %+.4g values/s (stderr %.3g)", v->slope_per_s,
		    v->slope_stderr);
	if (!isnan(v->backlog_in_1h) && len < sizeof(line))
		len += (size_t)snprintf(line + len, sizeof(line) - len,
		    ", %+.0f pending in 1 h", v->backlog_in_1h);
	if (!isnan(v->backlog_threshold) && len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, " (material: %.0f)",
		    v->backlog_threshold);
	if (line[0] != '\0')
		verdicts_wrap_fp(fp, 2, 2, line);
	if (isnan(v->latency_bound_ms))
		return;
	if (!isnan(v->latency_p99_ms))
		fprintf(fp, "  enqueue_to_persist p99 %.1f ms, bound %.0f ms\n",
		    v->latency_p99_ms, v->latency_bound_ms);
	else
		fprintf(fp, "  enqueue_to_persist: nothing written yet, bound "
		    "%.0f ms\n", v->latency_bound_ms);
}

void
verdicts_report_rec(const struct runrec_verdict *v,
    const struct runrec_warning *w, size_t nw, FILE *fp)
{
	char *head = verdicts_short_rec(v, nw);

	fprintf(fp, "Verdict: %s\n", head);
	free(head);
	if (!v->has)
		return;
	if (v->reason != NULL)
		verdicts_wrap_fp(fp, 2, 0, v->reason);
	print_figures(v, fp);
	for (size_t i = 0; i < nw; i++) {
		char line[1200];

		snprintf(line, sizeof(line), "%s: %s", w[i].code,
		    w[i].message);
		if (i == 0)
			fprintf(fp, "Warnings:\n");
		verdicts_wrap_fp(fp, 2, 4, line);
	}
}
