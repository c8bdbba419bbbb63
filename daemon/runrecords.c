/* The run records on disk; see runrecords.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "report.h"
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

/* STATE/lock, held from runrecords_lock to runrecords_unlock. */
static int lock_fd = -1;

void
runrecords_unlock(void)
{
	if (lock_fd != -1)
		close(lock_fd);		/* the flock goes with it */
	lock_fd = -1;
}

int
runrecords_lock(const char *state_dir)
{
	char path[4200], pid[32] = "";
	int fd;

	if (lock_fd != -1)
		return 0;
	snprintf(path, sizeof(path), "%s/lock", state_dir);
	if ((fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0644)) == -1) {
		log_warn("state directory lock %s", path);
		return -1;
	}
	for (int i = 0; flock(fd, LOCK_EX | LOCK_NB) == -1; i++) {
		if (errno != EWOULDBLOCK || i == 20) {
			if (errno == EWOULDBLOCK && pread(fd, pid,
			    sizeof(pid) - 1, 0) > 0)
				pid[strcspn(pid, "\n")] = '\0';
			if (errno == EWOULDBLOCK)
				log_warnx("state directory %s is in use by "
				    "another stressd%s%s (it holds %s)",
				    state_dir, pid[0] ? ", pid " : "", pid,
				    path);
			else
				log_warn("state directory lock %s", path);
			close(fd);
			return -1;
		}
		usleep(100000);
	}
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == -1 ||
	    pwrite(fd, pid, strlen(pid), 0) != (ssize_t)strlen(pid))
		log_warn("state directory lock %s", path);	/* held all the same */
	lock_fd = fd;
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
	return runrecords_load_file(state_dir, id, "report.json");
}

json_object *
runrecords_load_file(const char *state_dir, unsigned id, const char *name)
{
	char path[4300];
	struct stat st;
	json_object *rep = NULL;
	int fd;

	snprintf(path, sizeof(path), "%s/runs/%u/%s", state_dir, id, name);
	/* A regular file only: a FIFO planted as a record must not hang
	 * the daemon (O_NONBLOCK), nor a link lead elsewhere. */
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		rep = json_object_from_fd(fd);
	close(fd);
	return rep;
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

/* o[key] = a new reference to the value at src's path of up to two
 * keys (NULL when missing). */
static void
copy_at(json_object *o, const char *key, json_object *src, const char *k1,
    const char *k2)
{
	json_object *v = NULL;

	if (json_object_object_get_ex(src, k1, &v) && k2 != NULL &&
	    !json_object_object_get_ex(v, k2, &v))
		v = NULL;
	json_object_object_add(o, key, json_object_get(v));
}

/* A capacity search's record (capacity.json): its kind, state, times and
 * each directory's figures, so that runs lists it with its answer. */
static json_object *
capacity_summary(json_object *rec)
{
	static const char *const dkeys[] = {
		"dir", "fs_type", "state", "capacity_rate", "behind_rate",
		"limited_by",
	};
	json_object *o = json_object_new_object(), *dirs, *list, *steps;

	copy_at(o, "id", rec, "id", NULL);
	json_object_object_add(o, "kind", json_object_new_string("capacity"));
	copy_at(o, "state", rec, "state", NULL);
	copy_at(o, "started_at", rec, "started", NULL);
	copy_at(o, "ended_at", rec, "ended", NULL);
	copy_at(o, "files", rec, "params", "files");
	copy_at(o, "sync", rec, "params", "sync");
	json_object_object_add(o, "steps", json_object_object_get_ex(rec,
	    "steps", &steps) && json_object_is_type(steps, json_type_array) ?
	    json_object_new_int64((int64_t)json_object_array_length(steps)) :
	    NULL);
	list = json_object_new_array();
	if (json_object_object_get_ex(rec, "dirs", &dirs) &&
	    json_object_is_type(dirs, json_type_array))
		for (size_t i = 0; i < json_object_array_length(dirs); i++) {
			json_object *d = json_object_array_get_idx(dirs, i);
			json_object *e = json_object_new_object();

			for (size_t k = 0; k < sizeof(dkeys) / sizeof(*dkeys);
			    k++)
				copy_at(e, dkeys[k], d, dkeys[k], NULL);
			json_object_array_add(list, e);
		}
	json_object_object_add(o, "dirs", list);
	return o;
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
		/* an interrupted run's updates as recounted from its files */
		{ "updates_on_disk", "recount", "updates_on_disk" },
		{ "significant_avg", "queue_depth", "significant_ops_pending" },
		{ "report", "files", "report" },
		{ "sweep_id", "params", "sweep_id" },
		{ "files", "params", "files" },
		{ "max_updates", "params", "max_updates" },
		{ "update_time", "params", "update_time" },
		{ "sync", "params", "sync" }, { "label", "params", "label" },
	};
	json_object *o, *w;

	if (json_object_object_get_ex(rep, "schema", &w) &&
	    json_object_is_type(w, json_type_string) &&
	    strcmp(json_object_get_string(w), "stressd-capacity") == 0)
		return capacity_summary(rep);
	o = json_object_new_object();
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
	/* Only a record with a verdict (issue 15) has these, so that runs
	 * tells "cannot tell" (null) from an older stressd's record. */
	if (json_object_object_get_ex(rep, "verdict", &w)) {
		json_object *k = NULL;

		json_object_object_get_ex(w, "kept_up", &k);
		json_object_object_add(o, "kept_up", json_object_get(k));
	}
	if (json_object_object_get_ex(rep, "warnings", &w) &&
	    json_object_is_type(w, json_type_array))
		json_object_object_add(o, "warnings", json_object_new_int64(
		    (int64_t)json_object_array_length(w)));
	/* A step of a capacity search: {"id", "step", "rate"}, so that
	 * runs can fold it under its search. */
	if (json_object_object_get_ex(rep, "capacity", &w) &&
	    json_object_is_type(w, json_type_object))
		json_object_object_add(o, "capacity", json_object_get(w));
	return o;
}

/* A record whose state is the string "running", and its members of
 * list_key that are too: interrupted, ended now, why in its reason. */
static bool
mark_interrupted(json_object *o, const char *list_key, const char *reason)
{
	json_object *list, *st;

	/* A record is anyone's bytes: a state of any type is no reason to
	 * stop here. */
	if (!json_object_object_get_ex(o, "state", &st) ||
	    !json_object_is_type(st, json_type_string) ||
	    strcmp(json_object_get_string(st), "running") != 0)
		return false;
	json_object_object_add(o, "state",
	    json_object_new_string("interrupted"));
	json_object_object_add(o, "reason", json_object_new_string(reason));
	json_object_object_add(o, "ended", report_time_json(time(NULL)));
	if (!json_object_object_get_ex(o, list_key, &list) ||
	    !json_object_is_type(list, json_type_array))
		return true;
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *e = json_object_array_get_idx(list, i);

		if (json_object_is_type(e, json_type_object) &&
		    json_object_object_get_ex(e, "state", &st) &&
		    json_object_is_type(st, json_type_string) &&
		    strcmp(json_object_get_string(st), "running") == 0)
			json_object_object_add(e, "state",
			    json_object_new_string("interrupted"));
	}
	return true;
}

void
runrecords_interrupt(const char *state_dir, const char *file,
    const char *list_key, const char *reason, const char *kind,
    int (*write)(const char *, unsigned, json_object *))
{
	unsigned *ids;
	size_t n;

	if ((ids = runrecords_list(state_dir, &n)) == NULL)
		return;
	for (size_t i = 0; i < n; i++) {
		json_object *o = runrecords_load_file(state_dir, ids[i], file);

		if (o != NULL && mark_interrupted(o, list_key, reason) &&
		    write(state_dir, ids[i], o) == 0)
			log_info("%s %u: marked interrupted", kind, ids[i]);
		json_object_put(o);
	}
	free(ids);
}
