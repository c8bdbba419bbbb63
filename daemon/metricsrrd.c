#include <stdio.h>
#include <rrd.h>

#include "metricsrrd.h"
#include "rrdfile.h"

int
metricsrrd_create(const char *path, time_t start, char *err, size_t errlen)
{
	/* Heartbeat 120 s: the longest sample interval is 60 s. */
	static const char *argv[] = {
		"DS:sig_pending:GAUGE:120:0:U",
		"DS:total_pending:GAUGE:120:0:U",
		"DS:in_flight:GAUGE:120:0:U",
		"DS:completed:DERIVE:120:0:U",
		"DS:rrdc_queue:GAUGE:120:0:U",
		"RRA:AVERAGE:0.5:1:21600",
		"RRA:MAX:0.5:10:8640",
		"RRA:AVERAGE:0.5:60:10080",
		"RRA:MAX:0.5:60:10080",
	};

	rrd_clear_error();
	if (rrd_create_r(path, 1, start - 1,
	    (int)(sizeof(argv) / sizeof(argv[0])), argv) != 0) {
		rrdfile_error(path, err, errlen);
		return -1;
	}
	return 0;
}

int
metricsrrd_update(const char *path, time_t t, const struct queue_counters *c,
    uint64_t rrdc_queue, char *err, size_t errlen)
{
	char line[200], rq[24] = "U";
	const char *argv[1] = { line };

	if (rrdc_queue != UINT64_MAX)
		snprintf(rq, sizeof(rq), "%llu", (unsigned long long)rrdc_queue);
	snprintf(line, sizeof(line), "%lld:%llu:%llu:%llu:%llu:%s",
	    (long long)t,
	    (unsigned long long)c->significant_ops_pending,
	    (unsigned long long)c->total_operations_pending,
	    (unsigned long long)c->in_flight,
	    (unsigned long long)c->updates_completed, rq);
	rrd_clear_error();
	if (rrd_update_r(path, NULL, 1, argv) != 0) {
		rrdfile_error(path, err, errlen);
		return -1;
	}
	return 0;
}
