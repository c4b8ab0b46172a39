/* pool.h — page-aligned buffers for the emulator's copy of a process's
 * memory (pool.c), kept for reuse when freed. In a virtual machine with
 * shadow page tables a first touch of a 4 KB page costs some 15 us (the AMD
 * EPYC VM of docs/sampler.md), and a window that reads 16 new pages of code
 * would spend more on faults than on emulating: the buffers come from memory
 * faulted in ahead, in huge pages where the kernel gives them. */
#ifndef OCREC_SAMPLER_POOL_H
#define OCREC_SAMPLER_POOL_H

#include <stddef.h>

/* A buffer of size bytes (a multiple of 4 KB, at most SWB_POOL_MAX),
 * aligned to 4 KB, contents undefined; NULL when no memory is left. */
void *swb_pool_get(size_t size);
/* Give back a buffer of swb_pool_get(size). */
void swb_pool_put(void *buf, size_t size);
/* Fault in size bytes marked MADV_HUGEPAGE (some 0.1 ms a MB, against 4 ms
 * a MB page by page), which the next buffers come from: before the
 * tracer's transparent huge pages are turned off. */
void swb_pool_prefault(size_t size);

#define SWB_POOL_MAX (1UL << 20)

#endif
