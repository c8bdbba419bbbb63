/* A temporary directory for a unit test; see tmpdir.h. */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

#include "tmpdir.h"

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int
tmpdir_make(char *buf, size_t size, const char *name)
{
	if ((size_t)snprintf(buf, size, "/tmp/%s.XXXXXX", name) >= size)
		return -1;
	return mkdtemp(buf) == NULL ? -1 : 0;
}

int
tmpdir_remove(const char *dir)
{
	return nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
