/* The verdict lines of compare and sweep, from the records as stored. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "jpath.h"
#include "output.h"
#include "records.h"
#include "text.h"
#include "verdicts.h"

static const char old_record[] = "no verdict (recorded by an older stressd)";

/* "kept up", "fell behind", "cannot tell"; NULL without a verdict. */
static const char *
verdict_word(json_object *rep)
{
	json_object *v = jpath(rep, "verdict"), *k;

	if (!json_object_is_type(v, json_type_object))
		return NULL;
	k = jpath(v, "kept_up");
	if (json_object_is_type(k, json_type_boolean))
		return json_object_get_boolean(k) ? "kept up" : "fell behind";
	return "cannot tell";
}

char *
verdicts_short(json_object *rep)
{
	const char *w = verdict_word(rep);
	json_object *warn = jpath(rep, "warnings");
	size_t n = json_object_is_type(warn, json_type_array) ?
	    json_object_array_length(warn) : 0;

	if (w == NULL)
		return output_xstrdup(old_record);
	if (n == 0)
		return output_xstrdup(w);
	return output_xprintf("%s (%zu warning%s)", w, n, n == 1 ? "" : "s");
}

void
verdicts_wrap(const char *text, int indent)
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
		printf("%*s%.*s\n", indent, "", (int)n, text);
		text += n;
		while (*text == ' ')
			text++;
		if (first) {
			indent += 4;
			width -= 4;
		}
		first = false;
	}
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

static size_t
nwarnings(json_object *rep)
{
	json_object *warn = jpath(rep, "warnings");

	return json_object_is_type(warn, json_type_array) ?
	    json_object_array_length(warn) : 0;
}

/* Whether run i's warning w was already printed with an earlier run. */
static bool
warning_seen(json_object **reps, int i, const char *code, const char *msg)
{
	for (int j = 0; j < i; j++)
		for (size_t w = 0; w < nwarnings(reps[j]); w++) {
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
	char *runs = output_xstrdup(run[i]), *line;

	for (int j = i + 1; j < n; j++)
		for (size_t w = 0; w < nwarnings(reps[j]); w++) {
			const char *c, *m;
			char *more;

			warning_at(reps[j], w, &c, &m);
			if (strcmp(c, code) != 0 || strcmp(m, msg) != 0)
				continue;
			more = output_xprintf("%s, %s", runs, run[j]);
			free(runs);
			runs = more;
			break;
		}
	line = output_xprintf("%s: %s: %s", runs, code, msg);
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
		const char *w = verdict_word(reps[i]);
		const char *why = jpath_str(reps[i], "verdict.reason");
		char *line;

		if (w == NULL)
			line = output_xprintf("%s: %s", who[i], old_record);
		else if (why != NULL && *why != '\0')
			line = output_xprintf("%s: %s: %s", who[i], w, why);
		else
			line = output_xprintf("%s: %s", who[i], w);
		verdicts_wrap(line, 2);
		free(line);
	}
	for (int i = 0; i < n; i++)
		for (size_t w = 0; w < nwarnings(reps[i]); w++) {
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
