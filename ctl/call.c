/* Requests to stressd and their replies' envelopes (see call.h); the
 * transport and its reply limit (CLIENT_MAX_REPLY) are client.c's. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "call.h"
#include "client.h"
#include "ctl.h"
#include "fmt.h"
#include "options.h"
#include "proto.h"
#include "suggest.h"

/*
 * Check a reply's envelope.  Returns CALL_OK with *reply the parsed
 * reply (to be put by the caller), or the exit status, an error reply
 * already printed.
 */
static int
parse_reply(struct ctl *ctl, const char *line, json_object **reply)
{
	struct json_tokener *tok = NULL;
	json_object *ok, *id, *err, *v;
	int ret = CTL_EXIT_ERROR;
	size_t len = strlen(line);

	*reply = NULL;
	if ((tok = json_tokener_new()) == NULL) {
		fprintf(stderr, "stressctl: out of memory\n");
		goto fail;
	}
	*reply = json_tokener_parse_ex(tok, line, (int)len);
	if (*reply == NULL ||
	    json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_is_type(*reply, json_type_object) ||
	    !json_object_object_get_ex(*reply, "ok", &ok) ||
	    !json_object_is_type(ok, json_type_boolean)) {
		fprintf(stderr, "stressctl: malformed reply from %s: %.200s\n",
		    ctl->socket, line);
		goto fail;
	}
	/* We sent id 1; anything else is somebody else's answer. */
	if (json_object_object_get_ex(*reply, "id", &id) &&
	    json_object_get_int(id) != 1) {
		fprintf(stderr, "stressctl: reply from %s carries id %s, not "
		    "1\n", ctl->socket, json_object_get_string(id));
		goto fail;
	}
	if (!json_object_get_boolean(ok)) {
		const char *code = "error", *msg = "(no message)";
		const char *field = NULL;

		if (json_object_object_get_ex(*reply, "error", &err)) {
			if (json_object_object_get_ex(err, "code", &v))
				code = json_object_get_string(v);
			if (json_object_object_get_ex(err, "message", &v))
				msg = json_object_get_string(v);
			if (json_object_object_get_ex(err, "field", &v) &&
			    !json_object_is_type(v, json_type_null))
				field = json_object_get_string(v);
		}
		fprintf(stderr, "stressctl: %s: %s%s%s%s\n", code, msg,
		    field ? " (field: " : "", field ? field : "",
		    field ? ")" : "");
		goto fail;
	}
	ret = CALL_OK;
fail:
	if (ret != CALL_OK) {
		json_object_put(*reply);
		*reply = NULL;
	}
	if (tok != NULL)
		json_tokener_free(tok);
	return ret;
}

/* STRESSCTL_DRY_RUN: print the request instead of sending it. */
static bool
dry_run(void)
{
	const char *e = getenv("STRESSCTL_DRY_RUN");

	return e != NULL && *e != '\0' && strcmp(e, "0") != 0;
}

/*
 * A start naming an update_file sends the file, not only its path: it is
 * opened here with the user's own rights and passed with the request
 * (SCM_RIGHTS, "update_fd": true), so that stressd, maybe root, never
 * reads a file for someone who could not.  The descriptor to pass (*args
 * then a copy that says so), -1 when there is none, or -2 with the error
 * printed.  *args is then a new object, the caller's to put.
 */
static int
open_update_file(const char *name, json_object **args)
{
	json_object *v, *copy = NULL;
	const char *path;
	struct stat st;
	int fd;

	if ((strcmp(name, "start") != 0 && strcmp(name, "sweep") != 0) ||
	    *args == NULL ||
	    !json_object_object_get_ex(*args, "update_file", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    *(path = json_object_get_string(v)) == '\0' ||
	    json_object_object_get_ex(*args, "update_fd", NULL))
		return -1;
	/* O_NONBLOCK: a FIFO must not hang the open; it is refused below. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK)) == -1) {
		fprintf(stderr, "stressctl: update_file: cannot open %s: %s\n",
		    path, strerror(errno));
		return -2;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "stressctl: update_file: %s is not a regular "
		    "file\n", path);
		goto fail;
	}
	if (json_object_deep_copy(*args, &copy, NULL) != 0) {
		fprintf(stderr, "stressctl: out of memory\n");
		goto fail;
	}
	json_object_object_add(copy, "update_fd", json_object_new_boolean(1));
	*args = copy;
	return fd;
fail:
	close(fd);
	return -2;
}

/* The file name of the default socket ("stressd.sock"). */
static const char *
socket_name(void)
{
	const char *slash = strrchr(STRESSD_DEFAULT_SOCKET, '/');

	return slash != NULL ? slash + 1 : STRESSD_DEFAULT_SOCKET;
}

/* Does name's reply come only when the run has ended or launched? */
static bool
replies_late(const char *name, json_object *args)
{
	json_object *w;

	if (strcmp(name, "stop") == 0)
		return args == NULL || !json_object_object_get_ex(args, "wait",
		    &w) || json_object_get_boolean(w);
	return strcmp(name, "wait") == 0 || strcmp(name, "start") == 0 ||
	    strcmp(name, "sweep") == 0;
}

/*
 * Send {"cmd": name, "args": args, "id": 1} and read the reply.  Returns
 * CALL_OK with *reply the checked reply, or the exit status with
 * *reply NULL (a dry run: CTL_EXIT_OK, the request printed).
 */
int
call_request(struct ctl *ctl, const char *name, json_object *args,
    json_object **reply)
{
	json_object *req;
	const char *line;
	char *text = NULL, err[1024];
	int ret = CTL_EXIT_ERROR, fd = -1;
	bool waits;

	*reply = NULL;
	if ((req = json_object_new_object()) == NULL) {
		fprintf(stderr, "stressctl: out of memory\n");
		return ret;
	}
	/* On a descriptor, args becomes a copy of the caller's, req's own. */
	if ((fd = open_update_file(name, &args)) == -2)
		goto fail;
	json_object_object_add(req, "cmd", json_object_new_string(name));
	json_object_object_add(req, "args", fd >= 0 ? args : args != NULL ?
	    json_object_get(args) : json_object_new_object());
	json_object_object_add(req, "id", json_object_new_int(1));
	line = fmt_json_string(req);

	if (dry_run()) {
		printf("%s\n", line);
		ret = CTL_EXIT_OK;
		goto fail;
	}

	/* wait, stop and start answer when the run has ended or launched:
	 * only an explicit --timeout bounds their reply (stop --no-wait is
	 * answered at once).  Connecting is always bounded. */
	waits = replies_late(name, args);
	client_set_connect_timeout(ctl->timeout >= 0 ? ctl->timeout :
	    OPTIONS_DEFAULT_TIMEOUT);
	switch (client_call_fd(ctl->socket, line, fd, ctl->timeout >= 0 ?
	    ctl->timeout : waits ? 0 : OPTIONS_DEFAULT_TIMEOUT, &text, err,
	    sizeof(err))) {
	case CLIENT_OK:
		ret = parse_reply(ctl, text, reply);
		break;
	case CLIENT_CONNECT:
		/* A directory: where the socket may be, not "refused". */
		(void)suggest_socket(ctl->socket, ctl->socket_from,
		    socket_name(), err, sizeof(err));
		fprintf(stderr, "stressctl: %s\n", err);
		ret = CTL_EXIT_CONNECT;
		break;
	case CLIENT_TIMEOUT:
		/* Only we stop waiting; the daemon's run goes on. */
		if (waits && strcmp(name, "start") != 0) {
			fprintf(stderr, "stressctl %s: the run was still going "
			    "after %g s (the timeout); it goes on\n",
			    ctl->cmd->name, ctl->timeout);
			break;
		}
		/* FALLTHROUGH */
	case CLIENT_CONNECT_TIMEOUT:
		fprintf(stderr, "stressctl %s: %s\n", ctl->cmd->name, err);
		ret = CTL_EXIT_TIMEOUT;
		break;
	case CLIENT_IO:
		fprintf(stderr, "stressctl: %s\n", err);
		break;
	}
fail:
	if (fd >= 0)
		close(fd);
	free(text);
	json_object_put(req);
	return ret;
}

/* The record commands' way to the daemon (a records_call_fn). */
json_object *
call_daemon(void *arg, const char *name, json_object *args, int *rc)
{
	json_object *reply, *res = NULL;

	if ((*rc = call_request(arg, name, args, &reply)) != CALL_OK)
		return NULL;
	*rc = CTL_EXIT_OK;
	/* A reply without a result is treated as an empty one. */
	if (!json_object_object_get_ex(reply, "result", &res) || res == NULL)
		res = json_object_new_object();
	else
		json_object_get(res);
	json_object_put(reply);
	if (res == NULL) {
		fprintf(stderr, "stressctl: out of memory\n");
		*rc = CTL_EXIT_ERROR;
	}
	return res;
}
