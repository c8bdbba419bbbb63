/*
 * The memory cap: a production host's RRD files rarely fit in its page
 * cache, a test machine's usually do.  `stressd --memory-max SIZE` puts
 * the daemon (every thread: writers, generators, the loop) in a fresh
 * memory-limited cgroup, so the page cache its runs may use is SIZE at
 * most: cgroup v1 a child stressd-<pid> of its memory cgroup with
 * memory.limit_in_bytes, cgroup v2 /stressd-<pid> (the root is the only
 * parent the no-internal-process rule always allows) with memory.max.
 * Under systemd the unit's MemoryMax= does it instead.  Whoever set it,
 * memcap_json() reports the cap in force, read along /proc/self/cgroup.
 */
#ifndef STRESSD_MEMCAP_H
#define STRESSD_MEMCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

/* What the daemon needs for itself under a cap (its heap, librrd's
 * buffers, metrics.rrd, the records' pages): no smaller cap is taken,
 * and a run's queue_memory_max must leave this much. */
#define MEMCAP_FLOOR	(64ULL * 1024 * 1024)

/* Test hook: the cgroupfs root (default /sys/fs/cgroup) and the file
 * read for the daemon's cgroups (default /proc/self/cgroup); NULL keeps
 * the default.  The strings must outlive their use. */
void	memcap_set_paths(const char *cgroupfs, const char *proc_cgroup);

/*
 * SIZE: a whole number of bytes, or with a binary suffix K, M, G or T
 * (KiB, MiB... and KB, MB... read the same; any case).  0, or -1 when it
 * is no size or is 0 or does not fit in 63 bits.
 */
int	memcap_parse_size(const char *s, uint64_t *out);
/* bytes as --memory-max: at least MEMCAP_FLOOR.  0, or -1 with a
 * sentence naming --memory-max: the one check of the option, made as it
 * is parsed, so that --check-config refuses what a start would. */
int	memcap_check_floor(uint64_t bytes, char *err, size_t errlen);

/*
 * Put the daemon in a new cgroup capped at bytes (call before any thread
 * starts, before anything else is created).  0, or -1 with a sentence
 * naming --memory-max in err, and nothing left behind: below
 * MEMCAP_FLOOR; under systemd as a service (INVOCATION_ID, or a cgroup
 * ending in .service: use MemoryMax=); no memory controller; not
 * permitted (not root, EACCES, a read-only cgroupfs).
 */
int	memcap_init(uint64_t bytes, char *err, size_t errlen);
/* Move back to the cgroup memcap_init found and remove ours; does
 * nothing without memcap_init, and nothing the second time. */
void	memcap_teardown(void);

/*
 * The effective cap on the daemon: the least memory.limit_in_bytes (v1)
 * or memory.max (v2) of its cgroup and their ancestors; "max" or a v1
 * "unlimited" (>= 2^62) is no cap.  true with *limit and, if source is
 * not NULL, where it comes from; false: no cap.
 */
bool	memcap_effective(uint64_t *limit, char *source, size_t len);
/* {"limit_bytes": n|null, "source": "..."|null}: memcap_effective's
 * answer, as report.json's and status's "memory". */
json_object	*memcap_json(void);
/* Memory the page cache may use: min(avail, the cap); avail without one. */
uint64_t	memcap_clamp_available(uint64_t avail);

/* The daemon's resident memory now (/proc/self/statm), 0 if unknown. */
uint64_t	memcap_held(void);
/*
 * What a run may hold under the cap in force: the cap less what stressd
 * keeps for itself, MEMCAP_FLOOR or what it holds now if more.  true with
 * *room and, in why, the phrase messages give it ("the 96 MiB a run may
 * use: the memory cap of 160 MiB (SOURCE) less the 64 MiB stressd keeps
 * for itself"); false: no cap.
 */
bool	memcap_room(uint64_t *room, char *why, size_t len);

/*
 * A run's queue_memory_max (MiB, 0 = unbounded) under the cap: it must
 * leave MEMCAP_FLOOR.  One the run did not set (given false) is lowered
 * to fit instead.  0, or -1 with a sentence saying the numbers; no cap:
 * always 0.
 */
int	memcap_check_queue(uint64_t *queue_mib, bool given, char *err,
	    size_t errlen);

#endif
