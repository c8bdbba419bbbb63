#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rrd.h>

#include "log.h"
#include "rrdfile.h"
#include "util.h"
#include "writer.h"

struct writer_pool {
	struct queue			*q;
	const struct stress_params	*p;
	bool				 null_sink;
	struct writer_hooks		 hooks;
	unsigned			 n;
	pthread_t			*threads;
	atomic_uint_fast64_t		*busy;		/* per writer, see writer_ctx */
	atomic_uint			 next_slot;
};

/* Longest "ts:v:v..." text of one update: 20 digits of time and NUL
 * in 24 bytes, then 26 for each value with its colon. */
#define LINE_MAX_LEN(ds)	(24 + (size_t)(ds) * 26)

void
writer_ctx_init(struct writer_ctx *w, const struct stress_params *p,
    const struct writer_hooks *hooks)
{
	memset(w, 0, sizeof(*w));
	w->p = p;
	w->hooks = hooks;
}

void
writer_ctx_free(struct writer_ctx *w)
{
	free(w->buf);
	free(w->argv);
	memset(w, 0, sizeof(*w));
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

/* The librrd part of writer_write_batch. */
static void
write_file(struct writer_ctx *w, const struct queue_batch *b,
    struct queue_result *res)
{
	const struct stress_params *p = w->p;
	struct queue_iter it;
	uint64_t k = b->first_k, left = b->count;
	double t0;
	int rc;

	if (rrdfile_path(p, b->file, w->path, sizeof(w->path)) == -1) {
		snprintf(w->err, sizeof(w->err), "file %u: path too long",
		    b->file);
		/* As a failed create: the values fail with one error. */
		res->create_ok = !b->create;
		res->failed_calls = !b->create && left > 0;
		return;
	}
	if (b->create && rrdfile_create(p, w->path, (time_t)b->base_ts,
	    w->err, sizeof(w->err)) == -1) {
		res->create_ok = false;
		return;
	}
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
		rrd_clear_error();
		res->calls++;
		t0 = util_now();
		rc = rrd_update_r(w->path, NULL, (int)n, w->argv);
		if (w->hooks != NULL && w->hooks->call_time != NULL)
			w->hooks->call_time(w->hooks->arg,
			    (uint64_t)((util_now() - t0) * 1e9));
		if (rc != 0) {
			rrdfile_error(w->path, w->err, sizeof(w->err));
			res->failed_calls = 1;
			return;
		}
		res->written += n;
		left -= n;
	}
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
	uint64_t completed;

	/* The error is recorded before the batch is returned, so whoever
	 * sees the counters move also finds its message. */
	if (writer_failed(b, res) && hooks->error != NULL)
		hooks->error(hooks->arg, w->err);
	if (res->written > 0 && b->count > 0 && hooks->persisted != NULL)
		hooks->persisted(hooks->arg,
		    (uint64_t)((util_now() - b->oldest_enqueue) * 1e9));
	completed = queue_done(q, b, res);
	if (res->written > 0 && hooks->progress != NULL)
		hooks->progress(hooks->arg, completed, res->written);
}

static void *
writer_main(void *arg)
{
	struct writer_pool *wp = arg;
	struct writer_ctx w;
	struct queue_batch b;

	writer_ctx_init(&w, wp->p, &wp->hooks);
	w.busy_since = &wp->busy[atomic_fetch_add(&wp->next_slot, 1)];
	while (queue_take(wp->q, &b, util_now())) {
		/* The null sink "writes" each batch in one call. */
		struct queue_result res = { true, b.count, b.count > 0, 0 };

		if (!wp->null_sink)
			writer_write_batch(&w, &b, &res);
		writer_finish(wp->q, &b, &res, &w, &wp->hooks);
	}
	writer_ctx_free(&w);
	return NULL;
}

struct writer_pool *
writer_pool_start(struct queue *q, const struct stress_params *p,
    unsigned nthreads, bool null_sink, const struct writer_hooks *hooks)
{
	struct writer_pool *wp = calloc(1, sizeof(*wp));

	if (wp == NULL)
		return NULL;
	wp->q = q;
	wp->p = p;
	wp->null_sink = null_sink;
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
	free(wp->threads);
	free(wp->busy);
	free(wp);
}
