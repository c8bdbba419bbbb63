/* A run's per-file baseline for a recount after a crash; see baseline.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baseline.h"
#include "util.h"

int
baseline_write(const char *run_dir, const int64_t *base, uint64_t n,
    char *err, size_t errlen)
{
	char path[4300];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", run_dir, BASELINE_FILE);
	if ((fp = util_tmp_open(path)) == NULL)
		goto fail;
	fwrite(base, sizeof(*base), (size_t)n, fp);
	if (util_tmp_commit(fp, path) == -1)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "%s: %s", path, strerror(errno));
	return -1;
}

int
baseline_open(const char *run_dir, uint64_t files, char *err, size_t errlen)
{
	char path[4300];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", run_dir, BASELINE_FILE);
	/* O_NONBLOCK: a FIFO planted there must not hang the start */
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "no baseline (%s: %s; an older stressd, "
		    "or the daemon was gone before writing it)",
		    BASELINE_FILE, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size != files * sizeof(int64_t)) {
		snprintf(err, errlen, "%s does not hold one entry per file",
		    BASELINE_FILE);
		close(fd);
		return -1;
	}
	return fd;
}
