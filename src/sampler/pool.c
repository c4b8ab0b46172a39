/* pool.c — see pool.h. Buffers are rounded up to a power of two and cut in
 * turn from 64 MB regions; a freed buffer goes to its size's free list, its
 * pages still touched. Nothing is unmapped: the emulators of later processes
 * reuse the memory. The tracer's thread alone uses the pool. */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>

#include "sampler/pool.h"
#include "util/util.h"

#define PAGE 4096UL
#define REGION (64UL << 20)
#define CLASSES 9               /* 4 KB .. 1 MB */

static struct {
	uint8_t *next, *end;    /* what is left of the region in use */
	struct {
		void **bufs;
		size_t n, cap;
	} free[CLASSES];
} pool;

static unsigned class_of(size_t size)
{
	unsigned c = 0;

	while ((PAGE << c) < size)
		c++;
	return c;
}

/* A new region in use; false when there is no room. Its pages are not huge
 * ones (the tracer's transparent huge pages may be on): a huge page would
 * be zeroed with a window's thread stopped. */
static bool new_region(void)
{
	uint8_t *p = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return false;
	madvise(p, REGION, MADV_NOHUGEPAGE);
	pool.next = p;
	pool.end = p + REGION;
	return true;
}

void *swb_pool_get(size_t size)
{
	unsigned c = class_of(size);
	size_t span = PAGE << c;
	void *buf;

	if (c >= CLASSES)
		return NULL;
	if (pool.free[c].n)
		return pool.free[c].bufs[--pool.free[c].n];
	/* the rest of the region left stays unused */
	if ((size_t)(pool.end - pool.next) < span && !new_region())
		return NULL;
	buf = pool.next;
	pool.next += span;
	return buf;
}

void swb_pool_put(void *buf, size_t size)
{
	unsigned c = class_of(size);

	if (!buf)
		return;
	if (pool.free[c].n == pool.free[c].cap) {
		pool.free[c].cap = pool.free[c].cap ? 2 * pool.free[c].cap : 16;
		pool.free[c].bufs = xrealloc(pool.free[c].bufs, pool.free[c].cap * sizeof(void *));
	}
	pool.free[c].bufs[pool.free[c].n++] = buf;
}
