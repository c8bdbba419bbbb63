/* The run records on disk; see runrecords.h. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "runrecords.h"
#include "util.h"

/* STATE/runs/<id>/report.json, or STATE/runs with id 0. */
static void
record_path(char *buf, size_t len, const char *state_dir, unsigned id)
{
	if (id == 0)
		snprintf(buf, len, "%s/runs", state_dir);
	else
		snprintf(buf, len, "%s/runs/%u/report.json", state_dir, id);
}

/* The run id a directory entry names, or 0. */
static unsigned
entry_id(const char *name)
{
	char *end;
	unsigned long v = strtoul(name, &end, 10);

	if (*end != '\0' || end == name || v > RUNRECORDS_MAX_ID)
		return 0;
	return (unsigned)v;
}

int
runrecords_init(const char *state_dir)
{
	char runs[4200];

	record_path(runs, sizeof(runs), state_dir, 0);
	if (util_mkdir_p(runs, 0755) == -1 || access(runs, W_OK) == -1) {
		log_warn("state directory %s", runs);
		return -1;
	}
	return 0;
}

unsigned
runrecords_highest_id(const char *state_dir)
{
	unsigned *ids, max;
	size_t n;

	if ((ids = runrecords_list(state_dir, &n)) == NULL)
		return 0;
	max = ids[n - 1];
	free(ids);
	return max;
}

unsigned
runrecords_last(const char *state_dir, unsigned below)
{
	for (unsigned id = below - 1; id > 0 && below > 0; id--) {
		char path[4300];

		record_path(path, sizeof(path), state_dir, id);
		if (access(path, R_OK) == 0)
			return id;
	}
	return 0;
}

json_object *
runrecords_load(const char *state_dir, unsigned id)
{
	char path[4300];

	record_path(path, sizeof(path), state_dir, id);
	return json_object_from_file(path);
}

static int
by_id(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

unsigned *
runrecords_list(const char *state_dir, size_t *n)
{
	char runs[4200];
	unsigned *ids = NULL, id;
	size_t cap = 0;
	struct dirent *de;
	DIR *dir;

	*n = 0;
	record_path(runs, sizeof(runs), state_dir, 0);
	if ((dir = opendir(runs)) == NULL)
		return NULL;
	while ((de = readdir(dir)) != NULL) {
		if ((id = entry_id(de->d_name)) == 0)
			continue;
		if (*n == cap) {
			unsigned *ni = realloc(ids, (cap = cap ? cap * 2 : 64) *
			    sizeof(*ids));

			if (ni == NULL)
				break;
			ids = ni;
		}
		ids[(*n)++] = id;
	}
	closedir(dir);
	if (*n == 0) {
		free(ids);
		return NULL;
	}
	qsort(ids, *n, sizeof(*ids), by_id);
	return ids;
}

json_object *
runrecords_summary(json_object *rep)
{
	static const char *const paths[][3] = {
		{ "id", "run_id", NULL }, { "state", "state", NULL },
		{ "started_at", "started_at", NULL },
		{ "ended_at", "ended_at", NULL },
		{ "dir", "target", "dir" }, { "fs_type", "target", "fs_type" },
		{ "mount_options", "target", "mount_options" },
		{ "updates_completed", "counters", "updates_completed" },
		{ "significant_avg", "queue_depth", "significant_ops_pending" },
		{ "verdict", "verdict", NULL }, { "warnings", "warnings", NULL },
		{ "report", "files", "report" },
		{ "sweep_id", "params", "sweep_id" },
	};
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		json_object *v = rep;

		for (int k = 1; k < 3 && paths[i][k] != NULL && v != NULL; k++)
			if (!json_object_object_get_ex(v, paths[i][k], &v))
				v = NULL;
		if (v != NULL && strcmp(paths[i][0], "significant_avg") == 0 &&
		    !json_object_object_get_ex(v, "average", &v))
			v = NULL;
		json_object_object_add(o, paths[i][0], json_object_get(v));
	}
	return o;
}
