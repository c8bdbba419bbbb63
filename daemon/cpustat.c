#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpustat.h"

/*
 * A thread's CPU time comes from /proc/self/task/TID/schedstat, whose
 * first field is the scheduler's own count in nanoseconds.  The utime and
 * stime of .../stat are that count cut to 10 ms ticks twice over: up to
 * 20 ms lost a thread, which is 0.16 s over 8 generators, a large part of
 * what they use in a paced run.  The name (the role) and the start time
 * (which tells a reused tid from an earlier thread) come from .../stat,
 * read once a thread.  The process is CLOCK_PROCESS_CPUTIME_ID, the same
 * count summed over every thread, ended ones included.
 *
 * The schedstat files of up to CACHE_MAX threads stay open between
 * readings (until cpustat_close) and are read again from offset 0 (procfs
 * makes the text anew): one system call a thread instead of three, and a
 * tenth of the cost of opening .../stat each time.  An fd stays with its
 * thread, not its tid: read after the thread ended, it fails and the tid
 * is looked at anew.  Threads beyond the cache, or a kernel without
 * schedstat, are read from .../stat, in ticks.
 */
#define CACHE_MAX	256
#define NS		1000000000ULL

struct task {
	pid_t			tid;
	uint64_t		start;	/* starttime, ticks after boot */
	enum cpustat_role	role;
	int			fd;	/* its schedstat, -1: use stat */
	bool			seen;	/* listed at this reading */
};

/* A thread that reported its end, skipped while /proc still lists it. */
struct departed {
	pid_t		tid;
	uint64_t	start;
	bool		seen;	/* still listed at the last reading */
};

struct taskstat {
	char		name[32];
	uint64_t	ns;		/* utime + stime */
	uint64_t	start;		/* starttime */
};

/* Guards the departed threads against a reading (an ending thread must
 * not be counted both live and departed), and the cache. */
static pthread_mutex_t	 mu = PTHREAD_MUTEX_INITIALIZER;
static struct departed	*gone;
static size_t		 ngone, capgone;
static uint64_t		 gone_ns[CPUSTAT_NROLES];
static uint64_t		 gone_runq[CPUSTAT_NROLES];
static struct task	 cache[CACHE_MAX];
static size_t		 ncache;

/* An open /proc file from its start into buf, NUL-terminated; its
 * length, or -1. */
static ssize_t
pread_proc(int fd, char *buf, size_t len)
{
	ssize_t n, got = 0;

	while ((size_t)got < len - 1 && (n = pread(fd, buf + got,
	    len - 1 - (size_t)got, got)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		got += n;
	}
	buf[got] = '\0';
	return got;
}

static ssize_t
read_proc(int dirfd, const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	if ((fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = pread_proc(fd, buf, len);
	close(fd);
	return n;
}

/* A stat line: comm may hold spaces and parentheses, so the fields are
 * counted from its last ')'. */
static int
parse_stat(const char *buf, struct taskstat *ts)
{
	const char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	const char *s;
	char *end;
	uint64_t v, ticks = 0;
	long hz = sysconf(_SC_CLK_TCK);
	size_t n;

	if (open == NULL || close == NULL || close < open || hz <= 0)
		return -1;
	n = (size_t)(close - open - 1);
	if (n >= sizeof(ts->name))
		n = sizeof(ts->name) - 1;
	memcpy(ts->name, open + 1, n);
	ts->name[n] = '\0';
	s = close + 1;
	/* state is field 3; utime 14, stime 15, starttime 22 (proc(5)) */
	for (int f = 3; f <= 22; f++) {
		s += strspn(s, " ");
		if (*s == '\0')
			return -1;
		if (f == 14 || f == 15 || f == 22) {
			errno = 0;
			v = strtoull(s, &end, 10);
			if (end == s || errno != 0)
				return -1;
			if (f == 22)
				ts->start = v;
			else
				ticks += v;
		}
		s += strcspn(s, " ");
	}
	ts->ns = ticks * (NS / (uint64_t)hz);
	return 0;
}

static int
stat_of(int dirfd, const char *tid, struct taskstat *ts)
{
	char path[300], buf[1024];

	snprintf(path, sizeof(path), "%s/stat", tid);
	if (read_proc(dirfd, path, buf, sizeof(buf)) == -1)
		return -1;
	return parse_stat(buf, ts);
}

/* An open schedstat's first two fields: nanoseconds on the CPU, and
 * waiting on a run queue for one. */
static int
sched_ns(int fd, uint64_t *ns, uint64_t *runq)
{
	char buf[128], *end, *end2;

	if (pread_proc(fd, buf, sizeof(buf)) <= 0)
		return -1;
	errno = 0;
	*ns = strtoull(buf, &end, 10);
	if (end == buf || errno != 0)
		return -1;
	*runq = strtoull(end, &end2, 10);
	if (end2 == end || errno != 0)
		*runq = 0;
	return 0;
}

static enum cpustat_role
role_of(const char *name, pid_t tid)
{
	/* Names as writer.c and loadgen.c give them. */
	if (strncmp(name, "writer-", 7) == 0)
		return CPUSTAT_WRITERS;
	if (strncmp(name, "gen-", 4) == 0)
		return CPUSTAT_GENERATORS;
	if (tid == getpid())
		return CPUSTAT_EVENT_LOOP;
	return CPUSTAT_OTHER;
}

/* Under mu: the cache entry of tid, or NULL. */
static struct task *
cached(pid_t tid)
{
	for (size_t i = 0; i < ncache; i++)
		if (cache[i].tid == tid)
			return &cache[i];
	return NULL;
}

/*
 * Under mu: tid's CPU time in *ns, its role and start time in *t; -1 if
 * it is gone.  A thread is named by its creator just after it starts, so
 * one still in the role "other" has its name looked at again.
 */
static int
read_task(int dirfd, const char *name, pid_t tid, struct task *t,
    uint64_t *ns, uint64_t *runq)
{
	struct task *c = cached(tid);
	struct taskstat ts;
	char path[300];

	*runq = 0;
	if (c != NULL && c->fd != -1 && sched_ns(c->fd, ns, runq) == 0) {
		if (c->role == CPUSTAT_OTHER && stat_of(dirfd, name, &ts) == 0)
			c->role = role_of(ts.name, tid);
		c->seen = true;
		*t = *c;
		return 0;
	}
	/* New, or its fd was an earlier thread's. */
	if (c != NULL && c->fd != -1) {
		close(c->fd);
		c->fd = -1;
	}
	if (stat_of(dirfd, name, &ts) == -1)
		return -1;
	if (c == NULL && ncache < CACHE_MAX) {
		c = &cache[ncache++];
		c->fd = -1;
	}
	t->tid = tid;
	t->start = ts.start;
	t->role = role_of(ts.name, tid);
	t->fd = -1;
	*ns = ts.ns;
	if (c == NULL)
		return 0;
	*c = *t;
	c->seen = true;
	snprintf(path, sizeof(path), "%s/schedstat", name);
	if ((c->fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC)) != -1 &&
	    sched_ns(c->fd, ns, runq) == -1) {
		close(c->fd);
		c->fd = -1;
		*ns = ts.ns;
		*runq = 0;
	}
	return 0;
}

/* Under mu: close the files of threads no longer listed. */
static void
prune_cache(void)
{
	size_t k = 0;

	for (size_t i = 0; i < ncache; i++) {
		if (cache[i].seen) {
			cache[i].seen = false;
			cache[k++] = cache[i];
		} else if (cache[i].fd != -1)
			close(cache[i].fd);
	}
	ncache = k;
}

/* Under mu: whether (tid, start) reported its end; marks it seen. */
static bool
departed(pid_t tid, uint64_t start)
{
	for (size_t i = 0; i < ngone; i++)
		if (gone[i].tid == tid && gone[i].start == start) {
			gone[i].seen = true;
			return true;
		}
	return false;
}

/* Under mu: forget the departed no longer listed, their time is kept. */
static void
prune_gone(void)
{
	size_t k = 0;

	for (size_t i = 0; i < ngone; i++)
		if (gone[i].seen)
			gone[k++] = gone[i];
	ngone = k;
	if (ngone == 0) {
		free(gone);
		gone = NULL;
		capgone = 0;
	}
}

static uint64_t
clock_ns(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) == -1)
		return 0;
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

int
cpustat_read(struct cpustat *cs)
{
	struct dirent *de;
	DIR *d;

	memset(cs, 0, sizeof(*cs));
	pthread_mutex_lock(&mu);
	if ((d = opendir("/proc/self/task")) == NULL) {
		pthread_mutex_unlock(&mu);
		return -1;
	}
	for (size_t i = 0; i < ngone; i++)
		gone[i].seen = false;
	while ((de = readdir(d)) != NULL) {
		struct task t;
		uint64_t ns, runq;
		pid_t tid;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		tid = (pid_t)strtol(de->d_name, NULL, 10);
		/* A thread that ended since readdir is simply not there. */
		if (read_task(dirfd(d), de->d_name, tid, &t, &ns,
		    &runq) == -1 || departed(tid, t.start))
			continue;
		cs->role[t.role] += ns;
		cs->runq[t.role] += runq;
	}
	closedir(d);
	prune_cache();
	prune_gone();
	for (int i = 0; i < CPUSTAT_NROLES; i++) {
		cs->role[i] += gone_ns[i];
		cs->runq[i] += gone_runq[i];
	}
	/* The process last, so it covers every thread read above. */
	cs->process = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	cs->valid = true;
	pthread_mutex_unlock(&mu);
	return 0;
}

void
cpustat_thread_exit(void)
{
	struct taskstat ts;
	char buf[1024];
	pid_t tid = gettid();
	uint64_t ns, on, runq = 0;
	int fd;

	if (read_proc(AT_FDCWD, "/proc/thread-self/stat", buf,
	    sizeof(buf)) == -1 || parse_stat(buf, &ts) == -1)
		return;
	if ((fd = open("/proc/thread-self/schedstat", O_RDONLY |
	    O_CLOEXEC)) != -1) {
		if (sched_ns(fd, &on, &runq) == -1)
			runq = 0;
		close(fd);
	}
	ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	pthread_mutex_lock(&mu);
	if (ngone == capgone) {
		size_t cap = capgone ? capgone * 2 : 64;
		struct departed *n = realloc(gone, cap * sizeof(*n));

		/* Not counted rather than counted twice. */
		if (n == NULL)
			goto out;
		gone = n;
		capgone = cap;
	}
	gone[ngone].tid = tid;
	gone[ngone].start = ts.start;
	gone[ngone++].seen = true;
	gone_ns[role_of(ts.name, tid)] += ns;
	gone_runq[role_of(ts.name, tid)] += runq;
out:
	pthread_mutex_unlock(&mu);
}

void
cpustat_close(void)
{
	pthread_mutex_lock(&mu);
	for (size_t i = 0; i < ncache; i++)
		if (cache[i].fd != -1)
			close(cache[i].fd);
	ncache = 0;
	pthread_mutex_unlock(&mu);
}

/* v as a JSON number printed with fmt, not as 0.29999999999999999. */
static json_object *
rounded(double v, const char *fmt)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, v);
	return json_object_new_double_s(v, buf);
}

json_object *
cpustat_json(const struct cpustat *from, const struct cpustat *to)
{
	static const char *const key[CPUSTAT_NROLES] = {
		"writers", "generators", "event_loop", "other"
	};
	struct cpustat now, zero;
	double s[CPUSTAT_NROLES], proc;
	json_object *o;

	if (from == NULL) {
		memset(&zero, 0, sizeof(zero));
		zero.valid = true;
		from = to = &zero;
	} else if (to == NULL) {
		if (cpustat_read(&now) == -1)
			return NULL;
		to = &now;
	}
	if (!from->valid || !to->valid)
		return NULL;
	o = json_object_new_object();
	for (int i = 0; i < CPUSTAT_NROLES; i++) {
		s[i] = to->role[i] > from->role[i] ?
		    (double)(to->role[i] - from->role[i]) / NS : 0;
		json_object_object_add(o, key[i], rounded(s[i], "%.3f"));
	}
	proc = to->process > from->process ?
	    (double)(to->process - from->process) / NS : 0;
	json_object_object_add(o, "process", rounded(proc, "%.3f"));
	/* The queue's share is inside both generators (push) and writers
	 * (take, return): see stressctl(1). */
	json_object_object_add(o, "generators_pct", rounded(proc > 0 ?
	    100 * s[CPUSTAT_GENERATORS] / proc : 0, "%.1f"));
	return o;
}
