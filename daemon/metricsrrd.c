#include <stdio.h>
#include <rrd.h>

#include "metricsrrd.h"
#include "rrdfile.h"
#include "stats.h"

/* metrics.rrd's data sources: the counter table's rows that name one, in
 * samples.csv order, then rrdcached's QueueLength (ds[i] NULL).  Returns
 * how many. */
static size_t
ds_rows(const struct stats_counter *ds[METRICSRRD_MAX_DS])
{
	const struct stats_counter *cols[STATS_CSV_MAX];
	size_t ncols = stats_csv_columns(cols), n = 0;

	for (size_t i = 0; i < ncols && n < METRICSRRD_MAX_DS - 1; i++)
		if (cols[i]->rrd_ds != NULL)
			ds[n++] = cols[i];
	ds[n++] = NULL;
	return n;
}

int
metricsrrd_create(const char *path, time_t start, char *err, size_t errlen)
{
	/* Heartbeat 120 s: the longest sample interval is 60 s. */
	static const char *const rras[] = {
		"RRA:AVERAGE:0.5:1:21600",
		"RRA:MAX:0.5:10:8640",
		"RRA:AVERAGE:0.5:60:10080",
		"RRA:MAX:0.5:60:10080",
	};
	const struct stats_counter *ds[METRICSRRD_MAX_DS];
	char defs[METRICSRRD_MAX_DS][64];
	const char *argv[METRICSRRD_MAX_DS + 4];
	size_t nds = ds_rows(ds), argc = 0;

	for (size_t i = 0; i < nds; i++) {
		snprintf(defs[i], sizeof(defs[i]), "DS:%s:%s:120:0:U",
		    ds[i] != NULL ? ds[i]->rrd_ds : "rrdc_queue",
		    ds[i] != NULL && ds[i]->kind == STATS_COUNTER ? "DERIVE" :
		    "GAUGE");
		argv[argc++] = defs[i];
	}
	for (size_t i = 0; i < sizeof(rras) / sizeof(rras[0]); i++)
		argv[argc++] = rras[i];
	rrd_clear_error();
	if (rrd_create_r(path, 1, start - 1, (int)argc, argv) != 0) {
		rrdfile_error(path, err, errlen);
		return -1;
	}
	rrdfile_set_mode(path);
	return 0;
}

int
metricsrrd_update(const char *path, time_t t, const struct queue_counters *c,
    uint64_t rrdc_queue, char *err, size_t errlen)
{
	const struct stats_counter *ds[METRICSRRD_MAX_DS];
	char line[40 + 24 * METRICSRRD_MAX_DS];
	const char *argv[1] = { line };
	size_t nds = ds_rows(ds), len;

	len = (size_t)snprintf(line, sizeof(line), "%lld", (long long)t);
	for (size_t i = 0; i < nds && len < sizeof(line); i++) {
		uint64_t v = ds[i] != NULL ? stats_value(ds[i], c) : rrdc_queue;

		if (v == UINT64_MAX)
			len += (size_t)snprintf(line + len, sizeof(line) - len,
			    ":U");
		else
			len += (size_t)snprintf(line + len, sizeof(line) - len,
			    ":%llu", (unsigned long long)v);
	}
	rrd_clear_error();
	if (rrd_update_r(path, NULL, 1, argv) != 0) {
		rrdfile_error(path, err, errlen);
		return -1;
	}
	return 0;
}
