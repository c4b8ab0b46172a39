/* fuzz-x86.c — x86_decode_common() (src/x86/decode.c) against capstone:
 * whatever bytes it decodes, capstone decodes to the same instruction with
 * the same fields, and the sampler makes the same uop or branch of both
 * (tests/unit/x86-compare.h, as tests/unit/test-x86-decode.c checks them over
 * whole libraries). */
#include <capstone/capstone.h>
#include <stdbool.h>

#include "common.h"
#include "../unit/x86-compare.h"
#include "x86/x86.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static csh cs;
	static cs_insn *theirs, *ours;
	const uint64_t addr = 0x7f0000001000;
	const uint8_t *p = data;
	size_t left = size;
	uint64_t at = addr;
	const char *why;

	if (!cs) {
		if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
			fuzz_fail("capstone: cannot open an x86-64 disassembler");
		cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
		theirs = cs_malloc(cs);
		ours = cs_malloc(cs);
	}
	if (!x86_decode_common(data, size, addr, ours))
		return 0;
	if (!cs_disasm_iter(cs, &p, &left, &at, theirs))
		fuzz_fail("decoded %u bytes that capstone does not decode", ours->size);
	if ((why = x86_difference(cs, theirs, ours)))
		fuzz_fail("%s: not capstone's", why);
	return 0;
}
