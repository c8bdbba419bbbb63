#ifndef STRESSD_BASELINE_H
#define STRESSD_BASELINE_H

#include <stddef.h>
#include <stdint.h>

/*
 * STATE/runs/<id>/baseline.bin: each file's rrd_last as the run found it,
 * one int64 per file in file order (this host's byte order: only this
 * host's stressd reads it), or a marker: to be created (its updates count
 * from start) or refused.  A sum alone cannot tell which file a gone or
 * unreadable one was; per file, the recount is exact or says it is not.
 */
#define BASELINE_MISSING	INT64_MIN
#define BASELINE_REFUSED	(INT64_MIN + 1)
#define BASELINE_FILE	"baseline.bin"

/* Write base[0..n) as run_dir's baseline file (temporary and rename);
 * 0, or -1 with err. */
int	baseline_write(const char *run_dir, const int64_t *base, uint64_t n,
	    char *err, size_t errlen);
/* run_dir's baseline file for files files, opened for reading with
 * pread; -1 with why in err (none, or not one entry per file). */
int	baseline_open(const char *run_dir, uint64_t files, char *err,
	    size_t errlen);

#endif
