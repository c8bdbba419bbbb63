#include <stdlib.h>
#include <string.h>

#include "dist.h"

void
dist_init(struct dist *d)
{
	memset(d, 0, sizeof(*d));
}

void
dist_free(struct dist *d)
{
	free(d->e);
	memset(d, 0, sizeof(*d));
}

/* Index of the first entry with value >= v (binary search). */
static size_t
lower_bound(const struct dist *d, uint64_t v)
{
	size_t lo = 0, hi = d->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->e[mid].value < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Halve the resolution: merge entries that now share a bucket. */
static void
coarsen(struct dist *d)
{
	size_t out = 0;

	d->shift++;
	for (size_t i = 0; i < d->n; i++) {
		uint64_t v = d->e[i].value >> d->shift << d->shift;

		if (out > 0 && d->e[out - 1].value == v)
			d->e[out - 1].count += d->e[i].count;
		else {
			d->e[out].value = v;
			d->e[out++].count = d->e[i].count;
		}
	}
	d->n = out;
}

void
dist_add(struct dist *d, uint64_t value)
{
	uint64_t key;
	size_t i;

	if (d->count == 0 || value < d->min)
		d->min = value;
	if (d->count == 0 || value > d->max)
		d->max = value;
	d->count++;
	d->sum += value;
	for (;;) {
		key = value >> d->shift << d->shift;
		i = lower_bound(d, key);
		if (i < d->n && d->e[i].value == key) {
			d->e[i].count++;
			return;
		}
		if (d->n < d->cap)
			break;
		if (d->cap < DIST_MAX_DISTINCT) {
			size_t cap = d->cap ? d->cap * 2 : 64;
			struct dist_entry *ne = realloc(d->e, cap * sizeof(*ne));

			if (ne == NULL)
				abort();	/* out of memory */
			d->e = ne;
			d->cap = cap;
			break;
		}
		coarsen(d);	/* full: halve the resolution and retry */
	}
	memmove(&d->e[i + 1], &d->e[i], (d->n - i) * sizeof(d->e[0]));
	d->e[i].value = key;
	d->e[i].count = 1;
	d->n++;
}

double
dist_average(const struct dist *d)
{
	return d->count > 0 ? (double)(d->sum / d->count) : 0;
}

uint64_t
dist_percentile(const struct dist *d, double p)
{
	uint64_t rank, seen = 0;

	if (d->count == 0)
		return 0;
	if (p <= 0)
		return d->min;
	if (p >= 100)
		return d->max;
	/* ceil(p/100 * count), computed without floating-point surprises
	 * for whole percentages. */
	rank = (uint64_t)((p * (double)d->count + 99.999999) / 100.0);
	if (rank < 1)
		rank = 1;
	for (size_t i = 0; i < d->n; i++) {
		seen += d->e[i].count;
		if (seen >= rank)
			return d->e[i].value < d->min ? d->min : d->e[i].value;
	}
	return d->max;
}

static json_object *
entry_json(uint64_t value, uint64_t upper, uint64_t count, int bucketed)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "value", json_object_new_int64((int64_t)value));
	if (bucketed)
		json_object_object_add(o, "upper",
		    json_object_new_int64((int64_t)upper));
	json_object_object_add(o, "count", json_object_new_int64((int64_t)count));
	return o;
}

/* The summary members of dist_to_json, into o. */
static void
summary_json(json_object *o, const struct dist *d)
{
	json_object_object_add(o, "samples",
	    json_object_new_int64((int64_t)d->count));
	json_object_object_add(o, "average",
	    json_object_new_double(dist_average(d)));
	json_object_object_add(o, "min", json_object_new_int64((int64_t)d->min));
	json_object_object_add(o, "max", json_object_new_int64((int64_t)d->max));
	json_object_object_add(o, "p50",
	    json_object_new_int64((int64_t)dist_percentile(d, 50)));
	json_object_object_add(o, "p90",
	    json_object_new_int64((int64_t)dist_percentile(d, 90)));
	json_object_object_add(o, "p99",
	    json_object_new_int64((int64_t)dist_percentile(d, 99)));
}

/* Buckets of width w from lo on, over the entries (which must each fall
 * in one bucket); into h. */
static void
buckets_json(json_object *h, const struct dist *d, uint64_t lo, uint64_t w)
{
	size_t i = 0;

	for (; i < d->n; lo += w) {
		uint64_t hi = lo + w - 1, n = 0;

		while (i < d->n && d->e[i].value <= hi)
			n += d->e[i++].count;
		if (n > 0)
			json_object_array_add(h, entry_json(lo, hi, n, 1));
	}
}

json_object *
dist_to_json(const struct dist *d)
{
	json_object *o = json_object_new_object(), *h = json_object_new_array();

	summary_json(o, d);
	if (d->n <= DIST_REPORT_VALUES && d->shift == 0) {
		for (size_t i = 0; i < d->n; i++)
			json_object_array_add(h, entry_json(d->e[i].value, 0,
			    d->e[i].count, 0));
	} else
		/* Equal-width buckets over [min, max]; the counts still sum
		 * to the number of samples. */
		buckets_json(h, d, d->min, (d->max - d->min) /
		    DIST_REPORT_VALUES + 1);
	json_object_object_add(o, "histogram", h);
	return o;
}

json_object *
dist_to_json_exact(const struct dist *d, size_t max)
{
	json_object *o = json_object_new_object(), *h = json_object_new_array();
	uint64_t w = 1;

	summary_json(o, d);
	if (d->n <= max && d->shift == 0) {
		for (size_t i = 0; i < d->n; i++)
			json_object_array_add(h, entry_json(d->e[i].value, 0,
			    d->e[i].count, 0));
	} else {
		/* A power of ten wide, aligned to its multiples: any coarser
		 * grouping by 1, 2 or 5 times a larger power of ten stays
		 * exact. */
		while (w < UINT64_MAX / 10 && (d->max / w - d->min / w) >= max)
			w *= 10;
		/* Coarsened entries span 2^shift values: a bucket must hold
		 * them whole (10^k is a multiple of 2^shift once k >= shift). */
		while (w < UINT64_MAX / 10 && d->shift < 64 &&
		    w % ((uint64_t)1 << d->shift) != 0)
			w *= 10;
		buckets_json(h, d, d->min / w * w, w);
	}
	json_object_object_add(o, "histogram", h);
	return o;
}
