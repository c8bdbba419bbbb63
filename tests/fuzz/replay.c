/*
 * The fuzz target's entry over saved inputs, without libFuzzer: built
 * with the ordinary compiler so that valgrind can watch every error path
 * of the request parser for uninitialised values (tests/fuzz/replay.sh).
 * Arguments are files, or directories whose regular files are each one
 * input.  Exit 0 when every input went through; the target aborts on a
 * failed check.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int	LLVMFuzzerInitialize(int *argc, char ***argv);
int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One input; -1 when it cannot be read. */
static int
replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;
	int rc = -1;

	if (f == NULL || fseek(f, 0, SEEK_END) == -1 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) == -1)
		goto fail;
	/* An exact-size copy: a read past the input is valgrind's to see. */
	if ((buf = malloc(n > 0 ? (size_t)n : 1)) == NULL ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n)
		goto fail;
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	rc = 0;
fail:
	if (rc == -1)
		perror(path);
	free(buf);
	if (f != NULL)
		fclose(f);
	return rc;
}

/* Every regular file of dir, in readdir's order; inputs counted in *n. */
static int
replay_dir(const char *dir, unsigned *n)
{
	char path[4096];
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(dir);
	int rc = 0;

	if (d == NULL) {
		perror(dir);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) == -1 || !S_ISREG(st.st_mode))
			continue;
		if (replay_file(path) == -1)
			rc = -1;
		else
			(*n)++;
	}
	closedir(d);
	return rc;
}

int
main(int argc, char **argv)
{
	struct stat st;
	unsigned n = 0;
	int rc = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (replay_dir(argv[i], &n) == -1)
				rc = 1;
		} else if (replay_file(argv[i]) == -1)
			rc = 1;
		else
			n++;
	}
	printf("request_replay: %u inputs\n", n);
	return rc;
}
