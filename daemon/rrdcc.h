/*
 * rrdcc: a client of rrdcached's line protocol (rrdcached(1)), one
 * connection per owner: a writer thread, or the run's own for STATS,
 * INFO and FLUSHALL.  The target knob's "rrdcached:ADDR" picks it.
 */
#ifndef STRESSD_RRDCC_H
#define STRESSD_RRDCC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "knobs.h"
#include "rrdfile.h"

/* A reply or a connect that takes longer fails as a lost connection. */
#define RRDCC_TIMEOUT_S		10
/* Most lines a reply may announce after its status line (STATS has 10,
 * INFO about 10 per data source and RRA); more ends the exchange as an error. */
#define RRDCC_REPLY_LINES_MAX	65536
/* How soon an exchange sees rrdcc_abort_all. */
#define RRDCC_ABORT_SLICE_MS	100
/* Longest command line sent.  rrdcached 1.7.2 drops the connection on a
 * line of 8192 bytes or more without a reply (measured: 8014 taken, 8314
 * dropped), so an update of many values goes as several lines. */
#define RRDCC_LINE_MAX		8000

/* rrdcached's STATS, the names as it prints them. */
struct rrdcc_stats {
	uint64_t	queue_length;		/* files waiting to be written */
	uint64_t	updates_received;	/* UPDATE commands */
	uint64_t	flushes_received;
	uint64_t	updates_written;	/* rrd_update_r calls */
	uint64_t	data_sets_written;	/* values written */
	uint64_t	tree_nodes_number;	/* files in its cache */
	uint64_t	tree_depth;
	uint64_t	journal_bytes;
	uint64_t	journal_rotate;
};

/* Each STATS name and where struct rrdcc_stats keeps it. */
struct rrdcc_field {
	const char	*name;
	size_t		 off;
};
extern const struct rrdcc_field	rrdcc_stat_fields[];
extern const size_t		rrdcc_nstat_fields;
/* The value of rrdcc_stat_fields[i] in st. */
uint64_t	rrdcc_stat_value(const struct rrdcc_stats *st, size_t i);

struct rrdcc;

/* A client of ADDR (unix:/path, /path, host or host:port, [v6]:port):
 * not connected yet, each call connects when it needs to.  NULL: ENOMEM. */
struct rrdcc	*rrdcc_new(const char *addr);
void		 rrdcc_free(struct rrdcc *c);
/* Connect now (or check the connection): 0, or -1 with why in err. */
int		 rrdcc_connect(struct rrdcc *c, char *err, size_t errlen);
const char	*rrdcc_addr(const struct rrdcc *c);
/* A whole exchange (connect, command, every line of the reply, the
 * second try) that takes longer than ms fails as a lost connection
 * (RRDCC_TIMEOUT_S by default), however the peer paces its bytes; resend
 * false: a command whose connection fails is not sent again on a new one
 * (true by default). */
void		 rrdcc_set_timeout(struct rrdcc *c, int ms, bool resend);
/* Every exchange under way on any connection gives up within
 * RRDCC_ABORT_SLICE_MS: the queue it writes for was discarded (stop
 * --no-drain, a second SIGTERM, the drain timeout).  Any thread. */
void		 rrdcc_abort_all(void);

/*
 * UPDATE path with argc "ts:v[:v...]" values, as lines of at most
 * RRDCC_LINE_MAX.  A line whose connection fails is sent once more on a
 * new connection.  *done: the values rrdcached took (all on 0).  -1: err
 * names path and says why, *kind its kind (RRDFILE_CONNECTION when
 * rrdcached could not be reached or stopped answering).
 */
int	rrdcc_update(struct rrdcc *c, const char *path, int argc,
	    const char *const *argv, int *done, enum rrdfile_kind *kind,
	    char *err, size_t errlen);
/* CREATE path with the run's layout (rrdfile_create's contract). */
int	rrdcc_create(struct rrdcc *c, const struct stress_params *p,
	    const char *path, time_t last_up, enum rrdfile_kind *kind,
	    char *err, size_t errlen);
/* rrdfile_layout through rrdcached: FLUSH path, then INFO path, so the
 * last update counts the values it still held.  -1: *kind says why
 * (RRDFILE_MISSING: no such file). */
int	rrdcc_layout(struct rrdcc *c, const char *path, char *out,
	    size_t outlen, time_t *last, enum rrdfile_kind *kind, char *err,
	    size_t errlen);
int	rrdcc_stats(struct rrdcc *c, struct rrdcc_stats *s, char *err,
	    size_t errlen);
int	rrdcc_flushall(struct rrdcc *c, char *err, size_t errlen);

#endif
