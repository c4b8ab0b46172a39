/* Unit tests of the software sampler's buffer pool (src/sampler/pool.c):
 * page-aligned buffers that do not overlap, reused once given back. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sampler/pool.h"
#include "tap.h"

#define PAGE 4096UL

int main(void)
{
	static const size_t sizes[] = { PAGE, 3 * PAGE, 16 * PAGE, 5 * PAGE, SWB_POOL_MAX, PAGE, 64 * PAGE };
	enum { N = sizeof(sizes) / sizeof(sizes[0]) };
	uint8_t *bufs[N], *again;
	bool aligned = true, apart = true;
	size_t i, j;

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

	swb_pool_put(again, 4 * PAGE);
	for (i = 0; i < N; i++)
		if (i != 1)
			swb_pool_put(bufs[i], sizes[i]);
	return test_done();
}
