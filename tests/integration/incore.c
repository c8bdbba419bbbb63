/*
 * incore [-e] FILE...: how much of each FILE is in the page cache, asked
 * of the kernel with mincore(2) (fincore's question, but fincore is in
 * Debian's util-linux-extra, not in the essential util-linux), built by
 * tests/integration/coldcache.sh at test time.  Prints one line per file,
 * "RESIDENT_PAGES TOTAL_PAGES FILE".  With -e it first writes the file
 * back and advises POSIX_FADV_DONTNEED: the test's probe of whether the
 * filesystem lets clean pages go at all (tmpfs does not).  Exit 0, or 1
 * on a failed call.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int
count(const char *path, int evict)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *vec = NULL;
	size_t pages, resident = 0;
	struct stat st;
	void *map = NULL;
	int fd, rc = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		perror(path);
		goto out;
	}
	if (evict && (fdatasync(fd) == -1 ||
	    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)) {
		perror(path);
		goto out;
	}
	pages = ((size_t)st.st_size + (size_t)page - 1) / (size_t)page;
	if (pages > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED,
		    fd, 0);
		if (map == MAP_FAILED || (vec = malloc(pages)) == NULL ||
		    mincore(map, (size_t)st.st_size, vec) == -1) {
			perror(path);
			goto out;
		}
		for (size_t i = 0; i < pages; i++)
			resident += vec[i] & 1;
	}
	printf("%zu %zu %s\n", resident, pages, path);
	rc = 0;
out:
	if (map != NULL && map != MAP_FAILED)
		munmap(map, (size_t)st.st_size);
	free(vec);
	if (fd != -1)
		close(fd);
	return rc;
}

int
main(int argc, char **argv)
{
	int evict = argc > 1 && strcmp(argv[1], "-e") == 0, rc = 0;

	for (int i = 1 + evict; i < argc; i++)
		if (count(argv[i], evict) == -1)
			rc = 1;
	return rc;
}
