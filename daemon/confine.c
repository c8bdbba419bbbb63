/* Reaching files beneath a held directory: see confine.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "confine.h"
#include "util.h"

enum { MODE_UNKNOWN, MODE_OPENAT2, MODE_WALK };

static atomic_int	mode = MODE_UNKNOWN;
static atomic_int	probe_errno;	/* why openat2 failed: the walk */
static atomic_bool	forced_walk;

static int
sys_openat2(int dirfd, const char *path, int flags, mode_t m,
    unsigned long long resolve)
{
	struct open_how how;

	memset(&how, 0, sizeof(how));
	how.flags = (unsigned long long)flags;
	/* openat2 refuses a mode without O_CREAT or O_TMPFILE. */
	how.mode = flags & (O_CREAT | O_TMPFILE) ? m : 0;
	how.resolve = resolve;
	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

/* openat2, unless the kernel lacks it or a seccomp filter refuses it
 * (ENOSYS under systemd's RestrictSUIDSGID=yes, EPERM under a
 * SystemCallFilter= without it): asked once with a call that cannot fail
 * otherwise. */
static int
current_mode(void)
{
	int m = atomic_load(&mode), fd;

	if (atomic_load(&forced_walk))
		return MODE_WALK;
	if (m != MODE_UNKNOWN)
		return m;
	fd = sys_openat2(AT_FDCWD, "/", O_PATH | O_CLOEXEC, 0,
	    RESOLVE_NO_SYMLINKS);
	m = fd >= 0 ? MODE_OPENAT2 : MODE_WALK;
	if (fd >= 0)
		close(fd);
	else
		atomic_store(&probe_errno, errno);
	atomic_store(&mode, m);
	return m;
}

void
confine_force_walk(bool on)
{
	atomic_store(&forced_walk, on);
}

bool
confine_uses_openat2(void)
{
	return current_mode() == MODE_OPENAT2;
}

/* Linux 5.6 brought openat2; a release that does not parse is taken to
 * have it. */
static bool
release_has_openat2(const char *release)
{
	unsigned maj, min;

	if (sscanf(release, "%u.%u", &maj, &min) != 2)
		return true;
	return maj > 5 || (maj == 5 && min >= 6);
}

void
confine_walk_why(int err, const char *release, int seccomp, char *buf,
    size_t len)
{
	const char *name = err == ENOSYS ? "ENOSYS" : err == EPERM ? "EPERM" :
	    err == EACCES ? "EACCES" : strerror(err);

	/* Both a filter and an old kernel say ENOSYS: the release tells. */
	if (err == ENOSYS && !release_has_openat2(release))
		snprintf(buf, len, "Linux %s has no openat2", release);
	else if (seccomp == 2)
		snprintf(buf, len, "a seccomp filter refuses openat2 with %s "
		    "on Linux %s, which has it: systemd's RestrictSUIDSGID=yes "
		    "refuses every openat2, whose mode it cannot inspect", name,
		    release);
	else
		snprintf(buf, len, "openat2 fails with %s on Linux %s", name,
		    release);
}

void
confine_method(char *buf, size_t len)
{
	struct utsname u;
	char why[320];

	if (atomic_load(&forced_walk))
		snprintf(buf, len, "an O_NOFOLLOW walk (forced by a test)");
	else if (current_mode() == MODE_OPENAT2)
		snprintf(buf, len, "openat2 (RESOLVE_BENEATH | "
		    "RESOLVE_NO_SYMLINKS)");
	else {
		if (uname(&u) == -1)
			snprintf(u.release, sizeof(u.release), "?");
		/* Seccomp: 2 is a filter (seccomp(2)'s SECCOMP_MODE_FILTER). */
		confine_walk_why(atomic_load(&probe_errno), u.release,
		    (int)util_proc_status("Seccomp", 10), why, sizeof(why));
		snprintf(buf, len, "an O_NOFOLLOW walk (%s)", why);
	}
}

/*
 * The components of rel into buf (NUL-separated, "" and "." dropped):
 * their count, or -1 with EXDEV for a name that leads out ("..", or
 * absolute beneath a descriptor, relative from AT_FDCWD) and
 * ENAMETOOLONG.
 */
static int
split(int dirfd, const char *rel, char buf[PATH_MAX], const char **comp,
    int maxcomp)
{
	int n = 0;
	char *save = NULL, *c;

	if ((rel[0] == '/') != (dirfd == AT_FDCWD)) {
		errno = EXDEV;
		return -1;
	}
	if (strlen(rel) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(buf, rel);
	for (c = strtok_r(buf, "/", &save); c != NULL;
	    c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0 || n == maxcomp) {
			errno = strcmp(c, "..") == 0 ? EXDEV : ENAMETOOLONG;
			return -1;
		}
		comp[n++] = c;
	}
	return n;
}

/* Is name beneath at a symbolic link (ELOOP), or not a directory when it
 * must be one (ENOTDIR)?  Only to name the refusal: the open that follows
 * with O_NOFOLLOW is what refuses. */
static int
check_at(int at, const char *name, bool dir)
{
	struct stat st;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT ? 0 : -1;
	if (S_ISLNK(st.st_mode)) {
		errno = ELOOP;
		return -1;
	}
	if (dir && !S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/* The fallback: one O_NOFOLLOW open per component. */
static int
walk(int dirfd, const char **comp, int n, int flags, mode_t m)
{
	int cur = dirfd, fd = -1, e;

	if (dirfd == AT_FDCWD &&
	    (cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	for (int i = 0; i < n - 1; i++) {
		if (check_at(cur, comp[i], true) == -1 ||
		    (fd = openat(cur, comp[i], O_PATH | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) == -1)
			goto fail;
		if (cur != dirfd)
			close(cur);
		cur = fd;
	}
	if (n == 0)
		fd = openat(cur, ".", flags | O_CLOEXEC, m);
	else if (check_at(cur, comp[n - 1], (flags & O_DIRECTORY) != 0) == -1)
		fd = -1;
	else
		fd = openat(cur, comp[n - 1], flags | O_NOFOLLOW | O_CLOEXEC,
		    m);
	e = errno;
	if (cur != dirfd)
		close(cur);
	errno = e;
	return fd;
fail:
	e = errno;
	if (cur != dirfd)
		close(cur);
	errno = e;
	return -1;
}

int
confine_open(int dirfd, const char *rel, int flags, mode_t m)
{
	char buf[PATH_MAX];
	const char *comp[PATH_MAX / 2];
	int n = split(dirfd, rel, buf, comp, PATH_MAX / 2), fd;

	if (n == -1)
		return -1;
	if (current_mode() == MODE_WALK)
		return walk(dirfd, comp, n, flags, m);
	/* O_NOFOLLOW with O_PATH would hand back the link itself. */
	fd = sys_openat2(dirfd, rel, (flags & ~O_NOFOLLOW) | O_CLOEXEC, m,
	    RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
	    (dirfd == AT_FDCWD ? 0 : RESOLVE_BENEATH));
	return fd;
}

int
confine_file(int dirfd, const char *rel)
{
	struct stat st;
	int fd = confine_open(dirfd, rel, O_PATH, 0), e;

	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == -1)
		goto fail;
	/* Only the daemon's own files, with no other name: another owner
	 * could rewrite one in place without librrd's lock under a writer
	 * (which corrupts librrd's memory, past what faultguard catches),
	 * and a hard link's other name may lie outside the directory. */
	if (S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_nlink == 1)
		return fd;
	errno = S_ISLNK(st.st_mode) ? ELOOP : S_ISDIR(st.st_mode) ? EISDIR :
	    !S_ISREG(st.st_mode) ? ENXIO : st.st_uid != geteuid() ? EPERM :
	    EMLINK;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

int
confine_mkdirs(int dirfd, const char *rel, mode_t m)
{
	char buf[PATH_MAX];
	const char *comp[PATH_MAX / 2];
	int n = split(dirfd, rel, buf, comp, PATH_MAX / 2), cur, fd, e;

	if (n == -1)
		return -1;
	cur = dirfd == AT_FDCWD ? open("/", O_PATH | O_DIRECTORY | O_CLOEXEC) :
	    openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	/* One component at a time, each beneath the last: mkdir never
	 * follows a symbolic link in its place (EEXIST), the open refuses
	 * it. */
	for (int i = 0; i < n && cur != -1; i++) {
		if (mkdirat(cur, comp[i], m) == -1 && errno != EEXIST)
			fd = -1;
		else
			fd = confine_open(cur, comp[i], O_PATH | O_DIRECTORY,
			    0);
		e = errno;
		close(cur);
		errno = e;
		cur = fd;
	}
	return cur;
}

bool
confine_refused(int e)
{
	return e == ELOOP || e == EXDEV || e == EISDIR || e == ENXIO ||
	    e == EPERM || e == EMLINK;
}

const char *
confine_strerror(int e)
{
	switch (e) {
	case ELOOP:
		return "refused: a symbolic link (never followed in a run's "
		    "directory)";
	case EXDEV:
		return "refused: the name leads out of the run's directory";
	case EISDIR:
		return "refused: a directory, not a regular file";
	case ENXIO:
		return "refused: not a regular file";
	case EPERM:
		return "refused: owned by another user, who could rewrite it "
		    "under librrd";
	case EMLINK:
		return "refused: it has another hard link, maybe outside the "
		    "run's directory";
	case EROFS:
		/* Under systemd (which sets INVOCATION_ID in a service),
		 * ProtectSystem=strict leaves writable only the unit's
		 * ReadWritePaths= that existed when the service started. */
		if (getenv("INVOCATION_ID") == NULL)
			return strerror(e);
		return "Read-only file system: stressd.service may write only "
		    "its ReadWritePaths= as they were when it started (a "
		    "directory made since needs `systemctl restart stressd`; "
		    "one outside them, a drop-in with ReadWritePaths= and a "
		    "restart)";
	default:
		return strerror(e);
	}
}

int
confine_fd_path(char *buf, size_t len, int fd, const char *name)
{
	int r = name != NULL ? snprintf(buf, len, "/proc/self/fd/%d/%s", fd,
	    name) : snprintf(buf, len, "/proc/self/fd/%d", fd);

	return r < 0 || (size_t)r >= len ? -1 : 0;
}

void
confine_unname(char *msg, size_t len, const char *fdpath, const char *shown)
{
	char *out = malloc(len), *p = msg, *hit;
	size_t fl = strlen(fdpath), used = 0;

	if (out == NULL || len == 0) {
		free(out);
		return;
	}
	out[0] = '\0';
	while ((hit = strstr(p, fdpath)) != NULL) {
		/* /proc/self/fd/7 is not the start of /proc/self/fd/71. */
		bool whole = hit[fl] < '0' || hit[fl] > '9';

		used += (size_t)snprintf(out + used, used < len ? len - used :
		    0, "%.*s%s", (int)(hit - p), p, whole ? shown : fdpath);
		p = hit + fl;
	}
	snprintf(out + (used < len ? used : len - 1), used < len ? len - used :
	    1, "%s", p);
	snprintf(msg, len, "%s", out);
	free(out);
}

void
confine_dir_init(struct confine_dir *d)
{
	d->fd = -1;
	d->stage = -1;
	d->stage_name[0] = '\0';
}

/* The owner of a file made in dir: who we are on its filesystem; -1. */
static uid_t
owner_here(int dir)
{
	static const char name[] = ".stressd-owner";
	struct stat st;
	uid_t uid = (uid_t)-1;
	int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);

	if (fd == -1)
		return uid;
	if (fstat(fd, &st) == 0)
		uid = st.st_uid;
	close(fd);
	unlinkat(dir, name, 0);
	return uid;
}

int
confine_dir_stage(struct confine_dir *d)
{
	struct timespec ts;
	struct stat st;
	int e;

	clock_gettime(CLOCK_REALTIME, &ts);
	for (unsigned i = 0; i < 100; i++) {
		snprintf(d->stage_name, sizeof(d->stage_name),
		    ".stressd-new-%ld-%lx", (long)getpid(),
		    (unsigned long)ts.tv_nsec + i);
		if (mkdirat(d->fd, d->stage_name, 0700) == 0)
			break;
		if (errno != EEXIST)
			return -1;
	}
	if ((d->stage = openat(d->fd, d->stage_name, O_PATH | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -1;
	/* Ours and private, not one put in its place meanwhile: owned by
	 * whom a file we make there belongs to (our uid, or the one an NFS
	 * server squashes it to), with no access for others. */
	if (fstat(d->stage, &st) == -1)
		e = errno;
	else if (!S_ISDIR(st.st_mode) || (st.st_mode & 077) != 0 ||
	    owner_here(d->stage) != st.st_uid)
		e = EXDEV;
	else
		return 0;
	close(d->stage);
	d->stage = -1;
	errno = e;
	return -1;
}

int
confine_dir_place(const struct confine_dir *d, const char *name,
    const char *rel)
{
	const char *slash = strrchr(rel, '/'), *base = slash ? slash + 1 : rel;
	char parent[PATH_MAX];
	struct stat st;
	int at = d->fd, rc, e;

	if (slash != NULL) {
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - rel), rel);
		if ((at = confine_open(d->fd, parent, O_PATH | O_DIRECTORY,
		    0)) == -1) {
			e = errno;
			unlinkat(d->stage, name, 0);
			errno = e;
			return -1;
		}
	}
	rc = renameat2(d->stage, name, at, base, RENAME_NOREPLACE);
	/* A filesystem without RENAME_NOREPLACE: a hard link does not
	 * replace either. */
	if (rc == -1 && errno == EINVAL &&
	    (rc = linkat(d->stage, name, at, base, 0)) == 0)
		unlinkat(d->stage, name, 0);
	e = errno;
	if (rc == -1) {
		unlinkat(d->stage, name, 0);
		if (e == EEXIST && fstatat(at, base, &st,
		    AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			e = ELOOP;
	}
	if (at != d->fd)
		close(at);
	errno = e;
	return rc;
}

void
confine_dir_teardown(struct confine_dir *d)
{
	struct stat a, b;

	/* Removed by its name only while the name is still it. */
	if (d->stage >= 0 && fstat(d->stage, &a) == 0 &&
	    fstatat(d->fd, d->stage_name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	    a.st_ino == b.st_ino && a.st_dev == b.st_dev)
		unlinkat(d->fd, d->stage_name, AT_REMOVEDIR);
	if (d->stage >= 0)
		close(d->stage);
	if (d->fd >= 0)
		close(d->fd);
	confine_dir_init(d);
}
