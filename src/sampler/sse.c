/* sse.c — legacy SSE instructions for the interpreter's exact runs: moves
 * between xmm registers, general registers and memory, 128-bit logic, and
 * scalar arithmetic, comparisons and conversions. Moves and logic are
 * computed here; arithmetic, comparisons and conversions run as the same
 * instruction on this CPU with the thread's MXCSR loaded (its rounding,
 * DAZ and FTZ; its exception flags come back), so results are the CPU's
 * own. Only with every exception masked: an unmasked one would trap in
 * ocrec (Intel SDM vol. 1, 11.5; vol. 2 for each instruction's operands). */
#include <string.h>

#include "sampler/sse.h"
#include "x86/x86.h"

enum sse_op {
	S_LOAD,         /* xmm dst = width bytes of memory, zero-extended */
	S_FROM_GPR,     /* xmm dst = the low width bytes of gpr src, zero-extended */
	S_MERGE,        /* xmm dst's low width bytes = xmm src's (movsd, movss) */
	S_MOVQ,         /* xmm dst = xmm src's low 8 bytes, zero-extended */
	S_STORE,        /* width bytes of memory = xmm src's low ones */
	S_TO_GPR,       /* gpr dst = xmm src's low width bytes, zero-extended */
	S_MOVE,         /* xmm dst = xmm src, or 16 bytes of memory */
	S_LOGIC,        /* xmm dst op= xmm src or 16 bytes of memory */
	S_UNPACK,       /* xmm dst's high 8 bytes = src's low 8 (punpcklqdq, unpcklpd) */
	S_ARITH,        /* xmm dst = op(dst, src: xmm or width bytes of memory) */
	S_COMPARE,      /* ZF PF CF from (u)comis[sd] dst, src; OF SF AF cleared */
	S_FROM_INT,     /* xmm dst = cvtsi2s[sd] of src: gpr or memory, src_width bytes */
	S_TO_INT,       /* gpr dst (src_width bytes) = cvt[t]s[sd]2si of src: xmm or memory */
};

#define MEM SWB_MEM_OPND
#define ALL_MASKED 0x1f80u     /* MXCSR's exception mask bits */

typedef double v2df __attribute__((vector_size(16)));

static int xmm_of(const cs_x86_op *op)
{
	return op->type == X86_OP_REG && op->reg >= X86_REG_XMM0 && op->reg <= X86_REG_XMM15
		       ? (int)(op->reg - X86_REG_XMM0)
		       : -1;
}

/* A 32- or 64-bit general register (bits in *bits), or -1. */
static int gpr_of(const cs_x86_op *op, int *bits)
{
	unsigned g;

	if (op->type != X86_OP_REG || (g = x86_gpr(op->reg, bits)) == X86_NO_GPR || (*bits != 32 && *bits != 64))
		return -1;
	return (int)g;
}

/* The memory operand op, of size bytes, as u's (capstone 4 calls some
 * scalar operands xmmword: the instruction reads size bytes). */
static bool mem_of(const cs_insn *in, const cs_x86_op *op, unsigned size, struct swb_uop *u)
{
	return op->type == X86_OP_MEM && (op->size == size || op->size == 16) && swb_uop_mem(in, op, u);
}

/* xmm dst, and xmm src or memory of width bytes. */
static bool xmm_src(const cs_insn *in, const cs_x86_op *o0, const cs_x86_op *o1, unsigned width,
		    struct swb_uop *u)
{
	int d = xmm_of(o0), s = xmm_of(o1);

	if (d < 0 || (s < 0 && !mem_of(in, o1, width, u)))
		return false;
	u->dst = (uint8_t)d;
	u->src = s < 0 ? MEM : (uint8_t)s;
	u->width = (uint8_t)width;
	return true;
}

/* movsd, movss, movq, movd, movaps...: which way, by the operands. */
static bool move(const cs_insn *in, const cs_x86_op *o0, const cs_x86_op *o1, unsigned width, struct swb_uop *u)
{
	int d = xmm_of(o0), s = xmm_of(o1), g, bits = 0;

	u->width = (uint8_t)width;
	if (d >= 0 && s >= 0) {
		u->sse = width == 16 ? S_MOVE : in->id == X86_INS_MOVQ ? S_MOVQ : S_MERGE;
		if (in->id == X86_INS_MOVD)
			return false;
	} else if (d >= 0 && (g = gpr_of(o1, &bits)) >= 0) {
		if ((unsigned)bits != 8 * width || width == 16)
			return false;
		u->sse = S_FROM_GPR;
		s = g;
	} else if (s >= 0 && (g = gpr_of(o0, &bits)) >= 0) {
		if ((unsigned)bits != 8 * width || width == 16)
			return false;
		u->sse = S_TO_GPR;
		d = g;
	} else if (d >= 0 && mem_of(in, o1, width, u)) {
		u->sse = width == 16 ? S_MOVE : S_LOAD;
		s = MEM;
	} else if (s >= 0 && mem_of(in, o0, width, u)) {
		u->sse = S_STORE;
		d = MEM;
	} else {
		return false;
	}
	u->dst = (uint8_t)d;
	u->src = (uint8_t)s;
	return true;
}

bool swb_sse_decode(const cs_insn *in, struct swb_uop *u)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *o0 = &x->operands[0], *o1 = &x->operands[1];
	int d, g, bits = 0;

	if (x->op_count != 2)
		return false;
	u->id = (uint16_t)in->id;
	switch (in->id) {
	case X86_INS_MOVSD:     /* the string move has no xmm operand: move() refuses it */
	case X86_INS_MOVQ:
		return move(in, o0, o1, 8, u);
	case X86_INS_MOVSS:
	case X86_INS_MOVD:
		return move(in, o0, o1, 4, u);
	case X86_INS_MOVAPS: case X86_INS_MOVAPD: case X86_INS_MOVDQA:
	case X86_INS_MOVUPS: case X86_INS_MOVUPD: case X86_INS_MOVDQU:
		return move(in, o0, o1, 16, u);
	case X86_INS_PXOR: case X86_INS_XORPS: case X86_INS_XORPD:
	case X86_INS_PAND: case X86_INS_ANDPS: case X86_INS_ANDPD:
	case X86_INS_PANDN: case X86_INS_ANDNPS: case X86_INS_ANDNPD:
	case X86_INS_POR: case X86_INS_ORPS: case X86_INS_ORPD:
		u->sse = S_LOGIC;
		return xmm_src(in, o0, o1, 16, u);
	case X86_INS_PUNPCKLQDQ:
	case X86_INS_UNPCKLPD:
		u->sse = S_UNPACK;
		return xmm_src(in, o0, o1, 16, u);
	case X86_INS_ADDSD: case X86_INS_SUBSD: case X86_INS_MULSD: case X86_INS_DIVSD:
	case X86_INS_MINSD: case X86_INS_MAXSD: case X86_INS_SQRTSD: case X86_INS_CVTSD2SS:
		u->sse = S_ARITH;
		return xmm_src(in, o0, o1, 8, u);
	case X86_INS_ADDSS: case X86_INS_SUBSS: case X86_INS_MULSS: case X86_INS_DIVSS:
	case X86_INS_MINSS: case X86_INS_MAXSS: case X86_INS_SQRTSS: case X86_INS_CVTSS2SD:
		u->sse = S_ARITH;
		return xmm_src(in, o0, o1, 4, u);
	case X86_INS_UCOMISD: case X86_INS_COMISD:
		u->sse = S_COMPARE;
		return xmm_src(in, o0, o1, 8, u);
	case X86_INS_UCOMISS: case X86_INS_COMISS:
		u->sse = S_COMPARE;
		return xmm_src(in, o0, o1, 4, u);
	case X86_INS_CVTSI2SD:
	case X86_INS_CVTSI2SS:
		if ((d = xmm_of(o0)) < 0)
			return false;
		if ((g = gpr_of(o1, &bits)) >= 0) {
			u->src = (uint8_t)g;
			u->src_width = (uint8_t)(bits / 8);
		} else if ((o1->size == 4 || o1->size == 8) && mem_of(in, o1, o1->size, u)) {
			u->src = MEM;
			u->src_width = o1->size;
		} else {
			return false;
		}
		u->sse = S_FROM_INT;
		u->dst = (uint8_t)d;
		u->width = in->id == X86_INS_CVTSI2SD ? 8 : 4;
		return true;
	case X86_INS_CVTTSD2SI: case X86_INS_CVTSD2SI: case X86_INS_CVTTSS2SI: case X86_INS_CVTSS2SI: {
		unsigned width = in->id == X86_INS_CVTTSD2SI || in->id == X86_INS_CVTSD2SI ? 8 : 4;
		int s = xmm_of(o1);

		if ((g = gpr_of(o0, &bits)) < 0 || (s < 0 && !mem_of(in, o1, width, u)))
			return false;
		u->sse = S_TO_INT;
		u->dst = (uint8_t)g;
		u->src = s < 0 ? MEM : (uint8_t)s;
		u->src_width = (uint8_t)(bits / 8);
		u->width = (uint8_t)width;
		return true;
	}
	default:
		return false;
	}
}

/* The address of u's memory operand; false when it faults: 16 bytes must
 * be aligned unless the instruction is one of the unaligned moves. */
static bool address(const struct swb_emu *e, const struct swb_uop *u, uint64_t *a)
{
	return swb_emu_addr(e, u, a) &&
	       !(u->width == 16 && (*a & 15) && u->id != X86_INS_MOVUPS && u->id != X86_INS_MOVUPD &&
		 u->id != X86_INS_MOVDQU);
}

/* The source operand's 16 bytes: an xmm register, or width bytes of
 * memory, zero-extended. */
static bool source(struct swb_emu *e, const struct swb_uop *u, uint8_t v[16])
{
	uint64_t a;

	if (u->src != MEM) {
		memcpy(v, e->io->xmm[u->src & 15], 16);
		return true;
	}
	memset(v, 0, 16);
	return address(e, u, &a) && e->io->read(e->io->arg, a, v, u->width);
}

/* The asm text of insn run with MXCSR %[m] (operand m, which then holds the
 * exception flags insn raised), the host's own MXCSR (%[h]) saved before
 * and loaded again after. */
#define WITH_MXCSR(insn) "stmxcsr %[h]\n\tldmxcsr %[m]\n\t" insn "\n\tstmxcsr %[m]\n\tldmxcsr %[h]"

/* dst = op(dst, src) on this CPU with MXCSR m (updated). */
static bool arith(unsigned id, v2df *dst, v2df src, uint32_t *m)
{
	uint32_t host;

#define OP(insn) asm volatile(WITH_MXCSR(insn " %[s], %[d]") \
			      : [d] "+x"(*dst), [m] "+m"(*m), [h] "=m"(host) : [s] "x"(src))
	switch (id) {
	case X86_INS_ADDSD: OP("addsd"); return true;
	case X86_INS_SUBSD: OP("subsd"); return true;
	case X86_INS_MULSD: OP("mulsd"); return true;
	case X86_INS_DIVSD: OP("divsd"); return true;
	case X86_INS_MINSD: OP("minsd"); return true;
	case X86_INS_MAXSD: OP("maxsd"); return true;
	case X86_INS_SQRTSD: OP("sqrtsd"); return true;
	case X86_INS_CVTSD2SS: OP("cvtsd2ss"); return true;
	case X86_INS_ADDSS: OP("addss"); return true;
	case X86_INS_SUBSS: OP("subss"); return true;
	case X86_INS_MULSS: OP("mulss"); return true;
	case X86_INS_DIVSS: OP("divss"); return true;
	case X86_INS_MINSS: OP("minss"); return true;
	case X86_INS_MAXSS: OP("maxss"); return true;
	case X86_INS_SQRTSS: OP("sqrtss"); return true;
	case X86_INS_CVTSS2SD: OP("cvtss2sd"); return true;
	default: return false;
	}
#undef OP
}

/* EFLAGS (ZF PF CF) of a comparison of a with b on this CPU, MXCSR m. */
static bool compare(unsigned id, v2df a, v2df b, uint32_t *m, uint64_t *eflags)
{
	uint8_t z, p, c;
	uint32_t host;

#define OP(insn) asm volatile(WITH_MXCSR(insn " %[b], %[a]\n\tsetz %[z]\n\tsetp %[p]\n\tsetc %[c]")             \
			      : [z] "=q"(z), [p] "=q"(p), [c] "=q"(c), [m] "+m"(*m), [h] "=m"(host)           \
			      : [a] "x"(a), [b] "x"(b) : "cc")
	switch (id) {
	case X86_INS_UCOMISD: OP("ucomisd"); break;
	case X86_INS_COMISD: OP("comisd"); break;
	case X86_INS_UCOMISS: OP("ucomiss"); break;
	case X86_INS_COMISS: OP("comiss"); break;
	default: return false;
	}
#undef OP
	*eflags = (z ? 0x40u : 0) | (p ? 4u : 0) | (c ? 1u : 0);
	return true;
}

static void from_int(unsigned id, unsigned size, uint64_t v, v2df *dst, uint32_t *m)
{
	int64_t q = (int64_t)v;
	int32_t l = (int32_t)(uint32_t)v;
	uint32_t host;

#define OP(insn, x) asm volatile(WITH_MXCSR(insn " %[s], %[d]") \
				 : [d] "+x"(*dst), [m] "+m"(*m), [h] "=m"(host) : [s] "r"(x))
	if (id == X86_INS_CVTSI2SD && size == 8)
		OP("cvtsi2sdq", q);
	else if (id == X86_INS_CVTSI2SD)
		OP("cvtsi2sdl", l);
	else if (size == 8)
		OP("cvtsi2ssq", q);
	else
		OP("cvtsi2ssl", l);
#undef OP
}

static bool to_int(unsigned id, unsigned size, v2df src, uint32_t *m, uint64_t *v)
{
	int64_t q = 0;
	int32_t l = 0;
	uint32_t host;

#define OP(insn, x) asm volatile(WITH_MXCSR(insn " %[s], %[d]") \
				 : [d] "=r"(x), [m] "+m"(*m), [h] "=m"(host) : [s] "x"(src))
	switch (id) {
	case X86_INS_CVTTSD2SI: if (size == 8) OP("cvttsd2si", q); else OP("cvttsd2si", l); break;
	case X86_INS_CVTSD2SI: if (size == 8) OP("cvtsd2si", q); else OP("cvtsd2si", l); break;
	case X86_INS_CVTTSS2SI: if (size == 8) OP("cvttss2si", q); else OP("cvttss2si", l); break;
	case X86_INS_CVTSS2SI: if (size == 8) OP("cvtss2si", q); else OP("cvtss2si", l); break;
	default: return false;
	}
#undef OP
	*v = size == 8 ? (uint64_t)q : (uint64_t)(uint32_t)l;   /* a 32-bit write zero-extends */
	return true;
}

static void logic(unsigned id, uint8_t d[16], const uint8_t s[16])
{
	uint64_t a[2], b[2];
	int i;

	memcpy(a, d, 16);
	memcpy(b, s, 16);
	for (i = 0; i < 2; i++)
		switch (id) {
		case X86_INS_PXOR: case X86_INS_XORPS: case X86_INS_XORPD: a[i] ^= b[i]; break;
		case X86_INS_PAND: case X86_INS_ANDPS: case X86_INS_ANDPD: a[i] &= b[i]; break;
		case X86_INS_PANDN: case X86_INS_ANDNPS: case X86_INS_ANDNPD: a[i] = ~a[i] & b[i]; break;
		default: a[i] |= b[i]; break;
		}
	memcpy(d, a, 16);
}

bool swb_sse_run(struct swb_emu *e, const struct swb_uop *u)
{
	struct swb_emu_io *io = e->io;
	uint8_t s[16], d[16];
	uint32_t m;
	uint64_t a, v = 0, fl;
	v2df x, y;

	if (!io || !io->load_sse(io->arg) || (*io->mxcsr & ALL_MASKED) != ALL_MASKED)
		return false;
	m = *io->mxcsr;
	switch (u->sse) {
	case S_STORE:
		return address(e, u, &a) && io->write(io->arg, a, io->xmm[u->src & 15], u->width);
	case S_TO_GPR:
		memcpy(&v, io->xmm[u->src & 15], u->width);
		e->r[u->dst & 15] = v;
		return true;
	case S_TO_INT:
		if (!source(e, u, s))
			return false;
		memcpy(&x, s, 16);
		if (!to_int(u->id, u->src_width, x, &m, &v))
			return false;
		e->r[u->dst & 15] = v;
		break;
	case S_COMPARE:
		if (!source(e, u, s))
			return false;
		memcpy(&x, io->xmm[u->dst & 15], 16);
		memcpy(&y, s, 16);
		if (!compare(u->id, x, y, &m, &fl))
			return false;
		swb_emu_set_eflags(e, fl);
		break;
	default:
		/* the rest write xmm dst */
		memcpy(d, io->xmm[u->dst & 15], 16);
		if (u->sse == S_FROM_GPR) {
			memset(d, 0, 16);
			memcpy(d, &e->r[u->src & 15], u->width);
		} else if (u->sse == S_FROM_INT) {
			if (u->src != MEM)
				v = e->r[u->src & 15];
			else if (!swb_emu_addr(e, u, &a) || !swb_emu_load(e, a, u->src_width, &v))
				return false;
			memcpy(&x, d, 16);
			from_int(u->id, u->src_width, v, &x, &m);
			memcpy(d, &x, 16);
		} else {
			if (!source(e, u, s))
				return false;
			switch (u->sse) {
			case S_LOAD: memcpy(d, s, 16); break;
			case S_MERGE: memcpy(d, s, u->width); break;
			case S_MOVQ: memset(d, 0, 16); memcpy(d, s, 8); break;
			case S_MOVE: memcpy(d, s, 16); break;
			case S_LOGIC: logic(u->id, d, s); break;
			case S_UNPACK: memcpy(d + 8, s, 8); break;
			case S_ARITH:
				memcpy(&x, d, 16);
				memcpy(&y, s, 16);
				if (!arith(u->id, &x, y, &m))
					return false;
				memcpy(d, &x, 16);
				break;
			default:
				return false;
			}
		}
		memcpy(io->xmm[u->dst & 15], d, 16);
		break;
	}
	*io->mxcsr = m;
	return true;
}
