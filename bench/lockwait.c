/*
 * lockwait.so: how long each thread of a process waits for mutexes, from
 * outside the process (LD_PRELOAD), for bench/compare.
 *
 *	LOCKWAIT_OUT=FILE LD_PRELOAD=bench/lockwait.so stressd ...
 *
 * pthread_mutex_lock first tries the lock; only when it is taken is the
 * wait timed, so an uncontended lock costs one trylock and a counter.
 * pthread_cond_wait and pthread_cond_timedwait are timed whole: for a
 * writer that is time with no file to write.  (The mutex a condition
 * variable re-takes on wake-up is taken inside glibc, so that wait counts
 * as condition wait.)  Each thread's figures are kept when it ends, with
 * its name; at exit one line per thread goes to LOCKWAIT_OUT:
 *
 *	name tid lifetime_s locks contended lock_wait_s cond_wait_s
 *	    lock_max_s cond_max_s
 *
 * Only calls that go through the dynamic symbol are seen: the process's
 * own and its libraries', not glibc's internal locks (malloc, stdio).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define LW_MAX_THREADS	4096

struct lw_thread {
	char		name[16];
	pid_t		tid;
	double		born, died;
	uint64_t	locks, contended;
	double		lock_wait, cond_wait;
	double		lock_max, cond_max;	/* longest single wait */
};

static int (*lw_real_lock)(pthread_mutex_t *);
static int (*lw_real_cond_wait)(pthread_cond_t *, pthread_mutex_t *);
static int (*lw_real_cond_timedwait)(pthread_cond_t *, pthread_mutex_t *,
    const struct timespec *);

static struct lw_thread	lw_done[LW_MAX_THREADS];
static atomic_uint	lw_ndone;
static pthread_key_t	lw_key;
static pthread_once_t	lw_once = PTHREAD_ONCE_INIT;
static _Thread_local struct lw_thread lw_me;
static _Thread_local int lw_registered;

static double
lw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Keep a thread's figures in the table, with the name it has now. */
static void
lw_keep(struct lw_thread *t)
{
	unsigned i = atomic_fetch_add(&lw_ndone, 1);

	if (i >= LW_MAX_THREADS)
		return;
	prctl(PR_GET_NAME, t->name, 0, 0, 0);
	t->tid = gettid();
	t->died = lw_now();
	lw_done[i] = *t;
}

static void
lw_thread_exit(void *arg)
{
	(void)arg;
	lw_keep(&lw_me);
}

/* Resolved on first use: other libraries' constructors may lock before
 * this object's would have run. */
static void
lw_init(void)
{
	lw_real_lock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT,
	    "pthread_mutex_lock");
	lw_real_cond_wait = (int (*)(pthread_cond_t *, pthread_mutex_t *))
	    dlvsym(RTLD_NEXT, "pthread_cond_wait", "GLIBC_2.3.2");
	lw_real_cond_timedwait = (int (*)(pthread_cond_t *,
	    pthread_mutex_t *, const struct timespec *))dlvsym(RTLD_NEXT,
	    "pthread_cond_timedwait", "GLIBC_2.3.2");
	if (lw_real_lock == NULL || lw_real_cond_wait == NULL ||
	    lw_real_cond_timedwait == NULL) {
		fprintf(stderr, "lockwait: cannot find the pthread calls\n");
		abort();
	}
	pthread_key_create(&lw_key, lw_thread_exit);
}

/* First call in a thread: note its birth (close enough: threads lock
 * soon after they start) and arrange for its figures to be kept. */
static inline void
lw_register(void)
{
	if (lw_registered)
		return;
	pthread_once(&lw_once, lw_init);
	lw_registered = 1;
	lw_me.born = lw_now();
	pthread_setspecific(lw_key, &lw_me);
}

__attribute__((destructor)) static void
lw_fini(void)
{
	const char *path = getenv("LOCKWAIT_OUT");
	unsigned n;
	FILE *fp;

	if (lw_registered)
		lw_keep(&lw_me);	/* the thread calling exit */
	if (path == NULL || (fp = fopen(path, "w")) == NULL)
		return;
	n = atomic_load(&lw_ndone);
	for (unsigned i = 0; i < n && i < LW_MAX_THREADS; i++) {
		const struct lw_thread *t = &lw_done[i];

		fprintf(fp, "%s %d %.6f %llu %llu %.6f %.6f %.6f %.6f\n",
		    t->name[0] != '\0' ? t->name : "?", (int)t->tid,
		    t->died - t->born, (unsigned long long)t->locks,
		    (unsigned long long)t->contended, t->lock_wait,
		    t->cond_wait, t->lock_max, t->cond_max);
	}
	fclose(fp);
}

int
pthread_mutex_lock(pthread_mutex_t *m)
{
	double t0;
	int rc;

	lw_register();
	lw_me.locks++;
	if (pthread_mutex_trylock(m) == 0)
		return 0;
	t0 = lw_now();
	rc = lw_real_lock(m);
	t0 = lw_now() - t0;
	lw_me.contended++;
	lw_me.lock_wait += t0;
	if (t0 > lw_me.lock_max)
		lw_me.lock_max = t0;
	return rc;
}

static void
lw_cond_done(double t0)
{
	double d = lw_now() - t0;

	lw_me.cond_wait += d;
	if (d > lw_me.cond_max)
		lw_me.cond_max = d;
}

int
pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	double t0;
	int rc;

	lw_register();
	t0 = lw_now();
	rc = lw_real_cond_wait(c, m);
	lw_cond_done(t0);
	return rc;
}

int
pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
    const struct timespec *ts)
{
	double t0;
	int rc;

	lw_register();
	t0 = lw_now();
	rc = lw_real_cond_timedwait(c, m, ts);
	lw_cond_done(t0);
	return rc;
}
