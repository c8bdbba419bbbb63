/* A run's memory needs against the cap's room; see memneed.h. */
#include <stdio.h>

#include "log.h"
#include "memcap.h"
#include "memneed.h"
#include "queue.h"

#define MIB	(1024.0 * 1024.0)

void
memneed_init(struct memneed *m)
{
	m->room = 0;
	m->why[0] = '\0';
	m->capped = memcap_room(&m->room, m->why, sizeof(m->why));
}

uint64_t
memneed_file_bytes(void)
{
	/* The baseline (run setup's last timestamp of each file) is an
	 * int64_t beside the queue's entry. */
	return (uint64_t)queue_file_bytes() + sizeof(int64_t);
}

int
memneed_check_files(const struct memneed *m, uint64_t files, char *err,
    size_t len)
{
	uint64_t need = files * memneed_file_bytes();

	if (!m->capped || need <= m->room)
		return 0;
	snprintf(err, len, "files %llu: the file table needs about %.0f MiB "
	    "(%llu bytes a file), above %s", (unsigned long long)files,
	    (double)need / MIB,
	    (unsigned long long)memneed_file_bytes(), m->why);
	return -1;
}

/* The largest of what r holds beside the queue: the knob to name when
 * they leave it no room. */
static const char *
largest(uint64_t table, uint64_t values, uint64_t batches)
{
	if (batches > table && batches > values)
		return "write_threads";
	return values > table ? "update_file" : "files";
}

int
memneed_check_load(const struct memneed *m, const struct memneed_run *r,
    uint64_t *queue_mib, bool fit, const char **field, char *err, size_t len)
{
	uint64_t table = r->files * memneed_file_bytes();
	uint64_t values = r->nvalues * sizeof(double);
	uint64_t batches = r->writers * r->writer_bytes, rest, left;
	char held[320], vals[128] = "";

	if (!m->capped)
		return 0;
	/* What the run holds beside its queue, for every message. */
	if (r->nvalues > 0)
		snprintf(vals, sizeof(vals), ", the update file's %llu values "
		    "(%.0f MiB, held through the run)",
		    (unsigned long long)r->nvalues, (double)values / MIB);
	snprintf(held, sizeof(held), "the table of %llu files (%.0f MiB)%s and "
	    "the batches of %llu writers (%.0f MiB at most)",
	    (unsigned long long)r->files, (double)table / MIB, vals,
	    (unsigned long long)r->writers, (double)batches / MIB);
	rest = table + values + batches;
	left = rest < m->room ? (m->room - rest) >> 20 : 0;
	if (left == 0) {
		*field = largest(table, values, batches);
		snprintf(err, len, "%s: %s leave less than 1 MiB for the queue "
		    "(queue_memory_max) of %s", *field, held, m->why);
		return -1;
	}
	if (*queue_mib != 0 && *queue_mib <= left)
		return 0;
	if (fit) {
		log_info("queue_memory_max %llu MiB (the default, lowered): what "
		    "%s leave of %s", (unsigned long long)left, held, m->why);
		*queue_mib = left;	/* the default, made to fit */
		return 0;
	}
	*field = "queue_memory_max";
	if (*queue_mib == 0)
		snprintf(err, len, "queue_memory_max 0 (unbounded) under a "
		    "memory cap: give at most %llu (MiB), what %s leave of %s",
		    (unsigned long long)left, held, m->why);
	else
		snprintf(err, len, "queue_memory_max %llu MiB, beside %s, is "
		    "above %s: give at most %llu", (unsigned long long)*queue_mib,
		    held, m->why, (unsigned long long)left);
	return -1;
}
