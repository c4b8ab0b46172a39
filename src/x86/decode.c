/* decode.c — the common x86-64 integer instructions decoded straight into
 * capstone's structures, ten times faster than capstone 4 decodes them (its
 * tables and detail cost about 900 ns an instruction here; the software
 * branch sampler decodes thousands of a program's instructions while the
 * program waits). Only legacy one-byte and 0F opcodes with at most an
 * operand-size, FS/GS and REX prefix are taken (96% of gawk's instructions,
 * 91% of libc's); F2/F3/F0 prefixes (but endbr64), vector code, 16-bit stack
 * operations, far and string forms are left to capstone. capstone's own
 * quirks are kept where its readers could see them (access flags,
 * immediates, operand sizes): tests/unit/test-x86-decode.c holds this to
 * capstone over whole libraries and random bytes. */
#include <capstone/capstone.h>
#include <stddef.h>
#include <string.h>

#include "x86/x86.h"

/* the general registers by operand size (1, 2, 4, 8 bytes: [0]-[3]), by number */
static const x86_reg gprs[4][16] = {
	{ X86_REG_AL, X86_REG_CL, X86_REG_DL, X86_REG_BL, X86_REG_SPL, X86_REG_BPL, X86_REG_SIL, X86_REG_DIL,
	  X86_REG_R8B, X86_REG_R9B, X86_REG_R10B, X86_REG_R11B, X86_REG_R12B, X86_REG_R13B, X86_REG_R14B, X86_REG_R15B },
	{ X86_REG_AX, X86_REG_CX, X86_REG_DX, X86_REG_BX, X86_REG_SP, X86_REG_BP, X86_REG_SI, X86_REG_DI,
	  X86_REG_R8W, X86_REG_R9W, X86_REG_R10W, X86_REG_R11W, X86_REG_R12W, X86_REG_R13W, X86_REG_R14W, X86_REG_R15W },
	{ X86_REG_EAX, X86_REG_ECX, X86_REG_EDX, X86_REG_EBX, X86_REG_ESP, X86_REG_EBP, X86_REG_ESI, X86_REG_EDI,
	  X86_REG_R8D, X86_REG_R9D, X86_REG_R10D, X86_REG_R11D, X86_REG_R12D, X86_REG_R13D, X86_REG_R14D, X86_REG_R15D },
	{ X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX, X86_REG_RSP, X86_REG_RBP, X86_REG_RSI, X86_REG_RDI,
	  X86_REG_R8, X86_REG_R9, X86_REG_R10, X86_REG_R11, X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15 },
};
/* registers 4-7 of 8 bits without a REX prefix */
static const x86_reg high8[4] = { X86_REG_AH, X86_REG_CH, X86_REG_DH, X86_REG_BH };

/* by condition code: jcc, cmovcc, setcc */
static const unsigned short jcc_ids[16] = {
	X86_INS_JO, X86_INS_JNO, X86_INS_JB, X86_INS_JAE, X86_INS_JE, X86_INS_JNE, X86_INS_JBE, X86_INS_JA,
	X86_INS_JS, X86_INS_JNS, X86_INS_JP, X86_INS_JNP, X86_INS_JL, X86_INS_JGE, X86_INS_JLE, X86_INS_JG,
};
static const unsigned short cmov_ids[16] = {
	X86_INS_CMOVO, X86_INS_CMOVNO, X86_INS_CMOVB, X86_INS_CMOVAE, X86_INS_CMOVE, X86_INS_CMOVNE,
	X86_INS_CMOVBE, X86_INS_CMOVA, X86_INS_CMOVS, X86_INS_CMOVNS, X86_INS_CMOVP, X86_INS_CMOVNP,
	X86_INS_CMOVL, X86_INS_CMOVGE, X86_INS_CMOVLE, X86_INS_CMOVG,
};
static const unsigned short setcc_ids[16] = {
	X86_INS_SETO, X86_INS_SETNO, X86_INS_SETB, X86_INS_SETAE, X86_INS_SETE, X86_INS_SETNE,
	X86_INS_SETBE, X86_INS_SETA, X86_INS_SETS, X86_INS_SETNS, X86_INS_SETP, X86_INS_SETNP,
	X86_INS_SETL, X86_INS_SETGE, X86_INS_SETLE, X86_INS_SETG,
};
/* the eight arithmetic operations of 00-3F and of 80-83 /r */
static const unsigned short alu_ids[8] = {
	X86_INS_ADD, X86_INS_OR, X86_INS_ADC, X86_INS_SBB, X86_INS_AND, X86_INS_SUB, X86_INS_XOR, X86_INS_CMP,
};
/* C0-C1, D0-D3 /r */
static const unsigned short shift_ids[8] = {
	X86_INS_ROL, X86_INS_ROR, X86_INS_RCL, X86_INS_RCR, X86_INS_SHL, X86_INS_SHR, X86_INS_SAL, X86_INS_SAR,
};

#define R CS_AC_READ
#define W CS_AC_WRITE
#define RW (CS_AC_READ | CS_AC_WRITE)

struct dec {
	const uint8_t *start, *p, *end;
	uint64_t addr;
	uint8_t rex;            /* 0x40-0x4f, or 0 */
	bool opsize16;          /* 66 */
	x86_reg seg;            /* FS, GS, or invalid */
	/* the ModRM byte, once read */
	uint8_t mod, reg, rm;
	cs_detail *det;
	cs_x86 *x;
};

static bool take(struct dec *d, void *v, unsigned n)
{
	if ((size_t)(d->end - d->p) < n)
		return false;
	memcpy(v, d->p, n);
	d->p += n;
	return true;
}

static bool take_imm(struct dec *d, unsigned n, int64_t *v)
{
	int8_t b;
	int16_t h;
	int32_t w;

	switch (n) {
	case 1: if (!take(d, &b, 1)) return false; *v = b; return true;
	case 2: if (!take(d, &h, 2)) return false; *v = h; return true;
	case 4: if (!take(d, &w, 4)) return false; *v = w; return true;
	default: return take(d, v, 8);
	}
}

/* the operand size of a v-form (16, 32 or 64 bits) in bytes */
static unsigned vsize(const struct dec *d)
{
	return d->rex & 8 ? 8 : d->opsize16 ? 2 : 4;
}

static x86_reg gpr(const struct dec *d, unsigned n, unsigned size)
{
	if (size == 1 && !d->rex && n >= 4 && n <= 7)
		return high8[n - 4];
	return gprs[size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3][n];
}

static cs_x86_op *next_op(struct dec *d, x86_op_type type, unsigned size, uint8_t access)
{
	cs_x86_op *op = &d->x->operands[d->x->op_count++];

	memset(op, 0, sizeof(*op));
	op->type = type;
	op->size = (uint8_t)size;
	op->access = access;
	return op;
}

static void add_reg(struct dec *d, x86_reg reg, unsigned size, uint8_t access)
{
	next_op(d, X86_OP_REG, size, access)->reg = reg;
}

/* capstone's value of an immediate operand of size bytes: zero-extended
 * below 8 bytes, unless a shorter immediate was sign-extended for
 * arithmetic (add eax, -1; but and eax, 0xfffffff8) */
static void add_imm(struct dec *d, int64_t imm, unsigned size)
{
	if (size < 8)
		imm &= (int64_t)((1ULL << 8 * size) - 1);
	next_op(d, X86_OP_IMM, size, 0)->imm = imm;
}

static void add_short_imm(struct dec *d, int64_t imm, unsigned size, unsigned id)
{
	if (id == X86_INS_AND || id == X86_INS_OR || id == X86_INS_XOR)
		add_imm(d, imm, size);
	else
		next_op(d, X86_OP_IMM, size, 0)->imm = imm;
}

static bool modrm(struct dec *d)
{
	uint8_t b;

	if (!take(d, &b, 1))
		return false;
	d->mod = b >> 6;
	d->reg = (uint8_t)((b >> 3 & 7) | (d->rex & 4 ? 8 : 0));
	d->rm = b & 7;
	return true;
}

/* The r/m operand (after modrm()): a register, or memory. */
static bool add_rm(struct dec *d, unsigned size, uint8_t access)
{
	x86_op_mem m = { .segment = d->seg, .scale = 1 };
	unsigned base = d->rm, disp_size = d->mod == 1 ? 1 : d->mod == 2 ? 4 : 0;
	int64_t disp = 0;
	cs_x86_op *op;

	if (d->mod == 3) {
		add_reg(d, gpr(d, d->rm | (d->rex & 1 ? 8 : 0), size), size, access);
		return true;
	}
	if (base == 4) {
		uint8_t sib;
		unsigned index;

		if (!take(d, &sib, 1))
			return false;
		index = (sib >> 3 & 7) | (d->rex & 2 ? 8 : 0);
		base = sib & 7;
		if (index != 4)
			m.index = gprs[3][index];
		m.scale = 1 << (sib >> 6);   /* even without an index, as capstone */
		if (base == 5 && d->mod == 0)
			disp_size = 4;
		else
			m.base = gprs[3][base | (d->rex & 1 ? 8 : 0)];
	} else if (base == 5 && d->mod == 0) {
		m.base = X86_REG_RIP;
		disp_size = 4;
	} else {
		m.base = gprs[3][base | (d->rex & 1 ? 8 : 0)];
	}
	if (disp_size && !take_imm(d, disp_size, &disp))
		return false;
	m.disp = disp;
	op = next_op(d, X86_OP_MEM, size, access);
	op->mem = m;
	return true;
}

static void add_greg(struct dec *d, unsigned size, uint8_t access)
{
	add_reg(d, gpr(d, d->reg, size), size, access);
}

/* A two-operand form by its ModRM: r/m first (to_rm) or the register first. */
static bool rm_reg(struct dec *d, bool to_rm, unsigned size, uint8_t a0, uint8_t a1)
{
	if (!modrm(d))
		return false;
	if (!to_rm) {
		add_greg(d, size, a0);
		return add_rm(d, size, a1);
	}
	if (!add_rm(d, size, a0))
		return false;
	add_greg(d, size, a1);
	return true;
}

/* a relative branch's target: from the end of the instruction (its
 * displacement comes last) */
static int64_t rel_target(const struct dec *d, int64_t rel)
{
	return (int64_t)(d->addr + (uint64_t)(d->p - d->start) + (uint64_t)rel);
}

static void implicit_write(struct dec *d, x86_reg reg)
{
	d->det->regs_write[d->det->regs_write_count++] = (uint16_t)reg;
}

static void group(struct dec *d, uint8_t g)
{
	d->det->groups[d->det->groups_count++] = g;
}

/* a relative jump or call of rel bytes (after the opcode) */
static unsigned relative(struct dec *d, unsigned rel, unsigned id)
{
	int64_t imm;

	if (d->opsize16 || d->rex || !take_imm(d, rel, &imm))
		return 0;
	add_imm(d, rel_target(d, imm), 8);
	if (id == X86_INS_CALL) {
		implicit_write(d, X86_REG_RSP);
		group(d, CS_GRP_CALL);
	} else {
		group(d, CS_GRP_JUMP);
	}
	group(d, CS_GRP_BRANCH_RELATIVE);
	return id;
}

/* The one-byte map after the prefixes; the instruction's id, or 0. */
static unsigned one_byte(struct dec *d, uint8_t op)
{
	unsigned v = vsize(d), size;
	int64_t imm;

	if (op < 0x40 && (op & 7) < 6) {
		unsigned id = alu_ids[op >> 3];
		uint8_t a0 = id == X86_INS_CMP ? R : RW;

		size = op & 1 ? v : 1;
		switch (op & 7) {
		case 0: case 1: return rm_reg(d, true, size, a0, R) ? id : 0;
		case 2: case 3: return rm_reg(d, false, size, a0, R) ? id : 0;
		default:
			if (!take_imm(d, size == 8 ? 4 : size, &imm))
				return 0;
			add_reg(d, gpr(d, 0, size), size, a0);
			add_imm(d, imm, size);
			return id;
		}
	}
	if (op >= 0x50 && op <= 0x5f) {
		if (d->opsize16)
			return 0;
		add_reg(d, gprs[3][(op & 7) | (d->rex & 1 ? 8 : 0)], 8, op < 0x58 ? R : W);
		implicit_write(d, X86_REG_RSP);
		return op < 0x58 ? X86_INS_PUSH : X86_INS_POP;
	}
	if (op >= 0x70 && op <= 0x7f)
		return relative(d, 1, jcc_ids[op & 15]);
	if (op >= 0xb0 && op <= 0xbf) {
		size = op < 0xb8 ? 1 : v;
		if (!take_imm(d, size, &imm))
			return 0;
		add_reg(d, gpr(d, (op & 7) | (d->rex & 1 ? 8 : 0), size), size, W);
		add_imm(d, imm, size);
		return size == 8 ? X86_INS_MOVABS : X86_INS_MOV;
	}
	switch (op) {
	case 0x63:
		if (!(d->rex & 8) || !modrm(d))
			return 0;
		add_greg(d, 8, W);
		return add_rm(d, 4, R) ? X86_INS_MOVSXD : 0;
	case 0x68:
	case 0x6a:
		if (d->opsize16 || !take_imm(d, op == 0x68 ? 4 : 1, &imm))
			return 0;
		add_imm(d, imm, 8);
		implicit_write(d, X86_REG_RSP);
		return X86_INS_PUSH;
	case 0x69:
	case 0x6b:
		if (!rm_reg(d, false, v, W, R) || !take_imm(d, op == 0x6b ? 1 : v == 8 ? 4 : v, &imm))
			return 0;
		if (op == 0x6b)
			add_short_imm(d, imm, v, X86_INS_IMUL);
		else
			add_imm(d, imm, v);
		return X86_INS_IMUL;
	case 0x80: case 0x81: case 0x83:
		size = op == 0x80 ? 1 : v;
		if (!modrm(d) || !add_rm(d, size, (d->reg & 7) == 7 ? R : RW) ||
		    !take_imm(d, op == 0x81 ? (size == 8 ? 4 : size) : 1, &imm))
			return 0;
		if (op == 0x83)
			add_short_imm(d, imm, size, alu_ids[d->reg & 7]);
		else
			add_imm(d, imm, size);
		return alu_ids[d->reg & 7];
	case 0x84: case 0x85:
		return rm_reg(d, true, op & 1 ? v : 1, R, R) ? X86_INS_TEST : 0;
	case 0x86: case 0x87:
		return rm_reg(d, true, op & 1 ? v : 1, RW, RW) ? X86_INS_XCHG : 0;
	case 0x88: case 0x89:
		return rm_reg(d, true, op & 1 ? v : 1, W, R) ? X86_INS_MOV : 0;
	case 0x8a: case 0x8b:
		return rm_reg(d, false, op & 1 ? v : 1, W, R) ? X86_INS_MOV : 0;
	case 0x8d:
		if (!modrm(d) || d->mod == 3 || d->seg != X86_REG_INVALID)
			return 0;
		add_greg(d, v, W);
		return add_rm(d, v, R) ? X86_INS_LEA : 0;
	case 0x90:
		return d->rex & 1 || d->opsize16 ? 0 : X86_INS_NOP;
	case 0x98:
		implicit_write(d, gpr(d, 0, v));
		return d->rex & 8 ? X86_INS_CDQE : d->opsize16 ? X86_INS_CBW : X86_INS_CWDE;
	case 0x99:
		implicit_write(d, gpr(d, 0, v));
		implicit_write(d, gpr(d, 2, v));
		return d->rex & 8 ? X86_INS_CQO : d->opsize16 ? X86_INS_CWD : X86_INS_CDQ;
	case 0xa8: case 0xa9:
		size = op & 1 ? v : 1;
		if (!take_imm(d, size == 8 ? 4 : size, &imm))
			return 0;
		add_reg(d, gpr(d, 0, size), size, RW);   /* capstone's access */
		add_imm(d, imm, size);
		return X86_INS_TEST;
	case 0xc0: case 0xc1: case 0xd0: case 0xd1: case 0xd2: case 0xd3:
		size = op & 1 ? v : 1;
		/* capstone: a rotated memory operand is only read */
		if (!modrm(d) || !add_rm(d, size, d->mod != 3 && (d->reg & 7) < 4 ? R : RW))
			return 0;
		if (op < 0xd0) {
			if (!take_imm(d, 1, &imm))
				return 0;
			add_imm(d, imm, 1);
		} else if (op < 0xd2) {
			add_imm(d, 1, size);
		} else {
			add_reg(d, X86_REG_CL, 1, R);
		}
		return shift_ids[d->reg & 7];
	case 0xc2:
	case 0xc3:
		if (d->opsize16 || d->rex)
			return 0;
		if (op == 0xc2) {
			if (!take_imm(d, 2, &imm))
				return 0;
			add_imm(d, imm & 0xffff, 8);
		}
		implicit_write(d, X86_REG_RSP);
		group(d, CS_GRP_RET);
		return X86_INS_RET;
	case 0xc6: case 0xc7:
		size = op & 1 ? v : 1;
		if (!modrm(d) || (d->reg & 7) || !add_rm(d, size, W) || !take_imm(d, size == 8 ? 4 : size, &imm))
			return 0;
		add_imm(d, imm, size);
		return X86_INS_MOV;
	case 0xc9:
		implicit_write(d, X86_REG_RBP);
		implicit_write(d, X86_REG_RSP);
		return X86_INS_LEAVE;
	case 0xe8: case 0xe9: case 0xeb:
		return relative(d, op == 0xeb ? 1 : 4, op == 0xe8 ? X86_INS_CALL : X86_INS_JMP);
	case 0xf6: case 0xf7: {
		static const unsigned short ids[8] = {
			X86_INS_TEST, 0, X86_INS_NOT, X86_INS_NEG, X86_INS_MUL, X86_INS_IMUL, X86_INS_DIV, X86_INS_IDIV,
		};
		unsigned id;

		size = op & 1 ? v : 1;
		if (!modrm(d) || !(id = ids[d->reg & 7]) ||
		    !add_rm(d, size, id == X86_INS_NOT || id == X86_INS_NEG || (id == X86_INS_TEST && d->mod != 3) ? RW : R))
			return 0;
		if (id == X86_INS_TEST) {
			if (!take_imm(d, size == 8 ? 4 : size, &imm))
				return 0;
			add_imm(d, imm, size);
		} else if (id != X86_INS_NOT && id != X86_INS_NEG) {
			/* rdx:rax (ax alone for a byte) */
			implicit_write(d, gpr(d, 0, size == 1 ? 2 : size));
			if (size > 1)
				implicit_write(d, gpr(d, 2, size));
		}
		return id;
	}
	case 0xfe: case 0xff:
		if (!modrm(d))
			return 0;
		switch (d->reg & 7) {
		case 0: case 1:
			return add_rm(d, op & 1 ? v : 1, RW) ? (d->reg & 7 ? X86_INS_DEC : X86_INS_INC) : 0;
		case 2: case 4:
			if (op == 0xfe || d->opsize16)
				return 0;
			if (!add_rm(d, 8, R))
				return 0;
			if ((d->reg & 7) == 4) {
				group(d, CS_GRP_JUMP);
				return X86_INS_JMP;
			}
			implicit_write(d, X86_REG_RSP);
			group(d, CS_GRP_CALL);
			return X86_INS_CALL;
		case 6:
			if (op == 0xfe || d->opsize16 || !add_rm(d, 8, R))
				return 0;
			implicit_write(d, X86_REG_RSP);
			return X86_INS_PUSH;
		default:
			return 0;
		}
	default:
		return 0;
	}
}

/* The 0F map. */
static unsigned two_byte(struct dec *d, uint8_t op)
{
	unsigned v = vsize(d);
	int64_t imm;

	if (op >= 0x40 && op <= 0x4f)
		return rm_reg(d, false, v, RW, R) ? cmov_ids[op & 15] : 0;
	if (op >= 0x80 && op <= 0x8f)
		return relative(d, 4, jcc_ids[op & 15]);
	if (op >= 0x90 && op <= 0x9f)
		/* capstone: setcc's memory is only read, but by sete and setne */
		return modrm(d) && add_rm(d, 1, d->mod == 3 || (op & 14) == 4 ? W : R) ? setcc_ids[op & 15] : 0;
	switch (op) {
	case 0x05:
		group(d, CS_GRP_INT);
		return X86_INS_SYSCALL;
	case 0x0b:
		return X86_INS_UD2;
	case 0x1f:
		/* capstone: REX.W leaves a nop's operand 4 bytes */
		return modrm(d) && (d->reg & 7) == 0 && d->mod != 3 && add_rm(d, d->opsize16 ? 2 : 4, R) ? X86_INS_NOP : 0;
	case 0xa3: case 0xab: case 0xb3: case 0xbb: {
		unsigned id = op == 0xa3 ? X86_INS_BT : op == 0xab ? X86_INS_BTS : op == 0xb3 ? X86_INS_BTR : X86_INS_BTC;

		return rm_reg(d, true, v, id == X86_INS_BT ? R : RW, R) ? id : 0;
	}
	case 0xaf:
		return rm_reg(d, false, v, RW, R) ? X86_INS_IMUL : 0;
	case 0xb6: case 0xb7: case 0xbe: case 0xbf:
		if (!modrm(d))
			return 0;
		add_greg(d, v, W);
		return add_rm(d, op & 1 ? 2 : 1, R) ? op < 0xb8 ? X86_INS_MOVZX : X86_INS_MOVSX : 0;
	case 0xba: {
		static const unsigned short ids[4] = { X86_INS_BT, X86_INS_BTS, X86_INS_BTR, X86_INS_BTC };
		unsigned id;

		if (!modrm(d) || (d->reg & 7) < 4)
			return 0;
		id = ids[(d->reg & 7) - 4];
		if (!add_rm(d, v, id == X86_INS_BT ? R : RW) || !take_imm(d, 1, &imm))
			return 0;
		add_imm(d, imm & 0xff, 1);
		return id;
	}
	case 0xbc: case 0xbd:
		return rm_reg(d, false, v, W, R) ? op == 0xbc ? X86_INS_BSF : X86_INS_BSR : 0;
	default:
		return 0;
	}
}

static bool has_mem(const cs_x86 *x)
{
	uint8_t i;

	for (i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM)
			return true;
	return false;
}

bool x86_decode_common(const uint8_t *code, size_t size, uint64_t addr, cs_insn *in)
{
	struct dec d = { code, code, code + (size < 15 ? size : 15), addr, .seg = X86_REG_INVALID };
	cs_detail scratch, *det = in->detail ? in->detail : &scratch;   /* CS_OPT_DETAIL off */
	unsigned id;
	uint8_t op;

	d.det = det;
	d.x = &det->x86;
	memset(d.x, 0, offsetof(cs_x86, operands));
	d.x->addr_size = 8;
	det->regs_read_count = det->regs_write_count = det->groups_count = 0;
	for (;; d.p++) {
		if (d.p == d.end)
			return false;
		/* capstone's prefix[1] is the segment, [2] the operand size */
		if (*d.p == 0x66) {
			d.opsize16 = true;
			d.x->prefix[2] = 0x66;
		} else if (*d.p == 0x64 || *d.p == 0x65) {
			d.x->prefix[1] = *d.p;
			d.seg = *d.p == 0x64 ? X86_REG_FS : X86_REG_GS;
		} else {
			break;
		}
	}
	if (d.p == code && d.end - d.p >= 4 && !memcmp(d.p, "\xf3\x0f\x1e\xfa", 4)) {   /* unprefixed */
		memcpy(d.x->opcode, d.p, 4);
		d.p += 4;
		d.x->addr_size = 0;   /* as capstone has it */
		id = X86_INS_ENDBR64;
		goto done;
	}
	if ((*d.p & 0xf0) == 0x40)
		d.x->rex = d.rex = *d.p++;
	if (!take(&d, &op, 1))
		return false;
	d.x->opcode[0] = op;
	if (op == 0x0f) {
		if (!take(&d, &op, 1))
			return false;
		d.x->opcode[1] = op;
		id = two_byte(&d, op);
	} else {
		id = one_byte(&d, op);
	}
	/* a segment prefix on an instruction without memory: capstone may
	 * take it otherwise */
	if (!id || (d.seg != X86_REG_INVALID && !has_mem(d.x)))
		return false;
done:
	in->id = id;
	in->address = addr;
	in->size = (uint16_t)(d.p - code);
	memcpy(in->bytes, code, in->size);
	return true;
}

bool x86_disasm_iter(csh cs, const uint8_t **code, size_t *size, uint64_t *addr, cs_insn *in)
{
	if (!x86_decode_common(*code, *size, *addr, in))
		return cs_disasm_iter(cs, code, size, addr, in);
	*code += in->size;
	*size -= in->size;
	*addr += in->size;
	return true;
}
