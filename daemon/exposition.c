/* The Prometheus exposition; see exposition.h. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <event2/buffer.h>

#include "exposition.h"
#include "hist.h"
#include "job.h"
#include "lifecycle.h"
#include "prom.h"
#include "queue.h"
#include "recover.h"
#include "rrdcc.h"
#include "rrdfile.h"
#include "run.h"
#include "stats.h"

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
	if (r != NULL) {
		int kept;
		size_t nw;

		/* The same verdict and warnings as stats and the record. */
		run_verdict_now(r, &kept, &nw);
		prom_header(out, "stressd_verdict", "gauge", "the current or "
		    "last run's verdict so far: 1 kept up, 0 fell behind, -1 "
		    "cannot tell");
		prom_sample(out, "stressd_verdict", NULL, kept);
		prom_header(out, "stressd_warnings", "gauge", "the current or "
		    "last run's warnings: results that cannot mean what they "
		    "seem");
		prom_sample(out, "stressd_warnings", NULL, (double)nw);
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
	job_metrics(out);	/* the jobs' own gauges */
}
