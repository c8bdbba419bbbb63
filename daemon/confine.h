/*
 * Reaching files beneath a directory held open: what allowed_dirs
 * confines is what is opened, not a path string.  No component of a name
 * may be a symbolic link or "..", so a name cannot lead out of the
 * directory however the tree changes around it: openat2(2) with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS where the kernel has it, a walk
 * of O_NOFOLLOW opens where it does not or a seccomp filter refuses it
 * (chosen once, at the first call): the same refusals either way.
 * librrd takes names, not descriptors: it is given /proc/self/fd/N paths.
 */
#ifndef STRESSD_CONFINE_H
#define STRESSD_CONFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Room for confine_fd_path's "/proc/self/fd/N/name" with a run file's
 * name. */
#define CONFINE_FD_PATH_MAX	96

/*
 * Open rel beneath dirfd (openat's flags and mode; O_CLOEXEC always): no
 * component may be a symbolic link; rel may not be absolute nor hold
 * "..".  With dirfd AT_FDCWD rel must be absolute, with no symbolic link
 * either.  -1 with errno: ELOOP a symbolic link, EXDEV a name that leads
 * out, or openat's own.
 */
int	confine_open(int dirfd, const char *rel, int flags, mode_t mode);
/* An O_PATH descriptor of the regular file rel beneath dirfd; -1 with
 * confine_open's errno, or EISDIR (a directory) or ENXIO (another file
 * that is no regular file: a FIFO would block librrd's open). */
int	confine_file(int dirfd, const char *rel);
/* The directory rel beneath dirfd as an O_PATH descriptor, each missing
 * component made with mode; -1 with confine_open's errno (ENOTDIR when a
 * component is no directory). */
int	confine_mkdirs(int dirfd, const char *rel, mode_t mode);
/* Does errno e (of the calls above) mean the name was refused: ELOOP,
 * EXDEV, EISDIR, ENXIO? */
bool	confine_refused(int e);
/* Words for e: the refusals in the run's terms, EROFS under a service
 * with what to do (restart, ReadWritePaths=), strerror for the rest. */
const char *confine_strerror(int e);
/* "/proc/self/fd/N", or ".../N/name" when name is not NULL: a name
 * through the descriptor for librrd.  0, or -1 when it does not fit. */
int	confine_fd_path(char *buf, size_t len, int fd, const char *name);
/* Put shown in place of each whole fd path (confine_fd_path's) in msg,
 * so that messages name the run's files as the user knows them. */
void	confine_unname(char *msg, size_t len, const char *fdpath,
	    const char *shown);
/* Test hook: true forces the O_NOFOLLOW walk, false the automatic
 * choice again. */
void	confine_force_walk(bool on);
/* Is openat2 in use (the kernel has it, no seccomp filter refuses it and
 * nothing forces the walk)? */
bool	confine_uses_openat2(void);
/* Which way names are resolved, and why the walk when it is the walk:
 * "openat2 (...)" or "an O_NOFOLLOW walk (<confine_walk_why>)". */
void	confine_method(char *buf, size_t len);
/* Why openat2 failed with errno err, on kernel release (uname -r), in
 * seccomp mode (/proc/self/status: 2 a filter): an old kernel, a filter
 * (systemd's RestrictSUIDSGID=yes refuses every openat2 with ENOSYS), or
 * neither. */
void	confine_walk_why(int err, const char *release, int seccomp,
	    char *buf, size_t len);

/*
 * A run's directory held for the whole run, and beside its files a
 * private staging directory (mode 0700, ours) where new files are made:
 * librrd 1.7.2 creates through a temporary file that it chmods and
 * renames by name, which in a directory others may write could be swapped
 * for a symbolic link in between.  A file made there is moved into place
 * with renameat2(RENAME_NOREPLACE).
 */
struct confine_dir {
	int	fd;		/* O_PATH of the run directory; -1: none */
	int	stage;		/* O_PATH of the staging directory; -1 */
	char	stage_name[40];	/* its name in fd */
};

/* Both descriptors -1. */
void	confine_dir_init(struct confine_dir *d);
/* Make the staging directory in d->fd; 0, or -1 with errno. */
int	confine_dir_stage(struct confine_dir *d);
/* Move the file name of the staging directory to rel beneath d->fd
 * (never over anything there); the staged file is removed either way.
 * 0, or -1 with errno (ELOOP when a symbolic link took rel's place). */
int	confine_dir_place(const struct confine_dir *d, const char *name,
	    const char *rel);
/* Remove the staging directory, close both. */
void	confine_dir_teardown(struct confine_dir *d);

#endif
