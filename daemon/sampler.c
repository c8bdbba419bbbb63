#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampler.h"

int
sampler_init(struct sampler *s)
{
	memset(s, 0, sizeof(*s));
	if ((s->buf = calloc(SAMPLER_KEEP, sizeof(*s->buf))) == NULL)
		return -1;
	dist_init(&s->sig);
	dist_init(&s->total);
	return 0;
}

void
sampler_free(struct sampler *s)
{
	free(s->buf);
	dist_free(&s->sig);
	dist_free(&s->total);
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
	x->significant_ops_pending = c->significant_ops_pending;
	x->total_operations_pending = c->total_operations_pending;
	x->in_flight = c->in_flight;
	x->files_with_significant_work = c->files_with_significant_work;
	x->files_with_insignificant_work = c->files_with_insignificant_work;
	x->offered = c->offered;
	x->enqueued = c->enqueued;
	x->dropped = c->dropped;
	x->updates_completed = c->updates_completed;
	x->updates_failed = c->updates_failed;
	x->creates_completed = c->creates_completed;
	x->errors = c->errors;
}

int
sampler_write_csv(const struct sampler *s, const char *path)
{
	FILE *fp = fopen(path, "we");
	int saved;

	if (fp == NULL)
		return -1;
	fprintf(fp, "elapsed_s,significant_ops_pending,"
	    "total_operations_pending,in_flight,files_with_significant_work,"
	    "files_with_insignificant_work,offered,enqueued,dropped,"
	    "updates_completed,updates_failed,creates_completed,errors\n");
	for (size_t i = 0; i < s->n; i++) {
		const struct sample *x = &s->buf[i];

		fprintf(fp, "%.3f,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,"
		    "%llu,%llu,%llu,%llu\n", x->t,
		    (unsigned long long)x->significant_ops_pending,
		    (unsigned long long)x->total_operations_pending,
		    (unsigned long long)x->in_flight,
		    (unsigned long long)x->files_with_significant_work,
		    (unsigned long long)x->files_with_insignificant_work,
		    (unsigned long long)x->offered,
		    (unsigned long long)x->enqueued,
		    (unsigned long long)x->dropped,
		    (unsigned long long)x->updates_completed,
		    (unsigned long long)x->updates_failed,
		    (unsigned long long)x->creates_completed,
		    (unsigned long long)x->errors);
	}
	if (ferror(fp)) {
		saved = errno;
		fclose(fp);
		errno = saved;
		return -1;
	}
	return fclose(fp);
}
