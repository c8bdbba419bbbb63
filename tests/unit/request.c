/* Unit tests of daemon/request.c: framing, the envelope checks, the
 * error reply's bounds, and the argument checks the command table names
 * (good and bad arguments, their codes, fields and messages). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "cmd.h"
#include "proto.h"
#include "request.h"

/* The arguments of the latest check: an error's field may point into
 * them, so they live until the next one. */
static json_object *held;

/* Check args (JSON text, or NULL) for command cmd through its entry. */
static int
check(const char *cmd, const char *args, struct request_args *a,
    struct request_error *err)
{
	const struct cmd_entry *e = cmd_find(cmd);

	json_object_put(held);
	held = args != NULL ? json_tokener_parse(args) : NULL;
	assert_non_null(e);
	if (args != NULL)
		assert_non_null(held);
	memset(a, 0, sizeof(*a));
	return request_check_args(e->check, held, NULL, a, err);
}

/* A refusal of args for cmd with this code, field and message. */
static void
assert_refused(const char *cmd, const char *args, const char *code,
    const char *field, const char *message)
{
	struct request_args a;
	struct request_error err;

	assert_int_equal(check(cmd, args, &a, &err), -1);
	assert_string_equal(err.code, code);
	if (field == NULL)
		assert_null(err.field);
	else
		assert_string_equal(err.field, field);
	assert_string_equal(err.message, message);
}

static void
test_stop_args(void **state)
{
	struct request_args a;
	struct request_error err;

	(void)state;
	assert_int_equal(check("stop", NULL, &a, &err), 0);
	assert_true(a.drain);
	assert_true(a.wait);
	request_args_free(&a);
	assert_int_equal(check("stop", "{\"drain\": false, \"wait\": false}",
	    &a, &err), 0);
	assert_false(a.drain);
	assert_false(a.wait);
	request_args_free(&a);
	assert_refused("stop", "{\"drain\": 1}", PROTO_ERR_BAD_ARGUMENT,
	    "drain", "drain must be true or false");
	assert_refused("stop", "{\"wait\": \"yes\"}", PROTO_ERR_BAD_ARGUMENT,
	    "wait", "wait must be true or false");
	assert_refused("stop", "{\"now\": true}", PROTO_ERR_BAD_ARGUMENT,
	    "now", "unknown argument 'now'");
}

static void
test_report_args(void **state)
{
	static const char *const bad[] = {
		"{\"run\": 0}", "{\"run\": -3}", "{\"run\": 1000000000}",
		"{\"run\": \"7\"}", "{\"run\": 1.5}", "{\"run\": null}",
	};
	struct request_args a;
	struct request_error err;

	(void)state;
	assert_int_equal(check("report", NULL, &a, &err), 0);
	assert_int_equal(a.run, 0);
	request_args_free(&a);
	assert_int_equal(check("report", "{\"run\": 999999999}", &a, &err), 0);
	assert_int_equal(a.run, 999999999);
	request_args_free(&a);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_refused("report", bad[i], PROTO_ERR_BAD_ARGUMENT, "run",
		    "run must be a run id (a positive integer)");
	assert_refused("report", "{\"id\": 3}", PROTO_ERR_BAD_ARGUMENT, "id",
	    "unknown argument 'id'");
}

/* runs: limit 1..10000 (default 100) and before 1..1000000000 (default
 * 0, no bound); anything else refused naming the field. */
static void
test_runs_args(void **state)
{
	static const char *const bad[][2] = {
		{ "{\"limit\": 0}", "limit" }, { "{\"limit\": 10001}", "limit" },
		{ "{\"limit\": \"5\"}", "limit" }, { "{\"limit\": 1.5}", "limit" },
		{ "{\"limit\": null}", "limit" }, { "{\"before\": 0}", "before" },
		{ "{\"before\": -1}", "before" },
		{ "{\"before\": 1000000001}", "before" },
	};
	struct request_args a;
	struct request_error err;

	(void)state;
	assert_int_equal(check("runs", NULL, &a, &err), 0);
	assert_int_equal(a.limit, 100);
	assert_int_equal(a.before, 0);
	request_args_free(&a);
	assert_int_equal(check("runs", "{\"limit\": 10000, \"before\": "
	    "1000000000}", &a, &err), 0);
	assert_int_equal(a.limit, 10000);
	assert_int_equal(a.before, 1000000000);
	request_args_free(&a);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char msg[128];

		snprintf(msg, sizeof(msg), "%s must be an integer from 1 to %s",
		    bad[i][1], strcmp(bad[i][1], "limit") == 0 ? "10000" :
		    "1000000000");
		assert_refused("runs", bad[i][0], PROTO_ERR_BAD_ARGUMENT,
		    bad[i][1], msg);
	}
	assert_refused("runs", "{\"after\": 3}", PROTO_ERR_BAD_ARGUMENT,
	    "after", "unknown argument 'after'");
}

/* Commands without arguments take none, and an empty object. */
static void
test_no_args(void **state)
{
	static const char *const cmds[] = {
		"stats", "status", "wait", "help", "version",
	};
	struct request_args a;
	struct request_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		assert_int_equal(check(cmds[i], NULL, &a, &err), 0);
		request_args_free(&a);
		assert_int_equal(check(cmds[i], "{}", &a, &err), 0);
		request_args_free(&a);
		assert_refused(cmds[i], "{\"verbose\": true}",
		    PROTO_ERR_BAD_ARGUMENT, "verbose",
		    "unknown argument 'verbose'");
	}
}

static void
test_start_args(void **state)
{
	struct request_args a;
	struct request_error err;

	(void)state;
	assert_int_equal(check("start", "{\"dir\": \"/var/tmp/x\", "
	    "\"files\": 12, \"max_updates\": 24}", &a, &err), 0);
	assert_string_equal(a.params.dir, "/var/tmp/x");
	assert_int_equal(a.params.files, 12);
	assert_int_equal(a.params.zero_files, 6);	/* files / 2 */
	request_args_free(&a);
	assert_refused("start", "{}", PROTO_ERR_BAD_ARGUMENT, "dir",
	    "dir is required");
	assert_refused("start", "{\"dir\": \"/x\", \"profile\": 3}",
	    PROTO_ERR_BAD_ARGUMENT, "profile", "profile must be a string");
	assert_refused("start", "{\"dir\": \"/x\", \"profile\": \"kif\"}",
	    PROTO_ERR_BAD_ARGUMENT, "profile", "no profile 'kif' in the "
	    "configuration (none was read)");
	/* Each knob's own check, naming the knob. */
	assert_int_equal(check("start", "{\"dir\": \"/x\", \"files\": 0}", &a,
	    &err), -1);
	assert_string_equal(err.code, PROTO_ERR_BAD_ARGUMENT);
	assert_string_equal(err.field, "files");
	assert_non_null(strstr(err.message, "files"));
	assert_int_equal(check("start", "{\"dir\": \"/x\", \"nosuch\": 1}", &a,
	    &err), -1);
	assert_string_equal(err.code, PROTO_ERR_BAD_ARGUMENT);
	assert_string_equal(err.field, "nosuch");
}

/* update_fd is start's own argument (not a knob) and needs the path it is
 * recorded under; whether the client named a path is told apart from a
 * profile's. */
static void
test_start_update_fd(void **state)
{
	struct request_args a;
	struct request_error err;

	(void)state;
	assert_int_equal(check("start", "{\"dir\": \"/x\", \"update_file\": "
	    "\"/v\", \"update_fd\": true}", &a, &err), 0);
	assert_true(a.update_fd && a.update_path_given);
	assert_string_equal(a.params.update_file, "/v");
	request_args_free(&a);
	assert_int_equal(check("start", "{\"dir\": \"/x\", \"update_file\": "
	    "\"/v\"}", &a, &err), 0);
	assert_true(!a.update_fd && a.update_path_given);
	request_args_free(&a);
	assert_int_equal(check("start", "{\"dir\": \"/x\", \"update_file\": "
	    "\"\"}", &a, &err), 0);
	assert_true(!a.update_fd && !a.update_path_given);
	request_args_free(&a);
	assert_refused("start", "{\"dir\": \"/x\", \"update_fd\": true}",
	    PROTO_ERR_BAD_ARGUMENT, "update_fd", "update_fd needs update_file, "
	    "the name the passed file is recorded under");
	assert_refused("start", "{\"dir\": \"/x\", \"update_file\": \"/v\", "
	    "\"update_fd\": 1}", PROTO_ERR_BAD_ARGUMENT, "update_fd",
	    "update_fd must be true or false");
}

/* Parse line; the code of its refusal, or NULL when accepted. */
static const char *
parse(const char *line, struct request *req, struct request_error *err)
{
	int rv = request_parse(line, strlen(line), req, err);

	return rv == 0 ? NULL : err->code;
}

/* Only JSON is JSON: json-c's lenient extensions (comments, single quotes,
 * trailing commas) are refused (json-c still reads NaN, which the
 * knobs' range check refuses), and ordinary
 * requests, with spaces round them, still pass. */
static void
test_strict_json(void **state)
{
	static const char *const bad[] = {
		"{\"cmd\": \"stats\" /* c */}",
		"{\"cmd\": 'stats'}",
		"{'cmd': \"stats\"}",
		"{\"cmd\": \"stats\",}",
	};
	static const char *const good[] = {
		"{\"cmd\": \"stats\"}",
		"  {\"cmd\":\"stats\",\"id\":\"it's\"}  ",
		"{\"cmd\": \"start\", \"args\": {\"dir\": \"/x\", "
		    "\"update_time\": 1E-3, \"files\": 10}}",
	};
	struct request req;
	struct request_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *code = parse(bad[i], &req, &err);

		if (code == NULL || strcmp(code, PROTO_ERR_PARSE) != 0)
			fail_msg("request %zu: %s, not parse_error", i,
			    code ? code : "accepted");
		request_free(&req);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		const char *code = parse(good[i], &req, &err);

		if (code != NULL)
			fail_msg("request %zu refused: %s", i, err.message);
		request_free(&req);
	}
}

/* The non-finite literals json-c still reads through the strict parser
 * (NaN, Infinity, a number past DBL_MAX) never become a value: the
 * argument's range check refuses each, naming it (man stressd.8). */
static void
test_non_finite_literals(void **state)
{
	static const char *const lit[] = {
		"NaN", "Infinity", "-Infinity", "1e999", "-1e999",
	};
	static const char *const field[] = { "update_time", "sample_interval" };
	struct request req;
	struct request_args a;
	struct request_error err;
	char line[256];

	(void)state;
	for (size_t i = 0; i < sizeof(lit) / sizeof(lit[0]); i++)
		for (size_t f = 0; f < 2; f++) {
			snprintf(line, sizeof(line), "{\"cmd\": \"start\", "
			    "\"args\": {\"dir\": \"/x\", \"%s\": %s}}",
			    field[f], lit[i]);
			if (parse(line, &req, &err) != NULL)
				fail_msg("%s: %s", line, err.message);
			memset(&a, 0, sizeof(a));
			if (request_check_args(cmd_find("start")->check,
			    req.args, NULL, &a, &err) == 0)
				fail_msg("%s accepted", line);
			assert_string_equal(err.code, PROTO_ERR_BAD_ARGUMENT);
			assert_string_equal(err.field, field[f]);
			assert_non_null(strstr(err.message, field[f]));
			request_free(&req);
		}
}

static void
test_envelope(void **state)
{
	struct request req;
	struct request_error err;

	(void)state;
	assert_null(parse("{\"cmd\": \"stop\", \"args\": {\"drain\": false}, "
	    "\"id\": 7}", &req, &err));
	assert_string_equal(req.cmd, "stop");
	assert_non_null(req.args);
	assert_int_equal(json_object_get_int(req.id), 7);
	request_free(&req);
	assert_string_equal(parse("{\"cmd\": ", &req, &err), PROTO_ERR_PARSE);
	request_free(&req);
	assert_string_equal(parse("[1]", &req, &err), PROTO_ERR_BAD_REQUEST);
	request_free(&req);
	assert_string_equal(parse("{\"cmd\": 1, \"id\": \"x\"}", &req, &err),
	    PROTO_ERR_BAD_REQUEST);
	assert_string_equal(err.field, "cmd");
	/* Once the id is valid, the refusal echoes it. */
	assert_string_equal(json_object_get_string(req.id), "x");
	request_free(&req);
	assert_string_equal(parse("{\"cmd\": \"stats\", \"args\": []}", &req,
	    &err), PROTO_ERR_BAD_REQUEST);
	assert_string_equal(err.field, "args");
	request_free(&req);
	assert_string_equal(parse("{\"cmd\": \"stats\", \"extra\": 1}", &req,
	    &err), PROTO_ERR_BAD_REQUEST);
	assert_string_equal(err.field, "extra");
	request_free(&req);
	assert_string_equal(parse("{\"cmd\": \"stats\", \"id\": [1]}", &req,
	    &err), PROTO_ERR_BAD_REQUEST);
	assert_string_equal(err.field, "id");
	assert_null(req.id);
	request_free(&req);
}

/* The id comes back exactly as sent, or is refused: json-c clamps an
 * integer past 64 bits to the largest or smallest one. */
static void
test_id_exact(void **state)
{
	static const char *const bad[] = {
		"{\"cmd\": \"stats\", \"id\": 18446744073709551616}",
		"{\"cmd\": \"stats\", \"id\": 99999999999999999999999}",
		"{\"cmd\": \"stats\", \"id\": -9223372036854775809}",
	};
	struct request req;
	struct request_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *code = parse(bad[i], &req, &err);

		if (code == NULL || strcmp(code, PROTO_ERR_BAD_REQUEST) != 0)
			fail_msg("id %zu: %s, not bad_request", i,
			    code ? code : "accepted");
		assert_string_equal(err.field, "id");
		assert_null(req.id);
		request_free(&req);
	}
	/* 1.5 is a number, but no id: the message says what one is. */
	assert_non_null(parse("{\"cmd\": \"stats\", \"id\": 1.5}", &req,
	    &err));
	assert_string_equal(err.field, "id");
	assert_non_null(strstr(err.message, "an integer"));
	request_free(&req);
	assert_null(parse("{\"cmd\": \"stats\", \"id\": 18446744073709551614}",
	    &req, &err));
	assert_string_equal(json_object_to_json_string(req.id),
	    "18446744073709551614");
	request_free(&req);
	assert_null(parse("{\"cmd\": \"stats\", \"id\": -9223372036854775807}",
	    &req, &err));
	assert_string_equal(json_object_to_json_string(req.id),
	    "-9223372036854775807");
	request_free(&req);
}

/* Requests are UTF-8: a byte sequence that is not is a parse error, so no
 * invalid text reaches a reply, stress.log or report.json. */
static void
test_utf8(void **state)
{
	static const char *const bad[] = {
		"{\"cmd\": \"stats\", \"id\": \"\xff\"}",
		"{\"cmd\": \"stats\", \"id\": \"a\xc3\"}",
		"{\"cmd\": \"stats\", \"id\": \"\xe2\x82\"}",
		"{\"cmd\": \"start\", \"args\": {\"dir\": \"/x\x80y\"}}",
		"{\"cmd\": \"stats\", \"\xfe\": 1}",
	};
	struct request req;
	struct request_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *code = parse(bad[i], &req, &err);

		if (code == NULL || strcmp(code, PROTO_ERR_PARSE) != 0)
			fail_msg("request %zu: %s, not parse_error", i,
			    code ? code : "accepted");
		assert_non_null(strstr(err.message, "UTF-8"));
		request_free(&req);
	}
	assert_null(parse("{\"cmd\": \"stats\", \"id\": \"caf\xc3\xa9 "
	    "\xe6\x97\xa5\xf0\x9f\x93\x88\"}", &req, &err));
	assert_string_equal(json_object_get_string(req.id),
	    "caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x93\x88");
	request_free(&req);
}

static void
test_frame(void **state)
{
	size_t len;

	(void)state;
	assert_int_equal(request_frame(10, -1, &len), REQUEST_FRAME_MORE);
	assert_int_equal(request_frame(10, 4, &len), REQUEST_FRAME_LINE);
	assert_int_equal(len, 4);
	assert_int_equal(request_frame(PROTO_MAX_LINE, -1, &len),
	    REQUEST_FRAME_MORE);
	assert_int_equal(request_frame(PROTO_MAX_LINE + 1, -1, &len),
	    REQUEST_FRAME_TOO_LONG);
	assert_int_equal(request_frame(PROTO_MAX_LINE + 9, PROTO_MAX_LINE + 1,
	    &len), REQUEST_FRAME_TOO_LONG);
}

/* However the message escapes, the reply stays one protocol line. */
static void
test_error_reply_bounded(void **state)
{
	char *msg = malloc(PROTO_MAX_MESSAGE);
	json_object *r, *e, *m;
	size_t len;

	(void)state;
	assert_non_null(msg);
	memset(msg, '\001', PROTO_MAX_MESSAGE - 1);	/* 6 bytes escaped */
	msg[PROTO_MAX_MESSAGE - 1] = '\0';
	r = request_error_reply(NULL, PROTO_ERR_BAD_ARGUMENT, "f", msg);
	json_object_to_json_string_length(r, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	assert_true(len < PROTO_MAX_LINE);
	assert_true(json_object_object_get_ex(r, "error", &e));
	assert_true(json_object_object_get_ex(e, "message", &m));
	assert_non_null(strstr(json_object_get_string(m), " [...]"));
	json_object_put(r);
	free(msg);
}

/* Valid UTF-8, by the rules of RFC 3629 (shortest form, no surrogates,
 * nothing past U+10FFFF); written here so the test does not share the code
 * it checks. */
static bool
valid_utf8(const unsigned char *s)
{
	while (*s != '\0') {
		unsigned c = *s, n, cp;

		if (c < 0x80) {
			s++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, cp = c & 0x07;
		else
			return false;
		for (unsigned i = 1; i <= n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i] & 0x3f);
		}
		if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
			return false;
		s += n + 1;
	}
	return true;
}

/* A message that quotes the client's text cut at some byte count (the
 * "'%.100s'" of an unknown command) can cut a character in half anywhere,
 * not only at its end: the reply is still valid UTF-8. */
static void
test_error_reply_utf8(void **state)
{
	static const char *const msgs[] = {
		"unknown command 'caf\xc3'; 'help' lists them",
		"x \xe6\x97 y",
		"\xf0\x9f\x93 at the start",
		"ends cut \xe2\x82",
		"\xff\xfe bytes that are never UTF-8",
	};
	json_object *r, *e, *m;

	(void)state;
	for (size_t i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++) {
		r = request_error_reply(NULL, PROTO_ERR_BAD_ARGUMENT, "f",
		    msgs[i]);
		assert_true(json_object_object_get_ex(r, "error", &e));
		assert_true(json_object_object_get_ex(e, "message", &m));
		if (!valid_utf8((const unsigned char *)json_object_get_string(m)))
			fail_msg("message %zu: '%s' is not UTF-8", i,
			    json_object_get_string(m));
		json_object_put(r);
	}
	/* Whole characters are kept as they are. */
	r = request_error_reply(NULL, PROTO_ERR_BAD_ARGUMENT, "f",
	    "caf\xc3\xa9 \xe6\x97\xa5");
	assert_true(json_object_object_get_ex(r, "error", &e));
	assert_true(json_object_object_get_ex(e, "message", &m));
	assert_string_equal(json_object_get_string(m),
	    "caf\xc3\xa9 \xe6\x97\xa5");
	json_object_put(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stop_args),
		cmocka_unit_test(test_report_args),
		cmocka_unit_test(test_runs_args),
		cmocka_unit_test(test_no_args),
		cmocka_unit_test(test_start_args),
		cmocka_unit_test(test_start_update_fd),
		cmocka_unit_test(test_envelope),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_strict_json),
		cmocka_unit_test(test_id_exact),
		cmocka_unit_test(test_non_finite_literals),
		cmocka_unit_test(test_frame),
		cmocka_unit_test(test_error_reply_bounded),
		cmocka_unit_test(test_error_reply_utf8),
	};

	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	json_object_put(held);
	return failed;
}
