/* Unit tests of ctl/capview.c: the ranking of capacity records (order,
 * brackets that overlap are no win, a CPU- or max_rate-limited figure is
 * never ahead on storage, margins), the record check, --json, and a
 * directory's spread at capacity and grid in the text view. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "capline.h"
#include "capview.h"
#include "jpath.h"

/* A directory entry: capacity cap, behind beh (< 0: null), limited_by. */
static char *
dir(const char *name, double cap, double beh, const char *lim)
{
	char c[32], b[32], *s;

	snprintf(c, sizeof(c), cap < 0 ? "null" : "%g", cap);
	snprintf(b, sizeof(b), beh < 0 ? "null" : "%g", beh);
	assert_true(asprintf(&s, "{\"dir\": \"%s\", \"label\": \"\", "
	    "\"state\": \"done\", \"capacity_rate\": %s, \"behind_rate\": %s, "
	    "\"limited_by\": \"%s\"}", name, c, b, lim) > 0);
	return s;
}

/* A record of host with the directories dirs (a JSON array body) and
 * precision p. */
static json_object *
rec(const char *host, double p, const char *dirs)
{
	char *s;
	json_object *o;

	assert_true(asprintf(&s, "{\"schema\": \"stressd-capacity\", "
	    "\"schema_version\": 1, \"id\": 4, \"state\": \"done\", \"host\": "
	    "\"%s\", \"params\": {\"files\": 200}, \"search\": "
	    "{\"precision_pct\": %g}, \"dirs\": [%s], \"steps\": []}", host, p,
	    dirs) > 0);
	o = json_tokener_parse(s);
	assert_non_null(o);
	free(s);
	return o;
}

/* A record of two directories. */
static json_object *
two(double c1, double b1, const char *l1, double c2, double b2,
    const char *l2)
{
	char *a = dir("/a", c1, b1, l1), *b = dir("/b", c2, b2, l2), *s;
	json_object *o;

	assert_true(asprintf(&s, "%s, %s", a, b) > 0);
	o = rec("h", 10, s);
	free(a);
	free(b);
	free(s);
	return o;
}

/* The relation of ranking entry i to the next one. */
static const char *
rel(json_object *r, size_t i)
{
	return jpath_str(json_object_array_get_idx(r, i), "next.relation");
}

static const char *
dir_at(json_object *r, size_t i)
{
	return jpath_str(json_object_array_get_idx(r, i), "dir");
}

static void
test_ahead(void **state)
{
	json_object *o = two(1000, 1100, "storage", 1800, 2000, "storage");
	json_object *r = capview_ranking(&o, 1);
	double m;

	(void)state;
	assert_int_equal(json_object_array_length(r), 2);
	/* highest first, whatever the record's order */
	assert_string_equal(dir_at(r, 0), "/b");
	assert_string_equal(dir_at(r, 1), "/a");
	assert_string_equal(rel(r, 0), "ahead");
	assert_true(jpath_num(json_object_array_get_idx(r, 0),
	    "next.margin_pct", &m));
	assert_float_equal(m, 80, 1e-9);
	assert_null(jpath(json_object_array_get_idx(r, 1), "next"));
	json_object_put(r);
	json_object_put(o);
}

static void
test_overlap(void **state)
{
	/* 1900 < 2000: /b's bracket [1800, 2000) overlaps /a's */
	json_object *o = two(1800, 2000, "storage", 1900, 2100, "storage");
	json_object *r = capview_ranking(&o, 1);
	const char *t;

	(void)state;
	assert_string_equal(dir_at(r, 0), "/b");
	assert_string_equal(rel(r, 0), "within_precision");
	t = jpath_str(json_object_array_get_idx(r, 0), "next.text");
	assert_non_null(strstr(t, "within the precision (+-10 %)"));
	assert_null(strstr(t, "ahead"));
	json_object_put(r);
	json_object_put(o);
	/* exactly at the other's behind rate: the brackets touch, no more */
	o = two(1000, 1100, "storage", 1100, 1200, "storage");
	r = capview_ranking(&o, 1);
	assert_string_equal(rel(r, 0), "ahead");
	json_object_put(r);
	json_object_put(o);
}

static void
test_ceiling(void **state)
{
	/* the CPU-limited figure is a lower bound of its storage: above the
	 * other's upper end, it is ahead, and says its own limit is higher */
	json_object *o = two(1000, 1100, "storage", 5000, 5500, "cpu");
	json_object *r = capview_ranking(&o, 1);
	const char *t;

	(void)state;
	assert_string_equal(dir_at(r, 0), "/b");
	assert_string_equal(rel(r, 0), "ahead");
	t = jpath_str(json_object_array_get_idx(r, 0), "next.text");
	assert_non_null(strstr(t, "CPU ceiling"));
	json_object_put(r);
	json_object_put(o);
	/* not ahead of one that is a ceiling: the lower storage may do more */
	o = two(5000, 5500, "storage", 1000, 1100, "cpu");
	r = capview_ranking(&o, 1);
	assert_string_equal(dir_at(r, 0), "/a");
	assert_string_equal(rel(r, 0), "ceiling");
	json_object_put(r);
	json_object_put(o);
	/* max_rate reached: no behind rate, yet clear of the other's */
	o = two(1000, 1100, "storage", 8000, -1, "max_rate");
	r = capview_ranking(&o, 1);
	assert_string_equal(rel(r, 0), "ahead");
	assert_null(jpath(json_object_array_get_idx(r, 0), "behind_rate"));
	json_object_put(r);
	json_object_put(o);
	/* a ceiling inside the other's bracket tells nothing */
	o = two(1000, 1100, "storage", 1050, 1150, "cpu");
	r = capview_ranking(&o, 1);
	assert_string_equal(rel(r, 0), "ceiling");
	json_object_put(r);
	json_object_put(o);
}

static void
test_no_figure(void **state)
{
	/* neither kept up at the first rate: last, by behind rate */
	json_object *o = two(-1, 100, "storage", -1, 200, "storage");
	json_object *r = capview_ranking(&o, 1);

	(void)state;
	assert_string_equal(dir_at(r, 0), "/b");
	assert_string_equal(rel(r, 0), "unknown");
	json_object_put(r);
	json_object_put(o);
	/* a figure beats none; a bracket [0, 100) is below 500 */
	o = two(-1, 100, "storage", 500, 600, "storage");
	r = capview_ranking(&o, 1);
	assert_string_equal(dir_at(r, 0), "/b");
	assert_string_equal(rel(r, 0), "ahead");
	json_object_put(r);
	json_object_put(o);
	/* the lower one's search stopped before its limit: no bracket to
	 * be within, not ranked */
	o = two(1000, -1, "", 900, -1, "");
	r = capview_ranking(&o, 1);
	assert_string_equal(rel(r, 0), "unknown");
	json_object_put(r);
	json_object_put(o);
	/* both at max_rate: the note names both */
	o = two(1600, -1, "max_rate", 1600, -1, "max_rate");
	r = capview_ranking(&o, 1);
	assert_string_equal(rel(r, 0), "ceiling");
	assert_non_null(strstr(jpath_str(json_object_array_get_idx(r, 0),
	    "next.text"), "both figures are ceilings"));
	json_object_put(r);
	json_object_put(o);
}

static void
test_hosts(void **state)
{
	char *a = dir("/srv", 1000, 1100, "storage");
	char *b = dir("/srv", 1050, 1160, "storage");
	json_object *recs[2], *r, *j;
	const char *t;

	(void)state;
	recs[0] = rec("alpha", 10, a);
	recs[1] = rec("beta", 20, b);
	r = capview_ranking(recs, 2);
	assert_string_equal(jpath_str(json_object_array_get_idx(r, 0),
	    "host"), "beta");
	t = jpath_str(json_object_array_get_idx(r, 0), "next.text");
	/* the wider precision of the two, the hosts named */
	assert_non_null(strstr(t, "+-20 %"));
	assert_non_null(strstr(t, "beta:/srv"));
	assert_non_null(strstr(t, "alpha:/srv"));
	json_object_put(r);
	j = capview_json(recs, 2);
	assert_int_equal(json_object_array_length(jpath(j, "records")), 2);
	assert_int_equal(json_object_array_length(jpath(j, "ranking")), 2);
	json_object_put(j);
	/* one record: itself (a copy) with its ranking */
	j = capview_json(recs, 1);
	assert_string_equal(jpath_str(j, "schema"), CAPVIEW_SCHEMA);
	assert_non_null(jpath(j, "ranking"));
	assert_null(jpath(recs[0], "ranking"));
	json_object_put(j);
	json_object_put(recs[0]);
	json_object_put(recs[1]);
	free(a);
	free(b);
}

static void
test_is_record(void **state)
{
	json_object *o = json_tokener_parse("{\"schema\": 1}");

	(void)state;
	assert_false(capview_is_record(o));
	assert_false(capview_is_record(NULL));
	json_object_put(o);
	o = rec("h", 10, "");
	assert_true(capview_is_record(o));
	json_object_put(o);
	assert_true(capview_state_ended("done"));
	assert_true(capview_state_ended("interrupted"));
	assert_false(capview_state_ended("running"));
	assert_false(capview_state_ended(NULL));
}

static void
test_print(void **state)
{
	json_object *o = two(1000, 1100, "storage", 5000, 5500, "cpu");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	capview_print(&o, 1, false, f);
	fclose(f);
	assert_non_null(strstr(buf, "Capacity search 4: done"));
	assert_non_null(strstr(buf, "1000 updates/s: each of the 200 files "
	    "updated every 0.2 s"));
	assert_non_null(strstr(buf, "this machine's ceiling, not"));
	assert_non_null(strstr(buf, "Ranking"));
	assert_non_null(strstr(buf, "[CPU-limited]"));
	free(buf);
	json_object_put(o);
}

/* The spread of the steps at capacity and the grid, each one line of the
 * directory; neither from a record without them, nor a spread of one
 * step. */
static void
test_print_spread(void **state)
{
	static const struct {
		const char	*extra, *want[2];
	} cases[] = {
		{ ", \"at_capacity_spread\": {\"steps\": 3, \"queue_avg\": "
		  "[0.5, 2.25], \"latency_p99_ms\": [1.54, 120.4]}, \"grid\": "
		  "{\"jitter\": 1.372, \"first_rate\": 137.2}",
		  { "\n  over repeats  3 steps: queue avg 0.50 to 2.25, latency "
		    "p99 1.5 to 120 ms\n", "\n  grid          from 137 "
		    "updates/s: the start rate x 1.372, drawn at random\n" } },
		{ ", \"at_capacity_spread\": {\"steps\": 2, \"queue_avg\": "
		  "[150, 151.5], \"latency_p99_ms\": null}",
		  { "\n  over repeats  2 steps: queue avg 150 to 152\n", NULL } },
		{ ", \"at_capacity_spread\": {\"steps\": 1, \"queue_avg\": "
		  "null, \"latency_p99_ms\": null}", { NULL, NULL } },
		{ "", { NULL, NULL } },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *d = dir("/a", 1000, 1100, "storage"), *s, *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		json_object *o;

		/* the directory's object, its closing brace moved past extra */
		d[strlen(d) - 1] = '\0';
		assert_true(asprintf(&s, "%s%s}", d, cases[i].extra) > 0);
		o = rec("h", 10, s);
		assert_non_null(f);
		capview_print(&o, 1, false, f);
		fclose(f);
		for (int k = 0; k < 2; k++)
			if (cases[i].want[k] != NULL)
				assert_non_null(strstr(buf, cases[i].want[k]));
		if (cases[i].want[0] == NULL)
			assert_null(strstr(buf, "over repeats"));
		if (cases[i].want[1] == NULL)
			assert_null(strstr(buf, "  grid  "));
		free(buf);
		free(s);
		free(d);
		json_object_put(o);
	}
}

static void
test_runs(void **state)
{
	json_object *runs = json_tokener_parse("{\"runs\": [{\"id\": 3, "
	    "\"state\": \"done\"}, {\"id\": 5, \"kind\": \"capacity\", "
	    "\"state\": \"stopped\", \"files\": 200, \"steps\": 4, \"dirs\": "
	    "[{\"dir\": \"/a\", \"fs_type\": \"tmpfs\", \"capacity_rate\": "
	    "2400, \"behind_rate\": null, \"limited_by\": \"cpu\"}, "
	    "{\"dir\": \"/b\", \"capacity_rate\": null}]}]}");
	struct runsrec *rs;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct recparse p;
	struct caprec_progress g;

	(void)state;
	assert_non_null(runs);
	assert_non_null(rs = runsrec_parse(runs, NULL));
	capline_runs(rs, f);
	runsrec_free(rs);
	fclose(f);
	/* the search, one line per directory; not the plain run */
	assert_non_null(strstr(buf, "stopped"));
	assert_non_null(strstr(buf, "/a"));
	assert_non_null(strstr(buf, "2400"));
	assert_non_null(strstr(buf, "cpu"));
	assert_non_null(strstr(buf, "/b"));
	assert_null(strstr(buf, "\n    3 "));
	free(buf);
	json_object_put(runs);
	/* status's object in words */
	runs = json_tokener_parse("{\"capacity\": {\"id\": 4, \"state\": "
	    "\"running\", \"dir_index\": 1, \"ndirs\": 2, \"dir\": \"/b\", "
	    "\"step\": 3, \"phase\": \"bisect\", \"rate\": 450, "
	    "\"kept_up_rate\": 400, \"behind_rate\": null}}");
	recparse_init(&p, "status reply");
	assert_true(caprec_parse_progress(&p, runs, "capacity", &g));
	buf = capline_progress(&g);
	assert_string_equal(buf, "capacity 4: dir 2/2 /b, step 3 (bisect) at "
	    "450 updates/s; kept up at 400, fell behind at -");
	free(buf);
	json_object_put(runs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ahead),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_ceiling),
		cmocka_unit_test(test_no_figure),
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_is_record),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_print_spread),
		cmocka_unit_test(test_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
