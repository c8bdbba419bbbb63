/*
 * Requests on the control socket without the socket: where a line ends in
 * the input, the checks of the envelope {"cmd", "args", "id"}, and each
 * command's argument checks.  No libevent, no engine and no side effects,
 * so the fuzzer (tests/fuzz/) drives exactly the code stressd runs;
 * control.c frames and parses with it, and cmd_dispatch (cmd.c) runs the
 * argument check that each command's entry names.
 */
#ifndef STRESSD_REQUEST_H
#define STRESSD_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <json-c/json.h>

#include "capopts.h"
#include "knobs.h"
#include "proto.h"
#include "sweepopts.h"

/* Deeper JSON than this is refused as a parse error. */
#define REQUEST_MAX_JSON_DEPTH	32
/* A string id is echoed in the reply, so it is kept short. */
#define REQUEST_MAX_ID_LEN	256
/* Longest "field" of an error reply (it may echo a client's key). */
#define REQUEST_MAX_FIELD	256

enum request_frame {
	REQUEST_FRAME_MORE,	/* no complete line yet: read on */
	REQUEST_FRAME_LINE,	/* a complete line */
	REQUEST_FRAME_TOO_LONG,	/* the line passes PROTO_MAX_LINE */
};

/*
 * What the input holds next: buffered bytes, eol the offset of the first
 * LF in them or -1.  For a line, *len is its length without the LF.  A
 * line is too long as soon as PROTO_MAX_LINE bytes without an LF are
 * buffered, so a client cannot make the daemon buffer more.
 */
enum request_frame request_frame(size_t buffered, ssize_t eol, size_t *len);

/* A parsed request; obj owns what the other members point to. */
struct request {
	json_object	*obj;
	const char	*cmd;
	json_object	*args;	/* an object, or NULL when not given */
	json_object	*id;	/* to echo, or NULL: not given or not valid */
};

/* What an error reply says. */
struct request_error {
	const char	*code;		/* PROTO_ERR_* */
	const char	*field;		/* or NULL; lives as long as the
					   request or a static buffer */
	char		 message[PROTO_MAX_MESSAGE];
};

/*
 * Parse and check one request line of len bytes; line[len] must be NUL
 * (as evbuffer_readln leaves it).  0 with *req filled, or -1 with *err
 * filled; req->id is then what the error reply echoes.  Either way
 * request_free(req) afterwards.
 */
int	request_parse(const char *line, size_t len, struct request *req,
	    struct request_error *err);
/* A reply's envelope {"ok": ok, "id": id} (no id when id is NULL). */
json_object *request_envelope(json_object *id, bool ok);
/*
 * The error reply {"ok": false, "id", "error": {code, field, message}}
 * (id may be NULL), always shorter than PROTO_MAX_LINE: the field is
 * cut to REQUEST_MAX_FIELD bytes and the message shortened, marked
 * " [...]", however much the client's bytes in them escape.
 */
json_object *request_error_reply(json_object *id, const char *code,
	    const char *field, const char *message);
void	request_free(struct request *req);

/* *err = {code, field, the message}. */
void	request_set_error(struct request_error *err, const char *code,
	    const char *field, const char *fmt, ...)
	    __attribute__((format(printf, 4, 5)));

/* What a command's arguments say, once checked. */
struct request_args {
	bool			drain;	/* stop: drain the queue (default) */
	bool			wait;	/* stop: reply at the end (default) */
	int64_t			run;	/* report: the run asked for; 0 none */
	/* start: the update_file comes as a descriptor passed with the
	 * request ("update_fd": true); else whether the client's own
	 * arguments (not a profile) name a path to read. */
	bool			update_fd;
	bool			update_path_given;
	struct stress_params	params;	/* start: the run's knobs */
	struct capopts	cap;	/* capacity: the search's own */
	struct sweep_opts sweep;	/* sweep: its own */
	/* report: the record of the job kind of this name (its "kind"),
	 * NULL: the run's report.json. */
	const char	*record_kind;
	/* runs: at most limit records, those with ids below before (0:
	 * the newest). */
	int64_t			limit;
	int64_t			before;
};

/* runs' page: REQUEST_RUNS_LIMIT_DEFAULT records unless limit says. */
#define REQUEST_RUNS_LIMIT_DEFAULT	100
#define REQUEST_RUNS_LIMIT_MAX		10000
/* One past the last run id (RUNRECORDS_MAX_ID): before it, every id. */
#define REQUEST_RUNS_BEFORE_MAX		1000000000

struct config;

/*
 * A command's argument check (args may be NULL): unknown keys and each
 * value, for start a profile of cfg (may be NULL) under the knobs and the
 * knob table's checks.  Touches nothing.  0 with the values in *a, or -1
 * with *err filled and nothing held.
 */
typedef int	(*request_check_fn)(json_object *args, const struct config *cfg,
		    struct request_args *a, struct request_error *err);

/* The checks the command table names. */
int	request_check_start(json_object *, const struct config *,
	    struct request_args *, struct request_error *);
int	request_check_stop(json_object *, const struct config *,
	    struct request_args *, struct request_error *);
int	request_check_report(json_object *, const struct config *,
	    struct request_args *, struct request_error *);
/* capreq.c: the knobs as for start, with dirs and the search's keys. */
int	request_check_capacity(json_object *, const struct config *,
	    struct request_args *, struct request_error *);
/* sweepreq.c: the knobs as for start, with dirs, labels and repeat. */
int	request_check_sweep(json_object *, const struct config *,
	    struct request_args *, struct request_error *);
/* runs: limit (1 .. REQUEST_RUNS_LIMIT_MAX) and before (a run id). */
int	request_check_runs(json_object *, const struct config *,
	    struct request_args *, struct request_error *);
/* For commands that take no arguments. */
int	request_check_none(json_object *, const struct config *,
	    struct request_args *, struct request_error *);

/*
 * Run check over args from the defaults (a stop drains and waits): 0,
 * with the values in *out when it is not NULL (release with
 * request_args_free), or -1 with *err filled and nothing held.
 */
int	request_check_args(request_check_fn check, json_object *args,
	    const struct config *cfg, struct request_args *out,
	    struct request_error *err);
void	request_args_free(struct request_args *a);
/* "dirs[3]" and the like, for an error's field: one buffer, overwritten
 * by the next call (a reply is sent before the next request is read). */
const char *request_indexed(const char *key, size_t i);
/* args' key, a list of 1..max strings, into out (strdup'ed), *n of them;
 * 0 also when the key is absent (*n 0), -1 with err set. */
int	request_string_list(json_object *args, const char *key, size_t max,
	    char **out, size_t *n, struct request_error *err);
/* The strings of a sweep's own arguments, freed (the sweep's too). */
void	request_sweep_opts_free(struct sweep_opts *o);

#endif
