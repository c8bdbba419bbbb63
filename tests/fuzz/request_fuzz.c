/*
 * libFuzzer target for the control protocol (make fuzz).
 *
 * An input is what one client sends on the socket before it closes.  It
 * goes through the code stressd runs on it (daemon/request.c): framing
 * into lines at LF with the PROTO_MAX_LINE limit (request_frame; a line
 * too long ends the input, as the daemon closes the connection, and an
 * unterminated last line is one more request, as at the client's EOF),
 * then per
 * line the envelope checks (request_parse: NUL bytes, JSON with the depth
 * limit, object, id, keys, cmd, args), the lookup in the command table
 * (cmd_find, as cmd_dispatch does) and the argument check its entry
 * names (request_check_args: unknown keys, stop's booleans, report's run
 * id, start's profile merging over a configuration with one profile, or
 * none, and the knob table's checks).  Every error must be well formed: a known
 * code, a message, and a reply that fits in a protocol line; every
 * accepted request must have what dispatch needs.  Leaks and sanitizer
 * reports fail the run.
 *
 * Not covered: libevent's buffering, the access check, readiness, and the
 * handlers themselves (they act: start runs, read records on disk).  The
 * table links them, so the target is built from all the daemon's sources
 * but main.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <json-c/json.h>

#include "cmd.h"
#include "conffile.h"
#include "log.h"
#include "proto.h"
#include "request.h"

int	LLVMFuzzerInitialize(int *argc, char ***argv);
int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A configuration with one profile, so that start's "profile" merges. */
static const char fuzz_conf[] =
	"[profile fuzz]\n"
	"dir = /var/tmp/stressd-fuzz\n"
	"files = 10\n"
	"rras = RRA:AVERAGE:0.5:1:10\n"
	"sample_interval = 0.5\n";

static struct config	cfg;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond); \
		abort();						\
	}								\
} while (0)

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[64], err[1024];
	int fd;

	(void)argc;
	(void)argv;
	log_init(LOG_LVL_ERR);
	if ((fd = memfd_create("stressd-fuzz.conf", 0)) == -1 ||
	    write(fd, fuzz_conf, sizeof(fuzz_conf) - 1) !=
	    (ssize_t)sizeof(fuzz_conf) - 1) {
		perror("request_fuzz: memfd");
		exit(1);
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (conffile_load(&cfg, path, err, sizeof(err)) == -1) {
		fprintf(stderr, "request_fuzz: %s\n", err);
		exit(1);
	}
	close(fd);
	return 0;
}

/* An error as control_reply_error would send it. */
static void
check_error(const struct request_error *e, json_object *id)
{
	static const char *const codes[] = {
		PROTO_ERR_PARSE, PROTO_ERR_BAD_REQUEST, PROTO_ERR_UNKNOWN_CMD,
		PROTO_ERR_BAD_ARGUMENT, PROTO_ERR_TOO_LONG, PROTO_ERR_INTERNAL,
	};
	json_object *r;
	size_t i, len;

	CHECK(e->code != NULL);
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (strcmp(e->code, codes[i]) == 0)
			break;
	CHECK(i < sizeof(codes) / sizeof(codes[0]));
	/* Only running out of memory is internal. */
	CHECK(strcmp(e->code, PROTO_ERR_INTERNAL) != 0 ||
	    strcmp(e->message, "out of memory") == 0);
	CHECK(e->message[0] != '\0');
	CHECK(strlen(e->message) < sizeof(e->message));

	r = request_error_reply(id, e->code, e->field, e->message);
	json_object_to_json_string_length(r, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	CHECK(len < PROTO_MAX_LINE);
	json_object_put(r);
}

/* One line, as handle_line gets it from evbuffer_readln. */
static void
one_line(const char *data, size_t len)
{
	struct request req;
	struct request_error err;
	struct request_args a;
	const struct cmd_entry *e;
	char *line;

	CHECK((line = malloc(len + 1)) != NULL);
	memcpy(line, data, len);
	line[len] = '\0';
	if (request_parse(line, len, &req, &err) == -1) {
		check_error(&err, req.id);
		goto out;
	}
	CHECK(req.obj != NULL && req.cmd != NULL);
	CHECK(req.args == NULL ||
	    json_object_is_type(req.args, json_type_object));
	CHECK(req.id == NULL || json_object_is_type(req.id, json_type_int) ||
	    (json_object_is_type(req.id, json_type_string) &&
	    json_object_get_string_len(req.id) <= REQUEST_MAX_ID_LEN));
	if ((e = cmd_find(req.cmd)) == NULL) {
		/* What cmd_dispatch answers. */
		err.code = PROTO_ERR_UNKNOWN_CMD;
		err.field = "cmd";
		snprintf(err.message, sizeof(err.message),
		    "unknown command '%.100s'; 'help' lists them", req.cmd);
		check_error(&err, req.id);
		goto out;
	}
	if (request_check_args(e->check, req.args, len % 2 ? &cfg : NULL, &a,
	    &err) == -1) {
		CHECK(strcmp(err.code, PROTO_ERR_BAD_ARGUMENT) == 0 ||
		    strcmp(err.message, "out of memory") == 0);
		check_error(&err, req.id);
		goto out;
	}
	if (strcmp(req.cmd, "start") == 0) {
		CHECK(a.params.dir[0] == '/');
		CHECK(a.params.nrras <= KNOBS_MAX_RRAS);
		for (size_t i = 0; i < a.params.nrras; i++)
			CHECK(strncmp(a.params.rras[i], "RRA:", 4) == 0);
	} else if (strcmp(req.cmd, "report") == 0)
		CHECK(a.run >= 0 && a.run <= 999999999);
	request_args_free(&a);
out:
	request_free(&req);
	free(line);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;

	for (;;) {
		const char *lf = memchr(buf, '\n', size);
		size_t len;

		switch (request_frame(size, lf != NULL ? lf - buf : -1, &len)) {
		case REQUEST_FRAME_TOO_LONG:	/* refused; connection closed */
		case REQUEST_FRAME_MORE:	/* EOF: the rest is a line */
			if (size > 0)
				one_line(buf, size);
			return 0;
		case REQUEST_FRAME_LINE:
			one_line(buf, len);
			buf += len + 1;
			size -= len + 1;
			break;
		}
	}
}
