/* pool.h — page-aligned buffers for the emulator's copy of a process's
 * memory (pool.c), kept for reuse when freed: in a virtual machine with
 * shadow page tables a first touch of a 4 KB page costs some 15 us (the AMD
 * EPYC VM of docs/sampler.md), and the emulators of later processes take
 * over the pages an ended one touched. */
#ifndef OCREC_SAMPLER_POOL_H
#define OCREC_SAMPLER_POOL_H

#include <stddef.h>

/* A buffer of size bytes (a multiple of 4 KB, at most SWB_POOL_MAX),
 * aligned to 4 KB, contents undefined; NULL when no memory is left. */
void *swb_pool_get(size_t size);
/* Give back a buffer of swb_pool_get(size). */
void swb_pool_put(void *buf, size_t size);

#define SWB_POOL_MAX (1UL << 20)

#endif
