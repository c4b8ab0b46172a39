/* test-emu-exact.c — the interpreter's instructions against the CPU: every
 * form emu.c (integer) and sse.c (SSE) compute in an exact run runs here
 * natively and in emu.c, from the same random states (general and xmm
 * registers, flags, MXCSR, memory), and everything the ISA defines must be
 * identical: registers, the flags it defines (each of them known to emu.c),
 * MXCSR (exception flags included) and memory. */
#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/user.h>

#include "sampler/emu.h"
#include "tap.h"

/* The native harness's state; the offsets are the assembly's below. */
struct native {
	uint64_t gpr[16];       /* 0 */
	uint64_t rflags;        /* 128 */
	uint32_t mxcsr;         /* 136 */
	uint8_t pad[52];
	uint8_t xmm[16][16];    /* 192 */
	uint32_t host_mxcsr;    /* 448 */
} __attribute__((aligned(64)));

void test_exact_native(struct native *st, const void *stub);
void *test_exact_state, *test_exact_stub;

/* Load every register but rsp, call the stub (one instruction and ret),
 * store them; MXCSR around it is the state's. */
__asm__(".text\n"
	".globl test_exact_native\n"
	".type test_exact_native, @function\n"
	"test_exact_native:\n"
	"push %rbp\npush %rbx\npush %r12\npush %r13\npush %r14\npush %r15\n"
	"mov %rdi, test_exact_state(%rip)\nmov %rsi, test_exact_stub(%rip)\n"
	"stmxcsr 448(%rdi)\n"
	".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"movdqu 192+\\i*16(%rdi), %xmm\\i\n"
	".endr\n"
	"ldmxcsr 136(%rdi)\n"
	"pushq 128(%rdi)\npopfq\n"
	"mov 0(%rdi), %rax\nmov 8(%rdi), %rcx\nmov 16(%rdi), %rdx\nmov 24(%rdi), %rbx\n"
	"mov 40(%rdi), %rbp\nmov 48(%rdi), %rsi\nmov 64(%rdi), %r8\nmov 72(%rdi), %r9\n"
	"mov 80(%rdi), %r10\nmov 88(%rdi), %r11\nmov 96(%rdi), %r12\nmov 104(%rdi), %r13\n"
	"mov 112(%rdi), %r14\nmov 120(%rdi), %r15\nmov 56(%rdi), %rdi\n"
	"call *test_exact_stub(%rip)\n"
	"pushfq\npush %rdi\n"
	"mov test_exact_state(%rip), %rdi\n"
	"mov %rax, 0(%rdi)\nmov %rcx, 8(%rdi)\nmov %rdx, 16(%rdi)\nmov %rbx, 24(%rdi)\n"
	"mov %rbp, 40(%rdi)\nmov %rsi, 48(%rdi)\nmov %r8, 64(%rdi)\nmov %r9, 72(%rdi)\n"
	"mov %r10, 80(%rdi)\nmov %r11, 88(%rdi)\nmov %r12, 96(%rdi)\nmov %r13, 104(%rdi)\n"
	"mov %r14, 112(%rdi)\nmov %r15, 120(%rdi)\n"
	"pop %rax\nmov %rax, 56(%rdi)\npop %rax\nmov %rax, 128(%rdi)\n"
	".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"movdqu %xmm\\i, 192+\\i*16(%rdi)\n"
	".endr\n"
	"stmxcsr 136(%rdi)\nldmxcsr 448(%rdi)\n"
	"pop %r15\npop %r14\npop %r13\npop %r12\npop %rbx\npop %rbp\n"
	"ret\n"
	".size test_exact_native, .-test_exact_native\n");

/* States an instruction needs so that it does not fault natively. */
enum setup { S_NONE, S_DIV, S_IDIV, S_NONZERO_SRC, S_STOS };

static const struct {
	const char *name, *bytes;
	unsigned n;
	uint64_t flags;         /* the EFLAGS bits the instruction defines (or leaves) */
	enum setup setup;
} cases[] = {
	{ "add %rbx,%rax", "\x48\x01\xd8", 3, 0x8d5, S_NONE },
	{ "sub %ebx,%eax", "\x29\xd8", 2, 0x8d5, S_NONE },
	{ "cmp %bl,%al", "\x38\xd8", 2, 0x8d5, S_NONE },
	{ "inc %rax", "\x48\xff\xc0", 3, 0x8d5, S_NONE },
	{ "dec %eax", "\xff\xc8", 2, 0x8d5, S_NONE },
	{ "neg %rax", "\x48\xf7\xd8", 3, 0x8d5, S_NONE },
	{ "adc %rbx,%rax", "\x48\x11\xd8", 3, 0x8d5, S_NONE },
	{ "adc %ebx,%eax", "\x11\xd8", 2, 0x8d5, S_NONE },
	{ "sbb %rbx,%rax", "\x48\x19\xd8", 3, 0x8d5, S_NONE },
	{ "sbb %bl,%al", "\x18\xd8", 2, 0x8d5, S_NONE },
	{ "adc $7,%rax", "\x48\x83\xd0\x07", 4, 0x8d5, S_NONE },
	{ "not %rax", "\x48\xf7\xd0", 3, 0x8d5, S_NONE },
	{ "not %eax", "\xf7\xd0", 2, 0x8d5, S_NONE },
	{ "not %al", "\xf6\xd0", 2, 0x8d5, S_NONE },
	{ "notq 8(%rsi)", "\x48\xf7\x56\x08", 4, 0x8d5, S_NONE },
	{ "cdqe", "\x48\x98", 2, 0x8d5, S_NONE },
	{ "cwde", "\x98", 1, 0x8d5, S_NONE },
	{ "cwd", "\x66\x99", 2, 0x8d5, S_NONE },
	{ "cdq", "\x99", 1, 0x8d5, S_NONE },
	{ "cqo", "\x48\x99", 2, 0x8d5, S_NONE },
	{ "xchg %rax,%rbx", "\x48\x93", 2, 0x8d5, S_NONE },
	{ "xchg %ecx,%eax", "\x91", 1, 0x8d5, S_NONE },
	{ "xchg %rcx,8(%rsi)", "\x48\x87\x4e\x08", 4, 0x8d5, S_NONE },
	{ "xadd %rax,%rbx", "\x48\x0f\xc1\xc3", 4, 0x8d5, S_NONE },
	{ "xadd %ecx,16(%rsi)", "\x0f\xc1\x4e\x10", 4, 0x8d5, S_NONE },
	{ "cmpxchg %rcx,%rbx", "\x48\x0f\xb1\xcb", 4, 0x8d5, S_NONE },
	{ "cmpxchg %ecx,16(%rsi)", "\x0f\xb1\x4e\x10", 4, 0x8d5, S_NONE },
	{ "lock cmpxchg %rcx,8(%rsi)", "\xf0\x48\x0f\xb1\x4e\x08", 6, 0x8d5, S_NONE },
	{ "mul %rbx", "\x48\xf7\xe3", 3, 0x801, S_NONE },
	{ "mul %ebx", "\xf7\xe3", 2, 0x801, S_NONE },
	{ "imul %rbx", "\x48\xf7\xeb", 3, 0x801, S_NONE },
	{ "imul %ebx", "\xf7\xeb", 2, 0x801, S_NONE },
	{ "imul %rbx,%rax", "\x48\x0f\xaf\xc3", 4, 0x801, S_NONE },
	{ "div %rbx", "\x48\xf7\xf3", 3, 0x0, S_DIV },
	{ "div %ebx", "\xf7\xf3", 2, 0x0, S_DIV },
	{ "idiv %rbx", "\x48\xf7\xfb", 3, 0x0, S_IDIV },
	{ "idiv %ebx", "\xf7\xfb", 2, 0x0, S_IDIV },
	{ "divq 8(%rsi)", "\x48\xf7\x76\x08", 4, 0x0, S_DIV },
	{ "tzcnt %rbx,%rax", "\xf3\x48\x0f\xbc\xc3", 5, 0x41, S_NONE },
	{ "tzcnt %ebx,%eax", "\xf3\x0f\xbc\xc3", 4, 0x41, S_NONE },
	{ "lzcnt %rbx,%rax", "\xf3\x48\x0f\xbd\xc3", 5, 0x41, S_NONE },
	{ "popcnt %rbx,%rax", "\xf3\x48\x0f\xb8\xc3", 5, 0x8d5, S_NONE },
	{ "popcnt %ebx,%eax", "\xf3\x0f\xb8\xc3", 4, 0x8d5, S_NONE },
	{ "bsf %rbx,%rax", "\x48\x0f\xbc\xc3", 4, 0x40, S_NONZERO_SRC },
	{ "bsr %ebx,%eax", "\x0f\xbd\xc3", 3, 0x40, S_NONZERO_SRC },
	{ "bsrq 8(%rsi),%rax", "\x48\x0f\xbd\x46\x08", 5, 0x40, S_NONZERO_SRC },
	{ "bzhi %rcx,%rbx,%rax", "\xc4\xe2\xf0\xf5\xc3", 5, 0x8c1, S_NONE },
	{ "bzhi %ecx,%ebx,%eax", "\xc4\xe2\x70\xf5\xc3", 5, 0x8c1, S_NONE },
	{ "bt %rcx,%rax", "\x48\x0f\xa3\xc8", 4, 0x41, S_NONE },
	{ "bt $35,%rax", "\x48\x0f\xba\xe0\x23", 5, 0x41, S_NONE },
	{ "bts $3,%eax", "\x0f\xba\xe8\x03", 4, 0x41, S_NONE },
	{ "btr %rcx,%rbx", "\x48\x0f\xb3\xcb", 4, 0x41, S_NONE },
	{ "btc $63,%rbx", "\x48\x0f\xba\xfb\x3f", 5, 0x41, S_NONE },
	{ "btsq $5,8(%rsi)", "\x48\x0f\xba\x6e\x08\x05", 6, 0x41, S_NONE },
	{ "btl $9,16(%rsi)", "\x0f\xba\x66\x10\x09", 5, 0x41, S_NONE },
	{ "shl %cl,%rax", "\x48\xd3\xe0", 3, 0xc5, S_NONE },
	{ "shr %cl,%eax", "\xd3\xe8", 2, 0xc5, S_NONE },
	{ "sar %cl,%rbx", "\x48\xd3\xfb", 3, 0xc5, S_NONE },
	{ "shl $1,%eax", "\xd1\xe0", 2, 0x8c5, S_NONE },
	/* 8- and 16-bit shifts (CF unknown by cl: it may reach the width) */
	{ "shr $8,%r9w", "\x66\x41\xc1\xe9\x08", 5, 0xc5, S_NONE },
	{ "shr $5,%al", "\xc0\xe8\x05", 3, 0xc5, S_NONE },
	{ "shl %cl,%bx", "\x66\xd3\xe3", 3, 0xc4, S_NONE },
	{ "sar %cl,%dl", "\xd2\xfa", 2, 0xc4, S_NONE },
	{ "sar $3,%si", "\x66\xc1\xfe\x03", 4, 0xc5, S_NONE },
	{ "shl $1,%r10b", "\x41\xd0\xe2", 3, 0x8c5, S_NONE },
	/* rotates: CF, and OF by 1 */
	{ "rol $13,%rax", "\x48\xc1\xc0\x0d", 4, 0x1, S_NONE },
	{ "ror %cl,%ebx", "\xd3\xcb", 2, 0x1, S_NONE },
	{ "rol $1,%ecx", "\xd1\xc1", 2, 0x801, S_NONE },
	{ "ror $1,%dx", "\x66\xd1\xca", 3, 0x801, S_NONE },
	{ "rol $8,%ax", "\x66\xc1\xc0\x08", 4, 0x1, S_NONE },
	{ "ror %cl,%al", "\xd2\xc8", 2, 0x1, S_NONE },
	{ "rol %cl,%r11w", "\x66\x41\xd3\xc3", 4, 0x1, S_NONE },
	{ "test $8,%ah", "\xf6\xc4\x08", 3, 0x8c5, S_NONE },
	{ "test %ah,%bl", "\x84\xe3", 2, 0x8c5, S_NONE },
	{ "cmp %bh,%ch", "\x38\xfd", 2, 0x8d5, S_NONE },
	{ "mov %al,%ah", "\x88\xc4", 2, 0x8d5, S_NONE },
	{ "mov %dh,%al", "\x88\xf0", 2, 0x8d5, S_NONE },
	{ "add %bh,%ch", "\x00\xfd", 2, 0x8d5, S_NONE },
	{ "and %ah,8(%rsi)", "\x20\x66\x08", 3, 0x8c5, S_NONE },
	{ "xor %ah,%ah", "\x30\xe4", 2, 0x8c5, S_NONE },
	{ "movabs $0x123456789abcdef0,%rcx", "\x48\xb9\xf0\xde\xbc\x9a\x78\x56\x34\x12", 10, 0x8d5, S_NONE },
	{ "rep stosq", "\xf3\x48\xab", 3, 0x8d5, S_STOS },
	{ "rep stosb", "\xf3\xaa", 2, 0x8d5, S_STOS },
	{ "stosl", "\xab", 1, 0x8d5, S_STOS },
	{ "movsd (%rsi),%xmm0", "\xf2\x0f\x10\x06", 4, 0x8d5, S_NONE },
	{ "movsd %xmm1,8(%rsi)", "\xf2\x0f\x11\x4e\x08", 5, 0x8d5, S_NONE },
	{ "movsd %xmm2,%xmm3", "\xf2\x0f\x10\xda", 4, 0x8d5, S_NONE },
	{ "movss 4(%rsi),%xmm4", "\xf3\x0f\x10\x66\x04", 5, 0x8d5, S_NONE },
	{ "movss %xmm5,%xmm6", "\xf3\x0f\x10\xf5", 4, 0x8d5, S_NONE },
	{ "movss %xmm7,12(%rsi)", "\xf3\x0f\x11\x7e\x0c", 5, 0x8d5, S_NONE },
	{ "movq %rax,%xmm1", "\x66\x48\x0f\x6e\xc8", 5, 0x8d5, S_NONE },
	{ "movq %xmm2,%rbx", "\x66\x48\x0f\x7e\xd3", 5, 0x8d5, S_NONE },
	{ "movq 8(%rsi),%xmm3", "\xf3\x0f\x7e\x5e\x08", 5, 0x8d5, S_NONE },
	{ "movq %xmm4,16(%rsi)", "\x66\x0f\xd6\x66\x10", 5, 0x8d5, S_NONE },
	{ "movq %xmm5,%xmm6", "\xf3\x0f\x7e\xf5", 4, 0x8d5, S_NONE },
	{ "movd %eax,%xmm1", "\x66\x0f\x6e\xc8", 4, 0x8d5, S_NONE },
	{ "movd %xmm2,%ebx", "\x66\x0f\x7e\xd3", 4, 0x8d5, S_NONE },
	{ "movd 4(%rsi),%xmm3", "\x66\x0f\x6e\x5e\x04", 5, 0x8d5, S_NONE },
	{ "movd %xmm4,20(%rsi)", "\x66\x0f\x7e\x66\x14", 5, 0x8d5, S_NONE },
	{ "movaps (%rsi),%xmm0", "\x0f\x28\x06", 3, 0x8d5, S_NONE },
	{ "movaps %xmm1,16(%rsi)", "\x0f\x29\x4e\x10", 4, 0x8d5, S_NONE },
	{ "movapd %xmm2,%xmm3", "\x66\x0f\x28\xda", 4, 0x8d5, S_NONE },
	{ "movups 3(%rsi),%xmm4", "\x0f\x10\x66\x03", 4, 0x8d5, S_NONE },
	{ "movupd %xmm5,5(%rsi)", "\x66\x0f\x11\x6e\x05", 5, 0x8d5, S_NONE },
	{ "movdqa 32(%rsi),%xmm6", "\x66\x0f\x6f\x76\x20", 5, 0x8d5, S_NONE },
	{ "movdqu 7(%rsi),%xmm7", "\xf3\x0f\x6f\x7e\x07", 5, 0x8d5, S_NONE },
	{ "movdqu %xmm8,9(%rsi)", "\xf3\x44\x0f\x7f\x46\x09", 6, 0x8d5, S_NONE },
	{ "pxor %xmm1,%xmm2", "\x66\x0f\xef\xd1", 4, 0x8d5, S_NONE },
	{ "pxor %xmm3,%xmm3", "\x66\x0f\xef\xdb", 4, 0x8d5, S_NONE },
	{ "xorpd (%rsi),%xmm4", "\x66\x0f\x57\x26", 4, 0x8d5, S_NONE },
	{ "xorps %xmm5,%xmm6", "\x0f\x57\xf5", 3, 0x8d5, S_NONE },
	{ "andpd %xmm7,%xmm8", "\x66\x44\x0f\x54\xc7", 5, 0x8d5, S_NONE },
	{ "andnpd 16(%rsi),%xmm9", "\x66\x44\x0f\x55\x4e\x10", 6, 0x8d5, S_NONE },
	{ "andps %xmm10,%xmm11", "\x45\x0f\x54\xda", 4, 0x8d5, S_NONE },
	{ "orpd %xmm12,%xmm13", "\x66\x45\x0f\x56\xec", 5, 0x8d5, S_NONE },
	{ "por 32(%rsi),%xmm14", "\x66\x44\x0f\xeb\x76\x20", 6, 0x8d5, S_NONE },
	{ "pand %xmm15,%xmm0", "\x66\x41\x0f\xdb\xc7", 5, 0x8d5, S_NONE },
	{ "pandn %xmm1,%xmm2", "\x66\x0f\xdf\xd1", 4, 0x8d5, S_NONE },
	{ "punpcklqdq %xmm3,%xmm4", "\x66\x0f\x6c\xe3", 4, 0x8d5, S_NONE },
	{ "punpcklqdq 16(%rsi),%xmm5", "\x66\x0f\x6c\x6e\x10", 5, 0x8d5, S_NONE },
	{ "unpcklpd %xmm6,%xmm7", "\x66\x0f\x14\xfe", 4, 0x8d5, S_NONE },
	{ "addsd %xmm1,%xmm0", "\xf2\x0f\x58\xc1", 4, 0x8d5, S_NONE },
	{ "addsd 8(%rsi),%xmm2", "\xf2\x0f\x58\x56\x08", 5, 0x8d5, S_NONE },
	{ "subsd %xmm3,%xmm4", "\xf2\x0f\x5c\xe3", 4, 0x8d5, S_NONE },
	{ "mulsd %xmm5,%xmm6", "\xf2\x0f\x59\xf5", 4, 0x8d5, S_NONE },
	{ "mulsd 16(%rsi),%xmm7", "\xf2\x0f\x59\x7e\x10", 5, 0x8d5, S_NONE },
	{ "divsd %xmm8,%xmm9", "\xf2\x45\x0f\x5e\xc8", 5, 0x8d5, S_NONE },
	{ "minsd %xmm10,%xmm11", "\xf2\x45\x0f\x5d\xda", 5, 0x8d5, S_NONE },
	{ "maxsd 24(%rsi),%xmm12", "\xf2\x44\x0f\x5f\x66\x18", 6, 0x8d5, S_NONE },
	{ "sqrtsd %xmm13,%xmm14", "\xf2\x45\x0f\x51\xf5", 5, 0x8d5, S_NONE },
	{ "addss %xmm1,%xmm0", "\xf3\x0f\x58\xc1", 4, 0x8d5, S_NONE },
	{ "subss 4(%rsi),%xmm2", "\xf3\x0f\x5c\x56\x04", 5, 0x8d5, S_NONE },
	{ "mulss %xmm3,%xmm4", "\xf3\x0f\x59\xe3", 4, 0x8d5, S_NONE },
	{ "divss %xmm5,%xmm6", "\xf3\x0f\x5e\xf5", 4, 0x8d5, S_NONE },
	{ "minss %xmm7,%xmm8", "\xf3\x44\x0f\x5d\xc7", 5, 0x8d5, S_NONE },
	{ "maxss %xmm9,%xmm10", "\xf3\x45\x0f\x5f\xd1", 5, 0x8d5, S_NONE },
	{ "sqrtss %xmm11,%xmm12", "\xf3\x45\x0f\x51\xe3", 5, 0x8d5, S_NONE },
	{ "cvtsd2ss %xmm1,%xmm2", "\xf2\x0f\x5a\xd1", 4, 0x8d5, S_NONE },
	{ "cvtss2sd %xmm3,%xmm4", "\xf3\x0f\x5a\xe3", 4, 0x8d5, S_NONE },
	{ "cvtss2sd 4(%rsi),%xmm5", "\xf3\x0f\x5a\x6e\x04", 5, 0x8d5, S_NONE },
	{ "ucomisd %xmm1,%xmm0", "\x66\x0f\x2e\xc1", 4, 0x8d5, S_NONE },
	{ "ucomisd 8(%rsi),%xmm2", "\x66\x0f\x2e\x56\x08", 5, 0x8d5, S_NONE },
	{ "comisd %xmm3,%xmm4", "\x66\x0f\x2f\xe3", 4, 0x8d5, S_NONE },
	{ "ucomiss %xmm5,%xmm6", "\x0f\x2e\xf5", 3, 0x8d5, S_NONE },
	{ "comiss 4(%rsi),%xmm7", "\x0f\x2f\x7e\x04", 4, 0x8d5, S_NONE },
	{ "cvtsi2sd %rax,%xmm0", "\xf2\x48\x0f\x2a\xc0", 5, 0x8d5, S_NONE },
	{ "cvtsi2sd %ebx,%xmm1", "\xf2\x0f\x2a\xcb", 4, 0x8d5, S_NONE },
	{ "cvtsi2sdq 8(%rsi),%xmm2", "\xf2\x48\x0f\x2a\x56\x08", 6, 0x8d5, S_NONE },
	{ "cvtsi2sdl 4(%rsi),%xmm3", "\xf2\x0f\x2a\x5e\x04", 5, 0x8d5, S_NONE },
	{ "cvtsi2ss %rcx,%xmm4", "\xf3\x48\x0f\x2a\xe1", 5, 0x8d5, S_NONE },
	{ "cvtsi2ss %edx,%xmm5", "\xf3\x0f\x2a\xea", 4, 0x8d5, S_NONE },
	{ "cvttsd2si %xmm0,%rax", "\xf2\x48\x0f\x2c\xc0", 5, 0x8d5, S_NONE },
	{ "cvttsd2si %xmm1,%ebx", "\xf2\x0f\x2c\xd9", 4, 0x8d5, S_NONE },
	{ "cvttsd2si 8(%rsi),%rcx", "\xf2\x48\x0f\x2c\x4e\x08", 6, 0x8d5, S_NONE },
	{ "cvtsd2si %xmm2,%rdx", "\xf2\x48\x0f\x2d\xd2", 5, 0x8d5, S_NONE },
	{ "cvttss2si %xmm3,%eax", "\xf3\x0f\x2c\xc3", 4, 0x8d5, S_NONE },
	{ "cvtss2si %xmm4,%rbx", "\xf3\x48\x0f\x2d\xdc", 5, 0x8d5, S_NONE },
};

#define TRIALS 300
#define RSI_AT 128

/* Memory the instructions may use: rsi points into it. */
static uint8_t buf[512] __attribute__((aligned(64)));

static bool in_buf(uint64_t a, unsigned n)
{
	return a >= (uintptr_t)buf && a + n <= (uintptr_t)buf + sizeof(buf);
}

static bool m_read(void *arg, uint64_t a, void *p, unsigned n)
{
	if (!in_buf(a, n))
		return false;
	memcpy(p, (const void *)(uintptr_t)a, n);
	return true;
}

static bool m_write(void *arg, uint64_t a, const void *p, unsigned n)
{
	if (!in_buf(a, n))
		return false;
	memcpy((void *)(uintptr_t)a, p, n);
	return true;
}

static bool m_load_sse(void *arg)
{
	return true;
}

static uint64_t rnd(void)
{
	return (uint64_t)random() << 40 ^ (uint64_t)random() << 20 ^ (uint64_t)random();
}

/* Integers that meet edges: 0, signs, widths. */
static uint64_t rnd_int(void)
{
	static const uint64_t pick[] = {
		0, 1, 2, 7, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0x7fffffff, 0x80000000, 0xffffffff,
		0x100000000ULL, 0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL, ~0ULL - 1, 0xf, 0x10,
	};

	switch (random() % 4) {
	case 0: return pick[random() % (sizeof(pick) / sizeof(pick[0]))];
	case 1: return rnd() & 0xff;
	default: return rnd();
	}
}

/* Floating-point values that meet edges: zeros, infinities, NaNs,
 * denormals, integer limits, halves (rounding). */
static double rnd_double(void)
{
	static const double pick[] = {
		0.0, -0.0, 1.0, -1.5, 2.5, 3.0, 0.1, 1e300, -1e300, 5e-324, -2.2e-308, 1e19, -9.3e18,
		9.2e18, 4294967296.5, 2147483647.5, -2147483648.5, 0.5, -0.5,
	};

	switch (random() % 5) {
	case 0: return INFINITY * (random() % 2 ? 1 : -1);
	case 1: return NAN;
	case 2: return (double)(int64_t)rnd_int() / (double)(1 + random() % 1000);
	default: return pick[random() % (sizeof(pick) / sizeof(pick[0]))];
	}
}

static void random_xmm(uint8_t x[16])
{
	double d = rnd_double();
	float f = (float)rnd_double();
	uint64_t hi = rnd();

	switch (random() % 3) {
	case 0: memcpy(x, &d, 8); memcpy(x + 8, &hi, 8); break;
	case 1: memcpy(x, &f, 4); memcpy(x + 4, &hi, 8); memcpy(x + 12, &hi, 4); break;
	default: hi = rnd(); memcpy(x, &hi, 8); hi = rnd(); memcpy(x + 8, &hi, 8); break;
	}
}

static void random_state(struct native *st, enum setup setup)
{
	static const uint32_t modes[] = { 0x1f80, 0x1f80, 0x1f80, 0x3f80, 0x5f80, 0x7f80, 0x9fc0 };
	size_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < 16; i++)
		st->gpr[i] = rnd_int();
	st->gpr[6] = (uint64_t)(uintptr_t)(buf + RSI_AT);
	st->rflags = 0x202 | (rnd() & 0x8d5);
	st->mxcsr = modes[random() % (sizeof(modes) / sizeof(modes[0]))] | (uint32_t)(random() % 2 ? random() & 0x3f : 0);
	for (i = 0; i < 16; i++)
		random_xmm(st->xmm[i]);
	for (i = 0; i < sizeof(buf); i += 16)
		random_xmm(buf + i);
	switch (setup) {
	case S_DIV:
		st->gpr[2] = 0;
		st->gpr[3] |= 1;
		buf[RSI_AT + 8] |= 1;
		break;
	case S_IDIV:
		/* rdx:rax and edx:eax both rax's value; a divisor neither 0 nor -1 */
		st->gpr[0] = (uint64_t)(int64_t)(int32_t)st->gpr[0];
		st->gpr[2] = (int64_t)st->gpr[0] < 0 ? ~0ULL : 0;
		st->gpr[3] = (st->gpr[3] | 2) & ~1ULL;
		break;
	case S_NONZERO_SRC:
		st->gpr[3] |= 0x10;
		buf[RSI_AT + 8] |= 1;
		break;
	case S_STOS:
		st->gpr[1] = (uint64_t)(random() % 16);
		st->gpr[7] = (uint64_t)(uintptr_t)(buf + RSI_AT + random() % 8);
		break;
	default:
		break;
	}
}

static const char *const gpr_names[16] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

/* Run case i in emu.c from st; what differs from the CPU's nat, or "". */
static const char *differ(csh cs, cs_insn *insn, unsigned i, const struct native *st, const struct native *nat,
			  const uint8_t *mem_after, char *why, size_t size)
{
	static const struct { uint64_t bit; const char *name; } fl[] = {
		{ 1, "CF" }, { 4, "PF" }, { 0x10, "AF" }, { 0x40, "ZF" }, { 0x80, "SF" }, { 0x800, "OF" },
	};
	static uint8_t xmm[16][64];
	const uint8_t *p = (const uint8_t *)cases[i].bytes;
	size_t n = cases[i].n;
	uint64_t addr = 0x1000, eflags;
	struct user_regs_struct r;
	uint32_t mxcsr = st->mxcsr;
	struct swb_emu_io io = { m_read, m_write, m_load_sse, NULL, xmm, &mxcsr };
	struct swb_uop u;
	struct swb_emu e;
	unsigned k;

	if (!cs_disasm_iter(cs, &p, &n, &addr, insn) || n)
		return "capstone cannot decode it";
	swb_uop_from_insn(insn, &u);
	if (!swb_uop_modelled(&u))
		return "not modelled";
	memset(&r, 0, sizeof(r));
	r.rax = st->gpr[0]; r.rcx = st->gpr[1]; r.rdx = st->gpr[2]; r.rbx = st->gpr[3];
	r.rsp = st->gpr[4]; r.rbp = st->gpr[5]; r.rsi = st->gpr[6]; r.rdi = st->gpr[7];
	r.r8 = st->gpr[8]; r.r9 = st->gpr[9]; r.r10 = st->gpr[10]; r.r11 = st->gpr[11];
	r.r12 = st->gpr[12]; r.r13 = st->gpr[13]; r.r14 = st->gpr[14]; r.r15 = st->gpr[15];
	r.eflags = st->rflags;
	for (k = 0; k < 16; k++)
		memcpy(xmm[k], st->xmm[k], 16);
	swb_emu_from_regs(&e, &r, NULL);
	e.io = &io;
	swb_emu_apply(&e, &u);
	if (e.known != 0xffff || e.fault || e.mem_lost)
		return "not computed exactly";
	for (k = 0; k < 16; k++)
		if (k != 4 && e.r[k] != nat->gpr[k]) {
			snprintf(why, size, "%s %#llx, the CPU's %#llx", gpr_names[k], (unsigned long long)e.r[k],
				 (unsigned long long)nat->gpr[k]);
			return why;
		}
	eflags = swb_emu_eflags(&e, 0);
	for (k = 0; k < sizeof(fl) / sizeof(fl[0]); k++) {
		uint64_t b = fl[k].bit;

		if (!(cases[i].flags & b))
			continue;
		if ((swb_emu_eflags(&e, 0) ^ swb_emu_eflags(&e, ~0ULL)) & b) {
			snprintf(why, size, "%s not known", fl[k].name);
			return why;
		}
		if ((eflags & b) != (nat->rflags & b)) {
			snprintf(why, size, "%s %d, the CPU's %d", fl[k].name, !!(eflags & b), !!(nat->rflags & b));
			return why;
		}
	}
	for (k = 0; k < 16; k++)
		if (memcmp(xmm[k], nat->xmm[k], 16)) {
			snprintf(why, size, "xmm%u differs", k);
			return why;
		}
	if (mxcsr != nat->mxcsr) {
		snprintf(why, size, "mxcsr %#x, the CPU's %#x", mxcsr, nat->mxcsr);
		return why;
	}
	if (memcmp(buf, mem_after, sizeof(buf)))
		return "memory differs";
	return "";
}

int main(void)
{
	static struct native st, nat;
	static uint8_t mem_before[sizeof(buf)], mem_after[sizeof(buf)];
	uint8_t *jit;
	cs_insn *insn;
	unsigned i, t;
	csh cs;

	srandom(20261207);
	jit = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (jit == MAP_FAILED || cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		SKIP("emu exact", "no executable page, or no capstone");
		return test_done();
	}
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs_malloc(cs);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[160], why[160];
		const char *bad = "";

		snprintf(name, sizeof(name), "emu exact: %s", cases[i].name);
		memcpy(jit, cases[i].bytes, cases[i].n);
		jit[cases[i].n] = 0xc3;
		for (t = 0; t < TRIALS && !*bad; t++) {
			random_state(&st, cases[i].setup);
			memcpy(mem_before, buf, sizeof(buf));
			nat = st;
			test_exact_native(&nat, jit);
			memcpy(mem_after, buf, sizeof(buf));
			memcpy(buf, mem_before, sizeof(buf));
			bad = differ(cs, insn, i, &st, &nat, mem_after, why, sizeof(why));
		}
		if (*bad)
			printf("FAIL %s: %s (trial %u)\n", name, bad, t);
		else
			printf("PASS %s (%u random states)\n", name, TRIALS);
		tap_failed += *bad != 0;
	}
	cs_free(insn, 1);
	cs_close(&cs);
	munmap(jit, 4096);
	return test_done();
}
