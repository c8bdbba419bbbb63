#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "config.h"
#include "memcap.h"
#include "report.h"
#include "rrdfile.h"
#include "stats.h"
#include "util.h"

json_object *
report_rrdcached_json(const struct rrdcc_stats *st)
{
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < rrdcc_nstat_fields; i++)
		json_object_object_add(o, rrdcc_stat_fields[i].name,
		    json_object_new_int64((int64_t)rrdcc_stat_value(st, i)));
	return o;
}

json_object *
report_time_json(time_t t)
{
	char buf[32];

	if (t == 0)
		return NULL;
	util_iso8601(t, buf, sizeof(buf));
	return json_object_new_string(buf);
}

static json_object *
latency_json(const struct hist *h)
{
	static const struct { const char *key; double p; } pct[] = {
		{ "p50", 50 }, { "p90", 90 }, { "p99", 99 }, { "p999", 99.9 },
	};
	json_object *o = json_object_new_object();

	json_object_object_add(o, "count",
	    json_object_new_int64((int64_t)hist_count(h)));
	json_object_object_add(o, "min",
	    json_object_new_double((double)hist_min(h) / 1e6));
	json_object_object_add(o, "mean",
	    json_object_new_double(hist_mean(h) / 1e6));
	json_object_object_add(o, "max",
	    json_object_new_double((double)hist_max(h) / 1e6));
	for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
		json_object_object_add(o, pct[i].key, json_object_new_double(
		    (double)hist_percentile(h, pct[i].p) / 1e6));
	return o;
}

/* A string, or JSON null for "" (not known). */
static json_object *
known_string(const char *s)
{
	return s[0] != '\0' ? json_object_new_string(s) : NULL;
}

/* The filesystem under test; README "Reading the results" says what each
 * key means under a bind mount and in a chroot. */
static json_object *
target_json(const struct report_input *in)
{
	static const char *const keys[] = {
		"fs_type", "fs_magic", "fs_from", "mount_source",
		"mount_options", "mount_point", "seen_at", "bind_root",
	};
	const struct mountinfo *m = in->mount;
	json_object *o = json_object_new_object();
	char opts[2048], magic[24];

	json_object_object_add(o, "dir", json_object_new_string(in->p->dir));
	if (m == NULL) {
		/* The keys stay, for the tools that rely on them. */
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			json_object_object_add(o, keys[i], NULL);
		return o;
	}
	mountinfo_options(m, opts, sizeof(opts));
	snprintf(magic, sizeof(magic), "0x%lx", m->fs_magic);
	json_object_object_add(o, "fs_type", known_string(m->fs_type));
	json_object_object_add(o, "fs_magic",
	    m->fs_magic != 0 ? json_object_new_string(magic) : NULL);
	json_object_object_add(o, "fs_from",
	    json_object_new_string(mountinfo_from_name(m->from)));
	json_object_object_add(o, "mount_source", known_string(m->mount_source));
	json_object_object_add(o, "mount_options", known_string(opts));
	json_object_object_add(o, "mount_point", known_string(m->mount_point));
	json_object_object_add(o, "seen_at", known_string(m->seen_at));
	json_object_object_add(o, "bind_root", known_string(m->bind_root));
	return o;
}

/* The machine the run ran on. */
json_object *
report_host_json(void)
{
	json_object *x = json_object_new_object();
	struct utsname u;
	char host[256];

	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		json_object_object_add(x, "name", json_object_new_string(host));
	}
	if (uname(&u) == 0) {
		json_object_object_add(x, "kernel",
		    json_object_new_string(u.release));
		json_object_object_add(x, "machine",
		    json_object_new_string(u.machine));
	}
	json_object_object_add(x, "cpus",
	    json_object_new_int((int)sysconf(_SC_NPROCESSORS_ONLN)));
	return x;
}

/* The failed calls: counts, by kind and the first messages. */
static json_object *
errors_json(const struct report_input *in)
{
	const struct queue_counters *c = in->c;
	json_object *x = json_object_new_object(), *y;

	json_object_object_add(x, "count", json_object_new_int64(
	    (int64_t)c->errors));
	json_object_object_add(x, "updates_failed", json_object_new_int64(
	    (int64_t)c->updates_failed));
	json_object_object_add(x, "creates_failed", json_object_new_int64(
	    (int64_t)c->creates_failed));
	/* Apart from count: the values of such a batch did land. */
	json_object_object_add(x, "fdatasync_failed", json_object_new_int64(
	    (int64_t)in->fdatasync_failed));
	y = json_object_new_object();
	for (int i = 0; i < RRDFILE_NKINDS; i++)
		json_object_object_add(y, rrdfile_kind_name(i),
		    json_object_new_int64((int64_t)in->errors_by_kind[i]));
	json_object_object_add(x, "by_kind", y);
	y = json_object_new_array();
	for (unsigned i = 0; i < in->nerrors; i++)
		json_object_array_add(y, json_object_new_string(in->errors[i]));
	json_object_object_add(x, "first_messages", y);
	return x;
}

/* target rrdcached: its queue and STATS beside ours. */
static json_object *
rrdcached_json(const struct report_input *in)
{
	json_object *x = json_object_new_object();

	json_object_object_add(x, "address", json_object_new_string(
	    knobs_rrdcached_addr(in->p)));
	/* Its queue beside ours: QueueLength of every sample. */
	json_object_object_add(x, "queue_length",
	    dist_to_json(&in->sampler->rrdc_queue));
	json_object_object_add(x, "samples_without_stats",
	    json_object_new_int64((int64_t)in->sampler->rrdc_missed));
	json_object_object_add(x, "at_start",
	    report_rrdcached_json(in->rrdc_start));
	json_object_object_add(x, "latest", in->rrdc_latest != NULL ?
	    report_rrdcached_json(in->rrdc_latest) : NULL);
	json_object_object_add(x, "flush_s", in->rrdc_flush_s >= 0 ?
	    json_object_new_double(in->rrdc_flush_s) : NULL);
	/* Then DataSetsWritten says nothing of this run's values. */
	json_object_object_add(x, "restarted",
	    json_object_new_boolean(in->rrdc_restarted));
	return x;
}

/* The run's files by key. */
static json_object *
files_json(const char *run_dir)
{
	static const struct { const char *key, *name; } f[] = {
		{ "report", "report.json" },
		{ "samples_csv", "samples.csv" },
		{ "metrics_rrd", "metrics.rrd" },
		{ "stress_log", "stress.log" },
	};
	json_object *x = json_object_new_object();
	char path[4400];

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", run_dir, f[i].name);
		json_object_object_add(x, f[i].key,
		    json_object_new_string(path));
	}
	return x;
}

static double
per_s(uint64_t n, double s)
{
	return s > 0 ? (double)n / s : 0;
}

/* Were the generators held back by the queue's memory bound?  Then the
 * offered load fell short of the asked one, and a verdict must say so. */
static json_object *
generators_json(const struct report_input *in)
{
	const struct queue_counters *c = in->c;
	json_object *x = json_object_new_object();

	json_object_object_add(x, "threads",
	    json_object_new_int64((int64_t)in->p->threads));
	json_object_object_add(x, "held_back",
	    json_object_new_boolean(c->generator_waits > 0));
	json_object_object_add(x, "wait_s",
	    json_object_new_double((double)c->generator_wait_ms / 1000));
	json_object_object_add(x, "waits",
	    json_object_new_int64((int64_t)c->generator_waits));
	/* 0: unbounded, as the original */
	json_object_object_add(x, "queue_memory_max_bytes",
	    json_object_new_int64((int64_t)(in->p->queue_memory_max *
	    1024 * 1024)));
	json_object_object_add(x, "queue_memory_peak_bytes",
	    json_object_new_int64((int64_t)c->queue_memory_peak_bytes));
	return x;
}

json_object *
report_baseline_json(const struct report_baseline *b)
{
	json_object *x = json_object_new_object();

	json_object_object_add(x, "files_reused",
	    json_object_new_int64((int64_t)b->files_reused));
	json_object_object_add(x, "files_missing",
	    json_object_new_int64((int64_t)b->files_missing));
	json_object_object_add(x, "files_refused",
	    json_object_new_int64((int64_t)b->files_refused));
	return x;
}

/* until_steady: {"max_s", "ended", "after_s"}. */
static json_object *
until_json(const struct report_input *in)
{
	json_object *u = json_object_new_object();

	json_object_object_add(u, "max_s",
	    json_object_new_double(in->until_max_s));
	json_object_object_add(u, "ended", in->until_ended != NULL ?
	    json_object_new_string(in->until_ended) : NULL);
	json_object_object_add(u, "after_s", in->until_after_s >= 0 ?
	    json_object_new_double(in->until_after_s) : NULL);
	return u;
}

json_object *
report_json(const struct report_input *in)
{
	const struct queue_counters *c = in->c;
	json_object *o = json_object_new_object(), *x;
	struct stats_rates z;
	double all = in->end_mono - in->start_mono;
	double since_first = c->first_dequeue > 0 ?
	    (c->last_done > 0 ? c->last_done : in->end_mono) - c->first_dequeue : 0;

	json_object_object_add(o, "schema", json_object_new_int(REPORT_SCHEMA));
	json_object_object_add(o, "run_id", json_object_new_int64(in->id));
	json_object_object_add(o, "state", json_object_new_string(in->state));
	json_object_object_add(o, "reason", in->reason[0] ?
	    json_object_new_string(in->reason) : NULL);
	json_object_object_add(o, "stressd_version",
	    json_object_new_string(PACKAGE_VERSION));
	/* Whose run it is: a later stressd tells a crash from a live run. */
	json_object_object_add(o, "stressd_pid",
	    json_object_new_int64((int64_t)getpid()));
	json_object_object_add(o, "librrd_version",
	    json_object_new_string(rrdfile_librrd_version()));
	json_object_object_add(o, "host", report_host_json());
	/* The cap on the daemon's memory and page cache, whoever set it. */
	json_object_object_add(o, "memory", memcap_json());
	json_object_object_add(o, "params", knobs_to_json(in->p));
	if (in->cap_id > 0) {
		json_object *cap = json_object_new_object();

		json_object_object_add(cap, "id",
		    json_object_new_int64(in->cap_id));
		json_object_object_add(cap, "step",
		    json_object_new_int(in->cap_step));
		json_object_object_add(cap, "rate",
		    json_object_new_double(in->cap_rate));
		json_object_object_add(o, "capacity", cap);
	}
	if (in->until_max_s > 0)
		json_object_object_add(o, "until_steady", until_json(in));
	json_object_object_add(o, "target", target_json(in));
	json_object_object_add(o, "started_at", report_time_json(in->start_wall));
	json_object_object_add(o, "ended_at", report_time_json(in->end_wall));
	json_object_object_add(o, "elapsed_s", json_object_new_double(all));
	if (in->verdict != NULL) {
		json_object_object_add(o, "verdict", verdict_json(in->verdict));
		json_object_object_add(o, "warnings", verdict_warnings_json(
		    in->verdict, in->verdict_in));
	}

	/* The final counters by their stats names (rates apart). */
	memset(&z, 0, sizeof(z));
	x = stats_to_json(c, &z, &z);
	json_object_object_del(x, "rates");
	json_object_object_add(x, "generated",
	    json_object_new_int64((int64_t)in->generated));
	json_object_object_add(o, "counters", x);

	x = json_object_new_object();
	json_object_object_add(x, "updates_per_s_since_first_update",
	    json_object_new_double(per_s(c->updates_completed, since_first)));
	json_object_object_add(x, "updates_per_s_all_time",
	    json_object_new_double(per_s(c->updates_completed, all)));
	json_object_object_add(x, "creates_per_s",
	    json_object_new_double(per_s(c->creates_completed, all)));
	json_object_object_add(x, "ops_per_update", json_object_new_double(
	    c->dequeued_items > 0 ? (double)c->dequeued_operations /
	    (double)c->dequeued_items : 0));
	json_object_object_add(o, "throughput", x);
	json_object_object_add(o, "generators", generators_json(in));

	json_object_object_add(o, "samples",
	    json_object_new_int64((int64_t)in->sampler->taken));
	json_object_object_add(o, "sample_interval_s",
	    json_object_new_double(in->p->sample_interval));
	x = json_object_new_object();
	json_object_object_add(x, "significant_ops_pending",
	    dist_to_json(&in->sampler->sig));
	json_object_object_add(x, "total_operations_pending",
	    dist_to_json(&in->sampler->total));
	json_object_object_add(o, "queue_depth", x);
	/* The original write-up's figures: what its one-liner computes from
	 * stress.log (a value per block), beside the timed samples above. */
	if (in->stresslog_sig != NULL) {
		x = json_object_new_object();
		json_object_object_add(x, "blocks", json_object_new_int64(
		    (int64_t)in->stresslog_sig->count));
		json_object_object_add(x, "significant_ops_pending",
		    dist_to_json_exact(in->stresslog_sig, DIST_EXACT_VALUES));
		json_object_object_add(o, "stress_log", x);
	}

	x = json_object_new_object();
	json_object_object_add(x, "enqueue_to_persist",
	    latency_json(in->enqueue_to_persist));
	json_object_object_add(x, "update_call", latency_json(in->update_call));
	/* sync=data: one fdatasync per written batch; empty otherwise. */
	json_object_object_add(x, "fdatasync", in->fdatasync != NULL ?
	    latency_json(in->fdatasync) : NULL);
	json_object_object_add(o, "latency_ms", x);
	/* sync drop-caches: what the eviction before the load did. */
	json_object_object_add(o, "cold_cache", in->cold_cache != NULL ?
	    evict_json(in->cold_cache) : NULL);
	json_object_object_add(o, "cpu", in->cpu_start != NULL ?
	    cpustat_json(in->cpu_start, in->cpu_end) : NULL);
	json_object_object_add(o, "errors", errors_json(in));
	if (in->rrdc_start != NULL)
		json_object_object_add(o, "rrdcached", rrdcached_json(in));
	if (in->baseline != NULL)
		json_object_object_add(o, "baseline",
		    report_baseline_json(in->baseline));
	if (in->run_dir != NULL)
		json_object_object_add(o, "files", files_json(in->run_dir));
	return o;
}

/* Write text and a newline to path, whole or not at all. */
static int
write_atomic(const char *path, const char *text, size_t len)
{
	FILE *fp;

	if ((fp = util_tmp_open(path)) == NULL)
		return -1;
	fwrite(text, 1, len, fp);
	fputc('\n', fp);
	return util_tmp_commit(fp, path);
}

int
report_write_json(const char *path, json_object *j)
{
	size_t len;
	const char *text = json_object_to_json_string_length(j,
	    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
	    JSON_C_TO_STRING_NOSLASHESCAPE, &len);

	return write_atomic(path, text, len);
}

int
report_write(const char *run_dir, const struct report_input *in, char *err,
    size_t errlen)
{
	char path[4300];
	json_object *j = report_json(in);
	int rc = 0;

	snprintf(path, sizeof(path), "%s/report.json", run_dir);
	if (report_write_json(path, j) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		rc = -1;
	}
	json_object_put(j);
	snprintf(path, sizeof(path), "%s/samples.csv", run_dir);
	if (rc == 0 && sampler_write_csv(in->sampler, path) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		rc = -1;
	}
	return rc;
}
