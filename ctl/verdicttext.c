/* The daemon's verdict and warnings in words (verdicttext.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "jpath.h"
#include "verdicttext.h"

const char *
verdicttext_word(json_object *rep)
{
	json_object *v, *k;

	if (!json_object_object_get_ex(rep, "verdict", &v) || v == NULL)
		return NULL;
	if ((k = jpath(v, "kept_up")) == NULL ||
	    !json_object_is_type(k, json_type_boolean))
		return "cannot tell";
	return json_object_get_boolean(k) ? "kept up" : "fell behind";
}

size_t
verdicttext_nwarnings(json_object *rep)
{
	json_object *w = jpath(rep, "warnings");

	return json_object_is_type(w, json_type_array) ?
	    json_object_array_length(w) : 0;
}

#define VERDICTTEXT_WIDTH	78

/* text after indent spaces, wrapped at blanks to VERDICTTEXT_WIDTH, the
 * lines after the first indented by more. */
static void
print_wrapped(FILE *fp, int indent, int more, const char *text)
{
	int width = VERDICTTEXT_WIDTH - indent;

	for (;;) {
		int n = (int)strlen(text);

		if (n > width) {
			int cut = width;

			while (cut > 0 && text[cut] != ' ')
				cut--;
			n = cut > 0 ? cut : width;
		}
		fprintf(fp, "%*s%.*s\n", indent, "", n, text);
		text += n;
		while (*text == ' ')
			text++;
		if (*text == '\0')
			return;
		if (more > 0) {	/* the first line is done */
			indent += more;
			width -= more;
			more = 0;
		}
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
		print_wrapped(fp, 2, 2, line);
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
verdicttext_print(json_object *rep, FILE *fp)
{
	const char *word = verdicttext_word(rep), *reason;
	json_object *v = jpath(rep, "verdict"), *w = jpath(rep, "warnings");
	size_t nw = verdicttext_nwarnings(rep);

	if (word == NULL) {
		fprintf(fp, "Verdict: no verdict (recorded by an older "
		    "stressd)\n");
		return;
	}
	fprintf(fp, "Verdict: %s", word);
	if (nw > 0)
		fprintf(fp, " (%zu warning%s)", nw, nw == 1 ? "" : "s");
	fputc('\n', fp);
	if ((reason = jpath_str(v, "reason")) != NULL)
		print_wrapped(fp, 2, 0, reason);
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
		print_wrapped(fp, 2, 4, line);
	}
}
