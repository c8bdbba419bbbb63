/* Unit tests of daemon/sampler.c: every sample feeds the distributions,
 * and the kept history stays bounded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sampler.h"

static void
test_thinning(void **state)
{
	struct sampler s;
	struct queue_counters c;
	uint64_t n = 5 * SAMPLER_KEEP;

	(void)state;
	assert_int_equal(sampler_init(&s), 0);
	memset(&c, 0, sizeof(c));
	for (uint64_t i = 0; i < n; i++) {
		c.significant_ops_pending = i % 4;	/* 0 1 2 3 ... */
		c.total_operations_pending = 2 * (i % 4);
		sampler_add(&s, (double)i, &c);
	}
	assert_int_equal(s.taken, n);
	assert_true(s.n <= SAMPLER_KEEP);
	assert_true(s.thinned > 0);
	/* distributions cover every sample, not only the kept ones */
	assert_int_equal(s.sig.count, n);
	assert_true(dist_average(&s.sig) == 1.5);
	assert_true(dist_average(&s.total) == 3.0);
	/* kept samples stay in time order, the newest last */
	for (size_t i = 1; i < s.n; i++)
		assert_true(s.buf[i].t > s.buf[i - 1].t);
	assert_true(s.buf[s.n - 1].t == (double)(n - 1));
	sampler_free(&s);
}

static void
test_csv(void **state)
{
	struct sampler s;
	struct queue_counters c;
	char path[] = "/tmp/sampler-test.XXXXXX", line[512];
	FILE *fp;
	int fd, lines = 0;

	(void)state;
	assert_int_equal(sampler_init(&s), 0);
	memset(&c, 0, sizeof(c));
	for (int i = 0; i < 3; i++) {
		c.significant_ops_pending = (uint64_t)i;
		c.updates_completed = (uint64_t)i * 10;
		sampler_add(&s, i * 0.5, &c);
	}
	assert_true((fd = mkstemp(path)) != -1);
	close(fd);
	assert_int_equal(sampler_write_csv(&s, path), 0);
	assert_non_null(fp = fopen(path, "r"));
	assert_non_null(fgets(line, sizeof(line), fp));
	assert_int_equal(strncmp(line, "elapsed_s,significant_ops_pending,", 34),
	    0);
	while (fgets(line, sizeof(line), fp) != NULL)
		lines++;
	fclose(fp);
	unlink(path);
	assert_int_equal(lines, 3);
	sampler_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thinning),
		cmocka_unit_test(test_csv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
