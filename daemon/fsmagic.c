/* statfs f_type magics by name; the values are those of <linux/magic.h>
 * and statfs(2), written out so no kernel header is needed. */
#include <stddef.h>

#include "fsmagic.h"

static const struct {
	unsigned long	 magic;
	const char	*name;
} types[] = {
	/* ext4's driver serves all three under one magic: which of them the
	 * superblock's features make it is not in statfs. */
	{ 0xef53, "ext2/ext3/ext4" },
	{ 0x58465342, "xfs" },
	{ 0x9123683e, "btrfs" },
	{ 0xf2f52010, "f2fs" },
	{ 0x2fc12fc1, "zfs" },
	{ 0xca451a4e, "bcachefs" },
	{ 0x3153464a, "jfs" },
	{ 0x52654973, "reiserfs" },
	{ 0x3434, "nilfs2" },
	{ 0x01021994, "tmpfs" },
	{ 0x858458f6, "ramfs" },
	{ 0x958458f6, "hugetlbfs" },
	{ 0x794c7630, "overlay" },
	{ 0x6969, "nfs" },
	{ 0xff534d42, "cifs" },
	{ 0xfe534d42, "smb2" },
	{ 0x00c36400, "ceph" },
	{ 0x01021997, "9p" },
	{ 0x65735546, "fuse" },
	{ 0x01161970, "gfs2" },
	{ 0x7461636f, "ocfs2" },
	{ 0x4d44, "vfat" },
	{ 0x2011bab0, "exfat" },
	{ 0x5346544e, "ntfs" },
	{ 0x7366746e, "ntfs3" },
	{ 0x9660, "iso9660" },
	{ 0x73717368, "squashfs" },
	{ 0x9fa0, "proc" },
	{ 0x62656572, "sysfs" },
};

const char *
fsmagic_name(unsigned long magic)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].magic == magic)
			return types[i].name;
	return NULL;
}
