/* emulate.c — a window computed while the thread stays stopped, from its
 * registers on a copy of its memory: ocrec's interpreter (emu.c's arithmetic
 * in its exact mode) runs it as far as it computes every instruction, then
 * libunicorn (QEMU's TCG) from the first one it does not; a hook at the
 * start of every block libunicorn translates reads the taken branches off
 * the block sequence.
 *
 * Memory. The emulator maps the process's pages on first use (4 KB each, our
 * buffers, with the permissions of the mapping) and keeps them: read-only
 * private pages (code, constants) are read once, until the maps change;
 * every other page is read again the first time a window touches it. The
 * window's own stores stay in the emulator's copy. What emulation cannot see
 * is memory another thread or process writes while the thread runs the
 * window (see docs/sampler.md); the kernel's own writes it avoids: the vDSO's
 * data cannot be read, and a read of the thread's rseq area stops emulation.
 *
 * Instructions. libunicorn 2.0 decodes VEX-encoded SSE instructions as their
 * legacy forms (vpxor xmm0,xmm1,xmm2 computes xmm0 ^= xmm2) and runs syscall,
 * cpuid or rdtsc without the kernel or the real CPU. So each block is decoded
 * with capstone before it first runs, and every instruction the emulator must
 * not run itself gets an int3 over its first byte in the emulator's copy of
 * the code (the block is translated again): the trap stops emulation there.
 * The same decoding says whether the block uses SSE registers, which are then
 * read from the thread (once per window, on first use).
 *
 * Stops are exact: a block hook stops before its block runs, a trap or a
 * fault stops at its instruction, and a condition noticed inside a block (a
 * memory hook) sends the window back to that block's start. Windows end by
 * uc_emu_stop() only: an exit address that is reached makes libunicorn 2.0
 * translate its block again at every start (about 8 us). */
#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <cpuid.h>
#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <unicorn/unicorn.h>

#include "sampler/emu.h"
#include "sampler/emulate.h"
#include "sampler/mem.h"
#include "sampler/pool.h"
#include "sampler/vec.h"
#include "util/util.h"
#include "x86/x86.h"

#define PAGE 4096ULL
#define PAGE_OF(a) ((a) & ~(PAGE - 1))
/* Blocks a window may take (a window of 32 branches takes about 40). */
#define MAX_BLOCKS 4096
/* No code lives there: emulation never exits by address. */
#define NO_EXIT 0
#define MAX_INSN 15
#define INT3 0xcc
#define NO_PAGE 1

/* Writable pages a run reads that the next run reads again together. */
#define MAX_RECENT 32

/* Data is mapped into the emulator in chunks of up to CHUNK bytes (a page
 * is read when a window first touches it), code in chunks of CODE_CHUNK
 * (read when mapped): libunicorn's cost of a mapping grows with their number. */
#define CHUNK (1ULL << 20)
#define CODE_CHUNK (64ULL << 10)
_Static_assert(CHUNK <= SWB_POOL_MAX, "a chunk's buffer comes from the pool");


/* A piece of one mapping of the process, mapped into the emulator. */
struct uchunk {
	uint64_t addr, size;
	uint8_t *buf;
	uint32_t perms;         /* UC_PROT_* */
	bool stable;            /* private and read-only: read once, when mapped */
	bool in_hook;           /* code mapped from inside a hook: its blocks go by a full flush */
	bool ran;               /* blocks of it were translated */
	bool in_uc;             /* mapped into libunicorn (only once it runs there) */
	bool dropped;
	unsigned kept;          /* the drop_pages() pass that found its mapping as it was */
	size_t pages;           /* pages that point to it */
};

/* A page of a chunk. */
struct upage {
	uint64_t addr;
	uint8_t *buf;           /* in its chunk's */
	struct uchunk *c;
	unsigned gen;           /* the window whose copy buf holds (0: none; not for stable ones) */
	unsigned used;          /* the last window that read it (not for stable ones) */
	bool patched;           /* holds int3s of ours */
};

/* An instruction the emulator must not run: an int3 of ours is over its
 * first byte. It stops emulation, or vec.c runs it (why SWB_UC_VECTOR). */
struct special {
	uint64_t addr;
	uint8_t orig, len;
	uint8_t why;            /* enum swb_uc_why */
};

/* A translated block, as decoded by capstone. */
struct tbinfo {
	uint64_t end;
	const struct swb_ctl *ctl;      /* the control instruction ending it (&last), or NULL */
	struct swb_ctl last;
	unsigned icount;
	bool fp;                /* uses SSE registers or MXCSR */
};

#define MAX_NEW_PATCHES 64
#define NEAR_PAGES 16

struct swb_uc {
	uc_engine *uc;
	struct swb_space *sp;
	struct swb_mem *mem;
	csh cs;
	cs_insn *insn;
	unsigned maps_gen;      /* of mem, when the pages were last checked */
	unsigned drop_pass;     /* drop_pages() calls */
	uint64_t code[2];       /* code_runs(): executable [code[0], code[1]) */
	unsigned code_gen;      /* the maps they were found in (swb_mem_maps_gen()) */
	bool interpret;         /* the interpreter runs first (interpreter_wanted()) */
	struct hmap pages;      /* uint64_t page address -> struct upage * */
	struct hmap specials;   /* uint64_t instruction address -> struct special * */
	struct hmap tbs;        /* uint64_t block start -> struct tbinfo * */
	/* the pages looked up last, by the low bits of their number: the
	 * interpreter's loads and stores go back and forth between a few */
	struct upage *near[NEAR_PAGES];
	unsigned gen;           /* windows begun */
	/* the writable pages the last run read, read again in one system call
	 * when the next one begins (cleared when pages are dropped) */
	struct upage *recent[MAX_RECENT];
	int nr_recent;

	/* the run */
	pid_t tid;
	const struct swb_uc_goal *g;
	struct swb_uc_out *out;
	const struct swb_ctl *pending;  /* the block running ends with it */
	uint64_t tb_start;      /* the block running, and the branches before it */
	int tb_nr;
	int blocks;
	bool fp_loaded;
	bool stopping;          /* uc_emu_stop() called: the hooks do nothing more */
	bool flush;             /* new int3s in code mapped from a hook: flush every block */
	enum swb_uc_why why;
	uint64_t stop_at;
	bool restart;           /* new int3s: translate again and start over at stop_at */
	uint64_t map_at;        /* a code page to map before going on at the ip (or NO_PAGE) */
	uint64_t new_patch[MAX_NEW_PATCHES][2];
	int nr_new;
	uint64_t rseq_start, rseq_end;
	/* AVX state for vec.c, read from the thread on first use in a window;
	 * the low 16 bytes of zmm0-15 are libunicorn's xmm0-15 */
	struct swb_vec_cpu vec;
	bool vec_loaded;
	/* libunicorn runs this window: new chunks are mapped into it at once */
	bool uc_live;
	/* the interpreter's registers while it runs (vec.c's then), else NULL */
	struct swb_emu *interp;
	uint32_t mxcsr;         /* the interpreter's, from the thread (load_fp) */
};

const char *swb_uc_why_name(enum swb_uc_why why)
{
	static const char *const names[SWB_UC_NR] = {
		[SWB_UC_DONE] = "done", [SWB_UC_SYSCALL] = "syscall", [SWB_UC_VECTOR] = "vector",
		[SWB_UC_X87] = "x87", [SWB_UC_INSN] = "instruction", [SWB_UC_MEMORY] = "memory",
		[SWB_UC_TRAP] = "trap", [SWB_UC_CODE] = "writable code", [SWB_UC_LIMIT] = "limit",
		[SWB_UC_SIGNAL] = "signal", [SWB_UC_ENGINE] = "no libunicorn",
	};

	return why < SWB_UC_NR ? names[why] : "?";
}

/* --- pages --- */

/* The value of key in one of the maps above; NULL when it has none. */
static void *lookup(const struct hmap *m, uint64_t key)
{
	size_t e = hmap_find(m, &key);

	return e == HMAP_NONE ? NULL : *(void **)hmap_val(m, e);
}

static void insert(struct hmap *m, uint64_t key, void *val)
{
	*(void **)hmap_get(m, &key) = val;
}

static struct upage *page_get(struct swb_uc *u, uint64_t page)
{
	struct upage **near = &u->near[(page / PAGE) % NEAR_PAGES];

	if (!*near || (*near)->addr != page) {
		struct upage *pg = lookup(&u->pages, page);

		if (!pg)
			return NULL;
		*near = pg;
	}
	return *near;
}

static bool read_mem(pid_t tid, uint64_t addr, void *buf, uint64_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)(uintptr_t)addr, n };

	return process_vm_readv(tid, &local, 1, &remote, 1, 0) == (ssize_t)n;
}

static bool read_page(pid_t tid, struct upage *pg)
{
	return read_mem(tid, pg->addr, pg->buf, PAGE);
}

static uint32_t perms_of(const struct swb_area *a)
{
	/* Writable or shared code may change under the translated blocks: it
	 * does not run here. A shared page may be mapped at other addresses
	 * too, which the emulator's copy would not follow: it takes no stores. */
	return UC_PROT_READ | (a->write && !a->shared ? UC_PROT_WRITE : 0) |
	       (a->exec && !a->write && !a->shared ? UC_PROT_EXEC : 0);
}

/* Map chunk c into libunicorn. Done only when libunicorn runs a window:
 * most windows end in the interpreter, which reads the chunks' buffers
 * itself, and each mapping costs libunicorn about 200,000 instructions,
 * and as much again to unmap. */
static bool chunk_in_uc(struct swb_uc *u, struct uchunk *c, bool in_hook)
{
	if (c->in_uc)
		return true;
	if (uc_mem_map_ptr(u->uc, c->addr, c->size, c->perms, c->buf) != UC_ERR_OK)
		return false;
	c->in_uc = true;
	c->in_hook = in_hook && (c->perms & UC_PROT_EXEC);
	return true;
}

/* Map [start, end) of area a (no page of it mapped yet) as one chunk; false
 * when it cannot be read (code) or mapped. */
static bool map_chunk(struct swb_uc *u, const struct swb_area *a, uint64_t start, uint64_t end, bool in_hook)
{
	struct uchunk *c = xcalloc(1, sizeof(*c));
	uint64_t p;

	c->addr = start;
	c->size = end - start;
	c->perms = perms_of(a);
	c->stable = !a->write && !a->shared;
	c->buf = swb_pool_get(c->size);
	if (!c->buf || (c->stable && !read_mem(u->tid, start, c->buf, c->size)) ||
	    (u->uc_live && !chunk_in_uc(u, c, in_hook))) {
		swb_pool_put(c->buf, c->size);
		free(c);
		return false;
	}
	for (p = start; p < end; p += PAGE) {
		struct upage *pg = xcalloc(1, sizeof(*pg));

		*pg = (struct upage){ .addr = p, .buf = c->buf + (p - start), .c = c };
		insert(&u->pages, p, pg);
		c->pages++;
	}
	return true;
}

/* Map the page at addr from the process, with the chunk around it; NULL
 * (and *why) when it cannot be. A data page is read now, the others of its
 * chunk when a window touches them. */
static struct upage *map_page(struct swb_uc *u, uint64_t addr, bool fetch, bool in_hook, enum swb_uc_why *why)
{
	const struct swb_area *a = swb_mem_area(u->mem, addr);
	uint64_t span, lo, hi, start, end;
	struct upage *pg;

	*why = SWB_UC_MEMORY;
	if (!a || !a->read || a->volatile_data || a->end < addr + PAGE)
		return NULL;
	if (fetch && !(perms_of(a) & UC_PROT_EXEC)) {
		if (a->exec)
			*why = SWB_UC_CODE;
		return NULL;
	}
	span = !a->write && !a->shared ? CODE_CHUNK : CHUNK;
	start = addr & ~(span - 1);
	end = start + span;
	if (start < a->start)
		start = a->start;
	if (end > a->end)
		end = a->end;
	/* up to the pages mapped already (of an earlier, smaller area) */
	for (lo = addr; lo > start && !page_get(u, lo - PAGE); lo -= PAGE)
		;
	for (hi = addr + PAGE; hi < end && !page_get(u, hi); hi += PAGE)
		;
	if (!map_chunk(u, a, lo, hi, in_hook) && (hi - lo == PAGE || !map_chunk(u, a, addr, addr + PAGE, in_hook)))
		return NULL;
	pg = page_get(u, addr);
	if (!pg->c->stable) {
		if (!read_page(u->tid, pg))
			return NULL;
		pg->gen = u->gen;
	}
	return pg;
}

/* The page at addr mapped into libunicorn, which faulted on it: with the
 * chunk the interpreter read it into, or anew from the process. */
static bool page_in_uc(struct swb_uc *u, uint64_t addr, bool fetch, bool in_hook, enum swb_uc_why *why)
{
	struct upage *pg = page_get(u, addr);

	*why = SWB_UC_MEMORY;
	return pg ? chunk_in_uc(u, pg->c, in_hook) : map_page(u, addr, fetch, in_hook, why) != NULL;
}

/* hmap_retain: none (the values freed) */
static bool keep_none(const void *key, void *val, void *arg)
{
	free(*(void **)val);
	return false;
}

/* hmap_retain: the specials outside [range[0], range[1]) */
static bool keep_special(const void *key, void *val, void *arg)
{
	const uint64_t *range = arg;
	uint64_t addr;

	memcpy(&addr, key, sizeof(addr));
	if (addr < range[0] || addr >= range[1])
		return true;
	free(*(void **)val);
	return false;
}

/* The chunk's blocks go only by flushing every block (5-10 ms): its code was
 * mapped from inside a hook and has run since. */
static bool flushes_all(const struct uchunk *c)
{
	return c->in_hook && c->ran;
}

static void unmap_chunk(struct swb_uc *u, struct uchunk *c)
{
	uint64_t range[2] = { c->addr, c->addr + c->size };

	/* the blocks first: they are found by the chunk's addresses in the
	 * emulator, while it is mapped */
	if (flushes_all(c))
		uc_ctl(u->uc, UC_CTL_WRITE(UC_CTL_TB_FLUSH, 0));
	else if (c->in_uc && (c->perms & UC_PROT_EXEC))
		uc_ctl_remove_cache(u->uc, c->addr, c->addr + c->size);
	if (c->in_uc)
		uc_mem_unmap(u->uc, c->addr, c->size);
	hmap_retain(&u->specials, keep_special, range);
	swb_pool_put(c->buf, c->size);
	free(c);
}

struct drop_pages {
	struct swb_uc *u;
	uint64_t start, end;    /* only chunks that overlap [start, end); all when equal */
	bool check_maps;        /* only chunks whose mapping changed */
};

/* hmap_retain, first pass: every page stays; the chunks to drop are marked. */
static bool mark_chunk(const void *key, void *val, void *arg)
{
	struct drop_pages *d = arg;
	struct upage *pg = *(struct upage **)val;
	struct uchunk *c = pg->c;
	uint64_t addr = pg->addr;

	if (c->dropped || (d->start != d->end && (addr >= d->end || addr + PAGE <= d->start)))
		return true;
	if (d->check_maps) {
		const struct swb_area *a;

		if (c->kept == d->u->drop_pass)
			return true;   /* checked at another of its pages */
		a = swb_mem_area(d->u->mem, addr);
		if (a && a->read && !a->volatile_data && a->start <= c->addr && a->end >= c->addr + c->size &&
		    perms_of(a) == c->perms && c->stable == (!a->write && !a->shared)) {
			c->kept = d->u->drop_pass;
			return true;
		}
	}
	c->dropped = true;
	return true;
}

/* Second pass: the pages of the marked chunks go, and a chunk with its last. */
static bool keep_page(const void *key, void *val, void *arg)
{
	struct swb_uc *u = arg;
	struct upage *pg = *(struct upage **)val;

	if (!pg->c->dropped)
		return true;
	if (--pg->c->pages == 0)
		unmap_chunk(u, pg->c);
	free(pg);
	return false;
}

static void drop_pages(struct swb_uc *u, struct drop_pages *d)
{
	u->drop_pass++;
	u->nr_recent = 0;
	size_t before = hmap_count(&u->pages);

	hmap_retain(&u->pages, mark_chunk, d);
	hmap_retain(&u->pages, keep_page, u);
	memset(u->near, 0, sizeof(u->near));
	/* a block's decoding may span a dropped page */
	if (hmap_count(&u->pages) != before)
		hmap_retain(&u->tbs, keep_none, NULL);
}

void swb_uc_invalidate(struct swb_uc *u, uint64_t start, uint64_t len)
{
	struct drop_pages d = { u, start, start + len, false };

	drop_pages(u, &d);
}

/* --- stops --- */

static void stop(struct swb_uc *u, enum swb_uc_why why, uint64_t at)
{
	u->why = why;
	u->stop_at = at;
	u->stopping = true;
	uc_emu_stop(u->uc);
}

/* Noticed inside a block, which may run on to its end: the window goes back
 * to the block's start, where the thread can be stopped exactly. */
static void stop_at_block(struct swb_uc *u, enum swb_uc_why why)
{
	u->out->nr = u->tb_nr;
	u->pending = NULL;
	stop(u, why, u->tb_start);
}

/* --- memory hooks --- */

/* Whether an access of [addr, addr+size) may go on: the pages it touches are
 * this window's copies, and it is not the rseq area or one of our int3s. */
static bool may_access(struct swb_uc *u, uint64_t addr, uint64_t size, enum swb_uc_why *why)
{
	uint64_t p;

	*why = SWB_UC_MEMORY;
	if (addr < u->rseq_end && addr + size > u->rseq_start)
		return false;
	for (p = PAGE_OF(addr); p < addr + size; p += PAGE) {
		struct upage *pg = page_get(u, p);
		uint64_t a;

		if (!pg)
			continue;   /* unmapped: the fault hook maps it, fresh */
		if (!pg->c->stable && pg->gen != u->gen) {
			if (!read_page(u->tid, pg))
				return false;
			pg->gen = u->gen;
		}
		if (!pg->c->stable && pg->used != u->gen) {
			pg->used = u->gen;
			if (u->nr_recent < MAX_RECENT)
				u->recent[u->nr_recent++] = pg;
		}
		if (pg->patched)
			for (a = addr < p ? p : addr; a < addr + size && a < p + PAGE; a++)
				if (pg->buf[a - p] == INT3 && lookup(&u->specials, a))
					return false;   /* the code reads itself */
	}
	return true;
}

static void on_access(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void *arg)
{
	struct swb_uc *u = arg;
	enum swb_uc_why why;

	if (!u->stopping && !may_access(u, addr, (uint64_t)size, &why))
		stop_at_block(u, why);
}

/* Faults. libunicorn 2.0 does not always bring the ip up to date before it
 * calls a memory hook (it can still be a block's before), so emulation
 * stops at the start of the block: whatever of it ran does not count. A
 * fetch from a page not mapped yet comes as a new block is translated, with
 * the ip at its start: the page is mapped between two runs (u->map_at), as
 * a page mapped from inside a hook keeps a stale entry in libunicorn's code
 * TLB, through which uc_ctl_remove_cache() finds none of its blocks. */
static bool on_unmapped(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void *arg)
{
	struct swb_uc *u = arg;
	enum swb_uc_why why;

	if (u->stopping)
		return false;
	if (type == UC_MEM_FETCH_UNMAPPED) {
		u->map_at = PAGE_OF(addr);
		u->stopping = true;
		return false;
	}
	if (page_in_uc(u, PAGE_OF(addr), false, true, &why))
		return true;
	stop_at_block(u, why);
	return false;
}

static bool on_prot(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void *arg)
{
	struct swb_uc *u = arg;

	if (!u->stopping)
		stop_at_block(u, type == UC_MEM_FETCH_PROT ? SWB_UC_CODE : SWB_UC_MEMORY);
	return false;
}

static bool on_invalid(uc_engine *uc, void *arg)
{
	struct swb_uc *u = arg;

	if (!u->stopping)
		stop_at_block(u, SWB_UC_INSN);
	return false;
}

/* --- vector instructions (vec.c) --- */

static bool load_fp(struct swb_uc *u);
static size_t code_bytes(struct swb_uc *u, uint64_t addr, uint8_t *buf, size_t len);

/* libunicorn's general registers in encoding order */
static const int gpr_ids[16] = {
	UC_X86_REG_RAX, UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_RBX, UC_X86_REG_RSP, UC_X86_REG_RBP,
	UC_X86_REG_RSI, UC_X86_REG_RDI, UC_X86_REG_R8, UC_X86_REG_R9, UC_X86_REG_R10, UC_X86_REG_R11,
	UC_X86_REG_R12, UC_X86_REG_R13, UC_X86_REG_R14, UC_X86_REG_R15,
};

/* vec.c's machine while libunicorn runs: its registers */
static uint64_t vec_gpr(void *arg, unsigned r)
{
	struct swb_uc *u = arg;
	uint64_t v = 0;

	uc_reg_read(u->uc, gpr_ids[r & 15], &v);
	return v;
}

static void vec_set_gpr(void *arg, unsigned r, uint64_t v)
{
	struct swb_uc *u = arg;

	uc_reg_write(u->uc, gpr_ids[r & 15], &v);
}

static uint64_t vec_flags(void *arg)
{
	struct swb_uc *u = arg;
	uint64_t v = 0;

	uc_reg_read(u->uc, UC_X86_REG_EFLAGS, &v);
	return v;
}

static void vec_set_flags(void *arg, uint64_t v)
{
	struct swb_uc *u = arg;

	uc_reg_write(u->uc, UC_X86_REG_EFLAGS, &v);
}

static uint64_t vec_seg_base(void *arg, unsigned seg)
{
	struct swb_uc *u = arg;
	uint64_t v = 0;

	uc_reg_read(u->uc, seg == 1 ? UC_X86_REG_FS_BASE : UC_X86_REG_GS_BASE, &v);
	return v;
}

static void vec_sync_xmm(void *arg, unsigned r)
{
	struct swb_uc *u = arg;

	uc_reg_read(u->uc, UC_X86_REG_XMM0 + (int)r, u->vec.z[r]);
}

/* vec.c's machine while the interpreter runs: its registers (u->interp),
 * whose xmm are in vec.z already */
static uint64_t interp_gpr(void *arg, unsigned r)
{
	return ((struct swb_uc *)arg)->interp->r[r & 15];
}

static void interp_set_gpr(void *arg, unsigned r, uint64_t v)
{
	((struct swb_uc *)arg)->interp->r[r & 15] = v;
}

/* vec.c changes only the arithmetic flags of what it reads: the others
 * need not be the thread's */
static uint64_t interp_flags(void *arg)
{
	return swb_emu_eflags(((struct swb_uc *)arg)->interp, 0);
}

static void interp_set_flags(void *arg, uint64_t v)
{
	swb_emu_set_eflags(((struct swb_uc *)arg)->interp, v);
}

static uint64_t interp_seg_base(void *arg, unsigned seg)
{
	const struct swb_emu *e = ((struct swb_uc *)arg)->interp;

	return seg == 1 ? e->fs_base : e->gs_base;
}

/* vec.c runs on the interpreter's registers (e), or on libunicorn's (NULL). */
static void vec_machine(struct swb_uc *u, struct swb_emu *e)
{
	u->interp = e;
	u->vec.gpr = e ? interp_gpr : vec_gpr;
	u->vec.set_gpr = e ? interp_set_gpr : vec_set_gpr;
	u->vec.flags = e ? interp_flags : vec_flags;
	u->vec.set_flags = e ? interp_set_flags : vec_set_flags;
	u->vec.seg_base = e ? interp_seg_base : vec_seg_base;
	u->vec.sync_xmm = e ? NULL : vec_sync_xmm;
}

/* The pages of [addr, addr+n), mapped (and fresh, may_access), writable
 * when write. */
static bool vec_pages(struct swb_uc *u, uint64_t addr, unsigned n, bool write)
{
	enum swb_uc_why why;
	uint64_t p;

	for (p = PAGE_OF(addr); p < addr + n; p += PAGE) {
		struct upage *pg = page_get(u, p);

		if (!pg && !(pg = map_page(u, p, false, !u->interp, &why)))
			return false;
		if (write && !(pg->c->perms & UC_PROT_WRITE))
			return false;
	}
	return may_access(u, addr, n, &why);
}

/* Copy n bytes between buf and the pages at addr (mapped: vec_pages). */
static void page_copy(struct swb_uc *u, uint64_t addr, void *buf, unsigned n, bool write)
{
	uint8_t *b = buf;

	while (n) {
		struct upage *pg = page_get(u, PAGE_OF(addr));
		unsigned off = (unsigned)(addr - pg->addr), k = n < PAGE - off ? n : (unsigned)(PAGE - off);

		if (write)
			memcpy(pg->buf + off, b, k);
		else
			memcpy(b, pg->buf + off, k);
		addr += k;
		b += k;
		n -= k;
	}
}

/* The page holding an access of n bytes at addr when the access may go on
 * at once, as vec_pages() would allow it: one page, this window's copy
 * (stable, or read and noted this window), no int3 of ours in it, not the
 * rseq area, writable for a write. NULL: take vec_pages(). Most accesses
 * are these; the full way looked the page up three times. */
static struct upage *ready_page(struct swb_uc *u, uint64_t addr, unsigned n, bool write)
{
	struct upage *pg;

	if (!n || PAGE_OF(addr) != PAGE_OF(addr + n - 1) || (addr < u->rseq_end && addr + n > u->rseq_start) ||
	    !(pg = page_get(u, PAGE_OF(addr))) || pg->patched ||
	    (!pg->c->stable && (pg->gen != u->gen || pg->used != u->gen)) ||
	    (write && !(pg->c->perms & UC_PROT_WRITE)))
		return NULL;
	return pg;
}

/* memcpy() of a load's or a store's few bytes, without a call for each */
static void copy_small(void *dst, const void *src, unsigned n)
{
	switch (n) {
	case 1: memcpy(dst, src, 1); return;
	case 2: memcpy(dst, src, 2); return;
	case 4: memcpy(dst, src, 4); return;
	case 8: memcpy(dst, src, 8); return;
	default: memcpy(dst, src, n); return;
	}
}

/* Memory for vec.c and the interpreter: libunicorn's is the same copies. */
static bool vec_read(void *arg, uint64_t addr, void *buf, unsigned n)
{
	struct swb_uc *u = arg;
	struct upage *pg = ready_page(u, addr, n, false);

	if (pg) {
		copy_small(buf, pg->buf + (addr - pg->addr), n);
		return true;
	}
	if (!vec_pages(u, addr, n, false))
		return false;
	page_copy(u, addr, buf, n, false);
	return true;
}

static bool vec_write(void *arg, uint64_t addr, const void *buf, unsigned n)
{
	struct swb_uc *u = arg;
	struct upage *pg = ready_page(u, addr, n, true);

	if (pg) {
		copy_small(pg->buf + (addr - pg->addr), buf, n);
		return true;
	}
	if (!vec_pages(u, addr, n, true))
		return false;
	page_copy(u, addr, (void *)(uintptr_t)buf, n, true);
	return true;
}

/* The thread's AVX state (XSAVE layout, PTRACE_GETREGSET): the upper halves
 * of ymm0-15 and zmm0-15, zmm16-31 and the mask registers; zeros for what
 * the CPU or the kernel does not have, or keeps in its initial state. */
static bool load_vec(struct swb_uc *u)
{
	/* XSAVE components: 2 YMM_Hi128, 5 opmask, 6 ZMM_Hi256, 7 Hi16_ZMM */
	static unsigned off[8];
	static bool offsets_read;
	static uint8_t xs[16384] __attribute__((aligned(64)));
	struct iovec iov = { xs, sizeof(xs) };
	uint64_t bv;
	unsigned r, c, a, b, d, e;

	if (!offsets_read) {
		for (c = 2; c < 8; c++)
			if (__get_cpuid_count(0xd, c, &a, &b, &d, &e) && a)
				off[c] = b;
		offsets_read = true;
	}
	/* the low 16 bytes of zmm0-15 are xmm0-15, load_fp()'s */
	for (r = 0; r < 16; r++)
		memset(u->vec.z[r] + 16, 0, sizeof(u->vec.z[r]) - 16);
	memset(u->vec.z[16], 0, sizeof(u->vec.z) - 16 * sizeof(u->vec.z[0]));
	memset(u->vec.k, 0, sizeof(u->vec.k));
	if (ptrace(PTRACE_GETREGSET, u->tid, (void *)NT_X86_XSTATE, &iov) < 0 || iov.iov_len < 576)
		return false;
	memcpy(&bv, xs + 512, 8);
	for (r = 0; r < 16; r++) {
		if ((bv & (1u << 2)) && off[2] && off[2] + 256 <= iov.iov_len)
			memcpy(u->vec.z[r] + 16, xs + off[2] + 16 * r, 16);
		if ((bv & (1u << 6)) && off[6] && off[6] + 512 <= iov.iov_len)
			memcpy(u->vec.z[r] + 32, xs + off[6] + 32 * r, 32);
		if ((bv & (1u << 7)) && off[7] && off[7] + 1024 <= iov.iov_len)
			memcpy(u->vec.z[16 + r], xs + off[7] + 64 * r, 64);
	}
	if ((bv & (1u << 5)) && off[5] && off[5] + 64 <= iov.iov_len)
		memcpy(u->vec.k, xs + off[5], 64);
	u->vec_loaded = true;
	return true;
}

/* Run the instruction at addr with vec.c (*len: its length); false: it
 * cannot (*why), and nothing of it ran. The xmm registers it writes go to
 * libunicorn while it runs (the interpreter's go when libunicorn takes over). */
static bool vec_insn(struct swb_uc *u, uint64_t addr, unsigned *len, enum swb_uc_why *why)
{
	uint8_t code[MAX_INSN];
	size_t n = code_bytes(u, addr, code, sizeof(code));
	enum swb_vec_result r;
	uint32_t written;
	unsigned i;

	*why = SWB_UC_VECTOR;
	*len = 0;
	if ((!u->fp_loaded && !load_fp(u)) || (!u->vec_loaded && !load_vec(u)))
		return false;
	r = swb_vec_run(&u->vec, addr, code, n, len, &written);
	if (r != SWB_VEC_OK) {
		if (r == SWB_VEC_FAULT)
			*why = SWB_UC_MEMORY;
		return false;
	}
	for (i = 0; i < 16 && u->uc_live; i++)
		if (written & (1u << i))
			uc_reg_write(u->uc, UC_X86_REG_XMM0 + (int)i, u->vec.z[i]);
	return true;
}

/* Run the instruction under our int3 at addr with vec.c; false: it cannot
 * (*why), and nothing of it ran. */
static bool run_vec(struct swb_uc *u, uint64_t addr, enum swb_uc_why *why)
{
	unsigned len;
	uint64_t next;

	if (!vec_insn(u, addr, &len, why))
		return false;
	next = addr + len;
	uc_reg_write(u->uc, UC_X86_REG_RIP, &next);
	u->out->insns++;
	return true;
}

/* An int3 of ours (ip is past it), the program's own, or an exception. */
static void on_intr(uc_engine *uc, uint32_t intno, void *arg)
{
	struct swb_uc *u = arg;
	struct special *s;
	enum swb_uc_why why;
	uint64_t rip;

	if (u->stopping)
		return;
	/* int3 traps as it is translated, with the ip set: exact */
	uc_reg_read(uc, UC_X86_REG_RIP, &rip);
	if (intno == 3 && (s = lookup(&u->specials, rip - 1)) && s->why == SWB_UC_VECTOR &&
	    run_vec(u, rip - 1, &why))
		return;
	if (intno == 3 && s)
		stop(u, s->why == SWB_UC_VECTOR ? why : s->why, rip - 1);
	else if (intno == 3)
		stop(u, SWB_UC_TRAP, rip - 1);
	else
		stop_at_block(u, SWB_UC_TRAP);
}

/* --- blocks --- */

/* The SSE registers (u->vec's low 16 bytes) and MXCSR, to libunicorn. */
static bool write_fp(struct swb_uc *u)
{
	static const int ids[] = {
		UC_X86_REG_XMM0, UC_X86_REG_XMM1, UC_X86_REG_XMM2, UC_X86_REG_XMM3, UC_X86_REG_XMM4,
		UC_X86_REG_XMM5, UC_X86_REG_XMM6, UC_X86_REG_XMM7, UC_X86_REG_XMM8, UC_X86_REG_XMM9,
		UC_X86_REG_XMM10, UC_X86_REG_XMM11, UC_X86_REG_XMM12, UC_X86_REG_XMM13, UC_X86_REG_XMM14,
		UC_X86_REG_XMM15, UC_X86_REG_MXCSR,
	};
	void *vals[ARRAY_SIZE(ids)];
	uint64_t mxcsr = u->mxcsr;
	size_t i;

	for (i = 0; i < 16; i++)
		vals[i] = u->vec.z[i];
	vals[16] = &mxcsr;
	return uc_reg_write_batch(u->uc, (int *)ids, vals, (int)ARRAY_SIZE(ids)) == UC_ERR_OK;
}

/* The thread's SSE registers and MXCSR, once a window: the interpreter's,
 * and libunicorn's when it runs (else they go to it when it takes over). */
static bool load_fp(struct swb_uc *u)
{
	struct user_fpregs_struct fp;
	size_t i;

	if (ptrace(PTRACE_GETFPREGS, u->tid, NULL, &fp) < 0)
		return false;
	for (i = 0; i < 16; i++)
		memcpy(u->vec.z[i], &fp.xmm_space[4 * i], 16);
	u->mxcsr = fp.mxcsr;
	u->fp_loaded = !u->uc_live || write_fp(u);
	return u->fp_loaded;
}

/* The first opcode byte after the legacy prefixes: 0xc4/0xc5 VEX, 0x62 EVEX,
 * 0x8f XOP (in 64-bit mode these are never LES, LDS, BOUND or POP). */
static uint8_t opcode_byte(const uint8_t *code, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		switch (code[i]) {
		case 0xf0: case 0xf2: case 0xf3: case 0x2e: case 0x36: case 0x3e: case 0x26:
		case 0x64: case 0x65: case 0x66: case 0x67:
			continue;
		default:
			return code[i];
		}
	return 0;
}

static bool vex_prefixed(const uint8_t *code, size_t n)
{
	uint8_t op = opcode_byte(code, n);

	return op == 0xc4 || op == 0xc5 || op == 0x62;
}

/* VEX-encoded instructions on general registers, which libunicorn runs right. */
static bool vex_gpr(unsigned id)
{
	switch (id) {
	case X86_INS_ANDN: case X86_INS_BEXTR: case X86_INS_BLSI: case X86_INS_BLSMSK: case X86_INS_BLSR:
	case X86_INS_BZHI: case X86_INS_MULX: case X86_INS_PDEP: case X86_INS_PEXT: case X86_INS_RORX:
	case X86_INS_SARX: case X86_INS_SHLX: case X86_INS_SHRX:
		return true;
	default:
		return false;
	}
}

/* Whether the instruction must not run in the emulator (*why: why not), and
 * whether it uses the SSE registers. */
static bool must_stop(struct swb_uc *u, const cs_insn *in, enum swb_uc_why *why, bool *fp)
{
	static const uint8_t sse[] = {
		X86_GRP_SSE1, X86_GRP_SSE2, X86_GRP_SSE3, X86_GRP_SSSE3, X86_GRP_SSE41, X86_GRP_SSE42,
		X86_GRP_SSE4A, X86_GRP_AES, X86_GRP_PCLMUL, X86_GRP_SHA,
	};
	uint8_t op = opcode_byte(in->bytes, in->size);
	size_t i;

	*fp = false;
	if (op == 0xc4 || op == 0xc5 || op == 0x62 || (op == 0x8f && in->id != X86_INS_POP)) {
		*why = SWB_UC_VECTOR;
		return !vex_gpr(in->id);
	}
	switch (in->id) {
	case X86_INS_SYSCALL: case X86_INS_SYSENTER: case X86_INS_INT: case X86_INS_INTO:
		*why = SWB_UC_SYSCALL;
		return true;
	case X86_INS_CPUID: case X86_INS_RDTSC: case X86_INS_RDTSCP: case X86_INS_RDRAND: case X86_INS_RDSEED:
	case X86_INS_RDPMC: case X86_INS_XGETBV: case X86_INS_XBEGIN: case X86_INS_XEND:
	case X86_INS_XABORT: case X86_INS_XTEST: case X86_INS_HLT:
	case X86_INS_UD0: case X86_INS_UD2: case X86_INS_LSL: case X86_INS_LAR: case X86_INS_SGDT:
	case X86_INS_SIDT: case X86_INS_SLDT: case X86_INS_STR: case X86_INS_SMSW: case X86_INS_VERR:
	case X86_INS_VERW: case X86_INS_IRET: case X86_INS_IRETD: case X86_INS_IRETQ: case X86_INS_RETF:
	case X86_INS_RETFQ: case X86_INS_LJMP: case X86_INS_LCALL:
		*why = SWB_UC_INSN;
		return true;
	case X86_INS_MOV: case X86_INS_PUSH: case X86_INS_POP: {
		/* segment registers: the emulator's are not the thread's */
		const cs_x86 *x = &in->detail->x86;

		for (i = 0; i < x->op_count; i++)
			if (x->operands[i].type == X86_OP_REG &&
			    (x->operands[i].reg == X86_REG_CS || x->operands[i].reg == X86_REG_DS ||
			     x->operands[i].reg == X86_REG_ES || x->operands[i].reg == X86_REG_SS ||
			     x->operands[i].reg == X86_REG_FS || x->operands[i].reg == X86_REG_GS)) {
				*why = SWB_UC_INSN;
				return true;
			}
		return false;
	}
	case X86_INS_FXSAVE: case X86_INS_FXSAVE64: case X86_INS_FXRSTOR: case X86_INS_FXRSTOR64:
	case X86_INS_XSAVE: case X86_INS_XSAVE64: case X86_INS_XSAVEC: case X86_INS_XSAVEC64:
	case X86_INS_XSAVEOPT: case X86_INS_XSAVEOPT64: case X86_INS_XRSTOR: case X86_INS_XRSTOR64:
	case X86_INS_XSAVES: case X86_INS_XSAVES64: case X86_INS_XRSTORS: case X86_INS_XRSTORS64:
		/* the real layout holds the AVX state the emulator lacks */
		*why = SWB_UC_INSN;
		return true;
	default:
		break;
	}
	if (x86_in_group(in, X86_GRP_FPU) || x86_in_group(in, X86_GRP_MMX) || x86_in_group(in, X86_GRP_3DNOW)) {
		*why = SWB_UC_X87;
		return true;
	}
	for (i = 0; i < ARRAY_SIZE(sse); i++)
		if (x86_in_group(in, sse[i]))
			*fp = true;
	*fp |= in->id == X86_INS_LDMXCSR || in->id == X86_INS_STMXCSR;
	return false;
}

/* Put an int3 of ours over the instruction at addr (its page is mapped). */
static void patch(struct swb_uc *u, uint64_t addr, unsigned len, enum swb_uc_why why)
{
	struct upage *pg = page_get(u, PAGE_OF(addr));
	struct special *s;

	if (!pg || lookup(&u->specials, addr))
		return;
	s = xmalloc(sizeof(*s));
	*s = (struct special){ addr, pg->buf[addr - pg->addr], (uint8_t)len, (uint8_t)why };
	insert(&u->specials, addr, s);
	pg->buf[addr - pg->addr] = INT3;
	pg->patched = true;
	u->flush |= pg->c->in_hook;
	if (u->nr_new < MAX_NEW_PATCHES) {
		u->new_patch[u->nr_new][0] = addr;
		u->new_patch[u->nr_new++][1] = addr + len;
	}
}

/* The code at [addr, addr+len) as the program has it (our int3s undone);
 * the length read (less where a page is not mapped). */
static size_t code_bytes(struct swb_uc *u, uint64_t addr, uint8_t *buf, size_t len)
{
	size_t n = 0;

	while (n < len) {
		struct upage *pg = page_get(u, PAGE_OF(addr + n));
		size_t off, k;

		if (!pg)
			break;
		off = (size_t)(addr + n - pg->addr);
		k = len - n < PAGE - off ? len - n : PAGE - off;
		memcpy(buf + n, pg->buf + off, k);
		n += k;
	}
	for (size_t i = 0; i < n; i++) {
		const struct special *s;

		if (buf[i] == INT3 && (s = lookup(&u->specials, addr + i)))
			buf[i] = s->orig;
	}
	return n;
}

/* What the block [b, b+size) holds, decoded the first time it runs; its
 * instructions that must not run get their int3s (u->nr_new). */
static struct tbinfo *tb_of(struct swb_uc *u, uint64_t b, uint32_t size)
{
	struct tbinfo *tb = lookup(&u->tbs, b);
	uint8_t code[2 * PAGE + MAX_INSN];
	const uint8_t *p = code;
	size_t n, left;
	uint64_t at = b;

	if (tb && tb->end == b + size)
		return tb;
	if (!tb) {
		tb = xmalloc(sizeof(*tb));
		insert(&u->tbs, b, tb);
	}
	*tb = (struct tbinfo){ .end = b + size };
	n = code_bytes(u, b, code, size + MAX_INSN < sizeof(code) ? size + MAX_INSN : sizeof(code));
	left = n;
	while (at < b + size) {
		enum swb_uc_why why;
		bool fp;

		if (lookup(&u->specials, at)) {
			tb->icount++;   /* the block ends at our int3 */
			break;
		}
		if (!x86_disasm_iter(u->cs, &p, &left, &at, u->insn)) {
			/* libunicorn decodes what capstone 4 does not (kmovd...):
			 * vec.c may know it */
			patch(u, at, 1, vex_prefixed(p, left) ? SWB_UC_VECTOR : SWB_UC_INSN);
			break;
		}
		tb->icount++;
		if (must_stop(u, u->insn, &why, &fp))
			patch(u, u->insn->address, u->insn->size, why);
		tb->fp |= fp;
		/* the block may end with a branch (one of ours runs here) */
		if (at == b + size && swb_classify(u->insn, &tb->last) && tb->last.kind != SWB_SYSCALL &&
		    tb->last.kind != SWB_OTHER)
			tb->ctl = &tb->last;
	}
	return tb;
}

static void add_branch(struct swb_uc *u, uint64_t from, uint64_t to, unsigned type)
{
	struct swb_uc_out *o = u->out;

	if (o->nr < o->cap)
		o->e[o->nr++] = (struct swb_entry){ from, to, type };
}

/* The control instruction c ran and execution went on at to. */
static void resolve(struct swb_uc *u, const struct swb_ctl *c, uint64_t to)
{
	bool taken = to != c->next || swb_always_taken(c);

	if (!taken && c->kind == SWB_JCC && c->target == c->next) {
		uint64_t fl = 0, rcx = 0;

		uc_reg_read(u->uc, UC_X86_REG_EFLAGS, &fl);
		uc_reg_read(u->uc, UC_X86_REG_RCX, &rcx);
		if (c->insn_id == X86_INS_LOOP || c->insn_id == X86_INS_LOOPE || c->insn_id == X86_INS_LOOPNE)
			rcx++;      /* as it was before loop counted down */
		taken = swb_jcc_taken(c, fl, rcx) == 1;
	}
	if (taken)
		add_branch(u, c->addr, to, swb_perf_type(c->kind));
}

/* Emulation stopped at ip: the block's control instruction ran if that is
 * outside the block. */
static void settle(struct swb_uc *u, uint64_t ip)
{
	if (u->pending && (ip < u->tb_start || ip > u->pending->addr))
		resolve(u, u->pending, ip);
	u->pending = NULL;
}

static void mark_ran(struct swb_uc *u, uint64_t addr)
{
	struct upage *pg = page_get(u, PAGE_OF(addr));

	if (pg)
		pg->c->ran = true;
}

static void on_block(uc_engine *uc, uint64_t b, uint32_t size, void *arg)
{
	struct swb_uc *u = arg;
	const struct swb_uc_goal *g = u->g;
	struct tbinfo *tb;
	bool at_p0;

	/* Its chunks now hold translated code. A chunk mapped for a data
	 * access (a program reading a page it maps and unmaps in a loop) then
	 * goes without the 5-10 ms flush of all blocks. The end's page is
	 * found generously: a wrong one costs only a flush. */
	mark_ran(u, b);
	mark_ran(u, b + size + MAX_INSN);
	if (u->stopping)
		return;
	if (u->pending && u->out->nr == u->out->cap) {
		stop(u, SWB_UC_LIMIT, u->pending->addr);
		return;
	}
	if (u->pending) {
		resolve(u, u->pending, b);
		u->pending = NULL;
	}
	at_p0 = g->seek && g->p0 >= b && g->p0 < b + size;
	if (swb_window_ends(g->depth, g->seek, g->taken + (uint64_t)u->out->nr, at_p0)) {
		stop(u, SWB_UC_DONE, at_p0 ? g->p0 : b);
		return;
	}
	if (++u->blocks > MAX_BLOCKS) {
		stop(u, SWB_UC_LIMIT, b);
		return;
	}
	tb = tb_of(u, b, size);
	if (u->nr_new) {
		/* translated before its int3s: again */
		u->restart = true;
		stop(u, SWB_UC_DONE, b);
		return;
	}
	if (tb->fp && !u->fp_loaded && !load_fp(u)) {
		stop(u, SWB_UC_INSN, b);
		return;
	}
	u->tb_start = b;
	u->tb_nr = u->out->nr;
	u->pending = tb->ctl;
	u->out->insns += tb->icount;
}

/* --- the interpreter --- */

/* Most of a window is integer code that emu.c's arithmetic computes
 * exactly: it runs first, over decode.c's runs (decoded once per process),
 * on the same copies of the pages that libunicorn maps, with no
 * translation. At the first instruction it does not compute exactly
 * (legacy SSE, x87, string instructions, a flag it lacks...) libunicorn
 * takes over with its registers and goes on to the window's end. */

static bool interpreter_wanted(void)
{
	return !env_off("OCREC_SAMPLER_INTERPRETER");
}

static bool load_sse(void *arg)
{
	struct swb_uc *u = arg;

	return u->fp_loaded || load_fp(u);
}

/* Whether [b, end) is code libunicorn would run (executable, as map_page()
 * would map it); decode.c reads it from the thread, so it need not be
 * mapped into libunicorn unless libunicorn takes over. The areas found so
 * last are kept while the maps are: the next run is mostly in them. */
static bool code_runs(struct swb_uc *u, uint64_t b, uint64_t end)
{
	const struct swb_area *a;
	uint64_t start;

	if (u->code_gen == swb_mem_maps_gen(u->mem) && b >= u->code[0] && end <= u->code[1])
		return true;
	a = swb_mem_area(u->mem, b);
	start = a ? a->start : 0;
	while (a && a->read && !a->volatile_data && (perms_of(a) & UC_PROT_EXEC)) {
		if (a->end >= end) {
			u->code[0] = start;
			u->code[1] = a->end;
			u->code_gen = swb_mem_maps_gen(u->mem);
			return true;
		}
		a = swb_mem_area(u->mem, a->end);
	}
	return false;
}

/* Map the code at [ip, ip+len) into the emulator, as a fetch would. */
static bool code_mapped(struct swb_uc *u, uint64_t ip, unsigned len)
{
	enum swb_uc_why why;
	uint64_t p;

	for (p = PAGE_OF(ip); p < ip + len; p += PAGE)
		if (!page_get(u, p) && !map_page(u, p, true, false, &why))
			return false;
	return true;
}

/* The registers and flags an instruction may change, kept to undo it. */
struct undo {
	uint64_t r[16];
	uint8_t flags, fknown;
};

static void save(const struct swb_emu *e, struct undo *s)
{
	memcpy(s->r, e->r, sizeof(s->r));
	s->flags = e->flags;
	s->fknown = e->fknown;
}

/* Undo an instruction: its one store is its last effect, and a store
 * that failed wrote nothing. */
static void undo(struct swb_emu *e, const struct undo *s)
{
	memcpy(e->r, s->r, sizeof(e->r));
	e->flags = s->flags;
	e->fknown = s->fknown;
	e->known = 0xffff;
	e->fault = e->mem_lost = false;
}

/* Whether what the instruction did is exact; if not, it is undone. */
static bool exact(struct swb_emu *e, const struct undo *s)
{
	if (e->known == 0xffff && !e->fault && !e->mem_lost)
		return true;
	undo(e, s);
	return false;
}

/* One straight-line instruction at ip; false when libunicorn must run it. */
static bool interpret_insn(struct swb_uc *u, struct swb_emu *e, const struct swb_uop *op, uint64_t ip)
{
	uint8_t code[MAX_INSN];
	enum swb_uc_why why;
	struct undo s;
	unsigned len;

	if (swb_uop_modelled(op)) {
		save(e, &s);
		swb_emu_apply(e, op);
		return exact(e, &s);
	}
	/* AVX and AVX-512 (glibc's string functions): vec.c, as under libunicorn,
	 * reading the code from the emulator's copy */
	if (!code_mapped(u, ip, op->len) || !vex_prefixed(code, code_bytes(u, ip, code, sizeof(code))))
		return false;
	save(e, &s);
	if (vec_insn(u, ip, &len, &why) && len == op->len)
		return true;
	undo(e, &s);
	return false;
}

/* The control instruction ending a run; false when libunicorn must run it. */
static bool interpret_ctl(struct swb_uc *u, struct swb_emu *e, const struct swb_ctl *c, uint64_t *ip)
{
	uint64_t to = c->next, a;
	struct undo s;
	int t;

	save(e, &s);
	switch (c->kind) {
	case SWB_JCC:
		if ((t = swb_emu_jcc(e, c->insn_id)) < 0)
			return false;       /* jrcxz, loop, or a flag the ISA leaves undefined */
		if (!t) {
			*ip = c->next;      /* not a branch of the window */
			return true;
		}
		to = c->target;
		break;
	case SWB_JMP:
		to = c->target;
		break;
	case SWB_CALL:
		swb_emu_ctl(e, c);
		to = c->target;
		break;
	case SWB_JMP_IND:
	case SWB_CALL_IND:
		if (c->op_mem ? !swb_emu_ctl_addr(e, c, &a) || !swb_emu_load(e, a, 8, &to)
			      : !swb_emu_reg(e, c->reg, &to)) {
			undo(e, &s);
			return false;
		}
		swb_emu_ctl(e, c);
		break;
	case SWB_RET:
		if (c->ret_imm || !swb_emu_load(e, e->r[4], 8, &to)) {
			undo(e, &s);
			return false;
		}
		swb_emu_ctl(e, c);
		break;
	default:
		return false;
	}
	if (!exact(e, &s))
		return false;
	add_branch(u, c->addr, to, swb_perf_type(c->kind));
	*ip = to;
	return true;
}

/* Run the window from *ip as far as the interpreter can: true when it ended
 * there (u->why, u->stop_at), false when libunicorn goes on at *ip with
 * e's registers. */
static bool interpret(struct swb_uc *u, struct swb_emu *e, uint64_t *ip)
{
	const struct swb_uc_goal *g = u->g;
	struct swb_uc_out *o = u->out;
	const struct swb_ctl *c = NULL;

	for (;;) {
		bool at_p0;
		int i;

		c = swb_decode_next(u->sp, u->tid, c, *ip);
		at_p0 = g->seek && g->p0 >= *ip && g->p0 < c->next;

		/* as on_block() at a block's start */
		if (swb_window_ends(g->depth, g->seek, g->taken + (uint64_t)o->nr, at_p0)) {
			u->why = SWB_UC_DONE;
			u->stop_at = at_p0 ? g->p0 : *ip;
			return true;
		}
		if (++u->blocks > MAX_BLOCKS) {
			u->why = SWB_UC_LIMIT;
			u->stop_at = *ip;
			return true;
		}
		if (!code_runs(u, *ip, c->next))
			return false;
		for (i = 0; i < c->nr_uops; i++) {
			if (!interpret_insn(u, e, &c->uops[i], *ip))
				return false;
			*ip += c->uops[i].len;
			o->insns++;
			o->interpreted++;
		}
		if (o->nr == o->cap) {
			u->why = SWB_UC_LIMIT;
			u->stop_at = c->addr;
			return true;
		}
		if (!interpret_ctl(u, e, c, ip))
			return false;
		o->insns++;
		o->interpreted++;
	}
}

/* --- the engine --- */

/* An ended process's engine, kept by swb_uc_free() for the next process. */
static struct swb_uc *spare;
static unsigned started, emulated;

/* What an engine knows of no process yet. */
static void init_state(struct swb_uc *u)
{
	hmap_init(&u->pages, sizeof(uint64_t), sizeof(void *), NULL);
	hmap_init(&u->specials, sizeof(uint64_t), sizeof(void *), NULL);
	hmap_init(&u->tbs, sizeof(uint64_t), sizeof(void *), NULL);
	u->vec.arg = u;
	vec_machine(u, NULL);
	u->vec.read = vec_read;
	u->vec.write = vec_write;
}

/* What init_state() made; the maps hold nothing by now. */
static void free_state(struct swb_uc *u)
{
	hmap_free(&u->pages);
	hmap_free(&u->specials);
	hmap_free(&u->tbs);
}

/* A state of no process (init_state() only), closed with its engine. */
static void close_engine(struct swb_uc *u)
{
	if (u->uc)
		uc_close(u->uc);
	free_state(u);
	free(u);
}

bool swb_libunicorn_wanted(void)
{
	return !env_off("OCREC_SAMPLER_LIBUNICORN");
}

/* libunicorn's engine for u, started when it first takes over a window:
 * windows the interpreter computes to their end need none (div.c's, loop.c's
 * and mawk's, all of them), and starting one takes 3-7 ms with the thread
 * stopped. False when libunicorn is missing or cannot start: the window is
 * followed from where the interpreter stopped, as every window was before
 * the interpreter. */
static bool start_engine(struct swb_uc *u)
{
	static bool failed;
	uint64_t no_exit = NO_EXIT;
	uc_hook h;
	uc_err e;

	if (u->uc)
		return true;
	if (failed || !swb_libunicorn_wanted())
		return false;
	e = uc_open(UC_ARCH_X86, UC_MODE_64, &u->uc);
	/* a model with every extension TCG has (BMI1/2, LZCNT, MOVBE, ADX...):
	 * without one, its instructions decode as older ones (tzcnt as bsf) */
	if (e != UC_ERR_OK || (e = uc_ctl_set_cpu_model(u->uc, UC_CPU_X86_ICELAKE_SERVER)) != UC_ERR_OK ||
	    (e = uc_ctl_exits_enable(u->uc)) != UC_ERR_OK || (e = uc_ctl_set_exits(u->uc, &no_exit, 1)) != UC_ERR_OK ||
	    (e = uc_hook_add(u->uc, &h, UC_HOOK_BLOCK, on_block, u, 1, 0)) != UC_ERR_OK ||
	    (e = uc_hook_add(u->uc, &h, UC_HOOK_INTR, on_intr, u, 1, 0)) != UC_ERR_OK ||
	    (e = uc_hook_add(u->uc, &h, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, on_access, u, 1, 0)) != UC_ERR_OK ||
	    (e = uc_hook_add(u->uc, &h, UC_HOOK_MEM_UNMAPPED, on_unmapped, u, 1, 0)) != UC_ERR_OK ||
	    (e = uc_hook_add(u->uc, &h, UC_HOOK_MEM_PROT, on_prot, u, 1, 0)) != UC_ERR_OK ||
	    (e = uc_hook_add(u->uc, &h, UC_HOOK_INSN_INVALID, on_invalid, u, 1, 0)) != UC_ERR_OK) {
		oc_debug(1, "software branch sampler: no libunicorn: %s", uc_strerror(e));
		if (u->uc)
			uc_close(u->uc);
		u->uc = NULL;
		failed = true;
		return false;
	}
	started++;
	return true;
}

struct swb_uc *swb_uc_new(struct swb_space *sp)
{
	struct swb_uc *u = spare;

	spare = NULL;
	if (!u) {
		u = xcalloc(1, sizeof(*u));
		init_state(u);
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &u->cs) != CS_ERR_OK) {
		swb_uc_free(u);
		oc_err("capstone: cannot open an x86-64 disassembler");
		return NULL;
	}
	cs_option(u->cs, CS_OPT_DETAIL, CS_OPT_ON);
	u->insn = cs_malloc(u->cs);
	u->sp = sp;
	u->mem = swb_space_mem(sp);
	u->maps_gen = swb_mem_maps_gen(u->mem);
	u->interpret = interpreter_wanted();
	emulated++;
	return u;
}

unsigned swb_uc_started(void)
{
	return started;
}

unsigned swb_uc_processes(void)
{
	return emulated;
}

void swb_uc_no_huge_pages(void)
{
	/* libunicorn asks for them over its 1 GB translation buffer
	 * (MADV_HUGEPAGE), where a fault then zeroes 2 MB to hold a few KB of
	 * code, with a window's thread stopped (several ms of a recording, 2
	 * runs in 6 of mawk at 1 kHz). The workload, forked before, keeps its
	 * own setting. */
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
}

/* hmap_retain: no page, and no chunk (the emulator goes) */
static bool keep_no_page(const void *key, void *val, void *arg)
{
	struct upage *pg = *(struct upage **)val;

	if (--pg->c->pages == 0) {
		swb_pool_put(pg->c->buf, pg->c->size);
		free(pg->c);
	}
	free(pg);
	return false;
}

/* hmap_retain, all kept: *arg set when a chunk flushes_all() */
static bool find_flush(const void *key, void *val, void *arg)
{
	*(bool *)arg |= flushes_all((*(struct upage **)val)->c);
	return true;
}

void swb_uc_free(struct swb_uc *u)
{
	struct drop_pages all = { u, 0, 0, false };
	bool flush = false, keep;
	uc_engine *uc;

	if (!u)
		return;
	/* The engine is kept for the next process (the common case: an exec),
	 * whose first window then saves libunicorn's start, unless its blocks
	 * would go only by a flush, which costs more. */
	if (!spare && u->uc)
		hmap_retain(&u->pages, find_flush, &flush);
	keep = !spare && u->uc && !flush;
	if (keep)
		drop_pages(u, &all);
	hmap_retain(&u->pages, keep_no_page, NULL);
	hmap_retain(&u->specials, keep_none, NULL);
	hmap_retain(&u->tbs, keep_none, NULL);
	if (u->insn)
		cs_free(u->insn, 1);
	if (u->cs)
		cs_close(&u->cs);
	if (!keep) {
		close_engine(u);
		return;
	}
	uc = u->uc;
	free_state(u);
	/* the hooks keep u as theirs */
	memset(u, 0, sizeof(*u));
	u->uc = uc;
	init_state(u);
	spare = u;
}

static bool load_regs(struct swb_uc *u, const struct user_regs_struct *r)
{
	static const int ids[] = {
		UC_X86_REG_RAX, UC_X86_REG_RBX, UC_X86_REG_RCX, UC_X86_REG_RDX, UC_X86_REG_RSI, UC_X86_REG_RDI,
		UC_X86_REG_RBP, UC_X86_REG_RSP, UC_X86_REG_R8, UC_X86_REG_R9, UC_X86_REG_R10, UC_X86_REG_R11,
		UC_X86_REG_R12, UC_X86_REG_R13, UC_X86_REG_R14, UC_X86_REG_R15, UC_X86_REG_EFLAGS,
		UC_X86_REG_FS_BASE, UC_X86_REG_GS_BASE,
	};
	/* no trap or resume flag: those are the tracer's */
	uint64_t eflags = r->eflags & ~(uint64_t)0x10100;
	const void *vals[] = {
		&r->rax, &r->rbx, &r->rcx, &r->rdx, &r->rsi, &r->rdi, &r->rbp, &r->rsp, &r->r8, &r->r9,
		&r->r10, &r->r11, &r->r12, &r->r13, &r->r14, &r->r15, &eflags, &r->fs_base, &r->gs_base,
	};

	return uc_reg_write_batch(u->uc, (int *)ids, (void *const *)vals, (int)ARRAY_SIZE(ids)) == UC_ERR_OK;
}

/* Most runs read the writable pages the last one read (the stack, the
 * globals, the hot end of the heap): they are read again all at once, one
 * process_vm_readv instead of one per page when first touched. A page it
 * cannot read (unmapped since) and those after it are read when touched. */
static void reread_recent(struct swb_uc *u)
{
	struct iovec local[MAX_RECENT], remote[MAX_RECENT];
	int i, n = u->nr_recent;
	ssize_t got;

	u->nr_recent = 0;
	if (n < 2)
		return;     /* one page: read when touched, as before */
	for (i = 0; i < n; i++) {
		local[i] = (struct iovec){ u->recent[i]->buf, PAGE };
		remote[i] = (struct iovec){ (void *)(uintptr_t)u->recent[i]->addr, PAGE };
	}
	got = process_vm_readv(u->tid, local, (unsigned long)n, remote, (unsigned long)n, 0);
	for (i = 0; i < n && got >= (ssize_t)((uint64_t)(i + 1) * PAGE); i++)
		u->recent[i]->gen = u->gen;
}

void swb_uc_run(struct swb_uc *u, pid_t tid, const struct user_regs_struct *regs, const struct swb_uc_goal *g,
		struct swb_uc_out *out)
{
	uint64_t start = regs->rip;
	struct user_regs_struct resume;
	uc_err err = UC_ERR_OK;
	bool done;
	int i;

	out->nr = 0;
	out->insns = 0;
	u->tid = tid;
	u->g = g;
	u->out = out;
	u->gen++;
	if (u->maps_gen != swb_mem_maps_gen(u->mem)) {
		struct drop_pages d = { u, 0, 0, true };

		drop_pages(u, &d);
		u->maps_gen = swb_mem_maps_gen(u->mem);
	}
	reread_recent(u);
	if (!swb_mem_rseq(u->mem, &u->rseq_start, &u->rseq_end))
		u->rseq_start = u->rseq_end = 0;
	u->pending = NULL;
	u->tb_start = start;
	u->tb_nr = 0;
	u->blocks = 0;
	u->fp_loaded = false;
	u->vec_loaded = false;
	u->why = SWB_UC_INSN;
	u->stop_at = start;
	out->interpreted = 0;
	if (u->interpret) {
		struct swb_emu_io io = { vec_read, vec_write, load_sse, u, u->vec.z, &u->mxcsr };
		struct swb_emu e;

		swb_emu_from_regs(&e, regs, NULL);
		e.io = &io;
		vec_machine(u, &e);
		done = interpret(u, &e, &start);
		vec_machine(u, NULL);
		if (done) {
			out->why = u->why;
			out->ip = u->stop_at;
			return;
		}
		resume = *regs;
		swb_emu_to_regs(&e, &resume);
		resume.rip = start;
		regs = &resume;
		u->tb_start = start;
		u->tb_nr = out->nr;
		u->stop_at = start;
	}
	/* libunicorn goes on where the interpreter stopped, if it can */
	if (g->no_libunicorn || !start_engine(u)) {
		out->why = SWB_UC_ENGINE;
		out->ip = start;
		return;
	}
	if (u->fp_loaded && !write_fp(u)) {
		out->why = SWB_UC_INSN;
		out->ip = start;
		return;
	}
	u->uc_live = true;
	if (!load_regs(u, regs)) {
		u->uc_live = false;
		out->why = SWB_UC_INSN;
		out->ip = start;
		return;
	}
	for (;;) {
		u->stopping = u->restart = u->flush = false;
		u->nr_new = 0;
		u->map_at = NO_PAGE;
		err = uc_emu_start(u->uc, start, NO_EXIT, 0, 0);
		if (u->flush)
			uc_ctl(u->uc, UC_CTL_WRITE(UC_CTL_TB_FLUSH, 0));
		for (i = 0; i < u->nr_new && !u->flush; i++)
			uc_ctl_remove_cache(u->uc, u->new_patch[i][0], u->new_patch[i][1]);
		if (u->map_at != NO_PAGE) {
			enum swb_uc_why why;

			uc_reg_read(u->uc, UC_X86_REG_RIP, &start);
			settle(u, start);
			if (!page_in_uc(u, u->map_at, true, false, &why)) {
				u->why = why;
				u->stop_at = start;
				break;
			}
			continue;
		}
		if (!u->stopping) {
			/* libunicorn stopped by itself, on a fault it took for the program's */
			stop_at_block(u, err == UC_ERR_INSN_INVALID ? SWB_UC_INSN : SWB_UC_TRAP);
			break;
		}
		if (!u->restart)
			break;
		start = u->stop_at;
	}
	settle(u, u->stop_at);
	u->uc_live = false;
	out->why = u->why;
	out->ip = u->stop_at;
}
