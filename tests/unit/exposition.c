/* The /metrics body (daemon/exposition.c) before any run: every row of
 * the counter table is there, typed, named by Prometheus' rules, at 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <event2/buffer.h>

#include "exposition.h"
#include "stats.h"

static char *
render(void)
{
	struct evbuffer *b = evbuffer_new();
	size_t n;
	char *s;

	assert_non_null(b);
	exposition_render(b, NULL);
	n = evbuffer_get_length(b);
	assert_non_null(s = malloc(n + 1));
	evbuffer_remove(b, s, n);
	s[n] = '\0';
	evbuffer_free(b);
	return s;
}

/* Does body hold line as a whole line? */
static int
has_line(const char *body, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = body; (p = strstr(p, line)) != NULL; p += n)
		if ((p == body || p[-1] == '\n') && p[n] == '\n')
			return 1;
	return 0;
}

static void
test_every_counter(void **state)
{
	char *body = render(), line[256];

	(void)state;
	for (size_t i = 0; i < stats_ncounters; i++) {
		const struct stats_counter *k = &stats_counters[i];
		size_t len = strlen(k->prom);
		int total = len > 6 && strcmp(k->prom + len - 6, "_total") == 0;

		/* A counter's name ends in _total, a gauge's does not. */
		if (total != (k->kind == STATS_COUNTER))
			fail_msg("%s: a %s named %s", k->name, k->kind ==
			    STATS_COUNTER ? "counter" : "gauge", k->prom);
		snprintf(line, sizeof(line), "# TYPE stressd_%s %s", k->prom,
		    k->kind == STATS_COUNTER ? "counter" : "gauge");
		if (!has_line(body, line))
			fail_msg("no '%s' in\n%s", line, body);
		snprintf(line, sizeof(line), "# HELP stressd_%s %s", k->prom,
		    k->help);
		if (!has_line(body, line))
			fail_msg("no '%s'", line);
		snprintf(line, sizeof(line), "stressd_%s 0", k->prom);
		if (!has_line(body, line))
			fail_msg("no '%s'", line);
	}
	/* No run yet: no run_info, the histograms empty. */
	assert_null(strstr(body, "stressd_run_info"));
	assert_true(has_line(body,
	    "stressd_enqueue_to_persist_seconds_count 0"));
	free(body);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_counter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
