#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cpustat.h"
#include "loadgen.h"
#include "log.h"
#include "metricsrrd.h"
#include "queue.h"
#include "hist.h"
#include "mountinfo.h"
#include "report.h"
#include "rrdcc.h"
#include "rrdfile.h"
#include "run.h"
#include "sampler.h"
#include "stats.h"
#include "stresslog.h"
#include "util.h"
#include "writer.h"

struct run {
	unsigned		 id;
	enum run_state		 state;
	struct stress_params	 p;
	char			 state_dir[4096];
	char			 run_dir[4200];
	char			 log_path[4300];
	char			 reason[1200];

	struct queue		*q;
	struct writer_pool	*wp;
	struct loadgen		*lg;
	struct stresslog	*sl;
	double			*replay;
	size_t			 nreplay;
	uint64_t		 missing;	/* files to create */

	double			 start_mono, end_mono;
	time_t			 start_wall, end_wall;
	bool			 stop_requested, discard;
	bool			 shutdown_discard;	/* by a shutdown */
	uint64_t		 discarded_before_shutdown;
	bool			 failed;	/* ends failed, with reason */
	uint64_t		 generated;	/* final, once ended */
	struct queue_counters	 last;		/* window of "current" rates */
	struct queue_counters	 final;		/* frozen at the end */
	struct cpustat		 cpu0, cpu1;	/* CPU at start, at the end */

	pthread_mutex_t		 err_mu;
	unsigned		 nkept;
	char			 kept[RUN_ERRORS_KEPT][1024];
	uint64_t		 kinds[RRDFILE_NKINDS]; /* errors by kind */
	/* fail_after: the current streak of failed writes (under err_mu but
	 * ok_seen, the writes landed as of the last tick) */
	double			 fail_since;	/* its first error; 0: none */
	double			 fail_last;	/* its last error */
	char			 fail_first[1024];
	uint64_t		 ok_seen;

	struct writer_hooks	 hooks;
	struct sampler		 sampler;
	struct mountinfo	 mount;
	bool			 have_mount;
	double			 last_report;	/* monotonic s */
	char			 metrics_path[4300];
	time_t			 metrics_last;	/* 0: not (or no longer) written */

	/* Latency of writes, recorded by the writers under lat_mu; the
	 * report copies them into the scratch pair. */
	pthread_mutex_t		 lat_mu;
	struct hist		*e2p, *call, *e2p_copy, *call_copy;
	struct hist		*fsync, *fsync_copy;	/* sync=data */
	uint64_t		 fsync_failed;
	/* Setup (directory checks, file scan) runs in a thread of its own
	 * so the event loop keeps answering; see run_prepare. */
	pthread_t		 setup_thread;
	bool			 setup_joinable;
	atomic_uint_fast64_t	 setup_busy;	/* since when setup runs, 0 */
	atomic_bool		 setup_done;
	bool			 launched;

	/* target rrdcached: the run's own connection (setup's INFO, the
	 * samples' STATS, FLUSHALL at the end), its STATS as the run began
	 * and the latest, and the flush that ends the run */
	struct rrdcc		*cc;
	struct rrdcc_stats	 cc_start, cc_latest;
	bool			 cc_have_latest;
	bool			 cc_restarted;	/* its counters went back */
	double			 cc_retry_at;	/* monotonic s, after a failure */
	double			 flush_start;	/* monotonic s; 0: not begun */
	double			 flush_polled;
	double			 flush_s;	/* -1: not done */
	bool			 flush_done;
	int			 setup_rc;
	const char		*setup_field;
	char			 setup_err[RUN_ERR_MAX];
};

const char *
run_state_name(enum run_state s)
{
	static const char *const names[] = {
		"idle", "creating", "running", "draining", "done", "stopped",
		"failed"
	};

	return names[s];
}

/* ------------------------------------------------------------ hooks */

/* Keep and log one of the run's first RUN_ERRORS_KEPT messages; later ones
 * are only counted by the caller.  Called with err_mu held. */
static void
keep_message(struct run *r, const char *msg)
{
	if (r->nkept >= RUN_ERRORS_KEPT)
		return;
	snprintf(r->kept[r->nkept++], sizeof(r->kept[0]), "%s", msg);
	log_warnx("run %u: %s", r->id, msg);
	if (r->nkept == RUN_ERRORS_KEPT)
		log_warnx("run %u: further errors are only counted", r->id);
}

static void
on_error(void *arg, enum rrdfile_kind kind, const char *msg)
{
	struct run *r = arg;
	double now = util_now();

	pthread_mutex_lock(&r->err_mu);
	r->kinds[(unsigned)kind < RRDFILE_NKINDS ? kind : RRDFILE_OTHER]++;
	if (r->fail_since == 0) {
		r->fail_since = now;
		snprintf(r->fail_first, sizeof(r->fail_first), "%s", msg);
	}
	r->fail_last = now;
	keep_message(r, msg);
	pthread_mutex_unlock(&r->err_mu);
}

static void
on_call_time(void *arg, uint64_t ns)
{
	struct run *r = arg;

	pthread_mutex_lock(&r->lat_mu);
	hist_record(r->call, ns);
	pthread_mutex_unlock(&r->lat_mu);
}

/* A failed fdatasync is no failed write (the values landed in the file):
 * it is counted apart, and its message kept and logged like an error's. */
static void
on_sync_time(void *arg, uint64_t ns, const char *err)
{
	struct run *r = arg;

	pthread_mutex_lock(&r->lat_mu);
	if (err == NULL)
		hist_record(r->fsync, ns);
	else
		r->fsync_failed++;
	pthread_mutex_unlock(&r->lat_mu);
	if (err == NULL)
		return;
	pthread_mutex_lock(&r->err_mu);
	keep_message(r, err);
	pthread_mutex_unlock(&r->err_mu);
}

static void
on_persisted(void *arg, uint64_t ns)
{
	struct run *r = arg;

	pthread_mutex_lock(&r->lat_mu);
	hist_record(r->e2p, ns);
	pthread_mutex_unlock(&r->lat_mu);
}

/* A stats block every `modulus` completed updates, as the original. */
static void
on_progress(void *arg, uint64_t completed, uint64_t count)
{
	struct run *r = arg;

	if (completed / r->p.modulus != (completed - count) / r->p.modulus)
		stresslog_block(r->sl, r->q);
}

/* ------------------------------------------------------------ setup */

#define BAD(f, ...) do {						\
	*field = (f);							\
	snprintf(err, errlen, __VA_ARGS__);				\
	goto fail;							\
} while (0)

/*
 * Create a probe file with the run's layout inside the target directory:
 * it proves the directory writable by librrd, validates the RRA list with
 * librrd's own parser, and gives the layout existing files must match.
 */
static int
probe_layout(struct run *r, char *layout, size_t len, const char **field,
    char *err, size_t errlen)
{
	char path[4200], msg[1024];
	time_t last;

	/* With an rrdcached target the files are its business: the probe
	 * only gives the layout, made in the state directory. */
	snprintf(path, sizeof(path), "%s/.stressd-probe-%ld.rrd",
	    r->cc != NULL ? r->state_dir : r->p.dir, (long)getpid());
	if (rrdfile_create(&r->p, path, (time_t)r->p.start, NULL, msg,
	    sizeof(msg)) == -1) {
		unlink(path);
		BAD("rras", "librrd refuses this layout: %s", msg);
	}
	if (rrdfile_layout(path, layout, len, &last, msg, sizeof(msg)) == -1) {
		unlink(path);
		BAD("dir", "%s", msg);
	}
	unlink(path);
	return 0;
fail:
	return -1;
}

/* File n is to be created. */
static void
scan_missing(struct run *r, uint32_t n)
{
	queue_file_init(r->q, n, (int64_t)r->p.start, false);
	/* Synchronous creates: the writer pool creates every missing file
	 * before the first update is generated. */
	if (!r->p.queue_creates)
		queue_push_create(r->q, n);
	r->missing++;
}

/* Check every file of the run: reuse those with the same layout (their
 * timestamps continue after rrd_last), refuse any other layout.  With an
 * rrdcached target its INFO tells, so the files are where it sees them. */
static int
scan_files(struct run *r, const char *layout, const char **field, char *err,
    size_t errlen)
{
	char path[4200], have[8192], msg[1024];
	uint64_t reused = 0;

	for (uint32_t n = 0; n < r->p.files; n++) {
		struct stat st;
		enum rrdfile_kind k;
		time_t last;

		if (rrdfile_path(&r->p, n, path, sizeof(path)) == -1)
			BAD("dir", "dir %s: file path too long", r->p.dir);
		if (r->cc != NULL) {
			if (rrdcc_layout(r->cc, path, have, sizeof(have),
			    &last, &k, msg, sizeof(msg)) == 0)
				goto found;
			if (k == RRDFILE_MISSING) {
				scan_missing(r, n);
				continue;
			}
			BAD(k == RRDFILE_CONNECTION ? "target" : "dir",
			    "existing file cannot be reused: %s", msg);
		}
		if (stat(path, &st) == -1) {
			if (errno != ENOENT)
				BAD("dir", "%s: %s", path, strerror(errno));
			scan_missing(r, n);
			continue;
		}
		if (rrdfile_layout(path, have, sizeof(have), &last, msg,
		    sizeof(msg)) == -1)
			BAD("dir", "existing file cannot be reused: %s", msg);
found:
		if (strcmp(have, layout) != 0)
			BAD("dir", "existing file %s has another layout (step, "
			    "data sources or RRAs) than this run asks for; "
			    "remove it or use another dir", path);
		queue_file_init(r->q, n, (int64_t)last, true);
		reused++;
	}
	if (reused > 0)
		log_info("run %u: reusing %llu existing files", r->id,
		    (unsigned long long)reused);
	return 0;
fail:
	return -1;
}

static int
make_dirs(struct run *r, const char **field, char *err, size_t errlen)
{
	char path[4200];
	struct stat st;
	int fd;

	if (util_mkdir_p(r->p.dir, 0755) == -1)
		BAD("dir", "cannot create dir %s: %s", r->p.dir,
		    strerror(errno));
	if (stat(r->p.dir, &st) == -1 || !S_ISDIR(st.st_mode))
		BAD("dir", "dir %s is not a directory", r->p.dir);
	/* A real file, since access(2) says yes to root on a read-only
	 * directory. */
	snprintf(path, sizeof(path), "%s/.stressd-write-test-%ld", r->p.dir,
	    (long)getpid());
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1)
		BAD("dir", "dir %s is not writable: %s", r->p.dir,
		    strerror(errno));
	close(fd);
	unlink(path);
	for (uint64_t d = 0; r->p.files_per_dir > 0 &&
	    d * r->p.files_per_dir < r->p.files; d++) {
		snprintf(path, sizeof(path), "%s/%llu", r->p.dir,
		    (unsigned long long)d);
		if (mkdir(path, 0755) == -1 && errno != EEXIST)
			BAD("dir", "cannot create %s: %s", path,
			    strerror(errno));
	}
	return 0;
fail:
	return -1;
}

static void
start_load(struct run *r)
{
	r->lg = loadgen_start(r->q, &r->p, r->replay, r->nreplay, &r->hooks);
	if (r->lg == NULL) {
		snprintf(r->reason, sizeof(r->reason),
		    "cannot start generator threads");
		r->state = RUN_DRAINING;
		r->failed = true;
		return;
	}
	r->state = RUN_RUNNING;
	log_info("run %u: running; generator threads: %llu", r->id,
	    (unsigned long long)r->p.threads);
}

/* sync=drop-caches: write back dirty pages, then have the kernel drop the
 * clean ones, so the run starts reading its files from disk. */
static int
drop_caches(struct run *r, const char **field, char *err, size_t errlen)
{
	static const char path[] = "/proc/sys/vm/drop_caches";
	int fd;

	if (geteuid() != 0)
		BAD("sync", "sync drop-caches needs root (stressd runs as "
		    "uid %u): it writes %s", (unsigned)geteuid(), path);
	sync();
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		BAD("sync", "sync drop-caches: %s: %s", path, strerror(errno));
	if (write(fd, "3\n", 2) != 2) {
		int e = errno;

		close(fd);
		BAD("sync", "sync drop-caches: writing %s: %s", path,
		    strerror(e));
	}
	close(fd);
	log_info("run %u: sync drop-caches: synced and dropped the page "
	    "cache (3 > %s)", r->id, path);
	return 0;
fail:
	return -1;
}

/*
 * target rrdcached:ADDR: its address answers STATS (the counters the run's
 * figures start from), and the paths fit its protocol, which splits
 * commands at blanks and has no quoting.
 */
static int
connect_rrdcached(struct run *r, const char *addr, const char **field,
    char *err, size_t errlen)
{
	char msg[1024];

	if (strpbrk(r->p.dir, " \t\n\r\\") != NULL)
		BAD("dir", "dir '%s' holds a blank or backslash, which "
		    "rrdcached's protocol cannot carry in a file name",
		    r->p.dir);
	if ((r->cc = rrdcc_new(addr)) == NULL)
		BAD("target", "out of memory");
	if (rrdcc_stats(r->cc, &r->cc_start, msg, sizeof(msg)) == -1)
		BAD("target", "target %s: %s", r->p.target, msg);
	log_info("run %u: target rrdcached %s: QueueLength %llu, "
	    "DataSetsWritten %llu", r->id, addr,
	    (unsigned long long)r->cc_start.queue_length,
	    (unsigned long long)r->cc_start.data_sets_written);
	return 0;
fail:
	return -1;
}

/* Everything before the writers start; runs in the setup thread. */
static int
setup(struct run *r, const char **field, char *err, size_t errlen)
{
	struct queue_config qc;
	char layout[8192];
	const char *cc_addr = knobs_rrdcached_addr(&r->p);
	/* An rrdcached on a Unix socket runs here and shares our view of
	 * the directory; one on TCP may be on another host. */
	bool local = cc_addr == NULL || cc_addr[0] == '/' ||
	    strncmp(cc_addr, "unix:", 5) == 0;

	if (r->p.update_file[0] != '\0' && loadgen_read_values(
	    r->p.update_file, &r->replay, &r->nreplay, err, errlen) == -1) {
		*field = "update_file";
		return -1;
	}
	if (cc_addr != NULL &&
	    connect_rrdcached(r, cc_addr, field, err, errlen) == -1)
		return -1;
	if ((local && make_dirs(r, field, err, errlen) == -1) ||
	    probe_layout(r, layout, sizeof(layout), field, err, errlen) == -1)
		return -1;
	/* The filesystem under test, for the record. */
	if (!local)
		log_info("run %u: dir %s is on the rrdcached host; its "
		    "filesystem is not recorded", r->id, r->p.dir);
	else if (mountinfo_lookup(r->p.dir, &r->mount, err, errlen) == 0)
		r->have_mount = true;
	else
		log_warnx("run %u: %s", r->id, err);

	memset(&qc, 0, sizeof(qc));
	qc.files = (uint32_t)r->p.files;
	qc.prioritize = r->p.prioritize;
	qc.max_insig_update_seconds = r->p.max_insig_update_seconds;
	qc.queue_high_water = r->p.queue_high_water;
	qc.sig_high_water = r->p.sig_high_water;
	qc.insig_high_water = r->p.insig_high_water;
	qc.queue_creates = r->p.queue_creates;
	if ((r->q = queue_create(&qc)) == NULL)
		BAD("files", "out of memory for %llu files",
		    (unsigned long long)r->p.files);
	if (scan_files(r, layout, field, err, errlen) == -1)
		return -1;
	/* The baseline of the closing flush: after the scan, whose FLUSHes
	 * may have had rrdcached write values of an earlier run. */
	if (r->cc != NULL && rrdcc_stats(r->cc, &r->cc_start, err,
	    errlen) == -1) {
		*field = "target";
		return -1;
	}
	/* After the scan, which read every reused file's header. */
	if (r->p.sync == KNOBS_SYNC_DROP_CACHES &&
	    drop_caches(r, field, err, errlen) == -1)
		return -1;

	snprintf(r->run_dir, sizeof(r->run_dir), "%s/runs/%u", r->state_dir,
	    r->id);
	if (util_mkdir_p(r->run_dir, 0755) == -1)
		BAD("state_dir", "cannot create %s: %s", r->run_dir,
		    strerror(errno));
	snprintf(r->log_path, sizeof(r->log_path), "%s/stress.log",
	    r->run_dir);
	r->start_mono = util_now();
	r->start_wall = time(NULL);
	r->last.taken_at = r->start_mono;
	if ((r->sl = stresslog_open(r->log_path, r->id, &r->p,
	    r->start_mono)) == NULL)
		BAD("state_dir", "cannot write %s: %s", r->log_path,
		    strerror(errno));
	snprintf(r->metrics_path, sizeof(r->metrics_path), "%s/metrics.rrd",
	    r->run_dir);
	if (metricsrrd_create(r->metrics_path, r->start_wall, err, errlen) == 0)
		r->metrics_last = r->start_wall - 1;
	else
		log_warnx("run %u: no metrics.rrd: %s", r->id, err);
	return 0;
fail:
	return -1;
}

static void *
setup_main(void *arg)
{
	struct run *r = arg;

	/* Setup calls librrd too (probe, rrd_info of reused files): the
	 * watchdog must see it hang. */
	atomic_store(&r->setup_busy, writer_busy_now());
	r->setup_rc = setup(r, &r->setup_field, r->setup_err,
	    sizeof(r->setup_err));
	atomic_store(&r->setup_busy, 0);
	cpustat_thread_exit();
	atomic_store(&r->setup_done, true);
	return NULL;
}

struct run *
run_prepare(unsigned id, const char *state_dir, const struct stress_params *p)
{
	struct run *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	pthread_mutex_init(&r->err_mu, NULL);
	r->id = id;
	r->state = RUN_CREATING;
	r->flush_s = -1;
	pthread_mutex_init(&r->lat_mu, NULL);
	r->hooks.error = on_error;
	r->hooks.progress = on_progress;
	r->hooks.call_time = on_call_time;
	r->hooks.persisted = on_persisted;
	r->hooks.sync_time = on_sync_time;
	r->hooks.arg = r;
	snprintf(r->state_dir, sizeof(r->state_dir), "%s", state_dir);
	cpustat_read(&r->cpu0);	/* before setup: its thread counts */
	if ((r->e2p = hist_create()) == NULL ||
	    (r->call = hist_create()) == NULL ||
	    (r->e2p_copy = hist_create()) == NULL ||
	    (r->call_copy = hist_create()) == NULL ||
	    (r->fsync = hist_create()) == NULL ||
	    (r->fsync_copy = hist_create()) == NULL ||
	    sampler_init(&r->sampler) == -1 || knobs_copy(&r->p, p) == -1 ||
	    pthread_create(&r->setup_thread, NULL, setup_main, r) != 0) {
		run_free(r);
		return NULL;
	}
	r->setup_joinable = true;
	pthread_setname_np(r->setup_thread, "run-setup");
	return r;
}

bool
run_prepared(const struct run *r)
{
	return atomic_load(&((struct run *)r)->setup_done);
}

int
run_launch(struct run *r, const char **field, char *err, size_t errlen)
{
	pthread_join(r->setup_thread, NULL);
	r->setup_joinable = false;
	*field = NULL;
	if (r->setup_rc == -1) {
		*field = r->setup_field;
		snprintf(err, errlen, "%s", r->setup_err);
		return -1;
	}
	if ((r->wp = writer_pool_start(r->q, &r->p,
	    (unsigned)r->p.write_threads, NULL, &r->hooks)) == NULL) {
		*field = "write_threads";
		snprintf(err, errlen, "cannot start %llu writer threads",
		    (unsigned long long)r->p.write_threads);
		return -1;
	}
	r->launched = true;
	/* From here on it serves the event loop: a stalled rrdcached may
	 * hold a sample (or the end of the run) only this long. */
	if (r->cc != NULL)
		rrdcc_set_timeout(r->cc, RUN_RRDCACHED_POLL_MS, false);
	log_info("run %u: %llu files in %s (%llu to create), %llu updates, "
	    "%llu writers", r->id, (unsigned long long)r->p.files, r->p.dir,
	    (unsigned long long)r->missing,
	    (unsigned long long)r->p.max_updates,
	    (unsigned long long)r->p.write_threads);
	if (!r->p.queue_creates && r->missing > 0)
		r->state = RUN_CREATING;	/* the creates are queued */
	else
		start_load(r);
	return 0;
}

/* ------------------------------------------------------------ lifecycle */

/* The queue's counters, with the run's own share of them. */
static void
snapshot(struct run *r, struct queue_counters *c)
{
	queue_snapshot(r->q, c);
	c->dropped_at_shutdown = r->shutdown_discard ?
	    c->discarded - r->discarded_before_shutdown : 0;
}

/* The record's inputs, from the live queue or the final numbers; c and
 * msgs are the caller's storage. */
static void
report_input_of(struct run *r, struct report_input *in,
    struct queue_counters *c, const char **msgs)
{
	memset(in, 0, sizeof(*in));
	if (r->q != NULL && run_active(r)) {
		snapshot(r, c);
		in->generated = r->lg != NULL ? loadgen_generated(r->lg) : 0;
		in->end_mono = c->taken_at;
	} else {
		*c = r->final;
		in->generated = r->generated;
		in->end_mono = r->end_mono;
		in->end_wall = r->end_wall;
	}
	pthread_mutex_lock(&r->lat_mu);
	hist_reset(r->e2p_copy);
	hist_reset(r->call_copy);
	hist_merge(r->e2p_copy, r->e2p);
	hist_merge(r->call_copy, r->call);
	hist_reset(r->fsync_copy);
	hist_merge(r->fsync_copy, r->fsync);
	in->fdatasync_failed = r->fsync_failed;
	pthread_mutex_unlock(&r->lat_mu);
	pthread_mutex_lock(&r->err_mu);
	for (unsigned i = 0; i < r->nkept; i++)
		msgs[i] = r->kept[i];	/* kept[] is only ever appended */
	in->nerrors = r->nkept;
	memcpy(in->errors_by_kind, r->kinds, sizeof(in->errors_by_kind));
	pthread_mutex_unlock(&r->err_mu);
	in->id = r->id;
	in->state = run_state_name(r->state);
	in->reason = r->reason;
	in->p = &r->p;
	in->c = c;
	in->start_wall = r->start_wall;
	in->start_mono = r->start_mono;
	in->sampler = &r->sampler;
	in->enqueue_to_persist = r->e2p_copy;
	in->update_call = r->call_copy;
	in->fdatasync = r->fsync_copy;
	in->mount = r->have_mount ? &r->mount : NULL;
	in->errors = msgs;
	in->run_dir = r->run_dir;
	in->cpu_start = &r->cpu0;
	in->cpu_end = run_active(r) ? NULL : &r->cpu1;
	if (r->cc != NULL) {
		in->rrdc_start = &r->cc_start;
		in->rrdc_latest = r->cc_have_latest ? &r->cc_latest : NULL;
		in->rrdc_restarted = r->cc_restarted;
	}
	in->rrdc_flush_s = r->flush_s;
}

/* report.json and samples.csv in the run's directory. */
static void
write_report(struct run *r)
{
	struct report_input in;
	struct queue_counters c;
	const char *msgs[RUN_ERRORS_KEPT];
	char err[1024];

	report_input_of(r, &in, &c, msgs);
	if (report_write(r->run_dir, &in, err, sizeof(err)) == -1)
		log_warnx("run %u: cannot write its record: %s", r->id, err);
	r->last_report = util_now();
}

bool
run_stuck(struct run *r, double limit)
{
	if (writer_busy_stuck(&r->setup_busy, 1, limit))
		return true;
	if (!r->launched || !run_active(r))
		return false;
	return writer_pool_stuck(r->wp, limit) ||
	    (r->lg != NULL && loadgen_stuck(r->lg, limit));
}

void
run_counters(struct run *r, struct queue_counters *c)
{
	if (r->q != NULL && run_active(r))
		snapshot(r, c);
	else
		*c = r->final;
}

void
run_latency(struct run *r, struct hist *enqueue_to_persist,
    struct hist *update_call)
{
	pthread_mutex_lock(&r->lat_mu);
	hist_merge(enqueue_to_persist, r->e2p);
	hist_merge(update_call, r->call);
	pthread_mutex_unlock(&r->lat_mu);
}

void
run_sync_latency(struct run *r, struct hist *fdatasync)
{
	pthread_mutex_lock(&r->lat_mu);
	hist_merge(fdatasync, r->fsync);
	pthread_mutex_unlock(&r->lat_mu);
}

bool
run_rrdcached_stats(const struct run *r, struct rrdcc_stats *st)
{
	if (r == NULL || r->cc == NULL || !r->cc_have_latest)
		return false;
	*st = r->cc_latest;
	return true;
}

const char *
run_fs_type(const struct run *r)
{
	return r->have_mount ? r->mount.fs_type : "";
}

const char *
run_target_dir(const struct run *r)
{
	return r->p.dir;
}

json_object *
run_report_json(struct run *r)
{
	struct report_input in;
	struct queue_counters c;
	const char *msgs[RUN_ERRORS_KEPT];

	if (!r->launched)
		return NULL;
	report_input_of(r, &in, &c, msgs);
	return report_json(&in);
}

/* rrdcached's STATS into cc_latest; after a failure none is asked for
 * RUN_RRDCACHED_RETRY_S, so a dead or stalled rrdcached does not hold the
 * event loop at every sample.  0, or -1. */
static int
poll_rrdcached(struct run *r)
{
	struct rrdcc_stats st;
	char err[1024];
	double now = util_now();

	if (now < r->cc_retry_at)
		return -1;
	if (rrdcc_stats(r->cc, &st, err, sizeof(err)) == -1) {
		log_warnx("run %u: %s; asking again in %d s", r->id, err,
		    RUN_RRDCACHED_RETRY_S);
		r->cc_retry_at = now + RUN_RRDCACHED_RETRY_S;
		return -1;
	}
	/* A restarted rrdcached counts from 0 again: what it wrote of the
	 * run can no longer be told from DataSetsWritten. */
	if (!r->cc_restarted && (st.updates_received <
	    (r->cc_have_latest ? r->cc_latest : r->cc_start).updates_received ||
	    st.data_sets_written < r->cc_start.data_sets_written)) {
		r->cc_restarted = true;
		log_warnx("run %u: rrdcached %s restarted (its counters went "
		    "back): the closing flush can only wait for its queue to "
		    "empty", r->id, rrdcc_addr(r->cc));
	}
	r->cc_latest = st;
	r->cc_have_latest = true;
	return 0;
}

/*
 * target rrdcached: the queue is drained into rrdcached, but the run is
 * only done when rrdcached has written it.  FLUSHALL, then STATS until its
 * queue is empty and DataSetsWritten has grown by every value the run
 * handed it, for at most flush_timeout seconds (a run that stops without
 * draining sends FLUSHALL but does not wait).  True when done waiting.
 */
static bool
flushed(struct run *r)
{
	struct queue_counters c;
	uint64_t written;
	char err[1024];
	double now = util_now();

	if (r->cc == NULL || r->flush_done)
		return true;
	if (r->flush_start == 0) {
		r->flush_start = now;
		/* A FLUSHALL that got no answer in time may still have been
		 * carried out (rrdcached walks its whole cache for it): the
		 * wait below tells, within flush_timeout. */
		if (rrdcc_flushall(r->cc, err, sizeof(err)) == -1)
			log_warnx("run %u: %s; waiting for rrdcached's queue "
			    "all the same", r->id, err);
		else
			log_info("run %u: FLUSHALL sent to rrdcached %s",
			    r->id, rrdcc_addr(r->cc));
	}
	/* A stop without drain, or flush_timeout 0: no wait. */
	if (r->discard || r->p.flush_timeout == 0) {
		r->flush_done = true;
		return true;
	}
	if (now - r->flush_polled < RUN_RRDCACHED_FLUSH_POLL_S)
		return false;
	r->flush_polled = now;
	snapshot(r, &c);
	if (poll_rrdcached(r) == 0) {
		written = r->cc_latest.data_sets_written -
		    r->cc_start.data_sets_written;
		if (r->cc_latest.queue_length == 0 &&
		    (r->cc_restarted || written >= c.updates_completed)) {
			r->flush_s = now - r->flush_start;
			r->flush_done = true;
			log_info("run %u: rrdcached %s %.3f s after FLUSHALL",
			    r->id, r->cc_restarted ? "had an empty queue "
			    "(it restarted: what it wrote is not known)" :
			    "wrote everything", r->flush_s);
			return true;
		}
	}
	if (now - r->flush_start < r->p.flush_timeout)
		return false;
	written = r->cc_restarted ? 0 : r->cc_latest.data_sets_written -
	    r->cc_start.data_sets_written;
	snprintf(r->reason, sizeof(r->reason), "rrdcached %s had not "
	    "written the run's values %g s after FLUSHALL (flush_timeout): "
	    "DataSetsWritten grew by %llu of %llu, QueueLength %llu%s",
	    rrdcc_addr(r->cc), r->p.flush_timeout, (unsigned long long)written,
	    (unsigned long long)c.updates_completed,
	    (unsigned long long)r->cc_latest.queue_length,
	    !r->cc_have_latest ? " (no STATS answered)" : r->cc_restarted ?
	    " (it restarted during the run)" : "");
	log_warnx("run %u: %s", r->id, r->reason);
	r->failed = true;
	r->flush_done = true;
	return true;
}

static void
finish(struct run *r, enum run_state final)
{
	queue_close(r->q);
	if (r->lg != NULL) {
		loadgen_stop(r->lg);
		r->generated = loadgen_generated(r->lg);
		loadgen_join(r->lg);
		r->lg = NULL;
	}
	writer_pool_join(r->wp);
	r->wp = NULL;
	if (r->cc != NULL) {
		r->cc_retry_at = 0;	/* the record's last word */
		poll_rrdcached(r);
	}
	cpustat_read(&r->cpu1);
	cpustat_close();
	snapshot(r, &r->final);
	stresslog_block(r->sl, r->q);
	stresslog_line(r->sl, "# run %u %s%s%s", r->id, run_state_name(final),
	    r->reason[0] ? ": " : "", r->reason);
	stresslog_close(r->sl);
	r->sl = NULL;
	queue_destroy(r->q);
	r->q = NULL;
	r->end_mono = util_now();
	r->end_wall = time(NULL);
	r->state = final;
	write_report(r);
	log_info("run %u %s: %llu updates completed, %llu failed, %llu "
	    "dropped, %llu errors%s%s", r->id, run_state_name(final),
	    (unsigned long long)r->final.updates_completed,
	    (unsigned long long)r->final.updates_failed,
	    (unsigned long long)r->final.dropped,
	    (unsigned long long)r->final.errors,
	    r->reason[0] ? ": " : "", r->reason);
}

/*
 * fail_after: true once writes have been failing, none landing, for
 * fail_after seconds, with the last failure within them (a queue gone
 * idle is not failing).  Failures are timed by on_error, landed writes
 * (updates and creates) seen in the counters at each tick.
 */
static bool
failing_too_long(struct run *r)
{
	struct queue_counters c;
	uint64_t ok;
	double now;
	bool due = false;

	if (r->p.fail_after <= 0 || r->failed || r->q == NULL)
		return false;
	queue_snapshot(r->q, &c);
	ok = c.updates_completed + c.creates_completed;
	now = util_now();
	pthread_mutex_lock(&r->err_mu);
	if (ok != r->ok_seen) {
		r->ok_seen = ok;
		r->fail_since = 0;
	} else if (r->fail_since > 0 &&
	    now - r->fail_since >= r->p.fail_after &&
	    now - r->fail_last <= r->p.fail_after) {
		snprintf(r->reason, sizeof(r->reason), "every write failed "
		    "for %g s; first error: %s", r->p.fail_after,
		    r->fail_first);
		due = true;
	}
	pthread_mutex_unlock(&r->err_mu);
	return due;
}

bool
run_tick(struct run *r)
{
	struct queue_counters c;

	if (r->launched && run_active(r) &&
	    util_now() - r->last_report >= REPORT_REFRESH_S)
		write_report(r);

	/* As a stop without drain, but the run ends failed. */
	if (r->launched && run_active(r) && failing_too_long(r)) {
		log_warnx("run %u: %s", r->id, r->reason);
		r->failed = true;
		run_stop(r, false, NULL);
	}

	switch (r->state) {
	case RUN_CREATING:
		snapshot(r, &c);
		if (c.creates_pending > 0)
			return false;
		if (c.creates_completed == 0) {
			pthread_mutex_lock(&r->err_mu);
			snprintf(r->reason, sizeof(r->reason),
			    "every create failed; first error: %s",
			    r->nkept > 0 ? r->kept[0] : "none recorded");
			pthread_mutex_unlock(&r->err_mu);
			finish(r, RUN_FAILED);
			return true;
		}
		start_load(r);
		return false;
	case RUN_RUNNING:
		if (loadgen_finished(r->lg))
			r->state = RUN_DRAINING;
		return false;
	case RUN_DRAINING:
		if (r->discard)
			queue_discard(r->q);
		if (r->lg != NULL && !loadgen_finished(r->lg))
			return false;
		if (!queue_idle(r->q) || !flushed(r))
			return false;
		finish(r, r->failed ? RUN_FAILED : r->stop_requested ?
		    RUN_STOPPED : RUN_DONE);
		return true;
	default:
		return false;
	}
}

void
run_stop(struct run *r, bool drain, const char *why)
{
	if (!run_active(r))
		return;
	r->stop_requested = true;
	/* A second stop may make a drain a discard, never the reverse. */
	r->discard |= !drain;
	if (why != NULL) {
		/* A failed run keeps its reason: the shutdown is not why. */
		if (!r->failed)
			snprintf(r->reason, sizeof(r->reason), "%s", why);
		if (!drain && !r->shutdown_discard) {
			struct queue_counters c;

			queue_snapshot(r->q, &c);
			r->discarded_before_shutdown = c.discarded;
			r->shutdown_discard = true;
		}
	}
	if (r->lg != NULL)
		loadgen_stop(r->lg);
	if (!drain)
		queue_discard(r->q);
	r->state = RUN_DRAINING;
	log_info("run %u: stopping, %s", r->id,
	    r->discard ? "discarding the queue" : "draining the queue");
}

void
run_sample(struct run *r)
{
	struct queue_counters c;
	uint64_t rq = UINT64_MAX;
	char err[1024];
	time_t now;

	if (!r->launched || !run_active(r))
		return;
	snapshot(r, &c);
	sampler_add(&r->sampler, c.taken_at - r->start_mono, &c);
	if (r->cc != NULL) {
		if (poll_rrdcached(r) == 0)
			rq = r->cc_latest.queue_length;
		sampler_add_rrdcached(&r->sampler, rq != UINT64_MAX ?
		    &r->cc_latest : NULL);
	}
	now = time(NULL);
	if (r->metrics_last != 0 && now > r->metrics_last) {
		/* librrd takes one update per second: samples in between
		 * are in the history, not the RRD. */
		if (metricsrrd_update(r->metrics_path, now, &c, rq, err,
		    sizeof(err)) == 0)
			r->metrics_last = now;
		else {
			log_warnx("run %u: metrics.rrd no longer updated: %s",
			    r->id, err);
			r->metrics_last = 0;
		}
	}
}

double
run_sample_interval(const struct run *r)
{
	return r->p.sample_interval;
}

enum run_state
run_state(const struct run *r)
{
	return r == NULL ? RUN_IDLE : r->state;
}

bool
run_active(const struct run *r)
{
	return r != NULL && r->state >= RUN_CREATING &&
	    r->state <= RUN_DRAINING;
}

unsigned
run_id(const struct run *r)
{
	return r == NULL ? 0 : r->id;
}

/* ------------------------------------------------------------ reporting */

static void
add_run_keys(json_object *o, const struct run *r, double now,
    uint64_t generated)
{
	double end = run_active(r) ? now : r->end_mono;

	json_object_object_add(o, "state",
	    json_object_new_string(run_state_name(r->state)));
	json_object_object_add(o, "run_id", json_object_new_int64(r->id));
	json_object_object_add(o, "elapsed_s",
	    json_object_new_double(end - r->start_mono));
	json_object_object_add(o, "generated",
	    json_object_new_int64((int64_t)generated));
	json_object_object_add(o, "max_updates",
	    json_object_new_int64((int64_t)r->p.max_updates));
	if (r->reason[0] != '\0')
		json_object_object_add(o, "reason",
		    json_object_new_string(r->reason));
}

/* errors_by_kind ({kind: count}, every kind) and, with messages, the
 * first error messages; r NULL: no run, all zero. */
static void
add_error_keys(json_object *o, const struct run *r, bool messages)
{
	json_object *k = json_object_new_object(), *m = NULL;
	uint64_t n[RRDFILE_NKINDS];

	memset(n, 0, sizeof(n));
	if (messages)
		m = json_object_new_array();
	if (r != NULL) {
		pthread_mutex_lock((pthread_mutex_t *)&r->err_mu);
		memcpy(n, r->kinds, sizeof(n));
		for (unsigned i = 0; m != NULL && i < r->nkept; i++)
			json_object_array_add(m,
			    json_object_new_string(r->kept[i]));
		pthread_mutex_unlock((pthread_mutex_t *)&r->err_mu);
	}
	for (int i = 0; i < RRDFILE_NKINDS; i++)
		json_object_object_add(k, rrdfile_kind_name(i),
		    json_object_new_int64((int64_t)n[i]));
	json_object_object_add(o, "errors_by_kind", k);
	if (m != NULL)
		json_object_object_add(o, "error_messages", m);
}

void
run_errors_by_kind(struct run *r, uint64_t n[RRDFILE_NKINDS])
{
	pthread_mutex_lock(&r->err_mu);
	memcpy(n, r->kinds, sizeof(r->kinds));
	pthread_mutex_unlock(&r->err_mu);
}

json_object *
run_stats_json(struct run *r)
{
	struct queue_counters c;
	struct stats_rates cur, all;
	uint64_t generated;
	json_object *o;

	if (run_active(r)) {
		snapshot(r, &c);
		generated = r->lg != NULL ? loadgen_generated(r->lg) : 0;
	} else {
		c = r->final;
		generated = r->generated;
	}
	if (c.taken_at > r->last.taken_at)
		stats_rates_window(&r->last, &c, &cur);
	else
		memset(&cur, 0, sizeof(cur));
	/* A run that ended is measured to its last write, not to the tick
	 * that noticed the end. */
	stats_rates_overall(&c, run_active(r) || c.last_done == 0 ?
	    c.taken_at : c.last_done, &all);
	r->last = c;
	o = stats_to_json(&c, &cur, &all);
	add_run_keys(o, r, c.taken_at, generated);
	add_error_keys(o, r, true);
	json_object_object_add(o, "cpu", cpustat_json(&r->cpu0,
	    run_active(r) ? NULL : &r->cpu1));
	if (r->cc != NULL) {
		json_object *x = json_object_new_object();

		json_object_object_add(x, "address",
		    json_object_new_string(rrdcc_addr(r->cc)));
		/* As of the latest sample: STATS is not asked per call. */
		json_object_object_add(x, "latest", r->cc_have_latest ?
		    report_rrdcached_json(&r->cc_latest) : NULL);
		json_object_object_add(x, "flushing", json_object_new_boolean(
		    r->flush_start > 0 && !r->flush_done));
		json_object_object_add(o, "rrdcached", x);
	}
	return o;
}

json_object *
run_idle_stats_json(void)
{
	struct queue_counters c;
	struct stats_rates z;
	json_object *o;

	memset(&c, 0, sizeof(c));
	memset(&z, 0, sizeof(z));
	o = stats_to_json(&c, &z, &z);
	json_object_object_add(o, "state", json_object_new_string("idle"));
	json_object_object_add(o, "run_id", json_object_new_int64(0));
	json_object_object_add(o, "elapsed_s", json_object_new_double(0));
	json_object_object_add(o, "generated", json_object_new_int64(0));
	json_object_object_add(o, "max_updates", json_object_new_int64(0));
	add_error_keys(o, NULL, true);
	json_object_object_add(o, "cpu", cpustat_json(NULL, NULL));
	return o;
}


json_object *
run_status_json(const struct run *r)
{
	json_object *o = json_object_new_object(), *msgs;

	json_object_object_add(o, "id", json_object_new_int64(r->id));
	json_object_object_add(o, "state",
	    json_object_new_string(run_state_name(r->state)));
	json_object_object_add(o, "dir", json_object_new_string(r->p.dir));
	json_object_object_add(o, "run_dir",
	    json_object_new_string(r->run_dir));
	json_object_object_add(o, "log", json_object_new_string(r->log_path));
	json_object_object_add(o, "started_at", report_time_json(r->start_wall));
	json_object_object_add(o, "ended_at", report_time_json(r->end_wall));
	json_object_object_add(o, "reason", r->reason[0] ?
	    json_object_new_string(r->reason) : NULL);
	json_object_object_add(o, "params", knobs_to_json(&r->p));
	msgs = json_object_new_array();
	pthread_mutex_lock((pthread_mutex_t *)&r->err_mu);
	for (unsigned i = 0; i < r->nkept; i++)
		json_object_array_add(msgs, json_object_new_string(r->kept[i]));
	pthread_mutex_unlock((pthread_mutex_t *)&r->err_mu);
	json_object_object_add(o, "error_messages", msgs);
	add_error_keys(o, r, false);
	return o;
}

void
run_summary(struct run *r, char *buf, size_t len)
{
	struct queue_counters c;

	if (r == NULL || !run_active(r)) {
		snprintf(buf, len, "idle");
		return;
	}
	snapshot(r, &c);
	snprintf(buf, len, "%s run %u: %llu/%llu updates, significant queue "
	    "%llu, %llu errors", run_state_name(r->state), r->id,
	    (unsigned long long)c.updates_completed,
	    (unsigned long long)r->p.max_updates,
	    (unsigned long long)c.significant_ops_pending,
	    (unsigned long long)c.errors);
}

void
run_free(struct run *r)
{
	if (r == NULL)
		return;
	if (r->setup_joinable)
		pthread_join(r->setup_thread, NULL);
	cpustat_close();	/* also for a run refused before it started */
	if (r->launched && run_active(r)) {
		run_stop(r, false, "the daemon exited");
		finish(r, RUN_STOPPED);
	}
	if (r->q != NULL) {
		/* a run refused before it started */
		queue_close(r->q);
		writer_pool_join(r->wp);
		queue_destroy(r->q);
	}
	stresslog_close(r->sl);
	knobs_free(&r->p);
	sampler_free(&r->sampler);
	hist_destroy(r->e2p);
	hist_destroy(r->call);
	hist_destroy(r->e2p_copy);
	hist_destroy(r->call_copy);
	hist_destroy(r->fsync);
	hist_destroy(r->fsync_copy);
	rrdcc_free(r->cc);
	pthread_mutex_destroy(&r->lat_mu);
	free(r->replay);
	pthread_mutex_destroy(&r->err_mu);
	free(r);
}
