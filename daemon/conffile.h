/*
 * The configuration file, stressd.conf(5): global keys before any section,
 * then [profile NAME] sections of run knobs.  Read with libinih; every
 * error comes back as "FILE:LINE: message" for --check-config and SIGHUP.
 * (Named conffile, not config, beside autoconf's config.h.)
 */
#ifndef STRESSD_CONFFILE_H
#define STRESSD_CONFFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>

#include "confdata.h"

/* Every key at its default, no profiles, not restricted, path "". */
void	conffile_defaults(struct config *c);

/*
 * Reset *c to the defaults and read path over them.  0, or -1 with
 * "FILE:LINE: message" (or "FILE: message" when it cannot be read) in err;
 * on error *c holds the defaults again, so a SIGHUP loads into a scratch
 * struct and keeps the old one.  Errors: a syntax error, an unknown key
 * (naming it and the section), a bad value (naming the key, the value and
 * what is expected), a duplicate key (naming the line of the first), a
 * duplicate profile, a section other than [profile NAME] ([global] is not
 * accepted: global keys go before the first section), a profile key that
 * is not a run knob or whose value the start command would refuse.
 */
int	conffile_load(struct config *c, const char *path, char *err,
	    size_t errlen);

/* Release the profiles' arguments; *c may be loaded again afterwards. */
void	conffile_free(struct config *c);

/*
 * The effective configuration as `key = value` lines: every global key in
 * a fixed order (unset ones as comments), then each [profile NAME] in file
 * order with its keys in knob-table order.  Deterministic, and itself a
 * valid configuration file.  What --check-config prints.
 */
void	conffile_print(const struct config *c, FILE *fp);

/* The profile's arguments (borrowed, valid until conffile_free) or NULL. */
json_object	*conffile_profile(const struct config *c, const char *name);

/* log_info each global key and profile that differs (for SIGHUP). */
void	conffile_log_changes(const struct config *old,
	    const struct config *new_);

#endif
