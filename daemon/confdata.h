/*
 * What stressd.conf says, as a struct: the global keys and the profiles.
 * A header of its own, with no .c, so that the key table (confkeys.c)
 * fills it without including the loader (conffile.c) that uses the table.
 */
#ifndef STRESSD_CONFDATA_H
#define STRESSD_CONFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "knobs.h"

#define CONFIG_MAX_ALLOWED	32
#define CONFIG_MAX_PROFILES	64

struct conffile_profile {
	char		 name[64];
	json_object	*args;	/* knob name -> typed JSON value, as
				   stressctl would send */
};

struct config {
	char		path[4096];	/* the file read, "" if none */
	char		socket[108];	/* default /run/stressd/stressd.sock */
	char		socket_group[64];	/* "" = leave the group alone */
	unsigned	socket_mode;	/* default 0660; octal in the file */
	char		state_dir[4096];	/* default /var/lib/stressd */
	/* Absolute paths, comma- or space-separated in the file. */
	char		allowed_dirs[CONFIG_MAX_ALLOWED][4096];
	size_t		nallowed;
	/* True when allowed_dirs was given; given but empty is an error,
	 * so a restricted configuration always allows something. */
	bool		restricted;
	/* rrdcached addresses a run's target may name (rrdcached:ADDR);
	 * none given: any.  Given but empty is an error. */
	char		allowed_targets[CONFIG_MAX_ALLOWED][KNOBS_TEXT_MAX];
	size_t		ntargets;
	char		metrics_listen[128];	/* "" = off */
	double		sample_interval;	/* default for runs, 0.1..60 */
	int		log_level;	/* LOG_LVL_*, default info */
	double		drain_timeout;	/* seconds, default 60, 0..86400 */
	uint64_t	memory_max;	/* bytes, 0 = no cap (memcap.h) */
	struct conffile_profile profiles[CONFIG_MAX_PROFILES];
	size_t		nprofiles;
};

#endif
