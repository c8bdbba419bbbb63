/* The queue's value chunks: cut from slabs, recycled per size class. */
#include <stdlib.h>
#include <string.h>

#include "queuepool.h"

/* Size class of a chunk of cap values: 0 for a zero run, then the caps
 * 6, 14, 30, ... 510 (16 + 8 * cap = 64 .. 4096 bytes). */
static unsigned
seg_class(uint32_t cap)
{
	unsigned c = 0;
	uint32_t bytes = 16 + 8 * cap;

	if (cap == 0)
		return 0;
	while ((32u << ++c) < bytes)
		;
	return c;
}

static size_t
class_bytes(unsigned c)
{
	return c == 0 ? sizeof(struct queue_seg) : (size_t)32 << c;
}

size_t
queuepool_chunk_bytes(uint32_t cap)
{
	return class_bytes(seg_class(cap));
}

struct queue_seg *
queuepool_get(struct queuepool *p, uint32_t cap)
{
	unsigned c = seg_class(cap);
	size_t bytes = class_bytes(c);
	struct queue_seg *s;

	if ((s = p->free[c]) != NULL)
		p->free[c] = s->next;
	else {
		if (p->left[c] < bytes) {
			if (p->nslabs == p->capslabs) {
				size_t n = p->capslabs ? p->capslabs * 2 : 64;
				void **ns = realloc(p->slabs, n * sizeof(*ns));

				if (ns == NULL)
					abort();	/* out of memory */
				p->slabs = ns;
				p->capslabs = n;
			}
			if ((p->bump[c] = malloc(QUEUEPOOL_SLAB_BYTES)) == NULL)
				abort();
			p->slabs[p->nslabs++] = p->bump[c];
			p->left[c] = QUEUEPOOL_SLAB_BYTES;
		}
		s = (struct queue_seg *)(void *)p->bump[c];
		p->bump[c] += bytes;
		p->left[c] -= bytes;
	}
	s->next = NULL;
	s->n = 0;
	s->cap = cap;
	p->used += bytes;
	if (p->used > p->peak)
		p->peak = p->used;
	return s;
}

void
queuepool_put(struct queuepool *p, struct queue_seg *s)
{
	while (s != NULL) {
		struct queue_seg *next = s->next;
		unsigned c = seg_class(s->cap);

		s->next = p->free[c];
		p->free[c] = s;
		p->used -= class_bytes(c);
		s = next;
	}
}

void
queuepool_destroy(struct queuepool *p)
{
	for (size_t i = 0; i < p->nslabs; i++)
		free(p->slabs[i]);
	free(p->slabs);
	memset(p, 0, sizeof(*p));
}

