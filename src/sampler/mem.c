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
#include <linux/kcmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <fcntl.h>
#include <unistd.h>

#include "sampler/mem.h"
#include "util/util.h"

#define PAGE 4096ULL
#define NR_PAGES 32     /* direct-mapped by page number */
#define NO_PAGE UINT64_MAX


struct page {
	uint64_t addr;          /* NO_PAGE: empty */
	bool writable;
	uint8_t data[PAGE];
};

struct swb_mem {
	pid_t tid;
	bool threads_known, single_thread;      /* this window's, read when needed */
	bool sharing_known, shared;
	bool parent_known;      /* memory_parent, checked again with the maps (an exec ends sharing) */
	long memory_parent;     /* the parent process whose memory this is (a vfork child's), or 0 */
	int statm_fd;
	bool maps_read;
	unsigned maps_gen;      /* times the maps were forgotten */
	uint64_t statm[3];      /* size, text, data before the maps were read (0s: unknown) */
	struct swb_area *areas; /* every mapping, sorted */
	size_t nr_areas, cap_areas;
	bool rseq_read, rseq_known;
	uint64_t rseq_start, rseq_end;
	struct page pages[NR_PAGES];
};

struct swb_mem *swb_mem_new(void)
{
	struct swb_mem *m = xcalloc(1, sizeof(*m));

	m->statm_fd = -1;
	swb_mem_invalidate(m);
	return m;
}

void swb_mem_free(struct swb_mem *m)
{
	if (!m)
		return;
	if (m->statm_fd >= 0)
		close(m->statm_fd);
	free(m->areas);
	free(m);
}

void swb_mem_invalidate(struct swb_mem *m)
{
	size_t i;

	for (i = 0; i < NR_PAGES; i++)
		m->pages[i].addr = NO_PAGE;
	m->maps_read = false;
	m->maps_gen++;
	m->parent_known = false;
}

unsigned swb_mem_maps_gen(const struct swb_mem *m)
{
	return m->maps_gen;
}

/* The process's size, text and data pages (/proc/PID/statm); false when
 * unreadable. The file stays open (a window's cheapest check): any thread's
 * shows the process's, until that thread is gone. */
static bool read_statm(struct swb_mem *m, pid_t tid, uint64_t *v)
{
	char buf[128], *p = buf, *end;
	uint64_t f[6];
	ssize_t n = -1;
	int tries, i;

	for (tries = 0; tries < 2 && n <= 0; tries++) {
		if (m->statm_fd < 0 || tries) {
			char path[64];

			if (m->statm_fd >= 0)
				close(m->statm_fd);
			snprintf(path, sizeof(path), "/proc/%d/statm", (int)tid);
			m->statm_fd = open(path, O_RDONLY | O_CLOEXEC);
		}
		if (m->statm_fd >= 0)
			n = pread(m->statm_fd, buf, sizeof(buf) - 1, 0);
	}
	if (n <= 0)
		return false;
	buf[n] = 0;
	/* size resident shared text lib data: strtoull, at each window, where
	 * sscanf took 3,900 instructions */
	for (i = 0; i < 6; i++, p = end) {
		f[i] = strtoull(p, &end, 10);
		if (end == p)
			return false;
	}
	v[0] = f[0];
	v[1] = f[3];
	v[2] = f[5];
	return true;
}

void swb_mem_begin(struct swb_mem *m, pid_t tid)
{
	uint64_t statm[3];
	bool known;

	m->threads_known = m->sharing_known = false;
	known = read_statm(m, tid, statm);
	if (!known)
		memset(statm, 0, sizeof(statm));
	if (tid != m->tid) {
		/* another thread of the process: its own rseq area */
		m->tid = tid;
		m->rseq_read = false;
	}
	if (!known || memcmp(statm, m->statm, sizeof(statm))) {
		/* the maps read next (when needed) have these sizes */
		swb_mem_invalidate(m);
		memcpy(m->statm, statm, sizeof(statm));
		return;
	}
	swb_mem_ran(m);
}

bool swb_mem_single_thread(struct swb_mem *m)
{
	if (!m->threads_known) {
		char path[64];
		struct stat st;

		/* procfs counts a process's threads in its task directory's links */
		snprintf(path, sizeof(path), "/proc/%d/task", (int)m->tid);
		m->single_thread = stat(path, &st) == 0 && st.st_nlink == 3 && !swb_mem_shared(m);
		m->threads_known = true;
	}
	return m->single_thread;
}

/* A vfork() child (posix_spawn() makes one too) runs in its parent's memory
 * until it execs; the parent's thread that made it waits, its other threads
 * run on. kcmp(2) tells whether the two share their memory (where it cannot,
 * the child is taken to be alone, as before kcmp was asked); asked once for
 * the process's maps (23 us here, a window's budget), the parent's threads
 * counted each window. */
bool swb_mem_shared(struct swb_mem *m)
{
	if (!m->sharing_known) {
		char path[64];
		struct stat st;

		if (!m->parent_known) {
			long tgid, ppid;

			proc_ids((int)m->tid, &tgid, &ppid);
			m->memory_parent = ppid > 0 && syscall(SYS_kcmp, (pid_t)m->tid, (pid_t)ppid, KCMP_VM, 0, 0) == 0
					   ? ppid : 0;
			m->parent_known = true;
		}
		snprintf(path, sizeof(path), "/proc/%ld/task", m->memory_parent);
		m->shared = m->memory_parent && stat(path, &st) == 0 && st.st_nlink > 3;
		m->sharing_known = true;
	}
	return m->shared;
}

void swb_mem_others_held(struct swb_mem *m)
{
	m->single_thread = m->threads_known = true;
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

/* The thread's rseq area. */
static void read_rseq(struct swb_mem *m)
{
	/* zeroed: valgrind does not know this request fills it */
	struct __ptrace_rseq_configuration rc = { 0 };

	m->rseq_read = true;
	m->rseq_start = m->rseq_end = 0;
	/* Where the kernel cannot say (before 5.13), the rseq area could be
	 * anywhere in writable memory: none of that is trusted then. */
	m->rseq_known = ptrace(PTRACE_GET_RSEQ_CONFIGURATION, m->tid, (void *)sizeof(rc), &rc) > 0;
	if (m->rseq_known && rc.rseq_abi_pointer) {
		m->rseq_start = rc.rseq_abi_pointer;
		m->rseq_end = rc.rseq_abi_pointer + (rc.rseq_abi_size ? rc.rseq_abi_size : 32);
	}
}

static int add_area(const struct proc_map *pm, void *arg)
{
	struct swb_mem *m = arg;

	GROW(m->areas, m->cap_areas, m->nr_areas + 1);
	m->areas[m->nr_areas++] = (struct swb_area){
		pm->start, pm->end, pm->perms[0] == 'r', pm->perms[1] == 'w', pm->perms[2] == 'x', pm->perms[3] != 'p',
		/* the kernel updates the vDSO's data pages all the time */
		!strncmp(pm->name, "[vvar", 5)
	};
	return 0;
}

/* The areas of /proc/PID/maps; none when they cannot be read. */
static void read_maps(struct swb_mem *m)
{
	m->maps_read = true;
	m->nr_areas = 0;
	if (proc_maps(m->tid, add_area, m) < 0)
		oc_err_clear();
}

const struct swb_area *swb_mem_area(struct swb_mem *m, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!m->maps_read)
		read_maps(m);
	hi = m->nr_areas;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->areas[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nr_areas && m->areas[lo].start <= addr ? &m->areas[lo] : NULL;
}

bool swb_mem_rseq(struct swb_mem *m, uint64_t *start, uint64_t *end)
{
	if (!m->rseq_read)
		read_rseq(m);
	*start = m->rseq_start;
	*end = m->rseq_end;
	return m->rseq_known;
}

/* The trusted area holding [addr, addr+len), or NULL. */
static const struct swb_area *area_of(struct swb_mem *m, uint64_t addr, uint64_t len)
{
	const struct swb_area *a = swb_mem_area(m, addr);

	if (!m->rseq_read)
		read_rseq(m);
	if (a && addr + len <= a->end && a->read && !a->shared && !a->volatile_data &&
	    (!a->write || (swb_mem_single_thread(m) && m->rseq_known)))
		return a;
	return NULL;
}

static const uint8_t *page_of(struct swb_mem *m, uint64_t addr)
{
	uint64_t base = addr & ~(PAGE - 1);
	struct page *pg = &m->pages[(base / PAGE) % NR_PAGES];
	const struct swb_area *a;

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
	pg->writable = a->write;
	return pg->data;
}

bool swb_mem_read(struct swb_mem *m, uint64_t addr, unsigned size, uint64_t *v)
{
	uint8_t buf[8];
	unsigned i;

	if (!m || size > 8 || addr + size < addr)
		return false;
	if (!m->rseq_read)
		read_rseq(m);
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
