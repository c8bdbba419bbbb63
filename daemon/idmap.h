/* idmap: what this process's user namespace maps. */
#ifndef STRESSD_IDMAP_H
#define STRESSD_IDMAP_H

#include <stdbool.h>
#include <sys/types.h>

/* Whether gid (as this namespace sees it) is one it maps: under systemd's
 * PrivateUsers= every other gid reads as the overflow gid, alike for a
 * file and for any client, so it tells no one apart.  True when
 * /proc/self/gid_map cannot be read. */
bool	idmap_gid_mapped(gid_t gid);

#endif
