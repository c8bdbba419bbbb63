/* Which mount a path is on; see mountinfo.h and proc(5) for the format. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mountinfo.h"

#define MOUNTINFO_PATH	"/proc/self/mountinfo"
#define READ_CHUNK	16384

/* The fields of one entry as they stand in the table (still escaped). */
struct entry {
	const char	*mount_point;
	const char	*mount_options;
	const char	*fs_type;
	const char	*mount_source;
	const char	*super_options;
};

/* ------------------------------------------------------------ parsing */

/* Cut the next field off *p at a single space; NULL past the end of the
 * line.  Empty fields are kept: an empty mount source prints as two
 * spaces, and collapsing them would shift the fields after it. */
static char *
next_field(char **p)
{
	char *f = *p, *sp;

	if (f == NULL)
		return NULL;
	if ((sp = strchr(f, ' ')) != NULL) {
		*sp = '\0';
		*p = sp + 1;
	} else
		*p = NULL;
	return f;
}

static bool
is_number(const char *s)
{
	if (*s == '\0')
		return false;
	while (*s >= '0' && *s <= '9')
		s++;
	return *s == '\0';
}

/* major:minor */
static bool
is_devno(const char *s)
{
	size_t n = strspn(s, "0123456789");

	return n > 0 && s[n] == ':' && is_number(s + n + 1);
}

static bool
is_octal(char c)
{
	return c >= '0' && c <= '7';
}

/* Decode the kernel's octal escapes (\040 space, \011 tab, \012 newline,
 * \134 backslash; any \ooo is taken, as libmount does) into out.  False
 * when the result does not fit or would hold a NUL byte. */
static bool
unescape(const char *s, char *out, size_t outlen)
{
	size_t n = 0;

	while (*s != '\0') {
		int c = (unsigned char)*s;

		if (c == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    is_octal(s[2]) && is_octal(s[3])) {
			c = (s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0');
			if (c == 0)
				return false;
			s += 4;
		} else
			s++;
		if (n + 1 >= outlen)
			return false;
		out[n++] = (char)c;
	}
	out[n] = '\0';
	return true;
}

/* Split one line (NUL-terminated, newline removed) into e, decoding the
 * mount point into mp.  False for a line that is not a mount entry. */
static bool
parse_line(char *line, struct entry *e, char *mp, size_t mplen)
{
	char *p = line, *id, *parent, *devno, *root, *f;
	size_t len;

	id = next_field(&p);
	parent = next_field(&p);
	devno = next_field(&p);
	root = next_field(&p);
	e->mount_point = next_field(&p);
	e->mount_options = next_field(&p);
	/* A short line leaves the later fields NULL, the earlier ones not. */
	if (e->mount_options == NULL || !is_number(id) || !is_number(parent) ||
	    !is_devno(devno) || *root == '\0' || *e->mount_options == '\0')
		return false;
	/* Optional fields (shared:N master:N ...), as many as there are, up
	 * to the lone "-". */
	while ((f = next_field(&p)) != NULL && strcmp(f, "-") != 0)
		;
	if (f == NULL)
		return false;
	e->fs_type = next_field(&p);
	e->mount_source = next_field(&p);
	e->super_options = next_field(&p);
	if (e->super_options == NULL || *e->fs_type == '\0')
		return false;
	/* A mount point too long for mp cannot prefix a resolved path, which
	 * realpath keeps under PATH_MAX. */
	if (!unescape(e->mount_point, mp, mplen) || mp[0] != '/')
		return false;
	/* The kernel prints none, but a hand-written "/var/" is "/var". */
	len = strlen(mp);
	while (len > 1 && mp[len - 1] == '/')
		mp[--len] = '\0';
	return true;
}

/* Whether mount point mp holds path, on a path-component boundary:
 * "/var" holds "/var" and "/var/lib", not "/variable". */
static bool
holds(const char *mp, const char *path)
{
	size_t len = strlen(mp);

	if (len == 1)
		return true;	/* "/" */
	return strncmp(mp, path, len) == 0 &&
	    (path[len] == '\0' || path[len] == '/');
}

/* Decode an option list into out, ending after the last whole option that
 * fits when the list is longer: a cut option would be a wrong one. */
static bool
copy_options(const char *raw, char *out, size_t outlen)
{
	size_t rawlen = strlen(raw);
	char *dec, *comma;

	if (rawlen < outlen)
		return unescape(raw, out, outlen);
	if ((dec = malloc(rawlen + 1)) == NULL)
		return false;
	if (!unescape(raw, dec, rawlen + 1)) {
		free(dec);
		return false;
	}
	if (strlen(dec) >= outlen) {
		/* Keep what fits up to its last comma, or all of it when a
		 * comma is the first byte that does not fit. */
		bool boundary = dec[outlen - 1] == ',';

		dec[outlen - 1] = '\0';
		if (!boundary) {
			comma = strrchr(dec, ',');
			dec[comma != NULL ? comma - dec : 0] = '\0';
		}
	}
	memcpy(out, dec, strlen(dec) + 1);
	free(dec);
	return true;
}

static bool
fill(const struct entry *e, const char *mp, struct mountinfo *mi)
{
	memset(mi, 0, sizeof(*mi));
	memcpy(mi->mount_point, mp, strlen(mp) + 1);
	return unescape(e->fs_type, mi->fs_type, sizeof(mi->fs_type)) &&
	    unescape(e->mount_source, mi->mount_source,
	    sizeof(mi->mount_source)) &&
	    copy_options(e->mount_options, mi->mount_options,
	    sizeof(mi->mount_options)) &&
	    copy_options(e->super_options, mi->super_options,
	    sizeof(mi->super_options));
}

/* mountinfo_lookup_in, with the path to name in messages given apart. */
static int
lookup(const char *table, const char *resolved, const char *name,
    struct mountinfo *mi, char *err, size_t errlen)
{
	char mp[sizeof(mi->mount_point)], best_mp[sizeof(mi->mount_point)];
	char *copy, *line, *next;
	struct entry e, best;
	size_t best_len = 0;
	bool found = false;

	if (resolved[0] != '/') {
		snprintf(err, errlen, "%s: not an absolute path", name);
		return -1;
	}
	/* A private copy, cut into fields in place. */
	if ((copy = strdup(table)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	for (line = copy; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (!parse_line(line, &e, mp, sizeof(mp)) ||
		    !holds(mp, resolved))
			continue;
		/* >=: of stacked mounts on one point the last is visible.
		 * Two different mount points of one length cannot both
		 * prefix the path, so equal length means the same point. */
		if (strlen(mp) >= best_len) {
			best = e;
			best_len = strlen(mp);
			memcpy(best_mp, mp, best_len + 1);
			found = true;
		}
	}
	if (!found) {
		snprintf(err, errlen, "%s: on no mount in the mount table",
		    name);
		goto fail;
	}
	if (!fill(&best, best_mp, mi)) {
		snprintf(err, errlen, "%s: the entry of mount %s has a field "
		    "too long or holding a NUL byte", name, best_mp);
		goto fail;
	}
	free(copy);
	return 0;
fail:
	free(copy);
	return -1;
}

/* ------------------------------------------------------------ API */

int
mountinfo_lookup_in(const char *table, const char *resolved_path,
    struct mountinfo *mi, char *err, size_t errlen)
{
	return lookup(table, resolved_path, resolved_path, mi, err, errlen);
}

/* All of a /proc file: stat says size 0, so read to EOF into a growing
 * buffer.  NULL with errno set on failure. */
static char *
read_all(const char *path)
{
	char *buf = NULL, *nb;
	size_t cap = 0, len = 0;
	ssize_t r;
	int fd, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	for (;;) {
		if (cap - len < 2) {
			cap = cap ? cap * 2 : READ_CHUNK;
			if ((nb = realloc(buf, cap)) == NULL)
				goto fail;
			buf = nb;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r == -1) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
fail:
	saved = errno;
	free(buf);
	close(fd);
	errno = saved;
	return NULL;
}

int
mountinfo_lookup(const char *path, struct mountinfo *mi, char *err,
    size_t errlen)
{
	char *resolved, *table;
	int rc;

	if ((resolved = realpath(path, NULL)) == NULL) {
		snprintf(err, errlen, "cannot resolve %s: %s", path,
		    strerror(errno));
		return -1;
	}
	if ((table = read_all(MOUNTINFO_PATH)) == NULL) {
		snprintf(err, errlen, "%s: cannot read %s: %s", path,
		    MOUNTINFO_PATH, strerror(errno));
		free(resolved);
		return -1;
	}
	rc = lookup(table, resolved, path, mi, err, errlen);
	free(table);
	free(resolved);
	return rc;
}

/* ------------------------------------------------------------ options */

/* Whether the comma-separated list holds the option opt[0..n). */
static bool
has_option(const char *list, const char *opt, size_t n)
{
	while (*list != '\0') {
		size_t len = strcspn(list, ",");

		if (len == n && memcmp(list, opt, n) == 0)
			return true;
		list += len;
		if (*list == ',')
			list++;
	}
	return false;
}

/* Append the options of list that out lacks to out (holding *used bytes
 * before its NUL); super drops "rw"/"ro", which the mount options state
 * for the mount itself.  False once an option no longer fits. */
static bool
add_options(char *out, size_t len, size_t *used, const char *list,
    bool super)
{
	while (*list != '\0') {
		size_t n = strcspn(list, ",");
		bool rwro = n == 2 && (memcmp(list, "rw", 2) == 0 ||
		    memcmp(list, "ro", 2) == 0);

		if (n > 0 && !(super && rwro) && !has_option(out, list, n)) {
			size_t sep = *used > 0;

			if (*used + sep + n >= len)
				return false;
			if (sep)
				out[(*used)++] = ',';
			memcpy(out + *used, list, n);
			*used += n;
			out[*used] = '\0';
		}
		list += n;
		if (*list == ',')
			list++;
	}
	return true;
}

void
mountinfo_options(const struct mountinfo *mi, char *out, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return;
	out[0] = '\0';
	if (add_options(out, len, &used, mi->mount_options, false))
		add_options(out, len, &used, mi->super_options, true);
}
