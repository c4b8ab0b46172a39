/* sse.h — legacy (non-VEX) SSE instructions of scalar floating-point code
 * and 128-bit moves, for the interpreter's exact runs (sse.c): awk's
 * numbers are doubles, and memcpy-like code moves xmm registers. The
 * planner treats them as unmodelled. */
#ifndef OCREC_SAMPLER_SSE_H
#define OCREC_SAMPLER_SSE_H

#include <capstone/capstone.h>
#include <stdbool.h>

#include "sampler/emu.h"

/* Fill u's SSE fields (u->sse, u->id, operands) from the instruction;
 * false when it is not one sse.c runs. */
bool swb_sse_decode(const cs_insn *in, struct swb_uop *u);
/* Run it on e (e->io set); false when it cannot run exactly here (memory,
 * alignment, MXCSR with an exception unmasked), and nothing changed then. */
bool swb_sse_run(struct swb_emu *e, const struct swb_uop *u);

#endif
