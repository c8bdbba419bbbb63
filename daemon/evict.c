/* A run's own files out of the page cache; see evict.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "confine.h"
#include "evict.h"
#include "rrdfile.h"
#include "util.h"
#include "writer.h"

/* mincore is asked about this much of a file at a time: a mapping of
 * this size and a vector of its pages on the stack. */
#define EVICT_WINDOW	(64u << 20)

struct evict_pass {
	struct evict_result	*res;
	long			 page;
	bool			 measure;	/* mincore answers */
};

static void
note_failure(struct evict_pass *e, const char *rel, const char *call, int err)
{
	if (e->res->failed++ == 0)
		snprintf(e->res->first_error, sizeof(e->res->first_error),
		    "%s: %s: %s", rel, call, strerror(err));
}

/*
 * Bytes of fd's first size bytes in the page cache, counted a window at a
 * time; -1 once mincore cannot tell (a system-call filter without it, a
 * file that cannot be mapped), after which the pass measures no more.
 */
static int64_t
resident_bytes(struct evict_pass *e, int fd, off_t size)
{
	unsigned char vec[EVICT_WINDOW / 4096];
	int64_t sum = 0;

	for (off_t at = 0; e->measure && at < size; at += EVICT_WINDOW) {
		size_t len = size - at < EVICT_WINDOW ? (size_t)(size - at) :
		    EVICT_WINDOW;
		size_t pages = (len + (size_t)e->page - 1) / (size_t)e->page;
		void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, at);

		if (map == MAP_FAILED || mincore(map, len, vec) == -1) {
			snprintf(e->res->measure_error,
			    sizeof(e->res->measure_error), "%s: %s",
			    map == MAP_FAILED ? "mmap" : "mincore",
			    strerror(errno));
			e->measure = false;
		}
		if (map != MAP_FAILED)
			munmap(map, len);
		for (size_t i = 0; e->measure && i < pages; i++)
			if (vec[i] & 1)
				sum += i + 1 < pages ? e->page :
				    (int64_t)(len - i * (size_t)e->page);
	}
	return e->measure ? sum : -1;
}

/* One regular file, reached beneath dirfd as rel. */
static void
evict_file(struct evict_pass *e, int dirfd, const char *rel)
{
	char lib[CONFINE_FD_PATH_MAX];
	struct stat st;
	int64_t before, after;
	int pfd, fd = -1, rc;

	if ((pfd = confine_file(dirfd, rel)) == -1) {
		if (errno == ENOENT)
			e->res->missing++;
		else if (confine_refused(errno))
			e->res->refused++;
		else
			note_failure(e, rel, "open", errno);
		return;
	}
	/* The O_PATH descriptor proved a regular file: open that one. */
	confine_fd_path(lib, sizeof(lib), pfd, NULL);
	if ((fd = open(lib, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		note_failure(e, rel, "open", errno);
		goto out;
	}
	/* For a file the caller neither owns nor may write, mincore says
	 * every page is resident (its guard against a cache side channel). */
	if (e->measure && st.st_uid != geteuid() &&
	    faccessat(AT_FDCWD, lib, W_OK, AT_EACCESS) != 0) {
		snprintf(e->res->measure_error, sizeof(e->res->measure_error),
		    "mincore: %s is not stressd's to write", rel);
		e->measure = false;
	}
	before = resident_bytes(e, fd, st.st_size);
	if (fdatasync(fd) == -1) {
		note_failure(e, rel, "fdatasync", errno);
		goto out;
	}
	if ((rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)) != 0) {
		note_failure(e, rel, "posix_fadvise", rc);
		goto out;
	}
	after = resident_bytes(e, fd, st.st_size);
	e->res->files++;
	e->res->bytes += (uint64_t)st.st_size;
	e->res->resident_before += before;
	e->res->resident_after += after;
out:
	if (fd != -1)
		close(fd);
	close(pfd);
}

void
evict_dir_files(int dirfd, const struct stress_params *p,
    atomic_uint_fast64_t *busy, const atomic_bool *cancel,
    struct evict_result *res)
{
	struct evict_pass e = { res, sysconf(_SC_PAGESIZE), true };
	double t0 = util_now();
	char rel[64];

	memset(res, 0, sizeof(*res));
	for (uint32_t n = 0; n < p->files; n++) {
		if (cancel != NULL && atomic_load(cancel)) {
			res->cancelled = true;
			break;
		}
		if (busy != NULL)
			atomic_store(busy, writer_busy_now());
		if (rrdfile_name(p, n, rel, sizeof(rel)) == -1)
			note_failure(&e, "a file", "its name", ENAMETOOLONG);
		else
			evict_file(&e, dirfd, rel);
	}
	if (!e.measure)
		res->resident_before = res->resident_after = -1;
	res->seconds = util_now() - t0;
}

void
evict_summary(const struct evict_result *res, char *buf, size_t len)
{
	char before[32] = "not measured", after[32] = "not measured";

	if (res->host) {
		snprintf(buf, len, "synced and dropped the host's page cache "
		    "in %.2f s", res->seconds);
		return;
	}
	if (res->resident_before >= 0) {
		snprintf(before, sizeof(before), "%lld bytes",
		    (long long)res->resident_before);
		snprintf(after, sizeof(after), "%lld bytes",
		    (long long)res->resident_after);
	}
	snprintf(buf, len, "wrote back and evicted %llu files (%llu bytes; "
	    "resident before: %s, after: %s%s%s) in %.2f s; %llu missing "
	    "(to be created), %llu refused, %llu failed%s%s%s",
	    (unsigned long long)res->files, (unsigned long long)res->bytes,
	    before, after, res->measure_error[0] ? "; " : "",
	    res->measure_error, res->seconds,
	    (unsigned long long)res->missing,
	    (unsigned long long)res->refused, (unsigned long long)res->failed,
	    res->failed ? ", first: " : "", res->first_error,
	    res->cancelled ? "; cancelled, the run was stopped" : "");
}

static json_object *
count_json(const struct evict_result *res, uint64_t n)
{
	return res->host ? NULL : json_object_new_int64((int64_t)n);
}

static json_object *
resident_json(const struct evict_result *res, int64_t n)
{
	return res->host || n < 0 ? NULL : json_object_new_int64(n);
}

json_object *
evict_json(const struct evict_result *res)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "method", json_object_new_string(
	    res->host ? "drop-host-caches" : "evict"));
	json_object_object_add(o, "files", count_json(res, res->files));
	json_object_object_add(o, "missing", count_json(res, res->missing));
	json_object_object_add(o, "refused", count_json(res, res->refused));
	json_object_object_add(o, "failed", count_json(res, res->failed));
	json_object_object_add(o, "bytes", count_json(res, res->bytes));
	json_object_object_add(o, "resident_before_bytes",
	    resident_json(res, res->resident_before));
	json_object_object_add(o, "resident_after_bytes",
	    resident_json(res, res->resident_after));
	json_object_object_add(o, "seconds",
	    json_object_new_double(res->seconds));
	json_object_object_add(o, "cancelled",
	    json_object_new_boolean(res->cancelled));
	json_object_object_add(o, "first_error", res->failed ?
	    json_object_new_string(res->first_error) : NULL);
	return o;
}
