/* The Prometheus exposition of the current or last run (the body of GET
 * /metrics; prom.c serves it): its info, every counter of the stats
 * table, errors by kind, the rrdcached target's STATS and the latency
 * histograms. */
#ifndef STRESSD_EXPOSITION_H
#define STRESSD_EXPOSITION_H

#include <event2/buffer.h>

/* A prom_render_fn; arg is unused. */
void	exposition_render(struct evbuffer *out, void *arg);

#endif
