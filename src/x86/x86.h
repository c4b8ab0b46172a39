/* x86.h — x86-64 facts over capstone's names, for the modules that read
 * machine code (the software branch sampler, BOLT's model of a binary). */
#ifndef OCREC_X86_H
#define OCREC_X86_H

#define X86_NO_GPR 0xff

/* Index 0-15 (rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8-r15) of the general
 * register that holds capstone's reg, and reg's width in *bits (0 for AH..BH,
 * which sit 8 bits up); X86_NO_GPR and 0 for any other register. */
unsigned x86_gpr(unsigned reg, int *bits);

#endif
