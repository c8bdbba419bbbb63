/* The configuration file; see config.h and stressd.conf(5). */
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <ini.h>

#include "conffile.h"
#include "knobs.h"
#include "log.h"

#ifndef STRESSD_DEFAULT_SOCKET
#define STRESSD_DEFAULT_SOCKET		"/run/stressd/stressd.sock"
#endif
#ifndef STRESSD_DEFAULT_STATE_DIR
#define STRESSD_DEFAULT_STATE_DIR	"/var/lib/stressd"
#endif

/* Room for the lines of profile keys; checked against knobs_count. */
#define CONFIG_MAX_KNOBS	64
#define SYNTAX_MSG \
	"expected 'key = value', '[profile NAME]' or a comment"

static const char *const level_names[] = { "err", "warn", "info", "debug" };

/* ------------------------------------------------------------ values */

/* strtod over the whole text, finite, within [min, max]. */
static int
parse_number(const char *v, double min, double max, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (*v == '\0' || *end != '\0' || errno != 0 || !isfinite(d) ||
	    d < min || d > max)
		return -1;
	*out = d;
	return 0;
}

/* Shortest of %.15g and %.17g that reads back as d, so 0.1 stays 0.1. */
static void
print_number(FILE *fp, double d)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.15g", d);
	if (strtod(buf, NULL) != d)
		snprintf(buf, sizeof(buf), "%.17g", d);
	fputs(buf, fp);
}

static int
parse_path(char *dst, size_t size, const char *v)
{
	if (v[0] != '/' || strlen(v) >= size)
		return -1;
	snprintf(dst, size, "%s", v);
	return 0;
}

/* ------------------------------------------------------------ global keys */

static int
set_socket(struct config *c, const char *v, char *e, size_t n)
{
	if (parse_path(c->socket, sizeof(c->socket), v) == -1) {
		snprintf(e, n, "expected an absolute path of at most %zu bytes",
		    sizeof(c->socket) - 1);
		return -1;
	}
	return 0;
}

static bool
get_socket(const struct config *c, FILE *fp)
{
	fputs(c->socket, fp);
	return true;
}

/* The group must exist now: a typo would otherwise only show when the
 * socket is created, as a daemon that does not start. */
static int
set_socket_group(struct config *c, const char *v, char *e, size_t n)
{
	if (*v != '\0' && (strlen(v) >= sizeof(c->socket_group) ||
	    getgrnam(v) == NULL)) {
		snprintf(e, n, "expected the name of an existing group");
		return -1;
	}
	snprintf(c->socket_group, sizeof(c->socket_group), "%s", v);
	return 0;
}

static bool
get_socket_group(const struct config *c, FILE *fp)
{
	fputs(c->socket_group, fp);
	return c->socket_group[0] != '\0';
}

/* Always octal, with or without the leading 0, as chmod(1) reads it. */
static int
set_socket_mode(struct config *c, const char *v, char *e, size_t n)
{
	size_t len = strlen(v);
	unsigned long m;

	if (len == 0 || len > 5 || strspn(v, "01234567") != len ||
	    (m = strtoul(v, NULL, 8)) > 0777) {
		snprintf(e, n, "expected an octal mode from 0000 to 0777, "
		    "such as 0660");
		return -1;
	}
	c->socket_mode = (unsigned)m;
	return 0;
}

static bool
get_socket_mode(const struct config *c, FILE *fp)
{
	fprintf(fp, "%04o", c->socket_mode);
	return true;
}

static int
set_state_dir(struct config *c, const char *v, char *e, size_t n)
{
	if (parse_path(c->state_dir, sizeof(c->state_dir), v) == -1) {
		snprintf(e, n, "expected an absolute path");
		return -1;
	}
	return 0;
}

static bool
get_state_dir(const struct config *c, FILE *fp)
{
	fputs(c->state_dir, fp);
	return true;
}

/*
 * A list key (allowed_dirs, allowed_targets): items separated by commas or
 * blanks, each stored by add (0, or -1 when it is no item: "expected
 * <what>, and 'x' is not one"), at most CONFIG_MAX_ALLOWED.  Given but
 * empty is refused rather than read as "nothing allowed": a daemon that
 * refuses every run is never what was meant.  *count: the items stored
 * (0 after an error).
 */
static int
set_list(struct config *c, const char *v, size_t *count, const char *what,
    const char *empty, int (*add)(struct config *, size_t, const char *),
    char *e, size_t n)
{
	char *copy, *save = NULL, *tok;
	int rc = -1;

	if ((copy = strdup(v)) == NULL) {
		snprintf(e, n, "out of memory");
		return -1;
	}
	*count = 0;
	for (tok = strtok_r(copy, ", \t", &save); tok != NULL;
	    tok = strtok_r(NULL, ", \t", &save)) {
		if (*count == CONFIG_MAX_ALLOWED) {
			snprintf(e, n, "expected at most %d %s",
			    CONFIG_MAX_ALLOWED, what);
			goto fail;
		}
		if (add(c, *count, tok) == -1) {
			snprintf(e, n, "expected %s separated by commas or "
			    "blanks, and '%s' is not one", what, tok);
			goto fail;
		}
		(*count)++;
	}
	if (*count == 0) {
		snprintf(e, n, "%s", empty);
		goto fail;
	}
	rc = 0;
fail:
	if (rc == -1)
		*count = 0;
	free(copy);
	return rc;
}

static int
add_allowed_dir(struct config *c, size_t i, const char *tok)
{
	return parse_path(c->allowed_dirs[i], 4096, tok);
}

static int
set_allowed_dirs(struct config *c, const char *v, char *e, size_t n)
{
	if (set_list(c, v, &c->nallowed, "absolute paths", "expected one or "
	    "more absolute paths (leave the key out to let runs write "
	    "anywhere)", add_allowed_dir, e, n) == -1)
		return -1;
	c->restricted = true;
	return 0;
}

static bool
get_allowed_dirs(const struct config *c, FILE *fp)
{
	for (size_t i = 0; i < c->nallowed; i++)
		fprintf(fp, "%s%s", i ? ", " : "", c->allowed_dirs[i]);
	return c->restricted;
}

/* An rrdcached address as the target knob takes it after "rrdcached:". */
static int
add_allowed_target(struct config *c, size_t i, const char *tok)
{
	char full[KNOBS_TEXT_MAX + 16], why[256];

	snprintf(full, sizeof(full), "rrdcached:%s", tok);
	if (knobs_check_text(knobs_find("target"), full, strlen(full), why,
	    sizeof(why)) == -1)
		return -1;
	snprintf(c->allowed_targets[i], sizeof(c->allowed_targets[0]), "%s",
	    tok);
	return 0;
}

static int
set_allowed_targets(struct config *c, const char *v, char *e, size_t n)
{
	return set_list(c, v, &c->ntargets, "rrdcached addresses (unix:/path, "
	    "host or host:port)", "expected one or more rrdcached addresses "
	    "(leave the key out to let runs use any)", add_allowed_target, e,
	    n);
}

static bool
get_allowed_targets(const struct config *c, FILE *fp)
{
	for (size_t i = 0; i < c->ntargets; i++)
		fprintf(fp, "%s%s", i ? ", " : "", c->allowed_targets[i]);
	return c->ntargets > 0;
}

/* The grammar prom_start takes: [ADDR:]PORT, ADDR numeric IPv4 or
 * localhost, or [IPV6]:PORT.  Checked here so --check-config sees it. */
static int
set_metrics_listen(struct config *c, const char *v, char *e, size_t n)
{
	char host[INET6_ADDRSTRLEN + 1] = "";
	unsigned char addr[sizeof(struct in6_addr)];
	const char *port = v, *colon;
	size_t hlen = 0;
	int family = AF_INET;

	if (*v == '\0') {
		c->metrics_listen[0] = '\0';
		return 0;
	}
	if (strlen(v) >= sizeof(c->metrics_listen))
		goto fail;
	if (v[0] == '[') {
		const char *rb = strchr(v, ']');

		if (rb == NULL || rb[1] != ':')
			goto fail;
		family = AF_INET6;
		hlen = (size_t)(rb - v - 1);
		if (hlen >= sizeof(host))
			goto fail;
		memcpy(host, v + 1, hlen);
		port = rb + 2;
	} else if ((colon = strrchr(v, ':')) != NULL) {
		hlen = (size_t)(colon - v);
		if (hlen >= sizeof(host))
			goto fail;
		memcpy(host, v, hlen);
		port = colon + 1;
	}
	host[hlen] = '\0';
	if (family == AF_INET6 || (*host != '\0' &&
	    strcmp(host, "localhost") != 0))
		if (inet_pton(family, host, addr) != 1)
			goto fail;
	if (*port == '\0' || strlen(port) > 5 ||
	    strspn(port, "0123456789") != strlen(port) ||
	    strtoul(port, NULL, 10) > 65535)
		goto fail;
	snprintf(c->metrics_listen, sizeof(c->metrics_listen), "%s", v);
	return 0;
fail:
	snprintf(e, n, "expected [ADDR:]PORT or [IPV6]:PORT, ADDR a numeric "
	    "IPv4 address or localhost, PORT from 0 to 65535");
	return -1;
}

static bool
get_metrics_listen(const struct config *c, FILE *fp)
{
	fputs(c->metrics_listen, fp);
	return c->metrics_listen[0] != '\0';
}

static int
set_sample_interval(struct config *c, const char *v, char *e, size_t n)
{
	if (parse_number(v, 0.1, 60, &c->sample_interval) == -1) {
		snprintf(e, n, "expected a number of seconds from 0.1 to 60");
		return -1;
	}
	return 0;
}

static bool
get_sample_interval(const struct config *c, FILE *fp)
{
	print_number(fp, c->sample_interval);
	return true;
}

static int
set_log_level(struct config *c, const char *v, char *e, size_t n)
{
	int l = log_level_parse(v);

	if (l == -1) {
		snprintf(e, n, "expected err, warn, info or debug");
		return -1;
	}
	c->log_level = l;
	return 0;
}

static bool
get_log_level(const struct config *c, FILE *fp)
{
	if (c->log_level >= 0 && c->log_level <= LOG_LVL_DEBUG)
		fputs(level_names[c->log_level], fp);
	else
		fprintf(fp, "%d", c->log_level);
	return true;
}

static int
set_drain_timeout(struct config *c, const char *v, char *e, size_t n)
{
	if (parse_number(v, 0, 86400, &c->drain_timeout) == -1) {
		snprintf(e, n, "expected a number of seconds from 0 to 86400");
		return -1;
	}
	return 0;
}

static bool
get_drain_timeout(const struct config *c, FILE *fp)
{
	print_number(fp, c->drain_timeout);
	return true;
}

/* The global keys in the order conffile_print shows them. */
static const struct global_key {
	const char	*name;
	/* On a bad value: -1 and "expected ..." in the buffer. */
	int		(*set)(struct config *, const char *, char *, size_t);
	/* Print the value; false when the key is not set. */
	bool		(*get)(const struct config *, FILE *);
	const char	*unset;		/* what leaving it out means */
} globals[] = {
	{ "socket", set_socket, get_socket, NULL },
	{ "socket_group", set_socket_group, get_socket_group,
	  "the socket keeps the daemon's group" },
	{ "socket_mode", set_socket_mode, get_socket_mode, NULL },
	{ "state_dir", set_state_dir, get_state_dir, NULL },
	{ "allowed_dirs", set_allowed_dirs, get_allowed_dirs,
	  "runs may write wherever the daemon can" },
	{ "allowed_targets", set_allowed_targets, get_allowed_targets,
	  "runs may send to any rrdcached" },
	{ "metrics_listen", set_metrics_listen, get_metrics_listen,
	  "no metrics listener" },
	{ "sample_interval", set_sample_interval, get_sample_interval, NULL },
	{ "log_level", set_log_level, get_log_level, NULL },
	{ "drain_timeout", set_drain_timeout, get_drain_timeout, NULL },
};
#define NGLOBALS	(sizeof(globals) / sizeof(globals[0]))

static const struct global_key *
global_find(const char *name)
{
	for (size_t i = 0; i < NGLOBALS; i++)
		if (strcmp(globals[i].name, name) == 0)
			return &globals[i];
	return NULL;
}

/* ------------------------------------------------------------ profile keys */

static void
knob_expected(const struct knob *k, char *e, size_t n)
{
	switch (k->type) {
	case KNOB_UINT:
		snprintf(e, n, "expected an integer from %.0f to %.0f",
		    k->min, k->max);
		break;
	case KNOB_DOUBLE:
		snprintf(e, n, "expected a number from %.15g to %.15g",
		    k->min, k->max);
		break;
	case KNOB_BOOL:
		snprintf(e, n, "expected true or false");
		break;
	case KNOB_STRING:
		snprintf(e, n, strcmp(k->name, "dir") == 0 ?
		    "expected an absolute path" :
		    "expected an absolute path or nothing");
		break;
	case KNOB_RRAS:
		snprintf(e, n, "expected up to %d RRA:... definitions "
		    "separated by commas", KNOBS_MAX_RRAS);
		break;
	case KNOB_TEXT:
		snprintf(e, n, "expected up to %d printable characters, no "
		    "blanks or '/'", KNOBS_TEXT_MAX - 1);
		break;
	case KNOB_CHOICE: {
		const char *const *c = knobs_choices(k);
		size_t len = (size_t)snprintf(e, n, "expected");

		for (int i = 0; c[i] != NULL && len < n; i++)
			len += (size_t)snprintf(e + len, n - len, "%s%s",
			    i == 0 ? " " : c[i + 1] == NULL ? " or " : ", ",
			    c[i]);
		break;
	}
	}
}

/* The last word is knobs_apply's, the very check `start` makes, so a
 * profile can never hold what the daemon would then refuse. */
static int
knob_accepted(const struct knob *k, json_object *v, char *e, size_t n)
{
	struct stress_params p;
	json_object *args = json_object_new_object();
	const char *field;
	int rc;

	knobs_defaults(&p);
	strcpy(p.dir, "/");
	json_object_object_add(args, k->name, json_object_get(v));
	rc = knobs_apply(&p, args, &field, e, n);
	json_object_put(args);
	knobs_free(&p);
	return rc;
}

/* The typed JSON value stressctl would send for text, or NULL with the
 * reason in e. */
static json_object *
knob_value(const struct knob *k, const char *text, char *e, size_t n)
{
	char scratch[256], *squeezed = NULL;
	json_object *v;
	size_t len;

	if (k->type == KNOB_RRAS) {
		/* Definitions hold no blanks: allow "a, b". */
		size_t j = 0;

		if ((squeezed = malloc(strlen(text) + 1)) == NULL) {
			snprintf(e, n, "out of memory");
			return NULL;
		}
		for (const char *s = text; *s != '\0'; s++)
			if (*s != ' ' && *s != '\t')
				squeezed[j++] = *s;
		squeezed[j] = '\0';
		text = squeezed;
	}
	v = knobs_parse_text(k, text, scratch, sizeof(scratch));
	if (v == NULL)
		goto bad;
	switch (k->type) {
	case KNOB_UINT: {
		int64_t i = json_object_get_int64(v);

		if (i < 0 || (double)i < k->min || (double)i > k->max)
			goto bad;
		break;
	}
	case KNOB_DOUBLE: {
		double d = json_object_get_double(v);

		if (!isfinite(d) || d < k->min || d > k->max)
			goto bad;
		break;
	}
	case KNOB_BOOL:
	case KNOB_TEXT:		/* checked by knobs_parse_text */
	case KNOB_CHOICE:	/* likewise */
		break;
	case KNOB_STRING:
		if (*text == '\0' ? strcmp(k->name, "dir") == 0 : *text != '/')
			goto bad;
		break;
	case KNOB_RRAS:
		len = json_object_array_length(v);
		if (len == 0 || len > KNOBS_MAX_RRAS)
			goto bad;
		for (size_t i = 0; i < len; i++)
			if (strncmp(json_object_get_string(
			    json_object_array_get_idx(v, i)), "RRA:", 4) != 0)
				goto bad;
		break;
	}
	if (knob_accepted(k, v, e, n) == -1)
		goto fail;
	free(squeezed);
	return v;
bad:
	knob_expected(k, e, n);
fail:
	json_object_put(v);
	free(squeezed);
	return NULL;
}

static void
print_json_value(FILE *fp, json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_int:
		fprintf(fp, "%lld", (long long)json_object_get_int64(v));
		break;
	case json_type_double:
		print_number(fp, json_object_get_double(v));
		break;
	case json_type_boolean:
		fputs(json_object_get_boolean(v) ? "true" : "false", fp);
		break;
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(v); i++)
			fprintf(fp, "%s%s", i ? "," : "", json_object_get_string(
			    json_object_array_get_idx(v, i)));
		break;
	default:
		fputs(json_object_get_string(v), fp);
		break;
	}
}

/* ------------------------------------------------------------ loading */

struct load {
	struct config		*c;
	FILE			*fp;
	unsigned		 line;		/* the line inih works on */
	struct conffile_profile	*prof;		/* NULL: global keys */
	unsigned		 gline[NGLOBALS];	/* where each was set */
	unsigned		 pline[CONFIG_MAX_PROFILES][CONFIG_MAX_KNOBS];
	unsigned		 secline[CONFIG_MAX_PROFILES];
	unsigned		 errline;	/* of the first error, 0 = none */
	char			 msg[1024];
	bool			 stop;
};

/* Keep the first error only, and stop reading at it.  0 for inih. */
static int
load_fail(struct load *ld, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
load_fail(struct load *ld, const char *fmt, ...)
{
	va_list ap;

	if (ld->errline != 0)
		return 0;
	ld->errline = ld->line;
	ld->stop = true;
	va_start(ap, fmt);
	vsnprintf(ld->msg, sizeof(ld->msg), fmt, ap);
	va_end(ap);
	return 0;
}

static bool
profile_name_ok(const char *s)
{
	size_t len = strlen(s);

	return len > 0 && len < sizeof(((struct conffile_profile *)0)->name) &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_-.") == len;
}

/* A "[...]" line, blanks already trimmed from both ends. */
static void
load_section(struct load *ld, char *s)
{
	struct config *c = ld->c;
	struct conffile_profile *p;
	size_t len = strlen(s);
	char *name;

	ld->prof = NULL;
	if (len < 2 || s[len - 1] != ']') {
		load_fail(ld, "bad section header: expected '[profile NAME]'");
		return;
	}
	s[len - 1] = '\0';
	s++;
	s += strspn(s, " \t");
	for (char *end = s + strlen(s); end > s &&
	    (end[-1] == ' ' || end[-1] == '\t'); )
		*--end = '\0';
	if (strncmp(s, "profile", 7) != 0 || (s[7] != '\0' && s[7] != ' ' &&
	    s[7] != '\t')) {
		load_fail(ld, "unknown section [%s]: expected [profile NAME] "
		    "(global keys go before the first section)", s);
		return;
	}
	name = s + 7 + strspn(s + 7, " \t");
	if (!profile_name_ok(name)) {
		load_fail(ld, "bad profile name '%s': expected 1 to %zu "
		    "letters, digits, '_', '-' or '.'", name,
		    sizeof(p->name) - 1);
		return;
	}
	for (size_t i = 0; i < c->nprofiles; i++)
		if (strcmp(c->profiles[i].name, name) == 0) {
			load_fail(ld, "duplicate section [profile %s] (first "
			    "on line %u)", name, ld->secline[i]);
			return;
		}
	if (c->nprofiles == CONFIG_MAX_PROFILES) {
		load_fail(ld, "too many profiles (at most %d)",
		    CONFIG_MAX_PROFILES);
		return;
	}
	p = &c->profiles[c->nprofiles];
	if ((p->args = json_object_new_object()) == NULL) {
		load_fail(ld, "out of memory");
		return;
	}
	snprintf(p->name, sizeof(p->name), "%s", name);
	ld->secline[c->nprofiles++] = ld->line;
	ld->prof = p;
}

/*
 * The line reader under inih.  This inih passes no line numbers to the
 * handler, so they are counted here.  And what inih's build options would
 * decide is settled here, the same for every build: leading blanks go (an
 * indented key would be a continuation line under INI_ALLOW_MULTILINE),
 * comments go (their prefixes and inline comments are build options), and
 * section headers are taken here, so an empty section is still checked
 * and a name is not cut at inih's 50 bytes.  inih gets `key = value`.
 */
static char *
load_reader(char *buf, int size, void *stream)
{
	struct load *ld = stream;
	size_t len;
	char *s;

	if (ld->stop || fgets(buf, size, ld->fp) == NULL)
		return NULL;
	ld->line++;
	len = strlen(buf);
	if (len == 0 || buf[len - 1] != '\n') {
		/* Not the last line: inih's buffer cut it. */
		if (getc(ld->fp) != EOF || len == 0) {
			load_fail(ld, "line longer than %d bytes or holding a "
			    "NUL byte", size - 2);
			return NULL;
		}
	}
	s = buf;
	if (ld->line == 1 && strncmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;
	s += strspn(s, " \t\r\n\f\v");
	if (*s == '#' || *s == ';')
		*s = '\0';
	/* A comment after a value starts at a blank then # or ;. */
	for (char *q = s; *q != '\0'; q++)
		if ((*q == '#' || *q == ';') && (q[-1] == ' ' ||
		    q[-1] == '\t')) {
			*q = '\0';
			break;
		}
	len = strlen(s);
	while (len > 0 && strchr(" \t\r\n\f\v", s[len - 1]) != NULL)
		s[--len] = '\0';
	memmove(buf, s, len + 1);
	if (buf[0] == '[') {
		load_section(ld, buf);
		buf[0] = '\0';
	}
	return buf;
}

static int
load_global(struct load *ld, const char *name, const char *value)
{
	const struct global_key *g = global_find(name);
	char why[512];
	size_t i;

	if (g == NULL)
		return load_fail(ld, "unknown key '%s' in the global section%s",
		    name, knobs_find(name) != NULL ? " (run knobs go in a "
		    "[profile NAME] section)" : "");
	i = (size_t)(g - globals);
	if (ld->gline[i] != 0)
		return load_fail(ld, "duplicate key '%s' (first set on line %u)",
		    name, ld->gline[i]);
	ld->gline[i] = ld->line;
	if (g->set(ld->c, value, why, sizeof(why)) == -1)
		return load_fail(ld, "bad value '%s' for %s: %s", value, name,
		    why);
	return 1;
}

static int
load_knob(struct load *ld, const char *name, const char *value)
{
	struct conffile_profile *p = ld->prof;
	const struct knob *k = knobs_find(name);
	size_t pi = (size_t)(p - ld->c->profiles), ki;
	json_object *v;
	char why[512];

	if (k == NULL) {
		const char *hint = "";

		for (size_t i = 0; i < knobs_count; i++)
			if (strcmp(knobs_table[i].option, name) == 0) {
				snprintf(why, sizeof(why), " (did you mean "
				    "'%s'?)", knobs_table[i].name);
				hint = why;
			}
		if (global_find(name) != NULL)
			hint = " (global keys go before the first section)";
		return load_fail(ld, "unknown key '%s' in [profile %s]: not a "
		    "run knob%s", name, p->name, hint);
	}
	ki = (size_t)(k - knobs_table);
	if (ld->pline[pi][ki] != 0)
		return load_fail(ld, "duplicate key '%s' in [profile %s] (first "
		    "set on line %u)", name, p->name, ld->pline[pi][ki]);
	ld->pline[pi][ki] = ld->line;
	if ((v = knob_value(k, value, why, sizeof(why))) == NULL)
		return load_fail(ld, "bad value '%s' for %s in [profile %s]: %s",
		    value, name, p->name, why);
	json_object_object_add(p->args, k->name, v);
	return 1;
}

static int
load_handler(void *user, const char *section, const char *name,
    const char *value)
{
	struct load *ld = user;

	(void)section;		/* always "": headers never reach inih */
	if (ld->stop)
		return 0;
	if (name == NULL)	/* INI_CALL_HANDLER_ON_NEW_SECTION builds */
		return 1;
	if (value == NULL)	/* INI_ALLOW_NO_VALUE builds */
		return load_fail(ld, SYNTAX_MSG);
	if (ld->prof == NULL)
		return load_global(ld, name, value);
	return load_knob(ld, name, value);
}

void
conffile_defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->socket, sizeof(c->socket), "%s", STRESSD_DEFAULT_SOCKET);
	c->socket_mode = 0660;
	snprintf(c->state_dir, sizeof(c->state_dir), "%s",
	    STRESSD_DEFAULT_STATE_DIR);
	c->sample_interval = 1;
	c->log_level = LOG_LVL_INFO;
	c->drain_timeout = 60;
}

void
conffile_free(struct config *c)
{
	for (size_t i = 0; i < c->nprofiles; i++) {
		json_object_put(c->profiles[i].args);
		c->profiles[i].args = NULL;
	}
	c->nprofiles = 0;
}

int
conffile_load(struct config *c, const char *path, char *err, size_t errlen)
{
	struct load *ld = NULL;
	FILE *fp = NULL;
	int r, rc = -1;

	conffile_defaults(c);
	if (strlen(path) >= sizeof(c->path)) {
		snprintf(err, errlen, "%s: path too long", path);
		goto fail;
	}
	if (knobs_count > CONFIG_MAX_KNOBS) {
		snprintf(err, errlen, "%s: more knobs than CONFIG_MAX_KNOBS",
		    path);
		goto fail;
	}
	if ((fp = fopen(path, "re")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if ((ld = calloc(1, sizeof(*ld))) == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	ld->c = c;
	ld->fp = fp;
	errno = 0;
	r = ini_parse_stream(load_reader, ld, load_handler, ld);
	/* A directory opens fine and fails on the first read. */
	if (ferror(fp)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno ? errno :
		    EIO));
		goto fail;
	}
	if (r < 0) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	/* inih's own errors (no '=') come without a message: the earlier
	 * of its first and ours is the one to show. */
	if (r > 0 && (ld->errline == 0 || (unsigned)r < ld->errline)) {
		snprintf(err, errlen, "%s:%d: %s", path, r, SYNTAX_MSG);
		goto fail;
	}
	if (ld->errline != 0) {
		snprintf(err, errlen, "%s:%u: %s", path, ld->errline, ld->msg);
		goto fail;
	}
	snprintf(c->path, sizeof(c->path), "%s", path);
	rc = 0;
fail:
	if (rc == -1) {
		conffile_free(c);
		conffile_defaults(c);
	}
	free(ld);
	if (fp != NULL)
		fclose(fp);
	return rc;
}

/* ------------------------------------------------------------ output */

/* Global key i's value as text (malloc'd, NULL when out of memory);
 * *set false when the key is unset. */
static char *
global_text(const struct config *c, size_t i, bool *set)
{
	char *s = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&s, &n);

	*set = false;
	if (fp == NULL)
		return NULL;
	*set = globals[i].get(c, fp);
	if (fclose(fp) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

static char *
json_text(json_object *v)
{
	char *s = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&s, &n);

	if (fp == NULL)
		return NULL;
	print_json_value(fp, v);
	if (fclose(fp) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

void
conffile_print(const struct config *c, FILE *fp)
{
	for (size_t i = 0; i < NGLOBALS; i++) {
		bool set;
		char *s = global_text(c, i, &set);

		/* Unset keys as comments, so the output is a valid file. */
		if (set)
			fprintf(fp, "%s = %s\n", globals[i].name, s ? s : "?");
		else
			fprintf(fp, "# %s = (not set: %s)\n", globals[i].name,
			    globals[i].unset);
		free(s);
	}
	for (size_t i = 0; i < c->nprofiles; i++) {
		const struct conffile_profile *p = &c->profiles[i];

		fprintf(fp, "\n[profile %s]\n", p->name);
		for (size_t k = 0; k < knobs_count; k++) {
			json_object *v;

			if (!json_object_object_get_ex(p->args,
			    knobs_table[k].name, &v))
				continue;
			fprintf(fp, "%s = ", knobs_table[k].name);
			print_json_value(fp, v);
			fputc('\n', fp);
		}
	}
}

json_object *
conffile_profile(const struct config *c, const char *name)
{
	for (size_t i = 0; i < c->nprofiles; i++)
		if (strcmp(c->profiles[i].name, name) == 0)
			return c->profiles[i].args;
	return NULL;
}

static const struct conffile_profile *
profile_find(const struct config *c, const char *name)
{
	for (size_t i = 0; i < c->nprofiles; i++)
		if (strcmp(c->profiles[i].name, name) == 0)
			return &c->profiles[i];
	return NULL;
}

/* One line per knob whose value differs between two versions of a
 * profile; a missing version or key reads as "(not set)". */
static bool
log_profile_changes(const char *name, json_object *old, json_object *new_)
{
	bool changed = false;

	for (size_t k = 0; k < knobs_count; k++) {
		const char *key = knobs_table[k].name;
		json_object *a = NULL, *b = NULL;
		char *sa, *sb;

		if (old != NULL)
			json_object_object_get_ex(old, key, &a);
		if (new_ != NULL)
			json_object_object_get_ex(new_, key, &b);
		if (a == NULL && b == NULL)
			continue;
		if (a != NULL && b != NULL && json_object_equal(a, b))
			continue;
		sa = a ? json_text(a) : NULL;
		sb = b ? json_text(b) : NULL;
		log_info("config: [profile %s] %s: %s -> %s", name, key,
		    sa ? sa : "(not set)", sb ? sb : "(not set)");
		free(sa);
		free(sb);
		changed = true;
	}
	return changed;
}

void
conffile_log_changes(const struct config *old, const struct config *new_)
{
	bool changed = false;

	if (strcmp(old->path, new_->path) != 0) {
		log_info("config: file %s -> %s", *old->path ? old->path :
		    "(none)", *new_->path ? new_->path : "(none)");
		changed = true;
	}
	for (size_t i = 0; i < NGLOBALS; i++) {
		bool seta, setb;
		char *a = global_text(old, i, &seta);
		char *b = global_text(new_, i, &setb);

		if (a == NULL || b == NULL || seta != setb ||
		    strcmp(a, b) != 0) {
			log_info("config: %s: %s -> %s", globals[i].name,
			    seta && a ? a : "(not set)",
			    setb && b ? b : "(not set)");
			changed = true;
		}
		free(a);
		free(b);
	}
	for (size_t i = 0; i < old->nprofiles; i++) {
		const struct conffile_profile *p = &old->profiles[i];
		const struct conffile_profile *q = profile_find(new_, p->name);

		if (q == NULL) {
			log_info("config: [profile %s] removed", p->name);
			changed = true;
		} else if (log_profile_changes(p->name, p->args, q->args))
			changed = true;
	}
	for (size_t i = 0; i < new_->nprofiles; i++) {
		const struct conffile_profile *q = &new_->profiles[i];

		if (profile_find(old, q->name) != NULL)
			continue;
		log_info("config: [profile %s] added", q->name);
		log_profile_changes(q->name, NULL, q->args);
		changed = true;
	}
	if (!changed)
		log_info("config: nothing changed");
}

/* ------------------------------------------------------------ allowed_dirs */

/*
 * path as realpath would give it, even when its tail does not exist yet
 * (a run creates its dir): the longest existing ancestor through
 * realpath, the rest appended.  Only a missing component walks up: any
 * other failure is an answer.  The appended rest may hold no "..", which
 * realpath cannot judge there, and no dangling symlink, whose target
 * mkdir would follow.  0, or -1 with why in err.
 */
static int
resolve(const char *path, char out[PATH_MAX], char *err, size_t errlen)
{
	char work[PATH_MAX], rest[PATH_MAX] = "", real[PATH_MAX], tmp[PATH_MAX];
	struct stat st;

	if (path[0] != '/') {
		snprintf(err, errlen, "'%s' is not an absolute path", path);
		return -1;
	}
	if (strlen(path) >= sizeof(work)) {
		snprintf(err, errlen, "'%.64s...' is too long", path);
		return -1;
	}
	strcpy(work, path);
	while (realpath(work, real) == NULL) {
		char *slash, *comp;

		if (errno != ENOENT) {
			snprintf(err, errlen, "'%s': %s", path, strerror(errno));
			return -1;
		}
		if (lstat(work, &st) == 0) {
			snprintf(err, errlen, "'%s': '%s' is a dangling symbolic "
			    "link", path, work);
			return -1;
		}
		/* Strip the last component into rest. */
		for (size_t n = strlen(work); n > 1 && work[n - 1] == '/'; )
			work[--n] = '\0';
		slash = strrchr(work, '/');
		comp = slash + 1;
		if (strcmp(comp, "..") == 0) {
			snprintf(err, errlen, "'%s': '..' in the part that does "
			    "not exist yet", path);
			return -1;
		}
		if (*comp != '\0' && strcmp(comp, ".") != 0) {
			snprintf(tmp, sizeof(tmp), "%s%s%s", comp, *rest ? "/" :
			    "", rest);
			strcpy(rest, tmp);
		}
		if (slash == work)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (*rest == '\0')
		snprintf(out, PATH_MAX, "%s", real);
	else if ((size_t)snprintf(out, PATH_MAX, "%s%s%s", real,
	    strcmp(real, "/") == 0 ? "" : "/", rest) >= PATH_MAX) {
		snprintf(err, errlen, "'%.64s...' is too long", path);
		return -1;
	}
	return 0;
}

/* Is dir root or below it?  Whole components only: /tmp/xy is not in
 * /tmp/x. */
static bool
path_inside(const char *dir, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return true;
	return strncmp(dir, root, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
}

int
conffile_target_allowed(const struct config *c, const char *target,
    char *err, size_t errlen)
{
	char list[1024] = "";
	size_t len = 0;

	if (c->ntargets == 0 || strncmp(target, "rrdcached:", 10) != 0)
		return 1;
	for (size_t i = 0; i < c->ntargets; i++) {
		if (strcmp(target + 10, c->allowed_targets[i]) == 0)
			return 1;
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len,
			    "%s%s", i ? ", " : "", c->allowed_targets[i]);
	}
	snprintf(err, errlen, "target '%s' is not in allowed_targets (%s)",
	    target, list);
	return 0;
}

int
conffile_dir_allowed(const struct config *c, const char *dir, char *err,
    size_t errlen)
{
	char real[PATH_MAX], root[PATH_MAX], why[PATH_MAX + 128];
	char list[1024] = "";
	size_t len = 0;

	if (!c->restricted)
		return 1;
	for (size_t i = 0; i < c->nallowed && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
		    i ? ", " : "", c->allowed_dirs[i]);
	if (resolve(dir, real, why, sizeof(why)) == -1) {
		snprintf(err, errlen, "%s (allowed_dirs: %s)", why, list);
		return 0;
	}
	/* Resolved now, not at load: the tree may change in between. */
	for (size_t i = 0; i < c->nallowed; i++)
		if (resolve(c->allowed_dirs[i], root, why, sizeof(why)) == 0 &&
		    path_inside(real, root))
			return 1;
	if (strcmp(real, dir) == 0)
		snprintf(err, errlen, "'%s' is not inside allowed_dirs (%s)",
		    dir, list);
	else
		snprintf(err, errlen, "'%s' (really '%s') is not inside "
		    "allowed_dirs (%s)", dir, real, list);
	return 0;
}
