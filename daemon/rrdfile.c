#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <rrd.h>

#include "confine.h"
#include "rrdfile.h"
#include "util.h"

static pthread_once_t	mode_once = PTHREAD_ONCE_INIT;
static long		new_mode = -1;	/* 0666 less the umask; -1 unknown */

/* Read once, as /proc/self/status shows it: umask(2) only reads by
 * setting, which would change it under the other threads' creates. */
static void
mode_init(void)
{
	long mask = util_proc_status("Umask", 8);

	if (mask >= 0)
		new_mode = 0666 & ~mask;
}

void
rrdfile_set_mode(const char *path)
{
	int fd;

	pthread_once(&mode_once, mode_init);
	if (new_mode < 0)
		return;
	/* Made a moment ago by librrd, in a directory only we write (the
	 * run's staging one, or the record's): O_NOFOLLOW all the same. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd == -1)
		return;
	/* A filesystem without modes (vfat) keeps its own: no error. */
	(void)fchmod(fd, (mode_t)new_mode);
	close(fd);
}

int
rrdfile_name(const struct stress_params *p, uint32_t n, char *buf, size_t len)
{
	int r;

	if (p->files_per_dir > 0)
		r = snprintf(buf, len, "%llu/%u.rrd",
		    (unsigned long long)(n / p->files_per_dir), n);
	else
		r = snprintf(buf, len, "%u.rrd", n);
	return r < 0 || (size_t)r >= len ? -1 : 0;
}

int
rrdfile_path(const struct stress_params *p, uint32_t n, char *buf, size_t len)
{
	char name[64];
	int r;

	if (rrdfile_name(p, n, name, sizeof(name)) == -1)
		return -1;
	r = snprintf(buf, len, "%s/%s", p->dir, name);
	return r < 0 || (size_t)r >= len ? -1 : 0;
}

static const char *const kind_names[RRDFILE_NKINDS] = {
	"no_space", "read_only", "permission", "missing", "corrupt", "locked",
	"connection", "denied", "other"
};

const char *
rrdfile_kind_name(enum rrdfile_kind kind)
{
	return (unsigned)kind < RRDFILE_NKINDS ? kind_names[kind] : "other";
}

/* Length of the valid UTF-8 sequence at s (none of it a control
 * character), 0 if there is none. */
static size_t
utf8_len(const unsigned char *s)
{
	size_t n;
	unsigned lo = 0x80, hi = 0xbf;

	if (s[0] >= 0x20 && s[0] < 0x7f)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		lo = s[0] == 0xe0 ? 0xa0 : 0x80;	/* no overlong form */
		hi = s[0] == 0xed ? 0x9f : 0xbf;	/* no surrogate */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		lo = s[0] == 0xf0 ? 0x90 : 0x80;
		hi = s[0] == 0xf4 ? 0x8f : 0xbf;
	} else
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* librrd copies bytes of a damaged file into some messages ("rrd
 * contains unknown DS type : '<garbage>'"): the message goes into JSON,
 * logs and report.json, so whatever is not printable UTF-8 becomes '?'. */
void
rrdfile_printable(char *s)
{
	unsigned char *u = (unsigned char *)s;

	while (*u != '\0') {
		size_t n = utf8_len(u);

		if (n == 0) {
			*u++ = '?';
			continue;
		}
		u += n;
	}
}

void
rrdfile_error(const char *path, char *err, size_t errlen)
{
	const char *msg = rrd_get_error();

	if (msg == NULL || *msg == '\0')
		msg = "unknown librrd error";
	/* librrd usually names the file; make sure the message always does. */
	if (strstr(msg, path) != NULL)
		snprintf(err, errlen, "%s", msg);
	else
		snprintf(err, errlen, "%.2000s: %s", path, msg);
	rrdfile_printable(err);
	rrd_clear_error();
}

/*
 * librrd's messages for a file that is there but is no valid RRD (its
 * rrd_open.c and rrd_update.c, 1.7.2): format checks that fail without
 * any system call failing, so errno says nothing and the text is all
 * there is.
 */
static const char *const corrupt_text[] = {
	"is not an RRD file",
	"was created on another architecture",
	"can't handle RRD file version",
	"reached EOF while loading header",
	"short read while reading header",
	"is too small (should be",
	"contains unknown DS type",
	"unknown consolidation function",
	"unknown data acquisition function",
	"attempting to write beyond end of file",
	"seek error in RRA",
	"wrap seek in RRA did fail",
	"seek error in rrd",
	NULL
};

/* The kind an errno stands for; RRDFILE_NKINDS when it says nothing. */
static enum rrdfile_kind
errno_kind(int e)
{
	switch (e) {
	case ENOSPC:
	case EDQUOT:
		return RRDFILE_NO_SPACE;
	case EROFS:
		return RRDFILE_READ_ONLY;
	case EACCES:
	case EPERM:
		return RRDFILE_PERMISSION;
	case ENOENT:
	case ENOTDIR:
		return RRDFILE_MISSING;
	default:
		return RRDFILE_NKINDS;
	}
}

enum rrdfile_kind
rrdfile_kind_of_errno(int e)
{
	enum rrdfile_kind k;

	if (confine_refused(e))
		return RRDFILE_DENIED;
	return (k = errno_kind(e)) == RRDFILE_NKINDS ? RRDFILE_OTHER : k;
}

static enum rrdfile_kind
text_kind(int e, const char *msg)
{
	for (int i = 0; corrupt_text[i] != NULL; i++)
		if (strstr(msg, corrupt_text[i]) != NULL)
			return RRDFILE_CORRUPT;
	/* An empty file: mmap(2) refuses a length of 0. */
	if (e == EINVAL && strstr(msg, "mmaping file") != NULL)
		return RRDFILE_CORRUPT;
	return RRDFILE_OTHER;
}

/* strerror's texts of errno_kind's errnos, as servers quote them. */
static const struct {
	const char		*text;
	enum rrdfile_kind	 kind;
} errno_text[] = {
	{ "No space left on device", RRDFILE_NO_SPACE },
	{ "Disk quota exceeded", RRDFILE_NO_SPACE },
	{ "Read-only file system", RRDFILE_READ_ONLY },
	{ "Permission denied", RRDFILE_PERMISSION },
	{ "Operation not permitted", RRDFILE_PERMISSION },
	{ "No permission", RRDFILE_PERMISSION },	/* rrdcached's own */
	{ "No such file", RRDFILE_MISSING },	/* also rrdcached's own */
	{ "Not a directory", RRDFILE_MISSING },
	{ "could not lock RRD", RRDFILE_LOCKED },
};

enum rrdfile_kind
rrdfile_kind_of_message(const char *msg)
{
	for (size_t i = 0; i < sizeof(errno_text) / sizeof(errno_text[0]); i++)
		if (strstr(msg, errno_text[i].text) != NULL)
			return errno_text[i].kind;
	return text_kind(0, msg);
}

enum rrdfile_kind
rrdfile_update_error(const char *path, int saved_errno, char *err,
    size_t errlen)
{
	const char *msg = rrd_get_error();
	enum rrdfile_kind k;

	/* An update's errno is the failing call's: librrd makes no system
	 * call after it but close(2) of a descriptor it opened (measured with
	 * 1.7.2: ENOENT, EROFS, EACCES and EINVAL survive, and the format
	 * errors leave the errno cleared before the call).  But a lock held
	 * by another process fails fcntl(F_SETLK) with EAGAIN or, as POSIX
	 * allows, EACCES, which is no permission problem: that text first. */
	if (msg != NULL && strstr(msg, "could not lock RRD") != NULL)
		k = RRDFILE_LOCKED;
	else if ((k = errno_kind(saved_errno)) == RRDFILE_NKINDS)
		k = text_kind(saved_errno, msg != NULL ? msg : "");
	rrdfile_error(path, err, errlen);
	return k;
}

/*
 * The directory of path, for a failed create: librrd 1.7.2 creates
 * through a temporary file and on failure unlinks it twice, so the second
 * unlink's ENOENT replaces the errno of the call that failed (measured: a
 * full filesystem leaves ENOENT and no message at all, a directory we may
 * not write ENOENT and "Cannot create temporary file").  What the
 * directory's filesystem says instead: kind, and why in words.
 */
static enum rrdfile_kind
diagnose_dir(const char *path, uint64_t need, char *why, size_t whylen)
{
	char dir[4200], *slash;
	struct statvfs sv;
	enum rrdfile_kind k;

	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) == NULL)
		snprintf(dir, sizeof(dir), ".");
	else
		slash[slash == dir] = '\0';	/* "/x.rrd" lives in "/" */
	if (statvfs(dir, &sv) == -1) {
		snprintf(why, whylen, "%s: %s", dir, strerror(errno));
		return (k = errno_kind(errno)) == RRDFILE_NKINDS ?
		    RRDFILE_OTHER : k;
	}
	if (sv.f_flag & ST_RDONLY) {
		snprintf(why, whylen, "%s is on a read-only filesystem", dir);
		return RRDFILE_READ_ONLY;
	}
	if ((uint64_t)sv.f_bavail * sv.f_frsize < need) {
		snprintf(why, whylen, "%llu bytes free on the filesystem of "
		    "%s, a new file needs about %llu",
		    (unsigned long long)sv.f_bavail * sv.f_frsize, dir,
		    (unsigned long long)need);
		return RRDFILE_NO_SPACE;
	}
	/* f_files is 0 where the filesystem has no inode limit. */
	if (sv.f_files > 0 && sv.f_favail == 0) {
		snprintf(why, whylen, "no free inode on the filesystem of %s",
		    dir);
		return RRDFILE_NO_SPACE;
	}
	if (access(dir, W_OK | X_OK) == -1 &&
	    (errno == EACCES || errno == EPERM)) {
		snprintf(why, whylen, "%s: %s", dir, strerror(errno));
		return RRDFILE_PERMISSION;
	}
	snprintf(why, whylen, "no cause found in %s", dir);
	return RRDFILE_OTHER;
}

/* About the size of a new file, from rrd_format.h's structures. */
static uint64_t
file_size(const struct stress_params *p)
{
	uint64_t rows = 0, ds = p->data_sources, n = p->nrras;

	for (size_t i = 0; i < p->nrras; i++) {
		const char *last = strrchr(p->rras[i], ':');

		if (last != NULL)
			rows += strtoull(last + 1, NULL, 10);
	}
	return 128 + 120 * ds + 120 * n + 16 + 112 * ds + 80 * ds * n +
	    8 * n + 8 * ds * rows;
}

int
rrdfile_create_args(const struct stress_params *p, char ds[64][48],
    const char **argv)
{
	int argc = 0;

	for (uint64_t i = 0; i < p->data_sources && i < 64; i++) {
		snprintf(ds[i], sizeof(ds[0]), "DS:ds%llu:GAUGE:%llu:U:U",
		    (unsigned long long)i, (unsigned long long)(2 * p->step));
		argv[argc++] = ds[i];
	}
	for (size_t i = 0; i < p->nrras; i++)
		argv[argc++] = p->rras[i];
	return argc;
}

int
rrdfile_create(const struct stress_params *p, const char *path,
    time_t last_up, enum rrdfile_kind *kind, char *err, size_t errlen)
{
	char ds[64][48], why[4400];
	const char *argv[64 + KNOBS_MAX_RRAS];
	const char *msg;
	int argc = rrdfile_create_args(p, ds, argv), e, rc;
	enum rrdfile_kind k;

	rrd_clear_error();
	errno = 0;
	rc = rrd_create_r(path, p->step, last_up, argc, argv);
	e = errno;
	msg = rrd_get_error();
	if (msg == NULL)
		msg = "";
	/* librrd 1.7.2 returns 0 when renaming its temporary file to path
	 * fails ("Cannot rename temporary file to final file!"), with no
	 * file made: the message, set during this call, tells. */
	if (rc == 0 && *msg == '\0') {
		rrdfile_set_mode(path);
		return 0;
	}
	/* A create's ENOENT (or none) may be its cleanup's: diagnose_dir. */
	if (e == ENOENT || e == 0) {
		k = diagnose_dir(path, file_size(p), why, sizeof(why));
		if (k == RRDFILE_OTHER)
			k = text_kind(e, msg);
		if (*msg == '\0')
			snprintf(err, errlen, "%.2000s: librrd's create failed "
			    "without a message; %s", path, why);
		else
			snprintf(err, errlen, "%.2000s: %s (%s)", path, msg,
			    why);
		rrdfile_printable(err);
		rrd_clear_error();
	} else {
		if ((k = errno_kind(e)) == RRDFILE_NKINDS)
			k = text_kind(e, msg);
		rrdfile_error(path, err, errlen);
	}
	if (kind != NULL)
		*kind = k;
	return -1;
}

static int
layout_key(const char *key)
{
	static const char *const suffix[] = {
		"].type", "].minimal_heartbeat", "].min", "].max", "].cf",
		"].rows", "].pdp_per_row", "].xff", NULL
	};

	if (strcmp(key, "step") == 0)
		return 1;
	if (strncmp(key, "ds[", 3) != 0 && strncmp(key, "rra[", 4) != 0)
		return 0;
	for (int i = 0; suffix[i] != NULL; i++) {
		size_t kl = strlen(key), sl = strlen(suffix[i]);

		if (kl > sl && strcmp(key + kl - sl, suffix[i]) == 0 &&
		    strchr(key, '.') == strrchr(key, '.'))
			return 1;
	}
	return 0;
}

void
rrdfile_layout_add(const char *key, int type, double val, unsigned long cnt,
    const char *str, char *out, size_t outlen, size_t *used)
{
	char v[64];

	if (!layout_key(key))
		return;
	/* librrd's unknown is a negative NaN, rrdcached prints "NaN". */
	if (type == 0 && isnan(val))
		snprintf(v, sizeof(v), "nan");
	else if (type == 0)
		snprintf(v, sizeof(v), "%g", val);
	else if (type == 1)
		snprintf(v, sizeof(v), "%lu", cnt);
	else
		snprintf(v, sizeof(v), "%s", str);
	*used += (size_t)snprintf(out + *used, *used < outlen ?
	    outlen - *used : 0, "%s=%s ", key, v);
}

int
rrdfile_layout(const char *path, char *out, size_t outlen, time_t *last,
    char *err, size_t errlen)
{
	rrd_info_t *info, *i;
	size_t used = 0;

	rrd_clear_error();
	if ((info = rrd_info_r(path)) == NULL) {
		rrdfile_error(path, err, errlen);
		return -1;
	}
	out[0] = '\0';
	*last = 0;
	for (i = info; i != NULL; i = i->next) {
		if (strcmp(i->key, "last_update") == 0 && i->type == RD_I_CNT)
			*last = (time_t)i->value.u_cnt;
		if (i->type == RD_I_VAL)
			rrdfile_layout_add(i->key, 0, i->value.u_val, 0, NULL,
			    out, outlen, &used);
		else if (i->type == RD_I_CNT)
			rrdfile_layout_add(i->key, 1, 0, i->value.u_cnt, NULL,
			    out, outlen, &used);
		else if (i->type == RD_I_STR)
			rrdfile_layout_add(i->key, 2, 0, 0, i->value.u_str,
			    out, outlen, &used);
	}
	rrd_info_free(info);
	if (used >= outlen) {
		snprintf(err, errlen, "%s: layout too large to compare", path);
		return -1;
	}
	return 0;
}

int
rrdfile_last(const char *path, time_t *last, char *err, size_t errlen)
{
	rrd_clear_error();
	if ((*last = rrd_last_r(path)) == (time_t)-1) {
		rrdfile_error(path, err, errlen);
		return -1;
	}
	return 0;
}

const char *
rrdfile_librrd_version(void)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), "%s", rrd_strversion());
	return buf;
}
