/*
 * The descriptor budget in force (fdbudget.h's arithmetic, applied to the
 * listeners' caps): the standing split from startup, or, while a run
 * whose writers need more than the standing reserve holds it, that run's,
 * with the client caps lowered to what is left.  A run that cannot fit
 * under the limit is refused naming its knob and the numbers; one that
 * fits only once clients hold fewer connections is refused `busy`:
 * connections are refused, never writes failed.  main.c sets it up,
 * lifecycle.c takes a run's reserve as the run launches and gives it back
 * once its threads have ended.
 */
#ifndef STRESSD_FDRESERVE_H
#define STRESSD_FDRESERVE_H

#include <stdbool.h>
#include <stddef.h>

/* Raise the limit, split it and set the caps (idle_s and deadline_s are
 * the control clients' idle timeout and the /metrics deadline, kept
 * through every later split).  -1 when the limit is too small (err says
 * so). */
int	fdreserve_init(double idle_s, double deadline_s, char *err,
	    size_t len);
/* Take the reserve of a run with write_threads writers and threads
 * generators (writers too unless use_queue).  0, or -1 with *code
 * (PROTO_ERR_*), *field and err saying why. */
int	fdreserve_take(unsigned write_threads, unsigned threads, bool use_queue,
	    const char **code, const char **field, char *err, size_t len);
/* The run's threads are gone: the standing caps again.  Harmless when
 * nothing was taken. */
void	fdreserve_release(void);

#endif
