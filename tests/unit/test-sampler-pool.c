/* Unit tests of the software sampler's buffer pool (src/sampler/pool.c):
 * page-aligned buffers that do not overlap, reused once given back, and,
 * after a prefault, taken from the memory it faulted in. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "sampler/pool.h"
#include "tap.h"

#define PAGE 4096UL

static bool resident(const void *p)
{
	unsigned char v = 0;

	return mincore((void *)((uintptr_t)p & ~(PAGE - 1)), PAGE, &v) == 0 && (v & 1);
}

int main(void)
{
	static const size_t sizes[] = { PAGE, 3 * PAGE, 16 * PAGE, 5 * PAGE, SWB_POOL_MAX, PAGE, 64 * PAGE };
	enum { N = sizeof(sizes) / sizeof(sizes[0]) };
	uint8_t *bufs[N], *again, *ahead;
	bool aligned = true, apart = true;
	size_t i, j, ahead_size = 4UL << 20;

	for (i = 0; i < N; i++) {
		bufs[i] = swb_pool_get(sizes[i]);
		if (!bufs[i] || (uintptr_t)bufs[i] % PAGE)
			aligned = false;
		else
			memset(bufs[i], (int)i, sizes[i]);
	}
	CHECK(aligned, "pool: buffers of 4 KB to 1 MB, aligned to 4 KB");
	for (i = 0; i < N && aligned; i++)
		for (j = 0; j < N; j++)
			if (i != j && bufs[i] < bufs[j] + sizes[j] && bufs[j] < bufs[i] + sizes[i])
				apart = false;
	CHECK(aligned && apart, "pool: no two buffers overlap");
	for (i = 0; i < N && aligned; i++)
		if (bufs[i][0] != i || bufs[i][sizes[i] - 1] != i)
			apart = false;
	CHECK(aligned && apart, "pool: each buffer keeps what was written to it");

	swb_pool_put(bufs[1], sizes[1]);
	again = swb_pool_get(4 * PAGE);
	CHECK(again == bufs[1], "pool: a buffer given back serves the next request of its size");
	CHECK(swb_pool_get(2 * SWB_POOL_MAX) == NULL, "pool: no buffer larger than SWB_POOL_MAX");

	swb_pool_prefault(ahead_size);
	ahead = swb_pool_get(16 * PAGE);
	/* memory nobody touched is not resident (the old region's next bytes) */
	CHECK(ahead && resident(ahead), "pool: the next buffer is memory the prefault touched");

	swb_pool_put(again, 4 * PAGE);
	for (i = 0; i < N; i++)
		if (i != 1)
			swb_pool_put(bufs[i], sizes[i]);
	swb_pool_put(ahead, 16 * PAGE);
	return test_done();
}
