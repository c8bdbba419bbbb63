/*
 * What a control command's entry is (cmd.h lists them in the table).  A
 * header with no .c: the families of commands (cmd-*.c) include it to
 * define their entries, so they stay below the table, which names them.
 */
#ifndef STRESSD_CMDENTRY_H
#define STRESSD_CMDENTRY_H

#include <stdbool.h>
#include <json-c/json.h>

#include "request.h"

struct control_conn;

struct cmd_entry {
	const char	*name;
	const char	*usage;
	const char	*summary;	/* one line for `help` */
	bool		 read_only;	/* false: changes state; writers only,
					   logged */
	/* NULL, or whether the command can run now at all (it replied if
	 * not); asked before the arguments are checked. */
	bool		(*ready)(struct control_conn *c, json_object *id);
	request_check_fn check;		/* its arguments (request.c) */
	/* Runs it with the checked arguments, freed once it returns: it
	 * replies or defers (control.h). */
	void		(*handler)(struct control_conn *c, json_object *id,
			    struct request_args *a);
};

#endif
