/* The in-memory index of run summaries; see runsindex.h. */
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "runrecords.h"
#include "runsindex.h"

/* Sorted by id; new ids come last, so inserting is mostly appending. */
static struct {
	struct runsindex_entry	*e;
	size_t			 n, cap;
	size_t			 bytes;
} ix;

/* The position of id, or where it would go. */
static size_t
find(unsigned id)
{
	size_t lo = 0, hi = ix.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix.e[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* id's entry, made (summary NULL) if need be; NULL out of memory. */
static struct runsindex_entry *
entry(unsigned id)
{
	size_t i = find(id);

	if (i < ix.n && ix.e[i].id == id)
		return &ix.e[i];
	if (ix.n == ix.cap) {
		size_t cap = ix.cap ? ix.cap * 2 : 256;
		struct runsindex_entry *ne = realloc(ix.e, cap * sizeof(*ne));

		if (ne == NULL)
			return NULL;
		ix.e = ne;
		ix.cap = cap;
	}
	memmove(&ix.e[i + 1], &ix.e[i], (ix.n - i) * sizeof(*ix.e));
	ix.n++;
	ix.e[i].id = id;
	ix.e[i].summary = NULL;
	return &ix.e[i];
}

static void
set_summary(struct runsindex_entry *e, char *s)
{
	if (e->summary != NULL)
		ix.bytes -= strlen(e->summary) + 1;
	free(e->summary);
	e->summary = s;
	if (s != NULL)
		ix.bytes += strlen(s) + 1;
}

int
runsindex_put(unsigned id, json_object *rec)
{
	json_object *sum = runrecords_summary(rec);
	struct runsindex_entry *e;
	char *s;

	s = strdup(json_object_to_json_string_ext(sum, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(sum);
	if (s == NULL || (e = entry(id)) == NULL) {
		free(s);
		return -1;
	}
	set_summary(e, s);
	return 0;
}

int
runsindex_touch(unsigned id)
{
	return entry(id) == NULL ? -1 : 0;
}

void
runsindex_drop(unsigned id)
{
	size_t i = find(id);

	if (i == ix.n || ix.e[i].id != id)
		return;
	set_summary(&ix.e[i], NULL);
	memmove(&ix.e[i], &ix.e[i + 1], (ix.n - i - 1) * sizeof(*ix.e));
	ix.n--;
}

/* id's record on disk: a run's report.json, else a job's record file. */
static json_object *
load(const char *state_dir, unsigned id)
{
	json_object *rec = runrecords_load(state_dir, id);

	return rec != NULL ? rec : job_record_load(state_dir, id);
}

void
runsindex_reload(const char *state_dir, unsigned id)
{
	json_object *rec = load(state_dir, id);

	if (rec == NULL || runsindex_put(id, rec) == -1)
		runsindex_drop(id);
	json_object_put(rec);
}

int
runsindex_fill(const char *state_dir)
{
	size_t n;
	unsigned *ids = runrecords_list(state_dir, &n);
	int rv = 0;

	for (size_t i = 0; i < n && rv == 0; i++) {
		json_object *rec = load(state_dir, ids[i]);

		/* No record: a run refused before it had one. */
		if (rec != NULL)
			rv = runsindex_put(ids[i], rec);
		json_object_put(rec);
	}
	free(ids);
	return rv;
}

size_t
runsindex_page(unsigned before, size_t limit,
    const struct runsindex_entry **first, int *more)
{
	size_t end = before == 0 ? ix.n : find(before);
	size_t start = end > limit ? end - limit : 0;

	*first = ix.e + start;
	*more = start > 0;
	return end - start;
}

size_t
runsindex_count(size_t *bytes)
{
	*bytes = ix.bytes + ix.cap * sizeof(*ix.e);
	return ix.n;
}

void
runsindex_free(void)
{
	for (size_t i = 0; i < ix.n; i++)
		free(ix.e[i].summary);
	free(ix.e);
	memset(&ix, 0, sizeof(ix));
}
