/* test-vec.c — vec.c against the CPU: every instruction form it emulates runs
 * here natively and in vec.c, from the same random states (vector and mask
 * registers, general registers, flags, memory), and the results must be
 * identical. Forms this CPU lacks (AVX2, AVX-512 BW/VL) are skipped. */
#define _GNU_SOURCE
#include <cpuid.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sampler/vec.h"
#include "tap.h"

/* The native harness's state; the offsets are the assembly's below. */
struct native {
	uint64_t gpr[16];       /* 0 */
	uint64_t rflags;        /* 128 */
	uint64_t avx2_only;     /* 136: ymm0-15 only, no mask registers */
	uint8_t pad[48];
	uint8_t z[32][64];      /* 192 */
	uint64_t k[8];          /* 2240 */
} __attribute__((aligned(64)));

void test_vec_native(struct native *st, const void *stub);

/* Load the state, call the stub (one instruction and ret), store the state.
 * rbp and r12-r15 are not part of it: the instructions tested leave them. */
__asm__(".text\n"
	".globl test_vec_native\n"
	".type test_vec_native, @function\n"
	"test_vec_native:\n"
	"push %rbp\npush %rbx\npush %r12\npush %r13\npush %r14\npush %r15\n"
	"mov %rdi, %r15\nmov %rsi, %r14\n"
	"cmpq $0, 136(%r15)\njne 1f\n"
	".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
	"vmovdqu64 192+\\i*64(%r15), %zmm\\i\n"
	".endr\n"
	".irp i,0,1,2,3,4,5,6,7\n"
	"kmovq 2240+\\i*8(%r15), %k\\i\n"
	".endr\n"
	"jmp 2f\n"
	"1:\n"
	".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"vmovdqu 192+\\i*64(%r15), %ymm\\i\n"
	".endr\n"
	"2:\n"
	"pushq 128(%r15)\npopfq\n"
	"mov 0(%r15), %rax\nmov 8(%r15), %rcx\nmov 16(%r15), %rdx\nmov 24(%r15), %rbx\n"
	"mov 48(%r15), %rsi\nmov 56(%r15), %rdi\nmov 64(%r15), %r8\nmov 72(%r15), %r9\n"
	"mov 80(%r15), %r10\nmov 88(%r15), %r11\n"
	"call *%r14\n"
	"pushfq\npopq 128(%r15)\n"
	"mov %rax, 0(%r15)\nmov %rcx, 8(%r15)\nmov %rdx, 16(%r15)\nmov %rbx, 24(%r15)\n"
	"mov %rsi, 48(%r15)\nmov %rdi, 56(%r15)\nmov %r8, 64(%r15)\nmov %r9, 72(%r15)\n"
	"mov %r10, 80(%r15)\nmov %r11, 88(%r15)\n"
	"cmpq $0, 136(%r15)\njne 3f\n"
	".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
	"vmovdqu64 %zmm\\i, 192+\\i*64(%r15)\n"
	".endr\n"
	".irp i,0,1,2,3,4,5,6,7\n"
	"kmovq %k\\i, 2240+\\i*8(%r15)\n"
	".endr\n"
	"jmp 4f\n"
	"3:\n"
	".irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"vmovdqu %ymm\\i, 192+\\i*64(%r15)\n"
	".endr\n"
	"4:\n"
	"vzeroupper\n"
	"pop %r15\npop %r14\npop %r13\npop %r12\npop %rbx\npop %rbp\n"
	"ret\n"
	".size test_vec_native, .-test_vec_native\n");

enum { NEED_AVX2 = 1, NEED_AVX512 = 2 };

static const struct { const char *name, *bytes; unsigned n, need; } cases[] = {
	{ "vmovdqu (%rsi),%ymm1", "\xc5\xfe\x6f\x0e", 4, NEED_AVX2 },
	{ "vmovdqu %ymm2,0x20(%rsi)", "\xc5\xfe\x7f\x56\x20", 5, NEED_AVX2 },
	{ "vmovdqa (%rsi),%ymm3", "\xc5\xfd\x6f\x1e", 4, NEED_AVX2 },
	{ "vmovdqa %ymm4,(%rsi)", "\xc5\xfd\x7f\x26", 4, NEED_AVX2 },
	{ "vmovdqu (%rsi,%rdx,1),%xmm5", "\xc5\xfa\x6f\x2c\x16", 5, NEED_AVX2 },
	{ "vmovdqu %xmm6,-0x10(%rsi,%rdx,1)", "\xc5\xfa\x7f\x74\x16\xf0", 6, NEED_AVX2 },
	{ "vmovdqu %ymm7,%ymm8", "\xc4\xc1\x7e\x7f\xf8", 5, NEED_AVX2 },
	{ "vmovups (%rsi),%ymm9", "\xc5\x7c\x10\x0e", 4, NEED_AVX2 },
	{ "vmovups %ymm10,0x40(%rsi)", "\xc5\x7c\x11\x56\x40", 5, NEED_AVX2 },
	{ "vmovaps (%rsi),%xmm11", "\xc5\x78\x28\x1e", 4, NEED_AVX2 },
	{ "vmovaps %ymm12,(%rsi)", "\xc5\x7c\x29\x26", 4, NEED_AVX2 },
	{ "vmovntdq %ymm13,(%rsi)", "\xc5\x7d\xe7\x2e", 4, NEED_AVX2 },
	{ "vmovdqu 0x10(%rip),%xmm14", "\xc5\x7a\x6f\x35\x10\x00\x00\x00", 8, NEED_AVX2 },
	{ "vpcmpeqb (%rsi),%ymm1,%ymm2", "\xc5\xf5\x74\x16", 4, NEED_AVX2 },
	{ "vpcmpeqb %ymm3,%ymm4,%ymm5", "\xc5\xdd\x74\xeb", 4, NEED_AVX2 },
	{ "vpcmpeqw %xmm1,%xmm2,%xmm3", "\xc5\xe9\x75\xd9", 4, NEED_AVX2 },
	{ "vpcmpeqd %ymm1,%ymm2,%ymm3", "\xc5\xed\x76\xd9", 4, NEED_AVX2 },
	{ "vpcmpeqq %ymm1,%ymm2,%ymm3", "\xc4\xe2\x6d\x29\xd9", 5, NEED_AVX2 },
	{ "vpcmpgtb %ymm1,%ymm2,%ymm3", "\xc5\xed\x64\xd9", 4, NEED_AVX2 },
	{ "vpcmpgtd (%rsi),%xmm4,%xmm5", "\xc5\xd9\x66\x2e", 4, NEED_AVX2 },
	{ "vpcmpgtq %ymm1,%ymm2,%ymm3", "\xc4\xe2\x6d\x37\xd9", 5, NEED_AVX2 },
	{ "vpminub %ymm1,%ymm2,%ymm3", "\xc5\xed\xda\xd9", 4, NEED_AVX2 },
	{ "vpminub (%rsi),%ymm4,%ymm5", "\xc5\xdd\xda\x2e", 4, NEED_AVX2 },
	{ "vpmaxub %ymm1,%ymm2,%ymm3", "\xc5\xed\xde\xd9", 4, NEED_AVX2 },
	{ "vpminud %ymm1,%ymm2,%ymm3", "\xc4\xe2\x6d\x3b\xd9", 5, NEED_AVX2 },
	{ "vpminsb %xmm1,%xmm2,%xmm3", "\xc4\xe2\x69\x38\xd9", 5, NEED_AVX2 },
	{ "vpminsw %ymm1,%ymm2,%ymm3", "\xc5\xed\xea\xd9", 4, NEED_AVX2 },
	{ "vpmaxsd %ymm1,%ymm2,%ymm3", "\xc4\xe2\x6d\x3d\xd9", 5, NEED_AVX2 },
	{ "vpminuw %ymm1,%ymm2,%ymm3", "\xc4\xe2\x6d\x3a\xd9", 5, NEED_AVX2 },
	{ "vpaddb %ymm1,%ymm2,%ymm3", "\xc5\xed\xfc\xd9", 4, NEED_AVX2 },
	{ "vpaddw %ymm1,%ymm2,%ymm3", "\xc5\xed\xfd\xd9", 4, NEED_AVX2 },
	{ "vpaddd (%rsi),%ymm2,%ymm3", "\xc5\xed\xfe\x1e", 4, NEED_AVX2 },
	{ "vpaddq %ymm1,%ymm2,%ymm3", "\xc5\xed\xd4\xd9", 4, NEED_AVX2 },
	{ "vpsubb %ymm1,%ymm2,%ymm3", "\xc5\xed\xf8\xd9", 4, NEED_AVX2 },
	{ "vpsubd %xmm1,%xmm2,%xmm3", "\xc5\xe9\xfa\xd9", 4, NEED_AVX2 },
	{ "vpand %ymm1,%ymm2,%ymm3", "\xc5\xed\xdb\xd9", 4, NEED_AVX2 },
	{ "vpandn (%rsi),%ymm2,%ymm3", "\xc5\xed\xdf\x1e", 4, NEED_AVX2 },
	{ "vpor %ymm1,%ymm2,%ymm3", "\xc5\xed\xeb\xd9", 4, NEED_AVX2 },
	{ "vpxor %xmm1,%xmm2,%xmm3", "\xc5\xe9\xef\xd9", 4, NEED_AVX2 },
	{ "vpshufb %ymm1,%ymm2,%ymm3", "\xc4\xe2\x6d\x00\xd9", 5, NEED_AVX2 },
	{ "vpshufb (%rsi),%xmm4,%xmm5", "\xc4\xe2\x59\x00\x2e", 5, NEED_AVX2 },
	{ "vpbroadcastb %xmm1,%ymm2", "\xc4\xe2\x7d\x78\xd1", 5, NEED_AVX2 },
	{ "vpbroadcastb (%rsi),%xmm3", "\xc4\xe2\x79\x78\x1e", 5, NEED_AVX2 },
	{ "vpbroadcastw %xmm1,%ymm2", "\xc4\xe2\x7d\x79\xd1", 5, NEED_AVX2 },
	{ "vpbroadcastd %xmm1,%ymm2", "\xc4\xe2\x7d\x58\xd1", 5, NEED_AVX2 },
	{ "vpbroadcastq (%rsi),%ymm3", "\xc4\xe2\x7d\x59\x1e", 5, NEED_AVX2 },
	{ "vpmovmskb %ymm1,%eax", "\xc5\xfd\xd7\xc1", 4, NEED_AVX2 },
	{ "vpmovmskb %xmm2,%ecx", "\xc5\xf9\xd7\xca", 4, NEED_AVX2 },
	{ "vpmovmskb %ymm9,%r8d", "\xc4\x41\x7d\xd7\xc1", 5, NEED_AVX2 },
	{ "vptest %ymm1,%ymm2", "\xc4\xe2\x7d\x17\xd1", 5, NEED_AVX2 },
	{ "vptest (%rsi),%xmm3", "\xc4\xe2\x79\x17\x1e", 5, NEED_AVX2 },
	{ "vmovd %eax,%xmm1", "\xc5\xf9\x6e\xc8", 4, NEED_AVX2 },
	{ "vmovd %xmm2,%ecx", "\xc5\xf9\x7e\xd1", 4, NEED_AVX2 },
	{ "vmovq %rax,%xmm3", "\xc4\xe1\xf9\x6e\xd8", 5, NEED_AVX2 },
	{ "vmovq %xmm4,%rdx", "\xc4\xe1\xf9\x7e\xe2", 5, NEED_AVX2 },
	{ "vmovq (%rsi),%xmm5", "\xc5\xfa\x7e\x2e", 4, NEED_AVX2 },
	{ "vmovq %xmm6,(%rsi)", "\xc5\xf9\xd6\x36", 4, NEED_AVX2 },
	{ "vmovq %xmm7,%xmm8", "\xc5\x7a\x7e\xc7", 4, NEED_AVX2 },
	{ "vmovd (%rsi),%xmm9", "\xc5\x79\x6e\x0e", 4, NEED_AVX2 },
	{ "vmovd %xmm10,0x4(%rsi)", "\xc5\x79\x7e\x56\x04", 5, NEED_AVX2 },
	{ "vzeroupper", "\xc5\xf8\x77", 3, NEED_AVX2 },
	{ "vzeroall", "\xc5\xfc\x77", 3, NEED_AVX2 },
	{ "vmovdqu64 (%rsi),%zmm16", "\x62\xe1\xfe\x48\x6f\x06", 6, NEED_AVX512 },
	{ "vmovdqu64 %zmm17,0x40(%rsi)", "\x62\xe1\xfe\x48\x7f\x4e\x01", 7, NEED_AVX512 },
	{ "vmovdqu64 (%rsi),%ymm18", "\x62\xe1\xfe\x28\x6f\x16", 6, NEED_AVX512 },
	{ "vmovdqu64 %ymm19,-0x20(%rsi,%rdx,1)", "\x62\xe1\xfe\x28\x7f\x5c\x16\xff", 8, NEED_AVX512 },
	{ "vmovdqu8 (%rsi),%ymm20{%k1}", "\x62\xe1\x7f\x29\x6f\x26", 6, NEED_AVX512 },
	{ "vmovdqu8 (%rsi),%zmm21{%k2}{z}", "\x62\xe1\x7f\xca\x6f\x2e", 6, NEED_AVX512 },
	{ "vmovdqu8 %zmm22,(%rsi){%k3}", "\x62\xe1\x7f\x4b\x7f\x36", 6, NEED_AVX512 },
	{ "vmovdqu16 (%rsi,%rdx,1),%xmm23{%k1}", "\x62\xe1\xff\x09\x6f\x3c\x16", 7, NEED_AVX512 },
	{ "vmovdqu32 (%rsi),%zmm23{%k4}", "\x62\xe1\x7e\x4c\x6f\x3e", 6, NEED_AVX512 },
	{ "vmovdqa64 (%rsi),%zmm24", "\x62\x61\xfd\x48\x6f\x06", 6, NEED_AVX512 },
	{ "vmovdqa32 %zmm25,(%rsi){%k5}", "\x62\x61\x7d\x4d\x7f\x0e", 6, NEED_AVX512 },
	{ "vmovdqu64 %zmm26,%zmm27{%k6}{z}", "\x62\x01\xfe\xce\x6f\xda", 6, NEED_AVX512 },
	{ "vmovdqu64 %ymm26,%ymm1{%k1}", "\x62\x61\xfe\x29\x7f\xd1", 6, NEED_AVX512 },
	{ "vmovups (%rsi),%zmm28", "\x62\x61\x7c\x48\x10\x26", 6, NEED_AVX512 },
	{ "vmovaps %zmm29,(%rsi)", "\x62\x61\x7c\x48\x29\x2e", 6, NEED_AVX512 },
	{ "vmovntdq %zmm30,(%rsi)", "\x62\x61\x7d\x48\xe7\x36", 6, NEED_AVX512 },
	{ "vpcmpeqb (%rsi),%ymm16,%k0", "\x62\xf1\x7d\x20\x74\x06", 6, NEED_AVX512 },
	{ "vpcmpeqb %zmm17,%zmm18,%k1{%k2}", "\x62\xb1\x6d\x42\x74\xc9", 6, NEED_AVX512 },
	{ "vpcmpeqw %zmm17,%zmm18,%k1", "\x62\xb1\x6d\x40\x75\xc9", 6, NEED_AVX512 },
	{ "vpcmpeqd %ymm16,%ymm17,%k3", "\x62\xb1\x75\x20\x76\xd8", 6, NEED_AVX512 },
	{ "vpcmpeqq %zmm1,%zmm2,%k1", "\x62\xf2\xed\x48\x29\xc9", 6, NEED_AVX512 },
	{ "vpcmpgtb %zmm16,%zmm17,%k4", "\x62\xb1\x75\x40\x64\xe0", 6, NEED_AVX512 },
	{ "vpcmpgtd 0x40(%rsi),%zmm17,%k4", "\x62\xf1\x75\x40\x66\x66\x01", 7, NEED_AVX512 },
	{ "vpcmpltub (%rsi),%ymm16,%k1", "\x62\xf3\x7d\x20\x3e\x0e\x01", 7, NEED_AVX512 },
	{ "vpcmpnequb %zmm17,%zmm18,%k2{%k3}", "\x62\xb3\x6d\x43\x3e\xd1\x04", 7, NEED_AVX512 },
	{ "vpcmpleb %ymm1,%ymm2,%k3", "\x62\xf3\x6d\x28\x3f\xd9\x02", 7, NEED_AVX512 },
	{ "vpcmpnltb %zmm1,%zmm2,%k3", "\x62\xf3\x6d\x48\x3f\xd9\x05", 7, NEED_AVX512 },
	{ "vpcmpnleud %zmm1,%zmm2,%k4", "\x62\xf3\x6d\x48\x1e\xe1\x06", 7, NEED_AVX512 },
	{ "vpcmpltd (%rsi),%ymm2,%k4", "\x62\xf3\x6d\x28\x1f\x26\x01", 7, NEED_AVX512 },
	{ "vpcmpequw %zmm1,%zmm2,%k5", "\x62\xf3\xed\x48\x3e\xe9\x00", 7, NEED_AVX512 },
	{ "vpcmpnleq %zmm1,%zmm2,%k5", "\x62\xf3\xed\x48\x1f\xe9\x06", 7, NEED_AVX512 },
	{ "vptestmb %ymm17,%ymm17,%k2", "\x62\xb2\x75\x20\x26\xd1", 6, NEED_AVX512 },
	{ "vptestnmb (%rsi),%zmm18,%k3{%k1}", "\x62\xf2\x6e\x41\x26\x1e", 6, NEED_AVX512 },
	{ "vptestmd %zmm1,%zmm2,%k4", "\x62\xf2\x6d\x48\x27\xe1", 6, NEED_AVX512 },
	{ "vptestnmd %ymm1,%ymm2,%k4", "\x62\xf2\x6e\x28\x27\xe1", 6, NEED_AVX512 },
	{ "vptestmw %zmm1,%zmm2,%k4", "\x62\xf2\xed\x48\x26\xe1", 6, NEED_AVX512 },
	{ "vpminub %zmm16,%zmm17,%zmm18", "\x62\xa1\x75\x40\xda\xd0", 6, NEED_AVX512 },
	{ "vpminub (%rsi),%ymm19,%ymm20{%k1}{z}", "\x62\xe1\x65\xa1\xda\x26", 6, NEED_AVX512 },
	{ "vpminud %zmm1,%zmm2,%zmm3{%k2}", "\x62\xf2\x6d\x4a\x3b\xd9", 6, NEED_AVX512 },
	{ "vpminuq %zmm1,%zmm2,%zmm3", "\x62\xf2\xed\x48\x3b\xd9", 6, NEED_AVX512 },
	{ "vpmaxub 0x40(%rsi),%zmm2,%zmm3", "\x62\xf1\x6d\x48\xde\x5e\x01", 7, NEED_AVX512 },
	{ "vpaddb %zmm16,%zmm17,%zmm18", "\x62\xa1\x75\x40\xfc\xd0", 6, NEED_AVX512 },
	{ "vpsubb (%rsi),%zmm17,%zmm18{%k1}", "\x62\xe1\x75\x41\xf8\x16", 6, NEED_AVX512 },
	{ "vpaddd %zmm16,%zmm17,%zmm18{%k1}", "\x62\xa1\x75\x41\xfe\xd0", 6, NEED_AVX512 },
	{ "vpxorq %zmm16,%zmm16,%zmm16", "\x62\xa1\xfd\x40\xef\xc0", 6, NEED_AVX512 },
	{ "vpxord (%rsi),%ymm17,%ymm18{%k1}", "\x62\xe1\x75\x21\xef\x16", 6, NEED_AVX512 },
	{ "vpandq %zmm16,%zmm17,%zmm18", "\x62\xa1\xf5\x40\xdb\xd0", 6, NEED_AVX512 },
	{ "vpord %ymm16,%ymm17,%ymm18{%k2}{z}", "\x62\xa1\x75\xa2\xeb\xd0", 6, NEED_AVX512 },
	{ "vpandnd %zmm16,%zmm17,%zmm18", "\x62\xa1\x75\x40\xdf\xd0", 6, NEED_AVX512 },
	{ "vpternlogd $0xde,%zmm16,%zmm17,%zmm18", "\x62\xa3\x75\x40\x25\xd0\xde", 7, NEED_AVX512 },
	{ "vpternlogd $0x96,(%rsi),%ymm19,%ymm20{%k2}", "\x62\xe3\x65\x22\x25\x26\x96", 7, NEED_AVX512 },
	{ "vpternlogq $0x81,%zmm16,%zmm17,%zmm18{%k2}{z}", "\x62\xa3\xf5\xc2\x25\xd0\x81", 7, NEED_AVX512 },
	{ "vpshufb %zmm16,%zmm17,%zmm18", "\x62\xa2\x75\x40\x00\xd0", 6, NEED_AVX512 },
	{ "vpbroadcastb %eax,%zmm16", "\x62\xe2\x7d\x48\x7a\xc0", 6, NEED_AVX512 },
	{ "vpbroadcastd %ecx,%ymm17{%k1}", "\x62\xe2\x7d\x29\x7c\xc9", 6, NEED_AVX512 },
	{ "vpbroadcastq %rdx,%zmm18", "\x62\xe2\xfd\x48\x7c\xd2", 6, NEED_AVX512 },
	{ "vpbroadcastb 0x3(%rsi),%zmm19", "\x62\xe2\x7d\x48\x78\x5e\x03", 7, NEED_AVX512 },
	{ "vpbroadcastd %xmm1,%zmm20", "\x62\xe2\x7d\x48\x58\xe1", 6, NEED_AVX512 },
	{ "vpbroadcastq 0x8(%rsi),%zmm21{%k3}{z}", "\x62\xe2\xfd\xcb\x59\x6e\x01", 7, NEED_AVX512 },
	{ "vmovd %eax,%xmm16", "\x62\xe1\x7d\x08\x6e\xc0", 6, NEED_AVX512 },
	{ "vmovq %xmm17,%rcx", "\x62\xe1\xfd\x08\x7e\xc9", 6, NEED_AVX512 },
	{ "vmovq 0x8(%rsi),%xmm18", "\x62\xe1\xfd\x08\x6e\x56\x01", 7, NEED_AVX512 },
	{ "vmovd %xmm19,0x8(%rsi)", "\x62\xe1\x7d\x08\x7e\x5e\x02", 7, NEED_AVX512 },
	{ "kmovd %k1,%eax", "\xc5\xfb\x93\xc1", 4, NEED_AVX512 },
	{ "kmovd %ecx,%k2", "\xc5\xfb\x92\xd1", 4, NEED_AVX512 },
	{ "kmovq %k3,%rdx", "\xc4\xe1\xfb\x93\xd3", 5, NEED_AVX512 },
	{ "kmovq %rax,%k4", "\xc4\xe1\xfb\x92\xe0", 5, NEED_AVX512 },
	{ "kmovw %k5,%r8d", "\xc5\x78\x93\xc5", 4, NEED_AVX512 },
	{ "kmovb %k6,%r9d", "\xc5\x79\x93\xce", 4, NEED_AVX512 },
	{ "kmovd (%rsi),%k1", "\xc4\xe1\xf9\x90\x0e", 5, NEED_AVX512 },
	{ "kmovq %k2,(%rsi)", "\xc4\xe1\xf8\x91\x16", 5, NEED_AVX512 },
	{ "kmovd %k3,%k4", "\xc4\xe1\xf9\x90\xe3", 5, NEED_AVX512 },
	{ "kmovw %eax,%k5", "\xc5\xf8\x92\xe8", 4, NEED_AVX512 },
	{ "kmovb %ecx,%k6", "\xc5\xf9\x92\xf1", 4, NEED_AVX512 },
	{ "kortestd %k1,%k2", "\xc4\xe1\xf9\x98\xd1", 5, NEED_AVX512 },
	{ "kortestq %k3,%k4", "\xc4\xe1\xf8\x98\xe3", 5, NEED_AVX512 },
	{ "kortestw %k5,%k6", "\xc5\xf8\x98\xf5", 4, NEED_AVX512 },
	{ "kortestb %k1,%k7", "\xc5\xf9\x98\xf9", 4, NEED_AVX512 },
	{ "ktestd %k1,%k2", "\xc4\xe1\xf9\x99\xd1", 5, NEED_AVX512 },
	{ "kord %k1,%k2,%k3", "\xc4\xe1\xed\x45\xd9", 5, NEED_AVX512 },
	{ "kandq %k1,%k2,%k3", "\xc4\xe1\xec\x41\xd9", 5, NEED_AVX512 },
	{ "kandnd %k4,%k5,%k6", "\xc4\xe1\xd5\x42\xf4", 5, NEED_AVX512 },
	{ "kxnorq %k1,%k2,%k3", "\xc4\xe1\xec\x46\xd9", 5, NEED_AVX512 },
	{ "kxord %k4,%k5,%k6", "\xc4\xe1\xd5\x47\xf4", 5, NEED_AVX512 },
	{ "kxorb %k4,%k5,%k6", "\xc5\xd5\x47\xf4", 4, NEED_AVX512 },
	{ "knotd %k1,%k2", "\xc4\xe1\xf9\x44\xd1", 5, NEED_AVX512 },
	{ "kunpckbw %k1,%k2,%k3", "\xc5\xed\x4b\xd9", 4, NEED_AVX512 },
	{ "kunpckwd %k4,%k5,%k6", "\xc5\xd4\x4b\xf4", 4, NEED_AVX512 },
	{ "kunpckdq %k1,%k2,%k7", "\xc4\xe1\xec\x4b\xf9", 5, NEED_AVX512 },
};

/* Memory the instructions may use: a buffer, and the code page (rip). */
static uint8_t buf[512] __attribute__((aligned(64)));
static uint8_t *jit;
#define RSI_AT 128

static bool in(uint64_t a, unsigned n, const void *lo, size_t len)
{
	return a >= (uintptr_t)lo && a + n <= (uintptr_t)lo + len;
}

/* The rest of the machine vec.c's instructions reach. */
struct machine {
	uint64_t gpr[16], rflags;
	const uint8_t *guard;   /* a readable page, or NULL */
};

static uint64_t m_gpr(void *arg, unsigned r) { return ((struct machine *)arg)->gpr[r]; }
static void m_set_gpr(void *arg, unsigned r, uint64_t v) { ((struct machine *)arg)->gpr[r] = v; }
static uint64_t m_flags(void *arg) { return ((struct machine *)arg)->rflags; }
static void m_set_flags(void *arg, uint64_t v) { ((struct machine *)arg)->rflags = v; }
static uint64_t m_seg(void *arg, unsigned seg) { return 0; }

static bool mem_read(void *arg, uint64_t a, void *p, unsigned n)
{
	const uint8_t *guard = ((struct machine *)arg)->guard;

	if (!in(a, n, buf, sizeof(buf)) && !in(a, n, jit, 4096) && !(guard && in(a, n, guard, 4096)))
		return false;
	memcpy(p, (const void *)(uintptr_t)a, n);
	return true;
}

static bool mem_write(void *arg, uint64_t a, const void *p, unsigned n)
{
	if (!in(a, n, buf, sizeof(buf)))
		return false;
	memcpy((void *)(uintptr_t)a, p, n);
	return true;
}

static uint64_t rnd(void)
{
	return (uint64_t)random() << 40 ^ (uint64_t)random() << 20 ^ (uint64_t)random();
}

/* Bytes from a few values, so that compares and minimums meet equal ones. */
static uint8_t rnd_byte(void)
{
	static const uint8_t pick[] = { 0, 0, 1, 'a', 'b', 0x7f, 0x80, 0xfe, 0xff };

	return random() % 3 ? pick[random() % sizeof(pick)] : (uint8_t)random();
}

static void fill(void *p, size_t n)
{
	uint8_t *b = p;

	while (n--)
		*b++ = rnd_byte();
}

static void random_state(struct native *st)
{
	size_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < 16; i++)
		st->gpr[i] = random() % 2 ? rnd() : rnd() & 0xff;
	st->gpr[2] = (uint64_t)(random() % 64);               /* rdx: an index */
	st->gpr[6] = (uint64_t)(uintptr_t)(buf + RSI_AT);      /* rsi: the buffer */
	st->rflags = 0x202 | (rnd() & 0x8d5);
	fill(st->z, sizeof(st->z));
	for (i = 0; i < 8; i++)
		st->k[i] = random() % 4 ? rnd() : random() % 2 ? 0 : ~0ULL;
	fill(buf, sizeof(buf));
}

static void to_cpu(const struct native *st, struct swb_vec_cpu *c, struct machine *mc, const uint8_t *guard)
{
	memset(c, 0, sizeof(*c));
	memcpy(mc->gpr, st->gpr, sizeof(mc->gpr));
	mc->rflags = st->rflags;
	mc->guard = guard;
	memcpy(c->z, st->z, sizeof(c->z));
	memcpy(c->k, st->k, sizeof(c->k));
	c->arg = mc;
	c->gpr = m_gpr;
	c->set_gpr = m_set_gpr;
	c->flags = m_flags;
	c->set_flags = m_set_flags;
	c->seg_base = m_seg;
	c->read = mem_read;
	c->write = mem_write;
}

/* What differs between the CPU's result and vec.c's, or "". */
static const char *differ(const struct native *st, const struct swb_vec_cpu *c, const struct machine *mc,
			  bool avx2_only)
{
	static char why[160];
	unsigned r;

	for (r = 0; r < 16; r++)
		if (r != 4 && r != 5 && r < 12 && st->gpr[r] != mc->gpr[r]) {
			snprintf(why, sizeof(why), "general register %u: cpu %#llx, vec.c %#llx", r,
				 (unsigned long long)st->gpr[r], (unsigned long long)mc->gpr[r]);
			return why;
		}
	if ((st->rflags ^ mc->rflags) & 0x8d5) {
		snprintf(why, sizeof(why), "flags: cpu %#llx, vec.c %#llx", (unsigned long long)st->rflags,
			 (unsigned long long)mc->rflags);
		return why;
	}
	for (r = 0; r < (avx2_only ? 16u : 32u); r++)
		if (memcmp(st->z[r], c->z[r], avx2_only ? 32 : 64)) {
			snprintf(why, sizeof(why), "vector register %u", r);
			return why;
		}
	for (r = 0; r < (avx2_only ? 0u : 8u); r++)
		if (st->k[r] != c->k[r]) {
			snprintf(why, sizeof(why), "k%u: cpu %#llx, vec.c %#llx", r, (unsigned long long)st->k[r],
				 (unsigned long long)c->k[r]);
			return why;
		}
	return "";
}

static bool have(unsigned need)
{
	unsigned a, b, c, d;
	uint32_t lo, hi;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27)))      /* OSXSAVE */
		return false;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return false;
	if (need == NEED_AVX2)
		return (lo & 6) == 6 && (b & (1u << 5));
	/* AVX-512 F, BW, VL with their state enabled */
	return (lo & 0xe6) == 0xe6 && (b & (1u << 16)) && (b & (1u << 30)) && (b & (1u << 31));
}

#define TRIALS 200

static void test_case(unsigned i)
{
	static struct native st, nat;
	static uint8_t mem_before[512], mem_after[512];
	bool avx2_only = cases[i].need == NEED_AVX2 && !have(NEED_AVX512);
	const char *bad = "";
	char name[160];
	unsigned t, len = 0;

	snprintf(name, sizeof(name), "vec: %s", cases[i].name);
	if (!have(cases[i].need)) {
		SKIP(name, cases[i].need == NEED_AVX2 ? "this CPU has no AVX2" : "this CPU has no AVX-512 (F, BW, VL)");
		return;
	}
	memcpy(jit, cases[i].bytes, cases[i].n);
	jit[cases[i].n] = 0xc3;
	for (t = 0; t < TRIALS && !*bad; t++) {
		struct swb_vec_cpu c;
		struct machine mc;
		enum swb_vec_result r;
		uint32_t written;

		random_state(&st);
		st.avx2_only = avx2_only;
		memcpy(mem_before, buf, sizeof(buf));
		nat = st;
		test_vec_native(&nat, jit);
		memcpy(mem_after, buf, sizeof(buf));
		memcpy(buf, mem_before, sizeof(buf));
		to_cpu(&st, &c, &mc, NULL);
		r = swb_vec_run(&c, (uint64_t)(uintptr_t)jit, jit, cases[i].n + 16, &len, &written);
		if (r != SWB_VEC_OK)
			bad = r == SWB_VEC_FAULT ? "vec.c: fault" : "vec.c: unsupported";
		else if (len != cases[i].n)
			bad = "vec.c: wrong length";
		else if (memcmp(buf, mem_after, sizeof(buf)))
			bad = "memory differs";
		else
			bad = differ(&nat, &c, &mc, avx2_only);
	}
	if (*bad)
		printf("FAIL %s: %s (trial %u)\n", name, bad, t);
	else
		printf("PASS %s (%u random states)\n", name, TRIALS);
	tap_failed += *bad != 0;
}

/* A masked load reads only the enabled elements: bytes past a page's end
 * that the mask leaves out do not fault, and those it enables do. */
static void test_fault_suppression(void)
{
	/* vmovdqu8 (%rsi),%zmm21{%k2}{z} */
	static const uint8_t insn[] = { 0x62, 0xe1, 0x7f, 0xca, 0x6f, 0x2e };
	uint8_t *pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct swb_vec_cpu c;
	struct machine mc;
	uint32_t written;
	unsigned len;
	static struct native st, nat;

	if (pages == MAP_FAILED || mprotect(pages + 4096, 4096, PROT_NONE) < 0) {
		SKIP("vec: masked load at a page's end", "mmap failed");
		return;
	}
	fill(pages, 4096);
	memset(&st, 0, sizeof(st));
	st.gpr[6] = (uint64_t)(uintptr_t)(pages + 4096 - 20);
	st.k[2] = (1ULL << 20) - 1;
	to_cpu(&st, &c, &mc, pages);
	CHECK(swb_vec_run(&c, 0, insn, sizeof(insn), &len, &written) == SWB_VEC_OK &&
	      memcmp(c.z[21], pages + 4096 - 20, 20) == 0 && c.z[21][20] == 0,
	      "vec: a masked load of the 20 bytes before an unreadable page");
	if (have(NEED_AVX512)) {
		memcpy(jit, insn, sizeof(insn));
		jit[sizeof(insn)] = 0xc3;
		nat = st;
		test_vec_native(&nat, jit);
		CHECK(memcmp(nat.z[21], c.z[21], 64) == 0, "vec: the same load on this CPU: the same bytes");
	}
	st.k[2] = (1ULL << 21) - 1;
	to_cpu(&st, &c, &mc, pages);
	CHECK(swb_vec_run(&c, 0, insn, sizeof(insn), &len, &written) == SWB_VEC_FAULT,
	      "vec: a mask that reaches into the unreadable page faults");
	munmap(pages, 8192);
}

/* What vec.c does not emulate it says so, and changes nothing. */
static void test_unsupported(void)
{
	static const struct { const char *name, *bytes; unsigned n; } other[] = {
		{ "vaddps %ymm1,%ymm2,%ymm3", "\xc5\xec\x58\xd9", 4 },
		{ "vpgatherdd", "\xc4\xe2\x69\x90\x04\x8e", 6 },
		{ "vmovss (%rsi),%xmm1", "\xc5\xfa\x10\x0e", 4 },
		{ "vpcmpeqd with a broadcast", "\x62\xf1\x75\x50\x76\x06", 6 },
		{ "32-bit addressing", "\x67\xc5\xfe\x6f\x0e", 5 },
	};
	struct swb_vec_cpu c, before;
	struct machine mc, mc_before;
	unsigned i, len;
	uint32_t written;
	char name[128];

	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		static struct native st;

		random_state(&st);
		to_cpu(&st, &c, &mc, NULL);
		before = c;
		mc_before = mc;
		snprintf(name, sizeof(name), "vec: %s is not emulated, nothing changed", other[i].name);
		CHECK(swb_vec_run(&c, 0, (const uint8_t *)other[i].bytes, other[i].n, &len, &written) ==
			      SWB_VEC_UNSUPPORTED && memcmp(&c, &before, sizeof(c)) == 0 &&
			      memcmp(&mc, &mc_before, sizeof(mc)) == 0, name);
	}
}

int main(void)
{
	unsigned i;

	srandom(20261204);
	jit = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (jit == MAP_FAILED) {
		SKIP("vec", "no executable page");
		return test_done();
	}
	fill(jit, 4096);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		test_case(i);
	test_fault_suppression();
	test_unsupported();
	return test_done();
}
