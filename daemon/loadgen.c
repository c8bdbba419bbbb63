#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "loadgen.h"
#include "cpustat.h"
#include "log.h"
#include "util.h"

struct loadgen {
	struct queue			*q;
	const struct stress_params	*p;
	const double			*replay;
	size_t				 nreplay;
	struct writer_hooks		 hooks;
	double				 start;		/* monotonic */
	uint64_t			 limit;		/* loadgen_limit */
	pthread_t			*threads;
	unsigned			 nthreads;
	pthread_mutex_t			 mu;
	pthread_cond_t			 cv;		/* stop wakes pacers */
	atomic_bool			 stop;
	atomic_uint_fast64_t		 cursor;	/* next file, round robin */
	atomic_uint_fast64_t		 claimed;	/* updates handed out */
	atomic_uint_fast64_t		 generated;	/* updates offered */
	atomic_uint			 running;
	atomic_uint			 next_slot;
	atomic_uint_fast64_t		*busy;	/* per generator, no-queue writes */
};

/* An update_file larger than this is refused rather than read into memory
 * (8 bytes a value are kept; 64 MiB of text is millions of values). */
#define UPDATE_FILE_MAX	(64L * 1024 * 1024)
#define MIB		(1024.0 * 1024.0)

/* What reading len bytes of lines lines holds at its peak: the text and,
 * beside it, a value for every line. */
static uint64_t
read_need(size_t len, size_t lines)
{
	return (uint64_t)len + (uint64_t)lines * sizeof(double);
}

/* Refuse a read that would hold more than the bound; 0, or -1 with err. */
static int
check_bound(const struct loadgen_bound *b, const char *name, size_t len,
    size_t lines, char *err, size_t errlen)
{
	if (b == NULL || read_need(len, lines) <= b->bytes)
		return 0;
	if (lines == 0)	/* not read yet: its size alone is too much */
		snprintf(err, errlen, "%s: its %zu bytes alone are above %s",
		    name, len, b->why);
	else
		snprintf(err, errlen, "%s: %zu bytes of %zu lines need about "
		    "%.0f MiB to read (the file and %zu bytes a value), above "
		    "%s", name, len, lines, (double)read_need(len, lines) / MIB,
		    sizeof(double), b->why);
	return -1;
}

/* Lines in buf: its newlines, and an unfinished last line. */
static size_t
count_lines(const char *buf, size_t len)
{
	size_t n = 0;

	for (const char *p = buf, *end = buf + len; p < end; p++) {
		if ((p = memchr(p, '\n', (size_t)(end - p))) == NULL)
			break;
		n++;
	}
	return n + (len > 0 && buf[len - 1] != '\n');
}

/*
 * The ts:value lines of fp (at most cap of them: the lines counted in the
 * text, closed here), named name in messages.  A line that does not
 * parse is quoted only when quote says the client could read the file.
 */
static int
parse_values(FILE *fp, const char *name, bool quote, double *v, size_t cap,
    size_t *n, char *err, size_t errlen)
{
	char *line = NULL;
	size_t lineno = 0, linecap = 0;
	ssize_t len;

	while ((len = getline(&line, &linecap, fp)) != -1) {
		char *colon, *end, *s;
		double d;

		lineno++;
		if (strlen(line) != (size_t)len)
			goto nul;
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		if ((colon = strchr(line, ':')) == NULL)
			goto bad;
		s = colon + 1;
		if (strcmp(s, "U") == 0)
			d = NAN;	/* unknown, written back as U */
		else {
			errno = 0;
			d = strtod(s, &end);
			if (*s == '\0' || *end != '\0' || errno != 0 ||
			    isinf(d))
				goto bad;
		}
		if (*n == cap)	/* a line counted is a line parsed */
			goto bad;
		v[(*n)++] = d;
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "%s: read error after line %zu", name,
		    lineno);
		goto fail;
	}
	fclose(fp);
	free(line);
	if (*n == 0) {
		snprintf(err, errlen, "%s holds no ts:value line", name);
		return -1;
	}
	return 0;
bad:
	if (quote)
		snprintf(err, errlen, "%s: line %zu: expected ts:value, got "
		    "'%.60s'", name, lineno, line);
	else
		snprintf(err, errlen, "%s: line %zu: expected ts:value",
		    name, lineno);
	goto fail;
nul:
	snprintf(err, errlen, "%s: line %zu: NUL byte", name, lineno);
fail:
	fclose(fp);
	free(line);
	*n = 0;
	return -1;
}

/*
 * fd (closed here), whose fstat is st, read whole into *buf (*len bytes;
 * free it).  The bound is on what is read, not only on st_size: the
 * client owns a passed file and may grow it after the fstat, and getline
 * would hold a line of any length.
 */
static int
read_text(int fd, const struct stat *st, const char *name, char **buf,
    size_t *len, char *err, size_t errlen)
{
	size_t got = 0, cap = (size_t)st->st_size + 1;
	ssize_t r;

	*buf = NULL;
	if (st->st_size > UPDATE_FILE_MAX)
		goto big;
	if ((*buf = malloc(cap)) == NULL)
		goto nomem;
	/* One byte past the bound tells a file that grew too far. */
	while ((r = read(fd, *buf + got, cap - got)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			snprintf(err, errlen, "cannot read %s: %s", name,
			    strerror(errno));
			goto fail;
		}
		if ((got += (size_t)r) > (size_t)UPDATE_FILE_MAX)
			goto big;
		if (got == cap) {
			char *nb;

			cap = cap * 2 < (size_t)UPDATE_FILE_MAX + 1 ? cap * 2 :
			    (size_t)UPDATE_FILE_MAX + 1;
			if ((nb = realloc(*buf, cap)) == NULL)
				goto nomem;
			*buf = nb;
		}
	}
	close(fd);
	/* fmemopen refuses a size of 0: an empty file reads as one newline,
	 * which parses to the same "holds no ts:value line". */
	if (got == 0)
		(*buf)[got++] = '\n';
	*len = got;
	return 0;
big:
	snprintf(err, errlen, "%s is larger than %ld bytes", name,
	    UPDATE_FILE_MAX);
	goto fail;
nomem:
	snprintf(err, errlen, "%s: out of memory", name);
fail:
	close(fd);
	free(*buf);
	*buf = NULL;
	return -1;
}

/*
 * Read fd (closed here; st its fstat) and parse it into exactly as many
 * values as it has lines, refused first when the bound says they would
 * not fit.  The text is freed before returning, the values are the run's.
 */
static int
read_values(int fd, const struct stat *st, const char *name, bool quote,
    const struct loadgen_bound *b, double **values, size_t *n, char *err,
    size_t errlen)
{
	char *buf;
	size_t len, lines;
	FILE *fp;
	int rv = -1;

	if (check_bound(b, name, (size_t)st->st_size, 0, err, errlen) == -1) {
		close(fd);
		return -1;
	}
	if (read_text(fd, st, name, &buf, &len, err, errlen) == -1)
		return -1;
	lines = count_lines(buf, len);
	if (check_bound(b, name, len, lines, err, errlen) == -1)
		goto done;
	if ((*values = malloc((lines ? lines : 1) * sizeof(double))) == NULL) {
		snprintf(err, errlen, "%s: out of memory", name);
		goto done;
	}
	if ((fp = fmemopen(buf, len, "r")) == NULL)
		snprintf(err, errlen, "cannot read %s: %s", name,
		    strerror(errno));
	else
		rv = parse_values(fp, name, quote, *values, lines, n, err,
		    errlen);
done:
	free(buf);
	if (rv == -1) {
		free(*values);
		*values = NULL;
	}
	return rv;
}

int
loadgen_read_values(const char *path, const struct loadgen_bound *b,
    double **values, size_t *n, char *err, size_t errlen)
{
	struct stat st, st2;
	int fd;

	*values = NULL;
	*n = 0;
	/* Only a regular file of bounded size is taken: a FIFO or a device
	 * would block or never end, and opening some devices does things.
	 * stat before open, fstat after, and the two must be one file. */
	if (stat(path, &st) == -1) {
		snprintf(err, errlen, "cannot open %s: %s", path,
		    strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s is not a regular file", path);
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC |
	    O_NOCTTY)) == -1) {
		snprintf(err, errlen, "cannot open %s: %s", path,
		    strerror(errno));
		return -1;
	}
	if (fstat(fd, &st2) == -1 || !S_ISREG(st2.st_mode) ||
	    st2.st_ino != st.st_ino || st2.st_dev != st.st_dev) {
		snprintf(err, errlen, "%s changed while opened", path);
		close(fd);
		return -1;
	}
	return read_values(fd, &st2, path, false, b, values, n, err, errlen);
}

int
loadgen_read_values_fd(int fd, const char *name,
    const struct loadgen_bound *b, double **values, size_t *n, char *err,
    size_t errlen)
{
	struct stat st;
	int fl;

	*values = NULL;
	*n = 0;
	if (fstat(fd, &st) == -1 || (fl = fcntl(fd, F_GETFL)) == -1)
		goto sys;
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s (the passed descriptor) is not a "
		    "regular file", name);
		goto fail;
	}
	/* Read only through a descriptor the client could read with: not
	 * one open for writing only, nor an O_PATH one (which opening
	 * needs no read permission for). */
	if ((fl & O_ACCMODE) == O_WRONLY || (fl & O_PATH)) {
		snprintf(err, errlen, "%s: the passed descriptor is not open "
		    "for reading", name);
		goto fail;
	}
	/* The offset is shared with the client's descriptor: from the top,
	 * whatever it has read. */
	if (lseek(fd, 0, SEEK_SET) == -1)
		goto sys;
	return read_values(fd, &st, name, true, b, values, n, err, errlen);
sys:
	snprintf(err, errlen, "%s: the passed descriptor: %s", name,
	    strerror(errno));
fail:
	close(fd);
	return -1;
}

bool
loadgen_is_zero_file(const struct stress_params *p, uint32_t n)
{
	if (p->zero_files == 0)
		return false;
	if (p->zero_files >= p->files)
		return true;
	return n % (p->files / p->zero_files) == 0;
}

/* splitmix64: a cheap, well-mixed hash so values are deterministic per
 * (seed, file, k) whatever thread generates them. */
static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

double
loadgen_value(const struct stress_params *p, const double *replay,
    size_t nreplay, uint32_t n, uint64_t k)
{
	if (loadgen_is_zero_file(p, n))
		return 0.0;
	if (nreplay > 0)
		return replay[(k - 1) % nreplay];
	/* 1..100000: never 0, so a non-zero file is all significant. */
	return (double)(mix(p->seed ^ mix(((uint64_t)n << 32) ^ k)) % 100000 + 1);
}

static double
value_cb(void *ctx, uint32_t file, uint64_t k)
{
	struct loadgen *lg = ctx;

	return loadgen_value(lg->p, lg->replay, lg->nreplay, file, k);
}

/* Sleep until monotonic time t or until stop; false if stopped. */
static bool
pace_until(struct loadgen *lg, double t)
{
	struct timespec ts;
	bool stop;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	pthread_mutex_lock(&lg->mu);
	while (!(stop = atomic_load(&lg->stop)) && util_now() < t)
		if (pthread_cond_timedwait(&lg->cv, &lg->mu, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&lg->mu);
	return !stop;
}

/*
 * n more updates were offered (taken by the queue, enqueued or dropped,
 * or written directly): count them, and for each multiple of modulus
 * they reach call the offered hook, which writes stress.log's block.  The
 * hot path's cost is this one atomic add; the hook runs once a modulus.
 */
static void
count_offered(struct loadgen *lg, uint64_t n)
{
	uint64_t m = lg->p->modulus, before;

	before = atomic_fetch_add(&lg->generated, n);
	if (lg->hooks.offered == NULL || m == 0)
		return;
	for (uint64_t k = before / m + 1; k <= (before + n) / m; k++)
		lg->hooks.offered(lg->hooks.arg, k * m);
}

static void
write_direct(struct loadgen *lg, struct writer_ctx *w, uint32_t file,
    uint32_t n)
{
	struct queue_batch b;
	struct queue_result res;

	queue_direct_begin(lg->q, file, n, value_cb, lg, &b);
	writer_write_batch(w, &b, &res);
	writer_finish(lg->q, &b, &res, w, &lg->hooks);
	count_offered(lg, n);
}

/*
 * How many staged picks from stage[0] on to offer in one go: all of
 * them, or, when the offered hook is set, up to the pick that reaches the
 * next multiple of modulus as the count stands (a plain load, no second
 * atomic add), so that the block samples the queue as that update was
 * taken, not up to LOADGEN_STAGE picks later.  *want: their updates.
 */
static size_t
picks_to_multiple(struct loadgen *lg, const struct queue_req *stage,
    size_t nstage, uint64_t *want)
{
	uint64_t m = lg->p->modulus, to_next = UINT64_MAX;
	size_t i = 0;

	if (lg->hooks.offered != NULL && m > 0)
		to_next = m - atomic_load(&lg->generated) % m;
	for (*want = 0; i < nstage && *want < to_next; i++)
		*want += stage[i].n;
	return i;
}

/* Offer the staged updates, in as few lock acquisitions as the blocks
 * allow (waiting there while the queue is at its memory bound).  Only
 * what was offered counts as generated: a stop cuts such a wait short,
 * and the rest is then not offered at all. */
static void
flush(struct loadgen *lg, struct queue_req *stage, size_t *nstage)
{
	size_t i = 0, k;
	uint64_t want, n;

	while (i < *nstage) {
		k = picks_to_multiple(lg, stage + i, *nstage - i, &want);
		queue_offer(lg->q, stage + i, k, value_cb, lg, &n);
		count_offered(lg, n);
		if (n < want)
			break;
		i += k;
	}
	*nstage = 0;
}

/*
 * A paced generator claims the picks due within PACE_QUANTUM seconds at
 * once and issues them when the last one is due: one sleep, one queue lock
 * and one writer wake-up for them all.  Claimed one pick at a time, a
 * 10,000 updates/s run cost a sleep and a wake-up per update: 20 to 30%
 * of the daemon's CPU time went to the generators.  Updates go out up to
 * PACE_QUANTUM late, never early.
 */
#define PACE_QUANTUM	0.002

uint64_t
loadgen_picks_per_claim(const struct stress_params *p)
{
	double k;

	if (p->update_time <= 0)
		return 1;	/* flat out, nothing waits */
	k = (double)p->max_updates / p->update_time * PACE_QUANTUM /
	    (double)p->updates_per_open;
	return k < 1 ? 1 : k > LOADGEN_STAGE ? LOADGEN_STAGE : (uint64_t)k;
}

uint64_t
loadgen_limit(const struct stress_params *p)
{
	double n;

	if (p->until_steady <= 0 || p->update_time <= 0)
		return p->max_updates;
	n = round((double)p->max_updates * p->until_steady / p->update_time);
	return n < 1 ? 1 : (uint64_t)n;
}

double
loadgen_due(const struct stress_params *p, uint64_t n)
{
	if (p->update_time <= 0)
		return 0;
	return (double)n * p->update_time / (double)p->max_updates;
}

static void *
loadgen_main(void *arg)
{
	struct loadgen *lg = arg;
	const struct stress_params *p = lg->p;
	struct queue_req stage[LOADGEN_STAGE];
	size_t nstage = 0;
	struct writer_ctx w;
	uint64_t take = loadgen_picks_per_claim(p) * p->updates_per_open;

	writer_ctx_init(&w, p, &lg->hooks);
	w.busy_since = &lg->busy[atomic_fetch_add(&lg->next_slot, 1)];
	while (!atomic_load(&lg->stop)) {
		uint64_t claim = atomic_fetch_add(&lg->claimed, take);
		uint64_t left, n;
		uint32_t file;

		if (claim >= lg->limit)
			break;
		left = lg->limit - claim < take ? lg->limit - claim : take;
		/* The n-th update of the run is not issued before
		 * n * update_time / max_updates seconds: a claim issues updates
		 * claim+1 .. claim+left at once, so it waits for the last one.
		 * What is staged goes out before the generator sleeps. */
		if (p->update_time > 0) {
			double due = lg->start + loadgen_due(p, claim + left);

			if (util_now() < due) {
				flush(lg, stage, &nstage);
				if (!pace_until(lg, due))
					break;
			}
		}
		/* Picks of updates_per_open updates each. */
		for (; left > 0 && !atomic_load(&lg->stop); left -= n) {
			n = left < p->updates_per_open ? left :
			    p->updates_per_open;
			file = (uint32_t)(atomic_fetch_add(&lg->cursor, 1) %
			    p->files);
			if (!p->use_queue) {
				write_direct(lg, &w, file, (uint32_t)n);
				continue;
			}
			stage[nstage].file = file;
			stage[nstage++].n = (uint32_t)n;
			if (nstage == LOADGEN_STAGE)
				flush(lg, stage, &nstage);
		}
	}
	/* Staged updates of a stopped run were never offered: drop them. */
	if (!atomic_load(&lg->stop))
		flush(lg, stage, &nstage);
	writer_ctx_free(&w);
	atomic_fetch_sub(&lg->running, 1);
	cpustat_thread_exit();
	return NULL;
}

struct loadgen *
loadgen_start(struct queue *q, const struct stress_params *p,
    const double *replay, size_t nreplay, const struct writer_hooks *hooks)
{
	struct loadgen *lg = calloc(1, sizeof(*lg));
	pthread_condattr_t ca;

	if (lg == NULL)
		return NULL;
	lg->q = q;
	lg->p = p;
	lg->replay = replay;
	lg->nreplay = nreplay;
	lg->limit = loadgen_limit(p);
	if (hooks != NULL)
		lg->hooks = *hooks;
	pthread_mutex_init(&lg->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&lg->cv, &ca);
	pthread_condattr_destroy(&ca);
	if ((lg->threads = calloc(p->threads, sizeof(*lg->threads))) == NULL ||
	    (lg->busy = calloc(p->threads, sizeof(*lg->busy))) == NULL)
		goto fail;
	lg->start = util_now();
	atomic_store(&lg->running, (unsigned)p->threads);
	for (; lg->nthreads < p->threads; lg->nthreads++) {
		char name[16];

		if (pthread_create(&lg->threads[lg->nthreads], NULL,
		    loadgen_main, lg) != 0) {
			log_warnx("cannot start generator thread %u",
			    lg->nthreads);
			atomic_fetch_sub(&lg->running,
			    (unsigned)p->threads - lg->nthreads);
			goto fail;
		}
		/* Named for top -H, perf and gdb. */
		snprintf(name, sizeof(name), "gen-%u", lg->nthreads);
		pthread_setname_np(lg->threads[lg->nthreads], name);
	}
	return lg;
fail:
	loadgen_stop(lg);
	loadgen_join(lg);
	return NULL;
}

void
loadgen_stop(struct loadgen *lg)
{
	pthread_mutex_lock(&lg->mu);
	atomic_store(&lg->stop, true);
	pthread_cond_broadcast(&lg->cv);
	pthread_mutex_unlock(&lg->mu);
	/* A generator waiting at the queue's memory bound must not wait for
	 * writers that a stop without drain no longer feeds. */
	queue_halt(lg->q);
}

bool
loadgen_stuck(struct loadgen *lg, double limit)
{
	return lg->busy != NULL &&
	    writer_busy_stuck(lg->busy, lg->nthreads, limit);
}

bool
loadgen_finished(struct loadgen *lg)
{
	return atomic_load(&lg->running) == 0;
}

uint64_t
loadgen_generated(struct loadgen *lg)
{
	return atomic_load(&lg->generated);
}

void
loadgen_join(struct loadgen *lg)
{
	if (lg == NULL)
		return;
	for (unsigned i = 0; i < lg->nthreads; i++)
		pthread_join(lg->threads[i], NULL);
	pthread_cond_destroy(&lg->cv);
	pthread_mutex_destroy(&lg->mu);
	free(lg->threads);
	free(lg->busy);
	free(lg);
}
