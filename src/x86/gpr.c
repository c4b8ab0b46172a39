/* gpr.c — capstone's register names to the sixteen general registers. */
#include <capstone/capstone.h>
#include <stddef.h>

#include "x86/x86.h"

unsigned x86_gpr(unsigned reg, int *bits)
{
	static const struct { unsigned short r; unsigned char g, bits; } t[] = {
		{ X86_REG_RAX, 0, 64 }, { X86_REG_EAX, 0, 32 }, { X86_REG_AX, 0, 16 }, { X86_REG_AL, 0, 8 },
		{ X86_REG_RCX, 1, 64 }, { X86_REG_ECX, 1, 32 }, { X86_REG_CX, 1, 16 }, { X86_REG_CL, 1, 8 },
		{ X86_REG_RDX, 2, 64 }, { X86_REG_EDX, 2, 32 }, { X86_REG_DX, 2, 16 }, { X86_REG_DL, 2, 8 },
		{ X86_REG_RBX, 3, 64 }, { X86_REG_EBX, 3, 32 }, { X86_REG_BX, 3, 16 }, { X86_REG_BL, 3, 8 },
		{ X86_REG_RSP, 4, 64 }, { X86_REG_ESP, 4, 32 }, { X86_REG_SP, 4, 16 }, { X86_REG_SPL, 4, 8 },
		{ X86_REG_RBP, 5, 64 }, { X86_REG_EBP, 5, 32 }, { X86_REG_BP, 5, 16 }, { X86_REG_BPL, 5, 8 },
		{ X86_REG_RSI, 6, 64 }, { X86_REG_ESI, 6, 32 }, { X86_REG_SI, 6, 16 }, { X86_REG_SIL, 6, 8 },
		{ X86_REG_RDI, 7, 64 }, { X86_REG_EDI, 7, 32 }, { X86_REG_DI, 7, 16 }, { X86_REG_DIL, 7, 8 },
		{ X86_REG_R8, 8, 64 }, { X86_REG_R8D, 8, 32 }, { X86_REG_R8W, 8, 16 }, { X86_REG_R8B, 8, 8 },
		{ X86_REG_R9, 9, 64 }, { X86_REG_R9D, 9, 32 }, { X86_REG_R9W, 9, 16 }, { X86_REG_R9B, 9, 8 },
		{ X86_REG_R10, 10, 64 }, { X86_REG_R10D, 10, 32 }, { X86_REG_R10W, 10, 16 }, { X86_REG_R10B, 10, 8 },
		{ X86_REG_R11, 11, 64 }, { X86_REG_R11D, 11, 32 }, { X86_REG_R11W, 11, 16 }, { X86_REG_R11B, 11, 8 },
		{ X86_REG_R12, 12, 64 }, { X86_REG_R12D, 12, 32 }, { X86_REG_R12W, 12, 16 }, { X86_REG_R12B, 12, 8 },
		{ X86_REG_R13, 13, 64 }, { X86_REG_R13D, 13, 32 }, { X86_REG_R13W, 13, 16 }, { X86_REG_R13B, 13, 8 },
		{ X86_REG_R14, 14, 64 }, { X86_REG_R14D, 14, 32 }, { X86_REG_R14W, 14, 16 }, { X86_REG_R14B, 14, 8 },
		{ X86_REG_R15, 15, 64 }, { X86_REG_R15D, 15, 32 }, { X86_REG_R15W, 15, 16 }, { X86_REG_R15B, 15, 8 },
		{ X86_REG_AH, 0, 0 }, { X86_REG_CH, 1, 0 }, { X86_REG_DH, 2, 0 }, { X86_REG_BH, 3, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].r == reg) {
			*bits = t[i].bits;
			return t[i].g;
		}
	*bits = 0;
	return X86_NO_GPR;
}
