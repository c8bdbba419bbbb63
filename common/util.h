/* Small helpers shared by stressd and stressctl. */
#ifndef STRESSD_UTIL_H
#define STRESSD_UTIL_H

#include <stddef.h>
#include <stdio.h>

/* CLOCK_MONOTONIC in seconds. */
double	util_now(void);

/* t as UTC ISO 8601 ("2026-11-30T10:11:44Z") into buf (>= 21 bytes). */
void	util_iso8601(long long t, char *buf, size_t len);

/* All len bytes on socket fd, with MSG_NOSIGNAL (a peer that hangs up is
 * an EPIPE, not a SIGPIPE) and again after EINTR; 0, or -1 with errno
 * set (EAGAIN: SO_SNDTIMEO ran out). */
int	util_send_all(int fd, const void *buf, size_t len);

/*
 * Write a file whole or not at all: util_tmp_open makes path.tmp afresh
 * (an old one, or a symbolic link planted there, is removed, never
 * followed) and opens it; util_tmp_commit closes it and renames it over
 * path, or removes it if anything failed.  NULL / -1 with errno set.
 */
FILE	*util_tmp_open(const char *path);
int	util_tmp_commit(FILE *fp, const char *path);

/* mkdir -p with the given mode; 0 or -1 with errno set. */
int	util_mkdir_p(const char *path, unsigned mode);

/* The number after "key:" in /proc/self/status, read in base (Umask is
 * octal, Seccomp decimal); -1 when there is none. */
long	util_proc_status(const char *key, int base);

#endif
