/* idmap: what this process's user namespace maps, from /proc/self. */
#include <stdio.h>

#include "idmap.h"

bool
idmap_gid_mapped(gid_t gid)
{
	unsigned long in, out, count;
	bool mapped = false;
	FILE *fp;

	if ((fp = fopen("/proc/self/gid_map", "re")) == NULL)
		return true;	/* no namespaces to tell apart */
	/* "inside outside count" per line; gid is an inside id. */
	while (!mapped && fscanf(fp, "%lu %lu %lu", &in, &out, &count) == 3)
		mapped = gid >= in && gid - in < count;
	fclose(fp);
	return mapped;
}
