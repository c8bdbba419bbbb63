/*
 * A writer's guard around librrd: SIGBUS and SIGFPE raised inside a
 * guarded call (a file truncated under librrd's map) fail that call
 * instead of killing the daemon (the reasoning is in faultguard.c).
 */
#ifndef STRESSD_FAULTGUARD_H
#define STRESSD_FAULTGUARD_H

#include <stdint.h>

/* faultguard_call's result when a fault threw the call out. */
#define FAULTGUARD_FAULT	(-2)

/* Install the handlers (once per process; any thread may call). */
void	faultguard_init(void);
/* fn(arg) with this thread's guard armed: its result, or FAULTGUARD_FAULT
 * with the signal in *sig and (SIGBUS) the faulting address in *addr. */
int	faultguard_call(int (*fn)(void *), void *arg, int *sig,
	    uintptr_t *addr);
/* After a fault: give back the map and descriptor librrd held on path
 * (addr 0 after a SIGFPE: the map named path, or the inode of own, the
 * caller's own descriptor of the file, which is never closed; -1: none). */
void	faultguard_release(const char *path, int sig, uintptr_t addr,
	    int own);

#endif
