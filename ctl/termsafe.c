/* A stdio cookie stream (glibc's fopencookie) in front of the terminal:
 * every byte printed passes one filter, so no renderer can forget to
 * escape.  Kept: newline, tab and well-formed UTF-8 that is not a
 * control character.  Shown as \xNN: C0 controls, DEL, C1 controls
 * (U+0080 to U+009F, which some terminals obey) and bytes that are not
 * UTF-8.  By hand: no library filters a FILE this way. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "termsafe.h"
#include "text.h"

struct termsafe {
	int		fd;
	size_t		npend;		/* a character cut between writes */
	char		pend[4];
};

static int	raw_fd = -1;		/* stdout's terminal, if filtered */
/* The streams the filters stand in for, given back at exit. */
static FILE	*plain_out, *plain_err;

static int
put(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* One character or byte at s (n bytes left); how many bytes it took, or
 * 0 when s may be the start of a character the next write completes. */
static size_t
filter_one(const char *s, size_t n, char *out, size_t *olen)
{
	unsigned char c = (unsigned char)s[0];
	char tmp[5] = { 0 };
	size_t len;

	if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) {
		out[(*olen)++] = (char)c;
		return 1;
	}
	if (c >= 0x80) {
		memcpy(tmp, s, n < 4 ? n : 4);
		len = text_utf8_len(tmp);
		if (len == 0 && n < 4 && c >= 0xc2 && c <= 0xf4) {
			/* Maybe cut short by the end of this write. */
			size_t i = 1;

			while (i < n && ((unsigned char)s[i] & 0xc0) == 0x80)
				i++;
			if (i == n)
				return 0;
		}
		/* C1 controls are U+0080 to U+009F: C2 80 to C2 9F. */
		if (len > 0 && !(len == 2 && c == 0xc2 &&
		    (unsigned char)s[1] < 0xa0)) {
			memcpy(out + *olen, s, len);
			*olen += len;
			return len;
		}
		if (len == 2) {		/* a C1 control: both bytes shown */
			*olen += (size_t)sprintf(out + *olen, "\\x%02x\\x%02x",
			    c, (unsigned char)s[1]);
			return 2;
		}
	}
	*olen += (size_t)sprintf(out + *olen, "\\x%02x", c);
	return 1;
}

static ssize_t
filter_write(void *cookie, const char *buf, size_t size)
{
	struct termsafe *t = cookie;
	char in[sizeof(t->pend) + 512], out[4 * sizeof(in)];
	size_t done = 0;

	while (done < size) {
		size_t n = t->npend, i = 0, olen = 0, k,
		    used = size - done < sizeof(in) - n ? size - done :
		    sizeof(in) - n;

		memcpy(in, t->pend, n);
		memcpy(in + n, buf + done, used);
		n += used;
		done += used;
		while (i < n && (k = filter_one(in + i, n - i, out, &olen)) > 0)
			i += k;
		/* Left over: at most three bytes of a character that the
		 * rest of this write, or the next one, completes. */
		t->npend = n - i;
		memcpy(t->pend, in + i, t->npend);
		if (put(t->fd, out, olen) == -1)
			return -1;
	}
	return (ssize_t)size;
}

static int
filter_close(void *cookie)
{
	struct termsafe *t = cookie;
	char out[4 * 4];
	size_t olen = 0;
	int rv = 0;

	/* A character never completed: its bytes are no UTF-8. */
	for (size_t i = 0; i < t->npend; i++)
		olen += (size_t)sprintf(out + olen, "\\x%02x",
		    (unsigned char)t->pend[i]);
	if (olen > 0)
		rv = put(t->fd, out, olen);
	free(t);
	return rv;
}

FILE *
termsafe_open(int fd)
{
	cookie_io_functions_t io = { .write = filter_write,
	    .close = filter_close };
	struct termsafe *t;
	FILE *f;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	t->fd = fd;
	if ((f = fopencookie(t, "w", io)) == NULL) {
		free(t);
		return NULL;
	}
	return f;
}

/* At exit the filters are closed, not just flushed: a character left cut
 * is shown, and their memory goes (LeakSanitizer counts it otherwise). */
static void
termsafe_fini(void)
{
	if (plain_out != NULL) {
		fclose(stdout);
		stdout = plain_out;
		raw_fd = -1;
	}
	if (plain_err != NULL) {
		fclose(stderr);
		stderr = plain_err;
	}
}

void
termsafe_init(void)
{
	FILE *f;

	if (isatty(STDOUT_FILENO) && (f = termsafe_open(STDOUT_FILENO))) {
		setvbuf(f, NULL, _IOLBF, 0);
		plain_out = stdout;
		stdout = f;
		raw_fd = STDOUT_FILENO;
	}
	if (isatty(STDERR_FILENO) && (f = termsafe_open(STDERR_FILENO))) {
		setvbuf(f, NULL, _IONBF, 0);
		plain_err = stderr;
		stderr = f;
	}
	if (plain_out != NULL || plain_err != NULL)
		atexit(termsafe_fini);
}

void
termsafe_raw(const char *seq)
{
	fflush(stdout);
	if (raw_fd == -1)
		fputs(seq, stdout);
	else
		(void)put(raw_fd, seq, strlen(seq));
}
