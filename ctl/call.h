/* stressctl's requests to stressd: build {"cmd", "args", "id": 1}, send it
 * over the control socket (client.c), check the reply's envelope and print
 * an error reply.  STRESSCTL_DRY_RUN prints the request instead. */
#ifndef STRESSCTL_CALL_H
#define STRESSCTL_CALL_H

#include <json-c/json.h>

#include "ctl.h"

/* What call_request() left: a reply to show, or only an exit status. */
#define CALL_OK	(-1)

/*
 * Send {"cmd": name, "args": args, "id": 1} to ctl->socket and read the
 * reply.  Returns CALL_OK with *reply the checked reply (to be put by the
 * caller), or the exit status with *reply NULL (a dry run: CTL_EXIT_OK,
 * the request printed).
 */
int		 call_request(struct ctl *ctl, const char *name,
		    json_object *args, json_object **reply);
/* The record commands' way to the daemon: a records_call_fn whose arg is
 * the struct ctl. */
json_object	*call_daemon(void *arg, const char *name, json_object *args,
		    int *rc);

#endif
