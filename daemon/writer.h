/* The writer pool: threads that take a file's pending work from the queue
 * and persist it with librrd, one rrd_update_r call per batch. */
#ifndef STRESSD_WRITER_H
#define STRESSD_WRITER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "confine.h"
#include "knobs.h"
#include "queue.h"
#include "rrdfile.h"

/*
 * A batch larger than this is written with several rrd_update_r calls of
 * at most this many values (in time order), so one deep file cannot make a
 * writer format an unbounded argv.  The queue never holds so many values
 * for one file in any run below a 10000-deep queue per file.
 */
#define WRITER_MAX_VALUES_PER_CALL	10000
/* The most one writer's batch buffers may hold (WRITER_MAX_VALUES_PER_CALL
 * values of p's data sources, formatted, and their argv): a run's
 * memory beside its queue (memneed.h). */
uint64_t	writer_batch_bytes(const struct stress_params *p);
/* --log-level debug: an update or fdatasync call slower than this is
 * logged, at most one line every WRITER_SLOW_LOG_S (the first at once). */
#define WRITER_SLOW_CALL_MS		100
#define WRITER_SLOW_LOG_S		10

/* What the writers tell their owner; any hook may be NULL. */
struct writer_hooks {
	/* a batch failed: msg names the file and says why */
	void	(*error)(void *arg, enum rrdfile_kind kind, const char *msg);
	/* Called by the generators, not the writers: their offers reached
	 * another multiple of modulus updates (offered, the multiple), once
	 * per multiple, by the generator whose offer reached it, at once */
	void	(*offered)(void *arg, uint64_t offered);
	/* one rrd_update_r call took ns */
	void	(*call_time)(void *arg, uint64_t ns);
	/* a batch landed ns after its oldest value was queued */
	void	(*persisted)(void *arg, uint64_t ns);
	/* sync=data: the fdatasync after a batch took ns; err NULL, or a
	 * message naming the file when it failed */
	void	(*sync_time)(void *arg, uint64_t ns, const char *err);
	void	*arg;
	/* Not a hook: the run's directory, held (confine.h).  Set, every
	 * file is reached beneath it: librrd gets /proc/self/fd paths, other
	 * sinks the path after a check through it.  NULL: paths as named. */
	const struct confine_dir *dir;
};

/*
 * Where a writer's calls go: the run's target (librrd on the files, or
 * the writer's own connection to an rrdcached) unless a test puts a sink
 * in between to count the calls and read what each would write.  Each
 * call gets the writer's connection (arg for a given sink).  create has
 * rrdfile_create's contract; update writes argc values and returns 0, or
 * -1 with err (naming path) and *kind set; *done: the values written,
 * the first ones.  update runs under the writer's SIGBUS/SIGFPE guard.
 */
struct writer_sink {
	int	(*create)(void *conn, const struct stress_params *p,
		    const char *path, time_t last_up, enum rrdfile_kind *kind,
		    char *err, size_t errlen);
	int	(*update)(void *conn, const char *path, int argc,
		    const char **argv, int *done, enum rrdfile_kind *kind,
		    char *err, size_t errlen);
	void	*arg;
};

/* Takes and returns batches as written in one call each, without
 * formatting or touching disk: the queue alone (benchmarks). */
extern const struct writer_sink writer_null_sink;

struct rrdcc;

/* Per-thread formatting buffers and the last error. */
struct writer_ctx {
	const struct writer_hooks	*hooks;
	const struct writer_sink	*sink;		/* the run's target */
	void				*conn;		/* the sink's first argument */
	struct rrdcc			*rrdcc;		/* target rrdcached */
	const struct stress_params	*p;
	char				*buf;
	size_t				 buflen;
	const char			**argv;
	size_t				 argvcap;
	char				 path[4200];	/* as the user names it */
	char				 lib[CONFINE_FD_PATH_MAX]; /* librrd's */
	int				 file_fd;	/* of lib; -1: none */
	char				 err[3072];
	enum rrdfile_kind		 kind;		/* of err */
	/* Where the pool sees since when (monotonic ns) this writer has been
	 * inside librrd, 0 when it is not; NULL outside the pool. */
	atomic_uint_fast64_t		*busy_since;
};

void	writer_ctx_init(struct writer_ctx *w, const struct stress_params *p,
	    const struct writer_hooks *hooks);
void	writer_ctx_free(struct writer_ctx *w);
/* Create (if the batch asks) and update one file, filling res for
 * queue_done.  On failure w->err holds librrd's message with the path and
 * w->kind its kind.  A SIGBUS inside librrd (the file shrank under its
 * map) fails the batch instead of the process: see writer.c.
 * A failed create skips the updates (they count failed, with no second
 * error); a failed call of a split batch leaves its later values unwritten. */
void	writer_write_batch(struct writer_ctx *w, const struct queue_batch *b,
	    struct queue_result *res);
/* True when res records a failure (w->err says which). */
bool	writer_failed(const struct queue_batch *b,
	    const struct queue_result *res);


/* Report a written batch to the hooks and return it to the queue (shared
 * by the pool and the generators' no-queue path). */
void	writer_finish(struct queue *q, struct queue_batch *b,
	    const struct queue_result *res, const struct writer_ctx *w,
	    const struct writer_hooks *hooks);

struct writer_pool;

/* sink NULL: the run's target; &writer_null_sink: no writes (benchmarks). */
struct writer_pool *writer_pool_start(struct queue *q,
	    const struct stress_params *p, unsigned nthreads,
	    const struct writer_sink *sink, const struct writer_hooks *hooks);
/* True when some writer has been inside one librrd call for longer than
 * limit seconds (the systemd watchdog must not be fed then). */
bool	writer_pool_stuck(struct writer_pool *wp, double limit);
/* The same over any busy_since slots (generators, the setup thread). */
bool	writer_busy_stuck(atomic_uint_fast64_t *slots, size_t n, double limit);
/* The clock busy_since slots use (monotonic ns). */
uint64_t writer_busy_now(void);
/* Join every writer; call after queue_close(). */
void	writer_pool_join(struct writer_pool *wp);

#endif
