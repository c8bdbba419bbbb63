/* The Prometheus exposition; see exposition.h. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <event2/buffer.h>

#include "capacity.h"
#include "exposition.h"
#include "hist.h"
#include "lifecycle.h"
#include "prom.h"
#include "queue.h"
#include "recover.h"
#include "rrdcc.h"
#include "rrdfile.h"
#include "run.h"
#include "stats.h"
#include "sweep.h"

/* The capacity search running now: where it is and its bracket. */
static void
render_capacity(struct evbuffer *out)
{
	static const struct {
		const char *key, *name, *help;
	} g[] = {
		{ "dir_index", "stressd_capacity_dir_index",
		  "the directory being searched, from 0" },
		{ "step", "stressd_capacity_step", "the step running, from 1" },
		{ "rate", "stressd_capacity_offered_rate",
		  "updates/s the current step offers" },
		{ "kept_up_rate", "stressd_capacity_kept_up_rate",
		  "the highest rate the directory kept up with so far" },
		{ "behind_rate", "stressd_capacity_behind_rate",
		  "the lowest rate the directory did not keep up with so far" },
	};
	json_object *st = capacity_status_json(), *v;
	char labels[1200], dir[1024];

	prom_header(out, "stressd_capacity_active", "gauge",
	    "1 while a capacity search runs");
	prom_sample(out, "stressd_capacity_active", NULL, st != NULL);
	if (st == NULL)
		return;
	json_object_object_get_ex(st, "dir", &v);
	prom_label_escape(dir, sizeof(dir), json_object_get_string(v));
	json_object_object_get_ex(st, "id", &v);
	snprintf(labels, sizeof(labels), "capacity_id=\"%d\",dir=\"%s\"",
	    json_object_get_int(v), dir);
	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		if (!json_object_object_get_ex(st, g[i].key, &v) || v == NULL)
			continue;	/* no bracket end yet */
		prom_header(out, g[i].name, "gauge", g[i].help);
		prom_sample(out, g[i].name, labels, json_object_get_double(v));
	}
	json_object_put(st);
}

/* The sweep running now: which run of how many, and how many failed. */
static void
render_sweep(struct evbuffer *out)
{
	static const struct {
		const char *key, *name, *help;
	} g[] = {
		{ "run", "stressd_sweep_run", "the sweep's run running, from 1" },
		{ "runs_planned", "stressd_sweep_runs_planned",
		  "runs the sweep makes: directories x repeat" },
		{ "runs_done", "stressd_sweep_runs_done",
		  "runs of the sweep that have ended" },
		{ "runs_failed", "stressd_sweep_runs_failed",
		  "runs of the sweep that ended failed" },
		{ "dir_index", "stressd_sweep_dir_index",
		  "the directory of the run running, from 0" },
	};
	json_object *st = sweep_status_json(), *v;
	char labels[1024], sid[300], label[300];

	prom_header(out, "stressd_sweep_active", "gauge",
	    "1 while a sweep runs");
	prom_sample(out, "stressd_sweep_active", NULL, st != NULL);
	if (st == NULL)
		return;
	json_object_object_get_ex(st, "sweep_id", &v);
	prom_label_escape(sid, sizeof(sid), json_object_get_string(v));
	json_object_object_get_ex(st, "label", &v);
	prom_label_escape(label, sizeof(label), json_object_get_string(v));
	json_object_object_get_ex(st, "id", &v);
	snprintf(labels, sizeof(labels), "sweep=\"%d\",sweep_id=\"%s\","
	    "label=\"%s\"", json_object_get_int(v), sid, label);
	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		if (!json_object_object_get_ex(st, g[i].key, &v) || v == NULL)
			continue;
		prom_header(out, g[i].name, "gauge", g[i].help);
		prom_sample(out, g[i].name, labels, json_object_get_double(v));
	}
	json_object_put(st);
}

/* The Prometheus exposition of the current or last run: gauges, the
 * counters as _total, the latency histograms in seconds, and a run_info
 * with the run's labels.  Counters restart with every run (a reset, as
 * Prometheus expects of counters). */
void
exposition_render(struct evbuffer *out, void *arg)
{
	struct queue_counters c;
	struct hist *e2p = NULL, *call = NULL, *fsync = NULL;
	char name[128], labels[2048], id[32], dir[1024], fs[256];
	uint64_t kinds[RRDFILE_NKINDS] = { 0 };
	struct rrdcc_stats rst;
	struct run *r = lifecycle_run();
	const char *rdir, *rfs;
	unsigned rid;

	(void)arg;
	memset(&c, 0, sizeof(c));
	/* No run yet in this process: the last one may be a run a crash
	 * left, which this start marked interrupted (no counters of it). */
	if (r != NULL || recover_last(&rid, &rdir, &rfs)) {
		if (r != NULL)
			run_counters(r, &c);
		prom_label_escape(dir, sizeof(dir), r != NULL ?
		    run_target_dir(r) : rdir);
		prom_label_escape(fs, sizeof(fs), r != NULL ? run_fs_type(r) :
		    rfs);
		snprintf(id, sizeof(id), "%u", r != NULL ? run_id(r) : rid);
		snprintf(labels, sizeof(labels), "run_id=\"%s\",state=\"%s\","
		    "dir=\"%s\",fs_type=\"%s\"", id, r != NULL ?
		    run_state_name(run_state(r)) : "interrupted", dir, fs);
		prom_header(out, "stressd_run_info", "gauge",
		    "the current or last run; its labels name it");
		prom_sample(out, "stressd_run_info", labels, 1);
	}
	for (size_t i = 0; i < stats_ncounters; i++) {
		const struct stats_counter *k = &stats_counters[i];

		snprintf(name, sizeof(name), "stressd_%s", k->prom);
		prom_header(out, name, k->kind == STATS_GAUGE ? "gauge" :
		    "counter", k->help);
		prom_sample(out, name, NULL, stats_prom_value(k, &c));
	}
	if (r != NULL)
		run_errors_by_kind(r, kinds);
	prom_header(out, "stressd_errors_by_kind_total", "counter",
	    "failed librrd calls by what they ran into");
	for (int i = 0; i < RRDFILE_NKINDS; i++) {
		snprintf(labels, sizeof(labels), "kind=\"%s\"",
		    rrdfile_kind_name(i));
		prom_sample(out, "stressd_errors_by_kind_total", labels,
		    (double)kinds[i]);
	}
	/* rrdcached's own counters and queue, as its STATS names them
	 * (gauges: they are rrdcached's totals, reset when it restarts). */
	if (run_rrdcached_stats(r, &rst))
		for (size_t i = 0; i < rrdcc_nstat_fields; i++) {
			char help[160];

			snprintf(name, sizeof(name), "stressd_rrdcached_%s",
			    rrdcc_stat_fields[i].name);
			snprintf(help, sizeof(help), "the target rrdcached's "
			    "STATS %s as of the latest sample",
			    rrdcc_stat_fields[i].name);
			prom_header(out, name, "gauge", help);
			prom_sample(out, name, NULL,
			    (double)rrdcc_stat_value(&rst, i));
		}
	if (r != NULL && (e2p = hist_create()) != NULL &&
	    (call = hist_create()) != NULL)
		run_latency(r, e2p, call);
	if (r != NULL && (fsync = hist_create()) != NULL)
		run_sync_latency(r, fsync);
	prom_histogram(out, "stressd_enqueue_to_persist_seconds",
	    "time from a batch's oldest value being queued to its write "
	    "ending", e2p, 1e-9, NULL);
	prom_histogram(out, "stressd_update_call_seconds",
	    "time one rrd_update_r call took", call, 1e-9, NULL);
	prom_histogram(out, "stressd_fdatasync_seconds",
	    "time the fdatasync after a written batch took (sync=data)",
	    fsync, 1e-9, NULL);
	hist_destroy(e2p);
	hist_destroy(call);
	hist_destroy(fsync);
	render_capacity(out);
	render_sweep(out);
}
