/*
 * The structural property behind the writer pool's speed, checked without
 * timing anything: updates queued while no writer runs reach librrd as one
 * rrd_update_r call per file (split only past WRITER_MAX_VALUES_PER_CALL),
 * each value once, in order, at its timestamp; and the queue holds a
 * pending update in at most 32 bytes.  The pool runs with a sink that
 * records every call instead of writing.
 */
#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "knobs.h"
#include "queue.h"
#include "rrdfile.h"
#include "util.h"
#include "writer.h"

#define NFILES		10
#define MAX_CALLS	8	/* recorded per file */
#define BYTES_BOUND	32.0	/* per pending update (issues 2 and 6) */
#define BASE_TS		1000000000LL

/* Values encode the file and k, so the sink can tell each one's origin;
 * never 0, so every update is significant. */
#define VALUE(file, k)	((double)(file) * 1e6 + (double)(k))

struct file_log {
	uint64_t	pushed;			/* values queued */
	uint64_t	first_k;		/* k of the first one */
	uint64_t	next_k;			/* the sink expects this k */
	uint64_t	delivered;
	unsigned	ncalls;
	size_t		sizes[MAX_CALLS];	/* values per call, in order */
	unsigned	creates;
};

/* What the sink saw; written by writer threads under mu, read by the test
 * after the pool is joined (cmocka asserts only on the test's thread). */
struct recorder {
	pthread_mutex_t			 mu;
	const struct stress_params	*p;
	char				 paths[NFILES][4200];
	struct file_log			 f[NFILES];
	uint64_t			 calls, values, creates;
	char				 bad[512];	/* first fault found */
};

static void
rec_fault(struct recorder *r, const char *fmt, ...)
{
	va_list ap;

	if (r->bad[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(r->bad, sizeof(r->bad), fmt, ap);
	va_end(ap);
}

static int
rec_file(struct recorder *r, const char *path)
{
	for (int i = 0; i < NFILES; i++)
		if (strcmp(r->paths[i], path) == 0)
			return i;
	return -1;
}

static int
rec_create(void *arg, const struct stress_params *p, const char *path,
    time_t last_up, enum rrdfile_kind *kind, char *err, size_t errlen)
{
	struct recorder *r = arg;
	int i;

	(void)p;
	(void)last_up;
	(void)kind;
	(void)err;
	(void)errlen;
	pthread_mutex_lock(&r->mu);
	r->creates++;
	if ((i = rec_file(r, path)) == -1)
		rec_fault(r, "create of unknown path %s", path);
	else if (r->f[i].delivered > 0)
		rec_fault(r, "file %d created after its updates", i);
	else
		r->f[i].creates++;
	pthread_mutex_unlock(&r->mu);
	return 0;
}

/* Check one "ts:v[:v...]" argument of file i against what was queued. */
static void
rec_value(struct recorder *r, int i, const char *arg)
{
	struct file_log *fl = &r->f[i];
	uint64_t k = fl->next_k++;
	long long ts;
	char *end;

	ts = strtoll(arg, &end, 10);
	if (ts != BASE_TS + (long long)(k * r->p->step)) {
		rec_fault(r, "file %d, k %llu: timestamp %lld, want %lld", i,
		    (unsigned long long)k, ts,
		    BASE_TS + (long long)(k * r->p->step));
		return;
	}
	for (uint64_t d = 0; d < r->p->data_sources; d++) {
		double v;

		if (*end != ':') {
			rec_fault(r, "file %d, k %llu: %s has %llu values, "
			    "want %llu", i, (unsigned long long)k, arg,
			    (unsigned long long)d,
			    (unsigned long long)r->p->data_sources);
			return;
		}
		v = strtod(end + 1, &end);
		if (v != VALUE(i, k)) {
			rec_fault(r, "file %d, k %llu: value %.17g, want %.17g",
			    i, (unsigned long long)k, v, VALUE(i, k));
			return;
		}
	}
	if (*end != '\0')
		rec_fault(r, "file %d, k %llu: trailing text in %s", i,
		    (unsigned long long)k, arg);
}

static int
rec_update(void *arg, const char *path, int argc, const char **argv,
    int *done, enum rrdfile_kind *kind, char *err, size_t errlen)
{
	struct recorder *r = arg;
	struct file_log *fl;
	int i;

	(void)kind;
	(void)err;
	(void)errlen;
	*done = argc;

	pthread_mutex_lock(&r->mu);
	r->calls++;
	r->values += (uint64_t)argc;
	if ((i = rec_file(r, path)) == -1) {
		rec_fault(r, "update of unknown path %s", path);
		goto out;
	}
	fl = &r->f[i];
	if (fl->ncalls < MAX_CALLS)
		fl->sizes[fl->ncalls] = (size_t)argc;
	fl->ncalls++;
	for (int a = 0; a < argc; a++)
		rec_value(r, i, argv[a]);
	fl->delivered += (uint64_t)argc;
out:
	pthread_mutex_unlock(&r->mu);
	return 0;
}

/* Value callback of queue_push: notes which k each file got first. */
static double
rec_push_value(void *ctx, uint32_t file, uint64_t k)
{
	struct recorder *r = ctx;
	struct file_log *fl = &r->f[file];

	if (fl->pushed++ == 0)
		fl->first_k = fl->next_k = k;
	return VALUE(file, k);
}

struct fixture {
	struct stress_params	 p;
	struct queue		*q;
	struct recorder		 r;
};

static struct fixture *
fixture_new(bool missing)
{
	struct queue_config qc = { .files = NFILES, .queue_creates = missing };
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	knobs_defaults(&fx->p);
	/* Nothing is written there: the sink stands in for librrd. */
	snprintf(fx->p.dir, sizeof(fx->p.dir), "/nonexistent/stressd-unit");
	fx->p.files = NFILES;
	fx->q = queue_create(&qc);
	assert_non_null(fx->q);
	pthread_mutex_init(&fx->r.mu, NULL);
	fx->r.p = &fx->p;
	for (uint32_t i = 0; i < NFILES; i++) {
		queue_file_init(fx->q, i, BASE_TS, !missing);
		assert_int_equal(rrdfile_path(&fx->p, i, fx->r.paths[i],
		    sizeof(fx->r.paths[i])), 0);
	}
	return fx;
}

static void
fixture_free(struct fixture *fx)
{
	queue_destroy(fx->q);
	pthread_mutex_destroy(&fx->r.mu);
	knobs_free(&fx->p);
	free(fx);
}

/* Queue counts[i] updates for file i while no writer runs. */
static void
queue_updates(struct fixture *fx, const uint32_t counts[NFILES])
{
	struct queue_counters c;
	uint64_t total = 0;

	for (uint32_t i = 0; i < NFILES; i++) {
		assert_int_equal(queue_push(fx->q, i, counts[i],
		    rec_push_value, &fx->r), counts[i]);
		total += counts[i];
	}
	queue_snapshot(fx->q, &c);
	assert_int_equal(c.total_operations_pending, total);
	assert_int_equal(c.significant_ops_pending, total);
	assert_int_equal(c.files_with_significant_work, NFILES);
	assert_int_equal(c.in_flight, 0);
}

/* One write pass: start the pool on the queued work, let it drain, stop. */
static void
write_pass(struct fixture *fx, unsigned threads, struct queue_counters *c)
{
	struct writer_sink sink = { rec_create, rec_update, &fx->r };
	struct writer_pool *wp;
	double deadline = util_now() + 30;

	wp = writer_pool_start(fx->q, &fx->p, threads, &sink, NULL);
	assert_non_null(wp);
	while (!queue_idle(fx->q) && util_now() < deadline)
		usleep(1000);
	queue_close(fx->q);
	writer_pool_join(wp);
	queue_snapshot(fx->q, c);
	if (fx->r.bad[0] != '\0')
		fail_msg("sink: %s", fx->r.bad);
	assert_true(queue_idle(fx->q));
}

/* Every file got all its values, each once, in order. */
static void
assert_delivered(const struct fixture *fx, const uint32_t counts[NFILES])
{
	for (int i = 0; i < NFILES; i++) {
		const struct file_log *fl = &fx->r.f[i];

		assert_int_equal(fl->pushed, counts[i]);
		assert_int_equal(fl->delivered, counts[i]);
		assert_int_equal(fl->next_k, fl->first_k + counts[i]);
	}
}

static void
test_one_call_per_file(void **state)
{
	static const uint32_t counts[NFILES] = { 1000, 1000, 1000, 1000,
	    1000, 1000, 1000, 1000, 1000, 1000 };
	struct fixture *fx = fixture_new(false);
	struct queue_counters c;

	(void)state;
	queue_updates(fx, counts);
	write_pass(fx, 2, &c);
	print_message("10,000 updates queued for 10 files: %llu "
	    "rrd_update_r calls, %llu values\n",
	    (unsigned long long)fx->r.calls,
	    (unsigned long long)fx->r.values);
	assert_int_equal(fx->r.calls, NFILES);
	assert_int_equal(fx->r.values, 10000);
	assert_int_equal(fx->r.creates, 0);
	for (int i = 0; i < NFILES; i++) {
		assert_int_equal(fx->r.f[i].ncalls, 1);
		assert_int_equal(fx->r.f[i].sizes[0], 1000);
	}
	assert_delivered(fx, counts);
	/* The queue's own count of the calls agrees with the sink's. */
	assert_int_equal(c.update_calls, NFILES);
	assert_int_equal(c.dequeued_items, NFILES);
	assert_int_equal(c.updates_completed, 10000);
	assert_int_equal(c.updates_failed, 0);
	assert_int_equal(c.errors, 0);
	fixture_free(fx);
}

/* A file deeper than one call's cap: 10,000 + 10,000 + 5,000. */
static void
test_split_past_cap(void **state)
{
	static const uint32_t counts[NFILES] = { 1000, 1000, 1000, 25000,
	    1000, 1000, 1000, 1000, 1000, 1000 };
	struct fixture *fx = fixture_new(false);
	const struct file_log *deep = &fx->r.f[3];
	struct queue_counters c;

	(void)state;
	assert_int_equal(WRITER_MAX_VALUES_PER_CALL, 10000);
	queue_updates(fx, counts);
	write_pass(fx, 2, &c);
	print_message("25,000 updates queued for one file: %u calls of "
	    "%zu, %zu, %zu values\n", deep->ncalls, deep->sizes[0],
	    deep->sizes[1], deep->sizes[2]);
	assert_int_equal(deep->ncalls, 3);
	assert_int_equal(deep->sizes[0], 10000);
	assert_int_equal(deep->sizes[1], 10000);
	assert_int_equal(deep->sizes[2], 5000);
	for (int i = 0; i < NFILES; i++)
		if (i != 3) {
			assert_int_equal(fx->r.f[i].ncalls, 1);
			assert_int_equal(fx->r.f[i].sizes[0], 1000);
		}
	assert_int_equal(fx->r.calls, NFILES - 1 + 3);
	assert_int_equal(fx->r.values, 34000);
	assert_delivered(fx, counts);
	assert_int_equal(c.update_calls, NFILES - 1 + 3);
	assert_int_equal(c.dequeued_items, NFILES);
	assert_int_equal(c.updates_completed, 34000);
	fixture_free(fx);
}

/* Missing files: the create goes through the sink too, before the file's
 * updates, and does not cost an extra update call. */
static void
test_create_then_update(void **state)
{
	static const uint32_t counts[NFILES] = { 1000, 1000, 1000, 1000,
	    1000, 1000, 1000, 1000, 1000, 1000 };
	struct fixture *fx = fixture_new(true);
	struct queue_counters c;

	(void)state;
	queue_updates(fx, counts);
	write_pass(fx, 2, &c);
	assert_int_equal(fx->r.creates, NFILES);
	assert_int_equal(fx->r.calls, NFILES);
	for (int i = 0; i < NFILES; i++)
		assert_int_equal(fx->r.f[i].creates, 1);
	assert_delivered(fx, counts);
	assert_int_equal(c.creates_completed, NFILES);
	assert_int_equal(c.update_calls, NFILES);
	fixture_free(fx);
}

static double
synthetic(void *ctx, uint32_t file, uint64_t k)
{
	(void)ctx;
	return VALUE(file, k);
}

#if defined(__SANITIZE_ADDRESS__)
/* ASan's allocator replaces glibc's, which mallinfo2 reports on; it keeps
 * its own count (declared here: gcc ships no allocator_interface.h). */
size_t	__sanitizer_get_current_allocated_bytes(void);

static size_t
heap_in_use(void)
{
	return __sanitizer_get_current_allocated_bytes();
}
#else
/* Everything malloc has handed out: the arena and mmap'd blocks both, as
 * glibc puts the queue's 1 MiB slabs in either depending on its dynamic
 * mmap threshold. */
static size_t
heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}
#endif

/*
 * bench/enqueue's measure: what the heap grows by, per-file state
 * included, from before queue_create to `pending` updates queued and
 * nothing written, divided by the updates pending.  One update at a time
 * round robin over the files, or per_file at once to each file.
 */
static double
bytes_per_pending(uint32_t files, uint64_t pending, bool per_file)
{
	struct queue_config qc = { .files = files };
	struct queue_counters c;
	struct queue *q;
	size_t before, after;

	before = heap_in_use();
	q = queue_create(&qc);
	assert_non_null(q);
	for (uint32_t i = 0; i < files; i++)
		queue_file_init(q, i, BASE_TS, true);
	if (per_file)
		for (uint32_t i = 0; i < files; i++)
			queue_push(q, i, (uint32_t)(pending / files),
			    synthetic, NULL);
	else
		for (uint64_t i = 0; i < pending; i++)
			queue_push(q, (uint32_t)(i % files), 1, synthetic,
			    NULL);
	after = heap_in_use();
	queue_snapshot(q, &c);
	queue_destroy(q);
	assert_int_equal(c.total_operations_pending, pending);
	/* A measure that sees nothing would pass any bound. */
	if (after <= before)
		fail_msg("mallinfo2 saw no heap growth for %llu pending",
		    (unsigned long long)pending);
	return (double)(after - before) / (double)pending;
}

static void
test_bytes_per_pending(void **state)
{
	double shallow, deep, small;

	(void)state;
	shallow = bytes_per_pending(10000, 1000000, false);
	deep = bytes_per_pending(NFILES, 1000000, true);
	small = bytes_per_pending(NFILES, 10000, true);
	print_message("bytes per pending update: %.2f (1,000,000 over "
	    "10,000 files), %.2f (1,000,000 over 10 files); %.2f with only "
	    "10,000 over 10 files, the slabs' fixed reserve not amortized\n",
	    shallow, deep, small);
	assert_true(shallow <= BYTES_BOUND);
	assert_true(deep <= BYTES_BOUND);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_call_per_file),
		cmocka_unit_test(test_split_past_cap),
		cmocka_unit_test(test_create_then_update),
		cmocka_unit_test(test_bytes_per_pending),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
