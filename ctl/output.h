/* stressctl output: the views of a reply's result (one text renderer per
 * command that shows a single reply, one JSON renderer for all), chosen by
 * the command's table entry and the --json flag; and the small helpers
 * every renderer uses. */
#ifndef STRESSCTL_OUTPUT_H
#define STRESSCTL_OUTPUT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

/* A view prints the "result" object of a successful reply (which may be
 * NULL if the daemon sent none) on stdout. */
typedef void	(*output_view_fn)(json_object *result);

void	output_text_start(json_object *result);
/* The final stats (stop with wait) or the run's new state. */
void	output_text_stop(json_object *result);
/* stats and wait. */
void	output_text_stats(json_object *result);
void	output_text_status(json_object *result);
void	output_text_help(json_object *result);
void	output_text_version(json_object *result);
void	output_text_runs(json_object *result);
/* runs --all: the steps of capacity searches too. */
void	output_text_runs_all(json_object *result);
/* Scripts get the result exactly as the daemon sent it. */
void	output_json_result(json_object *result);

/* Serialise j the way every JSON the ctl prints or sends is serialised. */
const char	*output_json_string(json_object *j);

/* "2026-11-30T11:20:54Z" (the daemon's UTC times) as local time,
 * "2026-11-30 12:20:54" (with_zone adds " +0100"); anything that does not
 * parse is copied as it is.  Returns buf. */
const char	*output_local_time(const char *iso, bool with_zone, char *buf,
		    size_t len);

/* p, or exit 1 with "out of memory" when it is NULL. */
void		*output_nomem(void *p);
/* p with room for item n of size bytes, *cap doubled as needed (exits on
 * out of memory). */
void		*output_grow(void *p, size_t *cap, size_t n, size_t size);
/* strdup and a malloc'd formatted string (both exit on out of memory). */
char		*output_xstrdup(const char *s);
char		*output_xprintf(const char *fmt, ...)
		    __attribute__((format(printf, 1, 2)));
char		*output_vxprintf(const char *fmt, va_list ap)
		    __attribute__((format(printf, 1, 0)));

#endif
