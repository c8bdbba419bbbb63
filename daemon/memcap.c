/* The memory cap: the daemon's own cgroup, and the cap in force; see
 * memcap.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "memcap.h"

#define MIB		(1024.0 * 1024.0)
/* v1 says "unlimited" with a page-rounded LONG_MAX; anything this big is
 * no cap. */
#define UNLIMITED	(1ULL << 62)

static const char	*cg_root = "/sys/fs/cgroup";
static const char	*proc_cgroup = "/proc/self/cgroup";

/* Where the daemon's memory is accounted, from /proc/self/cgroup. */
struct where {
	int	 v;		/* 1, 2, or 0: no memory controller */
	char	 ctrl[64];	/* v1: the hierarchy's name, "memory" */
	char	 path[PATH_MAX];	/* the cgroup, "/" for the root */
	bool	 service;	/* some hierarchy names a .service */
};

/* The cgroup memcap_init made, while the daemon is in it. */
static struct {
	bool	 active;
	char	 orig[PATH_MAX];	/* the directory it came from */
	char	 own[PATH_MAX + 32];	/* the directory of ours */
} mc;

void
memcap_set_paths(const char *cgroupfs, const char *proc)
{
	cg_root = cgroupfs != NULL ? cgroupfs : "/sys/fs/cgroup";
	proc_cgroup = proc != NULL ? proc : "/proc/self/cgroup";
}

int
memcap_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	uint64_t mult = 1;
	char *end;
	const char *units = "KMGT", *u;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	if (*end != '\0') {
		if ((u = strchr(units, toupper((unsigned char)*end))) == NULL)
			return -1;
		for (const char *p = units; p <= u; p++)
			mult *= 1024;
		end++;
		if (strcasecmp(end, "") != 0 && strcasecmp(end, "B") != 0 &&
		    strcasecmp(end, "iB") != 0)
			return -1;
	}
	if (v == 0 || v > (unsigned long long)INT64_MAX / mult)
		return -1;
	*out = (uint64_t)v * mult;
	return 0;
}

/* bytes in the unit they were likely given in: "63 MiB", "64 KiB",
 * "67108863 bytes". */
static void
size_text(uint64_t bytes, char *buf, size_t len)
{
	if (bytes % (1024 * 1024) == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(bytes >> 20));
	else if (bytes % 1024 == 0)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(bytes >> 10));
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
}

int
memcap_check_floor(uint64_t bytes, char *err, size_t len)
{
	char have[48];

	if (bytes >= MEMCAP_FLOOR)
		return 0;
	size_text(bytes, have, sizeof(have));
	snprintf(err, len, "--memory-max: %s is below the %.0f MiB stressd "
	    "needs for itself; give at least %lluM", have,
	    (double)MEMCAP_FLOOR / MIB, (unsigned long long)(MEMCAP_FLOOR >> 20));
	return -1;
}

/* Does the list (comma-, blank- or newline-separated) hold word? */
static bool
has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || strchr(", \n", p[-1]) != NULL) &&
		    (p[n] == '\0' || strchr(", \n", p[n]) != NULL))
			return true;
	return false;
}

static int
read_text(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "re");
	size_t n;

	if (fp == NULL)
		return -1;
	n = fread(buf, 1, len - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return 0;
}

/* Does the last component of path end in ".service"? */
static bool
names_service(const char *path)
{
	size_t n = strlen(path);

	while (n > 0 && path[n - 1] == '/')
		n--;
	return n >= 8 && strncmp(path + n - 8, ".service", 8) == 0;
}

/* The daemon's memory cgroup: a v1 hierarchy with memory wins (hybrid
 * hosts have both), then the unified one if it has memory. */
static void
find_cgroup(struct where *w)
{
	FILE *fp = fopen(proc_cgroup, "re");
	char line[PATH_MAX + 128], unified[PATH_MAX] = "", buf[256];
	bool have_unified = false;

	memset(w, 0, sizeof(*w));
	while (fp != NULL && fgets(line, sizeof(line), fp) != NULL) {
		char *c = strchr(line, ':'), *p;

		line[strcspn(line, "\n")] = '\0';
		if (c == NULL || (p = strchr(c + 1, ':')) == NULL)
			continue;
		*p++ = '\0';
		c++;
		w->service |= names_service(p);
		if (*c == '\0' && strlen(p) < sizeof(unified)) {
			memcpy(unified, p, strlen(p) + 1);
			have_unified = true;
		} else if (w->v == 0 && has_word(c, "memory") &&
		    strlen(c) < sizeof(w->ctrl) && strlen(p) < sizeof(w->path)) {
			w->v = 1;
			snprintf(w->ctrl, sizeof(w->ctrl), "%s", c);
			snprintf(w->path, sizeof(w->path), "%s", p);
		}
	}
	if (fp != NULL)
		fclose(fp);
	if (w->v == 0 && have_unified) {
		snprintf(line, sizeof(line), "%s/cgroup.controllers", cg_root);
		if (read_text(line, buf, sizeof(buf)) == 0 &&
		    has_word(buf, "memory")) {
			w->v = 2;
			snprintf(w->path, sizeof(w->path), "%s", unified);
		}
	}
}

/* The directory of cgroup path (as /proc/self/cgroup names it). */
static void
cgroup_dir(const struct where *w, const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", cg_root, w->v == 1 ? "/" : "",
	    w->v == 1 ? w->ctrl : "", strcmp(path, "/") == 0 ? "" : path);
}

static const char *
limit_file(int v)
{
	return v == 1 ? "memory.limit_in_bytes" : "memory.max";
}

/* The limit in dir, false when it has none ("max", unlimited, absent). */
static bool
read_limit(int v, const char *dir, uint64_t *out)
{
	char path[PATH_MAX + 64], buf[64], *end;
	unsigned long long n;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
	    limit_file(v)) >= sizeof(path) ||
	    read_text(path, buf, sizeof(buf)) == -1 || !isdigit(
	    (unsigned char)buf[0]))
		return false;
	errno = 0;
	n = strtoull(buf, &end, 10);
	if (errno != 0 || (*end != '\0' && *end != '\n') || n >= UNLIMITED)
		return false;
	*out = n;
	return true;
}

bool
memcap_effective(uint64_t *limit, char *source, size_t len)
{
	struct where w;
	char path[PATH_MAX], dir[PATH_MAX + 128], best[PATH_MAX] = "";
	char bestdir[PATH_MAX + 128] = "";
	uint64_t v, min = UINT64_MAX;

	find_cgroup(&w);
	if (w.v == 0)
		return false;
	snprintf(path, sizeof(path), "%s", w.path);
	for (;;) {
		char *slash;

		cgroup_dir(&w, path, dir, sizeof(dir));
		if (read_limit(w.v, dir, &v) && v < min) {
			min = v;
			snprintf(best, sizeof(best), "%s", path);
			snprintf(bestdir, sizeof(bestdir), "%s", dir);
		}
		if ((slash = strrchr(path, '/')) == NULL || strcmp(path, "/") == 0)
			break;
		slash[slash == path] = '\0';	/* "/a" -> "/" */
	}
	if (min == UINT64_MAX)
		return false;
	*limit = min;
	if (source == NULL)
		return true;
	if (mc.active && strcmp(bestdir, mc.own) == 0)
		snprintf(source, len, "stressd --memory-max (cgroup v%d %s, %s)",
		    w.v, limit_file(w.v), best);
	else
		snprintf(source, len, "cgroup v%d %s of %s", w.v,
		    limit_file(w.v), best);
	return true;
}

json_object *
memcap_json(void)
{
	json_object *o = json_object_new_object();
	char src[PATH_MAX + 128];
	uint64_t limit;
	bool set = memcap_effective(&limit, src, sizeof(src));

	json_object_object_add(o, "limit_bytes", set ?
	    json_object_new_int64((int64_t)limit) : NULL);
	json_object_object_add(o, "source", set ? json_object_new_string(src) :
	    NULL);
	return o;
}

uint64_t
memcap_clamp_available(uint64_t avail)
{
	uint64_t limit;

	return memcap_effective(&limit, NULL, 0) && limit < avail ? limit :
	    avail;
}

uint64_t
memcap_held(void)
{
	char buf[128];
	unsigned long long size, resident;
	long page = sysconf(_SC_PAGESIZE);

	if (read_text("/proc/self/statm", buf, sizeof(buf)) == -1 ||
	    sscanf(buf, "%llu %llu", &size, &resident) != 2 || page <= 0)
		return 0;
	return (uint64_t)resident * (uint64_t)page;
}

bool
memcap_room(uint64_t *room, char *why, size_t len)
{
	char src[PATH_MAX + 128];
	uint64_t limit, held = memcap_held(), keep;

	if (!memcap_effective(&limit, src, sizeof(src)))
		return false;
	keep = held > MEMCAP_FLOOR ? held : MEMCAP_FLOOR;
	*room = limit > keep ? limit - keep : 0;
	snprintf(why, len, "the %.0f MiB a run may use: the memory cap of %.0f "
	    "MiB (%s) less the %.0f MiB stressd %s", (double)*room / MIB,
	    (double)limit / MIB, src, (double)keep / MIB, held > MEMCAP_FLOOR ?
	    "holds now" : "keeps for itself");
	return true;
}

int
memcap_check_queue(uint64_t *queue_mib, bool given, char *err, size_t len)
{
	char src[PATH_MAX + 128];
	uint64_t limit, room;

	if (!memcap_effective(&limit, src, sizeof(src)))
		return 0;
	room = limit > MEMCAP_FLOOR ? (limit - MEMCAP_FLOOR) >> 20 : 0;
	if (room == 0) {
		snprintf(err, len, "the memory cap of %.0f MiB (%s) leaves no "
		    "room for the queue (queue_memory_max) beside the %.0f MiB "
		    "stressd needs for itself", (double)limit / MIB, src,
		    (double)MEMCAP_FLOOR / MIB);
		return -1;
	}
	if (!given && (*queue_mib == 0 || *queue_mib > room)) {
		*queue_mib = room;	/* the default, made to fit */
		return 0;
	}
	if (*queue_mib == 0) {
		snprintf(err, len, "queue_memory_max 0 (unbounded) under a memory "
		    "cap of %.0f MiB (%s): the queue could outgrow the cap; give "
		    "at most %llu (MiB), which leaves the %.0f MiB stressd needs "
		    "for itself", (double)limit / MIB, src,
		    (unsigned long long)room, (double)MEMCAP_FLOOR / MIB);
		return -1;
	}
	if (*queue_mib > room) {
		snprintf(err, len, "queue_memory_max %llu MiB and the %.0f MiB "
		    "stressd needs for itself exceed the memory cap of %.0f MiB "
		    "(%s): give at most %llu", (unsigned long long)*queue_mib,
		    (double)MEMCAP_FLOOR / MIB, (double)limit / MIB, src,
		    (unsigned long long)room);
		return -1;
	}
	return 0;
}

/* Write text to dir/name, as echo would. */
static int
write_text(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	size_t n = strlen(text);
	ssize_t w;
	int fd, e;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) == -1)
		return -1;
	w = write(fd, text, n);
	e = errno;
	close(fd);
	errno = w == -1 ? e : errno;
	return w == (ssize_t)n ? 0 : -1;
}

/* Remove the stressd-<pid> cgroups in dir whose daemon is gone (a kill
 * -9 leaves them); one still in use refuses rmdir anyway. */
static void
reap_stale(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[PATH_MAX + 300], *end;
	long pid;

	while (d != NULL && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "stressd-", 8) != 0)
			continue;
		pid = strtol(de->d_name + 8, &end, 10);
		if (*end != '\0' || pid <= 0 || pid == (long)getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
		    de->d_name) < sizeof(path) && rmdir(path) == 0)
			log_info("removed %s, left by a stressd that is gone",
			    path);
	}
	if (d != NULL)
		closedir(d);
}

/* Why mkdir or a write in the cgroupfs failed, in what-to-do terms. */
static const char *
why(int e)
{
	switch (e) {
	case EACCES:
	case EPERM:
		return "not permitted (stressd must run as root, or in a "
		    "cgroup delegated to its user)";
	case EROFS:
		return "the cgroup filesystem is read-only (in a container: "
		    "give the container the memory limit instead)";
	case ENOENT:
		return "the daemon's cgroup is not in this cgroup filesystem "
		    "(a container without a cgroup namespace of its own?)";
	default:
		return strerror(e);
	}
}

/* The checks that come before anything is made; 0, or -1 with err. */
static int
preflight(uint64_t bytes, struct where *w, char *err, size_t len)
{
	char path[PATH_MAX + 64], buf[256];

	if (memcap_check_floor(bytes, err, len) == -1)
		return -1;
	find_cgroup(w);
	if (getenv("INVOCATION_ID") != NULL || w->service) {
		snprintf(err, len, "--memory-max: stressd runs as a systemd "
		    "service, and does not move itself out of its unit: cap the "
		    "unit instead, with systemctl set-property stressd.service "
		    "MemoryMax=SIZE or MemoryMax= in a drop-in (it shows in "
		    "report.json's \"memory\" all the same)");
		return -1;
	}
	if (w->v == 0) {
		snprintf(err, len, "--memory-max: this host has no cgroup memory "
		    "controller (no cgroup v1 memory hierarchy in %s, no memory "
		    "in %s/cgroup.controllers)", proc_cgroup, cg_root);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", cg_root);
	if (w->v == 2 && (read_text(path, buf, sizeof(buf)) == -1 ||
	    !has_word(buf, "memory"))) {
		snprintf(err, len, "--memory-max: the cgroup v2 memory controller "
		    "is not enabled for the root's children (%s lacks memory: "
		    "echo +memory > %s)", path, path);
		return -1;
	}
	return 0;
}

int
memcap_init(uint64_t bytes, char *err, size_t len)
{
	struct where w;
	char num[32], parent[PATH_MAX + 128], src[PATH_MAX + 128];
	const char *step = NULL;
	uint64_t lim;

	if (mc.active || preflight(bytes, &w, err, len) == -1)
		return mc.active ? 0 : -1;
	cgroup_dir(&w, w.path, mc.orig, sizeof(mc.orig));
	/* v2: only the root may hold both processes and a child with
	 * memory, so ours goes there. */
	snprintf(parent, sizeof(parent), "%s", w.v == 1 ? mc.orig : cg_root);
	if ((size_t)snprintf(mc.own, sizeof(mc.own), "%s/stressd-%ld",
	    parent, (long)getpid()) >= sizeof(mc.own)) {
		snprintf(err, len, "--memory-max: the cgroup path is too long");
		return -1;
	}
	reap_stale(parent);
	if (mkdir(mc.own, 0755) == -1 && (errno != EEXIST ||
	    rmdir(mc.own) == -1 || mkdir(mc.own, 0755) == -1)) {
		snprintf(err, len, "--memory-max: cannot create the cgroup %s: "
		    "%s", mc.own, why(errno));
		return -1;
	}
	snprintf(num, sizeof(num), "%llu", (unsigned long long)bytes);
	if (write_text(mc.own, limit_file(w.v), num) == -1)
		step = limit_file(w.v);
	else {
		snprintf(num, sizeof(num), "%ld", (long)getpid());
		if (write_text(mc.own, "cgroup.procs", num) == -1)
			step = "cgroup.procs";
	}
	if (step != NULL) {
		int e = errno;

		rmdir(mc.own);
		snprintf(err, len, "--memory-max: cannot write %s to %s/%s: %s",
		    num, mc.own, step, why(e));
		return -1;
	}
	mc.active = true;
	log_info("memory cap: %.0f MiB (cgroup v%d %s of %s)",
	    (double)bytes / MIB, w.v, limit_file(w.v), mc.own);
	if (memcap_effective(&lim, src, sizeof(src)) && lim < bytes)
		log_warnx("memory cap: %s is less, %.0f MiB: it is the one in "
		    "force", src, (double)lim / MIB);
	return 0;
}

void
memcap_teardown(void)
{
	char num[32];

	if (!mc.active)
		return;
	mc.active = false;
	snprintf(num, sizeof(num), "%ld", (long)getpid());
	if (write_text(mc.orig, "cgroup.procs", num) == -1)
		log_warn("memory cap: cannot move back to %s", mc.orig);
	else if (rmdir(mc.own) == -1)
		log_warn("memory cap: cannot remove %s", mc.own);
}
