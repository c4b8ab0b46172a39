/* emu.h — register arithmetic ahead of a traced thread (emu.c): the planner
 * resolves conditional branches whose flags straight-line code computes from
 * known registers, and indirect branches through known registers. */
#ifndef OCREC_SAMPLER_EMU_H
#define OCREC_SAMPLER_EMU_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

#include "sampler/swtrace.h"

/* One straight-line instruction's effect on the registers and flags. */
struct swb_uop {
	uint8_t kind, alu, width, src_width;
	uint8_t dst, src, base, index, scale;   /* register indexes 0-15, 0xff: none */
	bool sign, imm_is_dst;
	uint16_t kill;          /* registers an unmodelled instruction writes */
	uint16_t cond;          /* cmovcc, setcc: the jcc (capstone id) of the same condition */
	int64_t imm;
};

/* What is known of a thread's registers at a point of a planned path. */
struct swb_emu {
	uint64_t r[16];         /* rax rcx rdx rbx rsp rbp rsi rdi r8-r15 */
	uint16_t known;         /* bit per register */
	uint8_t flags, fknown;  /* CF PF ZF SF OF: values, and which are known */
};

void swb_uop_from_insn(csh cs, const cs_insn *in, struct swb_uop *u);
void swb_emu_from_regs(struct swb_emu *e, const struct user_regs_struct *r);
void swb_emu_apply(struct swb_emu *e, const struct swb_uop *u);
/* Move the stack pointer (a call or return on the path). */
void swb_emu_adjust_sp(struct swb_emu *e, int64_t delta);
/* The control instruction's own effect (call, ret, loop, syscall), whichever
 * way it goes. */
void swb_emu_ctl(struct swb_emu *e, const struct swb_ctl *c);
/* A 64-bit register's value by capstone id; false when unknown. */
bool swb_emu_reg(const struct swb_emu *e, unsigned reg, uint64_t *v);
/* 1 taken, 0 not, -1 unknown: a conditional jump (by capstone id) from the known flags. */
int swb_emu_jcc(const struct swb_emu *e, unsigned insn_id);

/* Is the jcc insn_id (capstone X86_INS_J*, not jrcxz or loop) taken with
 * these EFLAGS? 1, 0, or -1 for another instruction. */
int swb_cond_taken(unsigned insn_id, uint64_t eflags);

#endif
