/* x86.h — x86-64 facts over capstone's names, for the modules that read
 * machine code (the software branch sampler, BOLT's model of a binary, AutoFDO's view
 * of one), and a decoder of the common instructions for them (decode.c). */
#ifndef OCREC_X86_H
#define OCREC_X86_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define X86_NO_GPR 0xff

/* Index 0-15 (rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8-r15) of the general
 * register that holds capstone's reg, and reg's width in *bits (0 for AH..BH,
 * which sit 8 bits up); X86_NO_GPR and 0 for any other register. */
unsigned x86_gpr(unsigned reg, int *bits);

/* cs_insn_group() read in place (in->detail's groups), without the call
 * into capstone, which costs more than the look. */
static inline bool x86_in_group(const cs_insn *in, uint8_t group)
{
	uint8_t i;

	for (i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == group)
			return true;
	return false;
}

/* Decode the instruction at code (size bytes readable, at address addr)
 * into in (from cs_malloc(), with or without detail) as capstone 4 would, when it is one of
 * the common integer forms (decode.c), in a tenth of capstone's time; false
 * for any other. Filled as capstone fills them: id, address, size, bytes,
 * the prefix, opcode, rex and addr_size fields, the operands, the general
 * registers written implicitly (regs_write: mul's rdx:rax, push's rsp...),
 * and the groups of branches; not the mnemonic, the implicit registers read,
 * EFLAGS, or the ModRM, SIB and encoding fields. */
bool x86_decode_common(const uint8_t *code, size_t size, uint64_t addr, cs_insn *in);
/* cs_disasm_iter(), with the common forms decoded by x86_decode_common(). */
bool x86_disasm_iter(csh cs, const uint8_t **code, size_t *size, uint64_t *addr, cs_insn *in);

#endif
