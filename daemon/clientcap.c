/* Control connections per uid; see clientcap.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include <json-c/json.h>

#include "clientcap.h"
#include "log.h"
#include "proto.h"
#include "request.h"

/* The uids holding connections: few, so a list scanned is enough. */
struct holder {
	uid_t		 uid;
	unsigned	 n;		/* connections, past_pool included */
	unsigned	 passed;	/* descriptors its connections hold */
	bool		 past_pool;	/* one of them taken past the pool */
};

static struct holder	*holders;
static size_t		 nholders, capholders;
static unsigned		 total;
static unsigned		 cap_max = CLIENTCAP_MAX_CLIENTS;
static unsigned		 cap_privileged = CLIENTCAP_PRIVILEGED;
static unsigned		 cap_per_uid = CLIENTCAP_PER_UID;

void
clientcap_set(unsigned max, unsigned privileged, unsigned per_uid)
{
	cap_max = max > 0 ? max : 1;
	cap_privileged = privileged < cap_max ? privileged : cap_max / 2;
	cap_per_uid = per_uid > 0 ? per_uid : 1;
}

static struct holder *
holder_of(uid_t uid)
{
	for (size_t i = 0; i < nholders; i++)
		if (holders[i].uid == uid)
			return &holders[i];
	return NULL;
}

/* Would one more connection of uid (holder h, NULL if none) pass the
 * cap, root's part or uid's share?  If so, why says which. */
static bool
over_cap(uid_t uid, const struct holder *h, char *why, size_t len)
{
	bool privileged = uid == 0 || uid == geteuid();

	if (total >= cap_max) {
		snprintf(why, len, "the daemon holds %u connections, its cap; "
		    "try again later", cap_max);
		return true;
	}
	if (!privileged && total >= cap_max - cap_privileged) {
		snprintf(why, len, "the other %u of %u connections are kept "
		    "for root; try again later", cap_privileged, cap_max);
		return true;
	}
	if (!privileged && h != NULL && h->n >= cap_per_uid) {
		snprintf(why, len, "uid %ld already holds %u connections, its "
		    "share; close some first", (long)uid, cap_per_uid);
		return true;
	}
	return false;
}

bool
clientcap_admit(uid_t uid, char *why, size_t len)
{
	struct holder *h = holder_of(uid);

	if (over_cap(uid, h, why, len))
		return false;
	if (h == NULL) {
		if (nholders == capholders) {
			size_t n = capholders ? capholders * 2 : 16;
			struct holder *nh = realloc(holders, n * sizeof(*nh));

			if (nh == NULL) {
				snprintf(why, len, "out of memory");
				return false;
			}
			holders = nh;
			capholders = n;
		}
		h = &holders[nholders++];
		h->uid = uid;
		h->n = 0;
		h->passed = 0;
		h->past_pool = false;
	}
	h->n++;
	total++;
	return true;
}

/* A uid that holds nothing leaves the list. */
static void
forget_idle(struct holder *h)
{
	if (h->n == 0 && h->passed == 0)
		*h = holders[--nholders];
}

void
clientcap_release(uid_t uid)
{
	struct holder *h = holder_of(uid);

	if (h == NULL)
		return;
	total--;
	h->n--;
	forget_idle(h);
}

unsigned
clientcap_passed(uid_t uid)
{
	struct holder *h = holder_of(uid);

	return h != NULL ? h->passed : 0;
}

bool
clientcap_passed_add(uid_t uid, bool past_pool)
{
	struct holder *h = holder_of(uid);
	char why[160];

	if (h == NULL)
		return false;
	if (past_pool) {
		/* A descriptor is a descriptor: past the pool it takes a
		 * connection's place in the budget. */
		if (h->past_pool || over_cap(uid, h, why, sizeof(why)))
			return false;
		h->past_pool = true;
		h->n++;
		total++;
	}
	h->passed++;
	return true;
}

bool
clientcap_passed_release(uid_t uid)
{
	struct holder *h = holder_of(uid);

	if (h == NULL || h->passed == 0)
		return false;
	h->passed--;
	/* Which one leaves does not matter: free the slot first. */
	if (h->past_pool) {
		h->past_pool = false;
		clientcap_release(uid);
		return true;
	}
	forget_idle(h);
	return false;
}

unsigned
clientcap_count(void)
{
	return total;
}

void
clientcap_refuse(int fd, uid_t uid, pid_t pid, const char *why)
{
	static uint64_t refused;
	json_object *r = request_error_reply(NULL, PROTO_ERR_BUSY, NULL, why);
	const char *line;
	size_t len;

	if (refused++ % 1000 == 0)
		log_warnx("client uid %ld pid %ld refused: %s (%ju refused so "
		    "far)", (long)uid, (long)pid, why, (uintmax_t)refused);
	if (r != NULL) {
		line = json_object_to_json_string_length(r,
		    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE,
		    &len);
		if (send(fd, line, len, MSG_DONTWAIT | MSG_NOSIGNAL) ==
		    (ssize_t)len)
			(void)send(fd, "\n", 1, MSG_DONTWAIT | MSG_NOSIGNAL);
		json_object_put(r);
	}
	shutdown(fd, SHUT_WR);
	close(fd);
}

void
clientcap_reset(void)
{
	free(holders);
	holders = NULL;
	nholders = capholders = 0;
	total = 0;
}
