/* Unit tests of common/knobs.c: defaults, validation and the errors that
 * name the offending field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "knobs.h"

static int
apply(struct stress_params *p, const char *json, const char **field,
    char *err)
{
	json_object *o = json_tokener_parse(json);
	int r;

	knobs_defaults(p);
	r = knobs_apply(p, o, field, err, 256);
	json_object_put(o);
	return r;
}

static void
test_defaults(void **state)
{
	struct stress_params p;

	(void)state;
	knobs_defaults(&p);
	assert_int_equal(p.files, 10000);
	assert_int_equal(p.threads, 1);
	assert_int_equal(p.write_threads, 2);
	assert_int_equal(p.max_updates, 1000);
	assert_int_equal(p.modulus, 1000);
	assert_true(p.update_time == 300);
	assert_int_equal(p.zero_files, 5000);
	assert_int_equal(p.step, 300);
	assert_int_equal(p.nrras, 4);
	assert_string_equal(p.rras[0], "RRA:AVERAGE:0.5:1:8928");
	assert_true(p.use_queue);
	assert_true(p.queue_creates);
	assert_false(p.prioritize);
	assert_int_equal(p.start, 946710000);
	knobs_free(&p);
}

static void
test_apply_ok(void **state)
{
	struct stress_params p;
	const char *field;
	char err[256];

	(void)state;
	assert_int_equal(apply(&p, "{\"dir\":\"/x\",\"files\":30000,"
	    "\"write_threads\":10,\"update_time\":0,\"prioritize\":true,"
	    "\"rras\":[\"RRA:AVERAGE:0.5:1:10\"]}", &field, err), 0);
	assert_int_equal(p.files, 30000);
	assert_int_equal(p.zero_files, 15000);	/* derived from files */
	assert_int_equal(p.write_threads, 10);
	assert_true(p.prioritize);
	assert_int_equal(p.nrras, 1);
	knobs_free(&p);
	assert_int_equal(apply(&p, "{\"dir\":\"/x\",\"zero_files\":0,"
	    "\"rras\":\"RRA:MIN:0.5:1:5,RRA:MAX:0.5:1:5\"}", &field, err), 0);
	assert_int_equal(p.zero_files, 0);
	assert_int_equal(p.nrras, 2);
	knobs_free(&p);
}

static void
expect_error(const char *json, const char *want_field, const char *want_text)
{
	struct stress_params p;
	const char *field = NULL;
	char err[256];

	assert_int_equal(apply(&p, json, &field, err), -1);
	assert_non_null(field);
	assert_string_equal(field, want_field);
	if (strstr(err, want_text) == NULL)
		fail_msg("%s: error \"%s\" lacks \"%s\"", json, err, want_text);
	knobs_free(&p);
}

static void
test_apply_errors(void **state)
{
	(void)state;
	expect_error("{\"dir\":\"/x\",\"files\":0}", "files", "files must be");
	expect_error("{\"dir\":\"/x\",\"write_threads\":0}", "write_threads",
	    "between 1 and 1024");
	expect_error("{\"dir\":\"/x\",\"write_threads\":1025}", "write_threads",
	    "1025");
	expect_error("{\"dir\":\"/x\",\"files\":\"ten\"}", "files",
	    "not string");
	expect_error("{\"dir\":\"/x\",\"files\":-5}", "files", "between");
	expect_error("{\"dir\":\"/x\",\"files\":1.5}", "files", "not double");
	expect_error("{\"dir\":\"/x\",\"prioritize\":1}", "prioritize",
	    "true or false");
	expect_error("{\"dir\":\"/x\",\"bogus\":1}", "bogus", "unknown");
	expect_error("{\"dir\":\"relative\"}", "dir", "absolute");
	expect_error("{\"files\":10}", "dir", "required");
	expect_error("{\"dir\":\"/x\",\"rras\":[\"AVERAGE\"]}", "rras",
	    "RRA:");
	expect_error("{\"dir\":\"/x\",\"rras\":[]}", "rras", "at least one");
	expect_error("{\"dir\":\"/x\",\"update_time\":-1}", "update_time",
	    "between");
}

/* Numbers past what the knob or json-c can hold get a plain message: the
 * number as the client wrote it when it is exact, never json-c's clamp
 * printed in e-notation. */
static void
test_huge_numbers(void **state)
{
	const char *field;
	char err[256];
	struct stress_params p;
	static const char *const huge[] = {
		"{\"dir\":\"/x\",\"files\":18446744073709551616}",
		"{\"dir\":\"/x\",\"files\":99999999999999999999999}",
		"{\"dir\":\"/x\",\"files\":-18446744073709551616}",
		"{\"dir\":\"/x\",\"update_time\":1e400}",
		"{\"dir\":\"/x\",\"update_time\":-1e400}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
		assert_int_equal(apply(&p, huge[i], &field, err), -1);
		if (strstr(err, "e+") != NULL || strstr(err, "inf") != NULL ||
		    strstr(err, "922337") != NULL)
			fail_msg("%s: '%s'", huge[i], err);
		assert_non_null(strstr(err, "between"));
		knobs_free(&p);
	}
	/* Exact while it fits 64 bits, however large. */
	expect_error("{\"dir\":\"/x\",\"files\":99999999999999999}", "files",
	    "not 99999999999999999");
	expect_error("{\"dir\":\"/x\",\"update_time\":1e300}",
	    "update_time", "between");
	/* From text (stressctl, stressd.conf): out of range, not "not an
	 * integer" or "not a number". */
	static const char *const text[][2] = {
		{ "files", "18446744073709551616" },
		{ "files", "99999999999999999999999" },
		{ "update_time", "1e400" },
	};
	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		json_object *v = knobs_parse_text(knobs_find(text[i][0]),
		    text[i][1], err, sizeof(err));

		if (v == NULL)
			fail_msg("%s %s: %s", text[i][0], text[i][1], err);
		assert_int_equal(knobs_check_value(knobs_find(text[i][0]), v,
		    NULL), KNOBS_VALUE_RANGE);
		json_object_put(v);
	}
}

/* Every number knob, from JSON and from text: a non-finite value is
 * refused, and every message names the knob in printable bytes only (NaN
 * once answered with bytes of the stack). */
static void
check_message(const struct knob *k, const char *what, int r, const char *err,
    int must_fail)
{
	if (must_fail && r == 0)
		fail_msg("%s = %s accepted", k->name, what);
	if (r == 0)
		return;
	if (strstr(err, k->name) == NULL)
		fail_msg("%s = %s: '%s' does not name it", k->name, what, err);
	for (const char *c = err; *c != '\0'; c++)
		if (!isprint((unsigned char)*c))
			fail_msg("%s = %s: byte 0x%02x in '%s'", k->name, what,
			    (unsigned char)*c, err);
}

static void
test_every_number_knob(void **state)
{
	static const struct { const char *text; double d; int bad; } vals[] = {
		{ "nan", NAN, 1 }, { "inf", INFINITY, 1 },
		{ "-inf", -INFINITY, 1 }, { "-0", -0.0, 0 },
		{ "1e308", 1e308, 0 }, { "1e-308", 1e-308, 0 },
		{ "-1e308", -1e308, 0 },
		{ "99999999999999999999999", 1e23, 0 },
		{ "-99999999999999999999999", -1e23, 0 },
	};
	struct stress_params p;
	const char *field;
	char err[256];

	(void)state;
	for (size_t i = 0; i < knobs_count; i++) {
		const struct knob *k = &knobs_table[i];

		if (k->type != KNOB_UINT && k->type != KNOB_DOUBLE)
			continue;
		for (size_t j = 0; j < sizeof(vals) / sizeof(vals[0]); j++) {
			json_object *o = json_object_new_object();
			json_object *v;
			int r;

			json_object_object_add(o, "dir",
			    json_object_new_string("/x"));
			json_object_object_add(o, k->name,
			    json_object_new_double(vals[j].d));
			knobs_defaults(&p);
			memset(err, 0, sizeof(err));
			r = knobs_apply(&p, o, &field, err, sizeof(err));
			check_message(k, vals[j].text, r, err,
			    vals[j].bad && k->type == KNOB_DOUBLE);
			knobs_free(&p);
			json_object_put(o);
			memset(err, 0, sizeof(err));
			v = knobs_parse_text(k, vals[j].text, err, sizeof(err));
			if (v == NULL) {
				check_message(k, vals[j].text, -1, err, 0);
				continue;
			}
			r = knobs_check_value(k, v, NULL) == KNOBS_VALUE_OK;
			if (r && vals[j].bad)
				fail_msg("%s: text '%s' passes the check",
				    k->name, vals[j].text);
			json_object_put(v);
		}
	}
}

/* A path or RRA that becomes a line of stress.log's header may not hold
 * control characters: a newline in dir could forge a QS: line. */
static void
test_control_characters(void **state)
{
	json_object *v;
	size_t at = 0;

	(void)state;
	expect_error("{\"dir\":\"/x\\nQS:\\tsignificantOpsPending=999999, \"}",
	    "dir", "control character (byte 0x0a at offset 2)");
	expect_error("{\"dir\":\"/x\\u001b[31m\"}", "dir", "0x1b");
	expect_error("{\"dir\":\"/x\",\"update_file\":\"/v\\r\"}",
	    "update_file", "0x0d");
	expect_error("{\"dir\":\"/x\",\"update_file\":\"/v\\u007f\"}",
	    "update_file", "0x7f");
	expect_error("{\"dir\":\"/x\",\"rras\":[\"RRA:MIN:0.5:1:5\","
	    "\"RRA:MAX:0.5:1:5\\n# run 1 stopped\"]}", "rras",
	    "rras[1] must not hold a control character");
	expect_error("{\"dir\":\"/x\",\"rras\":\"RRA:MIN:0.5:1:5\\t\"}",
	    "rras", "control character");
	/* A NUL cut the definition short where C strings end. */
	expect_error("{\"dir\":\"/x\",\"rras\":[\"RRA:MIN:0.5:1:5\\u0000"
	    "RRA:MAX:0.5:1:5\"]}", "rras", "NUL");
	expect_error("{\"dir\":\"/x\",\"rras\":\"RRA:MIN:0.5:1:5\\u0000x\"}",
	    "rras", "NUL");
	expect_error("{\"dir\":\"/x\",\"sync\":\"data\\u0000x\"}", "sync",
	    "NUL");
	expect_error("{\"dir\":\"/x\",\"sweep_id\":\"a\\u0000b\"}",
	    "sweep_id", "NUL");
	v = json_object_new_string("/x\ty");
	assert_int_equal(knobs_check_value(knobs_find("dir"), v, &at),
	    KNOBS_VALUE_CONTROL);
	assert_int_equal(at, 2);
	json_object_put(v);
}

/* The target knob: librrd, or rrdcached: with an address rrdcached takes. */
static void
test_target(void **state)
{
	static const char *const good[] = {
		"librrd", "rrdcached:unix:/run/rrdcached.sock",
		"rrdcached:/run/rrdcached.sock", "rrdcached:localhost",
		"rrdcached:cache-1.example.net:42217", "rrdcached:[::1]:42217",
		"rrdcached:[::1]", "rrdcached:::1", "rrdcached:10.0.0.1:1",
		NULL
	};
	static const char *const bad[] = {
		"rrdcached", "rrdcached:", "rrdcached:unix:", "rrdcached:unix:x",
		"rrdcached:ftp://x", "rrdcached:host:0", "rrdcached:host:65536",
		"rrdcached:host:", "rrdcached::42217", "rrdcached:[::1]x",
		"rrdcached:[]:1", "rrdcached:a b", "rrdcached:host:12x",
		"libRRD", NULL
	};
	char json[256];

	(void)state;
	for (int i = 0; good[i] != NULL; i++) {
		struct stress_params p;
		const char *field = NULL;
		char err[256];

		snprintf(json, sizeof(json), "{\"dir\":\"/x\",\"target\":"
		    "\"%s\"}", good[i]);
		if (apply(&p, json, &field, err) != 0)
			fail_msg("%s refused: %s", good[i], err);
		assert_string_equal(p.target, good[i]);
		knobs_free(&p);
	}
	for (int i = 0; bad[i] != NULL; i++) {
		snprintf(json, sizeof(json), "{\"dir\":\"/x\",\"target\":"
		    "\"%s\"}", bad[i]);
		expect_error(json, "target", "target");
	}
	/* rrdcached writes later: nothing to fdatasync after a batch */
	expect_error("{\"dir\":\"/x\",\"sync\":\"data\",\"target\":"
	    "\"rrdcached:/s\"}", "sync", "needs target librrd");
}

static void
test_properties(void **state)
{
	char err[128];
	json_object *v;

	(void)state;
	assert_string_equal(knobs_find_property("stresstest.filecount")->name,
	    "files");
	assert_string_equal(knobs_find_property(
	    "org.opennms.rrd.queuing.writethreads")->name, "write_threads");
	assert_string_equal(knobs_find_property(
	    "org.opennms.rrd.queuing.queueCreates")->name, "queue_creates");
	assert_string_equal(knobs_find_property("stresstest.queuecreates")->name,
	    "queue_creates");
	assert_null(knobs_find_property("stresstest.nothing"));
	assert_null(knobs_find_property("stresstest"));
	v = knobs_parse_text(knobs_find("files"), "30000", err, sizeof(err));
	assert_int_equal(json_object_get_int64(v), 30000);
	json_object_put(v);
	assert_null(knobs_parse_text(knobs_find("files"), "-3", err,
	    sizeof(err)));
	assert_null(knobs_parse_text(knobs_find("files"), "12x", err,
	    sizeof(err)));
	assert_non_null(strstr(err, "files"));
	v = knobs_parse_text(knobs_find("prioritize"), "yes", err, sizeof(err));
	assert_true(json_object_get_boolean(v));
	json_object_put(v);
}

/* The one value check of start, the configuration file and stressctl. */
static enum knobs_value_problem
check(const char *name, const char *json, size_t *index)
{
	json_object *v = json_tokener_parse(json);
	enum knobs_value_problem p;

	assert_non_null(v);
	p = knobs_check_value(knobs_find(name), v, index);
	json_object_put(v);
	return p;
}

static void
test_check_value(void **state)
{
	char many[64 * 40] = "[";
	size_t i = 99;

	(void)state;
	assert_int_equal(check("files", "1", NULL), KNOBS_VALUE_OK);
	assert_int_equal(check("files", "0", NULL), KNOBS_VALUE_RANGE);
	assert_int_equal(check("files", "-1", NULL), KNOBS_VALUE_RANGE);
	assert_int_equal(check("files", "18446744073709551615", NULL),
	    KNOBS_VALUE_RANGE);
	assert_int_equal(check("update_time", "0.5", NULL), KNOBS_VALUE_OK);
	assert_int_equal(check("update_time", "-0.5", NULL),
	    KNOBS_VALUE_RANGE);
	assert_int_equal(check("update_time", "NaN", NULL), KNOBS_VALUE_RANGE);
	assert_int_equal(check("dir", "\"/srv\"", NULL), KNOBS_VALUE_OK);
	assert_int_equal(check("dir", "\"srv\"", NULL), KNOBS_VALUE_PATH);
	assert_int_equal(check("update_file", "\"\"", NULL), KNOBS_VALUE_OK);
	assert_int_equal(check("rras", "[\"RRA:AVERAGE:0.5:1:10\"]", NULL),
	    KNOBS_VALUE_OK);
	assert_int_equal(check("rras", "[]", NULL), KNOBS_VALUE_NO_RRA);
	assert_int_equal(check("rras", "[\"RRA:MIN:0.5:1:1\",\"DS:x\"]", &i),
	    KNOBS_VALUE_NOT_RRA);
	assert_int_equal(i, 1);
	assert_int_equal(check("rras", "[\"RRA:MIN:0.5:1:1\",7]", &i),
	    KNOBS_VALUE_NOT_RRA);
	for (int n = 0; n <= KNOBS_MAX_RRAS; n++)
		strcat(many, n == 0 ? "\"RRA:MIN:0.5:1:1\"" :
		    ",\"RRA:MIN:0.5:1:1\"");
	strcat(many, "]");
	assert_int_equal(check("rras", many, NULL), KNOBS_VALUE_TOO_MANY_RRAS);
	assert_int_equal(check("prioritize", "true", NULL), KNOBS_VALUE_OK);
}

static void
test_choice_list(void **state)
{
	char buf[128];

	(void)state;
	knobs_choice_list(knobs_find("sync"), buf, sizeof(buf));
	assert_string_equal(buf, "none, data, drop-caches or drop-host-caches");
	assert_int_equal(knobs_choice_index(knobs_find("sync"), "data"), 1);
	assert_int_equal(knobs_choice_index(knobs_find("sync"), "all"), -1);
}

/* The label knob: what a run is a candidate of, as a person writes it
 * (blanks, '=', '/', any language), but one line of text no terminal
 * reads as a command, and short enough for a column heading. */
static void
test_label(void **state)
{
	static const char *const good[] = {
		"ext3 data=writeback", "xfs", "/dev/sdb1 (ext4, noatime)",
		"disque \u00e9tude", "\u65e5\u672c",
	};
	struct stress_params p;
	const char *field;
	char err[256], json[256], big[200];

	(void)state;
	knobs_defaults(&p);
	assert_string_equal(p.label, "");
	knobs_free(&p);
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++) {
		snprintf(json, sizeof(json), "{\"dir\":\"/x\",\"label\":"
		    "\"%s\"}", good[i]);
		if (apply(&p, json, &field, err) != 0)
			fail_msg("%s refused: %s", json, err);
		knobs_free(&p);
	}
	assert_int_equal(apply(&p, "{\"dir\":\"/x\",\"label\":\"a b\"}",
	    &field, err), 0);
	assert_string_equal(p.label, "a b");
	knobs_free(&p);
	expect_error("{\"dir\":\"/x\",\"label\":\"a\\nb\"}", "label",
	    "control character");
	expect_error("{\"dir\":\"/x\",\"label\":\"a\\u001b[31m\"}",
	    "label", "control character");
	expect_error("{\"dir\":\"/x\",\"label\":\"a\\u0085b\"}",
	    "label", "control character");
	expect_error("{\"dir\":\"/x\",\"label\":\"a\\u007f\"}", "label",
	    "control character");
	expect_error("{\"dir\":\"/x\",\"label\":\"a\\u0000b\"}",
	    "label", "NUL");
	expect_error("{\"dir\":\"/x\",\"label\":3}", "label", "string");
	memset(big, 'x', 128);
	big[128] = '\0';
	snprintf(json, sizeof(json), "{\"dir\":\"/x\",\"label\":\"%s\"}",
	    big);
	expect_error(json, "label", "127 bytes");
	big[127] = '\0';
	snprintf(json, sizeof(json), "{\"dir\":\"/x\",\"label\":\"%s\"}",
	    big);
	assert_int_equal(apply(&p, json, &field, err), 0);
	knobs_free(&p);
	/* Bytes that are not UTF-8, as a JSON parser may pass them on. */
	assert_int_equal(knobs_check_text(knobs_find("label"), "ab\xff", 3,
	    err, sizeof(err)), -1);
	assert_non_null(strstr(err, "UTF-8"));
	assert_int_equal(knobs_check_text(knobs_find("label"), "\xc3\xa9 x", 4,
	    err, sizeof(err)), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_apply_ok),
		cmocka_unit_test(test_apply_errors),
		cmocka_unit_test(test_huge_numbers),
		cmocka_unit_test(test_every_number_knob),
		cmocka_unit_test(test_target),
		cmocka_unit_test(test_properties),
		cmocka_unit_test(test_check_value),
		cmocka_unit_test(test_control_characters),
		cmocka_unit_test(test_choice_list),
		cmocka_unit_test(test_label),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
