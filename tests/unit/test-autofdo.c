/* test-autofdo.c — LBR range/branch counting (llvm-profgen 14's stitching of
 * calls through other DSOs), LLVM discriminator decoding, and profiles built
 * from hand-made branch stacks over a program compiled now, in both writers. */
#define _GNU_SOURCE   /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autofdo/afdo-internal.h"
#include "tap.h"
#include "util/util.h"

#define SRC "tests/progs/autofdo-inline.c"

static struct afdo_lbr in(uint64_t from, uint64_t to)
{
	return (struct afdo_lbr){ .from = from, .to = to, .from_in = true, .to_in = true };
}

static uint64_t range_count(const struct afdo_counts *c, uint64_t b, uint64_t e)
{
	uint64_t *v = afdo_map_find(afdo_counts_ranges(c), b, e);
	return v ? *v : 0;
}

static uint64_t branch_count(const struct afdo_counts *c, uint64_t f, uint64_t t)
{
	uint64_t *v = afdo_map_find(afdo_counts_branches(c), f, t);
	return v ? *v : 0;
}

static void test_counting(void)
{
	struct afdo_counts *c = afdo_counts_new();
	struct afdo_lbr s[4];

	/* newest first: 0x150->0x100 happened after 0x120->0x140 */
	s[0] = in(0x150, 0x100);
	s[1] = in(0x120, 0x140);
	s[2] = in(0x130, 0x110);
	afdo_counts_add_stack(c, s, 3, 1);
	afdo_counts_add_stack(c, s, 3, 1);
	afdo_counts_add_stack(c, s, 3, 3);
	CHECK_INT(range_count(c, 0x140, 0x150), 5, "range between consecutive entries");
	CHECK_INT(range_count(c, 0x110, 0x120), 5, "second range, weights add");
	CHECK_INT(branch_count(c, 0x150, 0x100), 5, "branch counted");
	CHECK_INT(afdo_map_find(afdo_counts_ranges(c), 0x100, 0x150) == NULL, 1, "no range before the newest entry");

	/* reversed range (older target above newer source) is dropped */
	s[0] = in(0x200, 0x300);
	s[1] = in(0x400, 0x250);
	afdo_counts_add_stack(c, s, 2, 1);
	CHECK_INT(range_count(c, 0x250, 0x200), 0, "reversed range dropped");

	/* a call into a library and back: outgoing 0x500->ext, incoming ext->0x505 */
	s[0] = in(0x520, 0x600);
	s[1] = (struct afdo_lbr){ .from = 0, .to = 0x505, .to_in = true };      /* incoming */
	s[2] = (struct afdo_lbr){ .from = 0x500, .from_in = true };               /* outgoing */
	s[3] = in(0x4f0, 0x4e0);
	afdo_counts_add_stack(c, s, 4, 1);
	CHECK_INT(range_count(c, 0x505, 0x520), 1, "range after the return from the library");
	CHECK_INT(range_count(c, 0x4e0, 0x500), 1, "range before the call into the library");
	CHECK_INT(branch_count(c, 0x500, 0x505), 0, "the stitched branch is not a real branch");

	/* an incoming transition without its outgoing one ends the stack */
	s[0] = in(0x720, 0x700);
	s[1] = (struct afdo_lbr){ .to = 0x705, .to_in = true };
	s[2] = in(0x6f0, 0x6e0);
	s[3] = in(0x6d0, 0x6c0);
	afdo_counts_add_stack(c, s, 4, 1);
	CHECK_INT(range_count(c, 0x6e0, 0x6f0), 0, "unpaired incoming stops the stack");

	/* wrong-path speculative entries are skipped */
	s[0] = in(0x820, 0x800);
	s[1] = in(0x810, 0x900);
	s[1].spec_wrong = true;
	s[2] = in(0x7f0, 0x7e0);
	afdo_counts_add_stack(c, s, 3, 1);
	CHECK_INT(range_count(c, 0x7e0, 0x820), 1, "range skips the wrong-path entry");
	CHECK_INT(branch_count(c, 0x810, 0x900), 0, "wrong-path branch not counted");
	CHECK_INT(afdo_counts_nr_stacks(c), 9, "stacks counted with their weights");
	afdo_counts_free(c);
}

static void test_discriminators(void)
{
	CHECK_INT(afdo_llvm_base_discriminator(0), 0, "base of 0");
	CHECK_INT(afdo_llvm_base_discriminator(2), 1, "base of 2 is 1 (gcc's raw 2 reads as .1)");
	CHECK_INT(afdo_llvm_base_discriminator(3), 0, "odd: no base component");
	CHECK_INT(afdo_llvm_base_discriminator(0x3e), 31, "largest short base");
	CHECK_INT(afdo_llvm_duplication_factor(0), 1, "no duplication factor");
	CHECK_INT(afdo_llvm_duplication_factor(4u << 7), 2, "duplication factor 2 after base 0");
}

/* Build a profile from stacks over a real binary and check both writers. */
static void test_profile(void)
{
	char dir[] = "/tmp/ocrec-afdo.XXXXXX", *bin, *cmd, *text = NULL, *gcov;
	struct afdo_binary *b;
	struct afdo_counts *c;
	struct afdo_profile *p;
	struct di_range fr[4];
	struct afdo_lbr s[2];
	uint64_t work = 0, addr;
	FILE *fp;
	size_t len = 0;

	if (!mkdtemp(dir))
		return;
	bin = xasprintf("%s/inline", dir);
	cmd = xasprintf("cc -O2 -g -o %s " SRC, bin);
	if (system(cmd) != 0) {
		SKIP("profile", "no C compiler");
		goto out;
	}
	b = afdo_binary_open(bin);
	CHECK(b && afdo_binary_has_debuginfo(b), "binary opens with DWARF");
	if (!b)
		goto out;
	/* work()'s entry and code range from DWARF */
	for (addr = 0x1000; addr < 0x10000 && !work; addr++) {
		const char *n = di_function_at_entry(afdo_binary_debuginfo(b), addr);
		if (n && !strcmp(n, "work"))
			work = addr;
	}
	CHECK(work != 0, "work() entry found");
	CHECK_INT(di_function_ranges(afdo_binary_debuginfo(b), work, fr, 4) >= 1, 1, "work() has a range");
	c = afdo_counts_new();
	/* 10 times: a call into work(), then straight-line code to its last byte */
	s[0] = in(fr[0].hi - 1, fr[0].lo);
	s[1] = in(fr[0].lo - 1, work);
	for (int i = 0; i < 10; i++)
		afdo_counts_add_stack(c, s, 2, 1);
	p = afdo_build(b, c, AFDO_LLVM);
	CHECK(afdo_profile_nr_functions(p) >= 1, "profile has functions");
	fp = open_memstream(&text, &len);
	CHECK_INT(afdo_write_llvm_text(p, fp), 0, "LLVM text written");
	fclose(fp);
	CHECK(strstr(text, "work:") == text, "work is the hottest function");
	CHECK(strstr(text, ":10\n") != NULL, "head count 10 from the calls");
	CHECK(strstr(text, " scale:") != NULL, "inlined scale() is a nested callsite");
	afdo_profile_free(p);

	p = afdo_build(b, c, AFDO_GCC);
	gcov = xasprintf("%s/p.gcov", dir);
	fp = fopen(gcov, "wb");
	CHECK_INT(afdo_write_gcc(p, fp), 0, "gcov written");
	fclose(fp);
	free(text);
	text = read_file(gcov, &len);
	CHECK(text && len > 32 && !memcmp(text, "adcg", 4) && text[4] == 2, "gcov magic and version 2");
	/* GCC 12 strings: byte length with the NUL, then the bytes */
	CHECK(text && memmem(text, len, "\x05\0\0\0work\0", 9) != NULL, "byte-length string for work");
	afdo_profile_free(p);
	afdo_counts_free(c);
	afdo_binary_close(b);
	free(gcov);
out:
	free(text);
	free(cmd);
	cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	free(cmd);
	free(bin);
}

int main(void)
{
	test_counting();
	test_discriminators();
	test_profile();
	CHECK(afdo_binary_open("/nonexistent/prog") == NULL && strstr(oc_errmsg(), "not found"),
	      "missing binary: not found");
	return test_done();
}
