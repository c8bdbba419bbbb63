/* Where runs may go: allowed_dirs and allowed_targets of stressd.conf. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "confine.h"
#include "conffile.h"
#include "policy.h"
#include "util.h"

/*
 * path as realpath would give it, even when its tail does not exist yet
 * (a run creates its dir): the longest existing ancestor through
 * realpath, the rest appended.  Only a missing component walks up: any
 * other failure is an answer.  The appended rest may hold no "..", which
 * realpath cannot judge there, and no dangling symlink, whose target
 * mkdir would follow.  0, or -1 with why in err.
 */
static int
resolve(const char *path, char out[PATH_MAX], char *err, size_t errlen)
{
	char work[PATH_MAX], rest[PATH_MAX] = "", real[PATH_MAX], tmp[PATH_MAX];
	struct stat st;

	if (path[0] != '/') {
		snprintf(err, errlen, "'%s' is not an absolute path", path);
		return -1;
	}
	if (strlen(path) >= sizeof(work)) {
		snprintf(err, errlen, "'%.64s...' is too long", path);
		return -1;
	}
	strcpy(work, path);
	while (realpath(work, real) == NULL) {
		char *slash, *comp;

		if (errno != ENOENT) {
			snprintf(err, errlen, "'%s': %s", path,
			    strerror(errno));
			return -1;
		}
		if (lstat(work, &st) == 0) {
			snprintf(err, errlen, "'%s': '%s' is a dangling "
			    "symbolic link", path, work);
			return -1;
		}
		/* Strip the last component into rest. */
		for (size_t n = strlen(work); n > 1 && work[n - 1] == '/'; )
			work[--n] = '\0';
		slash = strrchr(work, '/');
		comp = slash + 1;
		if (strcmp(comp, "..") == 0) {
			snprintf(err, errlen, "'%s': '..' in the part that "
			    "does not exist yet", path);
			return -1;
		}
		if (*comp != '\0' && strcmp(comp, ".") != 0) {
			snprintf(tmp, sizeof(tmp), "%s%s%s", comp, *rest ? "/" :
			    "", rest);
			strcpy(rest, tmp);
		}
		if (slash == work)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	if (*rest == '\0')
		snprintf(out, PATH_MAX, "%s", real);
	else if ((size_t)snprintf(out, PATH_MAX, "%s%s%s", real,
	    strcmp(real, "/") == 0 ? "" : "/", rest) >= PATH_MAX) {
		snprintf(err, errlen, "'%.64s...' is too long", path);
		return -1;
	}
	return 0;
}

/* Is dir root or below it?  Whole components only: /tmp/xy is not in
 * /tmp/x. */
static bool
path_inside(const char *dir, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return true;
	return strncmp(dir, root, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
}

/* path with ".", ".." and repeated slashes taken out as text, with no
 * look at the file system (so it tells nothing of what is there). */
static void
lexical(const char *path, char out[PATH_MAX])
{
	size_t n = 0;
	const char *p = path;

	out[n++] = '/';
	while (*p != '\0') {
		const char *e;
		size_t len;

		while (*p == '/')
			p++;
		if ((e = strchr(p, '/')) == NULL)
			e = p + strlen(p);
		len = (size_t)(e - p);
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (n > 1 && out[n - 1] != '/')
				n--;
			if (n > 1)
				n--;	/* the slash before it */
		} else if (len > 0 && !(len == 1 && p[0] == '.') &&
		    n + len + 1 < PATH_MAX) {
			if (n > 1)
				out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
		}
		p = e;
	}
	out[n] = '\0';
}

int
policy_target_allowed(const struct config *c, const char *target,
    char *err, size_t errlen)
{
	char list[1024] = "";
	size_t len = 0;

	if (c->ntargets == 0 || strncmp(target, "rrdcached:", 10) != 0)
		return 1;
	for (size_t i = 0; i < c->ntargets; i++) {
		if (strcmp(target + 10, c->allowed_targets[i]) == 0)
			return 1;
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len,
			    "%s%s", i ? ", " : "", c->allowed_targets[i]);
	}
	snprintf(err, errlen, "target '%s' is not in allowed_targets (%s)",
	    target, list);
	return 0;
}

/*
 * Is dir inside one of the n allowed dirs?  1 with its resolved path in
 * real and the allowed dir's in root, or 0 with why in err.
 */
static int
inside(const char (*dirs)[4096], size_t n, const char *dir,
    char real[PATH_MAX], char root[PATH_MAX], char *err, size_t errlen)
{
	char why[PATH_MAX + 128], rwhy[PATH_MAX + 128], list[1024] = "",
	    lex[PATH_MAX];
	bool resolved, text_inside = false;
	size_t len = 0;

	for (size_t i = 0; i < n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
		    i ? ", " : "", dirs[i]);
	/* Resolved now, not at load: the tree may change in between.  Each
	 * allowed dir is resolved once and compared with dir both as
	 * resolved and as text (lexical: no look at the file system). */
	resolved = resolve(dir, real, why, sizeof(why)) == 0;
	lexical(dir, lex);
	for (size_t i = 0; i < n; i++) {
		lexical(dirs[i], root);
		text_inside = text_inside || path_inside(lex, root);
		if (resolve(dirs[i], root, rwhy, sizeof(rwhy)) == -1)
			continue;
		/* An allowed dir named through a symlink: its own path. */
		text_inside = text_inside || path_inside(lex, root);
		if (resolved && path_inside(real, root))
			return 1;
	}
	/* Outside the allowed tree even as text, a refusal quotes only the
	 * client's path: what realpath found there (an error, a link's
	 * target) is what the daemon may see, not the client. */
	if (!text_inside && dir[0] == '/') {
		snprintf(err, errlen, "'%s' is not inside allowed_dirs (%s)",
		    dir, list);
		return 0;
	}
	if (!resolved) {
		snprintf(err, errlen, "%s (allowed_dirs: %s)", why, list);
		return 0;
	}
	if (strcmp(real, dir) == 0)
		snprintf(err, errlen, "'%s' is not inside allowed_dirs (%s)",
		    dir, list);
	else
		snprintf(err, errlen, "'%s' (really '%s') is not inside "
		    "allowed_dirs (%s)", dir, real, list);
	return 0;
}

int
policy_dir_allowed(const struct config *c, const char *dir, char *err,
    size_t errlen)
{
	char real[PATH_MAX], root[PATH_MAX];

	if (!c->restricted)
		return 1;
	return inside(c->allowed_dirs, c->nallowed, dir, real, root, err,
	    errlen);
}

struct policy_dirs {
	bool	 restricted;
	size_t	 n;
	char	(*dirs)[4096];
};

struct policy_dirs *
policy_dirs_copy(const struct config *c)
{
	struct policy_dirs *d = calloc(1, sizeof(*d));

	if (d == NULL || c == NULL || !c->restricted)
		return d;
	d->restricted = true;
	if ((d->dirs = calloc(c->nallowed, sizeof(d->dirs[0]))) == NULL) {
		free(d);
		return NULL;
	}
	memcpy(d->dirs, c->allowed_dirs, c->nallowed * sizeof(d->dirs[0]));
	d->n = c->nallowed;
	return d;
}

void
policy_dirs_free(struct policy_dirs *d)
{
	if (d != NULL)
		free(d->dirs);
	free(d);
}

int
policy_dir_open(const struct policy_dirs *d, const char *dir, char *err,
    size_t errlen)
{
	char real[PATH_MAX], root[PATH_MAX];
	const char *rel;
	int rfd, fd, e;

	if (!d->restricted) {
		/* Anywhere goes: the dir as named, held from now on. */
		if (util_mkdir_p(dir, 0755) == -1 || (fd = open(dir,
		    O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1) {
			snprintf(err, errlen, "cannot create or open dir %s: "
			    "%s", dir, confine_strerror(errno));
			return -1;
		}
		return fd;
	}
	if (!inside(d->dirs, d->n, dir, real, root, err, errlen))
		return -1;
	/* Both are resolved: no symbolic link may appear in them now. */
	if ((rfd = confine_open(AT_FDCWD, root, O_PATH | O_DIRECTORY,
	    0)) == -1) {
		snprintf(err, errlen, "allowed dir %s: %s", root,
		    confine_strerror(errno));
		return -1;
	}
	rel = real + strlen(root);
	fd = confine_mkdirs(rfd, *rel == '\0' ? "." : rel + (*rel == '/'),
	    0755);
	e = errno;
	close(rfd);
	if (fd == -1)
		snprintf(err, errlen, "cannot create or open dir %s beneath "
		    "%s: %s", dir, root, confine_strerror(e));
	return fd;
}
