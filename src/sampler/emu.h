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

/* One straight-line instruction's effect on the registers and flags. */
struct swb_uop {
	uint8_t kind, alu, width, src_width;
	uint8_t dst, src, base, index, scale;   /* register indexes 0-15, 0xff: none */
	bool sign, imm_is_dst;
	uint16_t kill;          /* registers an unmodelled instruction writes */
	uint16_t cond;          /* cmovcc, setcc: the jcc (capstone id) of the same condition */
	int64_t imm;
	/* The memory operand: [seg: base + index*scale + disp], msize bytes.
	 * maddr is false when the planner cannot compute the address. */
	uint8_t mseg, mbase, mindex, mscale, msize;
	bool maddr;
	uint8_t mwrite;         /* MW_*: what an unmodelled instruction stores */
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

/* What is known of a thread's registers at a point of a planned path. */
struct swb_emu {
	uint64_t r[16];         /* rax rcx rdx rbx rsp rbp rsi rdi r8-r15 */
	uint16_t known;         /* bit per register */
	uint8_t flags, fknown;  /* CF PF ZF SF OF: values, and which are known */
	uint64_t fs_base, gs_base;
	struct swb_mem *mem;    /* memory to read; NULL: none */
	bool mem_lost;          /* a store went where the planner cannot tell */
	int nr_stores;
	struct swb_store stores[SWB_MAX_STORES];
};

/* Fill c from the decoded instruction (its uops and stack summary left
 * empty); false when it never transfers control. */
bool swb_classify(csh cs, const cs_insn *in, struct swb_ctl *c);
void swb_uop_from_insn(csh cs, const cs_insn *in, struct swb_uop *u);
/* An instruction capstone does not decode: any register, flag or memory may change. */
void swb_uop_unknown(struct swb_uop *u);
/* Whether the instruction may store to its operand i (a memory operand). */
bool swb_insn_stores_to(const cs_insn *in, int i);
/* Whether it stores to memory its operands do not name (string stores,
 * pushf, maskmovdqu...). */
bool swb_insn_stores_implicitly(const cs_insn *in);
/* The thread's registers; memory is read from mem (NULL: never). */
void swb_emu_from_regs(struct swb_emu *e, const struct user_regs_struct *r, struct swb_mem *mem);
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
/* Whether the known registers and flags agree with the thread's. */
bool swb_emu_matches(const struct swb_emu *e, const struct user_regs_struct *r);
/* 1 taken, 0 not, -1 unknown: a conditional jump (by capstone id) from the known flags. */
int swb_emu_jcc(const struct swb_emu *e, unsigned insn_id);

/* Is the jcc insn_id (capstone X86_INS_J*, not jrcxz or loop) taken with
 * these EFLAGS? 1, 0, or -1 for another instruction. */
int swb_cond_taken(unsigned insn_id, uint64_t eflags);

#endif
