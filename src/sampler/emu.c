/* emu.c — register and memory arithmetic ahead of the thread: the general
 * registers and the flags that straight-line code computes from registers,
 * constants and memory, so that the planner can resolve a conditional branch
 * (or an indirect one, or a return) without stopping the thread there.
 *
 * Only the instructions below are modelled exactly (8- to 64-bit operands,
 * a register or memory); whatever else an instruction writes becomes unknown
 * (capstone's access lists, flags always). Memory is read through mem.h,
 * which trusts only what the thread alone can change; the path's own stores
 * are kept in the emulator (newest first when read back); a store whose
 * address is unknown, or an instruction that writes memory in ways not
 * modelled, makes all memory unknown for the rest of the path. */
#include <capstone/capstone.h>
#include <string.h>

#include "sampler/emu.h"
#include "sampler/sse.h"
#include "x86/x86.h"

enum { F_CF = 1, F_PF = 2, F_ZF = 4, F_SF = 8, F_OF = 16, F_AF = 32, F_ALL = 63 };

enum uop_kind {
	U_NONE,     /* no register or flag effect (nop, stores of registers) */
	U_MOV,      /* dst = src or imm (zero-extends at width 4) */
	U_MOVX,     /* movzx/movsx/movsxd: dst = extend(src, src_width) */
	U_LEA,      /* dst = base + index*scale + imm */
	U_ALU,      /* add sub cmp and or xor test: flags, and dst unless cmp/test */
	U_INC, U_DEC, U_NEG,
	U_SHL, U_SHR, U_SAR, U_ROL, U_ROR,    /* by imm or cl (src 1) */
	U_IMUL,     /* dst = src * (imm or dst) */
	U_PUSH, U_POP,
	U_CMOV,     /* dst = src if cond (a 32-bit dst is zero-extended either way) */
	U_SETCC,    /* 8-bit dst = cond */
	U_NOT,      /* dst = ~dst */
	U_CQO,      /* cwd, cdq, cqo: rdx (width) = the sign of rax */
	U_XCHG,     /* dst <-> src (a register; dst may be memory) */
	U_XADD,     /* dst, src = dst + src, dst: flags of the add */
	U_CMPXCHG,  /* cmp rax, dst; then equal: dst = src, else rax = dst */
	U_MULDIV,   /* mul, imul, div, idiv of rdx:rax by src (32 and 64 bits), by id */
	U_BITS,     /* tzcnt, lzcnt, popcnt, bsf, bsr; bzhi (index in u->index), by id */
	U_BT,       /* bt, bts, btr, btc of a register, or memory by an immediate, by id */
	U_STOS,     /* stos (rep when sign): in exact runs; else as U_KILL */
	U_KILL,     /* anything else: the kill mask and the flags become unknown */
	U_SSE,      /* sse.c's, in exact runs; else as U_KILL */
};

/* add ... test are the planner's old ones; adc and sbb need CF */
enum alu { A_ADD, A_SUB, A_CMP, A_AND, A_OR, A_XOR, A_TEST, A_ADC, A_SBB };

#define NO_REG X86_NO_GPR
#define MEM SWB_MEM_OPND

enum { SEG_NONE, SEG_FS, SEG_GS };

/* A register operand of 32 or 64 bits (also 8 and 16 with any_width, but
 * not AH..BH); NO_REG otherwise. */
static unsigned reg_operand(const cs_x86_op *op, int *bits, bool any_width)
{
	unsigned g;

	if (op->type != X86_OP_REG)
		return NO_REG;
	g = x86_gpr(op->reg, bits);
	if (g == NO_REG || !*bits || (!any_width && *bits < 32))
		return NO_REG;
	return g;
}

static unsigned full_gpr(const cs_x86_op *op, int *bits)
{
	return reg_operand(op, bits, false);
}

/* Instructions that write no general register but their explicit operands
 * (the ISA says so; capstone's implicit lists miss some, e.g. cmpxchg's rax). */
static bool explicit_only(unsigned id)
{
	switch (id) {
	case X86_INS_MOV: case X86_INS_MOVZX: case X86_INS_MOVSX: case X86_INS_MOVSXD: case X86_INS_MOVABS:
	case X86_INS_ADD: case X86_INS_SUB: case X86_INS_AND: case X86_INS_OR: case X86_INS_XOR:
	case X86_INS_ADC: case X86_INS_SBB: case X86_INS_CMP: case X86_INS_TEST: case X86_INS_LEA:
	case X86_INS_NOT: case X86_INS_NEG: case X86_INS_INC: case X86_INS_DEC:
	case X86_INS_SHL: case X86_INS_SHR: case X86_INS_SAR: case X86_INS_ROL: case X86_INS_ROR:
	case X86_INS_RCL: case X86_INS_RCR: case X86_INS_SHLD: case X86_INS_SHRD:
	case X86_INS_BSF: case X86_INS_BSR: case X86_INS_TZCNT: case X86_INS_LZCNT: case X86_INS_POPCNT:
	case X86_INS_BT: case X86_INS_BTS: case X86_INS_BTR: case X86_INS_BTC: case X86_INS_BSWAP:
	case X86_INS_MOVBE: case X86_INS_ANDN: case X86_INS_SARX: case X86_INS_SHLX: case X86_INS_SHRX:
	case X86_INS_RORX:
		return true;
	default:
		return false;
	}
}

/* Vector and x87 instructions: they write no general register they do not
 * name (pcmp*stri write rcx: not here). Their groups are read in place: asked
 * one by one (cs_insn_group()), they took a third of this file's time. */
static bool vector_only(const cs_insn *in)
{
	const cs_detail *d = in->detail;
	uint8_t i;

	switch (in->id) {
	case X86_INS_PCMPESTRI: case X86_INS_PCMPISTRI: case X86_INS_VPCMPESTRI: case X86_INS_VPCMPISTRI:
		return false;
	default:
		break;
	}
	for (i = 0; i < d->groups_count; i++)
		switch (d->groups[i]) {
		case X86_GRP_SSE1: case X86_GRP_SSE2: case X86_GRP_SSE3: case X86_GRP_SSE41: case X86_GRP_SSE42:
		case X86_GRP_SSE4A: case X86_GRP_SSSE3: case X86_GRP_AVX: case X86_GRP_AVX2: case X86_GRP_AVX512:
		case X86_GRP_FMA: case X86_GRP_FMA4: case X86_GRP_F16C: case X86_GRP_FPU:
			return true;
		default:
			break;
		}
	return false;
}

/* The general registers an unmodelled instruction may write, as a mask:
 * its register operands that it writes when it has no other effect, those
 * it names for vector code, all of them for anything else (string
 * instructions, cmpxchg, mul, cpuid... whose implicit operands capstone
 * does not always list). */
static uint16_t written(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;
	uint16_t mask = 0, named = 0;
	uint8_t i;
	int bits;

	for (i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];
		unsigned g;

		if (op->type != X86_OP_REG || (g = x86_gpr(op->reg, &bits)) == NO_REG)
			continue;
		named |= (uint16_t)(1u << g);
		if (!op->access || (op->access & CS_AC_WRITE))
			mask |= (uint16_t)(1u << g);
	}
	if (explicit_only(in->id))
		return mask;
	if (vector_only(in))
		return named;
	return 0xffff;
}

/* The jcc that tests the condition of a cmovcc or setcc (*set says which);
 * 0 for other instructions. */
static unsigned cond_of(unsigned id, bool *set)
{
	static const unsigned t[][3] = {
		{ X86_INS_CMOVA, X86_INS_SETA, X86_INS_JA }, { X86_INS_CMOVAE, X86_INS_SETAE, X86_INS_JAE },
		{ X86_INS_CMOVB, X86_INS_SETB, X86_INS_JB }, { X86_INS_CMOVBE, X86_INS_SETBE, X86_INS_JBE },
		{ X86_INS_CMOVE, X86_INS_SETE, X86_INS_JE }, { X86_INS_CMOVNE, X86_INS_SETNE, X86_INS_JNE },
		{ X86_INS_CMOVG, X86_INS_SETG, X86_INS_JG }, { X86_INS_CMOVGE, X86_INS_SETGE, X86_INS_JGE },
		{ X86_INS_CMOVL, X86_INS_SETL, X86_INS_JL }, { X86_INS_CMOVLE, X86_INS_SETLE, X86_INS_JLE },
		{ X86_INS_CMOVO, X86_INS_SETO, X86_INS_JO }, { X86_INS_CMOVNO, X86_INS_SETNO, X86_INS_JNO },
		{ X86_INS_CMOVS, X86_INS_SETS, X86_INS_JS }, { X86_INS_CMOVNS, X86_INS_SETNS, X86_INS_JNS },
		{ X86_INS_CMOVP, X86_INS_SETP, X86_INS_JP }, { X86_INS_CMOVNP, X86_INS_SETNP, X86_INS_JNP },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i][0] == id || t[i][1] == id) {
			*set = t[i][1] == id;
			return t[i][2];
		}
	return 0;
}

/* Fill u's memory operand from op; false when its address cannot be computed
 * (32-bit addressing, other segments). */
bool swb_uop_mem(const cs_insn *in, const cs_x86_op *op, struct swb_uop *u)
{
	unsigned g;
	int bits;

	u->maddr = false;
	u->msize = op->size;
	u->mdisp = op->mem.disp;
	u->mbase = u->mindex = NO_REG;
	u->mscale = 0;
	switch (op->mem.segment) {
	case X86_REG_INVALID: case X86_REG_DS: case X86_REG_ES: case X86_REG_SS: case X86_REG_CS:
		u->mseg = SEG_NONE;   /* base 0 in 64-bit mode */
		break;
	case X86_REG_FS: u->mseg = SEG_FS; break;
	case X86_REG_GS: u->mseg = SEG_GS; break;
	default: return false;
	}
	if (op->mem.base == X86_REG_RIP) {
		u->mdisp += (int64_t)(in->address + in->size);
	} else if (op->mem.base != X86_REG_INVALID) {
		if ((g = x86_gpr(op->mem.base, &bits)) == NO_REG || bits != 64)
			return false;
		u->mbase = (uint8_t)g;
	}
	if (op->mem.index != X86_REG_INVALID) {
		if ((g = x86_gpr(op->mem.index, &bits)) == NO_REG || bits != 64)
			return false;
		u->mindex = (uint8_t)g;
		u->mscale = (uint8_t)op->mem.scale;
	}
	u->maddr = true;
	return true;
}

bool swb_insn_stores_implicitly(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	switch (in->id) {
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ:
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSQ:
	case X86_INS_PUSHF: case X86_INS_PUSHFQ: case X86_INS_PUSHAL: case X86_INS_PUSHAW: case X86_INS_ENTER:
	case X86_INS_MASKMOVQ: case X86_INS_MASKMOVDQU: case X86_INS_VMASKMOVDQU:
	case X86_INS_XSAVE: case X86_INS_XSAVE64: case X86_INS_XSAVEC: case X86_INS_XSAVEC64:
	case X86_INS_XSAVEOPT: case X86_INS_XSAVEOPT64: case X86_INS_XSAVES: case X86_INS_XSAVES64:
	case X86_INS_FXSAVE: case X86_INS_FXSAVE64: case X86_INS_FNSAVE: case X86_INS_FNSTENV:
		return true;
	case X86_INS_MOVSD:   /* the string move, not SSE's (which names a register) */
		return x->op_count == 0 || (x->op_count == 2 && x->operands[0].type == X86_OP_MEM &&
					    x->operands[1].type == X86_OP_MEM);
	default:
		return false;
	}
}

/* Unmodelled instructions whose memory operand comes first but is only read. */
static bool reads_first_operand(unsigned id)
{
	switch (id) {
	case X86_INS_BT: case X86_INS_NOP: case X86_INS_CLFLUSH: case X86_INS_CLFLUSHOPT:
	case X86_INS_PREFETCH: case X86_INS_PREFETCHNTA: case X86_INS_PREFETCHT0: case X86_INS_PREFETCHT1:
	case X86_INS_PREFETCHT2: case X86_INS_PREFETCHW:
	case X86_INS_FLD: case X86_INS_FILD: case X86_INS_FLDCW: case X86_INS_LDMXCSR: case X86_INS_VLDMXCSR:
		return true;
	default:
		return false;
	}
}

bool swb_insn_stores_to(const cs_insn *in, int i)
{
	const cs_x86_op *op = &in->detail->x86.operands[i];

	if (op->type != X86_OP_MEM || in->id == X86_INS_LEA)
		return false;
	/* capstone 4's access flags miss the stores of many vector moves
	 * (movups, movdqa, movq to memory...): a destination (the first operand,
	 * Intel order) is taken as written unless known otherwise. */
	if (op->access & CS_AC_WRITE)
		return true;
	if (in->id == X86_INS_XCHG || in->id == X86_INS_XADD || in->id == X86_INS_CMPXCHG)
		return true;
	return i == 0 && !reads_first_operand(in->id);
}

static void kill(const cs_insn *in, struct swb_uop *u)
{
	const cs_x86 *x = &in->detail->x86;
	uint8_t i;

	memset(u, 0, sizeof(*u));
	u->kind = U_KILL;
	u->kill = written(in);
	u->mwrite = swb_insn_stores_implicitly(in) ? MW_ANY : MW_NONE;
	for (i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		if (!swb_insn_stores_to(in, i))
			continue;
		if (u->mwrite == MW_NONE && swb_uop_mem(in, op, u) && op->size >= 1 && op->size <= 64)
			u->mwrite = MW_OPND;
		else
			u->mwrite = MW_ANY;
	}
}

/* Use the memory operand op as the dst or src of a modelled uop (1 to 8
 * bytes); its address may still be unknown (loads then fail, stores make
 * memory unknown). */
static bool use_mem(const cs_insn *in, const cs_x86_op *op, struct swb_uop *u)
{
	if (!op || op->type != X86_OP_MEM || !op->size || op->size > 8 || (op->size & (op->size - 1)))
		return false;
	swb_uop_mem(in, op, u);
	u->mwrite = MW_NONE;
	return true;
}

/* A uop of kind with the memory operand o0 as destination and o1, a
 * register of its width or an immediate, as source. */
static bool to_memory(const cs_insn *in, const cs_x86_op *o0, const cs_x86_op *o1, uint8_t kind,
		      struct swb_uop *u)
{
	unsigned s = NO_REG;
	int b1 = 0;

	if (o0->type != X86_OP_MEM ||
	    !(o1->type == X86_OP_IMM || ((s = reg_operand(o1, &b1, true)) != NO_REG && b1 == 8 * o0->size)) ||
	    !use_mem(in, o0, u))
		return false;
	u->kind = kind;
	u->dst = MEM;
	u->width = o0->size;
	if (o1->type == X86_OP_IMM)
		u->imm = o1->imm;
	else
		u->src = (uint8_t)s;
	return true;
}

/* A uop of kind into a register of b0 bits from o1: an immediate, a
 * register of the same width, or memory of that size. */
static void from_operand(const cs_insn *in, const cs_x86_op *o1, int b0, uint8_t kind, struct swb_uop *u)
{
	unsigned s;
	int b1 = 0;

	if (o1->type == X86_OP_IMM) {
		u->kind = kind;
		u->imm = o1->imm;
	} else if ((s = reg_operand(o1, &b1, true)) != NO_REG && b1 == b0) {
		u->kind = kind;
		u->src = (uint8_t)s;
	} else if (o1->size == b0 / 8 && use_mem(in, o1, u)) {
		u->kind = kind;
		u->src = MEM;
	}
}

/* The two-operand arithmetic of instruction id (A_*), or -1. */
static int alu_of(unsigned id)
{
	switch (id) {
	case X86_INS_ADD: return A_ADD;
	case X86_INS_SUB: return A_SUB;
	case X86_INS_CMP: return A_CMP;
	case X86_INS_AND: return A_AND;
	case X86_INS_OR: return A_OR;
	case X86_INS_XOR: return A_XOR;
	case X86_INS_TEST: return A_TEST;
	default: return -1;
	}
}

/* An 8-bit mov or ALU instruction with ah, ch, dh or bh as an operand
 * (test ah, 8: a flag in a word's second byte). */
static bool high_byte(const cs_insn *in, struct swb_uop *out)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *o0 = &x->operands[0], *o1 = &x->operands[1];
	struct swb_uop t = *out, *u = &t;
	int b0 = 0, b1 = 0;
	unsigned d, s;
	int alu = in->id == X86_INS_MOV ? 0xff : alu_of(in->id);

	if (alu < 0 || x->op_count != 2)
		return false;
	d = o0->type == X86_OP_REG ? x86_gpr(o0->reg, &b0) : NO_REG;
	s = o1->type == X86_OP_REG ? x86_gpr(o1->reg, &b1) : NO_REG;
	if (!((d != NO_REG && !b0) || (s != NO_REG && !b1)))
		return false;   /* neither is a high byte */
	if ((d != NO_REG && b0 > 8) || (s != NO_REG && b1 > 8))
		return false;
	u->high = (uint8_t)((d != NO_REG && !b0 ? SWB_HIGH_DST : 0) | (s != NO_REG && !b1 ? SWB_HIGH_SRC : 0));
	u->width = 1;
	if (d != NO_REG)
		u->dst = (uint8_t)d;
	else if (o0->size == 1 && use_mem(in, o0, u))
		u->dst = MEM;
	else
		return false;   /* unmodelled, as before */
	if (s != NO_REG) {
		u->src = (uint8_t)s;
	} else if (o1->type == X86_OP_IMM) {
		u->src = NO_REG;
		u->imm = o1->imm;
	} else if (u->dst != MEM && o1->size == 1 && use_mem(in, o1, u)) {
		u->src = MEM;
	} else {
		return false;
	}
	u->kind = alu == 0xff ? U_MOV : U_ALU;
	u->alu = alu == 0xff ? 0 : (uint8_t)alu;
	u->mwrite = MW_NONE;
	*out = t;
	return true;
}

/* xchg, xadd, cmpxchg: a register or memory, and a register of the same
 * width (32 or 64 bits; xchg of memory may name the register first). */
static void two_regs(const cs_insn *in, const cs_x86_op *o0, const cs_x86_op *o1, uint8_t kind, struct swb_uop *u)
{
	int b0 = 0, b1 = 0;
	unsigned d, s;

	if (!o0 || !o1)
		return;
	if (kind == U_XCHG && o1->type == X86_OP_MEM) {
		const cs_x86_op *t = o0;

		o0 = o1;
		o1 = t;
	}
	if ((s = full_gpr(o1, &b1)) == NO_REG)
		return;
	if ((d = full_gpr(o0, &b0)) != NO_REG) {
		if (b0 != b1)
			return;
	} else if (o0->size == b1 / 8 && use_mem(in, o0, u)) {
		d = MEM;
	} else {
		return;
	}
	u->kind = kind;
	u->dst = (uint8_t)d;
	u->src = (uint8_t)s;
	u->width = (uint8_t)(b1 / 8);
	u->mwrite = MW_NONE;
}

/* mul, imul, div, idiv of rdx:rax (edx:eax) by a register or memory. */
static void mul_div(const cs_insn *in, const cs_x86_op *o0, struct swb_uop *u)
{
	int b = 0;
	unsigned s = full_gpr(o0, &b);

	if (s == NO_REG) {
		if ((o0->size != 4 && o0->size != 8) || !use_mem(in, o0, u))
			return;
		s = MEM;
		b = 8 * o0->size;
	}
	u->kind = U_MULDIV;
	u->id = (uint16_t)in->id;
	u->dst = NO_REG;
	u->src = (uint8_t)s;
	u->width = (uint8_t)(b / 8);
	u->mwrite = MW_NONE;
}

/* tzcnt, lzcnt, popcnt, bsf, bsr, bzhi: a 32- or 64-bit register from a
 * register or memory of its width (bzhi: and an index register). */
static void bit_scan(const cs_insn *in, struct swb_uop *u)
{
	const cs_x86 *x = &in->detail->x86;
	int b0 = 0, b1 = 0, b2 = 0;
	unsigned d, s, i = NO_REG;

	if (x->op_count != (in->id == X86_INS_BZHI ? 3 : 2) || (d = full_gpr(&x->operands[0], &b0)) == NO_REG)
		return;
	if (in->id == X86_INS_BZHI && ((i = full_gpr(&x->operands[2], &b2)) == NO_REG || b2 != b0))
		return;
	if ((s = full_gpr(&x->operands[1], &b1)) != NO_REG) {
		if (b1 != b0)
			return;
	} else if (x->operands[1].size == b0 / 8 && use_mem(in, &x->operands[1], u)) {
		s = MEM;
	} else {
		return;
	}
	u->kind = U_BITS;
	u->id = (uint16_t)in->id;
	u->dst = (uint8_t)d;
	u->src = (uint8_t)s;
	u->index = (uint8_t)i;
	u->width = (uint8_t)(b0 / 8);
}

/* bt, bts, btr, btc: a register (32 or 64 bits) by a register or an
 * immediate, or memory by an immediate (a register offset may reach
 * outside the operand). */
static void bit_test(const cs_insn *in, const cs_x86_op *o0, const cs_x86_op *o1, struct swb_uop *u)
{
	int b0 = 0, b1 = 0;
	unsigned d, s = NO_REG;

	if (!o0 || !o1)
		return;
	if (o1->type == X86_OP_REG && ((s = full_gpr(o1, &b1)) == NO_REG || o0->type != X86_OP_REG))
		return;
	if (o1->type != X86_OP_REG && o1->type != X86_OP_IMM)
		return;
	if ((d = full_gpr(o0, &b0)) == NO_REG) {
		if ((o0->size != 2 && o0->size != 4 && o0->size != 8) || !use_mem(in, o0, u))
			return;
		d = MEM;
		b0 = 8 * o0->size;
	} else if (s != NO_REG && b1 != b0) {
		return;
	}
	u->kind = U_BT;
	u->id = (uint16_t)in->id;
	u->dst = (uint8_t)d;
	u->src = (uint8_t)s;
	u->imm = o1->type == X86_OP_IMM ? o1->imm : 0;
	u->width = (uint8_t)(b0 / 8);
}

bool swb_uop_modelled(const struct swb_uop *u)
{
	return u->kind != U_KILL;
}

void swb_uop_unknown(struct swb_uop *u)
{
	memset(u, 0, sizeof(*u));
	u->kind = U_KILL;
	u->kill = 0xffff;
	u->mwrite = MW_ANY;
}

void swb_uop_from_insn(const cs_insn *in, struct swb_uop *u)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *o0 = x->op_count > 0 ? &x->operands[0] : NULL;
	const cs_x86_op *o1 = x->op_count > 1 ? &x->operands[1] : NULL;
	int b0 = 0, b1 = 0;
	unsigned d = o0 ? reg_operand(o0, &b0, true) : NO_REG, s = NO_REG;

	kill(in, u);
	u->len = (uint8_t)in->size;
	if (swb_sse_decode(in, u)) {
		u->kind = U_SSE;
		return;
	}
	u->width = (uint8_t)(b0 / 8);
	u->dst = (uint8_t)d;
	u->src = NO_REG;
	u->base = u->index = NO_REG;
	if (high_byte(in, u))
		return;
	switch (in->id) {
	case X86_INS_NOP:
	case X86_INS_ENDBR64:
		u->kind = U_NONE;
		u->mwrite = MW_NONE;
		return;
	case X86_INS_MOV:
	case X86_INS_MOVABS:
		if (o1 && !to_memory(in, o0, o1, U_MOV, u) && d != NO_REG)
			from_operand(in, o1, b0, U_MOV, u);
		return;
	case X86_INS_CDQE:
	case X86_INS_CWDE:
		/* movsx rax, eax; movsx eax, ax */
		u->kind = U_MOVX;
		u->dst = u->src = 0;
		u->width = in->id == X86_INS_CDQE ? 8 : 4;
		u->src_width = u->width / 2;
		u->sign = true;
		return;
	case X86_INS_CWD:
	case X86_INS_CDQ:
	case X86_INS_CQO:
		u->kind = U_CQO;
		u->width = in->id == X86_INS_CWD ? 2 : in->id == X86_INS_CDQ ? 4 : 8;
		return;
	case X86_INS_XCHG:
	case X86_INS_XADD:
	case X86_INS_CMPXCHG:
		two_regs(in, o0, o1, in->id == X86_INS_XCHG ? U_XCHG : in->id == X86_INS_XADD ? U_XADD : U_CMPXCHG, u);
		return;
	case X86_INS_MUL:
	case X86_INS_DIV:
	case X86_INS_IDIV:
		if (x->op_count != 1)
			return;
		mul_div(in, o0, u);
		return;
	case X86_INS_TZCNT:
	case X86_INS_LZCNT:
	case X86_INS_POPCNT:
	case X86_INS_BSF:
	case X86_INS_BSR:
	case X86_INS_BZHI:
		bit_scan(in, u);
		return;
	case X86_INS_BT:
	case X86_INS_BTS:
	case X86_INS_BTR:
	case X86_INS_BTC:
		bit_test(in, o0, o1, u);
		return;
	case X86_INS_STOSB:
	case X86_INS_STOSW:
	case X86_INS_STOSD:
	case X86_INS_STOSQ:
		/* rep or none (not repne); the kill fields stay for the planner */
		if (x->prefix[0] == X86_PREFIX_REPNE || x->addr_size != 8)
			return;
		u->kind = U_STOS;
		u->sign = x->prefix[0] == X86_PREFIX_REP;
		u->width = in->id == X86_INS_STOSB ? 1 : in->id == X86_INS_STOSW ? 2 : in->id == X86_INS_STOSD ? 4 : 8;
		return;
	case X86_INS_ADC: u->alu = A_ADC; break;
	case X86_INS_SBB: u->alu = A_SBB; break;
	case X86_INS_MOVZX:
	case X86_INS_MOVSX:
	case X86_INS_MOVSXD:
		if (d == NO_REG || b0 < 32 || !o1)
			return;
		if ((s = reg_operand(o1, &b1, true)) != NO_REG) {
			u->src_width = (uint8_t)(b1 / 8);
		} else if (use_mem(in, o1, u)) {
			s = MEM;
			u->src_width = o1->size;
		} else {
			return;
		}
		u->kind = U_MOVX;
		u->src = (uint8_t)s;
		u->sign = in->id != X86_INS_MOVZX;
		return;
	case X86_INS_LEA:
		if (d == NO_REG || b0 < 32 || !o1 || o1->type != X86_OP_MEM || o1->mem.segment != X86_REG_INVALID)
			return;
		if (o1->mem.base == X86_REG_RIP) {
			u->imm = o1->mem.disp + (int64_t)(in->address + in->size);
		} else {
			u->imm = o1->mem.disp;
			if (o1->mem.base != X86_REG_INVALID &&
			    ((s = x86_gpr(o1->mem.base, &b1)) == NO_REG || b1 != 64))
				return;
			u->base = o1->mem.base != X86_REG_INVALID ? (uint8_t)s : NO_REG;
		}
		if (o1->mem.index != X86_REG_INVALID) {
			if ((s = x86_gpr(o1->mem.index, &b1)) == NO_REG || b1 != 64)
				return;
			u->index = (uint8_t)s;
			u->scale = (uint8_t)o1->mem.scale;
		}
		u->kind = U_LEA;
		return;
	case X86_INS_ADD: case X86_INS_SUB: case X86_INS_CMP: case X86_INS_AND:
	case X86_INS_OR: case X86_INS_XOR: case X86_INS_TEST:
		u->alu = (uint8_t)alu_of(in->id);
		break;
	case X86_INS_INC:
	case X86_INS_DEC:
	case X86_INS_NEG:
	case X86_INS_NOT:
		if (x->op_count != 1)
			return;
		if (d == NO_REG) {
			if (!use_mem(in, o0, u))
				return;
			u->dst = MEM;
			u->width = o0->size;
		}
		u->kind = in->id == X86_INS_INC ? U_INC : in->id == X86_INS_DEC ? U_DEC : in->id == X86_INS_NEG ? U_NEG : U_NOT;
		return;
	case X86_INS_SHL:
	case X86_INS_SHR:
	case X86_INS_SAR:
	case X86_INS_ROL:
	case X86_INS_ROR:
		/* a register of 8 to 64 bits (not ah..bh), by an immediate or by cl
		 * (u->src = rcx); by 1 capstone may give one operand */
		if (d == NO_REG || b0 < 8)
			return;
		if (!o1) {
			u->imm = 1;
		} else if (o1->type == X86_OP_IMM) {
			u->imm = o1->imm;
		} else if (o1->type == X86_OP_REG && o1->reg == X86_REG_CL) {
			u->src = 1;
		} else {
			return;
		}
		u->kind = in->id == X86_INS_SHL ? U_SHL : in->id == X86_INS_SHR ? U_SHR : in->id == X86_INS_SAR ? U_SAR
			: in->id == X86_INS_ROL ? U_ROL : U_ROR;
		return;
	case X86_INS_IMUL:
		if (x->op_count == 1) {
			mul_div(in, o0, u);
			return;
		}
		if (d == NO_REG || b0 < 32 || !o1 || (s = full_gpr(o1, &b1)) == NO_REG || b1 != b0)
			return;
		if (x->op_count == 2) {
			u->kind = U_IMUL;
			u->src = (uint8_t)s;
			u->imm_is_dst = true;
		} else if (x->op_count == 3 && x->operands[2].type == X86_OP_IMM) {
			u->kind = U_IMUL;
			u->src = (uint8_t)s;
			u->imm = x->operands[2].imm;
		}
		return;
	case X86_INS_PUSH:
		/* rsp -= 8, then 8 bytes stored there (a 2-byte push is not modelled) */
		if (!o0 || o0->size == 2)
			return;
		if (o0->type == X86_OP_IMM) {
			u->imm = o0->imm;
		} else if (d != NO_REG && b0 == 64) {
			u->src = (uint8_t)d;
		} else if (use_mem(in, o0, u)) {
			u->src = MEM;
		} else {
			return;
		}
		u->kind = U_PUSH;
		u->mwrite = MW_NONE;
		u->dst = NO_REG;
		u->width = 8;
		return;
	case X86_INS_POP:
		if (d != NO_REG && b0 == 64)
			u->kind = U_POP;
		return;
	default: {
		bool set = false;
		unsigned cond = cond_of(in->id, &set);

		if (!cond || d == NO_REG)
			return;
		if (set && b0 == 8 && x->op_count == 1) {
			u->kind = U_SETCC;
			u->cond = (uint16_t)cond;
		} else if (!set && b0 >= 32 && o1 && (s = full_gpr(o1, &b1)) != NO_REG && b1 == b0) {
			u->kind = U_CMOV;
			u->src = (uint8_t)s;
			u->cond = (uint16_t)cond;
		} else if (!set && b0 >= 32 && o1 && o1->size == b0 / 8 && use_mem(in, o1, u)) {
			u->kind = U_CMOV;
			u->src = MEM;
			u->cond = (uint16_t)cond;
		}
		return;
	}
	}
	/* ALU: a register or memory destination, a register, immediate or
	 * memory source of the same width. */
	if (o1 && !to_memory(in, o0, o1, U_ALU, u) && d != NO_REG)
		from_operand(in, o1, b0, U_ALU, u);
}

static uint64_t mask_of(int width)
{
	return width >= 8 ? ~0ULL : (1ULL << (8 * width)) - 1;
}

static bool is_known(const struct swb_emu *e, unsigned g)
{
	return g < 16 && (e->known >> g & 1);
}

static void set_reg(struct swb_emu *e, unsigned g, uint64_t v)
{
	e->r[g] = v;
	e->known |= (uint16_t)(1u << g);
}

static void forget(struct swb_emu *e, unsigned g)
{
	if (g < 16)
		e->known &= (uint16_t)~(1u << g);
}

/* Write the low width bytes of register g: 4 bytes zero-extend, 1 and 2
 * keep the rest (so the rest must be known). */
static void write_reg(struct swb_emu *e, unsigned g, int width, uint64_t v)
{
	uint64_t m = mask_of(width);

	if (width >= 4)
		set_reg(e, g, v & m);
	else if (is_known(e, g))
		set_reg(e, g, (e->r[g] & ~m) | (v & m));
	else
		forget(e, g);
}

/* ZF, SF, PF of a result; CF, OF and AF given. */
static void set_flags(struct swb_emu *e, uint64_t res, int width, bool cf, bool of, bool af, uint8_t which)
{
	uint64_t m = mask_of(width), sign = 1ULL << (8 * width - 1);
	uint8_t f = 0;

	res &= m;
	if (cf) f |= F_CF;
	if (of) f |= F_OF;
	if (af) f |= F_AF;
	if (!res) f |= F_ZF;
	if (res & sign) f |= F_SF;
	if (!(__builtin_popcount((unsigned)(res & 0xff)) & 1)) f |= F_PF;
	e->flags = (uint8_t)((e->flags & ~which) | (f & which));
	e->fknown |= which;
}

/* The address of u's memory operand; false when unknown. */
bool swb_emu_addr(const struct swb_emu *e, const struct swb_uop *u, uint64_t *addr)
{
	uint64_t a = (uint64_t)u->mdisp;

	if (!u->maddr)
		return false;
	if (u->mbase != NO_REG) {
		if (!is_known(e, u->mbase))
			return false;
		a += e->r[u->mbase];
	}
	if (u->mindex != NO_REG) {
		if (!is_known(e, u->mindex))
			return false;
		a += e->r[u->mindex] * u->mscale;
	}
	if (u->mseg == SEG_FS)
		a += e->fs_base;
	else if (u->mseg == SEG_GS)
		a += e->gs_base;
	*addr = a;
	return true;
}

bool swb_emu_load(struct swb_emu *e, uint64_t addr, unsigned size, uint64_t *v)
{
	int i;

	if (e->io) {
		uint8_t b[8] = { 0 };

		if (size > 8 || !e->io->read(e->io->arg, addr, b, size)) {
			e->fault = true;
			return false;
		}
		memcpy(v, b, sizeof(*v));       /* little-endian, as x86-64 */
		return true;
	}
	if (!e->mem || e->mem_lost)
		return false;
	/* the newest of the path's stores that overlaps decides */
	for (i = e->nr_stores; i-- > 0;) {
		const struct swb_store *st = &e->stores[i];

		if (st->addr >= addr + size || addr >= st->addr + st->size)
			continue;
		if (!st->known || addr < st->addr || addr + size > st->addr + st->size)
			return false;
		*v = (st->val >> (8 * (addr - st->addr))) & mask_of((int)size);
		return true;
	}
	return swb_mem_read(e->mem, addr, size, v);
}

static void store(struct swb_emu *e, uint64_t addr, unsigned size, uint64_t v, bool known)
{
	int i;

	if (e->io) {
		if (!known || size > 8 || !e->io->write(e->io->arg, addr, &v, size))
			e->fault = true;
		return;
	}
	if (e->mem_lost)
		return;
	/* When the newest store overlapping this one has its very place, it can
	 * be overwritten: no newer store overlaps it. */
	for (i = e->nr_stores; i-- > 0;) {
		struct swb_store *st = &e->stores[i];

		if (st->addr >= addr + size || addr >= st->addr + st->size)
			continue;
		if (st->addr == addr && st->size == size) {
			st->val = v & mask_of((int)size);
			st->known = known;
			return;
		}
		break;
	}
	if (e->nr_stores == SWB_MAX_STORES) {
		e->mem_lost = true;
		return;
	}
	e->stores[e->nr_stores++] = (struct swb_store){ addr, v & mask_of((int)size), (uint8_t)size, known };
}

/* A store of u's memory operand (value unknown when !known). */
static void store_opnd(struct swb_emu *e, const struct swb_uop *u, unsigned size, uint64_t v, bool known)
{
	uint64_t a;

	if (swb_emu_addr(e, u, &a))
		store(e, a, size, v, known);
	else
		e->mem_lost = true;
}

static bool load_opnd(struct swb_emu *e, const struct swb_uop *u, unsigned size, uint64_t *v)
{
	uint64_t a;

	return swb_emu_addr(e, u, &a) && swb_emu_load(e, a, size, v);
}

/* Register g, or the memory operand (size bytes); false when unknown. */
static bool read_opnd(struct swb_emu *e, const struct swb_uop *u, unsigned g, bool high, unsigned size,
		      uint64_t *v)
{
	if (g == MEM)
		return load_opnd(e, u, size, v);
	if (!is_known(e, g))
		return false;
	*v = high ? e->r[g] >> 8 : e->r[g];
	return true;
}

/* The source operand: a register, the memory operand or the immediate. */
static bool src_value(struct swb_emu *e, const struct swb_uop *u, uint64_t *v)
{
	if (u->src == NO_REG) {
		*v = (uint64_t)u->imm;
		return true;
	}
	return read_opnd(e, u, u->src, u->high & SWB_HIGH_SRC, u->width, v);
}

/* Write the destination (a register's low width bytes, or memory). */
static void write_dst(struct swb_emu *e, const struct swb_uop *u, uint64_t v)
{
	if (u->high & SWB_HIGH_DST) {
		if (is_known(e, u->dst))
			set_reg(e, u->dst, (e->r[u->dst] & ~0xff00ULL) | (v & 0xff) << 8);
		return;
	}
	if (u->dst == MEM)
		store_opnd(e, u, u->width, v, true);
	else
		write_reg(e, u->dst, u->width, v);
}

static void forget_dst(struct swb_emu *e, const struct swb_uop *u)
{
	if (u->dst == MEM)
		store_opnd(e, u, u->width, 0, false);
	else
		forget(e, u->dst);
}

static void alu(struct swb_emu *e, const struct swb_uop *u)
{
	uint64_t m = mask_of(u->width), sign = 1ULL << (8 * u->width - 1), a, b, r;
	bool cf = false, of = false, writes = u->alu != A_CMP && u->alu != A_TEST;

	/* xor/sub of a register with itself is 0 whatever it held. */
	if ((u->alu == A_XOR || u->alu == A_SUB) && u->src == u->dst && u->dst != MEM && !u->high) {
		write_reg(e, u->dst, u->width, 0);
		set_flags(e, 0, u->width, false, false, false, F_ALL);
		return;
	}
	if (!read_opnd(e, u, u->dst, u->high & SWB_HIGH_DST, u->width, &a) || !src_value(e, u, &b) ||
	    ((u->alu == A_ADC || u->alu == A_SBB) && !(e->fknown & F_CF))) {
		if (writes)
			forget_dst(e, u);
		e->fknown = 0;
		return;
	}
	a &= m;
	b &= m;
	switch (u->alu) {
	case A_ADC: {
		uint64_t c = e->flags & F_CF ? 1 : 0;

		r = (a + b + c) & m;
		cf = r < a || (c && r == a);
		of = ((a ^ r) & (b ^ r) & sign) != 0;
		break;
	}
	case A_SBB: {
		uint64_t c = e->flags & F_CF ? 1 : 0;

		r = (a - b - c) & m;
		cf = a < b || (c && a == b);
		of = ((a ^ b) & (a ^ r) & sign) != 0;
		break;
	}
	case A_ADD:
		r = (a + b) & m;
		cf = r < a;
		of = ((a ^ r) & (b ^ r) & sign) != 0;
		break;
	case A_SUB:
	case A_CMP:
		r = (a - b) & m;
		cf = a < b;
		of = ((a ^ b) & (a ^ r) & sign) != 0;
		break;
	case A_AND:
	case A_TEST:
		r = a & b;
		break;
	case A_OR:
		r = a | b;
		break;
	default:
		r = a ^ b;
		break;
	}
	/* AF: the carry out of bit 3 (add, sub); logic leaves it 0 */
	set_flags(e, r, u->width, cf, of,
		  (u->alu <= A_CMP || u->alu == A_ADC || u->alu == A_SBB) && ((a ^ b ^ r) & 0x10), F_ALL);
	if (writes)
		write_dst(e, u, r);
}

/* Shifts and rotates of a register. The count is masked to 5 bits (6 for
 * 64-bit operands); a masked count of 0 changes no flag. AF is undefined
 * after a shift, OF after a count other than 1, and CF after shl and shr
 * (and, here, sar) by as many bits as the operand has or more, which only
 * 8- and 16-bit operands reach: those are unknown. Rotates change only CF
 * and OF (Intel SDM, SAL/SAR/SHL/SHR and RCL/RCR/ROL/ROR). */
static void shift(struct swb_emu *e, const struct swb_uop *u)
{
	int bits = 8 * u->width;
	bool by_cl = u->src == 1, rotate = u->kind == U_ROL || u->kind == U_ROR;
	unsigned n = (unsigned)(by_cl ? e->r[1] : (uint64_t)u->imm) & (bits == 64 ? 63 : 31), k;
	uint8_t touched = rotate ? F_CF | F_OF : F_ALL, which;
	uint64_t m = mask_of(u->width), sign = 1ULL << (bits - 1), a, r;
	int64_t sa;
	bool cf, of;

	if (by_cl && !is_known(e, 1)) {
		forget(e, u->dst);
		e->fknown &= (uint8_t)~touched;
		return;
	}
	if (!is_known(e, u->dst)) {
		if (n)
			e->fknown &= (uint8_t)~touched;
		return;
	}
	a = e->r[u->dst] & m;
	if (!n) {   /* no change, not even to the flags; a 32-bit write still zero-extends */
		write_reg(e, u->dst, u->width, a);
		return;
	}
	switch (u->kind) {
	case U_SHL:
		r = (a << n) & m;
		cf = n <= (unsigned)bits && (a >> (bits - n)) & 1;
		of = ((r & sign) != 0) != cf;
		break;
	case U_SHR:
		r = a >> n;
		cf = (a >> (n - 1)) & 1;
		of = (a & sign) != 0;
		break;
	case U_SAR:
		sa = (int64_t)(a << (64 - bits)) >> (64 - bits);
		r = (uint64_t)(sa >> n) & m;
		cf = ((uint64_t)(sa >> (n - 1))) & 1;
		of = false;
		break;
	case U_ROL:
		k = n % (unsigned)bits;
		r = k ? ((a << k) | (a >> (bits - k))) & m : a;
		cf = r & 1;
		of = ((r & sign) != 0) != cf;
		break;
	default:    /* U_ROR */
		k = n % (unsigned)bits;
		r = k ? ((a >> k) | (a << (bits - k))) & m : a;
		cf = (r & sign) != 0;
		of = cf != ((r >> (bits - 2)) & 1);
		break;
	}
	write_reg(e, u->dst, u->width, r);
	which = (uint8_t)(touched & ~F_AF & (n == 1 ? F_ALL : ~F_OF) & (!rotate && n >= (unsigned)bits ? ~F_CF : F_ALL));
	if (rotate)
		e->flags = (uint8_t)((e->flags & ~which) | (((cf ? F_CF : 0) | (of ? F_OF : 0)) & which));
	else
		set_flags(e, r, u->width, cf, of, false, which);
	e->fknown = (uint8_t)((e->fknown & ~touched) | which);
}

/* xchg, xadd, cmpxchg (u->kind); a memory destination is read first and
 * written before the register, the instruction's last effect. */
static void exchange(struct swb_emu *e, const struct swb_uop *u)
{
	uint64_t m = mask_of(u->width), d, s, acc, r;
	bool known = read_opnd(e, u, u->dst, false, u->width, &d) && is_known(e, u->src);

	if (u->kind == U_CMPXCHG)
		known = known && is_known(e, 0);
	if (!known) {
		forget_dst(e, u);
		forget(e, u->src);
		if (u->kind == U_CMPXCHG)
			forget(e, 0);
		if (u->kind != U_XCHG)
			e->fknown = 0;
		return;
	}
	d &= m;
	s = e->r[u->src] & m;
	switch (u->kind) {
	case U_XCHG:
		write_dst(e, u, s);
		write_reg(e, u->src, u->width, d);
		return;
	case U_XADD:
		r = (d + s) & m;
		set_flags(e, r, u->width, r < d, ((d ^ r) & (s ^ r) & (1ULL << (8 * u->width - 1))) != 0,
			  (d ^ s ^ r) & 0x10, F_ALL);
		write_reg(e, u->src, u->width, d);
		write_dst(e, u, r);
		return;
	default:        /* cmpxchg: flags of cmp acc, dst */
		acc = e->r[0] & m;
		r = (acc - d) & m;
		set_flags(e, r, u->width, acc < d, ((acc ^ d) & (acc ^ r) & (1ULL << (8 * u->width - 1))) != 0,
			  (acc ^ d ^ r) & 0x10, F_ALL);
		if (acc == d)
			write_dst(e, u, s);
		else
			write_reg(e, 0, u->width, d);
		return;
	}
}

/* mul, imul (one operand), div, idiv: rdx:rax (edx:eax) and src. A
 * division that faults (by zero, or a quotient too large) leaves rax and
 * rdx unknown: the thread takes the fault. */
static void mul_div_run(struct swb_emu *e, const struct swb_uop *u)
{
	unsigned bits = 8 * u->width;
	uint64_t m = mask_of(u->width), s, lo, hi;

	e->fknown = 0;  /* div: all flags undefined; mul: all but CF and OF */
	if (!read_opnd(e, u, u->src, false, u->width, &s) || !is_known(e, 0) || !is_known(e, 2))
		goto unknown;
	s &= m;
	if (u->id == X86_INS_MUL || u->id == X86_INS_IMUL) {
		unsigned __int128 p;
		bool over;

		if (u->id == X86_INS_MUL) {
			p = (unsigned __int128)(e->r[0] & m) * s;
			over = (uint64_t)(p >> bits) != 0;
		} else {
			__int128 a = bits == 64 ? (int64_t)e->r[0] : (int32_t)(uint32_t)e->r[0];
			__int128 b = bits == 64 ? (int64_t)s : (int32_t)(uint32_t)s;
			__int128 sp = a * b;

			p = (unsigned __int128)sp;
			over = bits == 64 ? sp != (int64_t)sp : sp != (int32_t)sp;
		}
		lo = (uint64_t)p & m;
		hi = (uint64_t)(p >> bits) & m;
		e->flags = (uint8_t)((e->flags & ~(F_CF | F_OF)) | (over ? F_CF | F_OF : 0));
		e->fknown = F_CF | F_OF;
	} else {
		unsigned __int128 n = ((unsigned __int128)(e->r[2] & m) << bits) | (e->r[0] & m);

		if (!s)
			goto unknown;
		if (u->id == X86_INS_DIV) {
			unsigned __int128 q = n / s;

			if (q > m)
				goto unknown;
			lo = (uint64_t)q;
			hi = (uint64_t)(n % s);
		} else {
			/* the dividend as a signed 2*bits-bit number (GCC converts modulo 2^128) */
			__int128 sn = bits == 64 ? (__int128)n : (__int128)(int64_t)(uint64_t)n;
			__int128 sd = bits == 64 ? (int64_t)s : (int32_t)(uint32_t)s;
			__int128 q, lim = (__int128)1 << (bits - 1);

			if (sd == -1 && (unsigned __int128)sn == (unsigned __int128)1 << 127)
				goto unknown;   /* the one quotient C cannot compute either */
			q = sn / sd;
			if (q >= lim || q < -lim)
				goto unknown;
			lo = (uint64_t)q & m;
			hi = (uint64_t)(sn % sd) & m;
		}
	}
	write_reg(e, 0, u->width, lo);
	write_reg(e, 2, u->width, hi);
	return;
unknown:
	forget(e, 0);
	forget(e, 2);
}

/* tzcnt, lzcnt, popcnt, bsf, bsr, bzhi. */
static void bits_run(struct swb_emu *e, const struct swb_uop *u)
{
	unsigned bits = 8 * u->width;
	uint64_t m = mask_of(u->width), s, r = 0, idx = 0;

	if (!read_opnd(e, u, u->src, false, u->width, &s) || (u->id == X86_INS_BZHI && !is_known(e, u->index))) {
		forget(e, u->dst);
		e->fknown = 0;
		return;
	}
	s &= m;
	switch (u->id) {
	case X86_INS_TZCNT:
	case X86_INS_LZCNT:
		if (!s)
			r = bits;
		else
			r = u->id == X86_INS_TZCNT ? (uint64_t)__builtin_ctzll(s)
						   : (uint64_t)__builtin_clzll(s) - (64 - bits);
		/* CF: the source was 0; ZF: the result is; the rest undefined */
		write_reg(e, u->dst, u->width, r);
		e->flags = (uint8_t)((e->flags & ~(F_CF | F_ZF)) | (!s ? F_CF : 0) | (!r ? F_ZF : 0));
		e->fknown = F_CF | F_ZF;
		return;
	case X86_INS_POPCNT:
		/* ZF: the source was 0; the others cleared */
		write_reg(e, u->dst, u->width, (uint64_t)__builtin_popcountll(s));
		e->flags = !s ? F_ZF : 0;
		e->fknown = F_ALL;
		return;
	case X86_INS_BSF:
	case X86_INS_BSR:
		if (!s) {
			/* the destination is left as it was on the CPUs
			 * seen, but the ISA leaves it undefined */
			forget(e, u->dst);
			e->fknown = 0;
			return;
		}
		write_reg(e, u->dst, u->width,
			  u->id == X86_INS_BSF ? (uint64_t)__builtin_ctzll(s) : 63 - (uint64_t)__builtin_clzll(s));
		e->flags &= (uint8_t)~F_ZF;
		e->fknown = F_ZF;
		return;
	default:        /* bzhi */
		idx = e->r[u->index] & 0xff;
		r = idx < bits ? s & ((1ULL << idx) - 1) : s;
		write_reg(e, u->dst, u->width, r);
		set_flags(e, r, u->width, idx > bits - 1, false, false, F_ALL & ~(F_AF | F_PF));
		e->fknown &= (uint8_t)~(F_AF | F_PF);
		return;
	}
}

/* bt, bts, btr, btc: CF = the bit, which bts, btr and btc then change;
 * ZF kept, the others undefined. */
static void bit_test_run(struct swb_emu *e, const struct swb_uop *u)
{
	unsigned bits = 8 * u->width, n;
	uint64_t v, bit;
	bool writes = u->id != X86_INS_BT;

	if (!read_opnd(e, u, u->dst, false, u->width, &v) || (u->src != NO_REG && !is_known(e, u->src))) {
		if (writes)
			forget_dst(e, u);
		e->fknown &= F_ZF;
		return;
	}
	n = (unsigned)(u->src != NO_REG ? e->r[u->src] : (uint64_t)u->imm) & (bits - 1);
	bit = 1ULL << n;
	e->flags = (uint8_t)((e->flags & ~F_CF) | (v & bit ? F_CF : 0));
	e->fknown = (uint8_t)((e->fknown & F_ZF) | F_CF);
	if (u->id == X86_INS_BTS)
		write_dst(e, u, v | bit);
	else if (u->id == X86_INS_BTR)
		write_dst(e, u, v & ~bit);
	else if (u->id == X86_INS_BTC)
		write_dst(e, u, v ^ bit);
}

/* stos, rep stos (exact runs only: the planner forgets): rax's low width
 * bytes to [rdi], rcx times with rep. Each chunk is written before the
 * registers move; a chunk that fails leaves the registers, and the thread
 * writes the same bytes again. */
static void stos_run(struct swb_emu *e, const struct swb_uop *u)
{
	uint8_t buf[512];
	uint64_t n = u->sign ? e->r[1] : 1, bytes, done = 0;
	unsigned i;

	if (e->df || n > (1u << 20) / u->width) {
		e->fault = true;        /* backwards, or too long to be worth it */
		return;
	}
	for (i = 0; i < sizeof(buf); i += u->width)
		memcpy(buf + i, &e->r[0], u->width);
	bytes = n * u->width;
	while (done < bytes) {
		unsigned k = bytes - done < sizeof(buf) ? (unsigned)(bytes - done) : (unsigned)sizeof(buf);

		if (!e->io->write(e->io->arg, e->r[7] + done, buf, k)) {
			e->fault = true;
			return;
		}
		done += k;
	}
	e->r[7] += bytes;
	if (u->sign)
		e->r[1] = 0;
}

void swb_emu_apply(struct swb_emu *e, const struct swb_uop *u)
{
	uint64_t m = mask_of(u->width), v, w;

	if (u->kind == U_SSE && e->io) {
		e->fault |= !swb_sse_run(e, u);
		return;
	}
	if (u->kind == U_STOS && e->io) {
		stos_run(e, u);
		return;
	}
	switch (u->kind) {
	case U_NONE:
		return;
	case U_MOV:
		if (src_value(e, u, &v))
			write_dst(e, u, v);
		else
			forget_dst(e, u);
		return;
	case U_MOVX:
		if (!read_opnd(e, u, u->src, false, u->src_width, &v)) {
			forget(e, u->dst);
			return;
		}
		v &= mask_of(u->src_width);
		if (u->sign && u->src_width < 8 && (v >> (8 * u->src_width - 1)) & 1)
			v |= ~mask_of(u->src_width);
		set_reg(e, u->dst, v & m);
		return;
	case U_LEA:
		if ((u->base != NO_REG && !is_known(e, u->base)) || (u->index != NO_REG && !is_known(e, u->index))) {
			forget(e, u->dst);
			return;
		}
		v = (uint64_t)u->imm;
		if (u->base != NO_REG)
			v += e->r[u->base];
		if (u->index != NO_REG)
			v += e->r[u->index] * u->scale;
		set_reg(e, u->dst, v & m);
		return;
	case U_ALU:
		alu(e, u);
		return;
	case U_INC:
	case U_DEC:
	case U_NEG:
		if (!read_opnd(e, u, u->dst, false, u->width, &v)) {
			forget_dst(e, u);
			e->fknown &= u->kind == U_NEG ? 0 : F_CF;   /* inc/dec keep CF */
			return;
		}
		v &= m;
		if (u->kind == U_NEG) {
			w = (0 - v) & m;
			set_flags(e, w, u->width, v != 0, v == (1ULL << (8 * u->width - 1)), (v ^ w) & 0x10, F_ALL);
		} else {
			w = (u->kind == U_INC ? v + 1 : v - 1) & m;
			set_flags(e, w, u->width, false,
				  u->kind == U_INC ? w == 1ULL << (8 * u->width - 1) : v == 1ULL << (8 * u->width - 1),
				  (v ^ 1 ^ w) & 0x10, F_ALL & ~F_CF);
		}
		write_dst(e, u, w);
		return;
	case U_SHL:
	case U_SHR:
	case U_SAR:
	case U_ROL:
	case U_ROR:
		shift(e, u);
		return;
	case U_IMUL: {
		uint64_t a;
		bool over;

		e->fknown = 0;   /* SF, ZF, PF, AF are undefined */
		if (!is_known(e, u->src) || (u->imm_is_dst && !is_known(e, u->dst))) {
			forget(e, u->dst);
			return;
		}
		a = e->r[u->src];
		v = u->imm_is_dst ? e->r[u->dst] : (uint64_t)u->imm;
		/* CF and OF: the signed product does not fit the destination */
		if (u->width == 8) {
			__int128 p = (__int128)(int64_t)a * (int64_t)v;

			over = p != (int64_t)p;
		} else {
			int64_t p = (int64_t)(int32_t)a * (int32_t)v;

			over = p != (int32_t)p;
		}
		e->flags = (uint8_t)((e->flags & ~(F_CF | F_OF)) | (over ? F_CF | F_OF : 0));
		e->fknown = F_CF | F_OF;
		set_reg(e, u->dst, (a * v) & m);
		return;
	}
	case U_CMOV:
	case U_SETCC: {
		int t = swb_emu_jcc(e, u->cond);

		if (t < 0 || (u->kind == U_CMOV && t && !read_opnd(e, u, u->src, false, u->width, &v)))
			forget(e, u->dst);
		else if (u->kind == U_SETCC)
			write_reg(e, u->dst, 1, (uint64_t)t);
		else if (t)
			write_reg(e, u->dst, u->width, v);
		else if (u->width == 4 && is_known(e, u->dst))
			set_reg(e, u->dst, e->r[u->dst] & 0xffffffff);
		else if (u->width == 4)
			forget(e, u->dst);
		return;
	}
	case U_NOT:
		if (read_opnd(e, u, u->dst, false, u->width, &v))
			write_dst(e, u, ~v);
		else
			forget_dst(e, u);
		return;
	case U_CQO:
		if (is_known(e, 0))
			write_reg(e, 2, u->width, (e->r[0] >> (8 * u->width - 1)) & 1 ? ~0ULL : 0);
		else
			forget(e, 2);
		return;
	case U_XCHG:
	case U_XADD:
	case U_CMPXCHG:
		exchange(e, u);
		return;
	case U_MULDIV:
		mul_div_run(e, u);
		return;
	case U_BITS:
		bits_run(e, u);
		return;
	case U_BT:
		bit_test_run(e, u);
		return;
	case U_PUSH: {
		bool known = src_value(e, u, &v);

		if (!is_known(e, 4)) {
			e->mem_lost = true;
			return;
		}
		e->r[4] -= 8;
		store(e, e->r[4], 8, v, known);
		return;
	}
	case U_POP: {
		bool known = is_known(e, 4) && swb_emu_load(e, e->r[4], 8, &v);

		if (is_known(e, 4))
			e->r[4] += 8;
		if (known)
			set_reg(e, u->dst, v);
		else
			forget(e, u->dst);
		return;
	}
	case U_SSE:     /* in a plan: the planner knows nothing of xmm registers */
	case U_STOS:
	default:
		/* the address is computed before the registers change */
		if (u->mwrite == MW_OPND)
			store_opnd(e, u, u->msize, 0, false);
		else if (u->mwrite == MW_ANY)
			e->mem_lost = true;
		e->known &= (uint16_t)~u->kill;
		e->fknown = 0;
		return;
	}
}

void swb_emu_from_regs(struct swb_emu *e, const struct user_regs_struct *r, struct swb_mem *mem)
{
	uint64_t f = r->eflags;

	e->r[0] = r->rax; e->r[1] = r->rcx; e->r[2] = r->rdx; e->r[3] = r->rbx;
	e->r[4] = r->rsp; e->r[5] = r->rbp; e->r[6] = r->rsi; e->r[7] = r->rdi;
	e->r[8] = r->r8; e->r[9] = r->r9; e->r[10] = r->r10; e->r[11] = r->r11;
	e->r[12] = r->r12; e->r[13] = r->r13; e->r[14] = r->r14; e->r[15] = r->r15;
	e->known = 0xffff;
	swb_emu_set_eflags(e, f);
	e->df = f & 0x400;
	e->fs_base = r->fs_base;
	e->gs_base = r->gs_base;
	e->mem = mem;
	e->io = NULL;
	e->fault = false;
	e->mem_lost = false;
	e->nr_stores = 0;
}

void swb_emu_to_regs(const struct swb_emu *e, struct user_regs_struct *r)
{
	r->rax = e->r[0]; r->rcx = e->r[1]; r->rdx = e->r[2]; r->rbx = e->r[3];
	r->rsp = e->r[4]; r->rbp = e->r[5]; r->rsi = e->r[6]; r->rdi = e->r[7];
	r->r8 = e->r[8]; r->r9 = e->r[9]; r->r10 = e->r[10]; r->r11 = e->r[11];
	r->r12 = e->r[12]; r->r13 = e->r[13]; r->r14 = e->r[14]; r->r15 = e->r[15];
	r->eflags = swb_emu_eflags(e, r->eflags);
}

void swb_emu_set_eflags(struct swb_emu *e, uint64_t f)
{
	e->flags = (uint8_t)((f & 1 ? F_CF : 0) | (f & 4 ? F_PF : 0) | (f & 0x40 ? F_ZF : 0) |
			     (f & 0x80 ? F_SF : 0) | (f & 0x800 ? F_OF : 0) | (f & 0x10 ? F_AF : 0));
	e->fknown = F_ALL;
}

uint64_t swb_emu_eflags(const struct swb_emu *e, uint64_t base)
{
	static const struct { uint8_t f; uint64_t bit; } map[] = {
		{ F_CF, 1 }, { F_PF, 4 }, { F_AF, 0x10 }, { F_ZF, 0x40 }, { F_SF, 0x80 }, { F_OF, 0x800 },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (e->fknown & map[i].f)
			base = e->flags & map[i].f ? base | map[i].bit : base & ~map[i].bit;
	return base;
}

void swb_emu_commit(const struct swb_emu *e)
{
	int i;

	if (!e->mem)
		return;
	if (e->mem_lost) {
		swb_mem_ran(e->mem);
		return;
	}
	for (i = 0; i < e->nr_stores; i++)
		swb_mem_wrote(e->mem, e->stores[i].addr, e->stores[i].size, e->stores[i].val, e->stores[i].known);
}

bool swb_emu_matches(const struct swb_emu *e, const struct user_regs_struct *r)
{
	struct swb_emu real;
	unsigned g;

	swb_emu_from_regs(&real, r, NULL);
	for (g = 0; g < 16; g++)
		if (is_known(e, g) && e->r[g] != real.r[g])
			return false;
	return ((e->flags ^ real.flags) & e->fknown & ~F_AF) == 0;
}

bool swb_emu_reg(const struct swb_emu *e, unsigned reg, uint64_t *v)
{
	int bits;
	unsigned g = x86_gpr(reg, &bits);

	if (g == NO_REG || bits != 64 || !is_known(e, g))
		return false;
	*v = e->r[g];
	return true;
}

static void adjust_sp(struct swb_emu *e, int64_t delta)
{
	if (is_known(e, 4))
		e->r[4] += (uint64_t)delta;
}

int swb_cond_taken(unsigned insn_id, uint64_t eflags)
{
	bool cf = eflags & 1, pf = eflags & 4, zf = eflags & 0x40, sf = eflags & 0x80, of = eflags & 0x800;

	switch (insn_id) {
	case X86_INS_JO: return of;
	case X86_INS_JNO: return !of;
	case X86_INS_JB: return cf;
	case X86_INS_JAE: return !cf;
	case X86_INS_JE: return zf;
	case X86_INS_JNE: return !zf;
	case X86_INS_JBE: return cf || zf;
	case X86_INS_JA: return !cf && !zf;
	case X86_INS_JS: return sf;
	case X86_INS_JNS: return !sf;
	case X86_INS_JP: return pf;
	case X86_INS_JNP: return !pf;
	case X86_INS_JL: return sf != of;
	case X86_INS_JGE: return sf == of;
	case X86_INS_JLE: return zf || sf != of;
	case X86_INS_JG: return !zf && sf == of;
	default: return -1;
	}
}

int swb_emu_jcc(const struct swb_emu *e, unsigned insn_id)
{
	uint8_t need;

	switch (insn_id) {
	case X86_INS_JO: case X86_INS_JNO: need = F_OF; break;
	case X86_INS_JB: case X86_INS_JAE: need = F_CF; break;
	case X86_INS_JE: case X86_INS_JNE: need = F_ZF; break;
	case X86_INS_JBE: case X86_INS_JA: need = F_CF | F_ZF; break;
	case X86_INS_JS: case X86_INS_JNS: need = F_SF; break;
	case X86_INS_JP: case X86_INS_JNP: need = F_PF; break;
	case X86_INS_JL: case X86_INS_JGE: need = F_SF | F_OF; break;
	case X86_INS_JLE: case X86_INS_JG: need = F_ZF | F_SF | F_OF; break;
	default: return -1;   /* jrcxz, loop: left to a stop */
	}
	if ((e->fknown & need) != need)
		return -1;
	return swb_cond_taken(insn_id, swb_emu_eflags(e, 0));
}

bool swb_emu_ctl_addr(const struct swb_emu *e, const struct swb_ctl *c, uint64_t *addr)
{
	uint64_t a = (uint64_t)c->disp, v;

	if (c->kind == SWB_RET) {
		*addr = e->r[4];
		return is_known(e, 4);
	}
	if ((c->kind != SWB_JMP_IND && c->kind != SWB_CALL_IND) || !c->op_mem)
		return false;
	if (c->base) {
		if (!swb_emu_reg(e, c->base, &v))
			return false;
		a += v;
	}
	if (c->index) {
		if (!swb_emu_reg(e, c->index, &v))
			return false;
		a += v * (uint64_t)c->scale;
	}
	if (c->seg == X86_REG_FS)
		a += e->fs_base;
	else if (c->seg == X86_REG_GS)
		a += e->gs_base;
	else if (c->seg)
		return false;
	*addr = a;
	return true;
}

void swb_emu_ctl(struct swb_emu *e, const struct swb_ctl *c)
{
	switch (c->kind) {
	case SWB_CALL:
	case SWB_CALL_IND:
		/* the return address is pushed */
		if (!is_known(e, 4)) {
			e->mem_lost = true;
			return;
		}
		e->r[4] -= 8;
		store(e, e->r[4], 8, c->next, true);
		return;
	case SWB_RET:
		if (c->ret_imm)
			forget(e, 4);
		else
			adjust_sp(e, 8);
		return;
	case SWB_JCC:
		if (c->insn_id == X86_INS_LOOP || c->insn_id == X86_INS_LOOPE || c->insn_id == X86_INS_LOOPNE)
			forget(e, 1);
		return;
	case SWB_JMP:
	case SWB_JMP_IND:
		return;
	default:   /* syscalls and the unknown */
		e->known = 0;
		e->fknown = 0;
		e->mem_lost = true;
		return;
	}
}
