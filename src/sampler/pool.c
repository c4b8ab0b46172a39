/* pool.c — see pool.h. Buffers are rounded up to a power of two and cut in
 * turn from 64 MB regions; a freed buffer goes to its size's free list, its
 * pages still touched. Nothing is unmapped: the emulators of later processes
 * reuse the memory.
 *
 * The tracer's thread alone gets and puts buffers. The region faulted in
 * ahead is made by another thread, which hands it over through `ahead`: the
 * tracer's thread moves to it at its next swb_pool_get(). */
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
	uint8_t *ahead;         /* atomic: the region faulted in ahead, until taken */
	bool took_ahead;
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

/* REGION bytes aligned to a huge page; NULL when there is no room. */
static uint8_t *new_region(void)
{
	uint8_t *p = mmap(NULL, REGION + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			  -1, 0);
	uint8_t *start;

	if (p == MAP_FAILED)
		return NULL;
	start = (uint8_t *)(((uintptr_t)p + HUGE - 1) & ~(HUGE - 1));
	if (start > p)
		munmap(p, start - p);
	munmap(start + REGION, p + HUGE - start);
	return start;
}

void swb_pool_prefault(size_t size)
{
	uint8_t *start = new_region();
	size_t off;

	if (!start)
		return;
	/* without transparent huge pages, a plain page each 2 MB */
	madvise(start, REGION, MADV_HUGEPAGE);
	for (off = 0; off < size && off < REGION; off += HUGE)
		start[off] = 0;
	__atomic_store_n(&pool.ahead, start, __ATOMIC_RELEASE);
}

void *swb_pool_get(size_t size)
{
	unsigned c = class_of(size);
	size_t span = PAGE << c;
	uint8_t *start;
	void *buf;

	if (c >= CLASSES)
		return NULL;
	if (pool.free[c].n)
		return pool.free[c].bufs[--pool.free[c].n];
	/* the rest of the region left stays unused */
	if (!pool.took_ahead && (start = __atomic_load_n(&pool.ahead, __ATOMIC_ACQUIRE))) {
		pool.took_ahead = true;
		pool.next = start;
		pool.end = start + REGION;
	}
	if ((size_t)(pool.end - pool.next) < span) {
		if (!(start = new_region()))
			return NULL;
		/* a huge page here would be zeroed with a window's thread stopped
		 * (where THP is "always" and still on for the tracer) */
		madvise(start, REGION, MADV_NOHUGEPAGE);
		pool.next = start;
		pool.end = start + REGION;
	}
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
