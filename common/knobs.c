/* The run knob table and its JSON/text conversions. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "knobs.h"

#define OFF(f)	offsetof(struct stress_params, f)
#define BIG	1e15

const struct knob knobs_table[] = {
	{ "dir", "dir", "stresstest.file", KNOB_STRING, OFF(dir), NULL, 0, 0,
	  "directory the RRD files live in (created if missing); required" },
	{ "files", "files", "stresstest.filecount", KNOB_UINT, OFF(files),
	  "10000", 1, 10000000, "number of RRD files" },
	{ "threads", "threads", "stresstest.threadcount", KNOB_UINT,
	  OFF(threads), "1", 1, 1024, "generator (collection) threads" },
	{ "write_threads", "write-threads",
	  "org.opennms.rrd.queuing.writethreads", KNOB_UINT, OFF(write_threads),
	  "2", 1, 1024, "writer threads draining the queue" },
	{ "max_updates", "max-updates", "stresstest.maxupdates", KNOB_UINT,
	  OFF(max_updates), "1000", 1, BIG, "updates in the whole run" },
	{ "modulus", "modulus", "stresstest.modulus", KNOB_UINT, OFF(modulus),
	  "1000", 1, BIG, "write a stats block to stress.log every N completed updates" },
	{ "update_time", "update-time", "stresstest.updatetime", KNOB_DOUBLE,
	  OFF(update_time), "300", 0, 31536000,
	  "seconds the run's updates are spread over (0 = flat out)" },
	{ "zero_files", "zero-files", "stresstest.zerofiles", KNOB_UINT,
	  OFF(zero_files), NULL, 0, 10000000,
	  "files that only ever get the value 0 (default files/2)" },
	{ "files_per_dir", "files-per-dir", "stresstest.filesperdir", KNOB_UINT,
	  OFF(files_per_dir), "0", 0, 10000000,
	  "files per subdirectory (0 = all in dir)" },
	{ "rras", "rra", "rras.list", KNOB_RRAS, OFF(rras), KNOBS_DEFAULT_RRAS,
	  0, 0, "RRA definitions of new files (repeatable)" },
	{ "step", "step", "stresstest.rrdstep", KNOB_UINT, OFF(step), "300",
	  1, 31536000, "RRD step in seconds" },
	{ "data_sources", "data-sources", "stresstest.datasourcecount",
	  KNOB_UINT, OFF(data_sources), "1", 1, 64, "data sources per file" },
	{ "updates_per_open", "updates-per-open", "stresstest.updatesperopen",
	  KNOB_UINT, OFF(updates_per_open), "1", 1, 1000000,
	  "updates a generator issues to a file each time it picks it" },
	{ "use_queue", "use-queue", "stresstest.usequeue", KNOB_BOOL,
	  OFF(use_queue), "true", 0, 0,
	  "queue updates for the writer pool (false = generators write directly)" },
	{ "queue_creates", "queue-creates",
	  "stresstest.queuecreates,org.opennms.rrd.queuing.queueCreates",
	  KNOB_BOOL, OFF(queue_creates), "true", 0, 0,
	  "create files through the queue (false = all before the load)" },
	{ "prioritize", "prioritize",
	  "org.opennms.rrd.queuing.prioritizeSignificantUpdates", KNOB_BOOL,
	  OFF(prioritize), "false", 0, 0,
	  "serve files with significant (non-zero) work first" },
	{ "max_insig_update_seconds", "max-insig-update-seconds",
	  "org.opennms.rrd.queuing.maxInsigUpdateSeconds", KNOB_DOUBLE,
	  OFF(max_insig_update_seconds), "0", 0, 31536000,
	  "promote insignificant files so none waits longer (0 = off)" },
	{ "queue_high_water", "queue-high-water",
	  "org.opennms.rrd.queuing.queueHighWaterMark", KNOB_UINT,
	  OFF(queue_high_water), "0", 0, BIG,
	  "drop updates past this many pending (0 = off)" },
	{ "sig_high_water", "sig-high-water",
	  "org.opennms.rrd.queuing.sigHighWaterMark", KNOB_UINT,
	  OFF(sig_high_water), "0", 0, BIG,
	  "drop significant updates past this many pending (0 = off)" },
	{ "insig_high_water", "insig-high-water",
	  "org.opennms.rrd.queuing.inSigHighWaterMark", KNOB_UINT,
	  OFF(insig_high_water), "0", 0, BIG,
	  "drop insignificant updates past this many pending (0 = off)" },
	{ "update_file", "update-file", "stresstest.updatefile", KNOB_STRING,
	  OFF(update_file), "", 0, 0,
	  "file of ts:value lines whose values are replayed (default synthetic)" },
	{ "start", "start-time", NULL, KNOB_UINT, OFF(start), "946710000",
	  1, 4000000000.0, "timestamp origin: update k of a file is at start + k*step" },
	{ "seed", "seed", NULL, KNOB_UINT, OFF(seed), "1", 0, 9007199254740991.0,
	  "seed of the synthetic values" },
	{ "sample_interval", "sample-interval", NULL, KNOB_DOUBLE,
	  OFF(sample_interval), "1", 0.1, 60,
	  "seconds between samples of the queue gauges (run history)" },
	{ "fail_after", "fail-after", NULL, KNOB_DOUBLE, OFF(fail_after), "30",
	  0, 86400,
	  "end the run failed once every write has failed this long "
	  "(0 = never)" },
	{ "sync", "sync", NULL, KNOB_CHOICE, OFF(sync), "none", 0, 0,
	  "none, data (fdatasync each file after its batch) or drop-caches "
	  "(as root, sync and drop the page cache before the load): librrd "
	  "never syncs, so without it a machine with much RAM measures its "
	  "page cache, not its disk" },
	{ "sweep_id", "sweep-id", NULL, KNOB_TEXT, OFF(sweep_id), "", 0, 0,
	  "label shared by the runs of one stressctl sweep (set by sweep)" },
	{ "flush_timeout", "flush-timeout", NULL, KNOB_DOUBLE,
	  OFF(flush_timeout), "300", 0, 86400,
	  "target rrdcached: seconds the end of a run waits for rrdcached to "
	  "write what it holds after FLUSHALL (then the run fails)" },
	{ "target", "target", NULL, KNOB_TEXT, OFF(target), "librrd", 0, 0,
	  "librrd (writers update the files) or rrdcached:ADDR (writers send "
	  "to that rrdcached; ADDR unix:/path, host or host:port)" },
};
const size_t knobs_count = sizeof(knobs_table) / sizeof(knobs_table[0]);

const char *const knobs_ignored_properties[] = {
	"org.opennms.rrd.strategyClass",
	NULL
};

const struct knob *
knobs_find(const char *name)
{
	for (size_t i = 0; i < knobs_count; i++)
		if (strcmp(knobs_table[i].name, name) == 0)
			return &knobs_table[i];
	return NULL;
}

const struct knob *
knobs_find_property(const char *prop)
{
	size_t len = strlen(prop);

	for (size_t i = 0; i < knobs_count; i++) {
		const char *p = knobs_table[i].properties;

		while (p != NULL && *p != '\0') {
			const char *end = strchr(p, ',');
			size_t n = end ? (size_t)(end - p) : strlen(p);

			if (n == len && strncmp(p, prop, n) == 0)
				return &knobs_table[i];
			p = end ? end + 1 : NULL;
		}
	}
	return NULL;
}

static const char *const sync_choices[] = {
	"none", "data", "drop-caches", NULL		/* enum knobs_sync */
};

const char *const *
knobs_choices(const struct knob *k)
{
	if (k->type == KNOB_CHOICE && strcmp(k->name, "sync") == 0)
		return sync_choices;
	return NULL;
}

/* The index of word among k's choices, or -1. */
static int
choice_index(const struct knob *k, const char *word)
{
	const char *const *c = knobs_choices(k);

	for (int i = 0; c != NULL && c[i] != NULL; i++)
		if (strcmp(c[i], word) == 0)
			return i;
	return -1;
}

/* k's choices as "a, b or c". */
static void
choice_list(const struct knob *k, char *buf, size_t len)
{
	const char *const *c = knobs_choices(k);
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; c != NULL && c[i] != NULL && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i == 0 ? "" :
		    c[i + 1] == NULL ? " or " : ", ", c[i]);
}

static void
rras_clear(struct stress_params *p)
{
	for (size_t i = 0; i < p->nrras; i++)
		free(p->rras[i]);
	p->nrras = 0;
}

/* Split a comma-separated RRA list into p->rras. */
static int
rras_set_text(struct stress_params *p, const char *text, char *err,
    size_t errlen)
{
	char *copy = strdup(text), *save = NULL, *tok;

	if (copy == NULL) {
		snprintf(err, errlen, "rras: out of memory");
		return -1;
	}
	rras_clear(p);
	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if (p->nrras == KNOBS_MAX_RRAS) {
			snprintf(err, errlen, "rras: at most %d RRAs",
			    KNOBS_MAX_RRAS);
			free(copy);
			return -1;
		}
		p->rras[p->nrras++] = strdup(tok);
	}
	free(copy);
	return 0;
}

static int
set_from_text(struct stress_params *p, const struct knob *k, const char *v)
{
	char *base = (char *)p + k->offset, err[64];

	switch (k->type) {
	case KNOB_UINT:
		*(uint64_t *)(void *)base = strtoull(v, NULL, 10);
		return 0;
	case KNOB_DOUBLE:
		*(double *)(void *)base = strtod(v, NULL);
		return 0;
	case KNOB_BOOL:
		*(bool *)base = strcmp(v, "true") == 0;
		return 0;
	case KNOB_STRING:
		snprintf(base, sizeof(p->dir), "%s", v);
		return 0;
	case KNOB_RRAS:
		return rras_set_text(p, v, err, sizeof(err));
	case KNOB_CHOICE: {
		int i = choice_index(k, v);

		if (i == -1)
			return -1;
		*(unsigned *)(void *)base = (unsigned)i;
		return 0;
	}
	case KNOB_TEXT:
		snprintf(base, KNOBS_TEXT_MAX, "%s", v);
		return 0;
	}
	return -1;
}

void
knobs_defaults(struct stress_params *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < knobs_count; i++)
		if (knobs_table[i].defval != NULL)
			set_from_text(p, &knobs_table[i], knobs_table[i].defval);
	p->zero_files = p->files / 2;
}

void
knobs_free(struct stress_params *p)
{
	rras_clear(p);
}

int
knobs_copy(struct stress_params *dst, const struct stress_params *src)
{
	*dst = *src;
	for (size_t i = 0; i < src->nrras; i++)
		if ((dst->rras[i] = strdup(src->rras[i])) == NULL) {
			dst->nrras = i;
			knobs_free(dst);
			return -1;
		}
	return 0;
}

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
 * address), or [v6], then maybe ":port". */
static bool
tcp_addr_ok(const char *a)
{
	const char *end, *port = NULL;
	unsigned long n;
	char *stop;

	if (*a == '[') {
		if ((end = strchr(a, ']')) == NULL || end == a + 1 ||
		    !v6_text(a + 1, end))
			return false;
		if (end[1] == '\0')
			return true;
		if (end[1] != ':')
			return false;
		port = end + 2;
	} else if ((end = strchr(a, ':')) != NULL &&
	    strchr(end + 1, ':') != NULL) {
		return v6_text(a, a + strlen(a));	/* bare v6 */
	} else {
		if (end == a)
			return false;
		for (const char *c = a; *c != '\0' && c != end; c++)
			if (!isalnum((unsigned char)*c) && *c != '.' &&
			    *c != '-' && *c != '_')
				return false;
		if (end == NULL)
			return true;
		port = end + 1;
	}
	if (!isdigit((unsigned char)*port))
		return false;
	errno = 0;
	n = strtoul(port, &stop, 10);
	return errno == 0 && *stop == '\0' && n >= 1 && n <= 65535;
}

/* target: librrd, or rrdcached:ADDR with ADDR as rrdcached takes it
 * (unix:/path or /path; host, host:port or [v6]:port). */
static int
check_target(const char *s, char *err, size_t errlen)
{
	const char *a = s + strlen("rrdcached:");

	if (strcmp(s, "librrd") == 0)
		return 0;
	if (strncmp(s, "rrdcached:", strlen("rrdcached:")) != 0) {
		snprintf(err, errlen, "target: '%.64s' is neither librrd nor "
		    "rrdcached:ADDR", s);
		return -1;
	}
	if (strncmp(a, "unix:", 5) == 0)
		a += 5;
	if (*a == '\0' || (*a != '/' && a != s + strlen("rrdcached:"))) {
		snprintf(err, errlen, "target: '%.64s' names no rrdcached "
		    "address (unix:/path, /path, host or host:port)", s);
		return -1;
	}
	for (const char *c = a; *c != '\0'; c++)
		if (!isgraph((unsigned char)*c)) {
			snprintf(err, errlen, "target: the address may not "
			    "hold blanks or control characters");
			return -1;
		}
	if (*a != '/' && !tcp_addr_ok(a)) {
		snprintf(err, errlen, "target: '%.64s' is no host, host:port "
		    "or [v6]:port (port 1 to 65535)", a);
		return -1;
	}
	return 0;
}

const char *
knobs_rrdcached_addr(const struct stress_params *p)
{
	return strncmp(p->target, "rrdcached:", 10) == 0 ? p->target + 10 :
	    NULL;
}

/* A label goes into file names and tables: printable, no blanks or
 * slashes, and short. */
int
knobs_check_text(const struct knob *k, const char *s, size_t len, char *err,
    size_t errlen)
{
	if (len >= KNOBS_TEXT_MAX || strlen(s) != len) {
		snprintf(err, errlen, "%s: at most %d characters, no NUL byte",
		    k->name, KNOBS_TEXT_MAX - 1);
		return -1;
	}
	if (strcmp(k->name, "target") == 0)
		return check_target(s, err, errlen);
	for (; *s != '\0'; s++)
		if (!isgraph((unsigned char)*s) || *s == '/') {
			snprintf(err, errlen, "%s: only printable characters "
			    "other than blanks and '/'", k->name);
			return -1;
		}
	return 0;
}

static int
check_range(const struct knob *k, double v, char *err, size_t errlen)
{
	if (isnan(v) || v < k->min || v > k->max) {
		snprintf(err, errlen, "%s must be between %.15g and %.15g, not %.15g",
		    k->name, k->min, k->max, v);
		return -1;
	}
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
		int64_t n;

		if (t != json_type_int)
			goto badtype;
		errno = 0;
		n = json_object_get_int64(v);
		if (errno != 0 || n < 0) {
			snprintf(err, errlen, "%s must be between %.15g and %.15g",
			    k->name, k->min, k->max);
			return -1;
		}
		if (check_range(k, (double)n, err, errlen) == -1)
			return -1;
		*(uint64_t *)(void *)base = (uint64_t)n;
		return 0;
	}
	case KNOB_DOUBLE: {
		double d;

		if (t != json_type_int && t != json_type_double)
			goto badtype;
		d = json_object_get_double(v);
		if (check_range(k, d, err, errlen) == -1)
			return -1;
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

		if (t != json_type_string)
			goto badtype;
		s = json_object_get_string(v);
		if ((size_t)json_object_get_string_len(v) >= sizeof(p->dir) ||
		    strlen(s) != (size_t)json_object_get_string_len(v)) {
			snprintf(err, errlen, "%s is too long or holds a NUL byte",
			    k->name);
			return -1;
		}
		if (*s != '\0' && *s != '/') {
			snprintf(err, errlen, "%s must be an absolute path, not '%s'",
			    k->name, s);
			return -1;
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
			return rras_set_text(p, json_object_get_string(v), err,
			    errlen);
		if (t != json_type_array)
			goto badtype;
		if (json_object_array_length(v) > KNOBS_MAX_RRAS) {
			snprintf(err, errlen, "rras: at most %d RRAs",
			    KNOBS_MAX_RRAS);
			return -1;
		}
		rras_clear(p);
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			json_object *e = json_object_array_get_idx(v, i);

			if (json_object_get_type(e) != json_type_string ||
			    strncmp(json_object_get_string(e), "RRA:", 4) != 0) {
				snprintf(err, errlen, "rras[%zu] must be a string "
				    "starting with RRA:", i);
				return -1;
			}
			p->rras[p->nrras++] = strdup(json_object_get_string(e));
		}
		if (p->nrras == 0) {
			snprintf(err, errlen, "rras must hold at least one RRA");
			return -1;
		}
		return 0;
	case KNOB_CHOICE: {
		int i;

		if (t != json_type_string)
			goto badtype;
		if ((i = choice_index(k, json_object_get_string(v))) == -1) {
			char list[128];

			choice_list(k, list, sizeof(list));
			snprintf(err, errlen, "%s must be one of %s, not '%.64s'",
			    k->name, list, json_object_get_string(v));
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
	for (size_t i = 0; i < p->nrras; i++)
		if (strncmp(p->rras[i], "RRA:", 4) != 0) {
			*field = "rras";
			snprintf(err, errlen, "rras: '%s' does not start with RRA:",
			    p->rras[i]);
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
		if (*text == '\0' || *end != '\0' || errno != 0) {
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
		if (choice_index(k, text) == -1) {
			char list[128];

			choice_list(k, list, sizeof(list));
			snprintf(err, errlen, "%s: '%s' is not %s", k->name, text,
			    list);
			return NULL;
		}
		return json_object_new_string(text);
	}
	return NULL;
}

json_object *
knobs_to_json(const struct stress_params *p)
{
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < knobs_count; i++) {
		const struct knob *k = &knobs_table[i];
		const char *base = (const char *)p + k->offset;
		json_object *v = NULL;

		switch (k->type) {
		case KNOB_UINT:
			v = json_object_new_int64(
			    (int64_t)*(const uint64_t *)(const void *)base);
			break;
		case KNOB_DOUBLE:
			v = json_object_new_double(
			    *(const double *)(const void *)base);
			break;
		case KNOB_BOOL:
			v = json_object_new_boolean(*(const bool *)base);
			break;
		case KNOB_STRING:
		case KNOB_TEXT:
			v = json_object_new_string(base);
			break;
		case KNOB_RRAS:
			v = json_object_new_array();
			for (size_t j = 0; j < p->nrras; j++)
				json_object_array_add(v,
				    json_object_new_string(p->rras[j]));
			break;
		case KNOB_CHOICE:
			v = json_object_new_string(knobs_choices(k)[
			    *(const unsigned *)(const void *)base]);
			break;
		}
		json_object_object_add(o, k->name, v);
	}
	return o;
}
