#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "conffile.h"
#include "knobs.h"
#include "memcap.h"
#include "proto.h"
#include "request.h"
#include "text.h"

void
request_set_error(struct request_error *err, const char *code, const char *field,
    const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	err->field = field;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
}

enum request_frame
request_frame(size_t buffered, ssize_t eol, size_t *len)
{
	*len = eol == -1 ? buffered : (size_t)eol;
	if (*len > PROTO_MAX_LINE)
		return REQUEST_FRAME_TOO_LONG;
	return eol == -1 ? REQUEST_FRAME_MORE : REQUEST_FRAME_LINE;
}

/* Offset of the first ' outside a double-quoted string, or -1: strict
 * json-c still takes a single-quoted key, and no JSON holds one there. */
static ssize_t
quote_outside_strings(const char *line, size_t len)
{
	bool in = false;

	for (size_t i = 0; i < len; i++) {
		if (in && line[i] == '\\')
			i++;
		else if (line[i] == '"')
			in = !in;
		else if (!in && line[i] == '\'')
			return (ssize_t)i;
	}
	return -1;
}

int
request_parse(const char *line, size_t len, struct request *req,
    struct request_error *err)
{
	json_tokener *tok = NULL;
	json_object *cmd = NULL, *id = NULL;
	enum json_tokener_error jerr;
	const char *nul;

	memset(req, 0, sizeof(*req));
	if (len > PROTO_MAX_LINE) {
		request_set_error(err, PROTO_ERR_TOO_LONG, NULL,
		    "request line longer than %d bytes", PROTO_MAX_LINE);
		goto fail;
	}
	if ((nul = memchr(line, '\0', len)) != NULL) {
		request_set_error(err, PROTO_ERR_PARSE, NULL,
		    "request holds a NUL byte at offset %zu",
		    (size_t)(nul - line));
		goto fail;
	}
	if (quote_outside_strings(line, len) != -1) {
		request_set_error(err, PROTO_ERR_PARSE, NULL,
		    "request is not valid JSON: a single quote");
		goto fail;
	}
	if ((tok = json_tokener_new_ex(REQUEST_MAX_JSON_DEPTH)) == NULL) {
		request_set_error(err, PROTO_ERR_INTERNAL, NULL, "out of memory");
		goto fail;
	}
	/* Invalid UTF-8 is refused here, so no such text reaches a reply,
	 * stress.log or report.json; strict: comments, single quotes,
	 * trailing commas and NaN are no JSON a client may rely on. */
	json_tokener_set_flags(tok, JSON_TOKENER_VALIDATE_UTF8 |
	    JSON_TOKENER_STRICT);
	/* The terminating NUL is passed too, so a bare number at the end of
	 * the line is complete rather than "to be continued". */
	req->obj = json_tokener_parse_ex(tok, line, (int)len + 1);
	jerr = json_tokener_get_error(tok);
	if (jerr == json_tokener_error_parse_utf8_string) {
		request_set_error(err, PROTO_ERR_PARSE, NULL, "request is not valid "
		    "UTF-8 at offset %zu", json_tokener_get_parse_end(tok));
		goto fail;
	}
	if (jerr != json_tokener_success ||
	    json_tokener_get_parse_end(tok) < len) {
		request_set_error(err, PROTO_ERR_PARSE, NULL,
		    "request is not valid JSON: %s",
		    jerr == json_tokener_success ?
		    "trailing characters after the value" :
		    (jerr == json_tokener_continue ? "unexpected end of line" :
		    json_tokener_error_desc(jerr)));
		goto fail;
	}
	if (!json_object_is_type(req->obj, json_type_object)) {
		request_set_error(err, PROTO_ERR_BAD_REQUEST, NULL,
		    "request must be a JSON object, not %s",
		    json_type_to_name(json_object_get_type(req->obj)));
		goto fail;
	}
	if (json_object_object_get_ex(req->obj, "id", &id) &&
	    !json_object_is_type(id, json_type_int) &&
	    !json_object_is_type(id, json_type_string) &&
	    !json_object_is_type(id, json_type_null)) {
		request_set_error(err, PROTO_ERR_BAD_REQUEST, "id",
		    "id must be an integer or a string (or null)");
		goto fail;
	}
	/* json-c clamps an integer past 64 bits to UINT64_MAX or INT64_MIN,
	 * which would echo another id than the client's: both refused. */
	if (id != NULL && json_object_is_type(id, json_type_int) &&
	    (json_object_get_uint64(id) == UINT64_MAX ||
	    json_object_get_int64(id) == INT64_MIN)) {
		request_set_error(err, PROTO_ERR_BAD_REQUEST, "id", "id must be an "
		    "integer from -9223372036854775807 to "
		    "18446744073709551614, or a string");
		goto fail;
	}
	/* The id is echoed: a long one would make replies longer than a
	 * protocol line. */
	if (id != NULL && json_object_is_type(id, json_type_string) &&
	    json_object_get_string_len(id) > REQUEST_MAX_ID_LEN) {
		request_set_error(err, PROTO_ERR_BAD_REQUEST, "id",
		    "id longer than %d bytes", REQUEST_MAX_ID_LEN);
		goto fail;
	}
	/* From here on errors echo the id. */
	req->id = id;
	json_object_object_foreach(req->obj, key, val) {
		(void)val;
		if (strcmp(key, "cmd") && strcmp(key, "args") &&
		    strcmp(key, "id")) {
			request_set_error(err, PROTO_ERR_BAD_REQUEST, key,
			    "unknown request key '%s' (expected cmd, args, id)",
			    key);
			goto fail;
		}
	}
	if (!json_object_object_get_ex(req->obj, "cmd", &cmd) ||
	    !json_object_is_type(cmd, json_type_string) ||
	    strlen(json_object_get_string(cmd)) !=
	    (size_t)json_object_get_string_len(cmd)) {
		request_set_error(err, PROTO_ERR_BAD_REQUEST, "cmd",
		    "request needs \"cmd\" as a string");
		goto fail;
	}
	if (json_object_object_get_ex(req->obj, "args", &req->args) &&
	    !json_object_is_type(req->args, json_type_object)) {
		req->args = NULL;
		request_set_error(err, PROTO_ERR_BAD_REQUEST, "args",
		    "args must be an object");
		goto fail;
	}
	req->cmd = json_object_get_string(cmd);
	json_tokener_free(tok);
	return 0;
fail:
	if (tok != NULL)	/* json_tokener_free(NULL) crashes */
		json_tokener_free(tok);
	return -1;
}

json_object *
request_envelope(json_object *id, bool ok)
{
	json_object *r = json_object_new_object();

	json_object_object_add(r, "ok", json_object_new_boolean(ok));
	if (id != NULL)
		json_object_object_add(r, "id", json_object_get(id));
	return r;
}

json_object *
request_error_reply(json_object *id, const char *code, const char *field,
    const char *message)
{
	json_object *r = request_envelope(id, false);
	json_object *e = json_object_new_object();
	char msg[PROTO_MAX_MESSAGE], fld[REQUEST_MAX_FIELD + 1];
	size_t len, cut, n;

	/* Whatever a message quotes and however it was cut, the reply is
	 * UTF-8: cut between characters, bytes that are none replaced. */
	json_object_object_add(e, "code", json_object_new_string(code));
	if (field != NULL) {
		n = text_cut(field, REQUEST_MAX_FIELD);
		memcpy(fld, field, n);
		fld[n] = '\0';
		text_utf8_repair(fld);
		json_object_object_add(e, "field", json_object_new_string(fld));
	}
	n = text_cut(message, sizeof(msg) - 1);
	memcpy(msg, message, n);
	msg[n] = '\0';
	text_utf8_repair(msg);
	json_object_object_add(e, "message", json_object_new_string(msg));
	json_object_object_add(r, "error", e);
	/* A control byte of the client's escapes to six: halve the message
	 * until the reply is one protocol line. */
	for (cut = strlen(msg); cut >= 16; cut /= 2) {
		json_object_to_json_string_length(r, JSON_C_TO_STRING_PLAIN |
		    JSON_C_TO_STRING_NOSLASHESCAPE, &len);
		if (len < PROTO_MAX_LINE)
			break;
		n = text_cut(msg, cut / 2);
		snprintf(msg + n, sizeof(msg) - n, " [...]");
		json_object_object_add(e, "message",
		    json_object_new_string(msg));
	}
	return r;
}

void
request_free(struct request *req)
{
	json_object_put(req->obj);
	memset(req, 0, sizeof(*req));
}

/* ------------------------------------------------------------ arguments */

/* Refuse arguments a command does not take. */
static int
check_allowed(json_object *args, const char *const *allowed,
    struct request_error *err)
{
	if (args == NULL)
		return 0;
	json_object_object_foreach(args, key, val) {
		size_t i;

		(void)val;
		for (i = 0; allowed[i] != NULL; i++)
			if (strcmp(allowed[i], key) == 0)
				break;
		if (allowed[i] == NULL) {
			request_set_error(err, PROTO_ERR_BAD_ARGUMENT, key,
			    "unknown argument '%s'", key);
			return -1;
		}
	}
	return 0;
}

/* A boolean argument; *out is left alone when it is not given. */
static int
arg_bool(json_object *args, const char *name, bool *out,
    struct request_error *err)
{
	json_object *v;

	if (args == NULL || !json_object_object_get_ex(args, name, &v))
		return 0;
	if (!json_object_is_type(v, json_type_boolean)) {
		request_set_error(err, PROTO_ERR_BAD_ARGUMENT, name,
		    "%s must be true or false", name);
		return -1;
	}
	*out = json_object_get_boolean(v);
	return 0;
}

/*
 * The run's arguments: those of the named profile (args' "profile"), with
 * args' own knobs over them.  A new object, or NULL with *err filled.
 */
static json_object *
merged_args(json_object *args, const struct config *cfg,
    struct request_error *err)
{
	json_object *out = json_object_new_object(), *name, *prof;

	if (out == NULL) {
		request_set_error(err, PROTO_ERR_INTERNAL, NULL, "out of memory");
		return NULL;
	}
	if (args != NULL && json_object_object_get_ex(args, "profile", &name)) {
		if (!json_object_is_type(name, json_type_string)) {
			request_set_error(err, PROTO_ERR_BAD_ARGUMENT, "profile",
			    "profile must be a string");
			goto fail;
		}
		if (cfg == NULL || (prof = conffile_profile(cfg,
		    json_object_get_string(name))) == NULL) {
			char q[80];

			request_set_error(err, PROTO_ERR_BAD_ARGUMENT, "profile",
			    "no profile '%s' in %s", text_quote(q, sizeof(q),
			    json_object_get_string(name), 64),
			    cfg != NULL && cfg->path[0] ? cfg->path :
			    "the configuration (none was read)");
			goto fail;
		}
		json_object_object_foreach(prof, pk, pv)
			json_object_object_add(out, pk, json_object_get(pv));
	}
	if (args != NULL) {
		json_object_object_foreach(args, k, v)
			if (strcmp(k, "profile") != 0)
				json_object_object_add(out, k,
				    json_object_get(v));
	}
	return out;
fail:
	json_object_put(out);
	return NULL;
}

int
request_check_start(json_object *args, const struct config *cfg,
    struct request_args *a, struct request_error *err)
{
	json_object *merged, *v;
	const char *field = NULL;
	int rv;

	if (arg_bool(args, "update_fd", &a->update_fd, err) == -1 ||
	    (merged = merged_args(args, cfg, err)) == NULL)
		return -1;
	/* Not a knob: how update_file reaches the daemon. */
	json_object_object_del(merged, "update_fd");
	a->update_path_given = args != NULL &&
	    json_object_object_get_ex(args, "update_file", &v) &&
	    json_object_is_type(v, json_type_string) &&
	    json_object_get_string_len(v) > 0;
	if (a->update_fd && !a->update_path_given) {
		request_set_error(err, PROTO_ERR_BAD_ARGUMENT, "update_fd",
		    "update_fd needs update_file, the name the passed file "
		    "is recorded under");
		json_object_put(merged);
		return -1;
	}
	knobs_defaults(&a->params);
	if (cfg != NULL)	/* the file's default; a run may set its own */
		a->params.sample_interval = cfg->sample_interval;
	if ((rv = knobs_apply(&a->params, merged, &field, err->message,
	    PROTO_MAX_RUN_ERROR)) == -1) {
		err->code = PROTO_ERR_BAD_ARGUMENT;
		err->field = field;
		knobs_free(&a->params);
	}
	/* Under a memory cap the queue must leave the daemon its floor; a
	 * default one may be lowered again beside the run's other needs
	 * (memneed.h, at its setup). */
	a->params.queue_memory_fit = !json_object_object_get_ex(merged,
	    "queue_memory_max", NULL);
	if (rv == 0 && memcap_check_queue(&a->params.queue_memory_max,
	    !a->params.queue_memory_fit, err->message,
	    PROTO_MAX_RUN_ERROR) == -1) {
		err->code = PROTO_ERR_BAD_ARGUMENT;
		err->field = "queue_memory_max";
		knobs_free(&a->params);
		rv = -1;
	}
	json_object_put(merged);
	return rv;
}

int
request_check_stop(json_object *args, const struct config *cfg,
    struct request_args *a, struct request_error *err)
{
	static const char *const allowed[] = { "drain", "wait", NULL };

	(void)cfg;
	if (check_allowed(args, allowed, err) == -1 ||
	    arg_bool(args, "drain", &a->drain, err) == -1 ||
	    arg_bool(args, "wait", &a->wait, err) == -1)
		return -1;
	return 0;
}

int
request_check_report(json_object *args, const struct config *cfg,
    struct request_args *a, struct request_error *err)
{
	static const char *const allowed[] = { "run", "kind", NULL };
	json_object *v;

	(void)cfg;
	if (check_allowed(args, allowed, err) == -1)
		return -1;
	/* kind "sweep": the sweep record kept in the run's directory. */
	if (args != NULL && json_object_object_get_ex(args, "kind", &v)) {
		if (!json_object_is_type(v, json_type_string) ||
		    (strcmp(json_object_get_string(v), "run") != 0 &&
		    strcmp(json_object_get_string(v), "sweep") != 0)) {
			request_set_error(err, PROTO_ERR_BAD_ARGUMENT, "kind",
			    "kind must be \"run\" or \"sweep\"");
			return -1;
		}
		if (strcmp(json_object_get_string(v), "sweep") == 0)
			a->record_kind = "sweep";
	}
	if (args != NULL && json_object_object_get_ex(args, "run", &v)) {
		if (!json_object_is_type(v, json_type_int) ||
		    (a->run = json_object_get_int64(v)) < 1 ||
		    a->run > 999999999) {
			request_set_error(err, PROTO_ERR_BAD_ARGUMENT, "run",
			    "run must be a run id (a positive integer)");
			return -1;
		}
	}
	return 0;
}

/* args[name], when present, an integer in lo..hi into *out. */
static int
arg_int_range(json_object *args, const char *name, int64_t lo, int64_t hi,
    int64_t *out, struct request_error *err)
{
	json_object *v;

	if (args == NULL || !json_object_object_get_ex(args, name, &v))
		return 0;
	if (!json_object_is_type(v, json_type_int) ||
	    (*out = json_object_get_int64(v)) < lo || *out > hi) {
		request_set_error(err, PROTO_ERR_BAD_ARGUMENT, name,
		    "%s must be an integer from %lld to %lld", name,
		    (long long)lo, (long long)hi);
		return -1;
	}
	return 0;
}

int
request_check_runs(json_object *args, const struct config *cfg,
    struct request_args *a, struct request_error *err)
{
	static const char *const allowed[] = { "limit", "before", NULL };

	(void)cfg;
	a->limit = REQUEST_RUNS_LIMIT_DEFAULT;
	if (check_allowed(args, allowed, err) == -1 ||
	    arg_int_range(args, "limit", 1, REQUEST_RUNS_LIMIT_MAX, &a->limit,
	    err) == -1 ||
	    arg_int_range(args, "before", 1, REQUEST_RUNS_BEFORE_MAX,
	    &a->before, err) == -1)
		return -1;
	return 0;
}

int
request_check_none(json_object *args, const struct config *cfg,
    struct request_args *a, struct request_error *err)
{
	static const char *const none[] = { NULL };

	(void)cfg;
	(void)a;
	return check_allowed(args, none, err);
}

int
request_check_args(request_check_fn check, json_object *args,
    const struct config *cfg, struct request_args *out,
    struct request_error *err)
{
	struct request_args scratch;

	/* The defaults: a stop drains and waits. */
	memset(&scratch, 0, sizeof(scratch));
	scratch.drain = scratch.wait = true;
	if (check(args, cfg, &scratch, err) == -1)
		return -1;
	if (out != NULL)
		*out = scratch;
	else
		request_args_free(&scratch);
	return 0;
}

void
request_args_free(struct request_args *a)
{
	knobs_free(&a->params);
	capopts_free(&a->cap);
	request_sweep_opts_free(&a->sweep);
}

void
request_sweep_opts_free(struct sweep_opts *o)
{
	for (size_t i = 0; i < SWEEP_MAX_DIRS; i++) {
		free(o->dirs[i]);
		free(o->labels[i]);
		o->dirs[i] = o->labels[i] = NULL;
	}
	o->ndirs = 0;
}

const char *
request_indexed(const char *key, size_t i)
{
	static char field_buf[32];

	snprintf(field_buf, sizeof(field_buf), "%s[%zu]", key, i);
	return field_buf;
}

int
request_string_list(json_object *args, const char *key, size_t max,
    char **out, size_t *n, struct request_error *err)
{
	json_object *v;

	*n = 0;
	if (!json_object_object_get_ex(args, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_array) ||
	    json_object_array_length(v) < 1 ||
	    json_object_array_length(v) > max) {
		request_set_error(err, PROTO_ERR_BAD_ARGUMENT, key,
		    "%s must be a list of 1 to %zu strings", key, max);
		return -1;
	}
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		json_object *e = json_object_array_get_idx(v, i);

		if (!json_object_is_type(e, json_type_string)) {
			request_set_error(err, PROTO_ERR_BAD_ARGUMENT,
			    request_indexed(key, i), "%s must be a string",
			    request_indexed(key, i));
			return -1;
		}
		if ((out[i] = strdup(json_object_get_string(e))) == NULL) {
			request_set_error(err, PROTO_ERR_INTERNAL, NULL,
			    "out of memory");
			return -1;
		}
		(*n)++;
	}
	return 0;
}
