/* The names of capacity directories in the views (see capname.h). */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "capname.h"
#include "fmt.h"

bool
capname_several_hosts(const struct caprec *const *recs, int n)
{
	for (int i = 1; i < n; i++) {
		const char *a = recs[0]->host;
		const char *b = recs[i]->host;

		if (a == NULL || b == NULL || strcmp(a, b) != 0)
			return true;
	}
	return false;
}

/* "label" if any, else "dir", with the host when hosts. */
static char *
base_name(const struct caprec *rec, size_t k, bool hosts)
{
	const char *label = rec->dirs[k].label, *dir = rec->dirs[k].dir;
	const char *name = label != NULL && *label != '\0' ? label :
	    dir != NULL ? dir : "-";

	if (hosts && rec->host != NULL)
		return fmt_xprintf("%s:%s", rec->host, name);
	return fmt_xstrdup(name);
}

char *
capname_dir(const struct caprec *const *recs, int n,
    const struct caprec *rec, size_t k)
{
	bool hosts = capname_several_hosts(recs, n), alike = false;
	bool same_search = false;
	char *name = base_name(rec, k, hosts), *other, *s;

	for (int i = 0; i < n; i++)
		for (size_t j = 0; j < recs[i]->ndirs; j++) {
			if (recs[i] == rec && j == k)
				continue;
			other = base_name(recs[i], j, hosts);
			if (strcmp(other, name) == 0) {
				alike = true;
				same_search = same_search ||
				    recs[i]->id == rec->id;
			}
			free(other);
		}
	if (!alike)
		return name;
	s = same_search ? fmt_xprintf("%s (search %" PRId64 " dir %zu)", name,
	    rec->id, k + 1) : fmt_xprintf("%s (search %" PRId64 ")", name,
	    rec->id);
	free(name);
	return s;
}
