/* Control protocol shared by stressd and stressctl: one JSON object per
 * line each way over a Unix stream socket (see DESIGN.md). */
#ifndef STRESSD_PROTO_H
#define STRESSD_PROTO_H

/* Bump on any incompatible change of requests or replies. */
#define PROTO_VERSION		1

/* A request or reply line, newline excluded, is at most this long. */
#define PROTO_MAX_LINE		(64 * 1024)
/* Longest error message in a reply (it may name long paths); the whole
 * error reply is kept under PROTO_MAX_LINE even so. */
#define PROTO_MAX_MESSAGE	16384
/* Longest refusal of a run (a bad knob, a failed setup): a start's error
 * message has always been cut here. */
#define PROTO_MAX_RUN_ERROR	10240

#define PROTO_ERR_PARSE		"parse_error"
#define PROTO_ERR_BAD_REQUEST	"bad_request"
#define PROTO_ERR_UNKNOWN_CMD	"unknown_command"
#define PROTO_ERR_BAD_ARGUMENT	"bad_argument"
#define PROTO_ERR_BUSY		"busy"
#define PROTO_ERR_NO_RUN	"no_run"
#define PROTO_ERR_TOO_LONG	"too_long"
#define PROTO_ERR_DENIED	"denied"
#define PROTO_ERR_INTERNAL	"internal"

/* stressctl exit codes (documented in stressctl --help and its man page). */
#define CTL_EXIT_OK		0
#define CTL_EXIT_ERROR		1	/* error reply, or the run failed */
#define CTL_EXIT_USAGE		2
#define CTL_EXIT_CONNECT	3
#define CTL_EXIT_TIMEOUT	4	/* no reply within --timeout */

#endif
