/* The runs a previous stressd left active; see recover.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "confine.h"
#include "knobs.h"
#include "log.h"
#include "policy.h"
#include "recover.h"
#include "report.h"
#include "rrdfile.h"
#include "runrecords.h"
#include "util.h"

/* The last run, if this start marked it interrupted (recover_last). */
static struct {
	unsigned	 id;
	char		 dir[4096];
	char		 fs_type[256];
} last;

/* recover_runs' budget_s, for the messages. */
static double budget;

/* What a recount found, in files (and the sum of their rrd_last). */
struct tally {
	uint64_t	 read, missing, refused, unreadable;
	int64_t		 last_sum;
	char		 first_error[1024];
};

bool
recover_last(unsigned *id, const char **dir, const char **fs_type)
{
	if (last.id == 0)
		return false;
	*id = last.id;
	*dir = last.dir;
	*fs_type = last.fs_type;
	return true;
}

static const char *
str_at(json_object *o, const char *a, const char *b)
{
	json_object *v;

	if (!json_object_object_get_ex(o, a, &v) || (b != NULL &&
	    !json_object_object_get_ex(v, b, &v)) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static const char *
or_empty(const char *s)
{
	return s != NULL ? s : "";
}

static int64_t
int_at(json_object *o, const char *a, const char *b)
{
	json_object *v;

	if (!json_object_object_get_ex(o, a, &v) || (b != NULL &&
	    !json_object_object_get_ex(v, b, &v)))
		return -1;
	return json_object_get_int64(v);
}

/* Is pid a stressd other than us, and no zombie? */
static bool
stressd_there(int64_t pid)
{
	char path[64], buf[512], *open_, *close_;
	size_t n;
	FILE *fp;

	if (pid <= 0 || pid == (int64_t)getpid() || pid > INT32_MAX)
		return false;
	snprintf(path, sizeof(path), "/proc/%lld/stat", (long long)pid);
	if ((fp = fopen(path, "re")) == NULL)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	/* "pid (comm) state ...": comm may hold blanks and parentheses. */
	if ((open_ = strchr(buf, '(')) == NULL ||
	    (close_ = strrchr(buf, ')')) == NULL || close_[1] != ' ')
		return false;
	*close_ = '\0';
	return strcmp(open_ + 1, "stressd") == 0 && close_[2] != 'Z' &&
	    close_[2] != 'X';
}

/* Is the run's stressd still there?  Then the run may be live (another
 * stressd on the same state directory) and is not ours to touch.  One
 * just killed may take a moment to go: it gets 2 s. */
static bool
stressd_alive(int64_t pid)
{
	for (int i = 0; i < 20; i++) {
		if (!stressd_there(pid))
			return false;
		usleep(100000);
	}
	return true;
}

/* One file's rrd_last into t, reached beneath dirfd as a run reaches it
 * (never through a symbolic link). */
static void
tally_file(struct tally *t, int dirfd, const struct stress_params *p,
    uint32_t n)
{
	char rel[64], lib[CONFINE_FD_PATH_MAX], path[4200], msg[1024];
	time_t lu;
	int fd;

	if (rrdfile_name(p, n, rel, sizeof(rel)) == -1 ||
	    (fd = confine_file(dirfd, rel)) == -1) {
		if (errno == ENOENT)
			t->missing++;
		else if (confine_refused(errno))
			t->refused++;
		else
			t->unreadable++;
		return;
	}
	confine_fd_path(lib, sizeof(lib), fd, NULL);
	if (rrdfile_last(lib, &lu, msg, sizeof(msg)) == 0) {
		t->read++;
		t->last_sum += (int64_t)lu;
	} else {
		if (t->unreadable++ == 0) {
			rrdfile_path(p, n, path, sizeof(path));
			confine_unname(msg, sizeof(msg), lib, path);
			snprintf(t->first_error, sizeof(t->first_error), "%s",
			    msg);
		}
	}
	close(fd);
}

/*
 * Every file of the run through its dir, opened as a run opens it
 * (allowed_dirs); NULL with why in skip when it cannot be, or the time
 * budget ran out (t then says how far it got).
 */
static const char *
tally_files(struct tally *t, const struct stress_params *p,
    const struct policy_dirs *allowed, double deadline, char *skip,
    size_t len)
{
	struct stat st;
	int dirfd;

	if (lstat(p->dir, &st) == -1) {
		snprintf(skip, len, "dir %.1000s: %s", p->dir,
		    strerror(errno));
		return NULL;
	}
	if ((dirfd = policy_dir_open(allowed, p->dir, skip, len)) == -1)
		return NULL;
	for (uint32_t n = 0; n < p->files; n++) {
		if (util_now() > deadline) {
			snprintf(skip, len, "the recount budget of %.0f s at "
			    "start ran out after %u of %llu files",
			    budget, n, (unsigned long long)p->files);
			close(dirfd);
			return NULL;
		}
		tally_file(t, dirfd, p, n);
	}
	close(dirfd);
	return "ok";
}

/* The params the record names, checked as `start` checks them. */
static int
record_params(json_object *rep, struct stress_params *p, char *skip,
    size_t len)
{
	json_object *params;
	const char *field;
	char err[1024];

	knobs_defaults(p);
	if (!json_object_object_get_ex(rep, "params", &params) ||
	    knobs_apply(p, params, &field, err, sizeof(err)) == -1) {
		snprintf(skip, len, "the record's params are not usable%s%s",
		    params != NULL ? ": " : "", params != NULL ? err : "");
		return -1;
	}
	return 0;
}

/*
 * The recount object: the updates on disk by the timestamp contract,
 * from rrd_last of every file now and the baseline setup recorded; or
 * why it was skipped.  *landed is the count, -1 when skipped.
 */
static json_object *
recount(json_object *rep, const struct policy_dirs *allowed, double deadline,
    int64_t *landed, char *skip, size_t len)
{
	json_object *o = json_object_new_object(), *base;
	struct stress_params p;
	struct tally t;
	double t0 = util_now();
	int64_t reused = int_at(rep, "baseline", "files_reused");
	const char *done = NULL;

	memset(&t, 0, sizeof(t));
	*landed = -1;
	skip[0] = '\0';
	if (record_params(rep, &p, skip, len) == -1)
		goto out;
	if (!json_object_object_get_ex(rep, "baseline", &base) || reused < 0)
		snprintf(skip, len, "the record has no baseline (an older "
		    "stressd wrote it)");
	else if (knobs_rrdcached_addr(&p) != NULL)
		snprintf(skip, len, "target %s: rrdcached writes the files "
		    "and may still hold values", p.target);
	else if (util_now() > deadline)
		snprintf(skip, len, "the recount budget of %.0f s at start "
		    "was spent on earlier runs", budget);
	else
		done = tally_files(&t, &p, allowed, deadline, skip, len);
	if (done != NULL) {
		/* Files made during the run began at start, those reused at
		 * their rrd_last, summed in the baseline. */
		int64_t d = t.last_sum - int_at(rep, "baseline",
		    "last_update_sum") - ((int64_t)t.read - reused) *
		    (int64_t)p.start;

		if (d < 0 || d % (int64_t)p.step != 0)
			snprintf(skip, len, "the files do not add up (%lld s "
			    "past the baseline, step %llu): files found at "
			    "start are gone or were rewritten", (long long)d,
			    (unsigned long long)p.step);
		else
			*landed = d / (int64_t)p.step;
	}
out:
	json_object_object_add(o, "updates_on_disk", *landed >= 0 ?
	    json_object_new_int64(*landed) : NULL);
	/* Files made by the run that are there: its creates that landed. */
	json_object_object_add(o, "creates_on_disk", *landed >= 0 &&
	    (int64_t)t.read >= reused ?
	    json_object_new_int64((int64_t)t.read - reused) : NULL);
	json_object_object_add(o, "files_read",
	    json_object_new_int64((int64_t)t.read));
	json_object_object_add(o, "files_missing",
	    json_object_new_int64((int64_t)t.missing));
	json_object_object_add(o, "files_refused",
	    json_object_new_int64((int64_t)t.refused));
	json_object_object_add(o, "files_unreadable",
	    json_object_new_int64((int64_t)t.unreadable));
	if (t.first_error[0] != '\0')
		json_object_object_add(o, "first_error",
		    json_object_new_string(t.first_error));
	json_object_object_add(o, "seconds",
	    json_object_new_double(util_now() - t0));
	json_object_object_add(o, "skipped", *landed < 0 ?
	    json_object_new_string(skip) : NULL);
	knobs_free(&p);
	return o;
}

/* "# run N interrupted: reason" at the end of the run's stress.log. */
static void
log_line(const char *state_dir, unsigned id, const char *reason)
{
	char path[4300];
	int fd;

	snprintf(path, sizeof(path), "%s/runs/%u/stress.log", state_dir, id);
	if ((fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)) ==
	    -1) {
		log_warn("run %u: %s", id, path);
		return;
	}
	if (dprintf(fd, "# run %u interrupted: %s\n", id, reason) < 0)
		log_warn("run %u: %s", id, path);
	close(fd);
}

/* The "interrupted" object; the reason into buf. */
static json_object *
interrupted_json(json_object *rep, const char *state, time_t checkpoint,
    int64_t landed, int64_t creates, const char *skip, char *buf, size_t len)
{
	json_object *o = json_object_new_object();
	int64_t pid = int_at(rep, "stressd_pid", NULL);
	char when[32], pidtext[32] = "";

	util_iso8601(checkpoint, when, sizeof(when));
	if (pid > 0)
		snprintf(pidtext, sizeof(pidtext), " (pid %lld)",
		    (long long)pid);
	snprintf(buf, len, "the stressd%s that ran it is gone (killed or "
	    "crashed) while the run was %s; last checkpoint %s: %lld updates "
	    "completed, %lld creates", pidtext, state, when,
	    (long long)int_at(rep, "counters", "updates_completed"),
	    (long long)int_at(rep, "counters", "creates_completed"));
	if (landed >= 0)
		snprintf(buf + strlen(buf), len - strlen(buf), "; %lld updates "
		    "and %lld created files on disk, recounted from the files",
		    (long long)landed, (long long)creates);
	else
		snprintf(buf + strlen(buf), len - strlen(buf), "; updates on "
		    "disk not recounted: %s", skip);
	json_object_object_add(o, "state", json_object_new_string(state));
	json_object_object_add(o, "last_checkpoint_at",
	    report_time_json(checkpoint));
	json_object_object_add(o, "previous_pid", pid > 0 ?
	    json_object_new_int64(pid) : NULL);
	json_object_object_add(o, "found_at", report_time_json(time(NULL)));
	json_object_object_add(o, "found_by_pid",
	    json_object_new_int64((int64_t)getpid()));
	return o;
}

/* The last checkpoint's verdict (verdict.h) stays, saying that it is
 * one; a run cut while creating or running also stopped early. */
static void
mark_verdict(json_object *rep, const char *state)
{
	json_object *v;
	char buf[1400];

	if (!json_object_object_get_ex(rep, "verdict", &v) ||
	    !json_object_is_type(v, json_type_object))
		return;
	snprintf(buf, sizeof(buf), "%s The run was interrupted: this is its "
	    "verdict as of its last checkpoint.", or_empty(str_at(v, "reason",
	    NULL)));
	json_object_object_add(v, "reason", json_object_new_string(buf));
	if (strcmp(state, "draining") != 0)
		json_object_object_add(v, "stopped_early",
		    json_object_new_boolean(true));
}

/* Mark run id interrupted, its record rep (taken). */
static void
recover_one(const char *state_dir, unsigned id, json_object *rep,
    const struct policy_dirs *allowed, double deadline)
{
	char path[4300], reason[3000], skip[1200], state[16];
	json_object *rc;
	struct stat st;
	int64_t landed;

	snprintf(state, sizeof(state), "%s", str_at(rep, "state", NULL));
	snprintf(path, sizeof(path), "%s/runs/%u/report.json", state_dir, id);
	if (stat(path, &st) == -1)
		st.st_mtime = 0;
	rc = recount(rep, allowed, deadline, &landed, skip, sizeof(skip));
	json_object_object_add(rep, "interrupted", interrupted_json(rep,
	    state, st.st_mtime, landed, json_object_get_int64(
	    json_object_object_get(rc, "creates_on_disk")), skip, reason,
	    sizeof(reason)));
	json_object_object_add(rep, "recount", rc);
	json_object_object_add(rep, "state",
	    json_object_new_string("interrupted"));
	json_object_object_add(rep, "reason", json_object_new_string(reason));
	mark_verdict(rep, state);
	if (report_write_json(path, rep) == -1) {
		log_warn("run %u: cannot mark it interrupted: %s", id, path);
		return;
	}
	log_line(state_dir, id, reason);
	log_warnx("run %u interrupted: %s (recount %.3f s)", id, reason,
	    json_object_get_double(json_object_object_get(rc, "seconds")));
}

unsigned
recover_runs(const char *state_dir, const struct config *cfg, double budget_s)
{
	static const char *const active[] = { "creating", "running",
	    "draining" };
	struct policy_dirs *allowed = policy_dirs_copy(cfg);
	double deadline = util_now() + budget_s;
	unsigned *ids, nrec = 0;
	size_t n;

	budget = budget_s;
	if ((ids = runrecords_list(state_dir, &n)) == NULL || allowed == NULL)
		goto out;
	for (size_t i = 0; i < n; i++) {
		json_object *rep = runrecords_load(state_dir, ids[i]);
		const char *st = str_at(rep, "state", NULL);
		size_t k = 0;

		while (st != NULL && k < 3 && strcmp(st, active[k]) != 0)
			k++;
		if (st == NULL || k == 3) {
			json_object_put(rep);
			continue;
		}
		if (stressd_alive(int_at(rep, "stressd_pid", NULL))) {
			log_warnx("run %u is %s under stressd pid %lld, which "
			    "still runs: left alone", ids[i], st,
			    (long long)int_at(rep, "stressd_pid", NULL));
			json_object_put(rep);
			continue;
		}
		recover_one(state_dir, ids[i], rep, allowed, deadline);
		nrec++;
		if (i == n - 1) {
			last.id = ids[i];
			snprintf(last.dir, sizeof(last.dir), "%s",
			    or_empty(str_at(rep, "target", "dir")));
			snprintf(last.fs_type, sizeof(last.fs_type), "%s",
			    or_empty(str_at(rep, "target", "fs_type")));
		}
		json_object_put(rep);
	}
out:
	free(ids);
	policy_dirs_free(allowed);
	return nrec;
}
