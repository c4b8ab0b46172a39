/* vec.h — the AVX, AVX2 and AVX-512 instructions that glibc's string and
 * memory functions run (memcpy, memset, strlen, strcmp, memchr... in their
 * -avx2 and -evex versions), emulated by ocrec (vec.c): libunicorn 2.0 has
 * no AVX at all, and these functions are where most programs spend the
 * instructions it lacks. Integer and move instructions only; anything else
 * is reported unsupported, and emulation stops there. */
#ifndef OCREC_SAMPLER_VEC_H
#define OCREC_SAMPLER_VEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The machine an instruction runs on: the vector and mask registers here,
 * the rest through the caller (emulate.c: libunicorn; tests: a struct). */
struct swb_vec_cpu {
	uint8_t z[32][64];      /* zmm0-31, little-endian */
	uint64_t k[8];
	void *arg;
	/* general registers in encoding order: rax rcx rdx rbx rsp rbp rsi rdi r8-r15 */
	uint64_t (*gpr)(void *arg, unsigned r);
	void (*set_gpr)(void *arg, unsigned r, uint64_t v);
	uint64_t (*flags)(void *arg);
	void (*set_flags)(void *arg, uint64_t v);
	uint64_t (*seg_base)(void *arg, unsigned seg);  /* 1 fs, 2 gs */
	/* The low 16 bytes of xmm0-15 may live with the caller (libunicorn runs
	 * SSE): bring z[r] up to date before r is read (NULL: z is). */
	void (*sync_xmm)(void *arg, unsigned r);
	/* memory: false when the bytes cannot be read or written (then the
	 * real thread would fault, or the caller cannot tell) */
	bool (*read)(void *arg, uint64_t addr, void *buf, unsigned n);
	bool (*write)(void *arg, uint64_t addr, const void *buf, unsigned n);
};

/* What happened. Nothing changed unless OK, except memory a store may have
 * written before the part that failed. */
enum swb_vec_result {
	SWB_VEC_OK,
	SWB_VEC_UNSUPPORTED,    /* not an instruction vec.c emulates */
	SWB_VEC_FAULT,          /* memory it needs cannot be had */
};

/* Run the instruction at code (avail bytes readable there), which sits at
 * ip in the program. *len gets its length; *written the zmm registers it
 * wrote (a bit each: their low 16 bytes go back to the caller). */
enum swb_vec_result swb_vec_run(struct swb_vec_cpu *c, uint64_t ip, const uint8_t *code, size_t avail,
				unsigned *len, uint32_t *written);

/* The length of the VEX or EVEX instruction at code, whatever it is (none
 * transfers control); 0 when it is not one (or not whole in avail). */
unsigned swb_vec_length(const uint8_t *code, size_t avail);

#endif
