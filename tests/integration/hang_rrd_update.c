/* Test shim, preloaded by tests/integration/watchdog.sh and drain.sh:
 * rrd_update_r on files under $STRESSD_TEST_HANG_DIR sleeps 30 s first,
 * standing in for a writer stuck inside librrd, and every call sleeps
 * $STRESSD_TEST_SLOW_US microseconds first, standing in for a slow disk,
 * and $STRESSD_TEST_SLOW_VALUE_US more for each value it writes
 * (capspread.sh: a disk of so many updates a second, however batched).
 * stressd hands librrd /proc/self/fd/N of a file it opened beneath the
 * run's directory: the directory is matched on what N names.
 * rrd_create_r sleeps $STRESSD_TEST_SLOW_CREATE_US first (crash.sh and
 * discard.sh: a creating phase long enough to be killed or stopped in),
 * posix_fadvise $STRESSD_TEST_SLOW_FADVISE_US (coldcache.sh: an eviction
 * pass long enough to be stopped in).
 * Built by the test with cc -shared. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int	rrd_update_r(const char *, const char *, int, const char **);
int	rrd_create_r(const char *, unsigned long, time_t, int, const char **);

int
rrd_update_r(const char *file, const char *tmpl, int argc, const char **argv)
{
	static int (*real)(const char *, const char *, int, const char **);
	const char *dir = getenv("STRESSD_TEST_HANG_DIR");
	const char *slow = getenv("STRESSD_TEST_SLOW_US");
	const char *per = getenv("STRESSD_TEST_SLOW_VALUE_US");
	char real_path[4096];
	const char *name = file;
	ssize_t n;

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "rrd_update_r");
	if (strncmp(file, "/proc/self/fd/", 14) == 0 &&
	    (n = readlink(file, real_path, sizeof(real_path) - 1)) > 0) {
		real_path[n] = '\0';
		name = real_path;
	}
	if (dir != NULL && *dir != '\0' && strncmp(name, dir, strlen(dir)) == 0)
		sleep(30);
	if (slow != NULL && *slow != '\0')
		usleep((useconds_t)strtoul(slow, NULL, 10));
	if (per != NULL && *per != '\0' && argc > 0)
		usleep((useconds_t)(strtoul(per, NULL, 10) *
		    (unsigned long)argc));
	return real(file, tmpl, argc, argv);
}

int
rrd_create_r(const char *file, unsigned long step, time_t last, int argc,
    const char **argv)
{
	static int (*real)(const char *, unsigned long, time_t, int,
	    const char **);
	const char *slow = getenv("STRESSD_TEST_SLOW_CREATE_US");

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "rrd_create_r");
	if (slow != NULL && *slow != '\0')
		usleep((useconds_t)strtoul(slow, NULL, 10));
	return real(file, step, last, argc, argv);
}

int
posix_fadvise(int fd, off_t off, off_t len, int advice)
{
	static int (*real)(int, off_t, off_t, int);
	const char *slow = getenv("STRESSD_TEST_SLOW_FADVISE_US");

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "posix_fadvise");
	if (slow != NULL && *slow != '\0')
		usleep((useconds_t)strtoul(slow, NULL, 10));
	return real(fd, off, len, advice);
}
