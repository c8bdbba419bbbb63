/* Where runs may go: allowed_dirs and allowed_targets of stressd.conf. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conffile.h"
#include "policy.h"

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

int
policy_dir_allowed(const struct config *c, const char *dir, char *err,
    size_t errlen)
{
	char real[PATH_MAX], root[PATH_MAX], why[PATH_MAX + 128];
	char list[1024] = "";
	size_t len = 0;

	if (!c->restricted)
		return 1;
	for (size_t i = 0; i < c->nallowed && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
		    i ? ", " : "", c->allowed_dirs[i]);
	if (resolve(dir, real, why, sizeof(why)) == -1) {
		snprintf(err, errlen, "%s (allowed_dirs: %s)", why, list);
		return 0;
	}
	/* Resolved now, not at load: the tree may change in between. */
	for (size_t i = 0; i < c->nallowed; i++)
		if (resolve(c->allowed_dirs[i], root, why, sizeof(why)) == 0 &&
		    path_inside(real, root))
			return 1;
	if (strcmp(real, dir) == 0)
		snprintf(err, errlen, "'%s' is not inside allowed_dirs (%s)",
		    dir, list);
	else
		snprintf(err, errlen, "'%s' (really '%s') is not inside "
		    "allowed_dirs (%s)", dir, real, list);
	return 0;
}
