/*
 * Foundation figures of the queue, with the writers replaced by a null sink:
 * (a) enqueue capacity: generator threads (the daemon's own loadgen) offer
 *     updates flat out while null-sink writers take and return batches;
 * (b) memory: bytes the heap grows by per pending update with 1,000,000
 *     updates pending, per-file state included.
 * Prints one JSON line.
 */
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "knobs.h"
#include "loadgen.h"
#include "queue.h"
#include "util.h"
#include "writer.h"

static double
synthetic(void *ctx, uint32_t file, uint64_t k)
{
	return loadgen_value(ctx, NULL, 0, file, k);
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "files", required_argument, NULL, 'f' },
		{ "threads", required_argument, NULL, 't' },
		{ "write-threads", required_argument, NULL, 'w' },
		{ "updates", required_argument, NULL, 'u' },
		{ "pending", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	struct stress_params p;
	struct queue_config qc = { 0 };
	struct queue_counters c;
	struct queue *q;
	struct writer_pool *wp;
	struct loadgen *lg;
	uint64_t pending = 1000000;
	struct mallinfo2 mi;
	size_t before, after;
	double t0, t1;
	int ch;

	knobs_defaults(&p);
	p.update_time = 0;
	p.max_updates = 10000000;
	p.zero_files = 0;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'f': p.files = strtoull(optarg, NULL, 10); break;
		case 't': p.threads = strtoull(optarg, NULL, 10); break;
		case 'w': p.write_threads = strtoull(optarg, NULL, 10); break;
		case 'u': p.max_updates = strtoull(optarg, NULL, 10); break;
		case 'p': pending = strtoull(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: enqueue [--files N] [--threads G] "
			    "[--write-threads W] [--updates M] [--pending P]\n");
			return 2;
		}
	}
	if (p.files == 0 || p.threads == 0 || p.write_threads == 0) {
		fprintf(stderr, "enqueue: counts must be at least 1\n");
		return 2;
	}
	qc.files = (uint32_t)p.files;

	/* (a) capacity: real generators, null-sink writers. */
	q = queue_create(&qc);
	for (uint32_t i = 0; i < qc.files; i++)
		queue_file_init(q, i, (int64_t)p.start, true);
	wp = writer_pool_start(q, &p, (unsigned)p.write_threads,
	    &writer_null_sink, NULL);
	t0 = util_now();
	lg = loadgen_start(q, &p, NULL, 0, NULL);
	while (!loadgen_finished(lg))
		usleep(1000);
	t1 = util_now();
	loadgen_join(lg);
	queue_close(q);
	writer_pool_join(wp);
	queue_snapshot(q, &c);
	queue_destroy(q);
	if (c.updates_completed != p.max_updates) {
		fprintf(stderr, "enqueue: %llu of %llu updates came back\n",
		    (unsigned long long)c.updates_completed,
		    (unsigned long long)p.max_updates);
		return 1;
	}

	/* (b) memory with `pending` updates waiting and nobody writing.
	 * Blocks glibc serves from mmap (the 1 MiB slabs, whenever the
	 * threshold is below them, as stressd sets it) are in hblkhd, the
	 * rest in uordblks: both count. */
	mi = mallinfo2();
	before = mi.uordblks + mi.hblkhd;
	q = queue_create(&qc);
	for (uint64_t i = 0; i < pending; i++)
		queue_push(q, (uint32_t)(i % qc.files), 1, synthetic, &p);
	mi = mallinfo2();
	after = mi.uordblks + mi.hblkhd;
	queue_snapshot(q, &c);
	queue_destroy(q);

	printf("{\"files\":%llu,\"generator_threads\":%llu,"
	    "\"null_writer_threads\":%llu,\"updates\":%llu,\"seconds\":%.3f,"
	    "\"enqueue_per_s\":%.0f,\"pending\":%llu,"
	    "\"bytes_per_pending_update\":%.2f}\n",
	    (unsigned long long)p.files, (unsigned long long)p.threads,
	    (unsigned long long)p.write_threads,
	    (unsigned long long)p.max_updates, t1 - t0,
	    (double)p.max_updates / (t1 - t0),
	    (unsigned long long)c.total_operations_pending,
	    (double)(after - before) / (double)c.total_operations_pending);
	knobs_free(&p);
	return 0;
}
