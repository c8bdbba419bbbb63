/* Where a run's RRD files live, how they are created, and whether an
 * existing file has the layout a run asks for. */
#ifndef STRESSD_RRDFILE_H
#define STRESSD_RRDFILE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "knobs.h"

/* dir/<n>.rrd, or dir/<n / files_per_dir>/<n>.rrd. */
int	rrdfile_path(const struct stress_params *p, uint32_t n, char *buf,
	    size_t len);
/* Create a file with the run's DS and RRA layout, last update last_up. */
int	rrdfile_create(const struct stress_params *p, const char *path,
	    time_t last_up, char *err, size_t errlen);
/* A canonical text of a file's layout (step, DS and RRA definitions) and
 * its last update time.  0, or -1 with librrd's message in err. */
int	rrdfile_layout(const char *path, char *out, size_t outlen,
	    time_t *last, char *err, size_t errlen);
/* librrd's last error of this thread, naming path, into err; cleared. */
void	rrdfile_error(const char *path, char *err, size_t errlen);
/* librrd's version string. */
const char *rrdfile_librrd_version(void);

#endif
