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

#include "baseline.h"
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

/* What a recount found, file by file against the baseline. */
struct tally {
	uint64_t	 read, missing, refused, unreadable;
	uint64_t	 created;	/* made by the run, there now */
	uint64_t	 gone;		/* there at start, not now */
	uint64_t	 odd;		/* an rrd_last the run cannot explain */
	int64_t		 landed;
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
	    !json_object_object_get_ex(v, b, &v)) ||
	    !json_object_is_type(v, json_type_int))
		return -1;
	return json_object_get_int64(v);
}

/* Updates file n holds past its baseline b, by the timestamp contract
 * (its k-th update is at start + k * step); -1 when its last update
 * cannot be one the run wrote. */
static int64_t
landed_in(int64_t lu, int64_t b, const struct stress_params *p)
{
	/* Timestamps beyond 2^62 are no run's: no overflow below. */
	int64_t from = b == BASELINE_MISSING ? (int64_t)p->start : b;
	int64_t d;

	if (lu > INT64_C(1) << 62 || lu < -(INT64_C(1) << 62) ||
	    from > INT64_C(1) << 62 || from < -(INT64_C(1) << 62))
		return -1;
	d = lu - from;
	if (d < 0 || d % (int64_t)p->step != 0)
		return -1;
	return d / (int64_t)p->step;
}

/* File n, baseline b, reached beneath dirfd as a run reaches it (never
 * through a symbolic link), into t. */
static void
tally_file(struct tally *t, int dirfd, const struct stress_params *p,
    uint32_t n, int64_t b)
{
	char rel[64], lib[CONFINE_FD_PATH_MAX], path[4200], msg[1024];
	bool was = b != BASELINE_MISSING && b != BASELINE_REFUSED;
	int64_t k;
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
		t->gone += was;
		return;
	}
	confine_fd_path(lib, sizeof(lib), fd, NULL);
	if (rrdfile_last(lib, &lu, msg, sizeof(msg)) == -1) {
		if (t->unreadable++ == 0) {
			rrdfile_path(p, n, path, sizeof(path));
			confine_unname(msg, sizeof(msg), lib, path);
			snprintf(t->first_error, sizeof(t->first_error), "%s",
			    msg);
		}
		t->gone += was;
	} else if (b == BASELINE_REFUSED ||
	    (k = landed_in((int64_t)lu, b, p)) < 0 ||
	    k > INT64_MAX - t->landed) {
		t->read++;
		t->odd++;
	} else {
		t->read++;
		t->created += b == BASELINE_MISSING;
		t->landed += k;
	}
	close(fd);
}

/*
 * Every file of the run through its dir, opened as a run opens it
 * (allowed_dirs), against the baseline; -1 with why in skip when it
 * cannot be, or the time budget ran out (t then says how far it got).
 */
static int
tally_files(struct tally *t, const char *run_dir,
    const struct stress_params *p, const struct policy_dirs *allowed,
    double deadline, char *skip, size_t len)
{
	int64_t base[4096];
	struct stat st;
	int dirfd = -1, bfd;
	ssize_t got = 0;
	uint32_t n, i = 0;

	if ((bfd = baseline_open(run_dir, p->files, skip, len)) == -1)
		return -1;
	if (lstat(p->dir, &st) == -1) {
		snprintf(skip, len, "dir %.1000s: %s", p->dir,
		    strerror(errno));
		goto fail;
	}
	if ((dirfd = policy_dir_open(allowed, p->dir, skip, len)) == -1)
		goto fail;
	for (n = 0; n < p->files; n++, i++) {
		if (util_now() > deadline) {
			snprintf(skip, len, "the recount budget of %.0f s at "
			    "start ran out after %u of %llu files",
			    budget, n, (unsigned long long)p->files);
			goto fail;
		}
		if ((ssize_t)i * (ssize_t)sizeof(*base) >= got) {
			got = pread(bfd, base, sizeof(base),
			    (off_t)n * (off_t)sizeof(*base));
			if (got < (ssize_t)sizeof(*base)) {
				snprintf(skip, len, "%s: %s",
				    BASELINE_FILE, got < 0 ?
				    strerror(errno) : "cut short");
				goto fail;
			}
			i = 0;
		}
		tally_file(t, dirfd, p, n, base[i]);
	}
	close(dirfd);
	close(bfd);
	return 0;
fail:
	if (dirfd != -1)
		close(dirfd);
	close(bfd);
	return -1;
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

/* Why a recount is no exact count (a bound), into buf; false if exact. */
static bool
inexact(const struct tally *t, json_object *rep, char *buf, size_t len)
{
	int64_t failed = int_at(rep, "counters", "updates_failed");

	buf[0] = '\0';
	if (t->gone > 0)
		snprintf(buf, len, "a lower bound: %llu files there at start "
		    "are gone or unreadable, their updates uncounted",
		    (unsigned long long)t->gone);
	else if (t->odd > 0)
		snprintf(buf, len, "a guess: %llu files hold a last update "
		    "the run did not write", (unsigned long long)t->odd);
	else if (failed > 0)
		/* A failed batch's timestamps are spent: a later one that
		 * landed moves rrd_last past them. */
		snprintf(buf, len, "an upper bound: %lld updates had failed "
		    "by the last checkpoint, and rrd_last counts past them",
		    (long long)failed);
	return buf[0] != '\0';
}

/*
 * The recount object: the updates on disk by the timestamp contract,
 * from rrd_last of every file now against the baseline setup wrote; or
 * why it was skipped.  *landed is the count, -1 when skipped; *created
 * the run's files that are there.
 */
static json_object *
recount(json_object *rep, const char *run_dir,
    const struct policy_dirs *allowed, double deadline, int64_t *landed,
    int64_t *created, char *skip, size_t len)
{
	json_object *o = json_object_new_object();
	struct stress_params p;
	struct tally t;
	char why[256];
	double t0 = util_now();
	bool bound = false;

	memset(&t, 0, sizeof(t));
	*landed = *created = -1;
	skip[0] = '\0';
	if (record_params(rep, &p, skip, len) == -1)
		goto out;
	if (knobs_rrdcached_addr(&p) != NULL)
		snprintf(skip, len, "target %s: rrdcached writes the files "
		    "and may still hold values", p.target);
	else if (tally_files(&t, run_dir, &p, allowed, deadline, skip,
	    len) == 0) {
		*landed = t.landed;
		*created = (int64_t)t.created;
		bound = inexact(&t, rep, why, sizeof(why));
	}
out:
	json_object_object_add(o, "updates_on_disk", *landed >= 0 ?
	    json_object_new_int64(*landed) : NULL);
	json_object_object_add(o, "creates_on_disk", *created >= 0 ?
	    json_object_new_int64(*created) : NULL);
	json_object_object_add(o, "exact", *landed >= 0 ?
	    json_object_new_boolean(!bound) : NULL);
	json_object_object_add(o, "inexact", bound ?
	    json_object_new_string(why) : NULL);
	json_object_object_add(o, "files_read",
	    json_object_new_int64((int64_t)t.read));
	json_object_object_add(o, "files_missing",
	    json_object_new_int64((int64_t)t.missing));
	json_object_object_add(o, "files_refused",
	    json_object_new_int64((int64_t)t.refused));
	json_object_object_add(o, "files_unreadable",
	    json_object_new_int64((int64_t)t.unreadable));
	json_object_object_add(o, "files_gone",
	    json_object_new_int64((int64_t)t.gone));
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
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/runs/%u/stress.log", state_dir, id);
	/* O_NONBLOCK: a FIFO there fails (ENXIO) instead of hanging */
	if ((fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1) {
		log_warn("run %u: %s", id, path);
		return;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		log_warnx("run %u: %s is no regular file; no last line written",
		    id, path);
		close(fd);
		return;
	}
	if (dprintf(fd, "# run %u interrupted: %s\n", id, reason) < 0)
		log_warn("run %u: %s", id, path);
	close(fd);
}

/* The "interrupted" object; the reason into buf. */
static json_object *
interrupted_json(json_object *rep, const char *state, time_t checkpoint,
    int64_t landed, json_object *rc, const char *skip, char *buf, size_t len)
{
	json_object *o = json_object_new_object();
	int64_t pid = int_at(rep, "stressd_pid", NULL);
	int64_t done = int_at(rep, "counters", "updates_completed");
	int64_t made = int_at(rep, "counters", "creates_completed");
	const char *bound = str_at(rc, "inexact", NULL);
	char when[32], pidtext[32] = "";

	util_iso8601(checkpoint, when, sizeof(when));
	if (pid > 0)
		snprintf(pidtext, sizeof(pidtext), " (pid %lld)",
		    (long long)pid);
	snprintf(buf, len, "the stressd%s that ran it is gone (killed or "
	    "crashed) while the run was %s; last checkpoint %s", pidtext,
	    state, when);
	if (done >= 0 && made >= 0)
		snprintf(buf + strlen(buf), len - strlen(buf), ": %lld "
		    "updates completed, %lld creates", (long long)done,
		    (long long)made);
	if (landed >= 0)
		snprintf(buf + strlen(buf), len - strlen(buf), "; %lld updates "
		    "and %lld created files on disk, recounted from the "
		    "files%s%s", (long long)landed, (long long)int_at(rc,
		    "creates_on_disk", NULL), bound != NULL ? " (" : "",
		    bound != NULL ? bound : "");
	if (landed >= 0 && bound != NULL)
		snprintf(buf + strlen(buf), len - strlen(buf), ")");
	else if (landed < 0)
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
	char path[4300], run_dir[4200], reason[3000], skip[1200], state[16];
	json_object *rc;
	struct stat st;
	int64_t landed, created;

	snprintf(state, sizeof(state), "%s", str_at(rep, "state", NULL));
	snprintf(run_dir, sizeof(run_dir), "%s/runs/%u", state_dir, id);
	snprintf(path, sizeof(path), "%s/report.json", run_dir);
	if (stat(path, &st) == -1)
		st.st_mtime = 0;
	rc = recount(rep, run_dir, allowed, deadline, &landed, &created, skip,
	    sizeof(skip));
	json_object_object_add(rep, "interrupted", interrupted_json(rep,
	    state, st.st_mtime, landed, rc, skip, reason, sizeof(reason)));
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
		/* Active, and we hold the state directory's lock: the
		 * stressd that ran it is gone. */
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
