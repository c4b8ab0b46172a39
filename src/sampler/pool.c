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
#define HUGE (2UL << 20)
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

/* A new region in use, aligned to a huge page, marked as advice says; false
 * when there is no room. */
static bool new_region(int advice)
{
	uint8_t *p = mmap(NULL, REGION + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			  -1, 0);
	uint8_t *start;

	if (p == MAP_FAILED)
		return false;
	start = (uint8_t *)(((uintptr_t)p + HUGE - 1) & ~(HUGE - 1));
	if (start > p)
		munmap(p, start - p);
	munmap(start + REGION, p + HUGE - start);
	madvise(start, REGION, advice);
	pool.next = start;
	pool.end = start + REGION;
	return true;
}

void swb_pool_prefault(size_t size)
{
	size_t off;

	/* without transparent huge pages, a plain page each 2 MB */
	if (!new_region(MADV_HUGEPAGE))
		return;
	for (off = 0; off < size && off < REGION; off += HUGE)
		pool.next[off] = 0;
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
	/* the rest of the region left stays unused; a huge page in a new one
	 * would be zeroed with a window's thread stopped (where THP is "always"
	 * and still on for the tracer) */
	if ((size_t)(pool.end - pool.next) < span && !new_region(MADV_NOHUGEPAGE))
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
