/* fuzz-elf.c — the ELF files ocrec symbolizes (a profiled binary, a library
 * named in a perf.data, autofdo's and bolt's --binary): malformed ELF and
 * DWARF. libelf and libdw parse them; what they return drives ocrec's symbol
 * table and its demangled names, its line and inline tables, autofdo's
 * disassembly and its profile builder, and bolt's model of the binary (its
 * .eh_frame, .gcc_except_table, relocations, PLT and jump tables) and its
 * profiles, and none of that may crash, hang or leak (docs/fuzzing.md lists
 * what elfutils itself does with such files). */
#include <stdio.h>
#include <stdlib.h>

#include "autofdo/afdo-internal.h"
#include "bolt/bolt.h"
#include "common.h"
#include "symbols/debuginfo.h"
#include "symbols/symbols.h"
#include "util/util.h"

#define MAX_ADDRS 64


/* The addresses worth asking about: symbol starts and middles, load segments. */
static size_t addresses(const struct dso *d, uint64_t *a)
{
	size_t n = 0, i;

	for (i = 0; i < d->nr_syms && n + 2 <= MAX_ADDRS / 2; i++) {
		a[n++] = d->syms[i].start;
		a[n++] = d->syms[i].start + d->syms[i].size / 2;
	}
	for (i = 0; i < d->nr_loads && n + 2 <= MAX_ADDRS; i++) {
		a[n++] = d->loads[i].vaddr;
		a[n++] = d->loads[i].vaddr + d->loads[i].filesz / 2;
	}
	return n;
}

static void symbols(const char *path, uint64_t *a, size_t *na)
{
	struct dso *d = dso_open_file(path);
	struct di_location loc;
	struct di_range ranges[8];
	size_t i;

	*na = 0;
	if (!d)
		return;
	*na = addresses(d, a);
	for (i = 0; i < *na; i++) {
		const struct symbol *sym = dso_find_symbol(d, a[i]);
		/* the names as views print them: demangled (libiberty) and as they are */
		if (sym && (!sym_name(d, sym, true) || !sym_name(d, sym, false)))
			fuzz_fail("a symbol without a name");
		if (dso_debuginfo(d)) {
			di_lookup(d->di, a[i], &loc);
			di_function_ranges(d->di, a[i], ranges, (int)ARRAY_SIZE(ranges));
			di_function_at_entry(d->di, a[i]);
		}
	}
	di_producer(d->di);
	dso_free(d);
}

/* autofdo on the same file: instructions at the addresses, and a profile
 * from branches between them. */
static void autofdo(const char *path, const uint64_t *a, size_t na)
{
	struct afdo_binary *b = afdo_binary_open(path);
	struct afdo_counts *c;
	struct afdo_lbr lbr[MAX_ADDRS];
	enum afdo_flavor flavor;
	size_t i, n = 0;

	if (!b)
		return;
	for (i = 0; i < na; i++) {
		uint64_t insn;
		unsigned size;
		afdo_is_code(b, a[i]);
		if (afdo_insn_at_or_after(b, a[i], &insn, &size) && n < ARRAY_SIZE(lbr))
			lbr[n++] = (struct afdo_lbr){ insn, insn + size, true, true, false };
	}
	/* each entry's target runs to the next one's source: ranges in the code */
	for (i = 0; i + 1 < n; i++)
		lbr[i].to = lbr[i + 1].from;
	c = afdo_counts_new();
	if (n)
		afdo_counts_add_stack(c, lbr, n, 3);
	for (flavor = AFDO_LLVM; flavor <= AFDO_GCC; flavor++) {
		struct afdo_profile *p = afdo_build(b, c, &(struct afdo_build_opts){ .flavor = flavor });
		if (p) {
			if (flavor == AFDO_LLVM) {
				afdo_write_llvm_text(p, fuzz_devnull());
				afdo_write_llvm_ext(p, fuzz_devnull());
			} else {
				afdo_write_gcc(p, fuzz_devnull());
			}
			afdo_profile_free(p);
		}
	}
	afdo_counts_free(c);
	afdo_binary_close(b);
}

/* bolt on the same file: its functions and blocks, and the three profiles
 * of branches between the addresses. */
static void bolt(const char *path, const uint64_t *a, size_t na)
{
	struct bolt_binary *b = bolt_binary_open(path, NULL);
	struct bolt_branch br[MAX_ADDRS];
	struct bolt_profile *p;
	size_t i;

	if (!b)
		return;
	for (i = 0; i < na; i++)
		br[i] = (struct bolt_branch){ a[i], a[(i + 1) % na], true, i % 3 != 0, i % 2, true };
	p = bolt_profile_new(b);
	if (na)
		bolt_profile_add_stack(p, br, na);
	bolt_write_preaggregated(p, fuzz_devnull());
	bolt_write_fdata(p, fuzz_devnull());
	bolt_profile_free(p);
	p = bolt_profile_new(b);
	for (i = 0; i < na; i++)
		bolt_profile_add_sample(p, a[i], true, "cycles");
	bolt_write_fdata(p, fuzz_devnull());
	bolt_profile_free(p);
	bolt_binary_close(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("elf", data, size);
	uint64_t a[MAX_ADDRS];
	size_t na;

	symbols(path, a, &na);
	oc_err_clear();
	autofdo(path, a, na);
	oc_err_clear();
	bolt(path, a, na);
	oc_err_clear();
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	return 0;
}
