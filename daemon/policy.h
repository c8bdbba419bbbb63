/*
 * Where a run may go, by stressd.conf's allowed_dirs and allowed_targets:
 * the checks `start` makes before it prepares a run.
 */
#ifndef STRESSD_POLICY_H
#define STRESSD_POLICY_H

#include <stddef.h>

struct config;
struct policy_dirs;

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

/* allowed_dirs as a run keeps them (c NULL: unrestricted); NULL when out
 * of memory. */
struct policy_dirs *policy_dirs_copy(const struct config *c);
void	policy_dirs_free(struct policy_dirs *d);
/*
 * The run directory dir, opened (O_PATH) for the run to hold: through the
 * allowed dir it is inside, each component of the rest beneath the last
 * with no symbolic link (confine.h), made where missing; so what is
 * opened is what the check approved.  Unrestricted: dir as named, made
 * with util_mkdir_p.  The descriptor, or -1 with why in err.
 */
int	policy_dir_open(const struct policy_dirs *d, const char *dir,
	    char *err, size_t errlen);

#endif
