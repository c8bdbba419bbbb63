/* The plain views of one reply (replyview.c): start's and stop's line,
 * status, help and version as key/value rows, a capacity search's record
 * as the reply of wait or stop, and the JSON view every command shares. */
#ifndef STRESSCTL_REPLYVIEW_H
#define STRESSCTL_REPLYVIEW_H

#include <json-c/json.h>

void	replyview_start(json_object *result);
/* The run's new state (stop --no-wait; stop's final stats are
 * statsview.c's). */
void	replyview_stop(json_object *result);
/* status --all, every knob of the run. */
void	replyview_status(json_object *result);
void	replyview_help(json_object *result);
void	replyview_version(json_object *result);
/* A capacity record (wait and stop at the end of a search): capview.c's
 * view, without or with its steps (--all). */
void	replyview_capacity(json_object *result);
void	replyview_capacity_steps(json_object *result);
/* Scripts get the result exactly as the daemon sent it. */
void	replyview_json(json_object *result);

#endif
