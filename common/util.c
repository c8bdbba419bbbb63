#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

double
util_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
util_iso8601(long long t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int
util_mkdir_p(const char *path, unsigned mode)
{
	char buf[4096];
	size_t len = strlen(path);

	if (len == 0 || len >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) == -1 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, mode) == -1 && errno != EEXIST)
		return -1;
	return 0;
}

int
util_send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void
tmp_name(char *buf, size_t len, const char *path)
{
	snprintf(buf, len, "%s.tmp", path);
}

FILE *
util_tmp_open(const char *path)
{
	char tmp[4400];
	FILE *fp;
	int fd, saved;

	tmp_name(tmp, sizeof(tmp), path);
	if (unlink(tmp) == -1 && errno != ENOENT)
		return NULL;
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) == -1)
		return NULL;
	if ((fp = fdopen(fd, "w")) == NULL) {
		saved = errno;
		close(fd);
		unlink(tmp);
		errno = saved;
	}
	return fp;
}

int
util_tmp_commit(FILE *fp, const char *path)
{
	char tmp[4400];
	int saved, bad = ferror(fp);

	tmp_name(tmp, sizeof(tmp), path);
	if (fclose(fp) == EOF || bad || rename(tmp, path) == -1) {
		saved = bad && errno == 0 ? EIO : errno;
		unlink(tmp);
		errno = saved;
		return -1;
	}
	return 0;
}

long
util_proc_status(const char *key, int base)
{
	char line[256], *end;
	size_t klen = strlen(key);
	long v = -1;
	FILE *fp = fopen("/proc/self/status", "re");

	if (fp == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			errno = 0;
			v = strtol(line + klen + 1, &end, base);
			if (errno != 0 || end == line + klen + 1 || v < 0)
				v = -1;
			break;
		}
	fclose(fp);
	return v;
}
