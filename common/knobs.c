/* The run knob table, defaults and the parameters' JSON echo; the
 * checks of values given to it are in knobs-check.c. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

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
	  "1000", 1, BIG, "write a stats block to stress.log every N offered updates" },
	{ "update_time", "update-time", "stresstest.updatetime", KNOB_DOUBLE,
	  OFF(update_time), "300", 0, 31536000,
	  "seconds the run's updates are spread over (0 = flat out)" },
	{ "until_steady", "until-steady", NULL, KNOB_DOUBLE, OFF(until_steady),
	  "0", 0, 31536000,
	  "offer the load at its rate (max-updates / update-time) until the "
	  "verdict is decided, for at most this many seconds (0 = off: "
	  "max-updates in all)" },
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
	{ "queue_memory_max", "queue-memory-max", NULL, KNOB_UINT,
	  OFF(queue_memory_max), NULL, 0, 1048576,
	  "MiB the queue's pending values may take; at it the generators "
	  "wait (default RAM/8, 16 to 256; 0 = unbounded)" },
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
	{ "latency_bound", "latency-bound", NULL, KNOB_DOUBLE,
	  OFF(latency_bound), "0", 0, 31536000,
	  "seconds a value may take from enqueue to persist (p99) for the run "
	  "to count as kept up (0 = the RRD step)" },
	{ "sync", "sync", NULL, KNOB_CHOICE, OFF(sync), "none", 0, 0,
	  "none, data (fdatasync each file after its batch), drop-caches "
	  "(write back and evict the run's own files before the load) or "
	  "drop-host-caches (as root, sync and drop the whole host's page "
	  "cache before the load): librrd "
	  "never syncs, so without it a machine with much RAM measures its "
	  "page cache, not its disk" },
	{ "sweep_id", "sweep-id", NULL, KNOB_TEXT, OFF(sweep_id), "", 0, 0,
	  "label shared by the runs of one stressctl sweep (set by sweep)" },
	{ "label", "label", NULL, KNOB_TEXT, OFF(label), "", 0, 0,
	  "what the run is a candidate of, e.g. \"ext3 data=writeback\" "
	  "(compare heads columns and groups repeats by it; UTF-8, at most "
	  "127 bytes, no control characters)" },
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
	"none", "data", "drop-caches", "drop-host-caches",
	NULL						/* enum knobs_sync */
};

const char *const *
knobs_choices(const struct knob *k)
{
	if (k->type == KNOB_CHOICE && strcmp(k->name, "sync") == 0)
		return sync_choices;
	return NULL;
}

/* The index of word among k's choices, or -1. */
int
knobs_choice_index(const struct knob *k, const char *word)
{
	const char *const *c = knobs_choices(k);

	for (int i = 0; c != NULL && c[i] != NULL; i++)
		if (strcmp(c[i], word) == 0)
			return i;
	return -1;
}

void
knobs_choice_list(const struct knob *k, char *buf, size_t len)
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
int
knobs_rras_set_text(struct stress_params *p, const char *text, char *err,
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
		return knobs_rras_set_text(p, v, err, sizeof(err));
	case KNOB_CHOICE: {
		int i = knobs_choice_index(k, v);

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

/*
 * Why an eighth of RAM, at most 256 MiB: the queue holds about 8 bytes a
 * pending value, so 256 MiB is some 30 million values, far past the depth
 * at which a run has shown that its storage does not keep up; beyond it a
 * deeper queue only tells the same thing more slowly while the host runs
 * out of memory.  One fixed value on every host of 2 GiB or more keeps
 * runs comparable; an eighth leaves a small host room for its page cache.
 */
uint64_t
knobs_default_queue_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	uint64_t mib;

	if (pages <= 0 || size <= 0)
		return 256;
	mib = (uint64_t)pages / 8 * (uint64_t)size / (1024 * 1024);
	return mib < 16 ? 16 : mib > 256 ? 256 : mib;
}

void
knobs_defaults(struct stress_params *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < knobs_count; i++)
		if (knobs_table[i].defval != NULL)
			set_from_text(p, &knobs_table[i], knobs_table[i].defval);
	p->zero_files = p->files / 2;
	p->queue_memory_max = knobs_default_queue_memory();
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
const char *
knobs_rrdcached_addr(const struct stress_params *p)
{
	return strncmp(p->target, "rrdcached:", 10) == 0 ? p->target + 10 :
	    NULL;
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
