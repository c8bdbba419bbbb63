#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include <stddef.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include "commands.h"
#include "conffile.h"
#include "control.h"
#include "hist.h"
#include "prom.h"
#include "queue.h"
#include "request.h"
#include "knobs.h"
#include "log.h"
#include "proto.h"
#include "rrdcc.h"
#include "rrdfile.h"
#include "run.h"
#include "stats.h"
#include "util.h"

static struct {
	char		 state_dir[4096];
	char		 socket_path[4096];
	double		 started;
	unsigned	 next_id;
	struct run	*run;		/* the current or the last run */
	struct run	*pending;	/* being prepared; becomes run */
	struct event	*sample_ev;	/* samples the current run */
	bool		 cancel_pending;/* stop came while preparing */
	bool		 shutting_down;	/* SIGTERM/SIGINT: no new runs */
	const struct config *cfg;	/* profiles, allowed_dirs, defaults */
} d;

void
commands_set_config(const struct config *cfg)
{
	d.cfg = cfg;
}

static void cmd_start(struct control_conn *, json_object *, json_object *);
static void cmd_stop(struct control_conn *, json_object *, json_object *);
static void cmd_stats(struct control_conn *, json_object *, json_object *);
static void cmd_status(struct control_conn *, json_object *, json_object *);
static void cmd_wait(struct control_conn *, json_object *, json_object *);
static void cmd_report(struct control_conn *, json_object *, json_object *);
static void cmd_runs(struct control_conn *, json_object *, json_object *);
static void cmd_help(struct control_conn *, json_object *, json_object *);
static void cmd_version(struct control_conn *, json_object *, json_object *);

static const struct command commands[] = {
	{ "start", "start {knob: value, ..., \"profile\": name}",
	  "start a run; args are the run knobs, over those of a profile of "
	  "stressd.conf", false, cmd_start },
	{ "stop", "stop [{\"drain\": bool, \"wait\": bool}]",
	  "stop the run: drain the queue (default) or discard it; with wait "
	  "(default) reply when it has ended", false, cmd_stop },
	{ "stats", "stats", "gauges, counters and rates of the current or "
	  "last run", true, cmd_stats },
	{ "status", "status", "daemon version, uptime and the current or "
	  "last run", true, cmd_status },
	{ "wait", "wait", "reply with the final stats once the run has ended",
	  true, cmd_wait },
	{ "report", "report [{\"run\": id}]", "the record of a run (report.json; "
	  "default the current or last run)", true, cmd_report },
	{ "runs", "runs", "the recorded runs, one summary each", true, cmd_runs },
	{ "help", "help", "list the commands", true, cmd_help },
	{ "version", "version", "daemon, protocol and librrd versions", true,
	  cmd_version },
};

const struct command *
commands_find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* Check a command's arguments (request_check_args), their values in *a
 * when it is not NULL; false if it replied. */
static bool
args_ok(struct control_conn *c, const char *cmd, json_object *args,
    json_object *id, struct request_args *a)
{
	struct request_error e;

	if (request_check_args(cmd, args, d.cfg, a, &e) == 0)
		return true;
	control_reply_error(c, id, e.code, e.field, "%s", e.message);
	return false;
}

static json_object *
current_stats(void)
{
	return d.run != NULL ? run_stats_json(d.run) : run_idle_stats_json();
}

/* The versions both `version` and `status` report. */
static json_object *
version_json(void)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "version",
	    json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(o, "protocol",
	    json_object_new_int(PROTO_VERSION));
	json_object_object_add(o, "librrd",
	    json_object_new_string(rrdfile_librrd_version()));
	return o;
}

static void
cmd_start(struct control_conn *c, json_object *args, json_object *id)
{
	struct request_args a;
	char err[RUN_ERR_MAX];

	if (d.shutting_down) {
		control_reply_error(c, id, PROTO_ERR_BUSY, NULL,
		    "stressd is shutting down");
		return;
	}
	if (d.pending != NULL) {
		control_reply_error(c, id, PROTO_ERR_BUSY, NULL,
		    "run %u is being prepared", run_id(d.pending));
		return;
	}
	if (run_active(d.run)) {
		control_reply_error(c, id, PROTO_ERR_BUSY, NULL,
		    "run %u is %s; stop it or wait for it first",
		    run_id(d.run), run_state_name(run_state(d.run)));
		return;
	}
	if (!args_ok(c, "start", args, id, &a))
		return;
	if (d.cfg != NULL && conffile_dir_allowed(d.cfg, a.params.dir, err,
	    sizeof(err)) != 1)
		control_reply_error(c, id, PROTO_ERR_DENIED, "dir", "%s", err);
	else if (d.cfg != NULL && conffile_target_allowed(d.cfg,
	    a.params.target, err, sizeof(err)) != 1)
		control_reply_error(c, id, PROTO_ERR_DENIED, "target", "%s",
		    err);
	else if ((d.pending = run_prepare(d.next_id, d.state_dir,
	    &a.params)) == NULL)
		control_reply_error(c, id, PROTO_ERR_INTERNAL, NULL,
		    "cannot start preparing the run: out of resources");
	else
		/* The reply comes once the files are checked (commands_tick). */
		control_defer(c, id, CONTROL_WAIT_START);
	request_args_free(&a);
}

/* A prepared run either becomes the current run or is refused. */
static void
launch_pending(void)
{
	struct run *r = d.pending;
	const char *field;
	char err[RUN_ERR_MAX];
	json_object *res;
	struct timeval tv;

	d.pending = NULL;
	/* A stop or a signal while preparing: the run never starts (its
	 * queued creates included), and whoever waits hears so. */
	if (d.cancel_pending || d.shutting_down) {
		control_fail_deferred(CONTROL_WAIT_START, PROTO_ERR_NO_RUN,
		    NULL, d.shutting_down ? "stressd is shutting down; the run "
		    "was not started" : "the run was stopped before it started");
		d.cancel_pending = false;
		goto refused;
	}
	if (run_launch(r, &field, err, sizeof(err)) == -1) {
		control_fail_deferred(CONTROL_WAIT_START,
		    PROTO_ERR_BAD_ARGUMENT, field, err);
		goto refused;
	}
	d.next_id++;
	run_free(d.run);
	d.run = r;
	res = run_status_json(r);
	json_object_object_add(res, "run_id", json_object_new_int64(run_id(r)));
	control_complete_deferred(CONTROL_WAIT_START, res);
	/* The sampler is a timer of the event loop: a snapshot is a short
	 * lock of the queue, no thread of its own. */
	tv.tv_sec = (time_t)run_sample_interval(r);
	tv.tv_usec = (suseconds_t)((run_sample_interval(r) - (double)tv.tv_sec) *
	    1e6);
	event_add(d.sample_ev, &tv);
	return;
refused:
	run_free(r);
	/* Those who waited for the run's end get the last run as it is. */
	control_complete_deferred(CONTROL_WAIT_RUN_END, current_stats());
}

static void
cmd_stop(struct control_conn *c, json_object *args, json_object *id)
{
	struct request_args a;
	bool drain, wait;
	json_object *res;

	if (!args_ok(c, "stop", args, id, &a))
		return;
	drain = a.drain;
	wait = a.wait;
	request_args_free(&a);
	if (d.pending != NULL) {
		/* Not started yet: it is refused when its preparation ends. */
		d.cancel_pending = true;
		res = json_object_new_object();
		json_object_object_add(res, "run_id",
		    json_object_new_int64(run_id(d.pending)));
		json_object_object_add(res, "state",
		    json_object_new_string("stopped"));
		control_reply_ok(c, id, res);
		return;
	}
	if (!run_active(d.run)) {
		control_reply_error(c, id, PROTO_ERR_NO_RUN, NULL,
		    "no run is active");
		return;
	}
	run_stop(d.run, drain, NULL);
	if (wait) {
		control_defer(c, id, CONTROL_WAIT_RUN_END);
		return;
	}
	res = json_object_new_object();
	json_object_object_add(res, "run_id",
	    json_object_new_int64(run_id(d.run)));
	json_object_object_add(res, "state",
	    json_object_new_string(run_state_name(run_state(d.run))));
	control_reply_ok(c, id, res);
}

static void
cmd_stats(struct control_conn *c, json_object *args, json_object *id)
{
	if (args_ok(c, "stats", args, id, NULL))
		control_reply_ok(c, id, current_stats());
}

static void
cmd_status(struct control_conn *c, json_object *args, json_object *id)
{
	json_object *o;

	if (!args_ok(c, "status", args, id, NULL))
		return;
	o = version_json();
	json_object_object_add(o, "pid", json_object_new_int(getpid()));
	json_object_object_add(o, "uptime_s",
	    json_object_new_double(util_now() - d.started));
	json_object_object_add(o, "socket",
	    json_object_new_string(d.socket_path));
	json_object_object_add(o, "state_dir",
	    json_object_new_string(d.state_dir));
	json_object_object_add(o, "state",
	    json_object_new_string(run_state_name(run_state(d.run))));
	json_object_object_add(o, "preparing_run", d.pending != NULL ?
	    json_object_new_int64(run_id(d.pending)) : NULL);
	json_object_object_add(o, "run",
	    d.run != NULL ? run_status_json(d.run) : NULL);
	control_reply_ok(c, id, o);
}

static void
cmd_wait(struct control_conn *c, json_object *args, json_object *id)
{
	if (!args_ok(c, "wait", args, id, NULL))
		return;
	if (run_active(d.run) || d.pending != NULL)
		control_defer(c, id, CONTROL_WAIT_RUN_END);
	else
		control_reply_ok(c, id, current_stats());
}

static void
cmd_help(struct control_conn *c, json_object *args, json_object *id)
{
	json_object *o, *list;

	if (!args_ok(c, "help", args, id, NULL))
		return;
	list = json_object_new_array();
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "name",
		    json_object_new_string(commands[i].name));
		json_object_object_add(e, "usage",
		    json_object_new_string(commands[i].usage));
		json_object_object_add(e, "summary",
		    json_object_new_string(commands[i].summary));
		json_object_object_add(e, "read_only",
		    json_object_new_boolean(commands[i].read_only));
		json_object_array_add(list, e);
	}
	o = json_object_new_object();
	json_object_object_add(o, "commands", list);
	control_reply_ok(c, id, o);
}

static void
cmd_version(struct control_conn *c, json_object *args, json_object *id)
{
	if (args_ok(c, "version", args, id, NULL))
		control_reply_ok(c, id, version_json());
}

static void
on_sample(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	if (d.run != NULL)
		run_sample(d.run);
}

/* ------------------------------------------------------------ metrics */

/* The Prometheus exposition of the current or last run: gauges, the
 * counters as _total, the latency histograms in seconds, and a run_info
 * with the run's labels.  Counters restart with every run (a reset, as
 * Prometheus expects of counters). */
void
commands_metrics(struct evbuffer *out, void *arg)
{
	struct queue_counters c;
	struct hist *e2p = NULL, *call = NULL, *fsync = NULL;
	char name[128], labels[2048], id[32], dir[1024], fs[256];
	uint64_t kinds[RRDFILE_NKINDS] = { 0 };
	struct rrdcc_stats rst;
	struct run *r = d.run;

	(void)arg;
	memset(&c, 0, sizeof(c));
	if (r != NULL) {
		run_counters(r, &c);
		prom_label_escape(dir, sizeof(dir), run_target_dir(r));
		prom_label_escape(fs, sizeof(fs), run_fs_type(r));
		snprintf(id, sizeof(id), "%u", run_id(r));
		snprintf(labels, sizeof(labels), "run_id=\"%s\",state=\"%s\","
		    "dir=\"%s\",fs_type=\"%s\"", id,
		    run_state_name(run_state(r)), dir, fs);
		prom_header(out, "stressd_run_info", "gauge",
		    "the current or last run; its labels name it");
		prom_sample(out, "stressd_run_info", labels, 1);
	}
	for (size_t i = 0; i < stats_ncounters; i++) {
		const struct stats_counter *k = &stats_counters[i];

		snprintf(name, sizeof(name), "stressd_%s", k->prom);
		prom_header(out, name, k->kind == STATS_GAUGE ? "gauge" :
		    "counter", k->help);
		prom_sample(out, name, NULL, (double)stats_value(k, &c));
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
}

/* A recorded run's report.json from STATE/runs/<id>/, or NULL. */
static json_object *
load_report(unsigned id)
{
	char path[4300];

	snprintf(path, sizeof(path), "%s/runs/%u/report.json", d.state_dir, id);
	return json_object_from_file(path);
}

/* The highest run id with a report.json, or 0. */
static unsigned
last_recorded_run(void)
{
	for (unsigned id = d.next_id - 1; id > 0; id--) {
		char path[4300];

		snprintf(path, sizeof(path), "%s/runs/%u/report.json",
		    d.state_dir, id);
		if (access(path, R_OK) == 0)
			return id;
	}
	return 0;
}

/* The record of run id: fresh for the current run, else from disk. */
static json_object *
report_of(unsigned id)
{
	if (d.run != NULL && run_id(d.run) == id)
		return run_report_json(d.run);
	return load_report(id);
}

static void
cmd_report(struct control_conn *c, json_object *args, json_object *id)
{
	struct request_args a;
	json_object *rep;
	int64_t want;

	if (!args_ok(c, "report", args, id, &a))
		return;
	want = a.run;
	request_args_free(&a);
	if (want == 0 && d.run != NULL)
		want = run_id(d.run);
	else if (want == 0 && (want = last_recorded_run()) == 0) {
		/* After a restart the last run is the newest record. */
		control_reply_error(c, id, PROTO_ERR_NO_RUN, NULL,
		    "no run recorded in %s/runs", d.state_dir);
		return;
	}
	if ((rep = report_of((unsigned)want)) == NULL) {
		control_reply_error(c, id, PROTO_ERR_NO_RUN, "run",
		    "no record of run %lld in %s/runs", (long long)want,
		    d.state_dir);
		return;
	}
	control_reply_ok(c, id, rep);
}

/* One line of `runs` from a record. */
static json_object *
run_summary_json(json_object *rep)
{
	static const char *const paths[][3] = {
		{ "id", "run_id", NULL }, { "state", "state", NULL },
		{ "started_at", "started_at", NULL },
		{ "ended_at", "ended_at", NULL },
		{ "dir", "target", "dir" }, { "fs_type", "target", "fs_type" },
		{ "mount_options", "target", "mount_options" },
		{ "updates_completed", "counters", "updates_completed" },
		{ "significant_avg", "queue_depth", "significant_ops_pending" },
		{ "report", "files", "report" },
		{ "sweep_id", "params", "sweep_id" },
	};
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		json_object *v = rep;

		for (int k = 1; k < 3 && paths[i][k] != NULL && v != NULL; k++)
			if (!json_object_object_get_ex(v, paths[i][k], &v))
				v = NULL;
		if (v != NULL && strcmp(paths[i][0], "significant_avg") == 0 &&
		    !json_object_object_get_ex(v, "average", &v))
			v = NULL;
		json_object_object_add(o, paths[i][0], json_object_get(v));
	}
	return o;
}

static int
by_id(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

static void
cmd_runs(struct control_conn *c, json_object *args, json_object *id)
{
	char runs[4200];
	unsigned *ids = NULL;
	size_t n = 0, cap = 0;
	json_object *list, *o;
	struct dirent *de;
	DIR *dir;

	if (!args_ok(c, "runs", args, id, NULL))
		return;
	snprintf(runs, sizeof(runs), "%s/runs", d.state_dir);
	if ((dir = opendir(runs)) != NULL) {
		while ((de = readdir(dir)) != NULL) {
			char *end;
			unsigned long v = strtoul(de->d_name, &end, 10);

			if (*end != '\0' || end == de->d_name || v == 0 ||
			    v >= 1000000000UL)
				continue;
			if (n == cap) {
				unsigned *ni = realloc(ids, (cap = cap ? cap * 2 :
				    64) * sizeof(*ids));

				if (ni == NULL)
					break;
				ids = ni;
			}
			ids[n++] = (unsigned)v;
		}
		closedir(dir);
	}
	qsort(ids, n, sizeof(*ids), by_id);
	list = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		json_object *rep = report_of(ids[i]);

		if (rep == NULL)
			continue;	/* a run refused before its record */
		json_object_array_add(list, run_summary_json(rep));
		json_object_put(rep);
	}
	free(ids);
	o = json_object_new_object();
	json_object_object_add(o, "runs", list);
	control_reply_ok(c, id, o);
}

/* Run ids continue after the highest one under STATE/runs, so records
 * of earlier daemons are never overwritten. */
static unsigned
highest_run_id(const char *runs)
{
	DIR *dir = opendir(runs);
	struct dirent *de;
	unsigned max = 0;

	if (dir == NULL)
		return 0;
	while ((de = readdir(dir)) != NULL) {
		char *end;
		unsigned long v = strtoul(de->d_name, &end, 10);

		if (*end == '\0' && end != de->d_name && v > max &&
		    v < 1000000000UL)
			max = (unsigned)v;
	}
	closedir(dir);
	return max;
}

int
commands_init(struct event_base *base, const char *state_dir,
    const char *socket_path)
{
	char runs[4200];

	if ((d.sample_ev = event_new(base, -1, EV_PERSIST, on_sample,
	    NULL)) == NULL)
		return -1;
	snprintf(d.state_dir, sizeof(d.state_dir), "%s", state_dir);
	snprintf(d.socket_path, sizeof(d.socket_path), "%s", socket_path);
	snprintf(runs, sizeof(runs), "%s/runs", state_dir);
	if (util_mkdir_p(runs, 0755) == -1 || access(runs, W_OK) == -1) {
		log_warn("state directory %s", runs);
		return -1;
	}
	d.next_id = highest_run_id(runs) + 1;
	d.started = util_now();
	return 0;
}

void
commands_tick(void)
{
	if (d.pending != NULL && run_prepared(d.pending))
		launch_pending();
	if (d.run != NULL && run_active(d.run) && run_tick(d.run)) {
		event_del(d.sample_ev);
		control_complete_deferred(CONTROL_WAIT_RUN_END,
		    run_stats_json(d.run));
	}
}


void
commands_shutdown(bool drain, const char *why)
{
	d.shutting_down = true;	/* a pending run is refused, not started */
	if (run_active(d.run))
		run_stop(d.run, drain, why);
}

bool
commands_quiescent(void)
{
	return d.pending == NULL && !run_active(d.run);
}

uint64_t
commands_updates_done(void)
{
	struct queue_counters c;

	struct rrdcc_stats st;

	if (d.run == NULL)
		return 0;
	run_counters(d.run, &c);
	/* With an rrdcached target the drain ends with its flush: values
	 * it writes are progress too. */
	return c.updates_completed + c.updates_failed +
	    (run_rrdcached_stats(d.run, &st) ? st.data_sets_written : 0);
}

bool
commands_stuck(double limit)
{
	return (d.run != NULL && run_stuck(d.run, limit)) ||
	    (d.pending != NULL && run_stuck(d.pending, limit));
}

void
commands_summary(char *buf, size_t len)
{
	run_summary(d.run, buf, len);
}

void
commands_finish(void)
{
	run_free(d.pending);
	run_free(d.run);
	d.pending = d.run = NULL;
	if (d.sample_ev != NULL)
		event_free(d.sample_ev);
	d.sample_ev = NULL;
}
