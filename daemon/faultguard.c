/* Faults inside librrd caught per writer thread: see below. */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <dirent.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "faultguard.h"
#include "log.h"

/*
 * librrd reads and writes a file through a shared mmap of it.  When another
 * process truncates the file while a writer is inside rrd_update_r, the
 * next touch of a page past the new end raises SIGBUS, and header fields
 * read back as zeros make it divide by zero (SIGFPE; measured with 1.7.2
 * truncating files to random sizes under a flat-out run): either would kill
 * the daemon.  librrd checks the size only as it opens the file, so the
 * window cannot be closed from outside; instead a writer arms a per-thread
 * jump buffer around rrd_update_r, and the handler jumps back out of
 * librrd, failing that one batch as "corrupt".  Why this is sound enough:
 *
 * - A fault is delivered to the faulting thread, so a thread-local buffer
 *   is the right one; reading it (static TLS of the executable) and
 *   siglongjmp are all the handler does.  A signal sent by kill(2), or a
 *   fault outside an armed call, goes to the previous disposition (the
 *   default, or the sanitizers' report).
 * - A truncation only turns the header's counts into zeros and its pages
 *   into missing ones: librrd's loops get shorter, never longer, and its
 *   writes into the file are bounds-checked against the length it mapped,
 *   so it faults or fails but writes nowhere it should not before the
 *   jump.  (Garbage written into a file in place while librrd is inside it
 *   is another matter: a larger count read mid-call sends it out of bounds
 *   and may corrupt memory before any signal, so SIGSEGV is not caught.
 *   Tools that rewrite RRD files in place take librrd's fcntl lock, which
 *   keeps them out of a call; a rename over the file does not touch the
 *   inode librrd has mapped.)
 * - What librrd was doing is abandoned: it works on the map with plain
 *   loads, stores, memcpy and strtod, none of which holds a lock; it holds
 *   no lock of its own in rrd_update_r (its error context is per thread),
 *   and its fcntl lock goes with the descriptor.
 * - What it had is leaked unless taken back: faultguard_release unmaps the file
 *   and closes its descriptor, found in /proc/self: the map at the
 *   faulting address (SIGBUS) or the one named path (SIGFPE), and only
 *   when that inode is open once and has one link (a writer holds the
 *   file's reservation, but a hard link or a rename could put the inode
 *   in another writer's hands); otherwise they are left, and logged.  The few hundred
 *   bytes librrd had allocated are lost for good; under LeakSanitizer they
 *   show up as a leak below rrd_open or rrd_update_r.  rrd_create_r writes
 *   with write(2), not through a map, so it is not armed.
 */
static _Thread_local sigjmp_buf		 guard_jb;
static _Thread_local volatile sig_atomic_t guard_armed;
static _Thread_local volatile int	 guard_sig;
static _Thread_local void *volatile	 guard_addr;
static struct sigaction			 guard_prev_bus, guard_prev_fpe;
static pthread_once_t			 guard_once = PTHREAD_ONCE_INIT;

static void
on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	/* si_code > 0: raised by the kernel for a fault, not sent. */
	if (guard_armed && si->si_code > 0) {
		guard_armed = 0;
		guard_sig = sig;
		guard_addr = sig == SIGBUS ? si->si_addr : NULL;
		siglongjmp(guard_jb, 1);
	}
	/* Not ours: let the previous disposition have it.  A fault happens
	 * again as the instruction is retried; a sent signal is sent again. */
	sigaction(sig, sig == SIGBUS ? &guard_prev_bus : &guard_prev_fpe, NULL);
	if (si->si_code <= 0)
		raise(sig);
}

static void
guard_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &guard_prev_bus) == -1 ||
	    sigaction(SIGFPE, &sa, &guard_prev_fpe) == -1)
		log_warn("SIGBUS/SIGFPE handler");
}

/* One line of /proc/self/maps. */
struct map_line {
	uintptr_t	start, end;
	unsigned	maj, min;
	unsigned long	ino;
	char		name[4200];
};

static bool
map_parse(const char *line, struct map_line *m)
{
	int off = 0;

	m->name[0] = '\0';
	if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %*x %x:%x %lu %n",
	    &m->start, &m->end, &m->maj, &m->min, &m->ino, &off) < 5)
		return false;
	if (off > 0)
		snprintf(m->name, sizeof(m->name), "%s", line + off);
	m->name[strcspn(m->name, "\n")] = '\0';
	return true;
}

/*
 * Give back the map and descriptors librrd held on path when a fault threw
 * a writer out of it.  The file is path's inode; after a SIGBUS, the one
 * mapped at the faulting address, so a file renamed over path meanwhile
 * does not hide it (it is taken only if it is path by inode or name).
 */
void
faultguard_release(const char *path, int sig, uintptr_t addr, int own)
{
	struct map_line m, hit;
	struct { uintptr_t start, end; } maps[16];
	char line[4400], deleted[4300];
	struct stat st, ost;
	struct dirent *de;
	size_t nmaps = 0;
	int closed = 0, unmapped = 0, nfds = 0, the_fd = -1;
	bool found = false, shared = false;
	FILE *fp;
	DIR *d;

	if ((fp = fopen("/proc/self/maps", "re")) == NULL) {
		log_warn("after a fault on %s: /proc/self/maps", path);
		return;
	}
	/* Which file librrd had: after a SIGBUS, the file mapped at the
	 * faulting address, whatever its name now; after a SIGFPE, the map
	 * named path (or "path (deleted)").  Never the inode path names
	 * now: a file renamed over it may be another writer's. */
	snprintf(deleted, sizeof(deleted), "%s (deleted)", path);
	/* A file reached through the run's held directory: its inode is
	 * that of the writer's own descriptor, whatever its name now. */
	if (own >= 0 && fstat(own, &ost) == -1)
		own = -1;
	while (!found && fgets(line, sizeof(line), fp) != NULL)
		if (map_parse(line, &hit) && hit.ino != 0)
			found = addr != 0 ? addr >= hit.start &&
			    addr < hit.end : own >= 0 ? hit.ino == ost.st_ino &&
			    hit.maj == major(ost.st_dev) &&
			    hit.min == minor(ost.st_dev) :
			    strcmp(hit.name, path) == 0 ||
			    strcmp(hit.name, deleted) == 0;
	if (!found) {
		fclose(fp);
		log_warnx("after a fault on %s: its map is not identified; "
		    "its map and descriptor stay", path);
		return;
	}
	/* madvise may split librrd's map into several lines. */
	rewind(fp);
	while (fgets(line, sizeof(line), fp) != NULL && nmaps < 16)
		if (map_parse(line, &m) && m.ino == hit.ino &&
		    m.maj == hit.maj && m.min == hit.min) {
			maps[nmaps].start = m.start;
			maps[nmaps++].end = m.end;
		}
	fclose(fp);
	/* librrd's one descriptor of that inode.  More than one, or a file
	 * with several links, could be another writer's (hard-linked or
	 * renamed files): then leak rather than pull a file from under it. */
	if ((d = opendir("/proc/self/fd")) == NULL) {
		log_warn("after a fault on %s: /proc/self/fd", path);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);

		if (*end != '\0' || end == de->d_name || fd == dirfd(d) ||
		    fd == own)
			continue;
		if (fstat((int)fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_ino == hit.ino && major(st.st_dev) == hit.maj &&
		    minor(st.st_dev) == hit.min) {
			nfds++;
			the_fd = (int)fd;
			shared |= st.st_nlink > 1;
		}
	}
	closedir(d);
	if (nfds > 1 || shared || nmaps == sizeof(maps) / sizeof(maps[0])) {
		log_warnx("after a fault on %s: its inode is open %d times "
		    "or has other links; its map and descriptor stay", path,
		    nfds);
		return;
	}
	for (size_t i = 0; i < nmaps; i++)
		if (munmap((void *)maps[i].start, maps[i].end -
		    maps[i].start) == 0)
			unmapped++;
	if (nfds == 1 && close(the_fd) == 0)
		closed++;
	log_debug("after %s on %s: %d maps unmapped, %d descriptors closed",
	    sig == SIGBUS ? "SIGBUS" : "SIGFPE", path, unmapped, closed);
}

void
faultguard_init(void)
{
	pthread_once(&guard_once, guard_install);
}

int
faultguard_call(int (*fn)(void *), void *arg, int *sig, uintptr_t *addr)
{
	sigset_t set;
	int rc;

	if (sigsetjmp(guard_jb, 0) != 0) {
		/* The handler ran with its signal blocked, and the jump (not
		 * saving the mask, which costs a system call per update)
		 * left it so. */
		sigemptyset(&set);
		sigaddset(&set, guard_sig);
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
		*sig = guard_sig;
		*addr = (uintptr_t)guard_addr;
		return FAULTGUARD_FAULT;
	}
	guard_armed = 1;
	rc = fn(arg);
	guard_armed = 0;
	return rc;
}
