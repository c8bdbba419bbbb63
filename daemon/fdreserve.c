/* The descriptor budget in force; see fdreserve.h. */
#include <stdio.h>

#include "clientcap.h"
#include "control.h"
#include "fdbudget.h"
#include "fdreserve.h"
#include "log.h"
#include "prom.h"
#include "proto.h"

static struct {
	double		idle_s, deadline_s;
	struct fdbudget	standing;
	bool		taken;		/* a run's split is in force */
} r;

static void
apply(const struct fdbudget *b)
{
	struct control_limits cl;

	cl.max_clients = b->control;
	cl.privileged = b->privileged;
	cl.per_uid = b->per_uid;
	cl.idle_s = r.idle_s;
	control_set_limits(&cl);
	prom_set_limits(b->metrics, r.deadline_s);
}

static void
log_split(const char *what, const struct fdbudget *b)
{
	log_info("descriptors: %s: limit %u; %u kept for writers and the "
	    "engine, %u for /metrics, %u for control clients (%u of them for "
	    "root, %u at most per other uid)", what, b->limit, b->reserve,
	    b->metrics, b->control, b->privileged, b->per_uid);
}

int
fdreserve_init(double idle_s, double deadline_s, char *err, size_t len)
{
	unsigned limit = fdbudget_raise_limit(NULL);

	r.idle_s = idle_s;
	r.deadline_s = deadline_s;
	if (fdbudget_split(limit, 0, &r.standing) == -1) {
		snprintf(err, len, "a descriptor limit of %u is too small (at "
		    "least 16)", limit);
		return -1;
	}
	apply(&r.standing);
	log_split("standing", &r.standing);
	return 0;
}

int
fdreserve_take(unsigned write_threads, unsigned threads, bool use_queue,
    const char **code, const char **field, char *err, size_t len)
{
	unsigned hard, limit = fdbudget_raise_limit(&hard);
	unsigned gens = use_queue ? threads : 0;
	unsigned writers = write_threads + (use_queue ? 0 : threads);
	unsigned need = fdbudget_need(writers, gens);
	unsigned ctl = clientcap_count(), met = prom_connections(), most;
	struct fdbudget b;
	int rc;

	fdreserve_release();
	*field = use_queue || write_threads >= threads ? "write_threads" :
	    "threads";
	/* Another raise of the hard limit (prlimit) counts from here. */
	if (limit != r.standing.limit &&
	    fdbudget_split(limit, 0, &r.standing) == 0)
		apply(&r.standing);
	if ((rc = fdbudget_admit(limit, need, ctl, met, &b)) == 0) {
		if (b.reserve > r.standing.reserve) {
			apply(&b);
			r.taken = true;
			log_split("for the run's writers", &b);
		}
		return 0;
	}
	/* The most of the knob named, the other one as it is. */
	most = fdbudget_max_writers(limit, gens, rc == 1 ? ctl : 0,
	    rc == 1 ? met : 0, writers);
	if (writers != write_threads) {
		unsigned other = (*field)[0] == 'w' ? threads : write_threads;

		most = most > other ? most - other : 0;
	}
	if (rc == -1) {
		*code = PROTO_ERR_BAD_ARGUMENT;
		snprintf(err, len, "write_threads %u with threads %u "
		    "(use_queue %s) need %u descriptors (%d a writer, %d a "
		    "generator, %d for the engine and passed descriptors) and "
		    "%d for clients, but the descriptor limit is %u (hard "
		    "limit %u): %s %u at most fits; lower it or raise the "
		    "limit (LimitNOFILE=)", write_threads, threads,
		    use_queue ? "true" : "false", need, FDBUDGET_PER_WRITER,
		    FDBUDGET_PER_GENERATOR, FDBUDGET_ENGINE + FDBUDGET_PASSED,
		    FDBUDGET_MIN_CLIENTS, limit, hard, *field, most);
		return -1;
	}
	*code = PROTO_ERR_BUSY;
	snprintf(err, len, "write_threads %u with threads %u need %u of the "
	    "%u descriptors (the limit), leaving clients %u control and %u "
	    "/metrics connections, but they hold %u and %u now: try again "
	    "once fewer are connected, or lower %s (%u at most fits now)",
	    write_threads, threads, need, limit, b.control, b.metrics, ctl,
	    met, *field, most);
	return -1;
}

void
fdreserve_release(void)
{
	if (!r.taken)
		return;
	r.taken = false;
	apply(&r.standing);
	log_split("the run's writers are gone", &r.standing);
}
