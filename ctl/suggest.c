/* "Did you mean" for stressctl (see suggest.h). */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suggest.h"

/* Longer words are not compared: no name is this long. */
#define SUGGEST_WORD	64

size_t
suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	/* Three rows of the table: two back (for swaps), one back, this. */
	size_t r0[SUGGEST_WORD + 1], r1[SUGGEST_WORD + 1];
	size_t r2[SUGGEST_WORD + 1], *pp = r0, *p = r1, *c = r2, *t;

	if (la > SUGGEST_WORD || lb > SUGGEST_WORD)
		return la > lb ? la : lb;
	for (size_t j = 0; j <= lb; j++)
		p[j] = j;
	for (size_t i = 1; i <= la; i++) {
		c[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1], d = p[j - 1] + cost;

			if (p[j] + 1 < d)
				d = p[j] + 1;
			if (c[j - 1] + 1 < d)
				d = c[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && pp[j - 2] + 1 < d)
				d = pp[j - 2] + 1;
			c[j] = d;
		}
		t = pp;
		pp = p;
		p = c;
		c = t;
	}
	return p[lb];
}

/* The edits a typo of a word of len characters is allowed. */
static size_t
typo_edits(size_t len)
{
	return len <= 3 ? 1 : len <= 6 ? 2 : 3;
}

size_t
suggest_nearest(const char *word, const char *const *names, size_t n,
    const char *best[SUGGEST_MAX])
{
	size_t len = strlen(word), found = 0, min;

	if (len == 0)
		return 0;
	/* What word abbreviates comes first: it is what was meant. */
	for (size_t i = 0; i < n && found < SUGGEST_MAX; i++)
		if (strncmp(names[i], word, len) == 0)
			best[found++] = names[i];
	if (found > 0)
		return found;
	min = typo_edits(len);
	for (size_t i = 0; i < n; i++) {
		size_t d = suggest_distance(word, names[i]);

		if (d < min) {
			min = d;
			found = 0;
		}
		if (d == min && found < SUGGEST_MAX)
			best[found++] = names[i];
	}
	return found;
}

void
suggest_phrase(const char *word, const char *const *names, size_t n,
    const char *pre, char *buf, size_t len)
{
	const char *best[SUGGEST_MAX];
	size_t k = suggest_nearest(word, names, n, best), used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < k && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s'%s%s'%s",
		    i == 0 ? "; did you mean " : i + 1 == k ? " or " : ", ",
		    pre, best[i], i + 1 == k ? "?" : "");

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* A socket in dir: name if it is one, else the first in the listing.
 * The path into buf; -1 if there is none. */
static int
socket_in(const char *dir, const char *name, char *buf, size_t len)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int ret = -1;

	snprintf(buf, len, "%s/%s", dir, name);
	if (stat(buf, &st) == 0 && S_ISSOCK(st.st_mode))
		return 0;
	if ((d = opendir(dir)) == NULL)
		return -1;
	while (ret == -1 && (de = readdir(d)) != NULL) {
		snprintf(buf, len, "%s/%s", dir, de->d_name);
		if (stat(buf, &st) == 0 && S_ISSOCK(st.st_mode))
			ret = 0;
	}
	closedir(d);
	return ret;
}

int
suggest_socket(const char *path, const char *origin, const char *name,
    char *buf, size_t len)
{
	char dir[4096], sock[4400];
	struct stat st;
	size_t n = strlen(path);

	if (stat(path, &st) == -1 || !S_ISDIR(st.st_mode))
		return -1;
	/* "/x/" names the same directory as "/x". */
	while (n > 1 && path[n - 1] == '/')
		n--;
	snprintf(dir, sizeof(dir), "%.*s", (int)n, path);
	if (socket_in(dir, name, sock, sizeof(sock)) == 0)
		snprintf(buf, len, "%s %s: is a directory; the socket is "
		    "%s?", origin, path, sock);
	else
		snprintf(buf, len, "%s %s: is a directory; the socket is e.g. "
		    "%s/%s?", origin, path, dir, name);
	return 0;
}
