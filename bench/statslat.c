/*
 * statslat: round-trip times of `stats` requests on stressd's control
 * socket, from one connection, so that neither process start-up nor
 * connection set-up is measured.
 *
 * It waits (untimed) until run --run-id is running, then sends R stats
 * requests one after the other, timing each from the write of the request
 * to the newline that ends its reply, and prints one JSON line with the
 * percentiles in milliseconds and the run state each reply reported:
 * a figure "under load" holds only if no reply came after the run ended.
 * Exit status: 0, 3 when the run ended before the last reply (raise its
 * max_updates), 1 on an error, 2 on a usage error.
 */
#include <sys/socket.h>
#include <sys/un.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "util.h"

#define LAT_BUF		(256 * 1024)	/* longer than any stats reply */

static const char lat_request[] = "{\"cmd\":\"stats\"}\n";

/* One connection and the bytes of it read past the last line. */
struct lat_conn {
	int	 fd;
	char	*buf;
	size_t	 len;
};

/* What a reply said about the run. */
struct lat_reply {
	char		state[32];
	int64_t		run_id;
	uint64_t	completed;
	uint64_t	generated;
};

static int
lat_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least p% at or below it. */
static double
lat_pct(const double *sorted, size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100.0 * (double)n);

	return sorted[rank == 0 ? 0 : rank - 1];
}

/* Send one stats request and read its reply line into c->buf; returns its
 * length (the newline replaced by NUL), or -1. */
static ssize_t
lat_roundtrip(struct lat_conn *c)
{
	size_t off = 0;
	char *nl;

	if (write(c->fd, lat_request, sizeof(lat_request) - 1) !=
	    (ssize_t)sizeof(lat_request) - 1)
		return -1;
	/* Replies never overlap: one request is outstanding at a time. */
	c->len = 0;
	for (;;) {
		ssize_t n = read(c->fd, c->buf + c->len, LAT_BUF - 1 - c->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		c->len += (size_t)n;
		c->buf[c->len] = '\0';
		if ((nl = memchr(c->buf + off, '\n', c->len - off)) != NULL)
			break;
		off = c->len;
		if (c->len == LAT_BUF - 1)
			return -1;
	}
	*nl = '\0';
	return nl - c->buf;
}

static int
lat_parse(const char *line, struct lat_reply *r)
{
	struct json_object *o = json_tokener_parse(line), *res, *v;
	int rv = -1;

	memset(r, 0, sizeof(*r));
	r->run_id = -1;
	if (o == NULL || !json_object_object_get_ex(o, "ok", &v) ||
	    !json_object_get_boolean(v) ||
	    !json_object_object_get_ex(o, "result", &res))
		goto out;
	if (json_object_object_get_ex(res, "state", &v))
		snprintf(r->state, sizeof(r->state), "%s",
		    json_object_get_string(v));
	if (json_object_object_get_ex(res, "run_id", &v))
		r->run_id = json_object_get_int64(v);
	if (json_object_object_get_ex(res, "updates_completed", &v))
		r->completed = (uint64_t)json_object_get_int64(v);
	if (json_object_object_get_ex(res, "generated", &v))
		r->generated = (uint64_t)json_object_get_int64(v);
	rv = 0;
out:
	json_object_put(o);
	return rv;
}

static bool
lat_active(const char *state)
{
	return strcmp(state, "running") == 0 ||
	    strcmp(state, "draining") == 0;
}

static void
lat_usage(FILE *fp)
{
	fprintf(fp, "usage: statslat --socket PATH --run-id ID "
	    "[--requests 1000] [--timeout 60]\n");
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket",	required_argument, NULL, 's' },
		{ "run-id",	required_argument, NULL, 'i' },
		{ "requests",	required_argument, NULL, 'n' },
		{ "timeout",	required_argument, NULL, 't' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct sockaddr_un sun;
	struct lat_conn c = { -1, NULL, 0 };
	struct lat_reply r, first = { 0 };
	const char *sock = NULL;
	double *ms = NULL, timeout = 60, t0, sum = 0;
	long run_id = -1, nreq = 1000;
	unsigned running = 0, draining = 0, ended = 0;
	int ch, status = 1;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 's': sock = optarg; break;
		case 'i': run_id = strtol(optarg, NULL, 10); break;
		case 'n': nreq = strtol(optarg, NULL, 10); break;
		case 't': timeout = strtod(optarg, NULL); break;
		case 'h': lat_usage(stdout); return 0;
		default: lat_usage(stderr); return 2;
		}
	}
	if (sock == NULL || run_id < 1 || nreq < 1 || nreq > 10000000 ||
	    !(timeout > 0) || optind < argc ||
	    strlen(sock) >= sizeof(sun.sun_path)) {
		lat_usage(stderr);
		return 2;
	}
	if ((ms = calloc((size_t)nreq, sizeof(*ms))) == NULL ||
	    (c.buf = malloc(LAT_BUF)) == NULL) {
		fprintf(stderr, "statslat: out of memory\n");
		goto out;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, sock);
	if ((c.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    connect(c.fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		fprintf(stderr, "statslat: connect %s: %s\n", sock,
		    strerror(errno));
		goto out;
	}

	/* Untimed: wait for the run's load (creates come before it). */
	t0 = util_now();
	for (;;) {
		if (lat_roundtrip(&c) == -1 || lat_parse(c.buf, &r) == -1) {
			fprintf(stderr, "statslat: bad stats reply: %.200s\n",
			    c.buf);
			goto out;
		}
		if (r.run_id == run_id && lat_active(r.state) &&
		    r.generated > 0)
			break;
		if (r.run_id == run_id && !lat_active(r.state) &&
		    strcmp(r.state, "creating") != 0) {
			fprintf(stderr, "statslat: run %ld is %s before the "
			    "first request\n", run_id, r.state);
			status = 3;
			goto out;
		}
		if (util_now() - t0 > timeout) {
			fprintf(stderr, "statslat: run %ld not running after "
			    "%.0f s (state %s of run %" PRId64 ")\n", run_id,
			    timeout, r.state, r.run_id);
			goto out;
		}
		usleep(1000);
	}

	for (long i = 0; i < nreq; i++) {
		double a = util_now(), b;

		if (lat_roundtrip(&c) == -1) {
			fprintf(stderr, "statslat: request %ld: no reply\n",
			    i + 1);
			goto out;
		}
		b = util_now();
		ms[i] = (b - a) * 1e3;
		sum += ms[i];
		/* Parsing is the client's work: outside the timed part. */
		if (lat_parse(c.buf, &r) == -1) {
			fprintf(stderr, "statslat: bad stats reply: %.200s\n",
			    c.buf);
			goto out;
		}
		if (i == 0)
			first = r;
		if (strcmp(r.state, "running") == 0)
			running++;
		else if (strcmp(r.state, "draining") == 0)
			draining++;
		else
			ended++;
	}
	qsort(ms, (size_t)nreq, sizeof(*ms), lat_cmp);
	printf("{\"requests\":%ld,\"p50_ms\":%.4f,\"p90_ms\":%.4f,"
	    "\"p99_ms\":%.4f,\"max_ms\":%.4f,\"mean_ms\":%.4f,"
	    "\"replies_running\":%u,\"replies_draining\":%u,"
	    "\"replies_after_end\":%u,\"completed_at_first\":%" PRIu64
	    ",\"completed_at_last\":%" PRIu64 "}\n", nreq,
	    lat_pct(ms, (size_t)nreq, 50), lat_pct(ms, (size_t)nreq, 90),
	    lat_pct(ms, (size_t)nreq, 99), ms[nreq - 1], sum / (double)nreq,
	    running, draining, ended, first.completed, r.completed);
	status = ended > 0 ? 3 : 0;
out:
	if (c.fd != -1)
		close(c.fd);
	free(c.buf);
	free(ms);
	return status;
}
