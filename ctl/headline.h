/* The concise views of stressctl: the headline of stats and wait (state,
 * progress, rates, queues, problems, the verdict so far), status with the
 * knobs that differ from the defaults, and the ETA they and watch share.
 * --all gives the full views of statsview.c and replyview.c instead. */
#ifndef STRESSCTL_HEADLINE_H
#define STRESSCTL_HEADLINE_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

/* stats and wait (stop's final stats too): at most ~15 lines. */
void	headline_stats(json_object *result);
/* A sweep's record (schema stressd-sweep), as wait and stop at its end
 * answer: where it is, in a line or two. */
bool	headline_is_sweep(json_object *result);
void	headline_sweep(json_object *result);
/* status, its params cut to the knobs that differ from the defaults. */
void	headline_status(json_object *result);

/*
 * Seconds until a run is done (updates done: completed, failed, dropped
 * or discarded), < 0 when unknown.  A paced run (update_time > 0)
 * generates at its own pace, so what is left to generate takes
 * (max - generated) * update_time / max; the backlog (what is queued,
 * in the unit of rate) is added at rate, the pace of the writers now.
 * A paced run behind its schedule (generated < max * elapsed /
 * update_time) takes the larger of that and (max - done) / rate.
 * A flat-out run: what is left at the pace so far,
 * (max - done) / (done / elapsed).
 */
double	headline_eta(double max, double generated, double done,
	    double elapsed, double update_time, double backlog, double rate);
/* An ETA as "m:ss" or "h:mm:ss"; "?" when unknown (< 0). */
void	headline_eta_text(double eta, char *buf, size_t len);

#endif
