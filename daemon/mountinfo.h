/*
 * Which mount a path lives on, from /proc/self/mountinfo: mount point, file
 * system type, source and options, so a run can state what it measured.
 *
 * Lines that do not parse are skipped, not fatal.  Option fields longer
 * than their buffer are cut after the last whole option that fits (an
 * overlayfs lowerdir list can run to kilobytes); a file system type or
 * source that does not fit fails the lookup rather than being truncated.
 */
#ifndef STRESSD_MOUNTINFO_H
#define STRESSD_MOUNTINFO_H

#include <stddef.h>

/* Every field with the kernel's octal escapes (\040 ...) decoded. */
struct mountinfo {
	char	mount_point[4096];
	char	fs_type[64];
	char	mount_source[4096];
	char	mount_options[1024];	/* per-mount options (field 6), e.g. "rw,noatime" */
	char	super_options[1024];	/* per-superblock options (last field), e.g. "rw,data=writeback" */
};

/* The mount holding path (resolved with realpath first): the entry whose
 * mount point is the longest prefix of the resolved path on a
 * path-component boundary; when several entries have the same mount point
 * (stacked mounts) the LAST one in the file wins (it is the visible one).
 * 0, or -1 with a message in err naming the path (mi is then undefined). */
int	mountinfo_lookup(const char *path, struct mountinfo *mi, char *err,
	    size_t errlen);
/* The same over a given mountinfo text (for tests): table is the file's
 * contents, resolved_path an absolute path without symlinks, "." or "..". */
int	mountinfo_lookup_in(const char *table, const char *resolved_path,
	    struct mountinfo *mi, char *err, size_t errlen);

/* The options an admin would quote for this mount: the mount options, then
 * the super options not already there other than "rw"/"ro" (ext3's
 * data=writeback appears only in the latter); comma separated, without
 * duplicates.  When out is too small the list ends at the last whole
 * option that fits; nothing is written when len is 0. */
void	mountinfo_options(const struct mountinfo *mi, char *out, size_t len);

#endif
