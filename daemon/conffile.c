/* Loading the configuration file; see conffile.h and stressd.conf(5).  The
 * global keys are in confkeys.c, printing in confprint.c, the allowed_dirs
 * and allowed_targets checks in policy.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ini.h>

#include "confkeys.h"
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
		if (strcmp(k->name, "label") == 0)
			snprintf(e, n, "expected up to %d bytes of UTF-8 text "
			    "without control characters", KNOBS_TEXT_MAX - 1);
		else
			snprintf(e, n, "expected up to %d printable characters, "
			    "no blanks or '/'", KNOBS_TEXT_MAX - 1);
		break;
	case KNOB_CHOICE: {
		char list[128];

		knobs_choice_list(k, list, sizeof(list));
		snprintf(e, n, "expected %s", list);
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
	enum knobs_value_problem vp;
	json_object *v;

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
	/* The value check takes an empty path (no update_file); a dir
	 * given in a profile must name one. */
	vp = knobs_check_value(k, v, NULL);
	/* A control character: knobs_apply's own message says where. */
	if ((vp != KNOBS_VALUE_OK && vp != KNOBS_VALUE_CONTROL) ||
	    (k->type == KNOB_STRING && *text == '\0' &&
	    strcmp(k->name, "dir") == 0))
		goto bad;
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

/* ------------------------------------------------------------ loading */


struct load {
	struct config		*c;
	FILE			*fp;
	unsigned		 line;		/* the line inih works on */
	struct conffile_profile	*prof;		/* NULL: global keys */
	unsigned		 gline[CONFKEYS_MAX];	/* where each was set */
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
	const struct confkeys_key *g = confkeys_find(name);
	char why[512];
	size_t i;

	if (g == NULL)
		return load_fail(ld, "unknown key '%s' in the global section%s",
		    name, knobs_find(name) != NULL ? " (run knobs go in a "
		    "[profile NAME] section)" : "");
	i = (size_t)(g - confkeys);
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
		if (confkeys_find(name) != NULL)
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
	if (knobs_count > CONFIG_MAX_KNOBS || confkeys_count > CONFKEYS_MAX) {
		snprintf(err, errlen, "%s: more knobs than CONFIG_MAX_KNOBS "
		    "or keys than CONFKEYS_MAX", path);
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

json_object *
conffile_profile(const struct config *c, const char *name)
{
	for (size_t i = 0; i < c->nprofiles; i++)
		if (strcmp(c->profiles[i].name, name) == 0)
			return c->profiles[i].args;
	return NULL;
}
