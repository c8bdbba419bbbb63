/* The load generators: threads that play the collector, picking files
 * round-robin and offering updates to the queue (or writing them directly
 * when use_queue is off), paced over update_time. */
#ifndef STRESSD_LOADGEN_H
#define STRESSD_LOADGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "knobs.h"
#include "queue.h"
#include "writer.h"

struct loadgen;

/*
 * A generator stages up to this many picks (file, updates_per_open) and
 * offers them to the queue under one lock acquisition: it cuts the lock
 * and wake-up traffic per update by this factor.  Staged updates are
 * offered before the generator sleeps for pacing, so a paced run is
 * delayed by at most the time to pick this many updates.
 */
#define LOADGEN_STAGE	64

/* The most a read of an update_file may hold at once (its text and 8
 * bytes a line), and what that is, for the message ("the 96 MiB a run
 * may use: ..."). */
struct loadgen_bound {
	uint64_t	 bytes;
	const char	*why;
};

/* Values of an update_file (ts:value lines; the ts part is ignored),
 * read under b (NULL: no bound but the file's 64 MiB).  0, or -1 with
 * "line N: ..." in err, which does not quote the file: its path came from
 * root or from stressd.conf, for a client that may not be allowed to read
 * it. */
int	loadgen_read_values(const char *path, const struct loadgen_bound *b,
	    double **values, size_t *n, char *err, size_t errlen);
/* The same from fd, a descriptor the client passed (closed here, however
 * it goes) and read from its start; name is the path it gave.  err may
 * quote a line: the client could read the file. */
int	loadgen_read_values_fd(int fd, const char *name,
	    const struct loadgen_bound *b, double **values, size_t *n,
	    char *err, size_t errlen);

/* Is file n a zero file (all its values 0)? */
bool	loadgen_is_zero_file(const struct stress_params *p, uint32_t n);
/* The value of the k-th update of file n in this run. */
double	loadgen_value(const struct stress_params *p, const double *replay,
	    size_t nreplay, uint32_t n, uint64_t k);

/* Pacing: the n-th update of the run (from 1) is not issued before this
 * many seconds after the load started (0: update_time 0, flat out). */
double	loadgen_due(const struct stress_params *p, uint64_t n);
/* The updates the run offers in all: max_updates, or with until_steady
 * as many as its rate gives in until_steady s (at least 1). */
uint64_t loadgen_limit(const struct stress_params *p);
/* How many picks of updates_per_open a generator claims at once: those
 * due within 2 ms, 1 to LOADGEN_STAGE (1 when flat out). */
uint64_t loadgen_picks_per_claim(const struct stress_params *p);

/* Start p->threads generators now; replay values are borrowed.  hooks
 * serve the no-queue writes, and hooks->offered (if set) is called once
 * per multiple of p->modulus updates offered (stress.log's blocks). */
struct loadgen	*loadgen_start(struct queue *q, const struct stress_params *p,
		    const double *replay, size_t nreplay,
		    const struct writer_hooks *hooks);
/* Ask the generators to stop at once (does not wait). */
void		 loadgen_stop(struct loadgen *lg);
bool		 loadgen_finished(struct loadgen *lg);
/* A generator inside one librrd call (no-queue mode) for over limit s. */
bool		 loadgen_stuck(struct loadgen *lg, double limit);
uint64_t	 loadgen_generated(struct loadgen *lg);
/* Join the threads and free; loadgen_stop first unless finished. */
void		 loadgen_join(struct loadgen *lg);

#endif
