#include <sys/types.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rrd.h>

#include "cpustat.h"
#include "faultguard.h"
#include "log.h"
#include "rrdcc.h"
#include "rrdfile.h"
#include "util.h"
#include "writer.h"

struct writer_pool {
	struct queue			*q;
	const struct stress_params	*p;
	struct writer_sink		 sink;
	bool				 custom;	/* sink given */
	struct writer_hooks		 hooks;
	unsigned			 n;
	pthread_t			*threads;
	atomic_uint_fast64_t		*busy;		/* per writer, see writer_ctx */
	atomic_uint			 next_slot;
};

/* Longest "ts:v:v..." text of one update: 20 digits of time and NUL
 * in 24 bytes, then 26 for each value with its colon. */
#define LINE_MAX_LEN(ds)	(24 + (size_t)(ds) * 26)

/* One update through the sink, as faultguard_call runs it. */
struct update_args {
	struct writer_ctx	*w;
	const char		*target;
	int			 n;
	int			*done;
};

static int
sink_update(void *arg)
{
	struct update_args *u = arg;
	struct writer_ctx *w = u->w;

	return w->sink->update(w->conn, u->target, u->n, w->argv, u->done,
	    &w->kind, w->err, sizeof(w->err));
}

/* The sink's update (rrd_update_r) with SIGBUS and SIGFPE caught
 * (faultguard.c), with w->err and w->kind set on failure.  *done: the
 * values written. */
static int
update_call(struct writer_ctx *w, const char *target, int n, int *done)
{
	struct update_args u = { w, target, n, done };
	uintptr_t addr;
	int rc, sig;

	*done = 0;
	if ((rc = faultguard_call(sink_update, &u, &sig, &addr)) !=
	    FAULTGUARD_FAULT)
		return rc;
	faultguard_release(w->path, sig, addr, w->file_fd);
	rrd_clear_error();
	snprintf(w->err, sizeof(w->err), "%.2000s: %s inside librrd: the file "
	    "changed while librrd had it mapped (truncated by another "
	    "process?)", w->path, sig == SIGBUS ? "SIGBUS" : "SIGFPE");
	w->kind = RRDFILE_CORRUPT;
	*done = 0;
	return -1;
}

static int
librrd_create(void *conn, const struct stress_params *p, const char *path,
    time_t last_up, enum rrdfile_kind *kind, char *err, size_t errlen)
{
	(void)conn;
	return rrdfile_create(p, path, last_up, kind, err, errlen);
}

static int
librrd_update(void *conn, const char *path, int argc, const char **argv,
    int *done, enum rrdfile_kind *kind, char *err, size_t errlen)
{
	int e;

	(void)conn;
	rrd_clear_error();
	errno = 0;
	if (rrd_update_r(path, NULL, argc, argv) == 0) {
		*done = argc;
		return 0;
	}
	/* librrd's errno is the failing call's: see rrdfile_update_error. */
	e = errno;
	*kind = rrdfile_update_error(path, e, err, errlen);
	return -1;
}

static const struct writer_sink librrd_sink = {
	librrd_create, librrd_update, NULL
};

/* target rrdcached:ADDR: the writer's own connection (rrdcc.c). */
static int
rrdcached_create(void *conn, const struct stress_params *p,
    const char *path, time_t last_up, enum rrdfile_kind *kind, char *err,
    size_t errlen)
{
	return rrdcc_create(conn, p, path, last_up, kind, err, errlen);
}

static int
rrdcached_update(void *conn, const char *path, int argc, const char **argv,
    int *done, enum rrdfile_kind *kind, char *err, size_t errlen)
{
	return rrdcc_update(conn, path, argc, argv, done, kind, err, errlen);
}

static const struct writer_sink rrdcached_sink = {
	rrdcached_create, rrdcached_update, NULL
};
const struct writer_sink writer_null_sink = { NULL, NULL, NULL };

void
writer_ctx_init(struct writer_ctx *w, const struct stress_params *p,
    const struct writer_hooks *hooks)
{
	const char *addr = knobs_rrdcached_addr(p);

	memset(w, 0, sizeof(*w));
	w->p = p;
	w->hooks = hooks;
	w->file_fd = -1;
	w->sink = &librrd_sink;
	if (addr != NULL) {
		/* Never one connection shared by threads: each writer (or
		 * generator writing directly) talks on its own. */
		if ((w->rrdcc = rrdcc_new(addr)) == NULL)
			fatal("rrdcached client");
		w->sink = &rrdcached_sink;
		w->conn = w->rrdcc;
	}
	faultguard_init();
}

void
writer_ctx_free(struct writer_ctx *w)
{
	free(w->buf);
	free(w->argv);
	rrdcc_free(w->rrdcc);
	memset(w, 0, sizeof(*w));
}

uint64_t
writer_batch_bytes(const struct stress_params *p)
{
	return (uint64_t)WRITER_MAX_VALUES_PER_CALL *
	    (LINE_MAX_LEN(p->data_sources) + sizeof(char *));
}

static void
ensure(struct writer_ctx *w, size_t nvalues)
{
	size_t need = nvalues * LINE_MAX_LEN(w->p->data_sources);

	if (w->buflen < need) {
		free(w->buf);
		if ((w->buf = malloc(need)) == NULL)
			fatal("writer buffer");
		w->buflen = need;
	}
	if (w->argvcap < nvalues) {
		free(w->argv);
		if ((w->argv = calloc(nvalues, sizeof(*w->argv))) == NULL)
			fatal("writer argv");
		w->argvcap = nvalues;
	}
}

/*
 * Decimal digits of an integer.  Written by hand because the writer
 * formats every value of every batch and snprintf's format parsing cost
 * as much per value as librrd's own parsing of it.
 */
static char *
put_int(char *out, long long v)
{
	char tmp[24];
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v :
	    (unsigned long long)v;
	int n = 0;

	if (v < 0)
		*out++ = '-';
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	while (n > 0)
		*out++ = tmp[--n];
	return out;
}

/* ":value", with U for unknown (NaN from an update_file's "U"); whole
 * numbers (all synthetic values) take the fast path. */
static char *
put_value(char *out, double v)
{
	*out++ = ':';
	if (isnan(v)) {
		*out++ = 'U';
		return out;
	}
	if (v > -1e15 && v < 1e15 && v == (double)(long long)v)
		return put_int(out, (long long)v);
	return out + snprintf(out, 25, "%.15g", v);
}

static void write_file(struct writer_ctx *, const struct queue_batch *,
    struct queue_result *);

/* Slow calls, counted over every writer of the process; the last line's
 * time in ns (0: none yet) rate-limits their log lines. */
static atomic_uint_fast64_t	slow_calls, slow_logged_ns;

/* A call that took from t0 to t1 (monotonic s): log it if slow, unless
 * another writer did so within WRITER_SLOW_LOG_S. */
static void
note_slow(const char *what, const char *path, double t0, double t1)
{
	uint64_t n, last, now = (uint64_t)(t1 * 1e9);

	if ((t1 - t0) * 1e3 < WRITER_SLOW_CALL_MS)
		return;
	n = atomic_fetch_add(&slow_calls, 1) + 1;
	last = atomic_load(&slow_logged_ns);
	/* now < last: another writer logged a later call first. */
	if ((last != 0 && (now < last ||
	    now - last < (uint64_t)WRITER_SLOW_LOG_S * 1000000000)) ||
	    !atomic_compare_exchange_strong(&slow_logged_ns, &last, now))
		return;
	log_debug("slow %s on %s: %.0f ms (%llu calls over %d ms since "
	    "stressd started; at most one such line every %d s)", what, path,
	    (t1 - t0) * 1e3, (unsigned long long)n, WRITER_SLOW_CALL_MS,
	    WRITER_SLOW_LOG_S);
}

/*
 * sync=data: make the batch disk-visible, since librrd only writes to the
 * page cache.  fdatasync works on a read-only descriptor (Linux checks no
 * access mode), so the file is not opened for writing a second time.
 * A failure does not fail the batch: its values were written and stay
 * completed; it is reported to the sync_time hook, which counts it and
 * keeps the message, and its time is not recorded.
 */
static void
sync_file(struct writer_ctx *w, const char *target)
{
	const struct writer_hooks *h = w->hooks;
	char err[4400];
	double t0 = util_now(), t1;
	int fd, rc = 0;

	if ((fd = open(target, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, sizeof(err), "%s: open for fdatasync: %s",
		    w->path, strerror(errno));
		rc = -1;
	} else {
		if (fdatasync(fd) == -1) {
			snprintf(err, sizeof(err), "%s: fdatasync: %s",
			    w->path, strerror(errno));
			rc = -1;
		}
		close(fd);
	}
	t1 = util_now();
	note_slow("fdatasync", w->path, t0, t1);
	if (h != NULL && h->sync_time != NULL)
		h->sync_time(h->arg, (uint64_t)((t1 - t0) * 1e9),
		    rc == -1 ? err : NULL);
}

void
writer_write_batch(struct writer_ctx *w, const struct queue_batch *b,
    struct queue_result *res)
{
	res->create_ok = true;
	res->written = 0;
	res->calls = 0;
	res->failed_calls = 0;
	if (w->busy_since != NULL)
		atomic_store(w->busy_since, writer_busy_now());
	write_file(w, b, res);
	if (w->busy_since != NULL)
		atomic_store(w->busy_since, 0);
}

/* A failed reach of the file (w->path) beneath the held directory. */
static void
refused(struct writer_ctx *w, int e, const char *what)
{
	snprintf(w->err, sizeof(w->err), "%.2000s: %s%s", w->path, what,
	    confine_strerror(e));
	w->kind = rrdfile_kind_of_errno(e);
}

/*
 * Create the batch's file beneath the held directory.  librrd makes it in
 * the private staging directory (its temporary file, chmod and rename
 * included) through /proc/self/fd/<stage>/<name>, and it is moved into
 * place never over anything there.  Another sink (rrdcached) makes it
 * itself by path; a symbolic link in its place is refused first.
 */
static int
create_confined(struct writer_ctx *w, const struct confine_dir *cd,
    const char *rel, time_t last_up)
{
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	char stage[CONFINE_FD_PATH_MAX], dir[4200];
	int fd, rc;

	if (w->sink != &librrd_sink) {
		if ((fd = confine_file(cd->fd, rel)) >= 0)
			close(fd);
		else if (errno != ENOENT) {
			refused(w, errno, "");
			return -1;
		}
		return w->sink->create(w->conn, w->p, w->path, last_up,
		    &w->kind, w->err, sizeof(w->err));
	}
	if (confine_fd_path(w->lib, sizeof(w->lib), cd->stage, base) == -1) {
		refused(w, ENAMETOOLONG, "");
		return -1;
	}
	rc = w->sink->create(w->conn, w->p, w->lib, last_up, &w->kind, w->err,
	    sizeof(w->err));
	if (rc == -1) {
		/* Name the file and its dir as the user knows them. */
		snprintf(dir, sizeof(dir), "%.*s", (int)(strlen(w->path) -
		    strlen(base) - 1), w->path);
		confine_unname(w->err, sizeof(w->err), w->lib, w->path);
		confine_fd_path(stage, sizeof(stage), cd->stage, NULL);
		confine_unname(w->err, sizeof(w->err), stage, dir);
		return -1;
	}
	if (confine_dir_place(cd, base, rel) == -1) {
		refused(w, errno, "cannot put the new file in place: ");
		return -1;
	}
	return 0;
}

static void write_updates(struct writer_ctx *, const struct queue_batch *,
    struct queue_result *, const char *);

/* The librrd part of writer_write_batch: the file reached beneath the
 * run's held directory when there is one, by its path otherwise. */
static void
write_file(struct writer_ctx *w, const struct queue_batch *b,
    struct queue_result *res)
{
	const struct confine_dir *cd = w->hooks != NULL ? w->hooks->dir :
	    NULL;
	const char *target = w->path;
	char rel[64];

	if (rrdfile_path(w->p, b->file, w->path, sizeof(w->path)) == -1 ||
	    rrdfile_name(w->p, b->file, rel, sizeof(rel)) == -1) {
		snprintf(w->err, sizeof(w->err), "file %u: path too long",
		    b->file);
		w->kind = RRDFILE_OTHER;
		goto unreached;
	}
	if (cd != NULL && cd->fd >= 0) {
		if (b->create && create_confined(w, cd, rel,
		    (time_t)b->base_ts) == -1) {
			res->create_ok = false;
			return;
		}
		/* One open per batch: the file, never a link in its place. */
		if ((w->file_fd = confine_file(cd->fd, rel)) == -1) {
			refused(w, errno, "");
			res->failed_calls = b->count > 0;
			return;
		}
		confine_fd_path(w->lib, sizeof(w->lib), w->file_fd, NULL);
		if (w->sink == &librrd_sink)
			target = w->lib;
	} else if (b->create && w->sink->create(w->conn, w->p, w->path,
	    (time_t)b->base_ts, &w->kind, w->err, sizeof(w->err)) == -1) {
		res->create_ok = false;
		return;
	}
	write_updates(w, b, res, target);
	if (w->file_fd >= 0) {
		if (writer_failed(b, res))
			confine_unname(w->err, sizeof(w->err), w->lib,
			    w->path);
		close(w->file_fd);
		w->file_fd = -1;
	}
	return;
unreached:
	/* As a failed create: the values fail with one error. */
	res->create_ok = !b->create;
	res->failed_calls = !b->create && b->count > 0;
}

/* The batch's values in calls of at most WRITER_MAX_VALUES_PER_CALL to
 * target, the name librrd (or the sink) is given. */
static void
write_updates(struct writer_ctx *w, const struct queue_batch *b,
    struct queue_result *res, const char *target)
{
	const struct stress_params *p = w->p;
	struct queue_iter it;
	uint64_t k = b->first_k, left = b->count;
	double t0, t1;
	int rc, done;

	queue_iter_init(&it, b);
	while (left > 0) {
		size_t n = left > WRITER_MAX_VALUES_PER_CALL ?
		    WRITER_MAX_VALUES_PER_CALL : (size_t)left;
		char *out;
		double v;

		ensure(w, n);
		out = w->buf;
		for (size_t i = 0; i < n; i++, k++) {
			queue_iter_next(&it, &v);
			w->argv[i] = out;
			out = put_int(out, (long long)b->base_ts +
			    (long long)(k * p->step));
			/* Every data source gets the file's value: the
			 * queue stores one value per update. */
			for (uint64_t d = 0; d < p->data_sources; d++)
				out = put_value(out, v);
			*out++ = '\0';
		}
		res->calls++;
		t0 = util_now();
		rc = update_call(w, target, (int)n, &done);
		t1 = util_now();
		note_slow(w->sink == &librrd_sink ? "rrd_update_r" :
		    "rrdcached update", w->path, t0, t1);
		if (w->hooks != NULL && w->hooks->call_time != NULL)
			w->hooks->call_time(w->hooks->arg,
			    (uint64_t)((t1 - t0) * 1e9));
		res->written += (uint64_t)done;
		if (rc != 0) {
			res->failed_calls = 1;
			return;
		}
		left -= n;
	}
	if (p->sync == KNOBS_SYNC_DATA)
		sync_file(w, w->file_fd >= 0 ? w->lib : w->path);
}

bool
writer_failed(const struct queue_batch *b, const struct queue_result *res)
{
	return !res->create_ok || res->written < b->count;
}

void
writer_finish(struct queue *q, struct queue_batch *b,
    const struct queue_result *res, const struct writer_ctx *w,
    const struct writer_hooks *hooks)
{
	/* The error is recorded before the batch is returned, so whoever
	 * sees the counters move also finds its message. */
	if (writer_failed(b, res) && hooks->error != NULL)
		hooks->error(hooks->arg, w->kind, w->err);
	if (res->written > 0 && b->count > 0 && hooks->persisted != NULL)
		hooks->persisted(hooks->arg,
		    (uint64_t)((util_now() - b->oldest_enqueue) * 1e9));
	queue_done(q, b, res);
}

static void *
writer_main(void *arg)
{
	struct writer_pool *wp = arg;
	struct writer_ctx w;
	struct queue_batch b;

	writer_ctx_init(&w, wp->p, &wp->hooks);
	if (wp->custom) {
		w.sink = &wp->sink;
		w.conn = wp->sink.arg;
	}
	w.busy_since = &wp->busy[atomic_fetch_add(&wp->next_slot, 1)];
	while (queue_take(wp->q, &b, util_now())) {
		/* The null sink "writes" each batch in one call. */
		struct queue_result res = { true, b.count, b.count > 0, 0 };

		if (w.sink->update != NULL)
			writer_write_batch(&w, &b, &res);
		writer_finish(wp->q, &b, &res, &w, &wp->hooks);
	}
	writer_ctx_free(&w);
	cpustat_thread_exit();
	return NULL;
}

struct writer_pool *
writer_pool_start(struct queue *q, const struct stress_params *p,
    unsigned nthreads, const struct writer_sink *sink,
    const struct writer_hooks *hooks)
{
	struct writer_pool *wp = calloc(1, sizeof(*wp));

	if (wp == NULL)
		return NULL;
	wp->q = q;
	wp->p = p;
	if (sink != NULL) {
		wp->sink = *sink;
		wp->custom = true;
	}
	if (hooks != NULL)
		wp->hooks = *hooks;
	if ((wp->threads = calloc(nthreads, sizeof(*wp->threads))) == NULL ||
	    (wp->busy = calloc(nthreads, sizeof(*wp->busy))) == NULL)
		goto fail;
	for (; wp->n < nthreads; wp->n++) {
		char name[16];

		if (pthread_create(&wp->threads[wp->n], NULL, writer_main,
		    wp) != 0) {
			log_warnx("cannot start writer thread %u", wp->n);
			goto fail;
		}
		/* Named for top -H, perf and gdb. */
		snprintf(name, sizeof(name), "writer-%u", wp->n);
		pthread_setname_np(wp->threads[wp->n], name);
	}
	log_debug("writer pool: %u writer threads started", wp->n);
	return wp;
fail:
	/* The writers already started must not work off the queue (creates
	 * queued during setup) while the caller waits for them. */
	queue_discard(q);
	queue_close(q);
	writer_pool_join(wp);
	return NULL;
}

bool
writer_busy_stuck(atomic_uint_fast64_t *slots, size_t n, double limit)
{
	uint64_t now = (uint64_t)(util_now() * 1e9);

	for (size_t i = 0; i < n; i++) {
		uint64_t since = atomic_load(&slots[i]);

		if (since != 0 && now > since &&
		    (double)(now - since) / 1e9 > limit)
			return true;
	}
	return false;
}

uint64_t
writer_busy_now(void)
{
	return (uint64_t)(util_now() * 1e9);
}

bool
writer_pool_stuck(struct writer_pool *wp, double limit)
{
	return wp != NULL && writer_busy_stuck(wp->busy, wp->n, limit);
}

void
writer_pool_join(struct writer_pool *wp)
{
	if (wp == NULL)
		return;
	for (unsigned i = 0; i < wp->n; i++)
		pthread_join(wp->threads[i], NULL);
	if (wp->n > 0)
		log_debug("writer pool: %u writer threads stopped", wp->n);
	free(wp->threads);
	free(wp->busy);
	free(wp);
}
