#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampler.h"
#include "util.h"

int
sampler_init(struct sampler *s)
{
	memset(s, 0, sizeof(*s));
	if ((s->buf = calloc(SAMPLER_KEEP, sizeof(*s->buf))) == NULL)
		return -1;
	s->ncols = stats_csv_columns(s->cols);
	dist_init(&s->sig);
	dist_init(&s->total);
	dist_init(&s->rrdc_queue);
	return 0;
}

void
sampler_free(struct sampler *s)
{
	free(s->buf);
	dist_free(&s->sig);
	dist_free(&s->total);
	dist_free(&s->rrdc_queue);
	memset(s, 0, sizeof(*s));
}

/* Keep every other sample of the older half. */
static void
thin(struct sampler *s)
{
	size_t half = s->n / 2, out = 0;

	for (size_t i = 0; i < half; i += 2)
		s->buf[out++] = s->buf[i];
	memmove(&s->buf[out], &s->buf[half], (s->n - half) * sizeof(*s->buf));
	s->n = out + (s->n - half);
	s->thinned++;
}

void
sampler_add(struct sampler *s, double t, const struct queue_counters *c)
{
	struct sample *x;

	dist_add(&s->sig, c->significant_ops_pending);
	dist_add(&s->total, c->total_operations_pending);
	s->taken++;
	if (s->n == SAMPLER_KEEP)
		thin(s);
	x = &s->buf[s->n++];
	x->t = t;
	for (size_t i = 0; i < s->ncols; i++)
		x->v[i] = stats_value(s->cols[i], c);
	x->rrdc_queue_length = x->rrdc_updates_received =
	    x->rrdc_data_sets_written = UINT64_MAX;
}

void
sampler_add_rrdcached(struct sampler *s, const struct rrdcc_stats *st)
{
	struct sample *x;

	s->has_rrdcached = true;
	if (st == NULL) {
		s->rrdc_missed++;
		return;
	}
	dist_add(&s->rrdc_queue, st->queue_length);
	if (s->n == 0)
		return;
	x = &s->buf[s->n - 1];
	x->rrdc_queue_length = st->queue_length;
	x->rrdc_updates_received = st->updates_received;
	x->rrdc_data_sets_written = st->data_sets_written;
}

/* ",N", or "," for a sample without rrdcached's STATS. */
static void
put_opt(FILE *fp, uint64_t v)
{
	if (v == UINT64_MAX)
		fputc(',', fp);
	else
		fprintf(fp, ",%llu", (unsigned long long)v);
}

int
sampler_write_csv(const struct sampler *s, const char *path)
{
	FILE *fp = util_tmp_open(path);

	if (fp == NULL)
		return -1;
	fputs("elapsed_s", fp);
	for (size_t c = 0; c < s->ncols; c++)
		fprintf(fp, ",%s", s->cols[c]->name);
	fprintf(fp, "%s\n", s->has_rrdcached ? ",rrdcached_queue_length,"
	    "rrdcached_updates_received,rrdcached_data_sets_written" : "");
	for (size_t i = 0; i < s->n; i++) {
		const struct sample *x = &s->buf[i];

		fprintf(fp, "%.3f", x->t);
		for (size_t c = 0; c < s->ncols; c++)
			fprintf(fp, ",%llu", (unsigned long long)x->v[c]);
		if (s->has_rrdcached) {
			put_opt(fp, x->rrdc_queue_length);
			put_opt(fp, x->rrdc_updates_received);
			put_opt(fp, x->rrdc_data_sets_written);
		}
		fputc('\n', fp);
	}
	return util_tmp_commit(fp, path);
}
