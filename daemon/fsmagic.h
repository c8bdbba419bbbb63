/*
 * The name of a filesystem type from statfs(2)'s f_type, for a directory
 * no line of the mount table covers (a chroot whose root is no mount
 * point).  Only the common types are known.
 */
#ifndef STRESSD_FSMAGIC_H
#define STRESSD_FSMAGIC_H

/* The name (as the mount table spells the type where one type has its
 * own magic; "ext2/ext3/ext4" for the one magic those three share), or
 * NULL for a magic not in the table. */
const char	*fsmagic_name(unsigned long magic);

#endif
