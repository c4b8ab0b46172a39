/* test-symbols.c — ELF symbols and address resolution on binaries compiled now:
 * PIE and non-PIE executables, a shared library, PLT stubs, a stripped binary,
 * a missing binary, build-id cache and --symfs lookup, build-id mismatch,
 * kernel addresses with and without kallsyms, fork/exec of maps. Expected
 * addresses come from nm and objdump, not from the code under test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/symbols.h"
#include "tap.h"
#include "util/util.h"

static char tmp[4096];
static const char *root;

static int run(const char *cmd)
{
	return system(cmd) == 0 ? 0 : -1;
}

/* Address of a symbol from `nm` (0 when absent). */
static uint64_t nm_addr(const char *bin, const char *name)
{
	char *cmd = xasprintf("nm %s 2>/dev/null", bin), line[512];
	FILE *fp = popen(cmd, "r");
	uint64_t addr = 0;
	free(cmd);
	while (fp && fgets(line, sizeof(line), fp)) {
		unsigned long long a;
		char type, sym[256];
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && !strcmp(sym, name))
			addr = a;
	}
	if (fp)
		pclose(fp);
	return addr;
}

/* Address of "<name>:" in objdump -d (PLT stubs have no nm entry). */
static uint64_t objdump_addr(const char *bin, const char *name)
{
	char *cmd = xasprintf("objdump -d %s 2>/dev/null", bin), line[512], *want = xasprintf("<%s>:", name);
	FILE *fp = popen(cmd, "r");
	uint64_t addr = 0;
	free(cmd);
	while (fp && fgets(line, sizeof(line), fp))
		if (strstr(line, want))
			addr = strtoull(line, NULL, 16);
	if (fp)
		pclose(fp);
	free(want);
	return addr;
}

/* Map every PT_LOAD of path the way the ELF loader does (page-aligned) at base. */
static void map_like_loader(struct symtab *st, uint32_t pid, const char *path, const char *recorded,
			    uint64_t base)
{
	struct dso *d = dso_open_file(path);
	size_t i;
	if (!d)
		return;
	for (i = 0; i < d->nr_loads; i++) {
		uint64_t va = d->loads[i].vaddr & ~0xfffULL, off = d->loads[i].offset & ~0xfffULL;
		uint64_t len = d->loads[i].vaddr + d->loads[i].filesz - va;
		symtab_mmap(st, pid, base + va, (len + 0xfff) & ~0xfffULL, off, recorded, false);
	}
	dso_free(d);
}

/* Where perf report looks for a branch address: user maps, then the kernel's. */
static void symtab_resolve(struct symtab *st, uint32_t pid, uint64_t addr, struct addr_loc *loc)
{
	symtab_lookup(st, pid, PERF_RECORD_MISC_USER, addr, SYM_AT_ANY, loc);
}

static char *path_in(const char *name)
{
	return xasprintf("%s/%s", tmp, name);
}

static void test_file_symbols(const char *bin, const char *what)
{
	struct dso *d = dso_open_file(bin);
	uint64_t hot = nm_addr(bin, "hot_loop"), plt = objdump_addr(bin, "puts@plt");
	const struct symbol *s;
	char name[128];

	snprintf(name, sizeof(name), "%s: opens", what);
	CHECK(d != NULL, name);
	if (!d)
		return;
	s = dso_find_symbol(d, hot + 3);
	snprintf(name, sizeof(name), "%s: hot_loop+3 is in hot_loop", what);
	CHECK_STR(s ? s->name : NULL, "hot_loop", name);
	snprintf(name, sizeof(name), "%s: puts@plt stub named", what);
	s = plt ? dso_find_symbol(d, plt) : NULL;
	CHECK_STR(s ? s->name : NULL, "puts@plt", name);
	dso_free(d);
}

int main(void)
{
	char *cmd, *lib, *pie, *nopie, *stripped;
	struct sym_options so = { .quiet = true };
	struct symtab *st;
	struct addr_loc loc;
	char buf[sizeof(tmp) + 64];
	uint64_t hot, libwork;

	root = getenv("OCREC_ROOT") ? getenv("OCREC_ROOT") : ".";
	if (!test_mkdtemp(tmp, sizeof(tmp), "ocrec-sym.XXXXXX")) {
		printf("FAIL mkdtemp\n");
		return 1;
	}
	lib = path_in("libreport.so");
	pie = path_in("pie");
	nopie = path_in("nopie");
	stripped = path_in("stripped");
	cmd = xasprintf("cd %s && cc -O2 -g -shared -fPIC -o libreport.so %s/tests/progs/report-lib.c && "
			"cc -O2 -g -fPIE -pie -o pie %s/tests/progs/report-main.c ./libreport.so && "
			"cc -O2 -g -no-pie -o nopie %s/tests/progs/report-main.c ./libreport.so && "
			"strip -o stripped pie", tmp, root, root, root);
	if (run(cmd) < 0) {
		printf("FAIL compile test programs: %s\n", cmd);
		return 1;
	}
	free(cmd);

	test_file_symbols(pie, "PIE");
	test_file_symbols(nopie, "non-PIE");

	/* PIE mapped at a random-looking base, plus the library */
	st = symtab_new(&so);
	hot = nm_addr(pie, "hot_loop");
	libwork = nm_addr(lib, "report_lib_work");
	map_like_loader(st, 42, pie, pie, 0x555555554000ULL);
	map_like_loader(st, 42, lib, lib, 0x7f1234560000ULL);
	symtab_resolve(st, 42, 0x555555554000ULL + hot + 5, &loc);
	CHECK_STR(loc.sym ? loc.sym->name : NULL, "hot_loop", "PIE: runtime address resolves");
	CHECK_U64(loc.sym_off, 5, "PIE: offset in symbol");
	CHECK_U64(loc.file_addr, hot + 5, "PIE: file address");
	CHECK_INT(loc.level, '.', "PIE: user level");
	CHECK_STR(sym_name(loc.dso, loc.sym, true), "hot_loop", "a C name is shown as it is");
	CHECK(loc.map_start <= 0x555555554000ULL + hot && loc.map_end > 0x555555554000ULL + hot,
	      "the map holding the address is given");
	symtab_resolve(st, 42, 0x7f1234560000ULL + libwork + 2, &loc);
	CHECK_STR(loc.sym ? loc.sym->name : NULL, "report_lib_work", "shared library: resolves");
	CHECK_STR(loc.dso ? loc.dso->short_name : NULL, "libreport.so", "shared library: dso short name");
	symtab_resolve(st, 42, 0x1000, &loc);
	CHECK(loc.sym == NULL && loc.dso == NULL && loc.level == 'H', "unmapped address: no dso, level H");
	CHECK_STR(sym_dso_name(&loc), "[unknown]", "unmapped address: dso name [unknown]");
	/* the sample's cpumode decides where perf looks */
	symtab_lookup(st, 42, PERF_RECORD_MISC_USER, 0x1000, SYM_AT_CPUMODE, &loc);
	CHECK(loc.dso == NULL && loc.level == '.', "user mode, unmapped: level . as perf's thread__find_map()");
	symtab_lookup(st, 42, PERF_RECORD_MISC_KERNEL, 0x555555554000ULL + hot, SYM_AT_CPUMODE, &loc);
	CHECK(loc.dso == NULL && loc.level == 'k', "kernel mode: a user address is not in the kernel's maps");
	symtab_lookup(st, 42, PERF_RECORD_MISC_KERNEL, 0x555555554000ULL + hot, SYM_AT_FALLBACK, &loc);
	CHECK_STR(loc.sym ? loc.sym->name : NULL, "hot_loop", "with fallback: then in the address's own mode");
	/* fork copies the maps */
	symtab_fork(st, 43, 42);
	symtab_resolve(st, 43, 0x555555554000ULL + hot, &loc);
	CHECK_STR(loc.sym ? loc.sym->name : NULL, "hot_loop", "fork: child sees parent's maps");
	/* the next input has its own processes; the DSO read stays */
	{
		struct dso *before = loc.dso;
		symtab_next_input(st);
		symtab_resolve(st, 42, 0x555555554000ULL + hot, &loc);
		CHECK(loc.dso == NULL, "next input: the last input's maps are gone");
		map_like_loader(st, 42, pie, pie, 0x555555554000ULL);
		symtab_resolve(st, 42, 0x555555554000ULL + hot, &loc);
		CHECK(loc.dso == before, "next input: the same file is the same DSO");
	}
	symtab_free(st);

	/* non-PIE at its own addresses */
	st = symtab_new(&so);
	map_like_loader(st, 7, nopie, nopie, 0);
	hot = nm_addr(nopie, "hot_loop");
	symtab_resolve(st, 7, hot + 1, &loc);
	CHECK_STR(loc.sym ? loc.sym->name : NULL, "hot_loop", "non-PIE: resolves");
	symtab_free(st);

	/* stripped: addresses and PLT stubs, no crash */
	st = symtab_new(&so);
	hot = nm_addr(pie, "hot_loop");
	map_like_loader(st, 9, stripped, stripped, 0x560000000000ULL);
	symtab_resolve(st, 9, 0x560000000000ULL + hot, &loc);
	CHECK(loc.dso != NULL && loc.sym == NULL, "stripped: mapped, no symbol for a local function");
	/* gcc's PIE text segment has p_vaddr == p_offset, so perf's map address is hot's */
	CHECK_U64(loc.map_addr, hot, "stripped: map-relative address");
	symtab_resolve(st, 9, 0x560000000000ULL + objdump_addr(stripped, "puts@plt"), &loc);
	CHECK_STR(loc.sym ? loc.sym->name : NULL, "puts@plt", "stripped: PLT stub still named");
	symtab_free(st);

	/* missing binary: mapped, unresolved, perf's map-relative address */
	st = symtab_new(&so);
	symtab_mmap(st, 5, 0x400000, 0x2000, 0x1000, "/nonexistent/prog", false);
	symtab_resolve(st, 5, 0x400123, &loc);
	CHECK(loc.dso && !loc.dso->found_path && !loc.sym, "missing binary: dso known, no symbols");
	CHECK_U64(loc.map_addr, 0x1123, "missing binary: address relative to the map (+pgoff)");
	symtab_free(st);

	/* --symfs: the recorded path is looked up below DIR */
	cmd = xasprintf("mkdir -p %s/symfs/opt/app && cp %s %s/symfs/opt/app/prog", tmp, pie, tmp);
	run(cmd);
	free(cmd);
	so.symfs = buf;
	snprintf(buf, sizeof(buf), "%s/symfs", tmp);
	st = symtab_new(&so);
	map_like_loader(st, 3, pie, "/opt/app/prog", 0x555555554000ULL);
	symtab_resolve(st, 3, 0x555555554000ULL + hot, &loc);
	CHECK_STR(loc.sym ? loc.sym->name : NULL, "hot_loop", "--symfs: binary found under DIR");
	symtab_free(st);
	so.symfs = NULL;

	/* build-id: the ~/.debug cache, and a mismatch leaves symbols unresolved */
	{
		struct dso *d = dso_open_file(pie);
		char hex[41], *home = path_in("home"), *old_home = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
		size_t k;
		for (k = 0; k < d->build_id_size; k++)
			sprintf(hex + 2 * k, "%02x", d->build_id[k]);
		hex[2 * k] = 0;
		CHECK(d->build_id_size == 20, "PIE has a GNU build-id");
		cmd = xasprintf("mkdir -p %s/.debug/.build-id/%.2s/%s && cp %s %s/.debug/.build-id/%.2s/%s/elf",
				home, hex, hex + 2, pie, home, hex, hex + 2);
		run(cmd);
		free(cmd);
		setenv("HOME", home, 1);
		st = symtab_new(&so);
		symtab_add_build_id(st, "/gone/prog", d->build_id, d->build_id_size);
		map_like_loader(st, 4, pie, "/gone/prog", 0x555555554000ULL);
		symtab_resolve(st, 4, 0x555555554000ULL + hot, &loc);
		CHECK_STR(loc.sym ? loc.sym->name : NULL, "hot_loop", "build-id cache: found by build-id");
		symtab_free(st);

		st = symtab_new(&so);
		d->build_id[0] ^= 0xff;
		symtab_add_build_id(st, pie, d->build_id, d->build_id_size);
		map_like_loader(st, 4, pie, pie, 0x555555554000ULL);
		symtab_resolve(st, 4, 0x555555554000ULL + hot, &loc);
		CHECK(loc.sym == NULL && loc.dso && loc.dso->build_id_mismatch,
		      "build-id mismatch: file not used");
		symtab_free(st);
		if (old_home)
			setenv("HOME", old_home, 1);
		free(old_home);
		free(home);
		dso_free(d);
	}

	/* kernel: [k] address without names, unless --kallsyms is given */
	st = symtab_new(&so);
	symtab_mmap(st, (uint32_t)-1, 0xffffffff81000000ULL, 0x1000000, 0xffffffff81000000ULL,
		    "[kernel.kallsyms]_text", true);
	symtab_resolve(st, 1, 0xffffffff81000123ULL, &loc);
	CHECK(loc.level == 'k' && loc.sym == NULL && loc.map_addr == 0xffffffff81000123ULL,
	      "kernel: [k] raw address without a matching build-id");
	symtab_free(st);
	{
		char *ks = path_in("kallsyms");
		FILE *fp = fopen(ks, "w");
		fprintf(fp, "ffffffff81000000 T _text\nffffffff81000100 T do_work\n"
			    "ffffffff81000200 t helper\nffffffff81000300 d some_data\n");
		fclose(fp);
		so.kallsyms = ks;
		st = symtab_new(&so);
		symtab_mmap(st, (uint32_t)-1, 0xffffffff81000000ULL, 0x1000000, 0xffffffff81000000ULL,
			    "[kernel.kallsyms]_text", true);
		symtab_resolve(st, 1, 0xffffffff81000123ULL, &loc);
		CHECK_STR(loc.sym ? loc.sym->name : NULL, "do_work", "--kallsyms: kernel symbol");
		symtab_resolve(st, 1, 0xffffffff81000234ULL, &loc);
		CHECK_STR(loc.sym ? loc.sym->name : NULL, "helper", "--kallsyms: local text symbol");
		symtab_free(st);
		so.kallsyms = NULL;
		free(ks);
	}

	cmd = xasprintf("rm -rf %s", tmp);
	run(cmd);
	free(cmd);
	free(lib);
	free(pie);
	free(nopie);
	free(stripped);
	return test_done();
}
