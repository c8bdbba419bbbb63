/* Who may hold how many control connections: a cap on them all, a part
 * of it only root and the daemon's own uid may take, and a share no other
 * uid may pass, so one uid's flood cannot lock root (or anyone) out.
 * It counts beside them the descriptors each uid passes (fdqueue.c).
 * control.c asks before it takes a client and tells when one leaves. */
#ifndef STRESSD_CLIENTCAP_H
#define STRESSD_CLIENTCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Clients connected at once, unless clientcap_set says otherwise (main
 * gives the descriptor budget's, fdbudget.h, through control_set_limits).
 * With control.h's bounds on a client's input and output, all clients
 * together hold < 1 GiB.  Past the cap, or past a uid's share, a client
 * is answered `busy` and closed; accepting never pauses for it, so root
 * can always get in. */
#define CLIENTCAP_MAX_CLIENTS		2048
#define CLIENTCAP_PRIVILEGED		128
#define CLIENTCAP_PER_UID		960

/* max in all; privileged of them for root and our uid; per_uid at most
 * for any other uid. */
void	clientcap_set(unsigned max, unsigned privileged, unsigned per_uid);
/* May a connection of uid come in?  If so it is counted (until
 * clientcap_release); if not, why says which limit. */
bool	clientcap_admit(uid_t uid, char *why, size_t len);
void	clientcap_release(uid_t uid);
/* Descriptors that uid's connections pass and fdqueue.c holds, counted
 * here beside its connections. */
unsigned clientcap_passed(uid_t uid);
/* One more held by uid, which holds a connection.  past_pool: it is one
 * past the pool of passed descriptors and takes a slot as one more
 * connection of uid would (false, nothing counted, if that is refused). */
bool	clientcap_passed_add(uid_t uid, bool past_pool);
/* One fewer held by uid; true if that freed its slot past the pool. */
bool	clientcap_passed_release(uid_t uid);
/* Connections counted now. */
unsigned clientcap_count(void);
/* Answer fd one line, a `busy` error carrying why, without waiting, and
 * close it. */
void	clientcap_refuse(int fd, uid_t uid, pid_t pid, const char *why);
/* Forget every count (the connections are gone). */
void	clientcap_reset(void);

#endif
