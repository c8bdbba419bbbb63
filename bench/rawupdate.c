/*
 * rawupdate: the raw librrd ceiling for the stressd benchmark.
 *
 * W threads write M values into N RRD files with rrd_update_r, V values
 * per call, taking files round-robin from one shared atomic cursor.  There
 * is no queue: this is what the writer pool could do at best with the same
 * files, threads and values per call, so stressd's persisted rate divided
 * by this one says how much the queuing strategy costs.
 *
 * Timestamps follow stressd's contract: the k-th value ever written to a
 * file carries last + k*step, where last is the file's rrd_last at startup,
 * so `rrdtool lastupdate` can count what landed.
 *
 * --processes runs the W writers as W forked processes instead of threads
 * (the cursor and the per-file counters live in shared memory): librrd
 * maps each file for every call, and in one process every map and unmap
 * takes the address space's lock and interrupts the other CPUs to flush
 * their TLBs, which W threads pay and W processes do not.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rrd.h>

#include "benchutil.h"
#include "util.h"

#define RAW_MAX_THREADS		1024
#define RAW_MAX_RRAS		64
#define RAW_VALUE_LEN		48	/* "ts:value" of one value, with NUL */
#define RAW_ERR_LEN		1024

static const char *const raw_default_rras[] = {
	"RRA:AVERAGE:0.5:1:8928",
	"RRA:AVERAGE:0.5:12:8784",
	"RRA:MIN:0.5:12:8784",
	"RRA:MAX:0.5:12:8784",
};

struct raw_opts {
	const char	*dir;
	uint64_t	 files;
	uint64_t	 threads;
	uint64_t	 per_call;	/* values per rrd_update_r call */
	uint64_t	 updates;	/* values in the whole run */
	uint64_t	 step;
	uint64_t	 start;
	const char	*rras[RAW_MAX_RRAS];
	size_t		 nrras;
	bool		 create;
	bool		 processes;	/* writers as processes, not threads */
};

/* Per file: its path and the rrd_last read at startup (read-only while the
 * threads run), plus how many calls to it have finished. */
struct raw_file {
	char		*path;
	time_t		 last;
	atomic_uint_fast64_t calls_done;
};

/* State every thread shares; only the atomics change during a phase. */
struct raw_shared {
	const struct raw_opts	*opts;
	struct raw_file		*files;
	uint64_t		 ncalls;	/* ceil(updates / per_call) */
	atomic_uint_fast64_t	 cursor;	/* next call (or file) to take */
	atomic_uint_fast64_t	 errors;	/* failed librrd calls */
	atomic_uint_fast64_t	 failed_values;
	atomic_flag		 err_taken;	/* first error recorded? */
	char			 first_err[RAW_ERR_LEN];
};

static void
raw_usage(FILE *fp)
{
	fprintf(fp,
	    "usage: rawupdate --dir D --files N --threads W --values-per-call V\n"
	    "                 --updates M [--step 300] [--start 946710000]\n"
	    "                 [--rra RRA ...] [--create] [--processes]\n"
	    "Writes M values into D/<n>.rrd (n < N) with W threads, V values\n"
	    "per rrd_update_r call, and prints one JSON line.  --create first\n"
	    "(re)creates the files with last update --start; with --updates 0\n"
	    "it only creates them.  --processes writes with W processes.\n");
}

/* Keep the first librrd error verbatim (with the file name): one message
 * is enough to diagnose a benchmark, the rest are only counted. */
static void
raw_record_error(struct raw_shared *sh, const char *what, const char *path)
{
	const char *msg = rrd_get_error();

	atomic_fetch_add(&sh->errors, 1);
	if (!atomic_flag_test_and_set(&sh->err_taken))
		snprintf(sh->first_err, sizeof(sh->first_err), "%s %s: %s",
		    what, path, msg != NULL && *msg != '\0' ? msg :
		    "unknown librrd error");
	rrd_clear_error();
}

/* --------------------------------------------------------------- create */

static void *
raw_create_thread(void *arg)
{
	struct raw_shared *sh = arg;
	const struct raw_opts *o = sh->opts;
	const char *argv[RAW_MAX_RRAS + 1];
	char ds[64];
	uint64_t n;

	/* One GAUGE DS, heartbeat 2*step, no bounds: stressd's layout. */
	snprintf(ds, sizeof(ds), "DS:ds0:GAUGE:%" PRIu64 ":U:U", 2 * o->step);
	argv[0] = ds;
	for (size_t i = 0; i < o->nrras; i++)
		argv[i + 1] = o->rras[i];

	while ((n = atomic_fetch_add(&sh->cursor, 1)) < o->files) {
		const char *path = sh->files[n].path;

		if (rrd_create_r(path, (unsigned long)o->step,
		    (time_t)o->start, (int)o->nrras + 1, argv) != 0)
			raw_record_error(sh, "create", path);
	}
	return NULL;
}

/* --------------------------------------------------------------- update */

/* Per thread: the "ts:value" strings of one call and the argv over them,
 * allocated once so the timed loop does no allocation. */
struct raw_worker {
	struct raw_shared	*sh;
	char			*text;
	const char		**argv;
	pthread_t		 tid;
};

static void *
raw_update_thread(void *arg)
{
	struct raw_worker *w = arg;
	struct raw_shared *sh = w->sh;
	const struct raw_opts *o = sh->opts;
	uint64_t c;

	/*
	 * Call c goes to file c % N as that file's round c / N and carries
	 * values c*V .. min(c*V + V, M) - 1 of the run.  Deriving everything
	 * from c keeps per-file state out of the loop; only the last call of
	 * the run can be short, and it is its file's last round.
	 */
	while ((c = atomic_fetch_add(&sh->cursor, 1)) < sh->ncalls) {
		uint64_t f = c % o->files, round = c / o->files;
		uint64_t first = c * o->per_call;
		uint64_t n = o->updates - first < o->per_call ?
		    o->updates - first : o->per_call;
		struct raw_file *rf = &sh->files[f];

		for (uint64_t j = 0; j < n; j++) {
			uint64_t k = round * o->per_call + j + 1;
			char *s = w->text + j * RAW_VALUE_LEN;

			/* Non-zero, varying, cheap to compute; the same range as
			 * stressd's synthetic values (1..100000). */
			snprintf(s, RAW_VALUE_LEN, "%lld:%" PRIu64,
			    (long long)rf->last + (long long)(k * o->step),
			    (f * 7919 + k) % 100000 + 1);
			w->argv[j] = s;
		}

		/*
		 * A file's rounds must land in order and never overlap
		 * (librrd refuses concurrent updates and older timestamps).
		 * The cursor makes this all but certain when N > W; the rare
		 * straggler that has lapped a slow thread waits here.
		 */
		while (atomic_load_explicit(&rf->calls_done,
		    memory_order_acquire) != round)
			sched_yield();

		if (rrd_update_r(rf->path, NULL, (int)n, w->argv) != 0) {
			raw_record_error(sh, "update", rf->path);
			atomic_fetch_add(&sh->failed_values, n);
		}
		atomic_store_explicit(&rf->calls_done, round + 1,
		    memory_order_release);
	}
	return NULL;
}

/* The update phase on W processes: each runs raw_update_thread on its
 * copy of the process, sharing sh and the files' counters (mapped shared
 * before the fork).  A child that dies counts as an error. */
static double
raw_run_processes(struct raw_shared *sh, struct raw_worker *workers,
    double t0)
{
	pid_t pids[RAW_MAX_THREADS];
	uint64_t started = 0;
	int st;

	fflush(NULL);
	for (; started < sh->opts->threads; started++) {
		if ((pids[started] = fork()) == -1) {
			fprintf(stderr, "rawupdate: fork: %s\n",
			    strerror(errno));
			break;
		}
		if (pids[started] == 0) {
			raw_update_thread(&workers[started]);
			_exit(0);
		}
	}
	for (uint64_t i = 0; i < started; i++)
		if (waitpid(pids[i], &st, 0) == -1 || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0)
			atomic_fetch_add(&sh->errors, 1);
	return started == sh->opts->threads ? util_now() - t0 : -1.0;
}

/* Run fn on W threads over the shared cursor; returns seconds taken or a
 * negative value if a thread could not be started. */
static double
raw_run_phase(struct raw_shared *sh, struct raw_worker *workers,
    void *(*fn)(void *))
{
	uint64_t started = 0;
	double t0;
	int rv;

	atomic_store(&sh->cursor, 0);
	t0 = util_now();
	if (sh->opts->processes && fn == raw_update_thread)
		return raw_run_processes(sh, workers, t0);
	for (; started < sh->opts->threads; started++) {
		rv = pthread_create(&workers[started].tid, NULL, fn,
		    fn == raw_create_thread ? (void *)sh :
		    (void *)&workers[started]);
		if (rv != 0) {
			fprintf(stderr, "rawupdate: pthread_create: %s\n",
			    strerror(rv));
			break;
		}
	}
	for (uint64_t i = 0; i < started; i++)
		pthread_join(workers[i].tid, NULL);
	return started == sh->opts->threads ? util_now() - t0 : -1.0;
}

/* ----------------------------------------------------------------- main */

/* Zeroed memory that forked writers share with the parent; NULL if none. */
static void *
raw_shared_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int
raw_parse_args(int argc, char **argv, struct raw_opts *o)
{
	enum { O_DIR = 256, O_FILES, O_THREADS, O_PERCALL, O_UPDATES, O_STEP,
	    O_START, O_RRA, O_CREATE, O_PROCESSES, O_HELP };
	static const struct option longopts[] = {
		{ "dir",		required_argument, NULL, O_DIR },
		{ "files",		required_argument, NULL, O_FILES },
		{ "threads",		required_argument, NULL, O_THREADS },
		{ "values-per-call",	required_argument, NULL, O_PERCALL },
		{ "updates",		required_argument, NULL, O_UPDATES },
		{ "step",		required_argument, NULL, O_STEP },
		{ "start",		required_argument, NULL, O_START },
		{ "rra",		required_argument, NULL, O_RRA },
		{ "create",		no_argument,	   NULL, O_CREATE },
		{ "processes",		no_argument,	   NULL, O_PROCESSES },
		{ "help",		no_argument,	   NULL, O_HELP },
		{ NULL, 0, NULL, 0 }
	};
	bool have_files = false, have_threads = false, have_per_call = false,
	    have_updates = false;
	int ch, rv = 0;

	memset(o, 0, sizeof(*o));
	o->step = 300;
	o->start = 946710000;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case O_DIR:
			o->dir = optarg;
			break;
		case O_FILES:
			rv |= bench_parse_u64("rawupdate", "files", optarg, 1,
			    100000000, &o->files);
			have_files = true;
			break;
		case O_THREADS:
			rv |= bench_parse_u64("rawupdate", "threads", optarg, 1,
			    RAW_MAX_THREADS, &o->threads);
			have_threads = true;
			break;
		case O_PERCALL:
			/* librrd takes argc as an int. */
			rv |= bench_parse_u64("rawupdate", "values-per-call",
			    optarg, 1, 1000000, &o->per_call);
			have_per_call = true;
			break;
		case O_UPDATES:
			/* 0: create only (with --create). */
			rv |= bench_parse_u64("rawupdate", "updates", optarg, 0,
			    UINT64_C(1) << 48, &o->updates);
			have_updates = true;
			break;
		case O_STEP:
			rv |= bench_parse_u64("rawupdate", "step", optarg, 1,
			    31536000, &o->step);
			break;
		case O_START:
			rv |= bench_parse_u64("rawupdate", "start", optarg, 1,
			    4000000000U, &o->start);
			break;
		case O_RRA:
			if (o->nrras == RAW_MAX_RRAS) {
				fprintf(stderr, "rawupdate: at most %d --rra\n",
				    RAW_MAX_RRAS);
				rv = -1;
			} else
				o->rras[o->nrras++] = optarg;
			break;
		case O_CREATE:
			o->create = true;
			break;
		case O_PROCESSES:
			o->processes = true;
			break;
		case O_HELP:
			raw_usage(stdout);
			exit(0);
		default:
			raw_usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rawupdate: unexpected argument '%s'\n",
		    argv[optind]);
		rv = -1;
	}
	if (o->dir == NULL || !have_files || !have_threads || !have_per_call ||
	    !have_updates) {
		fprintf(stderr, "rawupdate: --dir, --files, --threads, "
		    "--values-per-call and --updates are required\n");
		rv = -1;
	}
	if (o->updates == 0 && !o->create) {
		fprintf(stderr, "rawupdate: --updates 0 needs --create\n");
		rv = -1;
	}
	if (o->nrras == 0) {
		for (size_t i = 0; i < sizeof(raw_default_rras) /
		    sizeof(raw_default_rras[0]); i++)
			o->rras[o->nrras++] = raw_default_rras[i];
	}
	if (rv != 0)
		raw_usage(stderr);
	return rv;
}

int
main(int argc, char **argv)
{
	struct raw_opts opts;
	struct raw_shared *sh = NULL;
	struct raw_worker *workers = NULL;
	double create_s = 0.0, update_s;
	uint64_t errors, written;
	int status = 1;

	if (raw_parse_args(argc, argv, &opts) != 0)
		return 2;

	sh = raw_shared_alloc(sizeof(*sh));
	workers = calloc(opts.threads, sizeof(*workers));
	if (sh == NULL || workers == NULL)
		goto nomem;
	sh->opts = &opts;
	atomic_flag_clear(&sh->err_taken);
	sh->ncalls = opts.updates / opts.per_call +
	    (opts.updates % opts.per_call != 0);
	sh->files = raw_shared_alloc(opts.files * sizeof(*sh->files));
	if (sh->files == NULL)
		goto nomem;
	for (uint64_t i = 0; i < opts.files; i++) {
		size_t len = strlen(opts.dir) + 32;

		if ((sh->files[i].path = malloc(len)) == NULL)
			goto nomem;
		snprintf(sh->files[i].path, len, "%s/%" PRIu64 ".rrd",
		    opts.dir, i);
		atomic_init(&sh->files[i].calls_done, 0);
	}
	for (uint64_t i = 0; i < opts.threads; i++) {
		workers[i].sh = sh;
		workers[i].text = malloc(opts.per_call * RAW_VALUE_LEN);
		workers[i].argv = malloc(opts.per_call * sizeof(char *));
		if (workers[i].text == NULL || workers[i].argv == NULL)
			goto nomem;
	}

	if (opts.create) {
		if (mkdir(opts.dir, 0755) != 0 && errno != EEXIST) {
			fprintf(stderr, "rawupdate: mkdir %s: %s\n", opts.dir,
			    strerror(errno));
			goto out;
		}
		if ((create_s = raw_run_phase(sh, workers,
		    raw_create_thread)) < 0)
			goto out;
		if (atomic_load(&sh->errors) != 0)
			goto report;
	}

	/* Read each file's last update once, untimed: the timestamps of the
	 * run continue from there. */
	for (uint64_t i = 0; i < opts.files; i++) {
		sh->files[i].last = rrd_last_r(sh->files[i].path);
		if (sh->files[i].last == (time_t)-1)
			raw_record_error(sh, "last", sh->files[i].path);
	}
	if (atomic_load(&sh->errors) != 0)
		goto report;

	if ((update_s = raw_run_phase(sh, workers, raw_update_thread)) < 0)
		goto out;
	if (opts.updates == 0)
		update_s = 0.0;	/* create only: nothing was timed */

	errors = atomic_load(&sh->errors);
	written = opts.updates - atomic_load(&sh->failed_values);
	printf("{\"files\":%" PRIu64 ",\"%s\":%" PRIu64
	    ",\"values_per_call\":%" PRIu64 ",\"updates\":%" PRIu64
	    ",\"seconds\":%.6f,\"updates_per_s\":%.1f,\"errors\":%" PRIu64
	    ",\"create_seconds\":%.6f}\n",
	    opts.files, opts.processes ? "processes" : "threads",
	    opts.threads, opts.per_call, opts.updates, update_s,
	    update_s > 0 ? (double)written / update_s : 0.0, errors,
	    create_s);
	fflush(stdout);
report:
	if (atomic_load(&sh->errors) != 0) {
		fprintf(stderr, "rawupdate: %" PRIu64 " librrd error(s); "
		    "first: %s\n", (uint64_t)atomic_load(&sh->errors),
		    sh->first_err);
		goto out;
	}
	status = 0;
	goto out;
nomem:
	fprintf(stderr, "rawupdate: out of memory\n");
out:
	if (sh != NULL && sh->files != NULL) {
		for (uint64_t i = 0; i < opts.files; i++)
			free(sh->files[i].path);
		munmap(sh->files, opts.files * sizeof(*sh->files));
	}
	if (workers != NULL) {
		for (uint64_t i = 0; i < opts.threads; i++) {
			free(workers[i].text);
			free(workers[i].argv);
		}
	}
	free(workers);
	if (sh != NULL)
		munmap(sh, sizeof(*sh));
	return status;
}
