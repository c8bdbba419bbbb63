/*
 * What a run will need, checked before it starts against the room the
 * memory cap in force leaves it (memcap_room), so that a start the cap
 * cannot hold is refused, naming the knob and the numbers, instead of
 * getting the daemon killed by the kernel's OOM killer.  The needs: the
 * file table (MEMNEED_FILE_BYTES a file), the update file's values (8
 * bytes each, held through the run; reading them holds the text too:
 * loadgen_bound), and the queue's bound, queue_memory_max.  Without a cap
 * every check passes.
 */
#ifndef STRESSD_MEMNEED_H
#define STRESSD_MEMNEED_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct memneed {
	bool		 capped;
	uint64_t	 room;			/* bytes a run may hold */
	char		 why[PATH_MAX + 256];	/* memcap_room's phrase */
};

/* The room as it is now (call before the run allocates anything). */
void		memneed_init(struct memneed *m);
/* Bytes the run holds per file: the queue's entry and the baseline's. */
uint64_t	memneed_file_bytes(void);
/* The file table alone; 0, or -1 with err (the knob: files). */
int	memneed_check_files(const struct memneed *m, uint64_t files,
	    char *err, size_t errlen);
/* What a run holds beside its queue through the load. */
struct memneed_run {
	uint64_t	 files;		/* the file table's */
	uint64_t	 nvalues;	/* the update file's values */
	uint64_t	 writers;	/* threads that format batches */
	uint64_t	 writer_bytes;	/* the most one's batch holds */
};

/*
 * The load: what r holds and the queue's bound (MiB, 0 = unbounded).  A
 * bound that fit says is the default is lowered to what the rest leaves.
 * 0, or -1 with *field (files, update_file, write_threads or
 * queue_memory_max) and err.
 */
int	memneed_check_load(const struct memneed *m,
	    const struct memneed_run *r, uint64_t *queue_mib, bool fit,
	    const char **field, char *err, size_t errlen);

#endif
