/* The plain views of one reply (see replyview.h), built on the key/value
 * rows of kv.c so that every command aligns its columns the same way. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "capview.h"
#include "fmt.h"
#include "kv.h"
#include "proto.h"
#include "replyview.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

void
replyview_start(json_object *res)
{
	char *id, *state, *log;

	if (!kv_object_or_print(res))
		return;
	id = kv_text(kv_get(res, "run_id", NULL), NULL);
	state = kv_text(kv_get(res, "state", NULL), NULL);
	log = kv_text(kv_get(res, "log", NULL), NULL);
	printf("run %s started (%s), log: %s\n", id, state, log);
	free(id);
	free(state);
	free(log);
}

void
replyview_stop(json_object *res)
{
	char *id, *state;

	if (!kv_object_or_print(res))
		return;
	id = kv_text(kv_get(res, "run_id", NULL), NULL);
	state = kv_text(kv_get(res, "state", NULL), NULL);
	printf("run %s: %s\n", id, state);
	free(id);
	free(state);
}

static const struct kv_field status_fields[] = {
	KV_F("version"), KV_F("protocol"),
	{ "uptime_s", "uptime", "s", "%.0f", KV_PLAIN },
	KV_F("pid"), KV_F("socket"), KV_F("state_dir"),
};

static const struct kv_field run_fields[] = {
	KV_F("id"), KV_F("state"), KV_F("dir"), KV_F("log"),
	{ "started_at", NULL, NULL, NULL, KV_TIME },
	{ "ended_at", NULL, NULL, NULL, KV_TIME },
	KV_F("reason"), KV_F("errors"),
	{ "errors_by_kind", NULL, NULL, NULL, KV_COUNTS },
};

/* Shown last, as blocks, after the run's single values. */
static const char *const run_blocks[] = { "error_messages", "params", NULL };

void
replyview_status(json_object *res)
{
	static const char *const skip[] = { "run", NULL };
	struct kv t = { .right = false };
	json_object *run;
	bool found;

	if (!kv_object_or_print(res))
		return;
	kv_known(&t, res, status_fields, NELEM(status_fields));
	kv_unknown(&t, res, status_fields, NELEM(status_fields), skip);

	run = kv_get(res, "run", &found);
	if (json_object_is_type(run, json_type_object)) {
		kv_add(&t, fmt_xstrdup("run:"));
		t.indent += 2;
		kv_known(&t, run, run_fields, NELEM(run_fields));
		kv_unknown(&t, run, run_fields, NELEM(run_fields),
		    run_blocks);
		for (int i = 0; run_blocks[i] != NULL; i++) {
			json_object *v = kv_get(run, run_blocks[i], &found);

			if (found)
				kv_value(&t, run_blocks[i], v, NULL, NULL);
		}
		t.indent -= 2;
	} else if (found) {
		/* null: no run since the daemon started. */
		kv_cell(kv_add(&t, fmt_xstrdup("run")),
		    json_object_is_type(run, json_type_null) ?
		    fmt_xstrdup("none") : kv_text(run, NULL));
	}
	kv_print(&t);
	kv_free(&t);
}

void
replyview_help(json_object *res)
{
	struct kv t = { .right = false };
	json_object *cmds = kv_get(res, "commands", NULL);
	struct kv_row *r;

	if (!json_object_is_type(cmds, json_type_array)) {
		/* Unknown shape: show it rather than nothing. */
		if (kv_object_or_print(res)) {
			kv_unknown(&t, res, NULL, 0, NULL);
			kv_print(&t);
			kv_free(&t);
		}
		return;
	}
	/* The usage above its summary, in one last column that wraps: the
	 * two side by side were 270 columns wide. */
	r = kv_add(&t, fmt_xstrdup("COMMAND"));
	kv_cell(r, fmt_xstrdup("READ-ONLY"));
	kv_cell(r, fmt_xstrdup("USAGE, then what it does"));
	for (size_t i = 0; i < json_object_array_length(cmds); i++) {
		json_object *c = json_object_array_get_idx(cmds, i);
		json_object *ro = kv_get(c, "read_only", NULL);
		char *u = kv_text(kv_get(c, "usage", NULL), NULL);
		char *s = kv_text(kv_get(c, "summary", NULL), NULL);

		r = kv_add(&t, kv_text(kv_get(c, "name", NULL), NULL));
		kv_cell(r, fmt_xstrdup(ro == NULL ? "-" :
		    json_object_get_boolean(ro) ? "yes" : "no"));
		kv_cell(r, fmt_xprintf("%s\n  %s", u, s));
		free(u);
		free(s);
	}
	kv_print(&t);
	kv_free(&t);
}

static const struct kv_field version_fields[] = {
	{ "version", "stressd version", NULL, NULL, KV_PLAIN },
	{ "protocol", "stressd protocol", NULL, NULL, KV_PLAIN },
	KV_F("librrd"),
};

void
replyview_version(json_object *res)
{
	struct kv t = { .right = false };

	if (!kv_object_or_print(res))
		return;
	kv_known(&t, res, version_fields, NELEM(version_fields));
	kv_unknown(&t, res, version_fields, NELEM(version_fields), NULL);
	kv_cell(kv_add(&t, fmt_xstrdup("stressctl version")),
	    fmt_xstrdup(PACKAGE_VERSION));
	kv_cell(kv_add(&t, fmt_xstrdup("stressctl protocol")),
	    fmt_xprintf("%d", PROTO_VERSION));
	kv_print(&t);
	kv_free(&t);
}

void
replyview_capacity(json_object *res)
{
	capview_print(&res, 1, false, stdout);
}

void
replyview_capacity_steps(json_object *res)
{
	capview_print(&res, 1, true, stdout);
}

void
replyview_json(json_object *res)
{
	printf("%s\n", fmt_json_string(res));
}
