/* Unit tests of daemon/queue.c with a fake sink: batches are taken and
 * returned by the test itself, no librrd involved. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "queue.h"
#include "util.h"

static double
fixed_value(void *ctx, uint32_t file, uint64_t k)
{
	(void)file;
	(void)k;
	return *(const double *)ctx;
}

/* k itself as the value: shows order and timestamp assignment. */
static double
k_value(void *ctx, uint32_t file, uint64_t k)
{
	(void)ctx;
	(void)file;
	return (double)k;
}

static struct queue *
new_queue(uint32_t files, bool prioritize)
{
	struct queue_config cfg = { .files = files, .prioritize = prioritize };
	struct queue *q = queue_create(&cfg);

	assert_non_null(q);
	for (uint32_t i = 0; i < files; i++)
		queue_file_init(q, i, 1000, true);
	return q;
}

static void
push1(struct queue *q, uint32_t file, double v)
{
	assert_int_equal(queue_push(q, file, 1, fixed_value, &v), 1);
}

/* Return a batch as a writer would: all written, or the call failed. */
static uint64_t
done_ok(struct queue *q, struct queue_batch *b)
{
	struct queue_result r = { true, b->count, 1, 0 };

	return queue_done(q, b, &r);
}

static uint64_t
done_failed(struct queue *q, struct queue_batch *b)
{
	struct queue_result r = { true, 0, 1, 1 };

	return queue_done(q, b, &r);
}

static void
assert_conserved(struct queue *q)
{
	struct queue_counters c;

	queue_snapshot(q, &c);
	assert_int_equal(c.offered, c.enqueued + c.dropped);
	assert_int_equal(c.enqueued, c.updates_completed + c.updates_failed +
	    c.total_operations_pending + c.in_flight + c.discarded);
	assert_int_equal(c.creates_queued, c.creates_completed +
	    c.creates_failed + c.creates_pending + c.creates_discarded);
}

static void
test_coalescing(void **state)
{
	struct queue *q = new_queue(4, false);
	struct queue_batch b;
	struct queue_iter it;
	double v;
	uint64_t expect = 1;

	(void)state;
	for (int i = 0; i < 5; i++)
		assert_int_equal(queue_push(q, 2, 1, k_value, NULL), 1);
	assert_true(queue_try_take(q, &b, util_now()));
	assert_int_equal(b.file, 2);
	assert_int_equal(b.count, 5);
	assert_int_equal(b.first_k, 1);
	assert_int_equal(b.base_ts, 1000);
	queue_iter_init(&it, &b);
	while (queue_iter_next(&it, &v))
		assert_true(v == (double)expect++);
	assert_int_equal(expect, 6);
	assert_conserved(q);
	done_ok(q, &b);
	assert_false(queue_try_take(q, &b, util_now()));
	assert_conserved(q);
	queue_destroy(q);
}

static void
test_reservation(void **state)
{
	struct queue *q = new_queue(2, false);
	struct queue_batch b, b2;
	struct queue_counters c;

	(void)state;
	push1(q, 0, 1);
	assert_true(queue_try_take(q, &b, util_now()));
	push1(q, 0, 2);
	push1(q, 0, 3);
	/* The file is held by a writer: nobody else may take it. */
	assert_false(queue_try_take(q, &b2, util_now()));
	queue_snapshot(q, &c);
	assert_int_equal(c.in_flight, 1);
	assert_int_equal(c.total_operations_pending, 2);
	assert_conserved(q);
	assert_int_equal(done_ok(q, &b), 1);
	assert_true(queue_try_take(q, &b2, util_now()));
	assert_int_equal(b2.file, 0);
	assert_int_equal(b2.count, 2);
	assert_int_equal(b2.first_k, 2);	/* timestamps continue */
	assert_int_equal(done_ok(q, &b2), 3);
	assert_true(queue_idle(q));
	assert_conserved(q);
	queue_destroy(q);
}

static void
test_zero_run_merge(void **state)
{
	struct queue *q = new_queue(1, false);
	struct queue_batch b;
	struct queue_iter it;
	const double want[] = { 5, 0, 0, 7 };
	double v;
	size_t i = 0;

	(void)state;
	for (int n = 0; n < 100000; n++)
		push1(q, 0, 0.0);
	assert_true(queue_try_take(q, &b, util_now()));
	/* 100000 zeros are one segment holding a count, not 800 KB. */
	assert_non_null(b.segs);
	assert_null(b.segs->next);
	assert_int_equal(b.segs->cap, 0);
	assert_int_equal(b.segs->n, 100000);
	assert_int_equal(b.count, 100000);
	assert_int_equal(b.n_sig, 0);
	done_ok(q, &b);

	for (size_t n = 0; n < 4; n++)
		push1(q, 0, want[n]);
	assert_true(queue_try_take(q, &b, util_now()));
	assert_int_equal(b.n_sig, 2);
	queue_iter_init(&it, &b);
	while (queue_iter_next(&it, &v))
		assert_true(v == want[i++]);
	assert_int_equal(i, 4);
	done_ok(q, &b);
	assert_conserved(q);
	queue_destroy(q);
}

static void
test_fifo_without_priority(void **state)
{
	struct queue *q = new_queue(3, false);
	struct queue_batch b;
	struct queue_counters c;

	(void)state;
	push1(q, 0, 0.0);
	push1(q, 1, 4.0);
	queue_snapshot(q, &c);
	assert_int_equal(c.files_with_significant_work, 2);
	assert_int_equal(c.files_with_insignificant_work, 0);
	assert_true(queue_try_take(q, &b, util_now()));
	assert_int_equal(b.file, 0);	/* plain FIFO */
	done_ok(q, &b);
	queue_destroy(q);
}

static void
test_priority(void **state)
{
	struct queue *q = new_queue(3, true);
	struct queue_batch b;
	struct queue_counters c;

	(void)state;
	push1(q, 0, 0.0);
	push1(q, 1, 0.0);
	push1(q, 2, 3.0);
	queue_snapshot(q, &c);
	assert_int_equal(c.files_with_significant_work, 1);
	assert_int_equal(c.files_with_insignificant_work, 2);
	assert_int_equal(c.significant_ops_pending, 1);
	/* Significant work first, though it came last. */
	assert_true(queue_try_take(q, &b, util_now()));
	assert_int_equal(b.file, 2);
	done_ok(q, &b);
	/* File 1 gets a significant update: it moves to the high list. */
	push1(q, 1, 9.0);
	queue_snapshot(q, &c);
	assert_int_equal(c.files_with_significant_work, 1);
	assert_int_equal(c.files_with_insignificant_work, 1);
	assert_true(queue_try_take(q, &b, util_now()));
	assert_int_equal(b.file, 1);
	assert_int_equal(b.count, 2);
	assert_int_equal(b.n_sig, 1);
	done_ok(q, &b);
	assert_true(queue_try_take(q, &b, util_now()));
	assert_int_equal(b.file, 0);
	done_ok(q, &b);
	assert_conserved(q);
	queue_destroy(q);
}

static void
test_promotion(void **state)
{
	struct queue_config cfg = { .files = 11, .prioritize = true,
	    .max_insig_update_seconds = 10 };
	struct queue *q = queue_create(&cfg);
	struct queue_batch b;
	struct queue_counters c;
	double t0 = 100.0;

	(void)state;
	for (uint32_t i = 0; i < 10; i++)
		push1(q, i, 0.0);
	/* The first take starts the promotion clock, promotes nothing and
	 * takes the head of the low list (no significant work). */
	assert_true(queue_try_take(q, &b, t0));
	assert_int_equal(b.file, 0);
	done_ok(q, &b);
	push1(q, 10, 1.0);
	/* 9 files on the low list, 10 s to move them all: after 5 s about
	 * 4 are promoted ahead of the significant file 10. */
	assert_true(queue_try_take(q, &b, t0 + 5));
	queue_snapshot(q, &c);
	assert_int_equal(c.promotion_count, 4);
	assert_int_not_equal(b.file, 10);
	assert_int_equal(b.file, 4);	/* promoted to the head in turn */
	done_ok(q, &b);
	queue_destroy(q);
}

static void
test_high_water(void **state)
{
	struct queue_config cfg = { .files = 4, .queue_high_water = 3 };
	struct queue *q = queue_create(&cfg);
	struct queue_counters c;
	double one = 1;

	(void)state;
	assert_int_equal(queue_push(q, 0, 5, fixed_value, &one), 3);
	queue_snapshot(q, &c);
	assert_int_equal(c.offered, 5);
	assert_int_equal(c.enqueued, 3);
	assert_int_equal(c.dropped, 2);
	assert_conserved(q);
	queue_destroy(q);

	cfg.queue_high_water = 0;
	cfg.sig_high_water = 2;
	cfg.insig_high_water = 1;
	q = queue_create(&cfg);
	assert_int_equal(queue_push(q, 1, 4, fixed_value, &one), 2);
	one = 0;
	assert_int_equal(queue_push(q, 2, 4, fixed_value, &one), 1);
	queue_snapshot(q, &c);
	assert_int_equal(c.dropped, 5);
	assert_int_equal(c.significant_ops_pending, 2);
	assert_conserved(q);
	queue_destroy(q);
}

static void
test_creates(void **state)
{
	struct queue_config cfg = { .files = 2, .queue_creates = true };
	struct queue *q = queue_create(&cfg);
	struct queue_batch b;
	struct queue_counters c;

	(void)state;
	queue_file_init(q, 0, 500, false);
	queue_file_init(q, 1, 500, true);
	push1(q, 0, 1);
	push1(q, 1, 1);
	queue_snapshot(q, &c);
	assert_int_equal(c.creates_pending, 1);
	assert_true(queue_try_take(q, &b, util_now()));
	assert_int_equal(b.file, 0);
	assert_true(b.create);		/* the create goes before updates */
	done_ok(q, &b);
	assert_true(queue_try_take(q, &b, util_now()));
	assert_false(b.create);
	done_ok(q, &b);
	push1(q, 0, 2);
	assert_true(queue_try_take(q, &b, util_now()));
	assert_false(b.create);		/* created once only */
	done_failed(q, &b);
	queue_snapshot(q, &c);
	assert_int_equal(c.creates_completed, 1);
	assert_int_equal(c.updates_failed, 1);
	assert_int_equal(c.errors, 1);
	assert_conserved(q);
	queue_destroy(q);
}

/* A split batch whose second call failed: the first part counts
 * completed, the rest failed, and one error for the one failed call. */
static void
test_partial_write(void **state)
{
	struct queue *q = new_queue(1, false);
	struct queue_batch b;
	struct queue_result r = { true, 7, 2, 1 };
	struct queue_counters c;

	(void)state;
	for (int n = 0; n < 10; n++)
		push1(q, 0, 1.0);
	assert_true(queue_try_take(q, &b, util_now()));
	assert_int_equal(queue_done(q, &b, &r), 7);
	queue_snapshot(q, &c);
	assert_int_equal(c.updates_completed, 7);
	assert_int_equal(c.updates_failed, 3);
	assert_int_equal(c.update_calls, 2);
	assert_int_equal(c.errors, 1);
	assert_int_equal(c.significant_ops_pending, 0);
	assert_conserved(q);
	queue_destroy(q);
}

/* A failed create: its updates fail with it, counted as one error. */
static void
test_failed_create(void **state)
{
	struct queue_config cfg = { .files = 1, .queue_creates = true };
	struct queue *q = queue_create(&cfg);
	struct queue_batch b;
	struct queue_result r = { false, 0, 0, 0 };
	struct queue_counters c;

	(void)state;
	push1(q, 0, 1.0);
	push1(q, 0, 2.0);
	assert_true(queue_try_take(q, &b, util_now()));
	assert_true(b.create);
	queue_done(q, &b, &r);
	queue_snapshot(q, &c);
	assert_int_equal(c.creates_failed, 1);
	assert_int_equal(c.updates_failed, 2);
	assert_int_equal(c.errors, 1);
	assert_conserved(q);
	/* The file still does not exist: the next update asks again. */
	push1(q, 0, 3.0);
	assert_true(queue_try_take(q, &b, util_now()));
	assert_true(b.create);
	done_ok(q, &b);
	queue_destroy(q);
}

static void
test_discard(void **state)
{
	struct queue *q = new_queue(4, false);
	struct queue_batch b, b2;
	struct queue_counters c;

	(void)state;
	for (uint32_t i = 0; i < 4; i++)
		for (int n = 0; n < 10; n++)
			push1(q, i, n % 2 ? 1.0 : 0.0);
	assert_true(queue_try_take(q, &b, util_now()));
	push1(q, b.file, 3);
	assert_int_equal(queue_discard(q), 31);
	queue_snapshot(q, &c);
	assert_int_equal(c.discarded, 31);
	assert_int_equal(c.dropped, 0);
	assert_int_equal(c.enqueued, 41);	/* counters never go back */
	assert_int_equal(c.total_operations_pending, 0);
	assert_int_equal(c.in_flight, 10);
	assert_conserved(q);
	assert_false(queue_try_take(q, &b2, util_now()));
	done_ok(q, &b);
	queue_snapshot(q, &c);
	assert_int_equal(c.significant_ops_pending, 0);
	assert_true(queue_idle(q));
	assert_conserved(q);
	queue_destroy(q);
}

/* Queued creates thrown away are counted; the one a writer holds is not
 * (it completes or fails as it would). */
static void
test_discard_creates(void **state)
{
	struct queue_config cfg = { .files = 3, .queue_creates = true };
	struct queue *q = queue_create(&cfg);
	struct queue_batch b, b2;
	struct queue_counters c;

	(void)state;
	for (uint32_t i = 0; i < 3; i++) {
		queue_file_init(q, i, 0, false);
		queue_push_create(q, i);
	}
	assert_true(queue_try_take(q, &b, util_now()));
	assert_true(b.create);
	assert_int_equal(queue_discard(q), 0);
	queue_snapshot(q, &c);
	assert_int_equal(c.creates_queued, 3);
	assert_int_equal(c.creates_discarded, 2);
	assert_int_equal(c.creates_pending, 1);	/* in flight */
	assert_conserved(q);
	assert_false(queue_try_take(q, &b2, util_now()));
	done_ok(q, &b);
	queue_snapshot(q, &c);
	assert_int_equal(c.creates_completed, 1);
	assert_int_equal(c.creates_pending, 0);
	assert_true(queue_idle(q));
	assert_conserved(q);
	queue_destroy(q);
}

static void
test_direct(void **state)
{
	struct queue *q = new_queue(1, false);
	struct queue_batch b;
	struct queue_counters c;

	(void)state;
	queue_direct_begin(q, 0, 3, k_value, NULL, &b);
	assert_true(b.direct);
	assert_int_equal(b.count, 3);
	assert_int_equal(b.first_k, 1);
	queue_snapshot(q, &c);
	assert_int_equal(c.in_flight, 3);
	assert_int_equal(c.total_operations_pending, 0);
	assert_conserved(q);
	done_ok(q, &b);
	queue_direct_begin(q, 0, 2, k_value, NULL, &b);
	assert_int_equal(b.first_k, 4);
	done_ok(q, &b);
	queue_snapshot(q, &c);
	assert_int_equal(c.updates_completed, 5);
	queue_destroy(q);
}

/* Producers, consumers and an observer at once: every snapshot must obey
 * both conservation equations. */
struct mt {
	struct queue	*q;
	int		 stop;
};

static void *
mt_producer(void *arg)
{
	struct mt *m = arg;

	for (uint32_t i = 0; i < 200000; i++) {
		double v = (i % 3 == 0) ? 0.0 : 1.0;

		queue_push(m->q, i % 97, 1 + i % 3, fixed_value, &v);
	}
	return NULL;
}

static void *
mt_consumer(void *arg)
{
	struct mt *m = arg;
	struct queue_batch b;

	while (queue_take(m->q, &b, util_now()))
		if (b.file % 5 != 0)
			done_ok(m->q, &b);
		else
			done_failed(m->q, &b);
	return NULL;
}

static void
test_conservation_threads(void **state)
{
	struct queue_config cfg = { .files = 97, .prioritize = true,
	    .max_insig_update_seconds = 0.01, .queue_high_water = 5000 };
	struct mt m = { .q = queue_create(&cfg) };
	pthread_t prod[3], cons[2];
	struct queue_counters c;
	unsigned checks = 0;
	uint64_t offered = 0;

	(void)state;
	for (int i = 0; i < 2; i++)
		pthread_create(&cons[i], NULL, mt_consumer, &m);
	for (int i = 0; i < 3; i++)
		pthread_create(&prod[i], NULL, mt_producer, &m);
	for (int i = 0; i < 2000; i++, checks++)
		assert_conserved(m.q);
	for (int i = 0; i < 3; i++)
		pthread_join(prod[i], NULL);
	queue_close(m.q);
	for (int i = 0; i < 2; i++)
		pthread_join(cons[i], NULL);
	queue_snapshot(m.q, &c);
	for (uint32_t i = 0; i < 200000; i++)
		offered += 3 * (1 + i % 3);
	assert_int_equal(c.offered, offered);
	assert_true(c.dropped > 0);	/* the high-water mark was hit */
	assert_true(queue_idle(m.q));
	assert_int_equal(c.in_flight, 0);
	assert_int_equal(c.total_operations_pending, 0);
	assert_int_equal(c.significant_ops_pending, 0);
	assert_true(c.updates_failed > 0);
	assert_conserved(m.q);
	assert_true(checks == 2000);
	queue_destroy(m.q);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coalescing),
		cmocka_unit_test(test_reservation),
		cmocka_unit_test(test_zero_run_merge),
		cmocka_unit_test(test_fifo_without_priority),
		cmocka_unit_test(test_priority),
		cmocka_unit_test(test_promotion),
		cmocka_unit_test(test_high_water),
		cmocka_unit_test(test_creates),
		cmocka_unit_test(test_partial_write),
		cmocka_unit_test(test_failed_create),
		cmocka_unit_test(test_discard),
		cmocka_unit_test(test_discard_creates),
		cmocka_unit_test(test_direct),
		cmocka_unit_test(test_conservation_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
