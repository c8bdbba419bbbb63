/* Text from clients and records as data: UTF-8 cut only between
 * characters, bytes that are not UTF-8 replaced, quotes of bounded
 * length.  Shared by stressd (replies) and stressctl (the terminal). */
#ifndef STRESSD_TEXT_H
#define STRESSD_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* The byte length of a well-formed UTF-8 sequence at s (1 to 4), or 0 if
 * s does not start one (a stray continuation byte, an overlong form, a
 * surrogate, past U+10FFFF, or cut short by a NUL). */
size_t	text_utf8_len(const char *s);

/* The longest prefix of the NUL-terminated s of at most max bytes that
 * does not end inside a character. */
size_t	text_cut(const char *s, size_t max);

/* Each byte of s that is not part of well-formed UTF-8 becomes '?', in
 * place; returns how many did. */
size_t	text_utf8_repair(char *s);

/* s quoted for a message: at most max bytes of it, cut between
 * characters, with "..." when cut; in buf (size bytes).  Returns buf. */
const char	*text_quote(char *buf, size_t size, const char *s, size_t max);

/* Whether a and b hold the same text, NULL (a member a record lacks)
 * being the same only as NULL. */
bool	text_same(const char *a, const char *b);

#endif
