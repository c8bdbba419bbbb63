/* Unit tests of daemon/stats.c: the counter table's shape, and that every
 * output it feeds (stats, samples.csv, stress.log, metrics.rrd) takes its
 * rows from it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <rrd.h>

#include "metricsrrd.h"
#include "sampler.h"
#include "stats.h"
#include "stresslog.h"

/* Every row reads a whole uint64_t inside struct queue_counters. */
static void
test_offsets(void **state)
{
	(void)state;
	assert_true(stats_ncounters > 0);
	for (size_t i = 0; i < stats_ncounters; i++) {
		const struct stats_counter *k = &stats_counters[i];

		assert_true(k->offset % sizeof(uint64_t) == 0);
		assert_true(k->offset + sizeof(uint64_t) <=
		    sizeof(struct queue_counters));
		assert_true(k->kind == STATS_GAUGE ||
		    k->kind == STATS_COUNTER);
		assert_non_null(k->help);
		assert_non_null(k->prom);
	}
}

/* stats_value reads the field the row names. */
static void
test_value(void **state)
{
	struct queue_counters c;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.significant_ops_pending = 7;
	c.promotion_count = 9;
	for (size_t i = 0; i < stats_ncounters; i++) {
		const struct stats_counter *k = &stats_counters[i];
		uint64_t want = strcmp(k->name, "significant_ops_pending") ==
		    0 ? 7 : strcmp(k->name, "promotion_count") == 0 ? 9 : 0;

		assert_int_equal(stats_value(k, &c), want);
	}
}

static void
assert_unique(const char *(*get)(const struct stats_counter *))
{
	for (size_t i = 0; i < stats_ncounters; i++)
		for (size_t j = i + 1; j < stats_ncounters; j++) {
			const char *a = get(&stats_counters[i]);
			const char *b = get(&stats_counters[j]);

			if (a != NULL && b != NULL)
				assert_string_not_equal(a, b);
		}
}

static const char *name_of(const struct stats_counter *k) { return k->name; }
static const char *prom_of(const struct stats_counter *k) { return k->prom; }
static const char *log_of(const struct stats_counter *k) { return k->log_name; }
static const char *rrd_of(const struct stats_counter *k) { return k->rrd_ds; }

static void
test_unique(void **state)
{
	(void)state;
	assert_unique(name_of);
	assert_unique(prom_of);
	assert_unique(log_of);
	assert_unique(rrd_of);
}

/* A QS name goes with a QS line and the other way round; a rate only on
 * a row that is in stress.log. */
static void
test_log_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < stats_ncounters; i++) {
		const struct stats_counter *k = &stats_counters[i];

		assert_true(k->log_line >= 0 && k->log_line <= 2);
		assert_true((k->log_name != NULL) == (k->log_line != 0));
		if (k->log_rate != NULL)
			assert_non_null(k->log_name);
	}
}

/* samples.csv's columns are 1..N without a gap or a twin, N fits. */
static void
test_csv_columns(void **state)
{
	const struct stats_counter *cols[STATS_CSV_MAX];
	int seen[STATS_CSV_MAX + 1] = { 0 };
	size_t n = 0, ncols;

	(void)state;
	memset(cols, 0, sizeof(cols));
	for (size_t i = 0; i < stats_ncounters; i++) {
		int col = stats_counters[i].csv_col;

		assert_true(col >= 0 && col <= STATS_CSV_MAX);
		if (col > 0) {
			assert_int_equal(seen[col], 0);
			seen[col] = 1;
			n++;
		}
	}
	for (size_t c = 1; c <= n; c++)
		assert_int_equal(seen[c], 1);
	ncols = stats_csv_columns(cols);
	assert_int_equal(ncols, n);
	for (size_t c = 0; c < ncols; c++)
		assert_int_equal(cols[c]->csv_col, (int)c + 1);
	/* metrics.rrd takes its data sources in csv order. */
	for (size_t i = 0; i < stats_ncounters; i++)
		if (stats_counters[i].rrd_ds != NULL)
			assert_true(stats_counters[i].csv_col > 0);
}

/* `stats` has every row, with its value. */
static void
test_json(void **state)
{
	struct queue_counters c;
	struct stats_rates z;
	json_object *o, *v;

	(void)state;
	memset(&c, 0, sizeof(c));
	memset(&z, 0, sizeof(z));
	c.errors = 3;
	o = stats_to_json(&c, &z, &z);
	for (size_t i = 0; i < stats_ncounters; i++) {
		assert_true(json_object_object_get_ex(o,
		    stats_counters[i].name, &v));
		assert_int_equal(json_object_get_int64(v),
		    (int64_t)stats_value(&stats_counters[i], &c));
	}
	assert_true(json_object_object_get_ex(o, "rates", &v));
	assert_int_equal(json_object_object_length(o), stats_ncounters + 1);
	json_object_put(o);
}

/* samples.csv's header: elapsed_s, then the csv rows' names by column. */
static void
test_csv_header(void **state)
{
	const struct stats_counter *cols[STATS_CSV_MAX];
	struct sampler s;
	struct queue_counters c;
	char path[] = "/tmp/stats-test.XXXXXX", line[1024], want[1024];
	size_t ncols = stats_csv_columns(cols), len;
	FILE *fp;
	int fd;

	(void)state;
	len = (size_t)snprintf(want, sizeof(want), "elapsed_s");
	for (size_t i = 0; i < ncols; i++)
		len += (size_t)snprintf(want + len, sizeof(want) - len, ",%s",
		    cols[i]->name);
	snprintf(want + len, sizeof(want) - len, "\n");
	assert_int_equal(sampler_init(&s), 0);
	memset(&c, 0, sizeof(c));
	c.updates_completed = 5;
	sampler_add(&s, 1.5, &c);
	assert_true((fd = mkstemp(path)) != -1);
	close(fd);
	assert_int_equal(sampler_write_csv(&s, path), 0);
	assert_non_null(fp = fopen(path, "r"));
	assert_non_null(fgets(line, sizeof(line), fp));
	assert_string_equal(line, want);
	assert_non_null(fgets(line, sizeof(line), fp));
	/* Every column 0 but updates_completed; built from the table,
	 * which grows. */
	len = (size_t)snprintf(want, sizeof(want), "1.500");
	for (size_t i = 0; i < ncols; i++)
		len += (size_t)snprintf(want + len, sizeof(want) - len, ",%d",
		    strcmp(cols[i]->name, "updates_completed") == 0 ? 5 : 0);
	snprintf(want + len, sizeof(want) - len, "\n");
	assert_string_equal(line, want);
	fclose(fp);
	unlink(path);
	sampler_free(&s);
}

/* metrics.rrd: the rows' rrd_ds names in csv order, then rrdc_queue, a
 * counter as DERIVE. */
static void
test_metrics_rrd(void **state)
{
	static const char *const want[] = {
		"sig_pending", "total_pending", "in_flight", "completed",
		"rrdc_queue"
	};
	char dir[] = "/tmp/stats-rrd.XXXXXX", path[256], err[512];
	char key[64];
	struct queue_counters c;
	rrd_info_t *info, *i;
	int found = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/metrics.rrd", dir);
	assert_int_equal(metricsrrd_create(path, 1000000000, err,
	    sizeof(err)), 0);
	memset(&c, 0, sizeof(c));
	c.significant_ops_pending = 4;
	assert_int_equal(metricsrrd_update(path, 1000000001, &c, UINT64_MAX,
	    err, sizeof(err)), 0);
	assert_non_null(info = rrd_info_r(path));
	for (size_t d = 0; d < sizeof(want) / sizeof(want[0]); d++) {
		snprintf(key, sizeof(key), "ds[%s].index", want[d]);
		for (i = info; i != NULL; i = i->next)
			if (strcmp(i->key, key) == 0) {
				assert_int_equal(i->value.u_cnt, d);
				found++;
			}
		snprintf(key, sizeof(key), "ds[%s].type", want[d]);
		for (i = info; i != NULL; i = i->next)
			if (strcmp(i->key, key) == 0)
				assert_string_equal(i->value.u_str,
				    strcmp(want[d], "completed") == 0 ?
				    "DERIVE" : "GAUGE");
	}
	assert_int_equal(found, 5);
	for (i = info; i != NULL; i = i->next)
		if (strncmp(i->key, "ds[", 3) == 0 &&
		    strstr(i->key, "].index") != NULL)
			found--;
	assert_int_equal(found, 0);	/* no other data source */
	rrd_info_free(info);
	unlink(path);
	rmdir(dir);
}

static double
one(void *ctx, uint32_t file, uint64_t k)
{
	(void)ctx;
	(void)file;
	(void)k;
	return 1;
}

/* stress.log's QS lines 1 and 2: the rows of each line in table order,
 * promotionRate just before promotionCount. */
static void
test_stresslog(void **state)
{
	struct queue_config qc = { .files = 2 };
	struct stress_params p;
	struct stresslog *sl;
	struct dist copy, kept = { .e = NULL };
	struct queue *q;
	char path[] = "/tmp/stats-log.XXXXXX", line[1024];
	bool one_seen = false, two_seen = false;
	FILE *fp;
	int fd;

	(void)state;
	knobs_defaults(&p);
	assert_non_null(q = queue_create(&qc));
	queue_file_init(q, 0, 1000, true);
	queue_file_init(q, 1, 1000, true);
	queue_push(q, 0, 2, one, NULL);
	queue_push(q, 1, 1, one, NULL);
	assert_true((fd = mkstemp(path)) != -1);
	close(fd);
	assert_non_null(sl = stresslog_open(path, 1, &p, 0));
	stresslog_block(sl, q);
	/* The block's significantOpsPending, as the one-liner reads it. */
	assert_int_equal(stresslog_sig_copy(sl, &copy), 0);
	assert_int_equal(copy.count, 1);
	assert_int_equal(copy.max, 3);
	dist_free(&copy);
	stresslog_block(sl, q);
	stresslog_close(sl, &kept);
	assert_int_equal(kept.count, 2);
	assert_true(dist_average(&kept) == 3.0);
	dist_free(&kept);
	assert_non_null(fp = fopen(path, "r"));
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (strncmp(line, "QS:\tt", 5) == 0) {
			assert_string_equal(line, "QS:\ttotalOperationsPending"
			    "=3, significantOpsPending=3, "
			    "filesWithSignificantWork=2, "
			    "filesWithInsignificantWork=0\n");
			one_seen = true;
		} else if (strncmp(line, "QS:\t, createsCompleted=", 23) == 0) {
			assert_string_equal(line, "QS:\t, createsCompleted=0, "
			    "updatesCompleted=0, errors=0, promotionRate=0.00, "
			    "promotionCount=0\n");
			two_seen = true;
		}
	}
	assert_true(one_seen && two_seen);
	fclose(fp);
	unlink(path);
	queue_destroy(q);
	knobs_free(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offsets),
		cmocka_unit_test(test_value),
		cmocka_unit_test(test_unique),
		cmocka_unit_test(test_log_rows),
		cmocka_unit_test(test_csv_columns),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_csv_header),
		cmocka_unit_test(test_metrics_rrd),
		cmocka_unit_test(test_stresslog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
