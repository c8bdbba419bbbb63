/*
 * A run's own files out of the page cache (sync=drop-caches): each file
 * is written back (fdatasync) and its pages are then advised
 * POSIX_FADV_DONTNEED, so the load that follows reads it from disk while
 * every other file on the host keeps its cached pages.  It needs no
 * privilege and no /proc/sys (the files are the run's), so it works as
 * the service's unprivileged user under ProtectKernelTunables=.  The
 * files are reached beneath the run's held directory (confine.h), never
 * through a symbolic link; mincore(2) tells what was resident before and
 * after.  A capacity search may call it again between its steps.
 */
#ifndef STRESSD_EVICT_H
#define STRESSD_EVICT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "knobs.h"

struct evict_result {
	bool		host;		/* the host-wide drop (drop-host-caches):
					   only seconds is known */
	uint64_t	files;		/* written back and advised */
	uint64_t	missing;	/* not there (yet): to be created */
	uint64_t	refused;	/* no regular file: never followed */
	uint64_t	failed;		/* a call failed: first_error */
	uint64_t	bytes;		/* the size of the files evicted */
	/* Bytes of those files in the page cache just before and just after
	 * (-1: not measured, measure_error says why). */
	int64_t		resident_before, resident_after;
	double		seconds;
	bool		cancelled;	/* stopped before the last file */
	char		first_error[600];
	char		measure_error[160];
};

/*
 * Write back and evict files 0 .. p->files - 1 of the run (rrdfile_name)
 * beneath dirfd; missing and refused files are counted, not errors.
 * *busy (when not NULL) is set to writer_busy_now() at each file: the
 * watchdog sees one file's calls hang, not the whole pass as one call.
 * The pass ends early once *cancel (when not NULL) is true.
 */
void	evict_dir_files(int dirfd, const struct stress_params *p,
	    atomic_uint_fast64_t *busy, const atomic_bool *cancel,
	    struct evict_result *res);
/* One line for the log: what was done, the figures. */
void	evict_summary(const struct evict_result *res, char *buf, size_t len);
/* report.json's cold_cache object. */
json_object *evict_json(const struct evict_result *res);

#endif
