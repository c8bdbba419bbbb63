/* Unit tests of the queue's memory bound (queue_config.memory_max): values
 * pending stop at it, a producer waits there rather than drop or grow, a
 * consumer that frees memory wakes it, and queue_halt or queue_close wake
 * it for good.  The sink is the test itself, no librrd involved. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <cmocka.h>

#include "queue.h"
#include "util.h"

#define BOUND	8192		/* bytes: a few dozen chunks */
#define VALUES	20000		/* far more than fit */
#define FILES	4

static double
one(void *ctx, uint32_t file, uint64_t k)
{
	(void)ctx;
	(void)file;
	(void)k;
	return 1.0;
}

struct prod {
	struct queue	*q;
	uint64_t	 accepted, offered;
	int		 done;		/* read under no lock: joined after */
};

/* One producer offering VALUES significant updates over FILES files in
 * groups, as a generator does. */
static void *
producer(void *arg)
{
	struct prod *p = arg;
	struct queue_req reqs[FILES];

	for (int i = 0; i < VALUES / (FILES * 10); i++) {
		uint64_t off;

		for (uint32_t f = 0; f < FILES; f++)
			reqs[f] = (struct queue_req){ f, 10 };
		p->accepted += queue_offer(p->q, reqs, FILES, one, NULL, &off);
		p->offered += off;
		if (off < FILES * 10)
			break;		/* halted */
	}
	__atomic_store_n(&p->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static struct queue *
new_queue(uint64_t memory_max)
{
	struct queue_config cfg = { .files = FILES, .memory_max = memory_max };
	struct queue *q = queue_create(&cfg);

	assert_non_null(q);
	for (uint32_t i = 0; i < FILES; i++)
		queue_file_init(q, i, 1000, true);
	return q;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Wait (10 s at most) until the producer waits at the bound. */
static void
until_waiting(struct queue *q, uint64_t waits)
{
	struct queue_counters c;
	double end = util_now() + 10;

	do {
		sleep_ms(1);
		queue_snapshot(q, &c);
	} while (c.generator_waits < waits && util_now() < end);
	assert_true(c.generator_waits >= waits);
}

static void
assert_conserved(const struct queue_counters *c)
{
	assert_int_equal(c->offered, c->enqueued + c->dropped);
	assert_int_equal(c->enqueued, c->updates_completed +
	    c->updates_failed + c->total_operations_pending + c->in_flight +
	    c->discarded);
}

/* Take every selectable batch and return it written. */
static uint64_t
drain_some(struct queue *q)
{
	struct queue_batch b;
	uint64_t n = 0;

	while (queue_try_take(q, &b, util_now())) {
		struct queue_result r = { true, b.count, 1, 0 };

		n += b.count;
		queue_done(q, &b, &r);
	}
	return n;
}

/* Pending values stop at the bound, nothing is dropped, a consumer
 * wakes the producer, and in the end every value was written. */
static void
test_bound_and_wake(void **state)
{
	struct prod p = { .q = new_queue(BOUND) };
	struct queue_counters c;
	pthread_t t;
	double end;

	(void)state;
	pthread_create(&t, NULL, producer, &p);
	until_waiting(p.q, 1);
	sleep_ms(30);		/* the wait is counted */
	queue_snapshot(p.q, &c);
	assert_false(__atomic_load_n(&p.done, __ATOMIC_SEQ_CST));
	assert_true(c.queue_memory_bytes <= BOUND);
	assert_true(c.queue_memory_peak_bytes <= BOUND);
	assert_true(c.queue_memory_bytes > BOUND / 2);
	assert_true(c.total_operations_pending > 0);
	assert_true(c.total_operations_pending < VALUES / 2);
	assert_int_equal(c.dropped, 0);
	assert_true(c.generator_wait_ms >= 20);
	assert_conserved(&c);

	/* Freeing memory wakes the producer: it goes on to the end. */
	end = util_now() + 30;
	while (!__atomic_load_n(&p.done, __ATOMIC_SEQ_CST) &&
	    util_now() < end)
		if (drain_some(p.q) == 0)
			sleep_ms(1);
	assert_true(__atomic_load_n(&p.done, __ATOMIC_SEQ_CST));
	pthread_join(t, NULL);
	drain_some(p.q);
	queue_snapshot(p.q, &c);
	assert_int_equal(p.offered, VALUES);
	assert_int_equal(p.accepted, VALUES);
	assert_int_equal(c.updates_completed, VALUES);
	assert_int_equal(c.dropped, 0);
	assert_int_equal(c.queue_memory_bytes, 0);
	assert_true(c.queue_memory_peak_bytes <= BOUND);
	assert_true(c.generator_waits > 1);
	assert_conserved(&c);
	queue_destroy(p.q);
}

/* queue_halt (stop, stop --no-drain, shutdown) wakes a waiting producer:
 * it returns with what it offered, and waits no more. */
static void
test_halt_wakes(void **state)
{
	struct prod p = { .q = new_queue(BOUND) };
	struct queue_counters c;
	pthread_t t;

	(void)state;
	pthread_create(&t, NULL, producer, &p);
	until_waiting(p.q, 1);
	queue_halt(p.q);
	pthread_join(t, NULL);	/* hangs without the wake */
	queue_snapshot(p.q, &c);
	assert_true(p.offered < VALUES);
	assert_int_equal(c.offered, p.offered);
	assert_int_equal(c.enqueued, p.accepted);
	assert_true(c.queue_memory_bytes <= BOUND);
	assert_conserved(&c);
	queue_discard(p.q);
	queue_snapshot(p.q, &c);
	assert_int_equal(c.queue_memory_bytes, 0);
	assert_conserved(&c);
	queue_destroy(p.q);
}

/* queue_close (the run's end) wakes it too. */
static void
test_close_wakes(void **state)
{
	struct prod p = { .q = new_queue(BOUND) };
	struct queue_counters c;
	pthread_t t;

	(void)state;
	pthread_create(&t, NULL, producer, &p);
	until_waiting(p.q, 1);
	queue_close(p.q);
	pthread_join(t, NULL);
	queue_snapshot(p.q, &c);
	assert_true(p.offered < VALUES);
	assert_conserved(&c);
	queue_destroy(p.q);
}

/* memory_max 0 is the original's unbounded queue; the gauge still counts. */
static void
test_unbounded(void **state)
{
	struct prod p = { .q = new_queue(0) };
	struct queue_counters c;

	(void)state;
	producer(&p);
	queue_snapshot(p.q, &c);
	assert_int_equal(c.total_operations_pending, VALUES);
	assert_int_equal(c.generator_waits, 0);
	assert_true(c.queue_memory_bytes >= 8 * VALUES);
	assert_int_equal(c.queue_memory_bytes, c.queue_memory_peak_bytes);
	queue_destroy(p.q);
}

/* Zero runs cost one small chunk each: a producer of zeros only never
 * reaches a bound that holds one chunk per file. */
static double
zero(void *ctx, uint32_t file, uint64_t k)
{
	(void)ctx;
	(void)file;
	(void)k;
	return 0.0;
}

static void
test_zero_runs(void **state)
{
	struct queue *q = new_queue(FILES * 64);
	struct queue_counters c;

	(void)state;
	for (uint32_t f = 0; f < FILES; f++)
		assert_int_equal(queue_push(q, f, 100000, zero, NULL), 100000);
	queue_snapshot(q, &c);
	assert_int_equal(c.generator_waits, 0);
	assert_true(c.queue_memory_bytes <= FILES * 64);
	queue_destroy(q);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bound_and_wake),
		cmocka_unit_test(test_halt_wakes),
		cmocka_unit_test(test_close_wakes),
		cmocka_unit_test(test_unbounded),
		cmocka_unit_test(test_zero_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
