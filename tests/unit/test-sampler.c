/* Unit tests of the software sampler's decoder: which instruction ends a
 * straight-line run, of what kind, with which target or operand, read from
 * this process's own memory as the sampler reads a tracee's; and of its
 * register arithmetic (emu.c), against what this CPU computes. */
#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sampler/emu.h"
#include "sampler/mem.h"
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

/* Instructions on rax and rbx (and their low parts) that emu.c models. */
static const struct { const char *name, *bytes; size_t n; } ops[] = {
	{ "add %rbx,%rax", "\x48\x01\xd8", 3 }, { "add %ebx,%eax", "\x01\xd8", 2 },
	{ "sub %rbx,%rax", "\x48\x29\xd8", 3 }, { "sub %ebx,%eax", "\x29\xd8", 2 },
	{ "cmp %rbx,%rax", "\x48\x39\xd8", 3 }, { "cmp %ebx,%eax", "\x39\xd8", 2 },
	{ "cmp %bl,%al", "\x38\xd8", 2 }, { "add %bl,%al", "\x00\xd8", 2 },
	{ "and %rbx,%rax", "\x48\x21\xd8", 3 }, { "or %ebx,%eax", "\x09\xd8", 2 },
	{ "xor %rbx,%rax", "\x48\x31\xd8", 3 }, { "test %rbx,%rax", "\x48\x85\xd8", 3 },
	{ "test %bl,%al", "\x84\xd8", 2 }, { "test $1,%al", "\xa8\x01", 2 },
	{ "add $5,%rax", "\x48\x83\xc0\x05", 4 }, { "sub $-128,%rax", "\x48\x83\xe8\x80", 4 },
	{ "cmp $10,%eax", "\x83\xf8\x0a", 3 }, { "cmp $0x7fffffff,%rax", "\x48\x3d\xff\xff\xff\x7f", 6 },
	{ "inc %rax", "\x48\xff\xc0", 3 }, { "dec %eax", "\xff\xc8", 2 }, { "inc %al", "\xfe\xc0", 2 },
	{ "neg %rax", "\x48\xf7\xd8", 3 }, { "neg %eax", "\xf7\xd8", 2 },
	{ "shl $3,%rax", "\x48\xc1\xe0\x03", 4 }, { "shl %eax", "\xd1\xe0", 2 },
	{ "shr %eax", "\xd1\xe8", 2 }, { "shr $7,%rax", "\x48\xc1\xe8\x07", 4 },
	{ "sar $5,%rax", "\x48\xc1\xf8\x05", 4 }, { "sar $31,%eax", "\xc1\xf8\x1f", 3 },
	{ "sar %rax", "\x48\xd1\xf8", 3 },
	{ "imul %rbx,%rax", "\x48\x0f\xaf\xc3", 4 }, { "imul $7,%ebx,%eax", "\x6b\xc3\x07", 3 },
	{ "mov %ebx,%eax", "\x89\xd8", 2 }, { "mov %bl,%al", "\x88\xd8", 2 },
	{ "movzbl %bl,%eax", "\x0f\xb6\xc3", 3 }, { "movsbq %bl,%rax", "\x48\x0f\xbe\xc3", 4 },
	{ "movslq %ebx,%rax", "\x48\x63\xc3", 3 }, { "lea 8(%rax,%rbx,4),%rax", "\x48\x8d\x44\x98\x08", 5 },
	{ "lea 8(%rax,%rbx,4),%eax", "\x8d\x44\x98\x08", 4 }, { "xor %eax,%eax", "\x31\xc0", 2 },
	{ "mov $-1,%eax", "\xb8\xff\xff\xff\xff", 5 },
	/* conditional moves and sets after a compare (two instructions) */
	{ "cmp %rbx,%rax; cmovl %rbx,%rax", "\x48\x39\xd8\x48\x0f\x4c\xc3", 7 },
	{ "cmp %ebx,%eax; cmova %ebx,%eax", "\x39\xd8\x0f\x47\xc3", 5 },
	{ "test %eax,%eax; cmovne %ebx,%eax", "\x85\xc0\x0f\x45\xc3", 5 },
	{ "cmp %rbx,%rax; setle %al", "\x48\x39\xd8\x0f\x9e\xc0", 6 },
	{ "sub %ebx,%eax; setb %al", "\x29\xd8\x0f\x92\xc0", 5 },
};

/* Run op on this CPU: rax, rbx from io[0..1] and back, the flags in io[2]. */
static void run_native(uint8_t *jit, const char *bytes, size_t n, uint64_t *io)
{
	/* push $0x202; popfq (the flags the emulator starts from); mov (%rdi),%rax; mov 8(%rdi),%rbx */
	static const char pre[] = "\x68\x02\x02\x00\x00\x9d\x48\x8b\x07\x48\x8b\x5f\x08";
	static const char post[] = "\x48\x89\x07\x48\x89\x5f\x08\x9c\x59\x48\x89\x4f\x10\xc3";
	/* mov %rax,(%rdi); mov %rbx,8(%rdi); pushfq; pop %rcx; mov %rcx,16(%rdi); ret */
	void (*fn)(uint64_t *) ;

	memcpy(jit, pre, 13);
	memcpy(jit + 13, bytes, n);
	memcpy(jit + 13 + n, post, 14);
	fn = (void (*)(uint64_t *))(uintptr_t)jit;
	/* rbx is callee-saved: keep it around the call. */
	__asm__ volatile("push %%rbx\n\tcall *%1\n\tpop %%rbx" : : "D"(io), "r"(fn) : "rax", "rcx", "memory", "cc");
}

/* The uops of the instructions in bytes (at most max); 0 when they do not decode. */
static int uops_of(csh cs, const char *bytes, size_t n, struct swb_uop *u, int max)
{
	cs_insn *in = cs_malloc(cs);
	const uint8_t *p = (const uint8_t *)bytes;
	uint64_t addr = 0x1000;
	int nr = 0;

	while (n && nr < max && cs_disasm_iter(cs, &p, &n, &addr, in))
		swb_uop_from_insn(in, &u[nr++]);
	cs_free(in, 1);
	return n ? 0 : nr;
}

static bool uop_of(csh cs, const char *bytes, size_t n, struct swb_uop *u)
{
	return uops_of(cs, bytes, n, u, 1) == 1;
}

static void test_emu(void)
{
	static const uint64_t vals[] = {
		0, 1, 2, 7, 0x7f, 0x80, 0xff, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
		0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL, ~0ULL - 1, 0x123456789abcdefULL,
		0xfffffffffffffff9ULL, 10, 11,
	};
	const size_t nv = sizeof(vals) / sizeof(vals[0]);
	uint8_t *jit = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static const struct { uint8_t f; uint64_t hw; const char *name; } flags[] = {
		{ 1, 0x1, "CF" }, { 2, 0x4, "PF" }, { 4, 0x40, "ZF" }, { 8, 0x80, "SF" }, { 16, 0x800, "OF" },
	};
	size_t i, j, k, f;
	csh cs;

	if (jit == MAP_FAILED || cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		CHECK(0, "emu: an executable page and capstone");
		return;
	}
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct swb_uop u[2];
		int bad = 0, known_rax = 0, shown = 0, nu = uops_of(cs, ops[i].bytes, ops[i].n, u, 2), m;
		char name[96];

		if (!nu) {
			CHECK(0, ops[i].name);
			continue;
		}
		for (j = 0; j < nv; j++)
			for (k = 0; k < nv; k++) {
				uint64_t io[3] = { vals[j], vals[k], 0 };
				struct user_regs_struct r;
				struct swb_emu e;

				memset(&r, 0, sizeof(r));
				r.rax = vals[j];
				r.rbx = vals[k];
				r.eflags = 0x202;
				swb_emu_from_regs(&e, &r, NULL);
				for (m = 0; m < nu; m++)
					swb_emu_apply(&e, &u[m]);
				run_native(jit, ops[i].bytes, ops[i].n, io);
				if (e.known & 1) {
					known_rax++;
					bad += e.r[0] != io[0];
				}
				bad += (e.known & 8) && e.r[3] != io[1];
				for (f = 0; f < 5; f++)
					bad += (e.fknown & flags[f].f) && !(e.flags & flags[f].f) != !(io[2] & flags[f].hw);
				if (bad && !shown++)
					printf("# %s with rax=%#llx rbx=%#llx: emu rax=%#llx flags=%#x/%#x, cpu rax=%#llx flags=%#llx\n",
					     ops[i].name, (unsigned long long)vals[j], (unsigned long long)vals[k],
					     (unsigned long long)e.r[0], e.flags, e.fknown, (unsigned long long)io[0],
					     (unsigned long long)io[2]);
			}
		snprintf(name, sizeof(name), "emu: %s as this CPU computes it", ops[i].name);
		CHECK(bad == 0, name);
		snprintf(name, sizeof(name), "emu: rax known after %s", ops[i].name);
		CHECK(known_rax == (int)(nv * nv), name);
	}
	/* An unmodelled instruction: what it writes becomes unknown. */
	{
		struct swb_uop u;
		struct user_regs_struct r = { .eflags = 0x202 };
		struct swb_emu e;

		if (uop_of(cs, "\x48\xf7\xf3", 3, &u)) {   /* div %rbx */
			swb_emu_from_regs(&e, &r, NULL);
			swb_emu_apply(&e, &u);
			CHECK(!(e.known & 1) && !(e.known & 4) && !e.fknown, "div %rbx: rax, rdx and the flags unknown");
		}
		if (uop_of(cs, "\xf2\x0f\x5e\xc1", 4, &u)) {   /* divsd %xmm1,%xmm0 */
			swb_emu_from_regs(&e, &r, NULL);
			swb_emu_apply(&e, &u);
			CHECK(e.known == 0xffff, "divsd: the general registers stay known");
		}
		if (uop_of(cs, "\xf2\x0f\x10\x00", 4, &u)) {   /* movsd (%rax),%xmm0 */
			swb_emu_from_regs(&e, &r, NULL);
			swb_emu_apply(&e, &u);
			CHECK(e.known == 0xffff, "movsd from memory: the general registers stay known");
		}
		if (uop_of(cs, "\x48\x3b\x03", 3, &u)) {   /* cmp (%rbx),%rax */
			swb_emu_from_regs(&e, &r, NULL);
			swb_emu_apply(&e, &u);
			CHECK(e.known == 0xffff && !e.fknown, "cmp with memory: registers known, flags not");
		}
		if (uop_of(cs, "\x48\x8b\x03", 3, &u)) {   /* mov (%rbx),%rax */
			swb_emu_from_regs(&e, &r, NULL);
			swb_emu_apply(&e, &u);
			CHECK(!(e.known & 1) && (e.known & 8), "a load: its destination unknown");
		}
		if (uop_of(cs, "\x48\x87\x03", 3, &u)) {   /* xchg %rax,(%rbx) */
			swb_emu_from_regs(&e, &r, NULL);
			swb_emu_apply(&e, &u);
			CHECK(!(e.known & 1) && e.fknown == 0x3f && e.nr_stores == 1 && !e.stores[0].known,
			      "xchg with memory: rax and memory unknown, the flags kept");
		}
		if (uop_of(cs, "\xf3\x48\xab", 3, &u)) {   /* rep stos */
			swb_emu_from_regs(&e, &r, NULL);
			swb_emu_apply(&e, &u);
			CHECK(!(e.known & (1u << 1)) && !(e.known & (1u << 7)), "rep stos: rcx and rdi unknown");
		}
	}
	/* Implicit writes of unmodelled instructions (capstone's access lists),
	 * and modelled ones whose memory operand the planner cannot read
	 * (test-emu-exact.c checks what they compute). */
	{
		static const struct { const char *name, *bytes; size_t n; uint16_t must; } imp[] = {
			{ "cpuid", "\x0f\xa2", 2, 0xf }, { "rdtsc", "\x0f\x31", 2, 1 << 0 | 1 << 2 },
			{ "mulq (%rbx)", "\x48\xf7\x23", 3, 1 << 0 | 1 << 2 }, { "imulq (%rbx)", "\x48\xf7\x2b", 3, 1 << 0 | 1 << 2 },
			{ "lodsb", "\xac", 1, 1 << 0 | 1 << 6 },
			{ "cmpxchg %rcx,(%rbx)", "\x48\x0f\xb1\x0b", 4, 1 << 0 }, { "leave", "\xc9", 1, 1 << 4 | 1 << 5 },
			{ "lahf", "\x9f", 1, 1 << 0 }, { "rdrand %rax", "\x48\x0f\xc7\xf0", 4, 1 << 0 },
			{ "bswap %rax", "\x48\x0f\xc8", 3, 1 << 0 }, { "rcl $3,%rax", "\x48\xc1\xd0\x03", 4, 1 << 0 },
			{ "adc (%rbx),%rax", "\x48\x13\x03", 3, 1 << 0 }, { "movq %xmm0,%rax", "\x66\x48\x0f\x7e\xc0", 5, 1 << 0 },
			{ "cvttsd2si %xmm0,%eax", "\xf2\x0f\x2c\xc0", 4, 1 << 0 }, { "xadd %rax,(%rbx)", "\x48\x0f\xc1\x03", 4, 1 << 0 },
			{ "tzcnt (%rbx),%rax", "\xf3\x48\x0f\xbc\x03", 5, 1 << 0 },
		};
		struct user_regs_struct r = { .eflags = 0x202 };
		struct swb_uop u;
		struct swb_emu e;
		char name[96];

		for (i = 0; i < sizeof(imp) / sizeof(imp[0]); i++) {
			bool ok = uop_of(cs, imp[i].bytes, imp[i].n, &u);

			if (ok) {
				swb_emu_from_regs(&e, &r, NULL);
				swb_emu_apply(&e, &u);
			}
			snprintf(name, sizeof(name), "emu: %s makes what it writes and the flags unknown", imp[i].name);
			CHECK(ok && !(e.known & imp[i].must) && !e.fknown, name);
		}
	}
	cs_close(&cs);
	munmap(jit, 4096);
}

/* Run the instructions in bytes on e (emulated), from regs r. */
static bool emulate(csh cs, const char *bytes, size_t n, struct swb_emu *e)
{
	struct swb_uop u[8];
	int nu = uops_of(cs, bytes, n, u, 8), i;

	for (i = 0; i < nu; i++)
		swb_emu_apply(e, &u[i]);
	return nu > 0;
}

/* Memory as the planner reads it: this process's own, its stores followed,
 * untrusted mappings refused. This process is not traced, so the kernel does
 * not say where its rseq area is: only read-only private memory is read. */
static void test_emu_memory(void)
{
	static uint64_t writable = 5;
	uint64_t *cell = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct swb_mem *mem = swb_mem_new();
	struct user_regs_struct r = { .eflags = 0x202 };
	struct swb_emu e;
	uint64_t v = 0;
	int fd = memfd_create("test-sampler", 0);
	uint64_t *shared = MAP_FAILED;
	csh cs;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) {
		CHECK(0, "emu memory: capstone");
		return;
	}
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	if (cell == MAP_FAILED) {
		CHECK(0, "emu memory: a page");
		return;
	}
	cell[0] = 0x1122334455667788ULL;
	cell[1] = 42;
	cell[2] = 7;
	mprotect(cell, 4096, PROT_READ);
	swb_mem_begin(mem, getpid());
	r.rbx = (uint64_t)(uintptr_t)cell;

	swb_emu_from_regs(&e, &r, mem);
	emulate(cs, "\x48\x8b\x03", 3, &e);                 /* mov (%rbx),%rax */
	CHECK((e.known & 1) && e.r[0] == cell[0], "emu memory: a load reads private memory");
	emulate(cs, "\x0f\xb7\x4b\x02", 4, &e);             /* movzwl 2(%rbx),%ecx */
	CHECK((e.known & 2) && e.r[1] == 0x5566, "emu memory: movzwl of the bytes at +2");
	emulate(cs, "\x48\x83\x7b\x08\x2a\x0f\x94\xc2", 8, &e); /* cmpq $42,8(%rbx); sete %dl */
	CHECK((e.known & 4) && (e.r[2] & 0xff) == 1, "emu memory: cmp with memory sets the flags");

	swb_emu_from_regs(&e, &r, mem);
	emulate(cs, "\x48\xc7\x43\x10\x05\x00\x00\x00\x48\x8b\x53\x10", 12, &e); /* movq $5,16(%rbx); mov 16(%rbx),%rdx */
	CHECK((e.known & 4) && e.r[2] == 5 && cell[2] == 7, "emu memory: a store is read back, memory untouched");
	emulate(cs, "\x48\x83\x43\x10\x03\x48\x8b\x53\x10", 9, &e); /* addq $3,16(%rbx); mov 16(%rbx),%rdx */
	CHECK((e.known & 4) && e.r[2] == 8, "emu memory: read-modify-write on memory");
	emulate(cs, "\x8b\x53\x14", 3, &e);                 /* mov 20(%rbx),%edx: the stored qword's high half */
	CHECK((e.known & 4) && e.r[2] == 0, "emu memory: part of a stored value");
	emulate(cs, "\x0f\x11\x43\x08\x48\x8b\x53\x10", 8, &e); /* movups %xmm0,8(%rbx); mov 16(%rbx),%rdx */
	CHECK(!(e.known & 4) && !e.mem_lost, "emu memory: a vector store makes its bytes unknown");
	emulate(cs, "\x48\x8b\x0b", 3, &e);                 /* mov (%rbx),%rcx */
	CHECK((e.known & 2) && e.r[1] == cell[0], "emu memory: bytes outside it stay known");
	emulate(cs, "\x48\x89\x02\x48\x8b\x0b", 6, &e);     /* mov %rax,(%rdx) (unknown address); mov (%rbx),%rcx */
	CHECK(e.mem_lost && !(e.known & 2), "emu memory: a store to an unknown address loses memory");

	swb_emu_from_regs(&e, &r, mem);
	r.rsp = e.r[4] = (uint64_t)(uintptr_t)&cell[3];
	emulate(cs, "\x53\x58", 2, &e);                     /* push %rbx; pop %rax */
	CHECK((e.known & 1) && e.r[0] == r.rbx && e.r[4] == r.rsp, "emu memory: push then pop");
	{
		struct swb_ctl call = { .kind = SWB_CALL, .next = 0x1234 }, ret = { .kind = SWB_RET };
		uint64_t a = 0;

		swb_emu_ctl(&e, &call);
		CHECK(swb_emu_ctl_addr(&e, &ret, &a) && swb_emu_load(&e, a, 8, &v) && v == 0x1234,
		      "emu memory: a return goes where the call said");
	}

	if (fd >= 0 && ftruncate(fd, 4096) == 0)
		shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (shared != MAP_FAILED) {
		swb_mem_begin(mem, getpid());
		CHECK(!swb_mem_read(mem, (uint64_t)(uintptr_t)shared, 8, &v), "emu memory: a shared mapping is not read");
		munmap(shared, 4096);
	}
	CHECK(swb_mem_read(mem, (uint64_t)(uintptr_t)&cell[1], 8, &v) && v == 42, "emu memory: swb_mem_read");
	CHECK(!swb_mem_read(mem, (uint64_t)(uintptr_t)&writable, 8, &v),
	      "emu memory: writable memory is not read where the rseq area is unknown");
	swb_emu_from_regs(&e, &r, NULL);
	emulate(cs, "\x48\x8b\x03", 3, &e);
	CHECK(!(e.known & 1), "emu memory: none read without a memory view");
	if (fd >= 0)
		close(fd);
	swb_mem_free(mem);
	munmap(cell, 4096);
	cs_close(&cs);
}

int main(void)
{
	struct swb_space *sp = swb_space_new();
	const struct swb_ctl *c;
	uint64_t a;
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *two;
	int i;

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
	CHECK_INT(run(sp, a)->kind, SWB_RET, "invalidation waits for the next window");
	swb_space_settle(sp);
	CHECK_INT(run(sp, a)->kind, SWB_SYSCALL, "decoded again after invalidation");
	put(256, "\xc3", 1);
	swb_space_invalidate(sp, 0, 0);
	swb_space_settle(sp);
	CHECK_INT(run(sp, a)->kind, SWB_RET, "invalidate all");
	/* more ranges than are kept apart: the nearest grows, none is forgotten */
	put(256, "\x0f\x05", 2);
	for (i = 1; i <= 12; i++)
		swb_space_invalidate(sp, a + (uint64_t)i * 0x100000, 16);
	swb_space_invalidate(sp, a, 1);
	for (i = 13; i <= 20; i++)
		swb_space_invalidate(sp, a + (uint64_t)i * 0x100000, 16);
	swb_space_settle(sp);
	CHECK_INT(run(sp, a)->kind, SWB_SYSCALL, "a range noted among 20 others is dropped");

	/* A page of code that only a new mapping can change (read-only,
	 * private) is copied once; a writable one is read for each new run. */
	swb_mem_begin(swb_space_mem(sp), getpid());
	two = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(two != MAP_FAILED, "mmap");
	if (two != MAP_FAILED) {
		memset(two, 0xc3, (size_t)page);
		CHECK(mprotect(two, (size_t)page, PROT_READ | PROT_EXEC) == 0, "mprotect r-x");
		CHECK_INT(run(sp, (uint64_t)(uintptr_t)two)->kind, SWB_RET, "code page: ret");
		mprotect(two, (size_t)page, PROT_READ | PROT_WRITE);
		memcpy(two + 64, "\x0f\x05", 2);
		mprotect(two, (size_t)page, PROT_READ | PROT_EXEC);
		CHECK_INT(run(sp, (uint64_t)(uintptr_t)(two + 64))->kind, SWB_RET,
			  "code page: copied once, until its mapping changes");
		swb_space_invalidate(sp, (uint64_t)(uintptr_t)two, (uint64_t)page);   /* mprotect's MMAP2 */
		swb_space_settle(sp);
		CHECK_INT(run(sp, (uint64_t)(uintptr_t)(two + 64))->kind, SWB_SYSCALL,
			  "code page: read again after its mapping changed");
		CHECK(mprotect(two, (size_t)page, PROT_READ | PROT_WRITE | PROT_EXEC) == 0, "mprotect rwx");
		swb_space_invalidate(sp, (uint64_t)(uintptr_t)two, (uint64_t)page);
		swb_space_settle(sp);
		CHECK_INT(run(sp, (uint64_t)(uintptr_t)(two + 128))->kind, SWB_RET, "writable code page: ret");
		memcpy(two + 192, "\x0f\x05", 2);
		CHECK_INT(run(sp, (uint64_t)(uintptr_t)(two + 192))->kind, SWB_SYSCALL,
			  "writable code page: read for each new run");
		munmap(two, (size_t)page);
	}

	swb_space_free(sp);
	test_emu();
	test_emu_memory();
	return test_done();
}
