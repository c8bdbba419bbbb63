/* The names of the runs of a comparison. */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "compare-view.h"
#include "fmt.h"
#include "runrec.h"

/* Whether the comma-separated list holds opt. */
static bool
opt_in(const char *list, const char *opt, size_t len)
{
	while (list != NULL && *list != '\0') {
		const char *end = strchr(list, ',');
		size_t n = end ? (size_t)(end - list) : strlen(list);

		if (n == len && strncmp(list, opt, len) == 0)
			return true;
		list = end ? end + 1 : NULL;
	}
	return false;
}

/* Whether the runs differ in filesystem type or mount options. */
static bool
mounts_differ(const struct runrec *const *reps, int n)
{
	const char *fs0 = reps[0]->fs_type;
	const char *o0 = reps[0]->mount_options;

	for (int i = 1; i < n; i++) {
		const char *fs = reps[i]->fs_type;
		const char *o = reps[i]->mount_options;

		if ((fs == NULL) != (fs0 == NULL) || (o == NULL) != (o0 == NULL) ||
		    (fs != NULL && strcmp(fs, fs0) != 0) ||
		    (o != NULL && strcmp(o, o0) != 0))
			return true;
	}
	return false;
}

/* Whether runs i and j have the same filesystem type. */
static bool
same_fs(const struct runrec *const *reps, int i, int j)
{
	const char *a = reps[i]->fs_type;
	const char *b = reps[j]->fs_type;

	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* "ext3 data=writeback": run i's filesystem and those of its mount
 * options that another run of that filesystem lacks (between two
 * filesystems the type tells them apart). */
static char *
mount_name(const struct runrec *const *reps, int n, int i)
{
	const char *fs = reps[i]->fs_type;
	const char *o = reps[i]->mount_options;
	char *s = fmt_xstrdup(fs != NULL ? fs : "?"), *more;
	int k = 0;

	while (o != NULL && *o != '\0') {
		const char *end = strchr(o, ',');
		size_t len = end ? (size_t)(end - o) : strlen(o);
		bool all = true;

		for (int j = 0; j < n && all; j++)
			all = !same_fs(reps, i, j) ||
			    opt_in(reps[j]->mount_options, o, len);
		if (!all) {
			more = fmt_xprintf("%s%s%.*s", s, k++ ? "," : " ",
			    (int)len, o);
			free(s);
			s = more;
		}
		o = end ? end + 1 : NULL;
	}
	return s;
}

/* Whether the runs come from more than one host; a record without a host
 * name counts as one host of its own. */
static bool
hosts_differ(const struct runrec *const *reps, int n)
{
	const char *host0 = reps[0]->host_name;

	for (int i = 1; i < n; i++) {
		const char *h = reps[i]->host_name;

		if ((h == NULL) != (host0 == NULL) ||
		    (h != NULL && strcmp(h, host0) != 0))
			return true;
	}
	return false;
}

/* "run ID", or "run ID@HOST" when the runs come from several hosts,
 * where run ids are each host's own and the same id may well name two
 * different runs. */
static char *
run_label(const struct runrec *rep, bool by_host)
{
	if (!by_host)
		return fmt_xprintf("run %" PRId64, rep->run_id);
	return fmt_xprintf("run %" PRId64 "@%s", rep->run_id,
	    rep->host_name != NULL ? rep->host_name : "-");
}

void
compare_view_init(struct compare_view *v, const struct runrec *const *reps,
    int n)
{
	bool mounts = mounts_differ(reps, n);

	memset(v, 0, sizeof(*v));
	v->reps = reps;
	v->n = n;
	v->by_host = hosts_differ(reps, n);
	v->name = fmt_nomem(calloc((size_t)n, sizeof(*v->name)));
	v->run = fmt_nomem(calloc((size_t)n, sizeof(*v->run)));
	v->who = fmt_nomem(calloc((size_t)n, sizeof(*v->who)));
	v->cand = fmt_nomem(calloc((size_t)n, sizeof(*v->cand)));
	for (int i = 0; i < n; i++) {
		const char *label = reps[i]->label;
		bool labelled = label != NULL && *label != '\0';

		v->run[i] = run_label(reps[i], v->by_host);
		v->name[i] = labelled ? fmt_xstrdup(label) : mounts ?
		    mount_name(reps, n, i) : fmt_xstrdup(v->run[i]);
		v->named = v->named || strcmp(v->name[i], v->run[i]) != 0;
		v->who[i] = strcmp(v->name[i], v->run[i]) == 0 ?
		    fmt_xstrdup(v->run[i]) :
		    fmt_xprintf("%s (%s)", v->run[i], v->name[i]);
		/* Runs of one label are repeats, but not across hosts:
		 * there the host is what is compared. */
		v->cand[i] = !labelled ? fmt_xstrdup(v->who[i]) :
		    v->by_host ? fmt_xprintf("%s@%s", label,
		    reps[i]->host_name != NULL ? reps[i]->host_name : "-") :
		    fmt_xstrdup(label);
	}
}

void
compare_view_free(struct compare_view *v)
{
	for (int i = 0; i < v->n; i++) {
		free(v->name[i]);
		free(v->run[i]);
		free(v->who[i]);
		free(v->cand[i]);
	}
	free(v->name);
	free(v->run);
	free(v->who);
	free(v->cand);
}

char *
compare_view_dir(const struct runrec *rep)
{
	const char *dir = rep->dir;
	const char *sid = rep->sweep_id;
	const char *base, *k;
	size_t len;

	if (dir == NULL)
		dir = rep->target_dir;
	if (dir == NULL)
		return NULL;
	/* sweep's DIR/sweep-ID-K, K a number. */
	base = strrchr(dir, '/');
	if (sid == NULL || *sid == '\0' || base == NULL || base == dir)
		return fmt_xstrdup(dir);
	len = strlen(sid);
	if (strncmp(base + 1, "sweep-", 6) != 0 ||
	    strncmp(base + 7, sid, len) != 0 || base[7 + len] != '-')
		return fmt_xstrdup(dir);
	k = base + 8 + len;
	if (!isdigit((unsigned char)*k) || k[strspn(k, "0123456789")] != '\0')
		return fmt_xstrdup(dir);
	return fmt_xprintf("%.*s", (int)(base - dir), dir);
}
