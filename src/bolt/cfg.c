/* cfg.c — BOLT 16's disassembly of every function and the basic blocks it
 * builds (BinaryFunction::disassemble, postProcessJumpTables, buildCFG,
 * postProcessIndirectBranches; jump tables as BinaryContext finds them).
 * Only what decides a profile's fall-through lines is kept: where blocks
 * start, the offset of each block's last instruction, whether a block falls
 * into the next one, and whether a function is simple. */
#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

#include "bolt/bolt-internal.h"
#include "util/util.h"
#include "x86/x86.h"

#define NO_REG X86_NO_GPR
#define REG_RIP 16

enum insn_kind {
	K_OTHER, K_NOP, K_JMP, K_JCC, K_CALL, K_ICALL, K_IJMP, K_RET, K_TRAP, K_INT3,
};

enum insn_flag {
	F_TAIL = 1,          /* a jump out of the function: a tail call */
	F_CTC = 2,           /* a conditional tail call */
	F_JT = 4,            /* an indirect jump through a jump table */
	F_REGJMP = 8,        /* jmp *%reg (one register operand) */
	F_MOVLOAD = 16,      /* mov r16/32/64 <- m (MOV*rm) */
	F_ADD64RR = 32,      /* add r64, r64 (ADD64rr, opcode 01) */
	F_MOVSXD = 64,       /* movslq m32 -> r64 (MOVSX64rm32) */
	F_LEA64 = 128,       /* lea m -> r64 */
	F_POP = 256,         /* pop or leave: an epilogue */
	F_UNSUPPORTED = 512, /* loop, jrcxz: BOLT ignores the function */
	F_ENDBR = 1024,
};

struct mem {
	uint8_t base, index, seg;   /* register index, REG_RIP, NO_REG */
	uint8_t scale;
	int64_t disp;
};

struct insn {
	uint32_t off;
	uint8_t size, kind;
	uint16_t flags;
	uint16_t defs;              /* general registers written */
	uint8_t r1, r2;             /* register operands (dst, src) */
	bool has_mem;
	struct mem mem;
	uint64_t target;            /* direct branch target; jump table address */
};

struct jump_table {
	uint64_t addr;
	bool pic;
	uint32_t func;              /* owning function */
	uint32_t *offsets;          /* entries as offsets in the function (UINT32_MAX: elsewhere) */
	size_t nr;
};

struct branch {
	uint32_t from, to;
};

/* Disassembly state of one function until its CFG is built. */
struct fstate {
	struct insn *insns;
	size_t nr_insns;
	uint32_t *labels;
	size_t nr_labels, cap_labels;
	struct branch *taken;
	size_t nr_taken, cap_taken;
	uint32_t *unknown_ijmps;    /* UnknownIndirectBranchOffsets */
	size_t nr_unknown, cap_unknown;
	struct { uint32_t off; uint64_t jt; } *jt_sites;
	size_t nr_jt_sites, cap_jt_sites;
	uint64_t *interproc;        /* InterproceduralReferences */
	size_t nr_interproc, cap_interproc;
	uint32_t *landing_pads;     /* offsets where invokes of the function land */
	size_t nr_lps, cap_lps;
	bool disassembled, fixed_ijmp;
	bool skipped_fragment;      /* BOLT's FragmentsToSkip */
};

struct cfg_ctx {
	struct bolt_binary *b;
	csh cs;
	cs_insn *ci;
	struct fstate *st;          /* per function */
	struct jump_table *jts;     /* sorted by address */
	size_t nr_jts, cap_jts;
	bool lite;                  /* non-relocation mode: only profiled functions */
};

/* --- capstone ---------------------------------------------------------------- */

/* A memory operand's register: its general register's index, REG_RIP, NO_REG. */
static unsigned gpr(unsigned reg)
{
	int bits;

	return reg == X86_REG_RIP ? REG_RIP : x86_gpr(reg, &bits);
}

static bool is_jcc(unsigned id)
{
	switch (id) {
	case X86_INS_JAE: case X86_INS_JA: case X86_INS_JBE: case X86_INS_JB: case X86_INS_JE:
	case X86_INS_JGE: case X86_INS_JG: case X86_INS_JLE: case X86_INS_JL: case X86_INS_JNE:
	case X86_INS_JNO: case X86_INS_JNP: case X86_INS_JNS: case X86_INS_JO: case X86_INS_JP:
	case X86_INS_JS:
		return true;
	default:
		return false;
	}
}

/* Does LLVM's disassembler take the first byte as an instruction of its own?
 * It does for lock, and for xacquire/xrelease (f2/f3 before lock, xchg or a
 * store), where capstone folds them into the next instruction. */
static bool split_prefix(const uint8_t *code, size_t avail)
{
	uint8_t b;

	if (code[0] == 0xf0)
		return true;
	if ((code[0] != 0xf2 && code[0] != 0xf3) || avail < 2)
		return false;
	b = code[1];
	if (b == 0xf0 || (b & 0xfe) == 0x86 || ((b & 0xf8) == 0x90 && !(code[0] == 0xf3 && b == 0x90)))
		return true;
	return code[0] == 0xf3 && (b == 0x88 || b == 0x89 || b == 0xc6 || b == 0xc7);
}

/* Decode one instruction at code (addr) into *in; false when capstone cannot. */
static bool decode(struct cfg_ctx *c, const uint8_t *code, size_t avail, uint64_t addr, uint32_t off,
		   struct insn *in)
{
	const uint8_t *p = code;
	size_t left = avail;
	uint64_t pc = addr;
	cs_insn *ci = c->ci;
	cs_x86 *x;
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0, k;
	const cs_x86_op *mem = NULL;

	if (split_prefix(code, avail)) {
		memset(in, 0, sizeof(*in));
		in->off = off;
		in->size = 1;
		in->r1 = in->r2 = NO_REG;
		return true;
	}
	if (!x86_disasm_iter(c->cs, &p, &left, &pc, ci))
		return false;
	memset(in, 0, sizeof(*in));
	in->off = off;
	in->size = (uint8_t)ci->size;
	in->r1 = in->r2 = NO_REG;
	x = &ci->detail->x86;
	for (k = 0; k < x->op_count; k++)
		if (x->operands[k].type == X86_OP_MEM)
			mem = &x->operands[k];
	if (mem) {
		in->has_mem = true;
		in->mem.base = (uint8_t)gpr(mem->mem.base);
		in->mem.index = (uint8_t)gpr(mem->mem.index);
		in->mem.seg = mem->mem.segment == X86_REG_INVALID ? NO_REG : 0;
		in->mem.scale = (uint8_t)mem->mem.scale;
		in->mem.disp = mem->mem.disp;
	}
	if (cs_regs_access(c->cs, ci, rd, &nrd, wr, &nwr) == CS_ERR_OK)
		for (k = 0; k < nwr; k++) {
			unsigned g = gpr(wr[k]);
			if (g < 16)
				in->defs |= (uint16_t)(1u << g);
		}
	if (x->op_count >= 1 && x->operands[0].type == X86_OP_REG)
		in->r1 = (uint8_t)gpr(x->operands[0].reg);
	if (x->op_count >= 2 && x->operands[1].type == X86_OP_REG)
		in->r2 = (uint8_t)gpr(x->operands[1].reg);

	switch (ci->id) {
	case X86_INS_JMP:
		if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
			in->kind = K_JMP;
			in->target = (uint64_t)x->operands[0].imm;
		} else {
			in->kind = K_IJMP;
			if (x->op_count == 1 && x->operands[0].type == X86_OP_REG)
				in->flags |= F_REGJMP;
		}
		break;
	case X86_INS_CALL:
		if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
			in->kind = K_CALL;
			in->target = (uint64_t)x->operands[0].imm;
		} else {
			in->kind = K_ICALL;
		}
		break;
	case X86_INS_RET: case X86_INS_RETF: case X86_INS_RETFQ:
		in->kind = K_RET;
		break;
	case X86_INS_UD2: case X86_INS_UD2B:
		in->kind = K_TRAP;
		break;
	case X86_INS_INT3:
		in->kind = K_INT3;
		break;
	case X86_INS_NOP:
		in->kind = K_NOP;
		break;
	case X86_INS_JCXZ: case X86_INS_JECXZ: case X86_INS_JRCXZ:
	case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE:
		in->kind = K_JCC;
		in->flags |= F_UNSUPPORTED;
		in->target = (uint64_t)x->operands[0].imm;
		break;
	case X86_INS_MOV:
		if (x->opcode[0] == 0x8b && mem && x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
		    x->operands[0].size >= 2)
			in->flags |= F_MOVLOAD;
		break;
	case X86_INS_ADD:
		if (x->opcode[0] == 0x01 && x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
		    x->operands[1].type == X86_OP_REG && x->operands[0].size == 8)
			in->flags |= F_ADD64RR;
		break;
	case X86_INS_MOVSXD:
		if (mem && x->operands[0].type == X86_OP_REG && x->operands[0].size == 8)
			in->flags |= F_MOVSXD;
		break;
	case X86_INS_LEA:
		if (x->operands[0].type == X86_OP_REG && x->operands[0].size == 8)
			in->flags |= F_LEA64;
		break;
	case X86_INS_POP: case X86_INS_POPF: case X86_INS_POPFQ: case X86_INS_LEAVE:
		in->flags |= F_POP;
		break;
	case X86_INS_ENDBR64:
		in->flags |= F_ENDBR;
		break;
	default:
		if (is_jcc(ci->id)) {
			in->kind = K_JCC;
			in->target = (uint64_t)x->operands[0].imm;
		}
		break;
	}
	return true;
}

static bool is_terminator(const struct insn *in)
{
	return in->kind == K_JMP || in->kind == K_JCC || in->kind == K_IJMP || in->kind == K_RET ||
	       in->kind == K_TRAP;
}

/* BOLT's isUnconditionalBranch: a direct jmp that is not a tail call. */
static bool is_uncond_branch(const struct insn *in)
{
	return in->kind == K_JMP && !(in->flags & F_TAIL);
}

/* The absolute address a memory operand names (disp for absolute, disp +
 * next instruction for RIP-relative); false for others. */
static bool mem_target(const struct bolt_func *f, const struct insn *in, uint64_t *out)
{
	if (!in->has_mem || in->mem.index != NO_REG)
		return false;
	if (in->mem.base == REG_RIP) {
		*out = f->addr + in->off + in->size + (uint64_t)in->mem.disp;
		return true;
	}
	return false;
}

/* Decode one entry of a PLT section: the GOT slot its indirect jump reads.
 * *entry grows from 8 to 16 when the section starts with endbr64. */
bool bolt_plt_target(struct bolt_binary *b, const uint8_t *code, size_t avail, uint64_t addr,
		     uint64_t *entry, bool first, uint64_t *got)
{
	struct cfg_ctx c = { .b = b, .cs = b->cs, .ci = b->cs_insn };
	struct bolt_func pseudo = { .addr = addr };
	uint64_t off = 0;

	while (off < *entry) {
		struct insn in;
		if (off >= avail || !decode(&c, code + off, avail - off, addr + off, (uint32_t)off, &in))
			return false;
		if (first && off == 0 && (in.flags & F_ENDBR) && *entry == 8)
			*entry = 16;
		if (in.kind == K_IJMP) {
			if (off + in.size > *entry)
				return false;
			return mem_target(&pseudo, &in, got);
		}
		off += in.size;
	}
	return false;
}

/* --- small helpers --------------------------------------------------------------- */

static void add_u32(uint32_t **v, size_t *n, size_t *cap, uint32_t x)
{
	GROW(*v, *cap, *n + 1);
	(*v)[(*n)++] = x;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static bool sorted_has_u32(const uint32_t *v, size_t n, uint32_t x)
{
	size_t i = bolt_bound(v, n, sizeof(*v), 0, sizeof(*v), x, false);
	return i < n && v[i] == x;
}

/* Index of the instruction at offset off of a disassembled function, or -1. */
static long insn_at(const struct fstate *st, uint32_t off)
{
	size_t i = BOLT_BOUND(st->insns, st->nr_insns, off, off, false);
	return i < st->nr_insns && st->insns[i].off == off ? (long)i : -1;
}

/* getBinaryFunctionContainingAddress with the symbol size (no MaxSize). */
static long func_by_size(const struct bolt_binary *b, uint64_t addr)
{
	const struct bolt_func *f = bolt_func_containing(b, addr);
	return f && bolt_func_contains(f, addr) ? f - b->funcs : -1;
}

static long func_index(const struct cfg_ctx *c, const struct bolt_func *f)
{
	return f - c->b->funcs;
}

/* NameResolver::restore: NAME/ID -> NAME. */
static size_t restored_len(const char *name)
{
	const char *slash = strchr(name, '/');
	return slash ? (size_t)(slash - name) : strlen(name);
}

/* registerFragment: is frag named PARENT.cold[.N]? Link them if so. */
static bool register_fragment(struct cfg_ctx *c, struct bolt_func *frag, struct bolt_func *parent)
{
	size_t pl = restored_len(parent->name), fl = restored_len(frag->name), k;
	const char *rest;

	if (fl < pl + 5 || strncmp(frag->name, parent->name, pl) || strncmp(frag->name + pl, ".cold", 5))
		return false;
	rest = frag->name + pl + 5;
	if (rest < frag->name + fl) {
		if (*rest != '.' || rest + 1 >= frag->name + fl)
			return false;
		for (rest++; rest < frag->name + fl; rest++)
			if (*rest < '0' || *rest > '9')
				return false;
	}
	for (k = 0; k < frag->nr_parents; k++)
		if (frag->parents[k] == (uint32_t)func_index(c, parent))
			return true;
	frag->parents = xrealloc(frag->parents, (frag->nr_parents + 1) * sizeof(*frag->parents));
	frag->parents[frag->nr_parents++] = (uint32_t)func_index(c, parent);
	if (!c->b->relocs) {
		frag->simple = false;
		parent->simple = false;
	}
	return true;
}

/* --- jump tables ------------------------------------------------------------------ */

static struct jump_table *jt_containing(struct cfg_ctx *c, uint64_t addr)
{
	size_t lo = BOLT_BOUND(c->jts, c->nr_jts, addr, addr, true);
	struct jump_table *jt;

	if (!lo)
		return NULL;
	jt = &c->jts[lo - 1];
	if (jt->addr + jt->nr * (jt->pic ? 4 : 8) > addr || (!jt->nr && jt->addr == addr))
		return jt;
	return NULL;
}

static void jt_get_or_create(struct cfg_ctx *c, uint64_t addr, bool pic, long fi)
{
	size_t i;

	if (jt_containing(c, addr))
		return;
	GROW(c->jts, c->cap_jts, c->nr_jts + 1);
	for (i = c->nr_jts; i > 0 && c->jts[i - 1].addr > addr; i--)
		c->jts[i] = c->jts[i - 1];
	c->jts[i] = (struct jump_table){ .addr = addr, .pic = pic, .func = (uint32_t)fi };
	c->nr_jts++;
}

static bool read_bytes(const struct bolt_binary *b, uint64_t addr, void *out, size_t n)
{
	const struct bolt_section *s = bolt_section_at(b, addr);
	if (!s || !s->data || n > s->size - (addr - s->addr))
		return false;
	memcpy(out, s->data + (addr - s->addr), n);
	return true;
}

/* BinaryContext::analyzeJumpTable: is there a jump table of fi at addr? Its
 * entries go to *out (offsets in the function, UINT32_MAX elsewhere). */
static bool analyze_jt(struct cfg_ctx *c, uint64_t addr, bool pic, long fi, uint64_t next_jt,
		       uint32_t **out, size_t *nr_out)
{
	struct bolt_binary *b = c->b;
	struct bolt_func *f = &b->funcs[fi];
	const struct bolt_section *sec = bolt_section_at(b, addr);
	uint64_t upper, esize = pic ? 4 : 8, ea, real = 0;
	bool unreachable = false;
	size_t cap = 0;

	if (!sec)
		return false;
	upper = sec->addr + sec->size;
	if (next_jt && next_jt < upper)
		upper = next_jt;
	for (ea = addr; upper >= esize && ea <= upper - esize; ea += esize) {
		uint64_t value;
		long ti;

		if (b->relocs && !bolt_sorted_has(pic ? b->data_pcrel : b->data_abs,
						  pic ? b->nr_data_pcrel : b->nr_data_abs, ea))
			break;
		if (pic) {
			int32_t v32;
			if (!read_bytes(b, ea, &v32, 4))
				break;
			value = addr + (uint64_t)(int64_t)v32;
		} else if (!read_bytes(b, ea, &value, 8)) {
			break;
		}
		if (value == f->addr + f->size) {
			if (out)
				add_u32(out, nr_out, &cap, (uint32_t)f->size);
			unreachable = true;
			continue;
		}
		ti = func_by_size(b, value);
		if (!bolt_func_contains(f, value)) {
			struct bolt_func *t = ti >= 0 ? &b->funcs[ti] : NULL;
			if (!t || !(f->fragment ? register_fragment(c, f, t) :
				    t->fragment && register_fragment(c, t, f)))
				break;
		}
		if (value == f->addr)
			break;
		if (c->st[ti].disassembled && insn_at(&c->st[ti], (uint32_t)(value - b->funcs[ti].addr)) < 0)
			break;
		real++;
		if (out)
			add_u32(out, nr_out, &cap, ti == fi ? (uint32_t)(value - f->addr) : UINT32_MAX);
	}
	return real + unreachable >= 2;
}

enum mem_type { MEM_UNKNOWN, MEM_JT, MEM_PIC_JT };

static enum mem_type analyze_memory(struct cfg_ctx *c, uint64_t addr, long fi)
{
	const struct bolt_section *sec = bolt_section_at(c->b, addr);
	if (!sec || !sec->data || sec->text)
		return MEM_UNKNOWN;
	if (analyze_jt(c, addr, true, fi, 0, NULL, NULL))
		return MEM_PIC_JT;
	if (analyze_jt(c, addr, false, fi, 0, NULL, NULL))
		return MEM_JT;
	return MEM_UNKNOWN;
}

/* --- references -------------------------------------------------------------------- */

/* BinaryContext::handleAddressRef */
static void address_ref(struct cfg_ctx *c, long fi, uint64_t addr, bool pcrel)
{
	struct bolt_func *f = &c->b->funcs[fi];
	struct fstate *st = &c->st[fi];
	const struct bolt_section *sec = bolt_section_at(c->b, addr);

	if (sec && sec->text) {
		if (bolt_func_contains(f, addr)) {
			if (addr != f->addr) {
				f->internal_label_ref = true;
				bolt_func_add_entry(f, (uint32_t)(addr - f->addr));
			}
		} else {
			GROW(st->interproc, st->cap_interproc, st->nr_interproc + 1);
			st->interproc[st->nr_interproc++] = addr;
		}
	}
	if (c->b->relocs && pcrel && analyze_memory(c, addr, fi) == MEM_PIC_JT)
		jt_get_or_create(c, addr, true, fi);
}

/* --- indirect branches ------------------------------------------------------------------ */

enum ibr { IBR_UNKNOWN, IBR_TAIL_CALL, IBR_JT, IBR_PIC_JT, IBR_FIXED };

/* X86MCPlusBuilder::analyzePICJumpTable: lea JT(%rip),R1; movslq (R1,idx,4),R2; add R1,R2. */
static enum ibr analyze_pic(const struct insn *v, long add, long begin, unsigned r1, unsigned r2, long *memloc)
{
	long j, mov = -1;

	for (j = add - 1; j >= begin; j--) {
		const struct insn *in = &v[j];
		if (!(in->defs & ((1u << r1) | (1u << r2))))
			continue;
		if (mov < 0) {
			if (!(in->flags & F_MOVSXD))
				break;
			if (in->r1 != r2) {
				unsigned t = r1;
				r1 = r2;
				r2 = t;
			}
			if (in->r1 != r2)
				break;
			if (in->mem.index == NO_REG || in->mem.base != r1 || in->mem.scale != 4 ||
			    in->mem.disp != 0 || in->mem.seg != NO_REG)
				break;
			mov = j;
		} else {
			if (!(in->defs & (1u << r1)))
				continue;
			if (!(in->flags & F_LEA64) || in->r1 != r1)
				break;
			if (in->mem.base != REG_RIP || in->mem.index != NO_REG || in->mem.seg != NO_REG)
				break;
			*memloc = j;
			return IBR_PIC_JT;
		}
	}
	return IBR_UNKNOWN;
}

/* X86MCPlusBuilder::analyzeIndirectBranch over v[begin..jmp). */
static enum ibr analyze_indirect(const struct insn *v, long begin, long jmp, long *memloc)
{
	enum ibr type = IBR_UNKNOWN;
	const struct mem *m;
	long k;

	*memloc = -1;
	if (v[jmp].flags & F_REGJMP) {
		unsigned r1 = v[jmp].r1;
		long found = -1;
		if (r1 >= 16)
			return IBR_UNKNOWN;
		for (k = jmp - 1; k >= begin; k--) {
			const struct insn *in = &v[k];
			if (!(in->defs & (1u << r1)))
				continue;
			if (in->flags & F_MOVLOAD) {
				found = k;
				break;
			}
			if (in->flags & F_ADD64RR) {
				unsigned r2 = in->r2;
				if (r2 == r1 || r2 >= 16)
					return IBR_UNKNOWN;
				type = analyze_pic(v, k, begin, r1, r2, &found);
				break;
			}
			return IBR_UNKNOWN;
		}
		if (found < 0)
			return IBR_UNKNOWN;
		k = found;
	} else {
		k = jmp;
	}
	if (!v[k].has_mem)
		return IBR_UNKNOWN;
	m = &v[k].mem;
	if ((m->base != NO_REG && m->base != REG_RIP) || m->seg != NO_REG)
		return IBR_UNKNOWN;
	if (k == jmp && (!m->scale || m->index == NO_REG)) {
		*memloc = k;
		return IBR_FIXED;
	}
	if (type == IBR_PIC_JT) {
		if (m->scale != 1 || m->base != REG_RIP)
			return IBR_UNKNOWN;
	} else if (m->scale != 8) {
		return IBR_UNKNOWN;
	}
	*memloc = k;
	return type;
}

/* BinaryFunction::processIndirectBranch and handleIndirectBranch. */
static void indirect_branch(struct cfg_ctx *c, long fi, long idx)
{
	struct bolt_binary *b = c->b;
	struct bolt_func *f = &b->funcs[fi];
	struct fstate *st = &c->st[fi];
	struct insn *in = &st->insns[idx];
	const struct bolt_section *sec;
	const struct insn *m;
	struct jump_table *jt;
	enum ibr type;
	enum mem_type mt;
	uint64_t array;
	long ml;

	type = analyze_indirect(st->insns, 0, idx, &ml);
	if (type == IBR_UNKNOWN && ml < 0)
		goto unknown;
	m = &st->insns[ml];
	array = (uint64_t)m->mem.disp;
	if (m->mem.base == REG_RIP)
		array += f->addr + m->off + m->size;
	sec = bolt_section_at(b, array);
	if (!sec || !sec->data)
		goto tail_call;
	if (type == IBR_FIXED) {
		uint64_t target;
		if (!read_bytes(b, array, &target, 8) || sec->writable)
			goto unknown;
		if (bolt_func_contains(f, target)) {
			in->kind = K_JMP;
			in->target = target;
			add_u32(&st->labels, &st->nr_labels, &st->cap_labels, (uint32_t)(target - f->addr));
			GROW(st->taken, st->cap_taken, st->nr_taken + 1);
			st->taken[st->nr_taken++] = (struct branch){ in->off, (uint32_t)(target - f->addr) };
			st->fixed_ijmp = true;
		} else {
			in->flags |= F_TAIL;
			GROW(st->interproc, st->cap_interproc, st->nr_interproc + 1);
			st->interproc[st->nr_interproc++] = target;
		}
		return;
	}
	jt = jt_containing(c, array);
	mt = jt ? (jt->pic ? MEM_PIC_JT : MEM_JT) : analyze_memory(c, array, fi);
	if (type == IBR_PIC_JT) {
		if (mt != MEM_PIC_JT)
			goto unknown;
	} else {
		if (mt == MEM_PIC_JT)
			goto unknown;
		if (mt == MEM_UNKNOWN)
			goto tail_call;
	}
	jt_get_or_create(c, array, type == IBR_PIC_JT, fi);
	in->flags |= F_JT;
	in->target = array;
	GROW(st->jt_sites, st->cap_jt_sites, st->nr_jt_sites + 1);
	st->jt_sites[st->nr_jt_sites].off = in->off;
	st->jt_sites[st->nr_jt_sites++].jt = array;
	return;
tail_call:
	in->flags |= F_TAIL;
	return;
unknown:
	add_u32(&st->unknown_ijmps, &st->nr_unknown, &st->cap_unknown, in->off);
}

/* --- disassembly -------------------------------------------------------------------- */

static const uint8_t *func_bytes(const struct bolt_binary *b, const struct bolt_func *f)
{
	const struct bolt_section *s = &b->sections[f->section];
	if (!s->data || f->addr < s->addr || f->addr - s->addr > s->size ||
	    f->max_size > s->size - (f->addr - s->addr))
		return NULL;
	return s->data + (f->addr - s->addr);
}

static bool zero_padding(const uint8_t *code, uint64_t from, uint64_t to)
{
	for (; from < to; from++)
		if (code[from])
			return false;
	return true;
}

/* Code relocations of f at [off, off + size): the referenced address of the
 * first PC-relative one (*pc) and of an absolute one (*abs). */
static void code_relocs(const struct bolt_func *f, uint32_t off, uint32_t size, const uint64_t **pc,
			const uint64_t **abs)
{
	size_t i;
	*pc = *abs = NULL;
	for (i = 0; i < f->nr_code_refs; i++) {
		const struct bolt_code_ref *r = &f->code_refs[i];
		if (r->off < off || r->off >= off + size)
			continue;
		if (r->pcrel) {
			if (!*pc)
				*pc = &r->value;
		} else if (!*abs) {
			*abs = &r->value;
		}
	}
}

/* BinaryFunction::disassemble */
static void disassemble(struct cfg_ctx *c, long fi)
{
	struct bolt_binary *b = c->b;
	struct bolt_func *f = &b->funcs[fi];
	struct fstate *st = &c->st[fi];
	const uint8_t *code = func_bytes(b, f);
	size_t cap = 0;
	uint64_t off;

	if (!code) {
		f->simple = false;
		f->ignored = true;
		return;
	}
	add_u32(&st->labels, &st->nr_labels, &st->cap_labels, 0);
	for (off = 0; off < f->size;) {
		struct insn in, *p;
		uint64_t target;

		if (!decode(c, code + off, (size_t)(f->max_size - off), f->addr + off, (uint32_t)off, &in)) {
			if (zero_padding(code, off, f->size))
				break;
			f->ignored = true;
			f->simple = false;
			return;
		}
		GROW(st->insns, cap, st->nr_insns + 1);
		p = &st->insns[st->nr_insns++];
		*p = in;
		off += in.size;
		if (in.kind == K_JMP || in.kind == K_JCC || in.kind == K_CALL) {
			bool call = in.kind == K_CALL, local = false;
			target = in.target;
			if (in.flags & F_UNSUPPORTED) {
				long ti = func_by_size(b, target);
				f->ignored = true;
				f->simple = false;
				if (ti >= 0) {
					b->funcs[ti].ignored = true;
					b->funcs[ti].simple = false;
				}
			}
			if (call && bolt_func_contains(f, target) && target == f->addr)
				local = true;   /* recursive call: the function's own symbol */
			if (!local) {
				if (bolt_func_contains(f, target)) {
					add_u32(&st->labels, &st->nr_labels, &st->cap_labels,
						(uint32_t)(target - f->addr));
				} else if (target == f->addr + f->size && target < f->addr + f->max_size) {
					p->kind = K_NOP;   /* __builtin_unreachable(): a jump past the end */
					continue;
				} else {
					GROW(st->interproc, st->cap_interproc, st->nr_interproc + 1);
					st->interproc[st->nr_interproc++] = target;
					if (!call)
						p->flags |= in.kind == K_JMP ? F_TAIL : F_CTC;
					call = true;
				}
			}
			if (!call) {
				GROW(st->taken, st->cap_taken, st->nr_taken + 1);
				st->taken[st->nr_taken++] =
					(struct branch){ p->off, (uint32_t)(target - f->addr) };
			}
			continue;
		}
		if (in.kind == K_IJMP || in.kind == K_ICALL) {
			if (in.kind == K_IJMP)
				indirect_branch(c, fi, (long)st->nr_insns - 1);
			p = &st->insns[st->nr_insns - 1];
			if (p->kind == K_IJMP || p->kind == K_ICALL) {
				if (mem_target(f, p, &target))
					address_ref(c, fi, target, true);
			}
			continue;
		}
		{
			const uint64_t *pc, *abs;
			code_relocs(f, p->off, p->size, &pc, &abs);
			if (abs)
				address_ref(c, fi, *abs, false);
			if (pc)
				address_ref(c, fi, *pc, true);
			else if (mem_target(f, p, &target))
				address_ref(c, fi, target, true);
		}
	}
	st->disassembled = true;
}

/* BinaryFunction::scanExternalRefs of a function lite mode skips: its jumps
 * and references into processed functions are entry points there. */
static void scan_external_refs(struct cfg_ctx *c, long fi)
{
	struct bolt_binary *b = c->b;
	struct bolt_func *f = &b->funcs[fi];
	const uint8_t *code = func_bytes(b, f);
	uint64_t off;

	if (!code)
		return;
	for (off = 0; off < f->size;) {
		struct insn in;
		uint64_t target;
		long ti;

		if (!decode(c, code + off, (size_t)(f->max_size - off), f->addr + off, (uint32_t)off, &in))
			break;
		off += in.size;
		if (mem_target(f, &in, &target))
			;
		else if ((in.kind == K_JMP || in.kind == K_JCC || in.kind == K_CALL))
			target = in.target;
		else
			continue;
		ti = func_by_size(b, target);
		if (ti < 0 || ti == fi || b->funcs[ti].ignored)
			continue;
		if (target != b->funcs[ti].addr)
			bolt_func_add_entry(&b->funcs[ti], (uint32_t)(target - b->funcs[ti].addr));
	}
}

/* BinaryContext::processInterproceduralReferences */
static void interprocedural(struct cfg_ctx *c, long fi)
{
	struct bolt_binary *b = c->b;
	struct bolt_func *f = &b->funcs[fi];
	struct fstate *st = &c->st[fi];
	size_t i;

	for (i = 0; i < st->nr_interproc; i++) {
		uint64_t addr = st->interproc[i];
		const struct bolt_section *sec;
		struct bolt_func *t;
		long ti;

		if (!addr)
			continue;
		ti = func_by_size(b, addr);
		if (ti == fi)
			continue;
		if (ti >= 0) {
			t = &b->funcs[ti];
			if (t->fragment)
				register_fragment(c, t, f);
			if (addr != t->addr)
				bolt_func_add_entry(t, (uint32_t)(addr - t->addr));
			continue;
		}
		sec = bolt_section_at(b, addr);
		if (!sec || !sec->text || !strcmp(sec->name, ".plt") || !strcmp(sec->name, ".plt.got"))
			continue;
		t = bolt_func_containing(b, addr);
		if (t && t->simple)
			t->max_size = t->size;   /* an object in its padding */
	}
}

/* BinaryContext::populateJumpTables */
static void populate_jump_tables(struct cfg_ctx *c)
{
	size_t i, k;

	for (i = 0; i < c->nr_jts; i++) {
		struct jump_table *jt = &c->jts[i];
		struct bolt_func *f = &c->b->funcs[jt->func];
		uint32_t *v = NULL;
		size_t n = 0;

		if (!f->simple)
			continue;
		if (!analyze_jt(c, jt->addr, jt->pic, jt->func, i + 1 < c->nr_jts ? c->jts[i + 1].addr : 0,
				&v, &n)) {
			free(v);
			f->simple = false;   /* perf2bolt stops here ("jump table heuristic failure") */
			continue;
		}
		jt->offsets = v;
		jt->nr = n;
		for (k = 0; k < n; k++) {
			if (v[k] == UINT32_MAX)
				c->st[jt->func].skipped_fragment = true;
			else if (v[k] != f->size)
				bolt_func_add_ext_ref(f, v[k]);
		}
	}
}

/* postProcessEntryPoints and postProcessJumpTables */
static void post_process(struct cfg_ctx *c, long fi)
{
	struct bolt_binary *b = c->b;
	struct bolt_func *f = &b->funcs[fi];
	struct fstate *st = &c->st[fi];
	size_t i, k;

	if (f->simple) {
		for (i = 0; i < f->nr_entries; i++) {
			uint32_t off = f->entries[i];
			if (!b->relocs)
				f->simple = false;
			if (!off || insn_at(st, off) >= 0)
				continue;
			if (b->relocs)
				f->ignored = true;
			f->simple = false;
			break;
		}
	}
	for (i = 0; i < c->nr_jts; i++) {
		const struct jump_table *jt = &c->jts[i];
		if (jt->func != (uint32_t)fi)
			continue;
		for (k = 0; k < jt->nr; k++)
			if (jt->offsets[k] != UINT32_MAX && jt->offsets[k] < f->size)
				add_u32(&st->labels, &st->nr_labels, &st->cap_labels, jt->offsets[k]);
	}
	for (i = 0; i < st->nr_jt_sites; i++) {
		const struct jump_table *jt = jt_containing(c, st->jt_sites[i].jt);
		uint64_t e;
		if (!jt)
			continue;
		for (e = (st->jt_sites[i].jt - jt->addr) / (jt->pic ? 4 : 8); e < jt->nr; e++) {
			uint32_t t = jt->offsets[e];
			if (t < f->size) {
				GROW(st->taken, st->cap_taken, st->nr_taken + 1);
				st->taken[st->nr_taken++] = (struct branch){ st->jt_sites[i].off, t };
				if (b->relocs)
					bolt_func_add_ext_ref(f, t);
			}
		}
	}
	if (b->relocs && f->nr_ext_refs)
		for (i = 0; i < st->nr_unknown; i++)
			for (k = 0; k < f->nr_ext_refs; k++)
				if (f->ext_refs[k] != f->size) {
					GROW(st->taken, st->cap_taken, st->nr_taken + 1);
					st->taken[st->nr_taken++] =
						(struct branch){ st->unknown_ijmps[i], f->ext_refs[k] };
				}
}

/* BinaryContext::hasValidCodePadding */
static bool valid_padding(struct cfg_ctx *c, const struct bolt_func *f)
{
	const uint8_t *code = func_bytes(c->b, f);
	uint64_t off = f->size;
	struct insn in;
	bool moved;

	if (f->size == f->max_size || !code)
		return true;
	while (off < f->max_size &&
	       decode(c, code + off, (size_t)(f->max_size - off), f->addr + off, (uint32_t)off, &in) &&
	       in.kind == K_INT3)
		off += in.size;
	if (off > f->size && off == f->max_size)
		return true;
	do {
		moved = false;
		while (off < f->max_size &&
		       decode(c, code + off, (size_t)(f->max_size - off), f->addr + off, (uint32_t)off, &in) &&
		       in.kind == K_NOP) {
			off += in.size;
			moved = true;
		}
		while (off < f->max_size &&
		       decode(c, code + off, (size_t)(f->max_size - off), f->addr + off, (uint32_t)off, &in) &&
		       in.kind == K_JMP && in.target >= f->addr + off + in.size &&
		       in.target <= f->addr + f->max_size) {
			off += in.size;
			moved = true;
		}
		while (off < f->max_size && !code[off]) {
			off++;
			moved = true;
		}
	} while (moved);
	return off == f->max_size;
}

/* BinaryFunction::parseLSDA: landing pads of the function's calls start
 * blocks (C++ exceptions, .gcc_except_table). */
static void parse_lsda(struct cfg_ctx *c, long fi)
{
	struct bolt_binary *b = c->b;
	struct bolt_func *f = &b->funcs[fi];
	struct fstate *st = &c->st[fi];
	const struct bolt_section *sec = bolt_section_at(b, f->lsda);
	const uint8_t *p, *end, *cs_end;
	uint64_t lp_start = 0, cs_len, v;
	unsigned enc;

	if (!sec || !sec->data)
		return;
	p = sec->data + (f->lsda - sec->addr);
	end = sec->data + sec->size;
	if (p >= end)
		return;
	enc = *p++;
	if (enc != 0xff && bolt_read_encoded(&p, end, enc, sec->addr + (uint64_t)(p - sec->data), &v))
		lp_start = v - f->addr;
	if (p >= end)
		return;
	if (*p++ != 0xff)
		bolt_read_uleb(&p, end);                /* type table offset */
	if (p >= end)
		return;
	enc = *p++;
	cs_len = bolt_read_uleb(&p, end);
	if (cs_len > (uint64_t)(end - p))
		return;
	cs_end = p + cs_len;
	while (p < cs_end) {
		uint64_t start, len, lp, lp_off;
		long k;
		bool has_lp = false;

		if (!bolt_read_encoded(&p, cs_end, enc, sec->addr + (uint64_t)(p - sec->data), &start) ||
		    !bolt_read_encoded(&p, cs_end, enc, sec->addr + (uint64_t)(p - sec->data), &len) ||
		    !bolt_read_encoded(&p, cs_end, enc, sec->addr + (uint64_t)(p - sec->data), &lp))
			return;
		bolt_read_uleb(&p, cs_end);             /* action */
		lp_off = lp_start + lp;
		if (lp_off > f->size) {
			st->skipped_fragment = true;    /* a landing pad in another fragment */
			return;
		}
		if (lp && insn_at(st, (uint32_t)lp_off) >= 0) {
			add_u32(&st->labels, &st->nr_labels, &st->cap_labels, (uint32_t)lp_off);
			has_lp = true;
		}
		k = insn_at(st, (uint32_t)start);
		for (; k >= 0 && k < (long)st->nr_insns && st->insns[k].off < start + len; k++) {
			const struct insn *in = &st->insns[k];
			bool call = in->kind == K_CALL || in->kind == K_ICALL || (in->flags & F_TAIL);
			if (call && has_lp)
				add_u32(&st->landing_pads, &st->nr_lps, &st->cap_lps, (uint32_t)lp_off);
		}
	}
}

/* --- basic blocks ------------------------------------------------------------------- */

struct block {
	uint32_t offset;
	long first, last;           /* instruction indexes */
	uint32_t *succs;            /* block indexes */
	size_t nr_succs, cap_succs;
};

static void add_succ(struct block *bb, uint32_t to)
{
	size_t i;
	for (i = 0; i < bb->nr_succs; i++)
		if (bb->succs[i] == to)
			return;
	add_u32(&bb->succs, &bb->nr_succs, &bb->cap_succs, to);
}

static long block_at(const struct block *v, size_t n, uint32_t off)
{
	size_t i = BOLT_BOUND(v, n, offset, off, false);
	return i < n && v[i].offset == off ? (long)i : -1;
}

static long block_holding(const struct block *v, size_t n, uint32_t off)
{
	return (long)BOLT_BOUND(v, n, offset, off, true) - 1;
}

static void unknown_control_flow(const struct bolt_func *f, struct block *v, size_t n, struct block *bb)
{
	size_t i;
	bb->nr_succs = 0;
	for (i = 0; i < f->nr_ext_refs; i++) {
		long t = block_at(v, n, f->ext_refs[i]);
		if (t >= 0)
			add_succ(bb, (uint32_t)t);
	}
}

/* BinaryFunction::postProcessIndirectBranches; false: the function is not simple. */
static bool post_process_ijmps(struct cfg_ctx *c, long fi, struct block *v, size_t n)
{
	struct bolt_binary *b = c->b;
	struct bolt_func *f = &b->funcs[fi];
	struct fstate *st = &c->st[fi];
	struct insn *last_ijmp = NULL;
	struct block *last_bb = NULL;
	size_t i, nr_jts = 0, num = 0;
	bool unknown = false, strict = b->relocs;
	long k;

	for (i = 0; i < n; i++) {
		struct block *bb = &v[i];
		for (k = bb->first; k <= bb->last; k++) {
			struct insn *in = &st->insns[k];
			long memloc;
			bool epilogue = false;

			if (in->kind != K_IJMP)
				continue;
			if (n == 1) {
				in->flags |= F_TAIL;
				return true;
			}
			num++;
			if (strict && !f->nr_ext_refs) {
				in->flags |= F_TAIL;
				break;
			}
			if (in->flags & (F_TAIL | F_JT)) {
				if (analyze_indirect(st->insns, bb->first, k, &memloc) != IBR_UNKNOWN || memloc >= 0)
					continue;
				if (!strict)
					return false;
				if (in->flags & F_TAIL) {
					in->flags &= (uint16_t)~F_TAIL;
				} else {
					const struct jump_table *jt = jt_containing(c, in->target);
					last_ijmp = in;
					last_bb = bb;
					in->flags &= (uint16_t)~F_JT;
					if (jt && !jt->pic)
						return false;
				}
				unknown = true;
				unknown_control_flow(f, v, n, bb);
				continue;
			}
			for (memloc = bb->first; memloc <= bb->last; memloc++)
				if (st->insns[memloc].flags & F_POP)
					epilogue = true;
			if (epilogue) {
				in->flags |= F_TAIL;
				bb->nr_succs = 0;
				continue;
			}
			if (!strict)
				return false;
			unknown = true;
			unknown_control_flow(f, v, n, bb);
		}
	}
	if (f->internal_label_ref)
		return false;
	for (i = 0; i < c->nr_jts; i++)
		nr_jts += c->jts[i].func == (uint32_t)fi;
	if (unknown && num == 1 && nr_jts == 1 && last_ijmp) {
		const struct jump_table *jt = jt_containing(c, last_ijmp->target);
		last_ijmp->flags |= F_JT;
		unknown = false;
		last_bb->nr_succs = 0;
		for (i = 0; jt && i < jt->nr; i++) {
			long t = jt->offsets[i] < f->size ? block_at(v, n, jt->offsets[i]) : -1;
			if (t >= 0)
				add_succ(last_bb, (uint32_t)t);
		}
	}
	if (st->fixed_ijmp)
		return false;
	if (unknown && !b->relocs)
		return false;
	return true;
}

/* BinaryFunction::buildCFG */
static void build_cfg(struct cfg_ctx *c, long fi)
{
	struct bolt_binary *b = c->b;
	struct bolt_func *f = &b->funcs[fi];
	struct fstate *st = &c->st[fi];
	struct block *v = NULL;
	size_t n = 0, cap = 0, i, k;
	long insert = -1, prev = -1;
	bool prev_ft = false;

	if (st->nr_labels > 1)
		qsort(st->labels, st->nr_labels, sizeof(*st->labels), cmp_u32);
	for (i = 0; i < st->nr_insns; i++) {
		struct insn *in = &st->insns[i];
		bool label = sorted_has_u32(st->labels, st->nr_labels, in->off) ||
			     sorted_has_u32(f->entries, f->nr_entries, in->off) ||
			     sorted_has_u32(f->labels, f->nr_labels, in->off);
		if (label) {
			prev = insert >= 0 ? insert : prev;
			GROW(v, cap, n + 1);
			memset(&v[n], 0, sizeof(v[n]));
			v[n].offset = in->off;
			v[n].first = (long)i;
			insert = (long)n++;
		}
		if (insert < 0) {
			const struct insn *pi = &st->insns[v[prev].last];
			if (is_uncond_branch(in) && !is_uncond_branch(pi) && !(pi->flags & F_CTC) && pi->kind != K_RET) {
				insert = prev;
			} else {
				GROW(v, cap, n + 1);
				memset(&v[n], 0, sizeof(v[n]));
				v[n].offset = in->off;
				v[n].first = (long)i;
				insert = (long)n++;
			}
		}
		v[insert].last = (long)i;
		if (is_terminator(in)) {
			prev = insert;
			insert = -1;
		}
	}
	if (!n) {
		f->simple = false;
		goto out;
	}
	for (i = 0; i < st->nr_taken; i++) {
		long from = block_holding(v, n, st->taken[i].from), to = block_at(v, n, st->taken[i].to);
		if (from < 0 || to < 0) {
			f->simple = false;   /* perf2bolt stops: "inconsistent branch found" */
			goto out;
		}
		add_succ(&v[from], (uint32_t)to);
	}
	for (i = 0; i < n; i++) {
		const struct insn *last = &st->insns[v[i].last];
		if (prev_ft)
			add_succ(&v[i - 1], (uint32_t)i);
		if (!v[i].nr_succs)
			prev_ft = !is_terminator(last) || (last->flags & F_CTC);
		else if (v[i].nr_succs == 1)
			prev_ft = last->kind == K_JCC;
		else
			prev_ft = false;
	}
	if (!post_process_ijmps(c, fi, v, n))
		f->simple = false;
	f->blocks = xcalloc(n, sizeof(*f->blocks));
	f->nr_blocks = n;
	for (i = 0; i < n; i++) {
		struct bolt_block *bb = &f->blocks[i];
		const struct insn *last = &st->insns[v[i].last];
		bb->offset = v[i].offset;
		bb->last = last->off;
		bb->ends_in_call = last->kind == K_CALL || last->kind == K_ICALL || (last->flags & (F_TAIL | F_CTC));
		bb->entry = !v[i].offset || sorted_has_u32(f->entries, f->nr_entries, v[i].offset);
		for (k = 0; k < st->nr_lps && !bb->landing_pad; k++)
			bb->landing_pad = st->landing_pads[k] == v[i].offset;
		for (k = 0; k < v[i].nr_succs; k++)
			if (v[i].succs[k] == i + 1)
				bb->next_is_succ = true;
	}
out:
	for (i = 0; i < n; i++)
		free(v[i].succs);
	free(v);
}

long bolt_block_containing(const struct bolt_func *f, uint64_t offset)
{
	size_t lo;
	uint64_t end;

	if (offset > f->size || !f->nr_blocks)
		return -1;
	lo = BOLT_BOUND(f->blocks, f->nr_blocks, offset, offset, true);
	if (!lo)
		return -1;
	end = lo < f->nr_blocks ? f->blocks[lo].offset : f->size;
	return offset < end ? (long)lo - 1 : -1;
}

/* --- the driver ------------------------------------------------------------------- */

static bool processed(const struct bolt_binary *b, const struct bolt_func *f)
{
	size_t k;
	if (f->ignored || f->plt)
		return false;
	if (b->relocs)
		return true;
	if (f->fragment && f->nr_parents) {
		for (k = 0; k < f->nr_parents; k++)
			if (!processed(b, &b->funcs[f->parents[k]]))
				return false;
		return true;
	}
	return f->fragment || f->profiled;
}

static void free_state(struct fstate *st)
{
	free(st->insns);
	free(st->labels);
	free(st->taken);
	free(st->unknown_ijmps);
	free(st->jt_sites);
	free(st->interproc);
	free(st->landing_pads);
}

int bolt_build_cfgs(struct bolt_binary *b)
{
	struct cfg_ctx c = { .b = b, .cs = b->cs, .ci = b->cs_insn };
	bool *proc;
	size_t i;

	if (b->analyzed)
		return 0;
	b->analyzed = true;
	c.st = xcalloc(b->nr_funcs + 1, sizeof(*c.st));
	proc = xcalloc(b->nr_funcs + 1, sizeof(*proc));
	for (i = 0; i < b->nr_funcs; i++) {
		struct bolt_func *f = &b->funcs[i];
		proc[i] = processed(b, f);
		if (!proc[i]) {
			if (!f->ignored)
				f->ignored = !b->relocs;
			f->simple = false;
		}
	}
	for (i = 0; i < b->nr_funcs; i++) {
		struct bolt_func *f = &b->funcs[i];
		if (!f->size) {
			f->simple = false;
			continue;
		}
		if (proc[i])
			disassemble(&c, (long)i);
		else if (!b->relocs)
			scan_external_refs(&c, (long)i);
	}
	for (i = 0; i < b->nr_funcs; i++)
		if (c.st[i].disassembled)
			interprocedural(&c, (long)i);
	populate_jump_tables(&c);
	for (i = 0; i < b->nr_funcs; i++)
		if (c.st[i].disassembled)
			post_process(&c, (long)i);
	for (i = 0; i < b->nr_funcs; i++) {
		struct bolt_func *f = &b->funcs[i];
		if (f->ignored || valid_padding(&c, f))
			continue;
		if (b->relocs) {
			f->ignored = true;
			f->simple = false;
		} else {
			f->max_size = f->size;
		}
	}
	for (i = 0; i < b->nr_funcs; i++)
		if (c.st[i].disassembled && b->funcs[i].simple && !b->funcs[i].ignored && b->funcs[i].lsda &&
		    !c.st[i].skipped_fragment)
			parse_lsda(&c, (long)i);
	for (i = 0; i < b->nr_funcs; i++) {
		struct bolt_func *f = &b->funcs[i];
		if (c.st[i].disassembled && f->simple && !f->ignored)
			build_cfg(&c, (long)i);
		else
			f->simple = false;
		free_state(&c.st[i]);
	}
	for (i = 0; i < c.nr_jts; i++)
		free(c.jts[i].offsets);
	free(c.jts);
	free(c.st);
	free(proc);
	return 0;
}
