/* Which filesystem a path is on; see mountinfo.h and proc(5) for the
 * table's format. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fsmagic.h"
#include "mountinfo.h"

#define MOUNTINFO_PATH	"/proc/self/mountinfo"
#define READ_CHUNK	16384
#define PATH_BUF	4096	/* the size of struct mountinfo's paths */

/* One line of the table, its strings still escaped. */
struct entry {
	long		 id;
	unsigned	 major, minor;	/* of the superblock */
	const char	*root;		/* what of the filesystem the mount shows */
	const char	*mount_point;
	const char	*mount_options;
	const char	*fs_type;
	const char	*mount_source;
	const char	*super_options;
};

/* The table cut into its usable lines. */
struct table {
	char		*copy;		/* the text, cut in place */
	struct entry	*e;
	size_t		 n;
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

/* A mount point decoded into out (PATH_BUF bytes), trailing slashes
 * dropped: the kernel prints none, but a hand-written "/var/" is "/var".
 * False when it does not fit (then it cannot hold a resolved path, which
 * realpath keeps under PATH_MAX) or is not absolute. */
static bool
decode_point(const char *raw, char *out)
{
	size_t len;

	if (!unescape(raw, out, PATH_BUF) || out[0] != '/')
		return false;
	len = strlen(out);
	while (len > 1 && out[len - 1] == '/')
		out[--len] = '\0';
	return true;
}

/* Split one line (NUL-terminated, newline removed) into e.  False for a
 * line that is not a mount entry. */
static bool
parse_line(char *line, struct entry *e)
{
	char *p = line, *id, *parent, *devno, *f, mp[PATH_BUF];

	id = next_field(&p);
	parent = next_field(&p);
	devno = next_field(&p);
	e->root = next_field(&p);
	e->mount_point = next_field(&p);
	e->mount_options = next_field(&p);
	/* A short line leaves the later fields NULL, the earlier ones not. */
	if (e->mount_options == NULL || !is_number(id) || !is_number(parent) ||
	    !is_devno(devno) || *e->root == '\0' || *e->mount_options == '\0')
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
	if (e->super_options == NULL || *e->fs_type == '\0' ||
	    !decode_point(e->mount_point, mp))
		return false;
	e->id = strtol(id, NULL, 10);
	e->major = (unsigned)strtoul(devno, &f, 10);
	e->minor = (unsigned)strtoul(f + 1, NULL, 10);
	return true;
}

/* The usable lines of text into t; -1 when out of memory. */
static int
table_parse(const char *text, struct table *t)
{
	char *line, *next;
	size_t cap = 1;

	for (const char *c = text; *c != '\0'; c++)
		cap += *c == '\n';
	t->n = 0;
	t->copy = strdup(text);
	t->e = calloc(cap, sizeof(*t->e));
	if (t->copy == NULL || t->e == NULL) {
		free(t->copy);
		free(t->e);
		return -1;
	}
	for (line = t->copy; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (parse_line(line, &t->e[t->n]))
			t->n++;
	}
	return 0;
}

static void
table_free(struct table *t)
{
	free(t->copy);
	free(t->e);
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

/* ------------------------------------------------------------ choosing */

static bool
same_dev(const struct entry *e, unsigned major, unsigned minor)
{
	return e->major == major && e->minor == minor;
}

/* The line of the mount the directory is reached through: by mount ID
 * when the kernel gave it (none when that line is not visible); else the
 * longest mount point holding the path (of the directory's device, when
 * known), the last of stacked mounts on one point. */
static const struct entry *
find_own(const struct table *t, const char *path,
    const struct mountinfo_dir *d)
{
	const struct entry *best = NULL;
	char mp[PATH_BUF];
	size_t best_len = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct entry *e = &t->e[i];

		if (d != NULL && d->mnt_id >= 0) {
			if (e->id == d->mnt_id)
				best = e;
			continue;
		}
		if (d != NULL && d->have_dev &&
		    !same_dev(e, d->dev_major, d->dev_minor))
			continue;
		decode_point(e->mount_point, mp);
		/* >=: two different mount points of one length cannot both
		 * prefix the path, so equal length means the same point. */
		if (holds(mp, path) && strlen(mp) >= best_len) {
			best = e;
			best_len = strlen(mp);
		}
	}
	return best;
}

/* Where the filesystem of dev is mounted: of its lines the one whose root
 * is the shortest directory holding place (the root own shows; "/" when
 * own is not known), own itself among equals, else the first.  Under a
 * bind that is the mount the bind was taken from, when visible. */
static const struct entry *
find_whole(const struct table *t, const struct entry *dev,
    const struct entry *own)
{
	const struct entry *best = NULL;
	char place[PATH_BUF] = "/", root[PATH_BUF];
	size_t best_len = 0;

	if (own != NULL && !unescape(own->root, place, sizeof(place)))
		return own;
	for (size_t i = 0; i < t->n; i++) {
		const struct entry *e = &t->e[i];
		size_t len;

		if (!same_dev(e, dev->major, dev->minor) ||
		    !unescape(e->root, root, sizeof(root)) ||
		    !holds(root, place))
			continue;
		len = strlen(root);
		if (best == NULL || len < best_len ||
		    (len == best_len && e == own)) {
			best = e;
			best_len = len;
		}
	}
	return best;
}

/* statvfs's flags as mount options, in the order the kernel prints them. */
static void
flag_options(unsigned long flags, char *out, size_t len)
{
	static const struct { unsigned long flag; const char *name; } f[] = {
		{ ST_NOSUID, "nosuid" }, { ST_NODEV, "nodev" },
		{ ST_NOEXEC, "noexec" }, { ST_SYNCHRONOUS, "sync" },
		{ ST_MANDLOCK, "mand" }, { ST_NOATIME, "noatime" },
		{ ST_NODIRATIME, "nodiratime" }, { ST_RELATIME, "relatime" },
	};
	size_t used;

	used = (size_t)snprintf(out, len, "%s", flags & ST_RDONLY ? "ro" : "rw");
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]) && used < len; i++)
		if (flags & f[i].flag)
			used += (size_t)snprintf(out + used, len - used, ",%s",
			    f[i].name);
}

/* mi from the lines chosen; false when a field does not fit. */
static bool
fill(struct mountinfo *mi, const struct entry *dev, const struct entry *own,
    const struct entry *whole, const struct mountinfo_dir *d)
{
	mi->from = own != NULL ? MOUNTINFO_FROM_MOUNT : MOUNTINFO_FROM_DEVICE;
	if (!unescape(dev->fs_type, mi->fs_type, sizeof(mi->fs_type)) ||
	    !unescape(dev->mount_source, mi->mount_source,
	    sizeof(mi->mount_source)) ||
	    !copy_options(dev->super_options, mi->super_options,
	    sizeof(mi->super_options)) ||
	    (whole != NULL && !decode_point(whole->mount_point,
	    mi->mount_point)))
		return false;
	if (own == NULL) {
		/* The directory's own mount is not visible: its per-mount
		 * options are statfs's flags. */
		flag_options(d->flags, mi->mount_options,
		    sizeof(mi->mount_options));
		return true;
	}
	return decode_point(own->mount_point, mi->seen_at) &&
	    unescape(own->root, mi->bind_root, sizeof(mi->bind_root)) &&
	    copy_options(own->mount_options, mi->mount_options,
	    sizeof(mi->mount_options));
}

/* Facts from statfs alone. */
static void
fill_statfs(struct mountinfo *mi, const struct mountinfo_dir *d)
{
	const char *name = fsmagic_name(d->fs_magic);

	memset(mi, 0, sizeof(*mi));
	mi->from = MOUNTINFO_FROM_STATFS;
	mi->fs_magic = d->fs_magic;
	if (name != NULL)
		snprintf(mi->fs_type, sizeof(mi->fs_type), "%s", name);
	flag_options(d->flags, mi->mount_options, sizeof(mi->mount_options));
}

/* mountinfo_lookup_in, with the path to name in messages given apart. */
static int
lookup(const char *text, const char *resolved, const char *name,
    const struct mountinfo_dir *d, struct mountinfo *mi, char *err,
    size_t errlen)
{
	const struct entry *own, *dev = NULL;
	struct table t;
	int rc = 0;

	if (resolved[0] != '/') {
		snprintf(err, errlen, "%s: not an absolute path", name);
		return -1;
	}
	if (table_parse(text, &t) == -1) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	own = find_own(&t, resolved, d);
	/* Without its own line, any line of its device tells the type and
	 * source (a device number names one superblock). */
	for (size_t i = 0; own == NULL && d != NULL && d->have_dev &&
	    dev == NULL && i < t.n; i++)
		if (same_dev(&t.e[i], d->dev_major, d->dev_minor))
			dev = &t.e[i];
	if (own != NULL)
		dev = own;
	memset(mi, 0, sizeof(*mi));
	if (dev != NULL && !fill(mi, dev, own, find_whole(&t, dev, own), d)) {
		snprintf(err, errlen, "%s: the entry of mount %s has a field "
		    "too long or holding a NUL byte", name, dev->mount_point);
		dev = NULL;
		rc = 1;
	}
	if (d != NULL && dev == NULL)
		fill_statfs(mi, d);
	else if (d != NULL)
		mi->fs_magic = d->fs_magic;
	else if (dev == NULL) {
		if (rc == 0)
			snprintf(err, errlen, "%s: on no mount in the mount "
			    "table", name);
		rc = -1;
	}
	table_free(&t);
	return rc;
}

/* ------------------------------------------------------------ API */

int
mountinfo_lookup_in(const char *table, const char *resolved_path,
    const struct mountinfo_dir *d, struct mountinfo *mi, char *err,
    size_t errlen)
{
	return lookup(table, resolved_path, resolved_path, d, mi, err, errlen);
}

const char *
mountinfo_from_name(enum mountinfo_from from)
{
	switch (from) {
	case MOUNTINFO_FROM_MOUNT:
		return "mount";
	case MOUNTINFO_FROM_DEVICE:
		return "device";
	case MOUNTINFO_FROM_STATFS:
		break;
	}
	return "statfs";
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

/* The mount ID of fd: statx's (Linux 5.8), else fdinfo's (3.15); -1. */
static long
mount_id(int fd)
{
	char path[64], *info, *p;
	long id = -1;

#ifdef STATX_MNT_ID
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) == 0 &&
	    (stx.stx_mask & STATX_MNT_ID))
		return (long)stx.stx_mnt_id;
#endif
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if ((info = read_all(path)) == NULL)
		return -1;
	if ((p = strstr(info, "mnt_id:")) != NULL &&
	    (p == info || p[-1] == '\n'))
		id = strtol(p + 7, NULL, 10);
	free(info);
	return id;
}

/* What the kernel says of the directory at resolved; -1 with errno. */
static int
dir_facts(const char *resolved, struct mountinfo_dir *d)
{
	struct statvfs sv;
	struct statfs sf;
	struct stat st;
	int fd, saved;

	memset(d, 0, sizeof(*d));
	if ((fd = open(resolved, O_PATH | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || fstatfs(fd, &sf) == -1 ||
	    fstatvfs(fd, &sv) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	d->have_dev = true;
	d->dev_major = major(st.st_dev);
	d->dev_minor = minor(st.st_dev);
	/* f_type is signed on some ABIs: the magic is 32 bits. */
	d->fs_magic = (unsigned long)sf.f_type & 0xffffffffUL;
	d->flags = sv.f_flag;
	d->mnt_id = mount_id(fd);
	close(fd);
	return 0;
}

int
mountinfo_lookup(const char *path, struct mountinfo *mi, char *err,
    size_t errlen)
{
	struct mountinfo_dir d;
	char *resolved, *table;
	int rc;

	if ((resolved = realpath(path, NULL)) == NULL) {
		snprintf(err, errlen, "cannot resolve %s: %s", path,
		    strerror(errno));
		return -1;
	}
	if (dir_facts(resolved, &d) == -1) {
		snprintf(err, errlen, "cannot stat %s: %s", path,
		    strerror(errno));
		free(resolved);
		return -1;
	}
	/* No table (no /proc in a chroot): statfs says what it can. */
	table = read_all(MOUNTINFO_PATH);
	rc = lookup(table != NULL ? table : "", resolved, path, &d, mi, err,
	    errlen);
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
