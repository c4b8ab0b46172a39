/* emu.h — register and memory arithmetic ahead of a traced thread (emu.c):
 * the planner resolves conditional branches whose flags straight-line code
 * computes from known registers and trusted memory (mem.h), and indirect
 * branches and returns through them. */
#ifndef OCREC_SAMPLER_EMU_H
#define OCREC_SAMPLER_EMU_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

#include "sampler/mem.h"
#include "sampler/swtrace.h"

/* dst or src of a uop: its memory operand instead of a register */
#define SWB_MEM_OPND 16
#define SWB_HIGH_DST 1
#define SWB_HIGH_SRC 2

/* One straight-line instruction's effect on the registers and flags. */
struct swb_uop {
	uint8_t kind, alu, width, src_width;
	uint8_t dst, src, base, index, scale;   /* register indexes 0-15, 0xff: none */
	bool sign, imm_is_dst;
	uint8_t high;           /* SWB_HIGH_*: an 8-bit operand is ah, ch, dh or bh */
	uint16_t kill;          /* registers an unmodelled instruction writes */
	uint16_t cond;          /* cmovcc, setcc: the jcc (capstone id) of the same condition */
	int64_t imm;
	/* The memory operand: [seg: base + index*scale + disp], msize bytes.
	 * maddr is false when the planner cannot compute the address. */
	uint8_t mseg, mbase, mindex, mscale, msize;
	bool maddr;
	uint8_t mwrite;         /* MW_*: what an unmodelled instruction stores */
	uint8_t len;            /* the instruction's length */
	uint8_t sse;            /* U_SSE: which operation (sse.c) */
	uint16_t id;            /* the capstone X86_INS_* (U_SSE, U_BITS, U_MULDIV, U_BT) */
	int64_t mdisp;
};

enum {
	MW_NONE,
	MW_OPND,                /* an unknown value into its memory operand */
	MW_ANY,                 /* anywhere: memory is no longer known */
};

/* A store of the planned path, newer than the memory the planner reads:
 * a known value of up to 8 bytes, or up to 64 unknown bytes. */
struct swb_store {
	uint64_t addr, val;
	uint8_t size;
	bool known;
};

#define SWB_MAX_STORES 32

/* The machine of an exact run (emulate.c's interpreter): memory read and
 * written in place, its copies of the process's pages, instead of mem and
 * the path's stores, and the SSE registers, so that scalar SSE code runs
 * too. An access that fails sets fault, and the instruction must not count. */
struct swb_emu_io {
	bool (*read)(void *arg, uint64_t addr, void *buf, unsigned n);
	bool (*write)(void *arg, uint64_t addr, const void *buf, unsigned n);
	/* Bring xmm and mxcsr from the thread (once); false when it cannot. */
	bool (*load_sse)(void *arg);
	void *arg;
	uint8_t (*xmm)[64];     /* xmm0-15 in the low 16 bytes of each */
	uint32_t *mxcsr;
};

/* What is known of a thread's registers at a point of a planned path. */
struct swb_emu {
	uint64_t r[16];         /* rax rcx rdx rbx rsp rbp rsi rdi r8-r15 */
	uint16_t known;         /* bit per register */
	/* CF PF ZF SF OF AF (a bit each, emu.c's F_*): values, and which are
	 * known; AF is computed where the ISA defines it, 0 where it does not
	 * (as libunicorn has it), and never compared with the thread's */
	uint8_t flags, fknown;
	uint64_t fs_base, gs_base;
	struct swb_mem *mem;    /* memory to read; NULL: none */
	struct swb_emu_io *io;  /* or memory read and written in place */
	bool fault;             /* io: an access failed */
	bool df;                /* the direction flag (string instructions) */
	bool mem_lost;          /* a store went where the planner cannot tell */
	int nr_stores;
	struct swb_store stores[SWB_MAX_STORES];
};

/* Fill c from the decoded instruction (its uops and stack summary left
 * empty); false when it never transfers control. */
bool swb_classify(const cs_insn *in, struct swb_ctl *c);
void swb_uop_from_insn(const cs_insn *in, struct swb_uop *u);
/* An instruction capstone does not decode: any register, flag or memory may change. */
void swb_uop_unknown(struct swb_uop *u);
/* Whether emu.c computes the uop's effect (else it only forgets). */
bool swb_uop_modelled(const struct swb_uop *u);
/* The memory operand op as u's (sse.c); false when its address cannot be
 * computed (32-bit addressing, other segments). */
bool swb_uop_mem(const cs_insn *in, const cs_x86_op *op, struct swb_uop *u);
/* The address of u's memory operand; false when unknown. */
bool swb_emu_addr(const struct swb_emu *e, const struct swb_uop *u, uint64_t *addr);
/* Whether the instruction may store to its operand i (a memory operand). */
bool swb_insn_stores_to(const cs_insn *in, int i);
/* Whether it stores to memory its operands do not name (string stores,
 * pushf, maskmovdqu...). */
bool swb_insn_stores_implicitly(const cs_insn *in);
/* The thread's registers; memory is read from mem (NULL: never). */
void swb_emu_from_regs(struct swb_emu *e, const struct user_regs_struct *r, struct swb_mem *mem);
/* Its inverse for an exact run: r's general registers and arithmetic flags
 * from e (all known), the rest of r as it was. */
void swb_emu_to_regs(const struct swb_emu *e, struct user_regs_struct *r);
void swb_emu_apply(struct swb_emu *e, const struct swb_uop *u);
/* The control instruction's own effect (call, ret, loop, syscall), whichever
 * way it goes. */
void swb_emu_ctl(struct swb_emu *e, const struct swb_ctl *c);
/* A 64-bit register's value by capstone id; false when unknown. */
bool swb_emu_reg(const struct swb_emu *e, unsigned reg, uint64_t *v);
/* size bytes of memory at addr as the path has them; false when unknown. */
bool swb_emu_load(struct swb_emu *e, uint64_t addr, unsigned size, uint64_t *v);
/* The address of a control instruction's memory operand, or of the stack top
 * for a return; false when unknown. */
bool swb_emu_ctl_addr(const struct swb_emu *e, const struct swb_ctl *c, uint64_t *addr);
/* The thread ran the path to this state: its stores reach the memory view
 * (all of what it may have written is read again when they are not known). */
void swb_emu_commit(const struct swb_emu *e);
/* The EFLAGS value of base with the known flags of e in place. */
uint64_t swb_emu_eflags(const struct swb_emu *e, uint64_t base);
/* All six arithmetic flags of e from an EFLAGS value (vec.c's results). */
void swb_emu_set_eflags(struct swb_emu *e, uint64_t eflags);
/* Whether the known registers and flags agree with the thread's. */
bool swb_emu_matches(const struct swb_emu *e, const struct user_regs_struct *r);
/* 1 taken, 0 not, -1 unknown: a conditional jump (by capstone id) from the known flags. */
int swb_emu_jcc(const struct swb_emu *e, unsigned insn_id);

/* Is the jcc insn_id (capstone X86_INS_J*, not jrcxz or loop) taken with
 * these EFLAGS? 1, 0, or -1 for another instruction. */
int swb_cond_taken(unsigned insn_id, uint64_t eflags);

#endif
