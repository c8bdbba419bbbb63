/* A run's verdict and warnings in words (verdicts.h). */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "fmt.h"
#include "jpath.h"
#include "records.h"
#include "text.h"
#include "verdicts.h"

static const char old_record[] = "no verdict (recorded by an older stressd)";

const char *
verdicts_kept_word(json_object *kept)
{
	if (!json_object_is_type(kept, json_type_boolean))
		return "cannot tell";
	return json_object_get_boolean(kept) ? "kept up" : "fell behind";
}

const char *
verdicts_word(json_object *rep)
{
	json_object *v = jpath(rep, "verdict");

	if (!json_object_is_type(v, json_type_object))
		return NULL;
	return verdicts_kept_word(jpath(v, "kept_up"));
}

size_t
verdicts_nwarnings(json_object *rep)
{
	json_object *warn = jpath(rep, "warnings");

	return json_object_is_type(warn, json_type_array) ?
	    json_object_array_length(warn) : 0;
}

char *
verdicts_counted(const char *word, size_t n)
{
	if (n == 0)
		return fmt_xstrdup(word);
	return fmt_xprintf("%s (%zu warning%s)", word, n, n == 1 ? "" : "s");
}

char *
verdicts_short(json_object *rep)
{
	const char *w = verdicts_word(rep);

	if (w == NULL)
		return fmt_xstrdup(old_record);
	return verdicts_counted(w, verdicts_nwarnings(rep));
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

/* The code and message of warning w of run i, "" when missing. */
static void
warning_at(json_object *rep, size_t w, const char **code, const char **msg)
{
	json_object *e = json_object_array_get_idx(jpath(rep, "warnings"), w);

	*code = jpath_str(e, "code");
	*msg = jpath_str(e, "message");
	if (*code == NULL)
		*code = "";
	if (*msg == NULL)
		*msg = "";
}

/* Whether run i's warning w was already printed with an earlier run. */
static bool
warning_seen(json_object **reps, int i, const char *code, const char *msg)
{
	for (int j = 0; j < i; j++)
		for (size_t w = 0; w < verdicts_nwarnings(reps[j]); w++) {
			const char *c, *m;

			warning_at(reps[j], w, &c, &m);
			if (strcmp(c, code) == 0 && strcmp(m, msg) == 0)
				return true;
		}
	return false;
}

/* One warning, with every run from i on that has it. */
static void
print_warning(json_object **reps, char *const *run, int n, int i,
    const char *code, const char *msg)
{
	char *runs = fmt_xstrdup(run[i]), *line;

	for (int j = i + 1; j < n; j++)
		for (size_t w = 0; w < verdicts_nwarnings(reps[j]); w++) {
			const char *c, *m;
			char *more;

			warning_at(reps[j], w, &c, &m);
			if (strcmp(c, code) != 0 || strcmp(m, msg) != 0)
				continue;
			more = fmt_xprintf("%s, %s", runs, run[j]);
			free(runs);
			runs = more;
			break;
		}
	line = fmt_xprintf("%s: %s: %s", runs, code, msg);
	verdicts_wrap(line, 2);
	free(line);
	free(runs);
}

void
verdicts_print(json_object **reps, char *const *who, char *const *run, int n)
{
	bool any = false;

	printf("\nVerdicts\n");
	for (int i = 0; i < n; i++) {
		const char *w = verdicts_word(reps[i]);
		const char *why = jpath_str(reps[i], "verdict.reason");
		char *line;

		if (w == NULL)
			line = fmt_xprintf("%s: %s", who[i], old_record);
		else if (why != NULL && *why != '\0')
			line = fmt_xprintf("%s: %s: %s", who[i], w, why);
		else
			line = fmt_xprintf("%s: %s", who[i], w);
		verdicts_wrap(line, 2);
		free(line);
	}
	for (int i = 0; i < n; i++)
		for (size_t w = 0; w < verdicts_nwarnings(reps[i]); w++) {
			const char *code, *msg;

			warning_at(reps[i], w, &code, &msg);
			if (warning_seen(reps, i, code, msg))
				continue;
			if (!any)
				printf("Warnings\n");
			any = true;
			print_warning(reps, run, n, i, code, msg);
		}
}

/* "load phase 71 samples, trend +0.06 values/s (stderr 0.08), +215
 * pending in 1 h (material: 1000)" and the latency against its bound. */
static void
print_figures(json_object *v, FILE *fp)
{
	double slope, se, backlog, thr, p99, bound, n;
	char line[512];
	size_t len = 0;

	line[0] = '\0';
	if (jpath_num(v, "load_phase.samples", &n))
		len += (size_t)snprintf(line + len, sizeof(line) - len,
		    "load phase %.0f samples", n);
	if (jpath_num(v, "slope_per_s", &slope) &&
	    jpath_num(v, "slope_stderr", &se) && len < sizeof(line))
		len += (size_t)snprintf(line + len, sizeof(line) - len,
		    ", trend %+.4g values/s (stderr %.3g)", slope, se);
	if (jpath_num(v, "backlog_in_1h", &backlog) && len < sizeof(line))
		len += (size_t)snprintf(line + len, sizeof(line) - len,
		    ", %+.0f pending in 1 h", backlog);
	if (jpath_num(v, "backlog_threshold", &thr) && len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, " (material: %.0f)",
		    thr);
	if (line[0] != '\0')
		verdicts_wrap_fp(fp, 2, 2, line);
	if (!jpath_num(v, "latency_bound_ms", &bound))
		return;
	if (jpath_num(v, "latency_p99_ms", &p99))
		fprintf(fp, "  enqueue_to_persist p99 %.1f ms, bound %.0f ms\n",
		    p99, bound);
	else
		fprintf(fp, "  enqueue_to_persist: nothing written yet, bound "
		    "%.0f ms\n", bound);
}

void
verdicts_report(json_object *rep, FILE *fp)
{
	json_object *v = jpath(rep, "verdict"), *w = jpath(rep, "warnings");
	size_t nw = verdicts_nwarnings(rep);
	const char *reason;
	char *head = verdicts_short(rep);

	fprintf(fp, "Verdict: %s\n", head);
	free(head);
	if (verdicts_word(rep) == NULL)
		return;
	if ((reason = jpath_str(v, "reason")) != NULL)
		verdicts_wrap_fp(fp, 2, 0, reason);
	print_figures(v, fp);
	for (size_t i = 0; i < nw; i++) {
		json_object *x = json_object_array_get_idx(w, i);
		const char *code = jpath_str(x, "code");
		const char *msg = jpath_str(x, "message");
		char line[1200];

		snprintf(line, sizeof(line), "%s: %s", code != NULL ? code :
		    "-", msg != NULL ? msg : "-");
		if (i == 0)
			fprintf(fp, "Warnings:\n");
		verdicts_wrap_fp(fp, 2, 4, line);
	}
}
