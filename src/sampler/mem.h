/* mem.h — a traced process's memory as the planner may read it ahead of the
 * thread (mem.c): only memory that nothing but the thread itself can change
 * while it runs a planned path. */
#ifndef OCREC_SAMPLER_MEM_H
#define OCREC_SAMPLER_MEM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct swb_mem;

struct swb_mem *swb_mem_new(void);
void swb_mem_free(struct swb_mem *m);

/* A window of thread tid begins: mappings are read again when needed and
 * cached pages forgotten. When the process has one thread, its private
 * writable memory is trusted as well as read-only private mappings (the
 * thread's own stores are tracked by the planner; nothing else writes there
 * without a syscall, which ends a plan); with several, only the latter. */
void swb_mem_begin(struct swb_mem *m, pid_t tid);
/* The thread ran: what it may have written is read again. */
void swb_mem_ran(struct swb_mem *m);
/* Whether the process has one thread in this window (read when first asked),
 * and no other process's threads run in its memory. */
bool swb_mem_single_thread(struct swb_mem *m);
/* Whether threads of another process run in this memory meanwhile: those of
 * a vfork() child's parent, other than the one waiting for it. Holding the
 * child's process cannot stop them. */
bool swb_mem_shared(struct swb_mem *m);
/* Its other threads are held stopped for the rest of the window: its
 * private writable memory is trusted as with one thread. */
void swb_mem_others_held(struct swb_mem *m);
/* The thread ran and stored size bytes at addr: the value (little-endian),
 * or unknown (known false); cached copies follow. */
void swb_mem_wrote(struct swb_mem *m, uint64_t addr, unsigned size, uint64_t v, bool known);
/* Forget everything cached (exec, new mappings). */
void swb_mem_invalidate(struct swb_mem *m);
/* Counts the times the maps were forgotten: what was derived from them is stale. */
unsigned swb_mem_maps_gen(const struct swb_mem *m);

/* One mapping of /proc/PID/maps. */
struct swb_area {
	uint64_t start, end;
	bool read, write, exec, shared;
	bool volatile_data;     /* the vDSO's data, which the kernel keeps writing */
};
/* The mapping holding addr (maps read as needed), or NULL. */
const struct swb_area *swb_mem_area(struct swb_mem *m, uint64_t addr);
/* The thread's rseq area, which the kernel writes when the thread is
 * preempted or migrates ([0, 0) when it has none); false when the kernel
 * cannot say (before 5.13). */
bool swb_mem_rseq(struct swb_mem *m, uint64_t *start, uint64_t *end);

/* size (1, 2, 4 or 8) bytes at addr, little-endian; false when the memory
 * is not trusted or cannot be read. */
bool swb_mem_read(struct swb_mem *m, uint64_t addr, unsigned size, uint64_t *v);

#endif
