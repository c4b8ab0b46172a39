/* decode.c — straight-line runs of a traced process's code, decoded (x86.h)
 * from its memory and cached by start address: a run ends at the first
 * instruction that may transfer control. */
#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sampler/emu.h"
#include "sampler/emulate.h"
#include "sampler/vec.h"
#include "util/util.h"
#include "x86/x86.h"

#define MAX_INSN_LEN 15
#define READ_CHUNK 256
#define MAX_STALE 8
#define PAGE 4096

struct run {
	uint64_t start;
	struct swb_ctl ctl;
	struct swb_uop *uops;   /* ctl.uops */
	/* The runs entered from this one's end, found before (swb_decode_next):
	 * [0] at ctl.next, [1] the last other one. Valid while links_gen is the
	 * space's runs_gen, which changes whenever runs are freed. */
	struct run *link[2];
	unsigned links_gen;
};

static void free_run(struct run *r)
{
	if (r)
		free(r->uops);
	free(r);
}

/* A page of code as runs are decoded from it: copied the first time, when
 * only an mmap() or mprotect() can change it (not writable, not shared),
 * whose side-band record invalidates it as it does the runs; else read again
 * for each run. A run's own read cost 2.5 us, a quarter of decoding. */
struct code_page {
	uint8_t *copy;          /* NULL: read each time */
};

struct swb_space {
	struct swb_mem *mem;
	struct swb_uc *uc;      /* NULL until the first window; uc_failed: cannot be had */
	bool uc_failed;
	csh cs;
	cs_insn *insn;
	struct hmap runs;       /* uint64_t start -> struct run * */
	struct hmap pages;      /* uint64_t page -> struct code_page */
	unsigned runs_gen;      /* changed when runs are freed: their links go */
	/* invalidated since the last window: [start, end) ranges, or all */
	uint64_t stale[MAX_STALE][2];
	size_t nr_stale;
	bool all_stale;
};

struct swb_space *swb_space_new(void)
{
	struct swb_space *sp = xcalloc(1, sizeof(*sp));

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &sp->cs) != CS_ERR_OK) {
		free(sp);
		oc_err("capstone: cannot open an x86-64 disassembler");
		return NULL;
	}
	cs_option(sp->cs, CS_OPT_DETAIL, CS_OPT_ON);
	sp->insn = cs_malloc(sp->cs);
	sp->mem = swb_mem_new();
	hmap_init(&sp->runs, sizeof(uint64_t), sizeof(struct run *), NULL);
	hmap_init(&sp->pages, sizeof(uint64_t), sizeof(struct code_page), NULL);
	return sp;
}

/* hmap_retain: the runs outside [range[0], range[1]) (none when range is NULL) */
static bool keep_run(const void *key, void *val, void *arg)
{
	const uint64_t *range = arg;
	struct run *r = *(struct run **)val;

	if (range && (r->start >= range[1] || r->ctl.next <= range[0]))
		return true;
	free_run(r);
	return false;
}

/* hmap_retain: the pages outside [range[0], range[1]) (none when range is NULL) */
static bool keep_page(const void *key, void *val, void *arg)
{
	const uint64_t *range = arg, page = *(const uint64_t *)key;
	struct code_page *pg = val;

	if (range && (page >= range[1] || page + PAGE <= range[0]))
		return true;
	free(pg->copy);
	return false;
}

void swb_space_free(struct swb_space *sp)
{
	if (!sp)
		return;
	hmap_retain(&sp->runs, keep_run, NULL);
	hmap_free(&sp->runs);
	hmap_retain(&sp->pages, keep_page, NULL);
	hmap_free(&sp->pages);
	swb_uc_free(sp->uc);
	swb_mem_free(sp->mem);
	cs_free(sp->insn, 1);
	cs_close(&sp->cs);
	free(sp);
}

/* Only noted here, done once at the next window: a program that maps and
 * unmaps in a loop sends an MMAP2 record each time, and dropping a page the
 * emulator holds may flush all of its translations (5-10 ms). Done at
 * each record, that left the tracer too slow to drain its rings, and their
 * records were lost (docs/sampler.md, "Side-band records"). */
void swb_space_invalidate(struct swb_space *sp, uint64_t start, uint64_t len)
{
	uint64_t end = start + len, gap, best_gap = UINT64_MAX;
	size_t i, best = 0;

	if (!len) {
		sp->all_stale = true;
		sp->nr_stale = 0;
		return;
	}
	if (sp->all_stale)
		return;
	for (i = 0; i < sp->nr_stale; i++) {
		uint64_t *r = sp->stale[i];

		gap = start > r[1] ? start - r[1] : r[0] > end ? r[0] - end : 0;
		if (gap < best_gap) {
			best_gap = gap;
			best = i;
		}
	}
	if (best_gap && sp->nr_stale < MAX_STALE) {
		sp->stale[sp->nr_stale][0] = start;
		sp->stale[sp->nr_stale++][1] = end;
		return;
	}
	/* overlapping, touching, or no room left: the nearest range grows */
	if (start < sp->stale[best][0])
		sp->stale[best][0] = start;
	if (end > sp->stale[best][1])
		sp->stale[best][1] = end;
}

void swb_space_settle(struct swb_space *sp)
{
	size_t i;

	if (!sp->all_stale && !sp->nr_stale)
		return;
	swb_mem_invalidate(sp->mem);
	if (sp->all_stale) {
		hmap_retain(&sp->runs, keep_run, NULL);
		hmap_retain(&sp->pages, keep_page, NULL);
		/* a new program: a new emulator */
		swb_uc_free(sp->uc);
		sp->uc = NULL;
	}
	for (i = 0; i < sp->nr_stale; i++) {
		hmap_retain(&sp->runs, keep_run, sp->stale[i]);
		hmap_retain(&sp->pages, keep_page, sp->stale[i]);
		if (sp->uc)
			swb_uc_invalidate(sp->uc, sp->stale[i][0], sp->stale[i][1] - sp->stale[i][0]);
	}
	sp->all_stale = false;
	sp->nr_stale = 0;
	sp->runs_gen++;
}

struct swb_uc *swb_space_uc(struct swb_space *sp)
{
	if (!sp->uc && !sp->uc_failed) {
		sp->uc = swb_uc_new(sp);
		if (!sp->uc) {
			oc_debug(1, "software branch sampler: no emulation: %s", oc_errmsg());
			oc_err_clear();
			sp->uc_failed = true;
		}
	}
	return sp->uc;
}

/* Read up to len bytes of tid's memory at addr; stops early at an unreadable page. */
static ssize_t read_mem(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	uint64_t page_end;

	if (n >= 0 || errno != EFAULT)
		return n;
	page_end = (addr | 4095) + 1;
	if (page_end - addr >= len)
		return -1;
	local.iov_len = remote.iov_len = page_end - addr;
	return process_vm_readv(tid, &local, 1, &remote, 1, 0);
}

/* The page of code at page as copied, or NULL: not to be kept, or unreadable. */
static const uint8_t *code_page(struct swb_space *sp, pid_t tid, uint64_t page)
{
	bool added;
	struct code_page *pg = hmap_val(&sp->pages, hmap_add(&sp->pages, &page, &added));
	const struct swb_area *a;

	if (added && (a = swb_mem_area(sp->mem, page)) && a->read && a->exec && !a->write && !a->shared) {
		pg->copy = xmalloc(PAGE);
		if (read_mem(tid, page, pg->copy, PAGE) != PAGE) {
			free(pg->copy);
			pg->copy = NULL;
		}
	}
	return pg->copy;
}

/* Up to len bytes of code at addr, as read_mem(): from the pages copied,
 * the rest read now. */
static ssize_t read_code(struct swb_space *sp, pid_t tid, uint64_t addr, uint8_t *buf, size_t len)
{
	size_t n = 0;
	ssize_t more;

	while (n < len) {
		uint64_t page = (addr + n) & ~(uint64_t)(PAGE - 1), off = addr + n - page;
		size_t k = len - n < PAGE - off ? len - n : (size_t)(PAGE - off);
		const uint8_t *copy = code_page(sp, tid, page);

		if (!copy)
			break;
		memcpy(buf + n, copy + off, k);
		n += k;
	}
	if (n == len)
		return (ssize_t)n;
	more = read_mem(tid, addr + n, buf + n, len - n);
	return more > 0 ? (ssize_t)n + more : n ? (ssize_t)n : more;
}

static bool is_jcc(unsigned id)
{
	switch (id) {
	case X86_INS_JAE: case X86_INS_JA: case X86_INS_JBE: case X86_INS_JB:
	case X86_INS_JCXZ: case X86_INS_JECXZ: case X86_INS_JRCXZ:
	case X86_INS_JE: case X86_INS_JGE: case X86_INS_JG: case X86_INS_JLE: case X86_INS_JL:
	case X86_INS_JNE: case X86_INS_JNO: case X86_INS_JNP: case X86_INS_JNS:
	case X86_INS_JO: case X86_INS_JP: case X86_INS_JS:
	case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE:
		return true;
	default:
		return false;
	}
}

bool swb_classify(const cs_insn *in, struct swb_ctl *c)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *op = x->op_count ? &x->operands[0] : NULL;

	memset(c, 0, sizeof(*c));
	c->addr = in->address;
	c->next = in->address + in->size;
	c->insn_id = in->id;
	switch (in->id) {
	case X86_INS_JMP:
	case X86_INS_CALL:
		if (!op)
			break;
		if (op->type == X86_OP_IMM) {
			c->kind = in->id == X86_INS_JMP ? SWB_JMP : SWB_CALL;
			c->target = (uint64_t)op->imm;
			return true;
		}
		c->kind = in->id == X86_INS_JMP ? SWB_JMP_IND : SWB_CALL_IND;
		if (op->type == X86_OP_REG) {
			c->reg = op->reg;
		} else if (op->type == X86_OP_MEM) {
			c->op_mem = true;
			c->seg = op->mem.segment;
			c->base = op->mem.base;
			c->index = op->mem.index;
			c->scale = op->mem.scale;
			c->disp = op->mem.disp;
			if (c->base == X86_REG_RIP) {   /* rip-relative: fix it now */
				c->base = 0;
				c->disp += (int64_t)c->next;
			}
		}
		return true;
	case X86_INS_RET:
		c->kind = SWB_RET;
		c->ret_imm = op != NULL;
		return true;
	case X86_INS_SYSCALL:
	case X86_INS_SYSENTER:
		c->kind = SWB_SYSCALL;
		return true;
	case X86_INS_INT:
		c->kind = op && op->type == X86_OP_IMM && op->imm == 0x80 ? SWB_SYSCALL : SWB_OTHER;
		return true;
	case X86_INS_HLT: case X86_INS_UD2: case X86_INS_UD0: case X86_INS_XBEGIN:
		c->kind = SWB_OTHER;
		return true;
	default:
		break;
	}
	if (is_jcc(in->id) && op && op->type == X86_OP_IMM) {
		c->kind = SWB_JCC;
		c->target = (uint64_t)op->imm;
		return true;
	}
	if (x86_in_group(in, CS_GRP_JUMP) || x86_in_group(in, CS_GRP_CALL) || x86_in_group(in, CS_GRP_RET) ||
	    x86_in_group(in, CS_GRP_INT) || x86_in_group(in, CS_GRP_IRET)) {
		c->kind = SWB_OTHER;
		return true;
	}
	return false;
}

static bool is_sp(unsigned reg)
{
	return reg == X86_REG_RSP || reg == X86_REG_ESP || reg == X86_REG_SP || reg == X86_REG_SPL;
}

/* How a straight-line instruction changes the stack pointer and whether it
 * may write to the stack (run summary in struct swb_ctl). */
struct stack_effect {
	bool known, clean;
	int64_t delta;
};

static void account(struct swb_space *sp, const cs_insn *in, struct stack_effect *e)
{
	const cs_x86 *x = &in->detail->x86;
	cs_regs rd, wr;
	uint8_t nr = 0, nw = 0, i;
	bool writes_sp = false;

	for (i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		/* Writes through rip-relative or absolute addresses cannot reach the
		 * stack; any other memory write might. */
		if (swb_insn_stores_to(in, i) &&
		    !((op->mem.base == X86_REG_RIP || op->mem.base == X86_REG_INVALID) &&
		      op->mem.index == X86_REG_INVALID))
			e->clean = false;
	}
	if (swb_insn_stores_implicitly(in))
		e->clean = false;
	if (cs_regs_access(sp->cs, in, rd, &nr, wr, &nw) != CS_ERR_OK) {
		e->known = false;
		return;
	}
	for (i = 0; i < nw; i++)
		writes_sp |= is_sp(wr[i]);
	if (!writes_sp || !e->known)
		return;
	switch (in->id) {
	case X86_INS_PUSH:
		e->delta -= x->op_count && x->operands[0].size == 2 ? 2 : 8;
		return;
	case X86_INS_PUSHFQ:
		e->delta -= 8;
		return;
	case X86_INS_POP:
		e->delta += x->op_count && x->operands[0].size == 2 ? 2 : 8;
		return;
	case X86_INS_POPFQ:
		e->delta += 8;
		return;
	case X86_INS_ADD:
	case X86_INS_SUB:
		if (x->op_count == 2 && x->operands[0].type == X86_OP_REG && x->operands[0].reg == X86_REG_RSP &&
		    x->operands[1].type == X86_OP_IMM) {
			e->delta += in->id == X86_INS_ADD ? x->operands[1].imm : -x->operands[1].imm;
			return;
		}
		break;
	case X86_INS_LEA:
		if (x->op_count == 2 && x->operands[0].reg == X86_REG_RSP && x->operands[1].mem.base == X86_REG_RSP &&
		    x->operands[1].mem.index == X86_REG_INVALID) {
			e->delta += x->operands[1].mem.disp;
			return;
		}
		break;
	default:
		break;
	}
	e->known = false;
}

static void set_effect(struct swb_ctl *c, const struct stack_effect *e)
{
	c->rsp_known = e->known;
	c->rsp_delta = e->delta;
	c->stack_clean = e->clean;
}

/* The run ends at something that cannot be decoded or read (executing it
 * faults or raises a signal, which the engine sees): single-step there. */
static void end_unknown(struct swb_ctl *c, uint64_t at, const struct stack_effect *e)
{
	memset(c, 0, sizeof(*c));
	c->addr = at;
	c->next = at + 1;
	c->kind = SWB_OTHER;
	set_effect(c, e);
}

/* Decode forward from addr to the first control instruction; the
 * instructions before it become r->uops. */
static void decode(struct swb_space *sp, pid_t tid, uint64_t addr, struct run *r)
{
	uint8_t buf[READ_CHUNK];
	uint64_t at = addr;
	struct stack_effect e = { true, true, 0 };
	struct swb_ctl *c = &r->ctl;
	size_t nr = 0, cap = 0;
	bool done = false;

	r->uops = NULL;
	while (!done) {
		ssize_t n = read_code(sp, tid, at, buf, sizeof(buf));
		const uint8_t *code = buf;
		size_t size;
		uint64_t pc = at;

		if (n <= 0) {
			end_unknown(c, at, &e);
			break;
		}
		size = (size_t)n;
		for (;;) {
			unsigned len;

			while (!done && x86_disasm_iter(sp->cs, &code, &size, &pc, sp->insn)) {
				if (swb_classify(sp->insn, c)) {
					set_effect(c, &e);
					done = true;
					break;
				}
				account(sp, sp->insn, &e);
				GROW(r->uops, cap, nr + 1);
				swb_uop_from_insn(sp->insn, &r->uops[nr++]);
			}
			/* AVX-512 instructions capstone 4 does not know (kmovd,
			 * vptestnmb...): vec.c knows their length, and none of them
			 * transfers control */
			if (done || !(len = swb_vec_length(code, size)))
				break;
			GROW(r->uops, cap, nr + 1);
			swb_uop_unknown(&r->uops[nr]);
			r->uops[nr++].len = (uint8_t)len;
			e.known = e.clean = false;
			code += len;
			size -= len;
			pc += len;
		}
		if (done)
			break;
		/* Undecodable here: an invalid instruction (it faults: single-step it),
		 * or one cut off at the end of what was read (read again from it). */
		if (size >= MAX_INSN_LEN || (size_t)n < sizeof(buf)) {
			end_unknown(c, pc, &e);
			break;
		}
		at = pc;
	}
	c->uops = r->uops;
	c->nr_uops = (int)nr;
}

unsigned swb_perf_type(enum swb_kind k)
{
	switch (k) {
	case SWB_JCC: return PERF_BR_COND;
	case SWB_JMP: return PERF_BR_UNCOND;
	case SWB_JMP_IND: return PERF_BR_IND;
	case SWB_CALL: return PERF_BR_CALL;
	case SWB_CALL_IND: return PERF_BR_IND_CALL;
	case SWB_RET: return PERF_BR_RET;
	case SWB_SYSCALL: return PERF_BR_SYSCALL;
	default: return PERF_BR_UNKNOWN;
	}
}

bool swb_always_taken(const struct swb_ctl *c)
{
	return c->kind == SWB_JMP || c->kind == SWB_CALL || c->kind == SWB_JMP_IND ||
	       c->kind == SWB_CALL_IND || c->kind == SWB_RET;
}

int swb_jcc_taken(const struct swb_ctl *c, uint64_t eflags, uint64_t rcx)
{
	bool zf = eflags & 0x40;
	int taken = swb_cond_taken(c->insn_id, eflags);

	if (taken >= 0)
		return taken;
	switch (c->insn_id) {
	case X86_INS_JRCXZ: return rcx == 0;
	case X86_INS_JECXZ: return (uint32_t)rcx == 0;
	case X86_INS_JCXZ: return (uint16_t)rcx == 0;
	case X86_INS_LOOP: return rcx - 1 != 0;
	case X86_INS_LOOPE: return rcx - 1 != 0 && zf;
	case X86_INS_LOOPNE: return rcx - 1 != 0 && !zf;
	default: return -1;
	}
}

struct swb_mem *swb_space_mem(struct swb_space *sp)
{
	return sp->mem;
}

static struct run *run_at(struct swb_space *sp, pid_t tid, uint64_t addr)
{
	struct run **r = hmap_get(&sp->runs, &addr);

	if (!*r) {
		*r = xcalloc(1, sizeof(**r));
		(*r)->start = addr;
		decode(sp, tid, addr, *r);
	}
	return *r;
}

const struct swb_ctl *swb_decode_run(struct swb_space *sp, pid_t tid, uint64_t addr)
{
	return &run_at(sp, tid, addr)->ctl;
}

const struct swb_ctl *swb_decode_next(struct swb_space *sp, pid_t tid, const struct swb_ctl *from, uint64_t addr)
{
	struct run *r, *to;
	int slot;

	if (!from)
		return swb_decode_run(sp, tid, addr);
	r = (struct run *)((char *)from - offsetof(struct run, ctl));
	slot = addr != from->next;
	if (r->links_gen != sp->runs_gen) {
		r->link[0] = r->link[1] = NULL;
		r->links_gen = sp->runs_gen;
	}
	if (r->link[slot] && r->link[slot]->start == addr)
		return &r->link[slot]->ctl;
	to = run_at(sp, tid, addr);
	r->link[slot] = to;
	return &to->ctl;
}
