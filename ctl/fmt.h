/* Formatting helpers at the bottom of stressctl's layers (fmt.c). */
#ifndef STRESSCTL_FMT_H
#define STRESSCTL_FMT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

/* Serialise j the way every JSON the ctl prints or sends is serialised. */
const char	*fmt_json_string(json_object *j);

/* "2026-11-30T11:20:54Z" (the daemon's UTC times) as local time,
 * "2026-11-30 12:20:54" (with_zone adds " +0100"); anything that does not
 * parse is copied as it is.  Returns buf. */
const char	*fmt_local_time(const char *iso, bool with_zone, char *buf,
		    size_t len);

/* p, or exit 1 with "out of memory" when it is NULL. */
void		*fmt_nomem(void *p);
/* p with room for item n of size bytes, *cap doubled as needed (exits on
 * out of memory). */
void		*fmt_grow(void *p, size_t *cap, size_t n, size_t size);
/* strdup and a malloc'd formatted string (both exit on out of memory). */
char		*fmt_xstrdup(const char *s);
char		*fmt_xprintf(const char *fmt, ...)
		    __attribute__((format(printf, 1, 2)));
char		*fmt_vxprintf(const char *fmt, va_list ap)
		    __attribute__((format(printf, 1, 0)));

#endif
