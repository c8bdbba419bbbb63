/*
 * Which filesystem a directory lives on, for the record: from the line of
 * /proc/self/mountinfo of the mount the directory is reached through
 * (named by its mount ID, so it holds in a chroot, a container and on a
 * bind mount, where path prefixes of the table mislead), else from another
 * line of the same device, else from statfs(2) alone.
 *
 * Lines that do not parse are skipped, not fatal.  Option fields longer
 * than their buffer are cut after the last whole option that fits (an
 * overlayfs lowerdir list can run to kilobytes); a line whose type, source
 * or paths do not fit is not used rather than truncated.
 */
#ifndef STRESSD_MOUNTINFO_H
#define STRESSD_MOUNTINFO_H

#include <stdbool.h>
#include <stddef.h>

/* Where the facts came from (report.json's target.fs_from). */
enum mountinfo_from {
	MOUNTINFO_FROM_MOUNT,	/* the line of the directory's own mount */
	MOUNTINFO_FROM_DEVICE,	/* that line is not visible (the root of a
				 * chroot that is no mount point): another
				 * line of the same device; per-mount facts
				 * from statfs */
	MOUNTINFO_FROM_STATFS,	/* no line: statfs alone */
};

/* Every field with the kernel's octal escapes (\040 ...) decoded; ""
 * where unknown. */
struct mountinfo {
	enum mountinfo_from from;
	unsigned long	fs_magic;		/* statfs f_type; 0: not given */
	char	fs_type[64];		/* e.g. "ext4"; by statfs: fsmagic.h */
	char	mount_source[4096];	/* e.g. "/dev/sda1", without findmnt's [/dir] */
	/* Where the filesystem is mounted: of the mounts of its device the
	 * one whose root is the outermost directory holding the directory
	 * (the whole filesystem's, root "/", when visible), so not the bind
	 * of a unit's ReadWritePaths=.  "" with FROM_DEVICE when no mount of
	 * the whole filesystem is visible, and with FROM_STATFS. */
	char	mount_point[4096];
	char	seen_at[4096];		/* the directory's own mount's point (FROM_MOUNT) */
	char	bind_root[4096];	/* its root within the filesystem: "/" unless a bind */
	char	mount_options[1024];	/* the directory's own mount's (field 6), e.g. "rw,noatime";
					 * else statfs's flags */
	char	super_options[1024];	/* per-superblock options (last field), e.g. "rw,data=writeback" */
};

/* What the kernel says of the directory itself, matched with the table. */
struct mountinfo_dir {
	long		mnt_id;		/* statx STATX_MNT_ID or fdinfo; -1: unknown */
	bool		have_dev;
	unsigned	dev_major, dev_minor;	/* st_dev */
	unsigned long	fs_magic;	/* statfs f_type */
	unsigned long	flags;		/* statvfs f_flag (ST_RDONLY ...) */
};

/* The filesystem holding path (resolved with realpath first).  0; 1 when
 * a line was there but could not be used (err says why, mi is filled from
 * what remains); -1 with a message in err naming the path when the path
 * cannot be resolved or stat'ed (mi is then undefined). */
int	mountinfo_lookup(const char *path, struct mountinfo *mi, char *err,
	    size_t errlen);
/* The same over a given mountinfo text (for tests): table is the file's
 * contents, resolved_path an absolute path without symlinks, "." or "..",
 * d what the kernel said of it.  With d NULL only the table is used: the
 * entry whose mount point is the longest prefix of the path on a
 * path-component boundary, the LAST of stacked mounts on one point (the
 * visible one); -1 when none. */
int	mountinfo_lookup_in(const char *table, const char *resolved_path,
	    const struct mountinfo_dir *d, struct mountinfo *mi, char *err,
	    size_t errlen);

/* "mount", "device" or "statfs". */
const char *mountinfo_from_name(enum mountinfo_from from);

/* The options an admin would quote for this mount: the mount options, then
 * the super options not already there other than "rw"/"ro" (ext3's
 * data=writeback appears only in the latter); comma separated, without
 * duplicates.  When out is too small the list ends at the last whole
 * option that fits; nothing is written when len is 0. */
void	mountinfo_options(const struct mountinfo *mi, char *out, size_t len);

#endif
