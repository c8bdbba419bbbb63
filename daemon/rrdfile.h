/* Where a run's RRD files live, how they are created, and whether an
 * existing file has the layout a run asks for. */
#ifndef STRESSD_RRDFILE_H
#define STRESSD_RRDFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "knobs.h"

/* What a failed librrd call ran into (errors_by_kind, in this order). */
enum rrdfile_kind {
	RRDFILE_NO_SPACE,	/* ENOSPC, EDQUOT */
	RRDFILE_READ_ONLY,	/* EROFS */
	RRDFILE_PERMISSION,	/* EACCES, EPERM */
	RRDFILE_MISSING,	/* ENOENT: the file (or its directory) is gone */
	RRDFILE_CORRUPT,	/* the file is there but is no valid RRD */
	RRDFILE_LOCKED,		/* another process holds its fcntl lock */
	RRDFILE_CONNECTION,	/* target rrdcached: no answer, lost connection */
	RRDFILE_DENIED,		/* refused, never followed: a symbolic link or
				   no regular file where a run file goes */
	RRDFILE_OTHER,
	RRDFILE_NKINDS
};

/* <n>.rrd, or <n / files_per_dir>/<n>.rrd: the name in the run's dir. */
int	rrdfile_name(const struct stress_params *p, uint32_t n, char *buf,
	    size_t len);
/* dir/<n>.rrd, or dir/<n / files_per_dir>/<n>.rrd. */
int	rrdfile_path(const struct stress_params *p, uint32_t n, char *buf,
	    size_t len);
/* Create a file with the run's DS and RRA layout, last update last_up.
 * On failure err holds the message and *kind (if not NULL) its kind. */
int	rrdfile_create(const struct stress_params *p, const char *path,
	    time_t last_up, enum rrdfile_kind *kind, char *err, size_t errlen);
/* The DS and RRA arguments of a new file with the run's layout into argv
 * (room for 64 + KNOBS_MAX_RRAS), the DS texts in ds; their count. */
int	rrdfile_create_args(const struct stress_params *p, char ds[64][48],
	    const char **argv);
/* The kind of a failed open of a run file (confine.h's refusals are
 * denied). */
enum rrdfile_kind rrdfile_kind_of_errno(int e);
/* The kind a message names without an errno (rrdcached's replies). */
enum rrdfile_kind rrdfile_kind_of_message(const char *msg);
/* Add one key of a file's info to a layout text (see rrdfile_layout) if
 * the key is part of the layout; used for librrd's and rrdcached's info.
 * type: 0 a value, 1 a count, 2 a string, as rrd_info's RD_I_*. */
void	rrdfile_layout_add(const char *key, int type, double val,
	    unsigned long cnt, const char *str, char *out, size_t outlen,
	    size_t *used);
/* Make a message safe for JSON and logs: what is not printable UTF-8
 * becomes '?'. */
void	rrdfile_printable(char *s);
/* A canonical text of a file's layout (step, DS and RRA definitions) and
 * its last update time.  0, or -1 with librrd's message in err. */
int	rrdfile_layout(const char *path, char *out, size_t outlen,
	    time_t *last, char *err, size_t errlen);
/* A file's last update time (rrd_last_r): 0, or -1 with librrd's
 * message in err. */
int	rrdfile_last(const char *path, time_t *last, char *err,
	    size_t errlen);
/* librrd's last error of this thread, naming path, into err; cleared. */
void	rrdfile_error(const char *path, char *err, size_t errlen);
/* Give the file librrd just made at path the mode any other file gets,
 * 0666 less the process's umask: librrd 1.7.2 makes it 0644 whatever the
 * umask (mkstemp, then a fixed chmod), which under UMask=0027 would let
 * everyone read what the unit keeps to the group.  rrdfile_create does
 * it; quietly nothing when the umask cannot be read. */
void	rrdfile_set_mode(const char *path);
/* The same for a failed rrd_update_r of path, classified: saved_errno is
 * errno right after the call (cleared before it). */
enum rrdfile_kind rrdfile_update_error(const char *path, int saved_errno,
	    char *err, size_t errlen);
/* The kind's name in stats and report.json ("no_space", ...). */
const char *rrdfile_kind_name(enum rrdfile_kind kind);
/* librrd's version string. */
const char *rrdfile_librrd_version(void);

#endif
