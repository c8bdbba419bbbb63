/* Unit tests of daemon/loadgen.c: the zero-file rule, values, pacing
 * arithmetic, generators feeding a real queue round robin, and the
 * offered hook that writes stress.log's blocks. */
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "knobs.h"
#include "loadgen.h"
#include "queue.h"
#include "util.h"

static void
params(struct stress_params *p, uint64_t files, uint64_t zero_files)
{
	knobs_defaults(p);
	p->files = files;
	p->zero_files = zero_files;
}

/* File n is a zero file when n % (files / zero_files) == 0, every file
 * when zero_files >= files, none when zero_files is 0. */
static void
test_zero_files(void **state)
{
	struct stress_params p;
	unsigned n = 0;

	(void)state;
	params(&p, 10, 5);
	for (uint32_t i = 0; i < 10; i++) {
		assert_int_equal(loadgen_is_zero_file(&p, i), i % 2 == 0);
		n += loadgen_is_zero_file(&p, i);
	}
	assert_int_equal(n, 5);
	p.zero_files = 3;	/* every third: 0, 3, 6, 9 */
	assert_true(loadgen_is_zero_file(&p, 9));
	assert_false(loadgen_is_zero_file(&p, 8));
	p.zero_files = 0;
	for (uint32_t i = 0; i < 10; i++)
		assert_false(loadgen_is_zero_file(&p, i));
	p.zero_files = 10;
	for (uint32_t i = 0; i < 10; i++)
		assert_true(loadgen_is_zero_file(&p, i));
	p.zero_files = 20;
	assert_true(loadgen_is_zero_file(&p, 7));
	knobs_free(&p);
}

/* Synthetic values: never 0 on a non-zero file, deterministic per (seed,
 * file, k); replayed values wrap around; a zero file is all 0. */
static void
test_values(void **state)
{
	static const double replay[] = { 5, 0, 7 };
	struct stress_params p;

	(void)state;
	params(&p, 10, 5);
	for (uint64_t k = 1; k < 1000; k++) {
		double v = loadgen_value(&p, NULL, 0, 1, k);

		assert_true(v >= 1 && v <= 100000);
		assert_true(v == loadgen_value(&p, NULL, 0, 1, k));
		assert_true(loadgen_value(&p, NULL, 0, 2, k) == 0);
	}
	p.seed = 2;
	assert_true(loadgen_value(&p, NULL, 0, 1, 1) !=
	    loadgen_value(&p, NULL, 0, 1, 2) ||
	    loadgen_value(&p, NULL, 0, 1, 3) !=
	    loadgen_value(&p, NULL, 0, 1, 4));
	assert_true(loadgen_value(&p, replay, 3, 1, 1) == 5);
	assert_true(loadgen_value(&p, replay, 3, 1, 2) == 0);
	assert_true(loadgen_value(&p, replay, 3, 1, 4) == 5);
	assert_true(loadgen_value(&p, replay, 3, 2, 1) == 0);
	knobs_free(&p);
}

/* The n-th update is due n * update_time / max_updates s in; flat out
 * nothing waits and a claim is one pick. */
static void
test_pacing(void **state)
{
	struct stress_params p;

	(void)state;
	params(&p, 10, 0);
	p.max_updates = 1000;
	p.update_time = 10;
	assert_true(loadgen_due(&p, 0) == 0);
	assert_true(loadgen_due(&p, 100) == 1);
	assert_true(loadgen_due(&p, 1000) == 10);
	/* 100 updates/s: 0.2 due within 2 ms, claimed one at a time */
	assert_int_equal(loadgen_picks_per_claim(&p), 1);
	p.max_updates = 1000000;	/* 100,000/s: 200 in 2 ms, capped */
	assert_int_equal(loadgen_picks_per_claim(&p), LOADGEN_STAGE);
	p.max_updates = 100000;		/* 10,000/s: 20 in 2 ms */
	assert_int_equal(loadgen_picks_per_claim(&p), 20);
	p.updates_per_open = 4;		/* 5 picks of 4 */
	assert_int_equal(loadgen_picks_per_claim(&p), 5);
	p.update_time = 0;
	assert_true(loadgen_due(&p, 500) == 0);
	assert_int_equal(loadgen_picks_per_claim(&p), 1);
	knobs_free(&p);
}


/* until_steady: the run offers updates at its rate for up to until_steady
 * s, past max_updates or short of it; 0 keeps max_updates. */
static void
test_limit(void **state)
{
	struct stress_params p;

	(void)state;
	params(&p, 10, 0);
	p.max_updates = 1000;
	p.update_time = 10;
	assert_int_equal(loadgen_limit(&p), 1000);
	p.until_steady = 60;		/* 100/s for 60 s */
	assert_int_equal(loadgen_limit(&p), 6000);
	assert_true(loadgen_due(&p, 6000) == 60);
	p.until_steady = 3;
	assert_int_equal(loadgen_limit(&p), 300);
	p.until_steady = 0.001;		/* at least one update */
	assert_int_equal(loadgen_limit(&p), 1);
	p.until_steady = 31536000;	/* a year at 100/s */
	assert_int_equal(loadgen_limit(&p), 3153600000ULL);
	knobs_free(&p);
}

/* Generators take files from one round-robin cursor, updates_per_open
 * at a time, until max_updates: with 3 files, 2 per open and 12 updates
 * every file gets 4, and the zero file only zeros. */
static void
test_round_robin(void **state)
{
	struct queue_config qc = { .files = 3 };
	struct writer_hooks hooks;
	struct stress_params p;
	struct queue_batch b;
	struct queue_result res;
	struct queue *q;
	struct loadgen *lg;
	uint64_t per_file[3] = { 0 }, zeros = 0;

	(void)state;
	params(&p, 3, 1);		/* file 0 is the zero file */
	p.max_updates = 12;
	p.updates_per_open = 2;
	p.threads = 2;
	p.update_time = 0;
	memset(&hooks, 0, sizeof(hooks));
	assert_non_null(q = queue_create(&qc));
	for (uint32_t i = 0; i < 3; i++)
		queue_file_init(q, i, 1000, true);
	assert_non_null(lg = loadgen_start(q, &p, NULL, 0, &hooks));
	while (!loadgen_finished(lg))
		usleep(1000);
	assert_int_equal(loadgen_generated(lg), 12);
	loadgen_join(lg);
	while (queue_try_take(q, &b, util_now())) {
		struct queue_iter it;
		double v;

		per_file[b.file] += b.count;
		queue_iter_init(&it, &b);
		while (queue_iter_next(&it, &v))
			if (b.file == 0) {
				assert_true(v == 0);
				zeros++;
			} else
				assert_true(v != 0);
		memset(&res, 0, sizeof(res));
		res.written = b.count;
		queue_done(q, &b, &res);
	}
	for (int i = 0; i < 3; i++)
		assert_int_equal(per_file[i], 4);
	assert_int_equal(zeros, 4);
	queue_destroy(q);
	knobs_free(&p);
}

/* What the offered hook saw: the multiples, and the queue's enqueued
 * count at each call. */
struct seen {
	pthread_mutex_t	 mu;
	struct queue	*q;
	uint64_t	 calls, multiples[400], enqueued[400];
};

static void
on_offered(void *arg, uint64_t offered)
{
	struct seen *s = arg;
	struct queue_counters c;

	queue_snapshot(s->q, &c);
	pthread_mutex_lock(&s->mu);
	if (s->calls < 400) {
		s->multiples[s->calls] = offered;
		s->enqueued[s->calls] = c.enqueued;
	}
	s->calls++;
	pthread_mutex_unlock(&s->mu);
}

/* One generator run of max_updates into a fresh queue; the hook's calls
 * in s. */
static void
offer_run(struct stress_params *p, struct seen *s)
{
	struct queue_config qc = { .files = 5 };
	struct writer_hooks hooks;
	struct loadgen *lg;

	memset(&hooks, 0, sizeof(hooks));
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->mu, NULL);
	hooks.offered = on_offered;
	hooks.arg = s;
	assert_non_null(s->q = queue_create(&qc));
	for (uint32_t i = 0; i < 5; i++)
		queue_file_init(s->q, i, 1000, true);
	assert_non_null(lg = loadgen_start(s->q, p, NULL, 0, &hooks));
	while (!loadgen_finished(lg))
		usleep(1000);
	assert_int_equal(loadgen_generated(lg), p->max_updates);
	loadgen_join(lg);
	queue_destroy(s->q);
	pthread_mutex_destroy(&s->mu);
}

/* The offered hook (stress.log's block) runs once per multiple of modulus
 * offered, max_updates / modulus times in all, rounded down; with one
 * generator as the multiple-th update was taken (a staged group is
 * offered in two parts there), with several in any order. */
static void
test_offered_hook(void **state)
{
	struct stress_params p;
	struct seen s;
	bool got[143] = { false };

	(void)state;
	params(&p, 5, 0);
	p.update_time = 0;
	p.max_updates = 1000;
	p.modulus = 100;
	offer_run(&p, &s);
	assert_int_equal(s.calls, 10);
	for (uint64_t k = 0; k < 10; k++) {
		assert_int_equal(s.multiples[k], (k + 1) * 100);
		assert_int_equal(s.enqueued[k], (k + 1) * 100);
	}
	/* 3 generators, picks of 3, modulus 7: a pick straddles multiples */
	p.threads = 3;
	p.updates_per_open = 3;
	p.modulus = 7;
	offer_run(&p, &s);
	assert_int_equal(s.calls, 1000 / 7);
	for (uint64_t k = 0; k < s.calls; k++) {
		assert_int_equal(s.multiples[k] % 7, 0);
		assert_false(got[s.multiples[k] / 7]);
		got[s.multiples[k] / 7] = true;
	}
	p.modulus = 1001;	/* more than max_updates: none */
	offer_run(&p, &s);
	assert_int_equal(s.calls, 0);
	knobs_free(&p);
}

/* A file of text in a fresh memfd, its offset at the end. */
static int
text_fd(const char *text)
{
	int fd = memfd_create("values", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	return fd;
}

/* A passed descriptor is read from its start and closed; an error about
 * it may quote the file, one about a path (root's or stressd.conf's,
 * for a client that may not read it) does not. */
static void
test_read_values(void **state)
{
	char path[] = "/tmp/stressd-values-XXXXXX", err[512];
	double *v;
	size_t n;
	int fd;

	(void)state;
	fd = text_fd("1:5\n# c\n2:U\n3:7.5\n");
	assert_int_equal(loadgen_read_values_fd(fd, "/v", NULL, &v, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_true(v[0] == 5 && isnan(v[1]) && v[2] == 7.5);
	free(v);
	assert_int_equal(fcntl(fd, F_GETFD), -1);	/* closed */

	fd = text_fd("secret-line\n");
	assert_int_equal(loadgen_read_values_fd(fd, "/v", NULL, &v, &n, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "/v: line 1: expected ts:value, got "
	    "'secret-line'");
	assert_true((fd = mkstemp(path)) >= 0);
	assert_int_equal(write(fd, "secret-line\n", 12), 12);
	close(fd);
	assert_int_equal(loadgen_read_values(path, NULL, &v, &n, err,
	    sizeof(err)), -1);
	assert_null(strstr(err, "secret"));
	assert_non_null(strstr(err, "line 1: expected ts:value"));
	/* Open for writing only: refused (and closed), not read. */
	assert_true((fd = open(path, O_WRONLY)) >= 0);
	assert_int_equal(loadgen_read_values_fd(fd, "/w", NULL, &v, &n, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "not open for reading"));
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	assert_true((fd = open(path, O_PATH)) >= 0);
	assert_int_equal(loadgen_read_values_fd(fd, "/p", NULL, &v, &n, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "not open for reading"));
	unlink(path);
	/* Not a regular file. */
	assert_true((fd = open("/dev/null", O_RDONLY)) >= 0);
	assert_int_equal(loadgen_read_values_fd(fd, "/n", NULL, &v, &n, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file"));
	assert_int_equal(fcntl(fd, F_GETFD), -1);
}

/* Under a bound (the room a memory cap leaves): the text and 8 bytes a
 * line must fit, or the read is refused with the numbers; its size alone
 * refuses it before anything is read.  The values are exactly its lines'
 * (a comment counts as a line). */
static void
test_read_values_bound(void **state)
{
	struct loadgen_bound b = { 36, "the room" };
	char err[512];
	double *v = NULL;
	size_t n;
	int fd;

	(void)state;
	/* 12 bytes, 3 lines: 12 + 3 * 8 = 36 bytes */
	fd = text_fd("1:1\n2:2\n3:3\n");
	assert_int_equal(loadgen_read_values_fd(fd, "/b", &b, &v, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 3);
	assert_true(v[0] == 1 && v[2] == 3);
	free(v);
	b.bytes = 35;
	fd = text_fd("1:1\n2:2\n3:3\n");
	assert_int_equal(loadgen_read_values_fd(fd, "/b", &b, &v, &n, err,
	    sizeof(err)), -1);
	assert_null(v);
	assert_int_equal(fcntl(fd, F_GETFD), -1);	/* closed */
	assert_string_equal(err, "/b: 12 bytes of 3 lines need about 0 MiB to "
	    "read (the file and 8 bytes a value), above the room");
	b.bytes = 11;
	fd = text_fd("1:1\n2:2\n3:3\n");
	assert_int_equal(loadgen_read_values_fd(fd, "/b", &b, &v, &n, err,
	    sizeof(err)), -1);
	assert_string_equal(err, "/b: its 12 bytes alone are above the room");
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	/* An unfinished last line is a line: 7 + 2 * 8 = 23 bytes */
	b.bytes = 22;
	fd = text_fd("1:1\n2:2");
	assert_int_equal(loadgen_read_values_fd(fd, "/u", &b, &v, &n, err,
	    sizeof(err)), -1);
	assert_non_null(strstr(err, "7 bytes of 2 lines"));
	b.bytes = 1000;
	fd = text_fd("# c\n\n1:4\n");
	assert_int_equal(loadgen_read_values_fd(fd, "/c", &b, &v, &n, err,
	    sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_true(v[0] == 4);
	free(v);
}

/* The client owns a passed file and can grow it after stressd looked at
 * its size: the bound is on what is read.  fstat is wrapped (the test is
 * linked with --wrap=fstat) so that the file grows to 1 GiB, sparse,
 * right after stressd's fstat of it. */
static int grow_fd = -1;

int	__real_fstat(int, struct stat *);
int	__wrap_fstat(int, struct stat *);

int
__wrap_fstat(int fd, struct stat *st)
{
	int rv = __real_fstat(fd, st);

	if (fd == grow_fd) {
		grow_fd = -1;
		assert_int_equal(ftruncate(fd, 1L << 30), 0);
	}
	return rv;
}

static void
test_read_values_grown(void **state)
{
	char err[512];
	double *v = NULL;
	size_t n;
	int fd;

	(void)state;
	fd = text_fd("1:5\n2:6\n");
	grow_fd = fd;
	assert_int_equal(loadgen_read_values_fd(fd, "/g", NULL, &v, &n, err,
	    sizeof(err)), -1);
	assert_int_equal(grow_fd, -1);		/* the wrap ran */
	assert_null(v);
	if (strstr(err, "larger than") == NULL)
		fail_msg("a file grown past the bound: '%s'", err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_files),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_read_values),
		cmocka_unit_test(test_read_values_grown),
		cmocka_unit_test(test_read_values_bound),
		cmocka_unit_test(test_pacing),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_round_robin),
		cmocka_unit_test(test_offered_hook),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
