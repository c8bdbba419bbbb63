/* The checks of knob values, from JSON (`start`, profiles) and from text
 * (stressctl, the configuration file). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hostport.h"
#include "knobs.h"
#include "text.h"

static const char *
type_name(enum knob_type t)
{
	switch (t) {
	case KNOB_UINT:		return "a non-negative integer";
	case KNOB_DOUBLE:	return "a number";
	case KNOB_BOOL:		return "true or false";
	case KNOB_STRING:	return "a string";
	case KNOB_RRAS:		return "a list of RRA definitions";
	case KNOB_CHOICE:	return "a string";
	case KNOB_TEXT:		return "a string";
	}
	return "?";
}

/* Only hex digits, ':' and '.' in [c, end): an IPv6 address's text. */
static bool
v6_text(const char *c, const char *end)
{
	for (; c < end; c++)
		if (!isxdigit((unsigned char)*c) && *c != ':' && *c != '.')
			return false;
	return true;
}

/* A name or address of letters, digits, '.', '-', '_' (or a bare IPv6
 * address), or [v6], then maybe ":port" from 1. */
static bool
tcp_addr_ok(const char *a)
{
	struct hostport hp;
	const char *h = hp.host;

	if (hostport_split(a, 0, &hp) != HOSTPORT_OK || hp.port == 0)
		return false;
	if (hp.bracketed || hp.bare_v6)
		return *h != '\0' && v6_text(h, h + strlen(h));
	if (*h == '\0')
		return false;
	for (; *h != '\0'; h++)
		if (!isalnum((unsigned char)*h) && *h != '.' && *h != '-' &&
		    *h != '_')
			return false;
	return true;
}

/* target: librrd, or rrdcached:ADDR with ADDR as rrdcached takes it
 * (unix:/path or /path; host, host:port or [v6]:port). */
static int
check_target(const char *s, char *err, size_t errlen)
{
	const char *a = s + strlen("rrdcached:");
	char q[KNOBS_QUOTE];

	if (strcmp(s, "librrd") == 0)
		return 0;
	if (strncmp(s, "rrdcached:", strlen("rrdcached:")) != 0) {
		snprintf(err, errlen, "target: '%s' is neither librrd nor "
		    "rrdcached:ADDR", text_quote(q, sizeof(q), s, 64));
		return -1;
	}
	if (strncmp(a, "unix:", 5) == 0)
		a += 5;
	if (*a == '\0' || (*a != '/' && a != s + strlen("rrdcached:"))) {
		snprintf(err, errlen, "target: '%s' names no rrdcached "
		    "address (unix:/path, /path, host or host:port)",
		    text_quote(q, sizeof(q), s, 64));
		return -1;
	}
	for (const char *c = a; *c != '\0'; c++)
		if (!isgraph((unsigned char)*c)) {
			snprintf(err, errlen, "target: the address may not "
			    "hold blanks or control characters");
			return -1;
		}
	if (*a != '/' && !tcp_addr_ok(a)) {
		snprintf(err, errlen, "target: '%s' is no host, host:port "
		    "or [v6]:port (port 1 to 65535)",
		    text_quote(q, sizeof(q), a, 64));
		return -1;
	}
	return 0;
}

/* The label knob is free text for headings: any UTF-8 but control
 * characters (C0, DEL, C1), which a terminal or a log would obey. */
static int
check_label(const char *s, char *err, size_t errlen)
{
	for (size_t n; *s != '\0'; s += n) {
		unsigned char c = (unsigned char)*s;

		if ((n = text_utf8_len(s)) == 0) {
			snprintf(err, errlen, "label: not UTF-8 text");
			return -1;
		}
		if (c < 0x20 || c == 0x7f || (c == 0xc2 &&
		    (unsigned char)s[1] < 0xa0)) {
			snprintf(err, errlen, "label: no control character "
			    "(newline, tab, escape...) allowed");
			return -1;
		}
	}
	return 0;
}

/* A sweep id goes into file names and tables: printable, no blanks or
 * slashes, and short. */
int
knobs_check_text(const struct knob *k, const char *s, size_t len, char *err,
    size_t errlen)
{
	if (len >= KNOBS_TEXT_MAX || strlen(s) != len) {
		snprintf(err, errlen, "%s: at most %d %s, no NUL byte", k->name,
		    KNOBS_TEXT_MAX - 1, strcmp(k->name, "label") == 0 ?
		    "bytes" : "characters");
		return -1;
	}
	if (strcmp(k->name, "target") == 0)
		return check_target(s, err, errlen);
	if (strcmp(k->name, "label") == 0)
		return check_label(s, err, errlen);
	for (; *s != '\0'; s++)
		if (!isgraph((unsigned char)*s) || *s == '/') {
			snprintf(err, errlen, "%s: only printable characters "
			    "other than blanks and '/'", k->name);
			return -1;
		}
	return 0;
}

/* The first control character (C0 or DEL) in s, or NULL. */
static const char *
control_char(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return s;
	return NULL;
}

enum knobs_value_problem
knobs_check_value(const struct knob *k, json_object *v, size_t *index)
{
	switch (k->type) {
	case KNOB_UINT: {
		int64_t n;

		/* A value past INT64_MAX comes back clamped, with ERANGE. */
		errno = 0;
		n = json_object_get_int64(v);
		if (errno != 0 || n < 0 || (double)n < k->min ||
		    (double)n > k->max)
			return KNOBS_VALUE_RANGE;
		return KNOBS_VALUE_OK;
	}
	case KNOB_DOUBLE: {
		double d = json_object_get_double(v);

		if (!isfinite(d) || d < k->min || d > k->max)
			return KNOBS_VALUE_RANGE;
		return KNOBS_VALUE_OK;
	}
	case KNOB_STRING: {
		const char *s = json_object_get_string(v), *c;

		if (*s != '\0' && *s != '/')
			return KNOBS_VALUE_PATH;
		if ((c = control_char(s)) != NULL) {
			if (index != NULL)
				*index = (size_t)(c - s);
			return KNOBS_VALUE_CONTROL;
		}
		return KNOBS_VALUE_OK;
	}
	case KNOB_RRAS: {
		size_t n = json_object_array_length(v);

		if (n > KNOBS_MAX_RRAS)
			return KNOBS_VALUE_TOO_MANY_RRAS;
		for (size_t i = 0; i < n; i++) {
			json_object *e = json_object_array_get_idx(v, i);

			if (json_object_get_type(e) != json_type_string ||
			    strncmp(json_object_get_string(e), "RRA:", 4) != 0) {
				if (index != NULL)
					*index = i;
				return KNOBS_VALUE_NOT_RRA;
			}
			if (control_char(json_object_get_string(e)) != NULL) {
				if (index != NULL)
					*index = i;
				return KNOBS_VALUE_CONTROL;
			}
		}
		return n == 0 ? KNOBS_VALUE_NO_RRA : KNOBS_VALUE_OK;
	}
	case KNOB_BOOL:
	case KNOB_CHOICE:	/* checked by their parsers */
	case KNOB_TEXT:
		break;
	}
	return KNOBS_VALUE_OK;
}

const char *
knobs_num_text(double d, char *buf, size_t len)
{
	if (d == floor(d) && fabs(d) < 1e16)
		snprintf(buf, len, "%.0f", d);
	else
		snprintf(buf, len, "%.15g", d);
	return buf;
}

/* The message of knobs_apply for a number out of range: the value as the
 * client wrote it when it is exact, else that it is too large or small
 * (json-c clamps integers past 64 bits and reads 1e400 as infinity). */
static void
range_error(const struct knob *k, json_object *v, char *err, size_t errlen)
{
	char lo[32], hi[32], val[32] = "";
	double d = json_object_get_double(v);

	if (json_object_is_type(v, json_type_int)) {
		if (d >= 0) {
			uint64_t u = json_object_get_uint64(v);

			if (u == UINT64_MAX)
				d = INFINITY;
			else
				snprintf(val, sizeof(val), "%" PRIu64, u);
		} else {
			int64_t n = json_object_get_int64(v);

			if (n == INT64_MIN)
				d = -INFINITY;
			else
				snprintf(val, sizeof(val), "%" PRId64, n);
		}
	} else if (isfinite(d))
		knobs_num_text(d, val, sizeof(val));
	if (isinf(d))
		snprintf(val, sizeof(val), "a number that %s",
		    d > 0 ? "large" : "small");
	else if (isnan(d))	/* NaN is never in range; say so, not "nan" */
		snprintf(val, sizeof(val), "NaN (not a number)");
	snprintf(err, errlen, "%s must be between %s and %s, not %s", k->name,
	    knobs_num_text(k->min, lo, sizeof(lo)), knobs_num_text(k->max, hi, sizeof(hi)),
	    val);
}

/* An RRA list given as a JSON array. */
static int
apply_rras(struct stress_params *p, const struct knob *k, json_object *v,
    char *err, size_t errlen)
{
	size_t bad = 0;

	switch (knobs_check_value(k, v, &bad)) {
	case KNOBS_VALUE_TOO_MANY_RRAS:
		snprintf(err, errlen, "rras: at most %d RRAs", KNOBS_MAX_RRAS);
		return -1;
	case KNOBS_VALUE_NOT_RRA:
		snprintf(err, errlen, "rras[%zu] must be a string starting with "
		    "RRA:", bad);
		return -1;
	case KNOBS_VALUE_NO_RRA:
		snprintf(err, errlen, "rras must hold at least one RRA");
		return -1;
	case KNOBS_VALUE_CONTROL:
		snprintf(err, errlen, "rras[%zu] must not hold a control "
		    "character", bad);
		return -1;
	default:
		break;
	}
	knobs_free(p);		/* the list so far */
	for (size_t i = 0; i < json_object_array_length(v); i++)
		p->rras[p->nrras++] = strdup(json_object_get_string(
		    json_object_array_get_idx(v, i)));
	return 0;
}

static int
apply_one(struct stress_params *p, const struct knob *k, json_object *v,
    char *err, size_t errlen)
{
	char *base = (char *)p + k->offset;
	enum json_type t = json_object_get_type(v);

	switch (k->type) {
	case KNOB_UINT: {
		if (t != json_type_int)
			goto badtype;
		if (knobs_check_value(k, v, NULL) != KNOBS_VALUE_OK) {
			range_error(k, v, err, errlen);
			return -1;
		}
		*(uint64_t *)(void *)base = (uint64_t)json_object_get_int64(v);
		return 0;
	}
	case KNOB_DOUBLE: {
		double d;

		if (t != json_type_int && t != json_type_double)
			goto badtype;
		d = json_object_get_double(v);
		if (knobs_check_value(k, v, NULL) != KNOBS_VALUE_OK) {
			range_error(k, v, err, errlen);
			return -1;
		}
		*(double *)(void *)base = d;
		return 0;
	}
	case KNOB_BOOL:
		if (t != json_type_boolean)
			goto badtype;
		*(bool *)base = json_object_get_boolean(v);
		return 0;
	case KNOB_STRING: {
		const char *s;
		size_t at = 0;

		if (t != json_type_string)
			goto badtype;
		s = json_object_get_string(v);
		if ((size_t)json_object_get_string_len(v) >= sizeof(p->dir) ||
		    strlen(s) != (size_t)json_object_get_string_len(v)) {
			snprintf(err, errlen, "%s is too long or holds a NUL byte",
			    k->name);
			return -1;
		}
		switch (knobs_check_value(k, v, &at)) {
		case KNOBS_VALUE_PATH:
			snprintf(err, errlen, "%s must be an absolute path, not '%s'",
			    k->name, s);
			return -1;
		case KNOBS_VALUE_CONTROL:
			snprintf(err, errlen, "%s must not hold a control character "
			    "(byte 0x%02x at offset %zu)", k->name,
			    (unsigned)(unsigned char)s[at], at);
			return -1;
		default:
			break;
		}
		snprintf(base, sizeof(p->dir), "%s", s);
		return 0;
	}
	case KNOB_TEXT:
		if (t != json_type_string)
			goto badtype;
		if (knobs_check_text(k, json_object_get_string(v),
		    (size_t)json_object_get_string_len(v), err, errlen) == -1)
			return -1;
		snprintf(base, KNOBS_TEXT_MAX, "%s", json_object_get_string(v));
		return 0;
	case KNOB_RRAS:
		if (t == json_type_string)
			return knobs_rras_set_text(p, json_object_get_string(v), err,
			    errlen);
		if (t != json_type_array)
			goto badtype;
		return apply_rras(p, k, v, err, errlen);
	case KNOB_CHOICE: {
		int i;

		if (t != json_type_string)
			goto badtype;
		if ((i = knobs_choice_index(k, json_object_get_string(v))) == -1) {
			char list[128], q[KNOBS_QUOTE];

			knobs_choice_list(k, list, sizeof(list));
			snprintf(err, errlen, "%s must be one of %s, not '%s'",
			    k->name, list, text_quote(q, sizeof(q),
			    json_object_get_string(v), 64));
			return -1;
		}
		*(unsigned *)(void *)base = (unsigned)i;
		return 0;
	}
	}
badtype:
	snprintf(err, errlen, "%s must be %s, not %s", k->name,
	    type_name(k->type), json_type_to_name(t));
	return -1;
}

/* A string, or a string in an array, with a NUL inside: C would cut it
 * there and use the rest silently. */
static bool
holds_nul(json_object *v)
{
	if (json_object_is_type(v, json_type_string))
		return strlen(json_object_get_string(v)) !=
		    (size_t)json_object_get_string_len(v);
	if (!json_object_is_type(v, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(v); i++)
		if (holds_nul(json_object_array_get_idx(v, i)))
			return true;
	return false;
}

int
knobs_apply(struct stress_params *p, json_object *args, const char **field,
    char *err, size_t errlen)
{
	bool zero_given = false;

	*field = NULL;
	if (args == NULL)
		goto check;
	if (json_object_get_type(args) != json_type_object) {
		*field = "args";
		snprintf(err, errlen, "args must be an object");
		return -1;
	}
	json_object_object_foreach(args, key, val) {
		const struct knob *k = knobs_find(key);

		if (k == NULL) {
			/* A copy, so the field outlives the request. */
			static _Thread_local char unknown[128];

			snprintf(unknown, sizeof(unknown), "%s", key);
			*field = unknown;
			snprintf(err, errlen, "unknown argument '%s'", key);
			return -1;
		}
		if (holds_nul(val)) {
			*field = k->name;
			snprintf(err, errlen, "%s holds a NUL byte", k->name);
			return -1;
		}
		if (apply_one(p, k, val, err, errlen) == -1) {
			*field = k->name;
			return -1;
		}
		if (strcmp(key, "zero_files") == 0)
			zero_given = true;
	}
	if (!zero_given)
		p->zero_files = p->files / 2;
check:
	if (p->dir[0] == '\0') {
		*field = "dir";
		snprintf(err, errlen, "dir is required");
		return -1;
	}
	for (size_t i = 0; i < p->nrras; i++) {
		if (strncmp(p->rras[i], "RRA:", 4) != 0) {
			*field = "rras";
			snprintf(err, errlen, "rras: '%s' does not start with RRA:",
			    p->rras[i]);
			return -1;
		}
		if (control_char(p->rras[i]) != NULL) {
			*field = "rras";
			snprintf(err, errlen, "rras: definition %zu must not hold a "
			    "control character", i + 1);
			return -1;
		}
	}
	/* until_steady keeps a rate: flat out has none to keep. */
	if (p->until_steady > 0 && p->update_time <= 0) {
		*field = "until_steady";
		snprintf(err, errlen, "until_steady %g needs a paced run: "
		    "update_time 0 (flat out) has no rate to keep offering; "
		    "give update_time > 0", p->until_steady);
		return -1;
	}
	/* rrdcached writes the files later, in its own threads: there is
	 * nothing on disk to sync after a batch. */
	if (p->sync == KNOBS_SYNC_DATA && knobs_rrdcached_addr(p) != NULL) {
		*field = "sync";
		snprintf(err, errlen, "sync data needs target librrd: with "
		    "an rrdcached target the writers only hand values to "
		    "rrdcached, which writes them later");
		return -1;
	}
	return 0;
}

json_object *
knobs_parse_text(const struct knob *k, const char *text, char *err,
    size_t errlen)
{
	char *end;

	switch (k->type) {
	case KNOB_UINT: {
		unsigned long long n;

		errno = 0;
		n = strtoull(text, &end, 10);
		/* Digits past 64 bits are a number out of range (the range
		 * check says so), not "not an integer". */
		if (errno == ERANGE && *end == '\0' && isdigit((unsigned char)
		    *text))
			return json_object_new_uint64(UINT64_MAX);
		if (*text == '\0' || *end != '\0' || errno != 0 ||
		    strchr(text, '-') != NULL) {
			snprintf(err, errlen, "%s: '%s' is not %s", k->name, text,
			    type_name(k->type));
			return NULL;
		}
		return json_object_new_int64((int64_t)n);
	}
	case KNOB_DOUBLE: {
		double d;

		errno = 0;
		d = strtod(text, &end);
		/* 1e400 is +-HUGE_VAL with ERANGE, which the range check
		 * refuses; 1e-400 is as good as 0. */
		if (*text == '\0' || *end != '\0' ||
		    (errno != 0 && errno != ERANGE)) {
			snprintf(err, errlen, "%s: '%s' is not %s", k->name, text,
			    type_name(k->type));
			return NULL;
		}
		return json_object_new_double(d);
	}
	case KNOB_BOOL:
		if (!strcasecmp(text, "true") || !strcasecmp(text, "yes") ||
		    !strcasecmp(text, "on") || !strcmp(text, "1"))
			return json_object_new_boolean(1);
		if (!strcasecmp(text, "false") || !strcasecmp(text, "no") ||
		    !strcasecmp(text, "off") || !strcmp(text, "0"))
			return json_object_new_boolean(0);
		snprintf(err, errlen, "%s: '%s' is not true or false", k->name,
		    text);
		return NULL;
	case KNOB_STRING:
		return json_object_new_string(text);
	case KNOB_TEXT:
		if (knobs_check_text(k, text, strlen(text), err, errlen) == -1)
			return NULL;
		return json_object_new_string(text);
	case KNOB_RRAS: {
		json_object *a = json_object_new_array();
		char *copy = strdup(text), *save = NULL, *tok;

		for (tok = strtok_r(copy, ",", &save); tok != NULL;
		    tok = strtok_r(NULL, ",", &save))
			json_object_array_add(a, json_object_new_string(tok));
		free(copy);
		return a;
	}
	case KNOB_CHOICE:
		if (knobs_choice_index(k, text) == -1) {
			char list[128];

			knobs_choice_list(k, list, sizeof(list));
			snprintf(err, errlen, "%s: '%s' is not %s", k->name, text,
			    list);
			return NULL;
		}
		return json_object_new_string(text);
	}
	return NULL;
}

