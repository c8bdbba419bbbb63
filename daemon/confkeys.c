/* stressd.conf's global keys: how each is read, checked and printed. */
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confdata.h"
#include "confkeys.h"
#include "hostport.h"
#include "knobs.h"
#include "log.h"
#include "memcap.h"

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
void
confkeys_print_number(FILE *fp, double d)
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
	struct sockaddr_storage ss;
	socklen_t len;
	char why[256];

	if (*v == '\0') {
		c->metrics_listen[0] = '\0';
		return 0;
	}
	if (strlen(v) >= sizeof(c->metrics_listen) ||
	    hostport_listen(v, &ss, &len, why, sizeof(why)) == -1) {
		snprintf(e, n, "expected [ADDR:]PORT or [IPV6]:PORT, ADDR a "
		    "numeric IPv4 address or localhost, PORT from 0 to 65535");
		return -1;
	}
	snprintf(c->metrics_listen, sizeof(c->metrics_listen), "%s", v);
	return 0;
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
	confkeys_print_number(fp, c->sample_interval);
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
	const char *name = log_level_name(c->log_level);

	if (name != NULL)
		fputs(name, fp);
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
	confkeys_print_number(fp, c->drain_timeout);
	return true;
}

/* Checked against the floor here, so --check-config refuses it too. */
static int
set_memory_max(struct config *c, const char *v, char *e, size_t n)
{
	if (memcap_parse_size(v, &c->memory_max) == -1 ||
	    c->memory_max < MEMCAP_FLOOR) {
		c->memory_max = 0;
		snprintf(e, n, "expected a size of at least %lluM (bytes, or "
		    "with K, M, G or T: 512M, 2G)",
		    (unsigned long long)(MEMCAP_FLOOR >> 20));
		return -1;
	}
	return 0;
}

static bool
get_memory_max(const struct config *c, FILE *fp)
{
	fprintf(fp, "%llu", (unsigned long long)c->memory_max);
	return c->memory_max > 0;
}

const struct confkeys_key confkeys[] = {
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
	{ "memory_max", set_memory_max, get_memory_max,
	  "no memory cap of stressd's own" },
};
const size_t confkeys_count = sizeof(confkeys) / sizeof(confkeys[0]);

const struct confkeys_key *
confkeys_find(const char *name)
{
	for (size_t i = 0; i < confkeys_count; i++)
		if (strcmp(confkeys[i].name, name) == 0)
			return &confkeys[i];
	return NULL;
}
