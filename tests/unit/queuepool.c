/* Unit tests of daemon/queuepool.c: chunks come out empty with the cap
 * asked for, go back to the free list of their size and are reused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "queuepool.h"

static void
test_get(void **state)
{
	static const uint32_t caps[] = { 0, 6, 14, 30, 62, 126, 254, 510 };
	struct queuepool p;

	(void)state;
	memset(&p, 0, sizeof(p));
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		struct queue_seg *s = queuepool_get(&p, caps[i]);

		assert_non_null(s);
		assert_null(s->next);
		assert_int_equal(s->n, 0);
		assert_int_equal(s->cap, caps[i]);
		/* The whole chunk is usable. */
		for (uint32_t v = 0; v < caps[i]; v++)
			s->v[v] = v;
	}
	queuepool_destroy(&p);
	assert_int_equal(p.nslabs, 0);
}

/* A chain put back is reused chunk by chunk, per size class. */
static void
test_reuse(void **state)
{
	struct queuepool p;
	struct queue_seg *a, *b, *z, *c, *d;

	(void)state;
	memset(&p, 0, sizeof(p));
	a = queuepool_get(&p, 6);
	b = queuepool_get(&p, 6);
	z = queuepool_get(&p, 0);
	assert_ptr_not_equal(a, b);
	a->next = b;
	a->n = 3;
	queuepool_put(&p, a);
	queuepool_put(&p, z);
	/* Both come back, reset; nothing new is cut. */
	c = queuepool_get(&p, 6);
	d = queuepool_get(&p, 6);

	assert_true((c == a && d == b) || (c == b && d == a));
	assert_int_equal(c->n, 0);
	assert_null(c->next);
	assert_ptr_equal(queuepool_get(&p, 0), z);
	/* One slab per size class used. */
	assert_int_equal(p.nslabs, 2);
	queuepool_destroy(&p);
}

/* More chunks than a slab holds take another slab. */
static void
test_slabs(void **state)
{
	struct queuepool p;
	size_t per_slab = QUEUEPOOL_SLAB_BYTES / 4096;

	(void)state;
	memset(&p, 0, sizeof(p));
	for (size_t i = 0; i < per_slab + 1; i++)
		assert_non_null(queuepool_get(&p, 510));
	assert_int_equal(p.nslabs, 2);
	queuepool_destroy(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get),
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_slabs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
