/* UTF-8 by hand: glibc's mbrtowc depends on the locale (stressd runs in
 * "C"), json-c only validates whole documents, and a library for four
 * short functions would cost more than it saves. */
#include <string.h>

#include "text.h"

size_t
text_utf8_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned cp;
	size_t n;

	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		n = 2, cp = u[0] & 0x1f;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		n = 3, cp = u[0] & 0x0f;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		n = 4, cp = u[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;	/* also a NUL: cut short */
		cp = cp << 6 | (u[i] & 0x3f);
	}
	/* The shortest form only; no surrogates; nothing past U+10FFFF. */
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

size_t
text_cut(const char *s, size_t max)
{
	size_t i = 0, n;

	while (s[i] != '\0') {
		/* A byte that starts no character is one byte long here:
		 * text_utf8_repair deals with it. */
		if ((n = text_utf8_len(s + i)) == 0)
			n = 1;
		if (i + n > max)
			break;
		i += n;
	}
	return i;
}

size_t
text_utf8_repair(char *s)
{
	size_t n, bad = 0;

	while (*s != '\0') {
		if ((n = text_utf8_len(s)) == 0) {
			*s = '?';
			n = 1;
			bad++;
		}
		s += n;
	}
	return bad;
}

const char *
text_quote(char *buf, size_t size, const char *s, size_t max)
{
	size_t n, len = strlen(s);

	if (size < 4) {		/* no room even for "..." */
		if (size > 0)
			buf[0] = '\0';
		return buf;
	}
	if (len <= max && len < size) {
		memcpy(buf, s, len + 1);
		return buf;
	}
	if (max > size - 4)
		max = size - 4;		/* room for "..." and the NUL */
	n = text_cut(s, max);
	memcpy(buf, s, n);
	memcpy(buf + n, "...", 4);
	return buf;
}

bool
text_same(const char *a, const char *b)
{
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}
