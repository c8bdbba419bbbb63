/*
 * Where a run may go, by stressd.conf's allowed_dirs and allowed_targets:
 * the checks `start` makes before it prepares a run.
 */
#ifndef STRESSD_POLICY_H
#define STRESSD_POLICY_H

#include <stddef.h>

struct config;

/*
 * Is dir inside one of allowed_dirs?  Both are resolved with realpath; a
 * dir that does not exist yet is resolved through its longest existing
 * ancestor with the rest appended, refusing any ".." there.  1 allowed,
 * 0 denied (err says why, naming the dir and the allowed list); always 1
 * when !restricted.
 */
int	policy_dir_allowed(const struct config *c, const char *dir, char *err,
	    size_t errlen);
/*
 * May a run use target (the knob's value)?  librrd always; rrdcached:ADDR
 * when allowed_targets is unset or lists ADDR as written.  1 allowed, 0
 * denied (err names the target and the allowed list).
 */
int	policy_target_allowed(const struct config *c, const char *target,
	    char *err, size_t errlen);

#endif
