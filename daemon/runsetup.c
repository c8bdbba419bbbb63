/* A run's setup thread: everything before the writers start (directory
 * checks, the layout probe, the scan of existing files, stress.log). */
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

#include "confine.h"
#include "baseline.h"
#include "cpustat.h"
#include "evict.h"
#include "loadgen.h"
#include "log.h"
#include "memcap.h"
#include "memneed.h"
#include "metricsrrd.h"
#include "mountinfo.h"
#include "policy.h"
#include "queue.h"
#include "rrdcc.h"
#include "rrdfile.h"
#include "runpriv.h"
#include "stresslog.h"
#include "util.h"
#include "writer.h"

#define BAD(f, ...) do {						\
	*field = (f);							\
	snprintf(err, errlen, __VA_ARGS__);				\
	goto fail;							\
} while (0)

/*
 * Create a probe file with the run's layout inside the target directory:
 * it proves the directory writable by librrd, validates the RRA list with
 * librrd's own parser, and gives the layout existing files must match.
 * Made in the run's private staging directory (confine.h), through its
 * descriptor.
 */
static int
probe_layout(struct run *r, char *layout, size_t len, const char **field,
    char *err, size_t errlen)
{
	char name[64], path[4200], msg[1024];
	struct stat st;
	time_t last;
	int rc = -1;

	snprintf(name, sizeof(name), ".stressd-probe-%ld.rrd", (long)getpid());
	/* With an rrdcached target the files are its business: the probe
	 * only gives the layout, made in the state directory. */
	if (r->cc.conn != NULL)
		snprintf(path, sizeof(path), "%s/%s", r->state_dir, name);
	else
		confine_fd_path(path, sizeof(path), r->dir.stage, name);
	if (rrdfile_create(&r->p, path, (time_t)r->p.start, NULL, msg,
	    sizeof(msg)) == -1) {
		*field = "rras";
		snprintf(err, errlen, "librrd refuses this layout: %s", msg);
	} else if (rrdfile_layout(path, layout, len, &last, msg,
	    sizeof(msg)) == -1) {
		*field = "dir";
		snprintf(err, errlen, "%s", msg);
	} else
		rc = 0;
	/* Its size, for the page_cache warning (files x this). */
	if (rc == 0 && stat(path, &st) == 0)
		r->file_bytes = (uint64_t)st.st_size;
	if (r->cc.conn != NULL)
		unlink(path);
	else {
		unlinkat(r->dir.stage, name, 0);
		confine_unname(err, errlen, path, r->p.dir);
		/* A look at the filesystem names the staging directory
		 * alone: that is the run's directory to the user. */
		confine_fd_path(path, sizeof(path), r->dir.stage, NULL);
		confine_unname(err, errlen, path, r->p.dir);
	}
	return rc;
}

/* File n is to be created. */
static void
scan_missing(struct run *r, uint32_t n)
{
	queue_file_init(r->q, n, (int64_t)r->p.start, false);
	r->base_last[n] = BASELINE_MISSING;
	/* Synchronous creates: the writer pool creates every missing file
	 * before the first update is generated. */
	if (!r->p.queue_creates)
		queue_push_create(r->q, n);
	r->missing++;
}

/*
 * File n as found through the held directory: 1 a regular file (its
 * /proc/self/fd path in lib, *fd to close), 0 missing (queued for
 * create), 2 refused (a symbolic link or no regular file: its updates
 * are sent and fail as denied, the file is never followed nor replaced),
 * -1 an error that refuses the run.
 */
static int
scan_reach(struct run *r, uint32_t n, const char *path, char *lib,
    size_t liblen, int *fd, uint64_t *refused, const char **field,
    char *err, size_t errlen)
{
	char rel[64];

	*fd = -1;
	if (r->dir.fd < 0)
		return 1;	/* rrdcached on another host: by name */
	if (rrdfile_name(&r->p, n, rel, sizeof(rel)) == -1)
		BAD("dir", "dir %s: file path too long", r->p.dir);
	if ((*fd = confine_file(r->dir.fd, rel)) >= 0) {
		confine_fd_path(lib, liblen, *fd, NULL);
		return 1;
	}
	if (errno == ENOENT) {
		scan_missing(r, n);
		return 0;
	}
	if (!confine_refused(errno))
		BAD("dir", "%s: %s", path, strerror(errno));
	if ((*refused)++ == 0)
		log_warnx("run %u: %s: %s; its updates will fail as denied",
		    r->id, path, confine_strerror(errno));
	queue_file_init(r->q, n, (int64_t)r->p.start, true);
	r->base_last[n] = BASELINE_REFUSED;
	return 2;
fail:
	return -1;
}

/* Check every file of the run: reuse those with the same layout (their
 * timestamps continue after rrd_last), refuse any other layout.  With an
 * rrdcached target its INFO tells, so the files are where it sees them. */
static int
scan_files(struct run *r, const char *layout, const char **field, char *err,
    size_t errlen)
{
	char path[4200], lib[CONFINE_FD_PATH_MAX], have[8192], msg[1024];
	uint64_t reused = 0, refused = 0;
	int fd = -1, rc;

	for (uint32_t n = 0; n < r->p.files; n++) {
		enum rrdfile_kind k;
		time_t last;

		if (rrdfile_path(&r->p, n, path, sizeof(path)) == -1)
			BAD("dir", "dir %s: file path too long", r->p.dir);
		if ((rc = scan_reach(r, n, path, lib, sizeof(lib), &fd,
		    &refused, field, err, errlen)) != 1) {
			if (rc == -1)
				goto fail;
			continue;
		}
		if (r->cc.conn != NULL) {
			if (fd >= 0)
				close(fd);
			fd = -1;
			if (rrdcc_layout(r->cc.conn, path, have, sizeof(have),
			    &last, &k, msg, sizeof(msg)) == 0)
				goto found;
			if (k == RRDFILE_MISSING) {
				scan_missing(r, n);
				continue;
			}
			BAD(k == RRDFILE_CONNECTION ? "target" : "dir",
			    "existing file cannot be reused: %s", msg);
		}
		rc = rrdfile_layout(lib, have, sizeof(have), &last, msg,
		    sizeof(msg));
		confine_unname(msg, sizeof(msg), lib, path);
		close(fd);
		fd = -1;
		if (rc == -1)
			BAD("dir", "existing file cannot be reused: %s", msg);
found:
		if (strcmp(have, layout) != 0)
			BAD("dir", "existing file %s has another layout (step, "
			    "data sources or RRAs) than this run asks for; "
			    "remove it or use another dir", path);
		queue_file_init(r->q, n, (int64_t)last, true);
		r->base_last[n] = (int64_t)last;
		reused++;
	}
	r->base.files_reused = reused;
	r->base.files_missing = r->missing;
	r->base.files_refused = refused;
	if (reused > 0)
		log_info("run %u: reusing %llu existing files", r->id,
		    (unsigned long long)reused);
	if (refused > 0)
		log_warnx("run %u: %llu files refused (not regular files)",
		    r->id, (unsigned long long)refused);
	log_debug("run %u: files: %llu, %llu reused, %llu to create (%s), "
	    "%llu refused", r->id, (unsigned long long)r->p.files,
	    (unsigned long long)reused, (unsigned long long)r->missing,
	    r->p.queue_creates ? "queued before each file's first update" :
	    "all before the load", (unsigned long long)refused);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

/*
 * The run's directory, opened once through the allowed dir it is in and
 * held for the run (policy_dir_open), with its staging directory and the
 * files_per_dir subdirectories, all made beneath it.
 */
static int
make_dirs(struct run *r, const char **field, char *err, size_t errlen)
{
	char name[64], how[400];
	int fd;

	if ((r->dir.fd = policy_dir_open(r->allowed, r->p.dir, err,
	    errlen)) == -1) {
		*field = "dir";
		return -1;
	}
	confine_method(how, sizeof(how));
	log_info("run %u: dir %s held open; its files are reached beneath "
	    "it with %s", r->id, r->p.dir, how);
	/* A real file, since access(2) says yes to root on a read-only
	 * directory. */
	snprintf(name, sizeof(name), ".stressd-write-test-%ld", (long)getpid());
	if ((fd = confine_open(r->dir.fd, name, O_WRONLY | O_CREAT | O_EXCL,
	    0600)) == -1)
		BAD("dir", "dir %s is not writable: %s", r->p.dir,
		    confine_strerror(errno));
	close(fd);
	unlinkat(r->dir.fd, name, 0);
	if (confine_dir_stage(&r->dir) == -1)
		BAD("dir", "cannot make a private directory in %s: %s",
		    r->p.dir, confine_strerror(errno));
	for (uint64_t d = 0; r->p.files_per_dir > 0 &&
	    d * r->p.files_per_dir < r->p.files; d++) {
		snprintf(name, sizeof(name), "%llu", (unsigned long long)d);
		if ((fd = confine_mkdirs(r->dir.fd, name, 0755)) == -1)
			BAD("dir", "cannot create %s/%s: %s", r->p.dir, name,
			    confine_strerror(errno));
		close(fd);
	}
	return 0;
fail:
	return -1;
}

/* sync=drop-host-caches: write back the host's dirty pages, then have the
 * kernel drop every clean one (and the dentry and inode caches), so the
 * run starts reading even its directories from disk.  Root only, and
 * never under stressd.service (ProtectKernelTunables=). */
static int
drop_host_caches(struct run *r, const char **field, char *err,
    size_t errlen)
{
	static const char path[] = "/proc/sys/vm/drop_caches";
	double t0 = util_now();
	int fd;

	if (geteuid() != 0)
		BAD("sync", "sync drop-host-caches needs root (stressd runs as "
		    "uid %u): it writes %s; sync drop-caches evicts the run's "
		    "own files without root", (unsigned)geteuid(), path);
	sync();
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		BAD("sync", "sync drop-host-caches: %s: %s", path,
		    strerror(errno));
	if (write(fd, "3\n", 2) != 2) {
		int e = errno;

		close(fd);
		BAD("sync", "sync drop-host-caches: writing %s: %s", path,
		    strerror(e));
	}
	close(fd);
	r->cold.host = true;
	r->cold.seconds = util_now() - t0;
	return 0;
fail:
	return -1;
}

/* The eviction's line in the log; the record has it from here on. */
static void
cold_done(struct run *r)
{
	char line[1400];
	const char *mode = r->cold.host ? "drop-host-caches" : "drop-caches";

	r->have_cold = true;
	evict_summary(&r->cold, line, sizeof(line));
	if (r->cold.failed > 0)
		log_warnx("run %u: sync %s: %s", r->id, mode, line);
	else
		log_info("run %u: sync %s: %s", r->id, mode, line);
}

static void
evict_pass(struct run *r)
{
	evict_dir_files(r->dir.fd, &r->p, &r->setup.busy, &r->setup.cancel,
	    &r->cold);
}

/* sync=drop-caches: the run's own files written back and evicted
 * (evict.h), now or, when files are to be created before the load, once
 * they are (runsetup_cold_ready); drop-host-caches: the host-wide drop. */
static int
cold_cache(struct run *r, const char **field, char *err, size_t errlen)
{
	if (r->p.sync == KNOBS_SYNC_DROP_HOST_CACHES) {
		if (drop_host_caches(r, field, err, errlen) == -1)
			return -1;
	} else if (r->dir.fd < 0)
		BAD("sync", "sync drop-caches evicts the run's files from this "
		    "host's page cache: with target %s they are on rrdcached's "
		    "host", r->p.target);
	else if (!r->p.queue_creates && r->missing > 0) {
		r->cold_after_creates = true;
		return 0;
	} else
		evict_pass(r);
	cold_done(r);
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
	if ((r->cc.conn = rrdcc_new(addr)) == NULL)
		BAD("target", "out of memory");
	if (rrdcc_stats(r->cc.conn, &r->cc.start, msg, sizeof(msg)) == -1)
		BAD("target", "target %s: %s", r->p.target, msg);
	log_info("run %u: target rrdcached %s: QueueLength %llu, "
	    "DataSetsWritten %llu", r->id, addr,
	    (unsigned long long)r->cc.start.queue_length,
	    (unsigned long long)r->cc.start.data_sets_written);
	return 0;
fail:
	return -1;
}

/* Memory the page cache could use at setup: MemAvailable, or where
 * /proc/meminfo is hidden (stressd.service: ProcSubset=pid) the free
 * pages alone, which leaves the page_cache warning out more often. */
static uint64_t
mem_available(void)
{
	FILE *fp = fopen("/proc/meminfo", "re");
	unsigned long long kb = 0;
	char line[256];
	long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	while (fp != NULL && fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	if (fp != NULL)
		fclose(fp);
	if (kb > 0)
		return (uint64_t)kb * 1024;
	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

/*
 * The update file's values, if any, and what the run will hold beside
 * them, checked first under a memory cap: a start the cap cannot hold is
 * refused, not killed (memneed.h).  The file is the client's own
 * descriptor, or a path root or stressd.conf gave (cmd-run.c decides
 * which may be opened).
 */
static int
read_values(struct run *r, const char **field, char *err, size_t errlen)
{
	int ufd = r->setup.update_fd, rc = 0;
	struct memneed mn;
	struct memneed_run need;
	struct loadgen_bound ub;

	memneed_init(&mn);
	ub.bytes = mn.room;
	ub.why = mn.why;
	if (memneed_check_files(&mn, r->p.files, err, errlen) == -1) {
		*field = "files";
		return -1;	/* run_free closes ufd */
	}
	r->setup.update_fd = -1;
	if (ufd != -1)
		rc = loadgen_read_values_fd(ufd, r->p.update_file, mn.capped ?
		    &ub : NULL, &r->replay, &r->nreplay, err, errlen);
	else if (r->p.update_file[0] != '\0')
		rc = loadgen_read_values(r->p.update_file, mn.capped ? &ub :
		    NULL, &r->replay, &r->nreplay, err, errlen);
	if (rc == -1) {
		*field = "update_file";
		return -1;
	}
	need.files = r->p.files;
	need.nvalues = r->nreplay;
	/* Without the queue the generators write, each with its batch. */
	need.writers = r->p.use_queue ? r->p.write_threads : r->p.threads;
	need.writer_bytes = writer_batch_bytes(&r->p);
	return memneed_check_load(&mn, &need, &r->p.queue_memory_max,
	    r->p.queue_memory_fit, field, err, errlen);
}

/* Everything before the writers start; runs in the setup thread. */
static int
setup(struct run *r, const char **field, char *err, size_t errlen)
{
	struct queue_config qc;
	char layout[8192];
	size_t len;
	const char *cc_addr = knobs_rrdcached_addr(&r->p);
	/* An rrdcached on a Unix socket runs here and shares our view of
	 * the directory; one on TCP may be on another host. */
	bool local = cc_addr == NULL || cc_addr[0] == '/' ||
	    strncmp(cc_addr, "unix:", 5) == 0;
	int rc = 0;

	if (read_values(r, field, err, errlen) == -1)
		return -1;
	if (cc_addr != NULL &&
	    connect_rrdcached(r, cc_addr, field, err, errlen) == -1)
		return -1;
	if ((local && make_dirs(r, field, err, errlen) == -1) ||
	    probe_layout(r, layout, sizeof(layout), field, err, errlen) == -1)
		return -1;
	len = strlen(layout);	/* less the blank after its last key */
	log_debug("run %u: layout: %.*s", r->id, (int)(len > 0 &&
	    layout[len - 1] == ' ' ? len - 1 : len), layout);
	/* The filesystem under test, for the record. */
	if (!local)
		log_info("run %u: dir %s is on the rrdcached host; its "
		    "filesystem is not recorded", r->id, r->p.dir);
	else if ((rc = mountinfo_lookup(r->p.dir, &r->mount, err, errlen)) != 0)
		log_warnx("run %u: %s", r->id, err);
	/* 1: a line was unusable; the record holds what remains. */
	if ((r->have_mount = local && rc >= 0))
		log_debug("run %u: dir %s is on %s (known from %s), seen at %s",
		    r->id, r->p.dir, r->mount.fs_type,
		    mountinfo_from_name(r->mount.from), r->mount.seen_at);
	rc = 0;
	r->mem_available = mem_available();
	/* Under a memory cap the page cache has the cap at most. */
	r->mem_available = memcap_clamp_available(r->mem_available);

	memset(&qc, 0, sizeof(qc));
	qc.files = (uint32_t)r->p.files;
	qc.prioritize = r->p.prioritize;
	qc.max_insig_update_seconds = r->p.max_insig_update_seconds;
	qc.queue_high_water = r->p.queue_high_water;
	qc.sig_high_water = r->p.sig_high_water;
	qc.insig_high_water = r->p.insig_high_water;
	qc.queue_creates = r->p.queue_creates;
	qc.memory_max = r->p.queue_memory_max * 1024 * 1024;	/* MiB */
	if ((r->q = queue_create(&qc)) == NULL ||
	    (r->base_last = calloc(qc.files, sizeof(*r->base_last))) == NULL)
		BAD("files", "out of memory for %llu files",
		    (unsigned long long)r->p.files);
	if (scan_files(r, layout, field, err, errlen) == -1)
		return -1;
	/* The baseline of the closing flush: after the scan, whose FLUSHes
	 * may have had rrdcached write values of an earlier run. */
	if (r->cc.conn != NULL && rrdcc_stats(r->cc.conn, &r->cc.start, err,
	    errlen) == -1) {
		*field = "target";
		return -1;
	}
	log_debug("run %u: sync %s", r->id,
	    knobs_choices(knobs_find("sync"))[r->p.sync]);
	/* After the scan, which read every reused file's header (creates
	 * before the load defer the eviction until they are done; queued
	 * ones are written during the load, hot). */
	if ((r->p.sync == KNOBS_SYNC_DROP_CACHES ||
	    r->p.sync == KNOBS_SYNC_DROP_HOST_CACHES) &&
	    cold_cache(r, field, err, errlen) == -1)
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
	r->prev_sample.taken_at = r->last_sample.taken_at = r->start_mono;
	if ((r->sl = stresslog_open(r->log_path, r->id, &r->p,
	    r->start_mono)) == NULL)
		BAD("state_dir", "cannot write %s: %s", r->log_path,
		    strerror(errno));
	/* What a recount after a crash counts from (recover.c). */
	if (baseline_write(r->run_dir, r->base_last, r->p.files, err, errlen)
	    == -1)
		log_warnx("run %u: %s; a crash would leave its updates on disk "
		    "uncounted", r->id, err);
	free(r->base_last);	/* on disk now: 8 bytes a file the run need
				   not hold */
	r->base_last = NULL;
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
	double t0 = util_now();

	/* Setup calls librrd too (probe, rrd_info of reused files): the
	 * watchdog must see it hang. */
	atomic_store(&r->setup.busy, writer_busy_now());
	r->setup.rc = setup(r, &r->setup.field, r->setup.err,
	    sizeof(r->setup.err));
	log_debug("run %u: setup %s in %.3f s", r->id, r->setup.rc == 0 ?
	    "done" : "failed", util_now() - t0);
	atomic_store(&r->setup.busy, 0);
	cpustat_thread_exit();
	atomic_store(&r->setup.done, true);
	return NULL;
}

static void *
evict_main(void *arg)
{
	struct run *r = arg;

	evict_pass(r);
	atomic_store(&r->setup.busy, 0);
	cpustat_thread_exit();
	atomic_store(&r->setup.done, true);
	return NULL;
}

bool
runsetup_cold_ready(struct run *r, bool cancel)
{
	if (!r->cold_after_creates)
		return true;
	if (cancel)
		atomic_store(&r->setup.cancel, true);
	if (!r->setup.joinable) {
		if (cancel) {	/* stopped before the creates were done */
			r->cold_after_creates = false;
			return true;
		}
		log_info("run %u: files created; evicting them before the "
		    "load", r->id);
		atomic_store(&r->setup.done, false);
		atomic_store(&r->setup.busy, writer_busy_now());
		if (pthread_create(&r->setup.thread, NULL, evict_main, r) == 0) {
			r->setup.joinable = true;
			pthread_setname_np(r->setup.thread, "run-evict");
			return false;
		}
		evict_pass(r);	/* no thread: here, blocking, once */
		atomic_store(&r->setup.busy, 0);
	} else if (!atomic_load(&r->setup.done))
		return false;
	else {
		pthread_join(r->setup.thread, NULL);
		r->setup.joinable = false;
	}
	r->cold_after_creates = false;
	cold_done(r);
	return true;
}

int
runsetup_start(struct run *r)
{
	if (pthread_create(&r->setup.thread, NULL, setup_main, r) != 0)
		return -1;
	r->setup.joinable = true;
	pthread_setname_np(r->setup.thread, "run-setup");
	log_debug("run %u: setup started (phase %s)", r->id,
	    run_state_name(r->state));
	return 0;
}
