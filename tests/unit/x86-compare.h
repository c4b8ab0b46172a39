/* x86-compare.h — what tests/unit/test-x86-decode.c and the fuzz target
 * tests/fuzz/fuzz-x86.c hold x86_decode_common() to: for bytes it decodes,
 * capstone's instruction with the same fields (x86.h lists them), and the
 * same uop or branch of the sampler's made of it. */
#ifndef OCREC_TEST_X86_COMPARE_H
#define OCREC_TEST_X86_COMPARE_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <string.h>

#include "sampler/emu.h"
#include "sampler/swtrace.h"
#include "x86/x86.h"

/* the general registers an instruction writes, by cs_regs_access() */
static unsigned written_gprs(csh cs, const cs_insn *in)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0, i;
	unsigned mask = 0, g;
	int bits;

	if (cs_regs_access(cs, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return ~0u;
	for (i = 0; i < nwr; i++)
		if ((g = x86_gpr(wr[i], &bits)) != X86_NO_GPR)
			mask |= 1u << g;
	return mask;
}

static unsigned groups(const cs_insn *in)
{
	static const unsigned g[] = {
		CS_GRP_JUMP, CS_GRP_CALL, CS_GRP_RET, CS_GRP_INT, CS_GRP_IRET, CS_GRP_PRIVILEGE,
		CS_GRP_BRANCH_RELATIVE, X86_GRP_SSE1, X86_GRP_SSE2, X86_GRP_AVX, X86_GRP_FPU, X86_GRP_MMX,
	};
	unsigned mask = 0, i;

	for (i = 0; i < sizeof(g) / sizeof(*g); i++)
		if (x86_in_group(in, (uint8_t)g[i]))
			mask |= 1u << i;
	return mask;
}

static bool same_operand(const cs_x86_op *a, const cs_x86_op *b)
{
	if (a->type != b->type || a->size != b->size || a->access != b->access)
		return false;
	switch (a->type) {
	case X86_OP_REG: return a->reg == b->reg;
	case X86_OP_IMM: return a->imm == b->imm;
	case X86_OP_MEM: return !memcmp(&a->mem, &b->mem, sizeof(a->mem));
	default: return true;
	}
}

/* What differs between capstone's a and ours b (the first found), or NULL. */
static const char *x86_difference(csh cs, const cs_insn *a, const cs_insn *b)
{
	const cs_x86 *x = &a->detail->x86, *y = &b->detail->x86;
	struct swb_ctl ca, cb;
	struct swb_uop ua, ub;
	bool ka, kb;
	uint8_t i;

	if (a->id != b->id || a->size != b->size || memcmp(a->bytes, b->bytes, a->size))
		return "instruction or length";
	if (memcmp(x->prefix, y->prefix, 4) || memcmp(x->opcode, y->opcode, 4) || x->rex != y->rex ||
	    x->addr_size != y->addr_size)
		return "prefix, opcode, rex or address size";
	if (x->op_count != y->op_count)
		return "operand count";
	for (i = 0; i < x->op_count; i++)
		if (!same_operand(&x->operands[i], &y->operands[i]))
			return "an operand";
	if (written_gprs(cs, a) != written_gprs(cs, b))
		return "registers written";
	if (groups(a) != groups(b))
		return "groups";
	/* and what the sampler makes of it */
	ka = swb_classify(a, &ca);
	kb = swb_classify(b, &cb);
	if (ka != kb || (ka && memcmp(&ca, &cb, sizeof(ca))))
		return "the sampler's branch";
	if (!ka) {
		memset(&ua, 0, sizeof(ua));
		memset(&ub, 0, sizeof(ub));
		swb_uop_from_insn(a, &ua);
		swb_uop_from_insn(b, &ub);
		if (memcmp(&ua, &ub, sizeof(ua)))
			return "the sampler's uop";
	}
	return NULL;
}

#endif
