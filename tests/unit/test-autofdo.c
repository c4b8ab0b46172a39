/* test-autofdo.c — LBR range/branch counting (also across calls into other
 * DSOs), LLVM discriminator decoding, and profiles built from hand-made
 * branch stacks over programs compiled now, in both writers. */
#define _GNU_SOURCE   /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autofdo/afdo-internal.h"
#include "tap.h"
#include "util/util.h"

#define SRC "tests/progs/autofdo-inline.c"
#define DISC_SRC "tests/progs/autofdo-disc.c"

static struct afdo_lbr in(uint64_t from, uint64_t to)
{
	return (struct afdo_lbr){ .from = from, .to = to, .from_in = true, .to_in = true };
}

static uint64_t count_of(const struct hmap *m, uint64_t a, uint64_t b)
{
	size_t e = hmap_find(m, &(struct afdo_pair){ a, b });
	return e == HMAP_NONE ? 0 : *(uint64_t *)hmap_val(m, e);
}

static uint64_t range_count(const struct afdo_counts *c, uint64_t b, uint64_t e)
{
	return count_of(afdo_counts_ranges(c), b, e);
}

static uint64_t branch_count(const struct afdo_counts *c, uint64_t f, uint64_t t)
{
	return count_of(afdo_counts_branches(c), f, t);
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
	CHECK(hmap_find(afdo_counts_ranges(c), &(struct afdo_pair){ 0x100, 0x150 }) == HMAP_NONE,
	      "no range before the newest entry");

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
	CHECK_INT(branch_count(c, 0x500, 0x505), 0, "no branch from the call out to the return in");

	/* an incoming transition without its outgoing one (an interrupt, a
	 * filtered kernel entry): the code on both sides of it still ran */
	s[0] = in(0x720, 0x700);
	s[1] = (struct afdo_lbr){ .to = 0x705, .to_in = true };
	s[2] = in(0x6f0, 0x6e0);
	s[3] = in(0x6d0, 0x6c0);
	afdo_counts_add_stack(c, s, 4, 1);
	CHECK_INT(range_count(c, 0x705, 0x720), 1, "range after an unpaired incoming entry");
	CHECK_INT(range_count(c, 0x6c0, 0x6f0), 1, "ranges before an unpaired incoming entry");
	CHECK_INT(range_count(c, 0x6e0, 0x705), 0, "no range across the external entry");

	/* a stack taken inside a library: newest entries there, then the call
	 * into it; the code before the call ran (llvm-profgen 14 dropped it) */
	s[0] = (struct afdo_lbr){ 0 };                                              /* in the library */
	s[1] = (struct afdo_lbr){ .from = 0x9a0, .from_in = true };                 /* call out */
	s[2] = in(0x990, 0x980);
	s[3] = in(0x970, 0x960);
	afdo_counts_add_stack(c, s, 4, 1);
	CHECK_INT(range_count(c, 0x980, 0x9a0), 1, "range before a leading call into a library");
	CHECK_INT(range_count(c, 0x960, 0x990), 1, "older ranges of that stack");

	/* a stack that starts inside a library: the oldest entry returns from it;
	 * the code after the return ran */
	s[0] = in(0xa40, 0xa00);
	s[1] = (struct afdo_lbr){ .to = 0xa10, .to_in = true };                    /* return in */
	s[2] = (struct afdo_lbr){ 0 };                                              /* in the library */
	afdo_counts_add_stack(c, s, 3, 1);
	CHECK_INT(range_count(c, 0xa10, 0xa40), 1, "range after a trailing return from a library");

	/* wrong-path speculative entries are skipped */
	s[0] = in(0x820, 0x800);
	s[1] = in(0x810, 0x900);
	s[1].spec_wrong = true;
	s[2] = in(0x7f0, 0x7e0);
	afdo_counts_add_stack(c, s, 3, 1);
	CHECK_INT(range_count(c, 0x7e0, 0x820), 1, "range skips the wrong-path entry");
	CHECK_INT(branch_count(c, 0x810, 0x900), 0, "wrong-path branch not counted");
	CHECK_INT(afdo_counts_nr_stacks(c), 11, "stacks counted with their weights");
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
/* Compile src with cc (-O2 -g) into dir/name: the binary's path, or NULL when the compiler fails. */
static char *compile_in(const char *dir, const char *name, const char *cc, const char *src)
{
	char *bin = xasprintf("%s/%s", dir, name), *cmd = xasprintf("%s -O2 -g -o %s %s", cc, bin, src);
	int rc = system(cmd);

	free(cmd);
	if (rc == 0)
		return bin;
	free(bin);
	return NULL;
}

static void remove_dir(const char *dir)
{
	char *cmd = xasprintf("rm -rf %s", dir);

	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	free(cmd);
}

static void test_profile(void)
{
	char dir[4096], *bin, *text = NULL, *gcov;
	struct afdo_binary *b;
	struct afdo_counts *c;
	struct afdo_profile *p;
	struct di_range fr[4];
	struct afdo_lbr s[2];
	uint64_t work = 0, addr;
	FILE *fp;
	size_t len = 0;

	if (!test_mkdtemp(dir, sizeof(dir), "ocrec-afdo.XXXXXX"))
		return;
	bin = compile_in(dir, "inline", "cc", SRC);
	if (!bin) {
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
	p = afdo_build(b, c, &(struct afdo_build_opts){ AFDO_LLVM, AFDO_LINES_FLOW, false });
	CHECK(afdo_profile_nr_functions(p) >= 1, "profile has functions");
	fp = open_memstream(&text, &len);
	CHECK_INT(afdo_write_llvm_text(p, fp), 0, "LLVM text written");
	fclose(fp);
	CHECK(strstr(text, "work:") == text, "work is the hottest function");
	CHECK(strstr(text, ":10\n") != NULL, "head count 10 from the calls");
	CHECK(strstr(text, " scale:") != NULL, "inlined scale() is a nested callsite");
	afdo_profile_free(p);

	p = afdo_build(b, c, &(struct afdo_build_opts){ AFDO_GCC, AFDO_LINES_FLOW, false });
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
	remove_dir(dir);
	free(bin);
}

/* --- a reader for the parts of an AutoFDO gcov file the tests look at --- */
struct gcov_reader {
	const unsigned char *p, *end;
	bool bad;
};

static uint32_t gr_u32(struct gcov_reader *r)
{
	uint32_t v;
	if (r->end - r->p < 4) {
		r->bad = true;
		return 0;
	}
	v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 | (uint32_t)r->p[3] << 24;
	r->p += 4;
	return v;
}

static uint64_t gr_counter(struct gcov_reader *r)
{
	uint64_t lo = gr_u32(r);
	return lo | (uint64_t)gr_u32(r) << 32;
}

/* The pos counts of a function instance with line offset off, in file order:
 * offsets[] and counts[] get at most max of them; returns how many. Nested
 * instances are read over. */
static int gr_instance(struct gcov_reader *r, uint32_t name, uint32_t off, uint32_t *offsets,
		       uint64_t *counts, int max)
{
	uint32_t this_name = gr_u32(r), npos = gr_u32(r), ncs = gr_u32(r), i, t;
	int n = 0;

	for (i = 0; i < npos && !r->bad; i++) {
		uint32_t o = gr_u32(r), nt = gr_u32(r);
		uint64_t count = gr_counter(r);
		if (this_name == name && o >> 16 == off && n < max) {
			offsets[n] = o;
			counts[n++] = count;
		}
		for (t = 0; t < nt && !r->bad; t++) {
			gr_u32(r);
			gr_counter(r);
			gr_counter(r);
		}
	}
	for (i = 0; i < ncs && !r->bad; i++) {
		gr_u32(r);
		gr_instance(r, 0, 0, NULL, NULL, 0);
	}
	return n;
}

/* The pos counts of top-level function fname at line offset off. */
static int gcov_line_counts(const char *buf, size_t len, const char *fname, uint32_t off,
			    uint32_t *offsets, uint64_t *counts, int max)
{
	struct gcov_reader r = { (const unsigned char *)buf, (const unsigned char *)buf + len, false };
	uint32_t nstr, nfn, i, name = 0;
	int n = 0;

	for (i = 0; i < 5; i++)   /* magic, version, 0, string tag, length */
		gr_u32(&r);
	nstr = gr_u32(&r);
	for (i = 0; i < nstr && !r.bad; i++) {
		uint32_t l = gr_u32(&r);
		if ((size_t)(r.end - r.p) < l) {
			r.bad = true;
			break;
		}
		if (l == strlen(fname) + 1 && !memcmp(r.p, fname, l))
			name = i;
		r.p += l;
	}
	gr_u32(&r);
	gr_u32(&r);
	nfn = gr_u32(&r);
	for (i = 0; i < nfn && !r.bad; i++) {
		gr_counter(&r);
		n += gr_instance(&r, name, off, offsets + n, counts + n, max - n);
	}
	return r.bad || !name ? -1 : n;
}

/* gcc 12 masks the discriminator off pos-count offsets and keeps the last
 * count of a line: the line's largest count must come last. */
static void test_gcc_line_max(void)
{
	char dir[4096], *bin = NULL, *buf = NULL;
	unsigned line = marker_line(DISC_SRC, "@disc_line");
	struct afdo_binary *b = NULL;
	struct afdo_counts *c = NULL;
	struct afdo_profile *p = NULL;
	struct di_range fr[4];
	struct di_location loc;
	uint64_t ip, lo_ip = 0, hi_ip = 0, counts[16];
	uint32_t offsets[16];
	unsigned size, lo_disc = ~0u, hi_disc = 0, decl = 0;
	size_t len = 0;
	FILE *fp;
	int n;

	if (!test_mkdtemp(dir, sizeof(dir), "ocrec-afdo.XXXXXX"))
		return;
	bin = compile_in(dir, "disc", "gcc", DISC_SRC);
	if (!bin) {
		SKIP("gcc line max", "no gcc");
		goto out;
	}
	b = afdo_binary_open(bin);
	CHECK(b != NULL, "discriminator program opens");
	if (!b)
		goto out;
	/* count(): the lowest and the highest discriminator of the marked line */
	for (ip = 0x1000; ip < 0x10000 && !decl; ip++) {
		const char *fn = di_function_at_entry(afdo_binary_debuginfo(b), ip);
		if (fn && !strcmp(fn, "count") && di_function_ranges(afdo_binary_debuginfo(b), ip, fr, 4) >= 1 &&
		    di_lookup(afdo_binary_debuginfo(b), ip, &loc) == 0)
			decl = loc.frames[loc.nr_frames - 1].decl_line;
	}
	for (ip = fr[0].lo; decl && afdo_insn_at_or_after(b, ip, &ip, &size) && ip < fr[0].hi; ip += size) {
		if (di_lookup(afdo_binary_debuginfo(b), ip, &loc) != 0 || loc.nr_frames != 1 ||
		    loc.frames[0].line != line)
			continue;
		if (loc.frames[0].discriminator < lo_disc) {
			lo_disc = loc.frames[0].discriminator;
			lo_ip = ip;
		}
		if (loc.frames[0].discriminator > hi_disc) {
			hi_disc = loc.frames[0].discriminator;
			hi_ip = ip;
		}
	}
	if (!decl || !lo_ip || hi_disc <= lo_disc) {
		SKIP("gcc line max", "this gcc gives the marked line no two discriminators");
		goto out;
	}
	/* one-instruction ranges: the low discriminator 10 times, the high one 3 */
	c = afdo_counts_new();
	{
		struct afdo_lbr s[2] = { in(lo_ip, lo_ip), in(lo_ip, lo_ip) };
		afdo_counts_add_stack(c, s, 2, 10);
		s[0] = in(hi_ip, hi_ip);
		s[1] = in(hi_ip, hi_ip);
		afdo_counts_add_stack(c, s, 2, 3);
	}
	p = afdo_build(b, c, &(struct afdo_build_opts){ AFDO_GCC, AFDO_LINES_MAX, false });
	fp = open_memstream(&buf, &len);
	CHECK_INT(afdo_write_gcc(p, fp), 0, "gcov written");
	fclose(fp);
	n = gcov_line_counts(buf, len, "count", line - decl, offsets, counts, 16);
	CHECK(n >= 2, "the marked line has several pos counts");
	if (n >= 2) {
		CHECK_INT(counts[n - 1], 10, "the line's largest count is its last pos count");
		CHECK_INT(offsets[n - 1] & 0xffff, lo_disc, "and keeps its discriminator");
	}
	/* the flow of control: the high discriminator's 3 came from the low
	 * one's code, so the line ran 10 times, not 13 */
	afdo_profile_free(p);
	free(buf);
	buf = NULL;
	afdo_counts_add_branch(c, lo_ip, hi_ip, 3);
	p = afdo_build(b, c, &(struct afdo_build_opts){ AFDO_GCC, AFDO_LINES_FLOW, false });
	fp = open_memstream(&buf, &len);
	CHECK_INT(afdo_write_gcc(p, fp), 0, "gcov written (flow)");
	fclose(fp);
	n = gcov_line_counts(buf, len, "count", line - decl, offsets, counts, 16);
	CHECK(n >= 1 && counts[n - 1] == 10, "flow: a line entered once and continued counts once");
out:
	afdo_profile_free(p);
	afdo_counts_free(c);
	afdo_binary_close(b);
	free(buf);
	remove_dir(dir);
	free(bin);
}

int main(void)
{
	test_counting();
	test_discriminators();
	test_profile();
	test_gcc_line_max();
	CHECK(afdo_binary_open("/nonexistent/prog") == NULL && strstr(oc_errmsg(), "not found"),
	      "missing binary: not found");
	return test_done();
}
