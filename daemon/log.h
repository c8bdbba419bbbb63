/* The one logging API of stressd: to stderr, with syslog-priority prefixes
 * ("<3>") when journald reads it, plain otherwise. */
#ifndef STRESSD_LOG_H
#define STRESSD_LOG_H

#include <stdarg.h>

enum log_level { LOG_LVL_ERR, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

void	log_init(enum log_level level);
/* "err", "warn", "info" or "debug"; -1 when unknown. */
int	log_level_parse(const char *name);
/* The name of a LOG_LVL_*, or NULL for no level. */
const char *log_level_name(int level);
void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
void	fatal(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	fatalx(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

#endif
