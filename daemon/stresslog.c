#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stresslog.h"

struct stresslog {
	pthread_mutex_t		mu;
	FILE			*fp;
	char			*path;
	double			run_start;
	struct queue_counters	prev;
	/* each block's significantOpsPending, under sig_mu alone: a reader
	 * (the event loop) never waits behind mu's writes and fflush */
	pthread_mutex_t		sig_mu;
	struct dist		sig;
	const struct stats_counter *sig_counter;
};

/* One header line.  '=' in a value is written %3D (and '%' %25): a value
 * such as a dir holding "significantOpsPending=999999" would otherwise
 * pass for a counter to the unanchored greps scripts run on the log. */
static void
header_line(FILE *fp, const char *key, const char *value)
{
	fprintf(fp, "%s = ", key);
	for (const char *c = value; *c != '\0'; c++) {
		if (*c == '=')
			fputs("%3D", fp);
		else if (*c == '%')
			fputs("%25", fp);
		else
			fputc(*c, fp);
	}
	fputc('\n', fp);
}

struct stresslog *
stresslog_open(const char *path, unsigned run_id,
    const struct stress_params *p, double run_start)
{
	struct stresslog *sl = calloc(1, sizeof(*sl));
	json_object *params = NULL;

	if (sl == NULL)
		return NULL;
	if ((sl->fp = fopen(path, "we")) == NULL ||
	    (sl->path = strdup(path)) == NULL) {
		if (sl->fp != NULL)
			fclose(sl->fp);
		free(sl);
		return NULL;
	}
	pthread_mutex_init(&sl->mu, NULL);
	pthread_mutex_init(&sl->sig_mu, NULL);
	dist_init(&sl->sig);
	for (size_t i = 0; i < stats_ncounters; i++)
		if (stats_counters[i].log_name != NULL &&
		    strcmp(stats_counters[i].log_name,
		    "significantOpsPending") == 0)
			sl->sig_counter = &stats_counters[i];
	sl->run_start = run_start;
	sl->prev.taken_at = run_start;
	fprintf(sl->fp, "# stressd run %u\n", run_id);
	params = knobs_to_json(p);
	json_object_object_foreach(params, key, val) {
		if (json_object_get_type(val) == json_type_array) {
			for (size_t i = 0; i < json_object_array_length(val); i++)
				header_line(sl->fp, key, json_object_get_string(
				    json_object_array_get_idx(val, i)));
		} else
			header_line(sl->fp, key, json_object_get_string(val));
	}
	json_object_put(params);
	fflush(sl->fp);
	return sl;
}

/* QS line 1 or 2: the counter table's rows of that line, in table order,
 * each after its average rate when it has one; seconds: since the run
 * began. */
static void
qs_counters(FILE *fp, int line, const struct queue_counters *c,
    double seconds)
{
	const char *sep = line == 1 ? "" : ", ";

	fputs("QS:\t", fp);
	for (size_t i = 0; i < stats_ncounters; i++) {
		const struct stats_counter *k = &stats_counters[i];
		uint64_t v;

		if (k->log_line != line)
			continue;
		v = stats_value(k, c);
		if (k->log_rate != NULL)
			fprintf(fp, "%s%s=%.2f", sep, k->log_rate,
			    seconds > 0 ? v / seconds : 0);
		fprintf(fp, "%s%s=%llu", k->log_rate != NULL ? ", " : sep,
		    k->log_name, (unsigned long long)v);
		sep = ", ";
	}
	fputc('\n', fp);
}

void
stresslog_block(struct stresslog *sl, struct queue *q)
{
	struct queue_counters snap, *c = &snap;
	struct stats_rates cur, all;
	double since_first, total;

	pthread_mutex_lock(&sl->mu);
	queue_snapshot(q, c);
	stats_rates_window(&sl->prev, c, &cur);
	stats_rates_overall(c, c->taken_at, &all);
	since_first = c->first_dequeue > 0 ? c->taken_at - c->first_dequeue : 0;
	total = c->taken_at - sl->run_start;
	fprintf(sl->fp, "%llu samples stored, %.2f updates/sec avg since first "
	    "update %.2f updates/sec avg for all time:\n",
	    (unsigned long long)c->updates_completed,
	    since_first > 0 ? c->updates_completed / since_first : 0,
	    total > 0 ? c->updates_completed / total : 0);
	qs_counters(sl->fp, 1, c, total);
	qs_counters(sl->fp, 2, c, total);
	if (sl->sig_counter != NULL) {
		pthread_mutex_lock(&sl->sig_mu);
		dist_add(&sl->sig, stats_value(sl->sig_counter, c));
		pthread_mutex_unlock(&sl->sig_mu);
	}
	fprintf(sl->fp, "QS:\t, currentEnqueueRates=(%.2f/%.2f/%.2f), "
	    "currentDequeueRate=(%.2f/%.2f/%.2f), currentItemDequeRate=%.2f, "
	    "currentOpsPerUpdate=%.2f, currentPrcntSignificant=%.2f%%, "
	    "elapsedTime=%.3f\n",
	    cur.enq_sig, cur.enq_insig, cur.enq_total, cur.deq_sig,
	    cur.deq_insig, cur.deq_total, cur.items_per_s, cur.ops_per_update,
	    cur.pct_significant, cur.seconds);
	fprintf(sl->fp, "QS:\t, overallEnqueueRate=(%.2f/%.2f/%.2f), "
	    "overallDequeueRate=(%.2f/%.2f/%.2f), overallItemDequeRate=%.2f, "
	    "overallOpsPerUpdate=%.2f, overallPrcntSignificant=%.2f%%, "
	    "totalElapsedTime=%.3f\n",
	    all.enq_sig, all.enq_insig, all.enq_total, all.deq_sig,
	    all.deq_insig, all.deq_total, all.items_per_s, all.ops_per_update,
	    all.pct_significant, all.seconds);
	fflush(sl->fp);
	sl->prev = *c;
	pthread_mutex_unlock(&sl->mu);
}

void
stresslog_line(struct stresslog *sl, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&sl->mu);
	va_start(ap, fmt);
	vfprintf(sl->fp, fmt, ap);
	va_end(ap);
	fputc('\n', sl->fp);
	fflush(sl->fp);
	pthread_mutex_unlock(&sl->mu);
}

int
stresslog_reopen(struct stresslog *sl)
{
	FILE *fp;

	/* Open before taking the lock and switch under it: every line is
	 * whole in the old file or the new one, and a failed open keeps the
	 * old file in use. */
	if ((fp = fopen(sl->path, "ae")) == NULL)
		return -1;
	pthread_mutex_lock(&sl->mu);
	fclose(sl->fp);
	sl->fp = fp;
	pthread_mutex_unlock(&sl->mu);
	return 0;
}

int
stresslog_sig_copy(struct stresslog *sl, struct dist *out)
{
	int rc = 0;

	pthread_mutex_lock(&sl->sig_mu);
	*out = sl->sig;
	out->cap = out->n;
	if ((out->e = malloc((out->n + 1) * sizeof(*out->e))) == NULL) {
		dist_init(out);
		rc = -1;
	} else if (out->n > 0)	/* no entries yet: e is NULL */
		memcpy(out->e, sl->sig.e, out->n * sizeof(*out->e));
	pthread_mutex_unlock(&sl->sig_mu);
	return rc;
}

void
stresslog_close(struct stresslog *sl, struct dist *keep)
{
	if (sl == NULL)
		return;
	fclose(sl->fp);
	free(sl->path);
	if (keep != NULL) {
		dist_free(keep);
		*keep = sl->sig;
	} else
		dist_free(&sl->sig);
	pthread_mutex_destroy(&sl->mu);
	pthread_mutex_destroy(&sl->sig_mu);
	free(sl);
}
