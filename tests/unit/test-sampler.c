/* Unit tests of the software sampler's decoder: which instruction ends a
 * straight-line run, of what kind, with which target or operand, read from
 * this process's own memory as the sampler reads a tracee's. */
#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sampler/swtrace.h"
#include "tap.h"

static uint8_t code[4096];

/* Copy bytes into the code buffer at offset off; return their address. */
static uint64_t put(size_t off, const char *bytes, size_t n)
{
	memcpy(code + off, bytes, n);
	return (uint64_t)(uintptr_t)(code + off);
}

static const struct swb_ctl *run(struct swb_space *sp, uint64_t addr)
{
	return swb_decode_run(sp, getpid(), addr);
}

int main(void)
{
	struct swb_space *sp = swb_space_new();
	const struct swb_ctl *c;
	uint64_t a;
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *two;

	CHECK(sp != NULL, "capstone opens");
	if (!sp)
		return test_done();

	a = put(0, "\x48\x01\xd8\x75\x05", 5);           /* add %rbx,%rax; jne .+7 */
	c = run(sp, a);
	CHECK_INT(c->kind, SWB_JCC, "jne ends the run");
	CHECK_U64(c->addr, a + 3, "jne address");
	CHECK_U64(c->target, a + 10, "jne target");
	CHECK_U64(c->next, a + 5, "jne next");
	CHECK_INT(c->insn_id, X86_INS_JNE, "jne condition");

	a = put(16, "\x90\x90\xeb\xfe", 4);               /* nop; nop; jmp .-0 */
	c = run(sp, a);
	CHECK_INT(c->kind, SWB_JMP, "direct jmp");
	CHECK_U64(c->target, a + 2, "jmp to itself");

	a = put(32, "\xe8\x10\x00\x00\x00", 5);           /* call .+0x15 */
	c = run(sp, a);
	CHECK_INT(c->kind, SWB_CALL, "direct call");
	CHECK_U64(c->target, a + 0x15, "call target");

	a = put(48, "\xf3\xa4\xc3", 3);                   /* rep movsb; ret */
	c = run(sp, a);
	CHECK_INT(c->kind, SWB_RET, "rep movsb is straight-line, ret ends the run");
	CHECK_U64(c->addr, a + 2, "ret address");

	a = put(64, "\xff\xe0", 2);                       /* jmp *%rax */
	c = run(sp, a);
	CHECK_INT(c->kind, SWB_JMP_IND, "jmp *%rax");
	CHECK(!c->op_mem && c->reg == X86_REG_RAX, "jmp *%rax operand");

	a = put(80, "\xff\x24\xc5\x10\x00\x00\x00", 7);   /* jmp *0x10(,%rax,8): a jump table */
	c = run(sp, a);
	CHECK_INT(c->kind, SWB_JMP_IND, "jump table");
	CHECK(c->op_mem && c->index == X86_REG_RAX && c->scale == 8 && c->disp == 0x10 && !c->base,
	      "jump table operand");

	a = put(96, "\xff\x15\x10\x00\x00\x00", 6);       /* call *0x10(%rip) */
	c = run(sp, a);
	CHECK_INT(c->kind, SWB_CALL_IND, "call through the GOT");
	CHECK(c->op_mem && !c->base && c->disp == (int64_t)(a + 6 + 0x10), "rip-relative operand made absolute");

	a = put(112, "\x64\xff\x24\x25\x28\x00\x00\x00", 8);  /* jmp *%fs:0x28 */
	c = run(sp, a);
	CHECK(c->kind == SWB_JMP_IND && c->seg == X86_REG_FS, "fs-relative operand");

	c = run(sp, put(128, "\x0f\x05", 2));
	CHECK_INT(c->kind, SWB_SYSCALL, "syscall");
	c = run(sp, put(144, "\xcd\x80", 2));
	CHECK_INT(c->kind, SWB_SYSCALL, "int 0x80");
	c = run(sp, put(160, "\x0f\x0b", 2));
	CHECK_INT(c->kind, SWB_OTHER, "ud2 is single-stepped");
	c = run(sp, put(176, "\xcc", 1));
	CHECK_INT(c->kind, SWB_OTHER, "int3 is single-stepped");
	a = put(192, "\xe2\xfe", 2);                      /* loop .-0 */
	c = run(sp, a);
	CHECK(c->kind == SWB_JCC && c->insn_id == X86_INS_LOOP && c->target == a, "loop is conditional");
	c = run(sp, put(208, "\x48\xe3\x00", 3));         /* jrcxz (with a REX prefix) */
	CHECK_INT(c->kind, SWB_JCC, "jrcxz is conditional");

	c = run(sp, 8);
	CHECK(c->kind == SWB_OTHER && c->addr == 8, "unreadable code ends the run where it starts");

	/* A run that reaches an unreadable page ends there. */
	two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(two != MAP_FAILED, "mmap");
	if (two != MAP_FAILED) {
		memset(two, 0x90, (size_t)page);
		mprotect(two + page, (size_t)page, PROT_NONE);
		c = run(sp, (uint64_t)(uintptr_t)(two + page - 300));
		CHECK(c->kind == SWB_OTHER && c->addr == (uint64_t)(uintptr_t)(two + page),
		      "nops up to an unreadable page end there");
		munmap(two, 2 * page);
	}

	/* Decoded runs are cached until invalidated (exec, new mappings). */
	a = put(256, "\xc3", 1);
	CHECK_INT(run(sp, a)->kind, SWB_RET, "ret decoded");
	put(256, "\x0f\x05", 2);
	CHECK_INT(run(sp, a)->kind, SWB_RET, "cached until invalidated");
	swb_space_invalidate(sp, a, 1);
	CHECK_INT(run(sp, a)->kind, SWB_SYSCALL, "decoded again after invalidation");
	put(256, "\xc3", 1);
	swb_space_invalidate(sp, 0, 0);
	CHECK_INT(run(sp, a)->kind, SWB_RET, "invalidate all");

	swb_space_free(sp);
	return test_done();
}
