/* The bottom of stressctl's layers: what every view and command uses to
 * build its text (allocation that exits on out of memory, formatted
 * strings, the daemon's times in local time, JSON serialised one way).
 * It includes no other module of ctl/. */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fmt.h"
#include "proto.h"

/* A CLI has nothing sensible to do when malloc fails mid-output. */
void *
fmt_nomem(void *p)
{
	if (p == NULL) {
		fputs("stressctl: out of memory\n", stderr);
		exit(CTL_EXIT_ERROR);
	}
	return p;
}

void *
fmt_grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 32;
	return fmt_nomem(realloc(p, *cap * size));
}

char *
fmt_xstrdup(const char *s)
{
	return fmt_nomem(strdup(s));
}

char *
fmt_vxprintf(const char *fmt, va_list ap)
{
	char *s;

	return fmt_nomem(vasprintf(&s, fmt, ap) == -1 ? NULL : s);
}

char *
fmt_xprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = fmt_vxprintf(fmt, ap);
	va_end(ap);
	return s;
}

const char *
fmt_json_string(json_object *j)
{
	/* NOSLASHESCAPE: paths stay readable; "\/" and "/" are the same
	 * JSON string, so scripts still see the result unchanged. */
	return json_object_to_json_string_ext(j,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

const char *
fmt_local_time(const char *iso, bool with_zone, char *buf, size_t len)
{
	struct tm tm;
	const char *end;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	end = strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (end == NULL || *end != '\0' || (t = timegm(&tm)) == (time_t)-1 ||
	    localtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, with_zone ? "%Y-%m-%d %H:%M:%S %z" :
	    "%Y-%m-%d %H:%M:%S", &tm) == 0)
		snprintf(buf, len, "%s", iso);
	return buf;
}
