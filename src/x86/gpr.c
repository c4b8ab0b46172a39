/* gpr.c — capstone's register names to the sixteen general registers. */
#include <capstone/capstone.h>

#include "x86/x86.h"

/* by capstone's register: the general register's index + 1 (0: none), its width */
static const struct { unsigned char g1, bits; } gprs[X86_REG_ENDING] = {
#define REGS(n, q, d, w, b) [X86_REG_##q] = { n + 1, 64 }, [X86_REG_##d] = { n + 1, 32 }, \
	[X86_REG_##w] = { n + 1, 16 }, [X86_REG_##b] = { n + 1, 8 }
	REGS(0, RAX, EAX, AX, AL), REGS(1, RCX, ECX, CX, CL), REGS(2, RDX, EDX, DX, DL),
	REGS(3, RBX, EBX, BX, BL), REGS(4, RSP, ESP, SP, SPL), REGS(5, RBP, EBP, BP, BPL),
	REGS(6, RSI, ESI, SI, SIL), REGS(7, RDI, EDI, DI, DIL), REGS(8, R8, R8D, R8W, R8B),
	REGS(9, R9, R9D, R9W, R9B), REGS(10, R10, R10D, R10W, R10B), REGS(11, R11, R11D, R11W, R11B),
	REGS(12, R12, R12D, R12W, R12B), REGS(13, R13, R13D, R13W, R13B), REGS(14, R14, R14D, R14W, R14B),
	REGS(15, R15, R15D, R15W, R15B),
#undef REGS
	[X86_REG_AH] = { 1, 0 }, [X86_REG_CH] = { 2, 0 }, [X86_REG_DH] = { 3, 0 }, [X86_REG_BH] = { 4, 0 },
};

unsigned x86_gpr(unsigned reg, int *bits)
{
	if (reg >= X86_REG_ENDING || !gprs[reg].g1) {
		*bits = 0;
		return X86_NO_GPR;
	}
	*bits = gprs[reg].bits;
	return gprs[reg].g1 - 1u;
}
