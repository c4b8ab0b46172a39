/* test-x86-decode.c — x86_decode_common() against capstone: every
 * instruction of the code this test runs (itself, libc, ld.so and the rest it
 * has loaded) and random bytes that start like the forms it takes. Wherever
 * it decodes an instruction, capstone must decode the same one, with the same
 * fields (x86.h lists them), and the sampler must make the same of it. */
#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "x86-compare.h"
#include "x86/x86.h"

struct diff {
	csh cs;
	cs_insn *theirs, *ours;
	long decoded, taken, differ;
	char first[256];        /* the first difference */
};

/* Compare at code (size bytes); capstone's length there, 0 if it decodes nothing. */
static size_t compare(struct diff *d, const uint8_t *code, size_t size, uint64_t addr)
{
	const uint8_t *p = code;
	size_t left = size;
	uint64_t at = addr;
	bool theirs = cs_disasm_iter(d->cs, &p, &left, &at, d->theirs);
	const char *why;
	cs_insn bare;
	size_t i, n;

	d->decoded += theirs;
	if (!x86_decode_common(code, size, addr, d->ours))
		return theirs ? d->theirs->size : 0;
	d->taken++;
	bare.detail = NULL;     /* CS_OPT_DETAIL off: the same instruction */
	if (!theirs)
		why = "capstone decodes nothing";
	else if (!x86_decode_common(code, size, addr, &bare) || bare.id != d->ours->id || bare.size != d->ours->size)
		why = "without detail, another instruction";
	else
		why = x86_difference(d->cs, d->theirs, d->ours);
	if (!why)
		return theirs ? d->theirs->size : 0;
	if (!d->differ++) {
		n = (size_t)snprintf(d->first, sizeof(d->first), "%s at", why);
		for (i = 0; i < 15 && i < size && n < sizeof(d->first) - 4; i++)
			n += (size_t)snprintf(d->first + n, sizeof(d->first) - n, " %02x", code[i]);
	}
	return theirs ? d->theirs->size : 0;
}

static void report(const struct diff *d, const char *what, long least)
{
	char name[512];

	snprintf(name, sizeof(name), "x86-decode: %s: %ld of %ld instructions taken, as capstone decodes them%s%s",
		 what, d->taken, d->decoded, d->differ ? ": " : "", d->differ ? d->first : "");
	CHECK(d->differ == 0 && d->taken >= least, name);
}

/* every executable segment of the objects loaded: swept as capstone reads them */
static int sweep_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct diff *d = arg;
	const char *name = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "the test itself";
	struct diff one = { d->cs, d->theirs, d->ours, 0, 0, 0, "" };
	int i;

	(void)size;
	if (strstr(name, "linux-vdso"))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *code = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		size_t left = ph->p_filesz, len;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		while (left) {
			if (!(len = compare(&one, code, left, (uint64_t)(uintptr_t)code)))
				len = 1;   /* not code: step over it */
			code += len;
			left -= len;
		}
	}
	if (one.decoded)
		report(&one, name, one.decoded / 4);
	return 0;
}

/* Random bytes: up to four prefixes the decoder takes, then anything. */
static void random_bytes(struct diff *d, unsigned seed, long n)
{
	static const uint8_t prefixes[] = { 0x66, 0x64, 0x65, 0x48, 0x41, 0x4c, 0x40, 0x0f, 0xf3 };
	uint8_t buf[16];
	long k;
	int i, np;

	srand(seed);
	for (k = 0; k < n; k++) {
		for (i = 0; i < 16; i++)
			buf[i] = (uint8_t)rand();
		np = rand() % 5;
		for (i = 0; i < np; i++)
			buf[i] = prefixes[rand() % sizeof(prefixes)];
		compare(d, buf, sizeof(buf), 0x7f0000001000 + (uint64_t)(rand() % 4096));
	}
}

int main(void)
{
	struct diff d = { 0 };

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d.cs) != CS_ERR_OK) {
		SKIP("x86-decode", "libcapstone4 is not installed");
		return test_done();
	}
	cs_option(d.cs, CS_OPT_DETAIL, CS_OPT_ON);
	d.theirs = cs_malloc(d.cs);
	d.ours = cs_malloc(d.cs);
	dl_iterate_phdr(sweep_object, &d);
	random_bytes(&d, 1, 400000);
	report(&d, "random bytes", 50000);
	cs_free(d.theirs, 1);
	cs_free(d.ours, 1);
	cs_close(&d.cs);
	return test_done();
}
