#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static enum log_level	 log_max = LOG_LVL_INFO;
static int		 log_journal;	/* prefix lines with <N> */

void
log_init(enum log_level level)
{
	log_max = level;
	/* systemd sets JOURNAL_STREAM when stderr goes to the journal. */
	log_journal = getenv("JOURNAL_STREAM") != NULL && !isatty(2);
}

/* The names of the levels, as -l, log_level and the messages take them. */
static const char *const level_names[] = { "err", "warn", "info", "debug" };

int
log_level_parse(const char *name)
{
	for (int i = 0; i <= LOG_LVL_DEBUG; i++)
		if (strcmp(name, level_names[i]) == 0)
			return i;
	return -1;
}

const char *
log_level_name(int level)
{
	return level >= 0 && level <= LOG_LVL_DEBUG ? level_names[level] :
	    NULL;
}

static void
vlog(enum log_level lvl, int errnum, const char *fmt, va_list ap)
{
	static const int prio[] = { 3, 4, 6, 7 };
	static const char *const tag[] = { "error", "warning", "info", "debug" };
	char msg[2048];

	if (lvl > log_max)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (log_journal)
		fprintf(stderr, "<%d>%s%s%s\n", prio[lvl], msg,
		    errnum ? ": " : "", errnum ? strerror(errnum) : "");
	else
		fprintf(stderr, "stressd: %s: %s%s%s\n", tag[lvl], msg,
		    errnum ? ": " : "", errnum ? strerror(errnum) : "");
}

#define LOGFN(name, lvl, witherr)				\
void								\
name(const char *fmt, ...)					\
{								\
	int saved = errno;					\
	va_list ap;						\
								\
	va_start(ap, fmt);					\
	vlog(lvl, witherr ? saved : 0, fmt, ap);		\
	va_end(ap);						\
	errno = saved;						\
}
LOGFN(log_warn, LOG_LVL_WARN, 1)
LOGFN(log_warnx, LOG_LVL_WARN, 0)
LOGFN(log_info, LOG_LVL_INFO, 0)
LOGFN(log_debug, LOG_LVL_DEBUG, 0)

void
fatal(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_LVL_ERR, saved, fmt, ap);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_LVL_ERR, 0, fmt, ap);
	va_end(ap);
	exit(1);
}
