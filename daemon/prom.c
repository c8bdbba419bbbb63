/* Prometheus exporter; see prom.h. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event2/buffer.h>

#include "prom.h"

/* ------------------------------------------------------------ format */

/*
 * The escaped form of the character at s: its bytes, or a backslash
 * escape, or U+FFFD for a byte that does not start a well-formed UTF-8
 * sequence (Prometheus rejects invalid UTF-8, and label values come from
 * paths, which may hold anything).  Fills u (at most 4 bytes, not
 * terminated), sets *ulen and returns the input bytes consumed; 0 at the
 * end of s.
 */
static size_t
escape_char(const char *s, bool quote, char *u, size_t *ulen)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	size_t n;

	switch (p[0]) {
	case '\0':
		return 0;
	case '\\':
		memcpy(u, "\\\\", *ulen = 2);
		return 1;
	case '\n':
		memcpy(u, "\\n", *ulen = 2);
		return 1;
	case '"':
		if (quote) {
			memcpy(u, "\\\"", *ulen = 2);
			return 1;
		}
		break;
	}
	if (p[0] < 0x80) {
		u[0] = (char)p[0];
		*ulen = 1;
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		cp = p[0] & 0x07;
	} else
		goto bad;
	/* A NUL terminator is not a continuation byte, so this stops at the
	 * end of s. */
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			goto bad;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates and code points past U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		goto bad;
	memcpy(u, s, *ulen = n);
	return n;
bad:
	memcpy(u, "\xef\xbf\xbd", *ulen = 3);
	return 1;
}

void
prom_label_escape(char *dst, size_t len, const char *value)
{
	size_t used = 0, in, ulen;
	char u[4];

	if (len == 0)
		return;
	if (value != NULL)
		while ((in = escape_char(value, true, u, &ulen)) > 0 &&
		    used + ulen < len) {
			memcpy(dst + used, u, ulen);
			used += ulen;
			value += in;
		}
	dst[used] = '\0';
}

/*
 * v as Prometheus reads it: NaN, +Inf, -Inf, otherwise the shortest of
 * %.15g and %.17g that reads back as v, so 3 prints as "3" and 0.1 as
 * "0.1" (not 0.10000000000000001) while nothing is lost.  The daemon never
 * calls setlocale, so the decimal point is '.'.
 */
static void
format_double(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "NaN");
	else if (isinf(v))
		snprintf(buf, len, "%s", v > 0 ? "+Inf" : "-Inf");
	else {
		snprintf(buf, len, "%.15g", v);
		if (strtod(buf, NULL) != v)
			snprintf(buf, len, "%.17g", v);
	}
}

void
prom_header(struct evbuffer *out, const char *name, const char *type,
    const char *help)
{
	size_t in, ulen;
	char u[4];

	if (help != NULL) {
		evbuffer_add_printf(out, "# HELP %s ", name);
		while ((in = escape_char(help, false, u, &ulen)) > 0) {
			evbuffer_add(out, u, ulen);
			help += in;
		}
		evbuffer_add(out, "\n", 1);
	}
	evbuffer_add_printf(out, "# TYPE %s %s\n", name, type);
}

void
prom_sample(struct evbuffer *out, const char *name, const char *labels,
    double value)
{
	char num[32];

	format_double(num, sizeof(num), value);
	if (labels != NULL && labels[0] != '\0')
		evbuffer_add_printf(out, "%s{%s} %s\n", name, labels, num);
	else
		evbuffer_add_printf(out, "%s %s\n", name, num);
}

/* The le boundaries in ns: 10 us .. 100 s in 1-2-5 steps, the span from a
 * fast rrd_update_r to a badly stalled queue.  Fixed, so every scrape
 * has the same series and rate()/histogram_quantile() can combine them. */
static const uint64_t ladder_ns[PROM_LADDER_LEN] = {
	10000, 20000, 50000,
	100000, 200000, 500000,
	1000000, 2000000, 5000000,
	10000000, 20000000, 50000000,
	100000000, 200000000, 500000000,
	1000000000, 2000000000, 5000000000,
	10000000000, 20000000000, 50000000000,
	100000000000,
};

static void
bucket_line(struct evbuffer *out, const char *name, const char *labels,
    const char *le, uint64_t count)
{
	evbuffer_add_printf(out, "%s_bucket{%s%sle=\"%s\"} %ju\n", name,
	    labels != NULL ? labels : "",
	    labels != NULL && labels[0] != '\0' ? "," : "", le, (uintmax_t)count);
}

/*
 * A hist bucket is counted under the first boundary at or above its upper
 * bound.  A bucket straddling a boundary (at most 0.79% wide) is counted
 * above it, so a count may miss records lying just below its le but never
 * includes one above it.  Clamped records (the overflow bucket, bound
 * UINT64_MAX) count only in +Inf.
 */
void
prom_histogram(struct evbuffer *out, const char *name, const char *help,
    const struct hist *h, double scale, const char *labels)
{
	uint64_t *upper = NULL, *count = NULL, cum = 0, total = 0;
	size_t n = 0, j = 0;
	char num[32];

	if (h != NULL && hist_count(h) > 0) {
		/* 75 KiB: too much for a stack shared with libevent. */
		upper = malloc(HIST_BUCKETS * sizeof(*upper));
		count = malloc(HIST_BUCKETS * sizeof(*count));
		if (upper == NULL || count == NULL)
			goto fail;	/* the series are missing from this scrape */
		n = hist_buckets(h, upper, count, HIST_BUCKETS);
		total = hist_count(h);
	}
	prom_header(out, name, "histogram", help);
	/* A bucket is counted under its fixed upper edge only: placing the
	 * top one by the max seen so far would move it to a higher le as the
	 * max grows, and a cumulative count would go down between scrapes. */
	for (size_t i = 0; i < PROM_LADDER_LEN; i++) {
		while (j < n && upper[j] <= ladder_ns[i])
			cum += count[j++];
		/* %.15g: the product's rounding noise must not show, so the
		 * labels read 1e-05, 0.0002, 100. */
		snprintf(num, sizeof(num), "%.15g",
		    (double)ladder_ns[i] * scale);
		bucket_line(out, name, labels, num, cum);
	}
	bucket_line(out, name, labels, "+Inf", total);

	evbuffer_add_printf(out, "%s_sum", name);
	prom_sample(out, "", labels,
	    h != NULL ? hist_mean(h) * (double)total * scale : 0);
	evbuffer_add_printf(out, "%s_count", name);
	prom_sample(out, "", labels, (double)total);
fail:
	free(upper);
	free(count);
}
