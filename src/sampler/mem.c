/* mem.c — the memory the planner reads ahead of a traced thread: whole pages
 * copied with process_vm_readv and kept while they cannot change, checked
 * against the process's mappings. Reading /proc/PID/maps costs more than a
 * window's stops here, so it is read again only when the process's sizes in
 * /proc/PID/statm changed (a mapping added, removed or grown); read-only
 * pages are kept across windows as long as the mappings are. (A change of
 * protection alone goes unseen until then: read-only memory that another
 * thread makes writable and rewrites, as JIT compilers do, could be read
 * stale; decoded code has the same limit.)
 *
 * Never trusted: shared mappings (another process may write them), the vDSO
 * data pages (the kernel updates them all the time), and the thread's rseq
 * area (the kernel writes it when the thread is preempted or migrates). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "sampler/mem.h"
#include "util/util.h"

#define PAGE 4096ULL
#define NR_PAGES 32     /* direct-mapped by page number */
#define NO_PAGE UINT64_MAX

struct area {
	uint64_t start, end;
	bool writable;
};

struct page {
	uint64_t addr;          /* NO_PAGE: empty */
	bool writable;
	uint8_t data[PAGE];
};

struct swb_mem {
	pid_t tid;
	bool single_thread;     /* this window */
	bool maps_read;
	uint64_t statm[3];      /* size, text, data before the maps were read (0s: unknown) */
	struct area *areas;     /* private and readable, sorted */
	size_t nr_areas, cap_areas;
	bool rseq_known;
	uint64_t rseq_start, rseq_end;
	struct page pages[NR_PAGES];
};

struct swb_mem *swb_mem_new(void)
{
	struct swb_mem *m = xcalloc(1, sizeof(*m));

	swb_mem_invalidate(m);
	return m;
}

void swb_mem_free(struct swb_mem *m)
{
	if (!m)
		return;
	free(m->areas);
	free(m);
}

void swb_mem_invalidate(struct swb_mem *m)
{
	size_t i;

	for (i = 0; i < NR_PAGES; i++)
		m->pages[i].addr = NO_PAGE;
	m->maps_read = false;
}

/* The process's size, text and data pages (/proc/PID/statm); false when unreadable. */
static bool read_statm(pid_t tid, uint64_t *v)
{
	char path[64];
	uint64_t resident, shared;
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%d/statm", (int)tid);
	if (!(f = fopen(path, "re")))
		return false;
	ok = fscanf(f, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %*u %" SCNu64, &v[0], &resident, &shared,
		    &v[1], &v[2]) == 5;
	fclose(f);
	return ok;
}

void swb_mem_begin(struct swb_mem *m, pid_t tid)
{
	char path[64];
	struct stat st;
	uint64_t statm[3];
	bool known;

	/* procfs counts a process's threads in its task directory's links */
	snprintf(path, sizeof(path), "/proc/%d/task", (int)tid);
	m->single_thread = stat(path, &st) == 0 && st.st_nlink == 3;
	known = read_statm(tid, statm);
	if (!known)
		memset(statm, 0, sizeof(statm));
	if (!known || tid != m->tid || memcmp(statm, m->statm, sizeof(statm))) {
		/* the maps read next (when needed) have these sizes */
		swb_mem_invalidate(m);
		m->tid = tid;
		memcpy(m->statm, statm, sizeof(statm));
		return;
	}
	swb_mem_ran(m);
}

bool swb_mem_single_thread(const struct swb_mem *m)
{
	return m->single_thread;
}

void swb_mem_others_held(struct swb_mem *m)
{
	m->single_thread = true;
}

void swb_mem_ran(struct swb_mem *m)
{
	size_t i;

	for (i = 0; i < NR_PAGES; i++)
		if (m->pages[i].writable)
			m->pages[i].addr = NO_PAGE;
}

void swb_mem_wrote(struct swb_mem *m, uint64_t addr, unsigned size, uint64_t v, bool known)
{
	uint64_t a;

	for (a = addr & ~(PAGE - 1); a < addr + size; a += PAGE) {
		struct page *pg = &m->pages[(a / PAGE) % NR_PAGES];
		unsigned i;

		if (pg->addr != a)
			continue;
		if (!known) {
			pg->addr = NO_PAGE;
			continue;
		}
		for (i = 0; i < size; i++)
			if (addr + i >= a && addr + i < a + PAGE)
				pg->data[addr + i - a] = (uint8_t)(v >> (8 * i));
	}
}

static int add_area(const struct proc_map *pm, void *arg)
{
	struct swb_mem *m = arg;

	if (pm->perms[0] != 'r' || pm->perms[3] != 'p' || !strncmp(pm->name, "[vvar", 5))
		return 0;
	GROW(m->areas, m->cap_areas, m->nr_areas + 1);
	m->areas[m->nr_areas++] = (struct area){ pm->start, pm->end, pm->perms[1] == 'w' };
	return 0;
}

/* The private areas of /proc/PID/maps, and the thread's rseq area; none
 * when they cannot be read. */
static void read_maps(struct swb_mem *m)
{
	struct __ptrace_rseq_configuration rc;

	m->maps_read = true;
	m->nr_areas = 0;
	m->rseq_start = m->rseq_end = 0;
	/* Where the kernel cannot say (before 5.13), the rseq area could be
	 * anywhere in writable memory: none of that is trusted then. */
	m->rseq_known = ptrace(PTRACE_GET_RSEQ_CONFIGURATION, m->tid, (void *)sizeof(rc), &rc) > 0;
	if (m->rseq_known && rc.rseq_abi_pointer) {
		m->rseq_start = rc.rseq_abi_pointer;
		m->rseq_end = rc.rseq_abi_pointer + (rc.rseq_abi_size ? rc.rseq_abi_size : 32);
	}
	if (proc_maps(m->tid, add_area, m) < 0)
		oc_err_clear();
}

/* The trusted area holding [addr, addr+len), or NULL. */
static const struct area *area_of(struct swb_mem *m, uint64_t addr, uint64_t len)
{
	size_t lo = 0, hi;

	hi = m->nr_areas;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->areas[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->nr_areas && m->areas[lo].start <= addr && addr + len <= m->areas[lo].end &&
	    (!m->areas[lo].writable || (m->single_thread && m->rseq_known)))
		return &m->areas[lo];
	return NULL;
}

static const uint8_t *page_of(struct swb_mem *m, uint64_t addr)
{
	uint64_t base = addr & ~(PAGE - 1);
	struct page *pg = &m->pages[(base / PAGE) % NR_PAGES];
	const struct area *a;

	if (pg->addr == base)
		return pg->data;
	if (!(a = area_of(m, base, PAGE)))
		return NULL;
	{
		struct iovec local = { pg->data, PAGE }, remote = { (void *)(uintptr_t)base, PAGE };

		if (process_vm_readv(m->tid, &local, 1, &remote, 1, 0) != (ssize_t)PAGE)
			return NULL;
	}
	pg->addr = base;
	pg->writable = a->writable;
	return pg->data;
}

bool swb_mem_read(struct swb_mem *m, uint64_t addr, unsigned size, uint64_t *v)
{
	uint8_t buf[8];
	unsigned i;

	if (!m || size > 8 || addr + size < addr)
		return false;
	if (!m->maps_read)
		read_maps(m);
	if (addr < m->rseq_end && addr + size > m->rseq_start)
		return false;
	for (i = 0; i < size;) {
		const uint8_t *pg = page_of(m, addr + i);
		unsigned off = (unsigned)((addr + i) & (PAGE - 1)), n = size - i;

		if (!pg)
			return false;
		if (n > PAGE - off)
			n = (unsigned)(PAGE - off);
		memcpy(buf + i, pg + off, n);
		i += n;
	}
	*v = 0;
	for (i = size; i-- > 0;)
		*v = *v << 8 | buf[i];
	return true;
}
