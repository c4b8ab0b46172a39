/* symbols.h — ELF symbols, DSOs found by path or build-id, and process maps
 * built from MMAP/MMAP2 records, so a sampled address becomes dso + symbol + line.
 * The session layer (src/session) drives a symtab from a perf.data file; its
 * consumers read the struct dso and struct symbol it hands out. */
#ifndef OCREC_SYMBOLS_H
#define OCREC_SYMBOLS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/debuginfo.h"

struct symbol {
	uint64_t start, size;      /* file virtual address and size */
	const char *name;          /* as in the symbol table (mangled) */
	bool plt;                  /* a PLT stub named after its slot ("f@plt") */
};

struct dso {
	char *name;                /* path as recorded */
	char *short_name;          /* basename, as perf prints it */
	char *found_path;          /* where it was actually read from, or NULL (missing) */
	uint8_t build_id[20];
	uint8_t build_id_size;
	bool kernel;
	/* private: sorted symbols, ELF load info, lazily opened debuginfo */
	struct symbol *syms;
	size_t nr_syms;
	uint64_t text_vaddr, text_offset;  /* first executable PT_LOAD: p_vaddr, p_offset */
	bool is_pie;
	struct debuginfo *di;
	bool di_tried;
	/* added for the report: every PT_LOAD (file offset -> vaddr), load state */
	struct dso_load { uint64_t vaddr, offset, filesz, memsz; } *loads;
	size_t nr_loads;
	bool loaded;               /* symbols read (or found missing) */
	bool build_id_mismatch;    /* the file found does not carry the recorded build-id */
	bool has_symtab;           /* symbols from .symtab, not only .dynsym */
	char **name_pool;          /* owned symbol names */
	size_t nr_name_pool;
	char **shown_names;        /* per symbol, its demangled name (sym_name()), made when first asked */
};

struct sym_options {
	const char *symfs;         /* --symfs DIR */
	const char *kallsyms;      /* --kallsyms FILE */
	bool quiet;
	/* perf's whole kallsyms rule (perf script): /proc/kallsyms also for a
	 * kernel without build-id, relocated by its map's _text; never with symfs */
	bool kallsyms_like_perf;
	bool maps_only;            /* addresses find their map and DSO; no file is read */
};

struct symtab;                 /* all DSOs and per-pid maps of one session */

struct symtab *symtab_new(const struct sym_options *opts);
void symtab_free(struct symtab *st);
/* The next input file begins: its processes, kernel maps and build-id table
 * are its own; the DSOs read so far stay (a DSO is its path and build-id). */
void symtab_next_input(struct symtab *st);
/* Register a build-id (from the BUILD_ID feature or an MMAP2 record) for a path. */
void symtab_add_build_id(struct symtab *st, const char *path, const uint8_t *id, uint8_t size);
/* Apply an MMAP/MMAP2 record (pid -1: kernel). */
void symtab_mmap(struct symtab *st, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		 const char *filename, bool kernel);
/* FORK copies the parent's maps. (An exec keeps them, as in perf: the new
 * image's MMAP records cover the old ones.) */
void symtab_fork(struct symtab *st, uint32_t pid, uint32_t ppid);

/* A resolved address. */
struct addr_loc {
	struct dso *dso;           /* NULL when unmapped */
	uint64_t map_start, map_end, map_pgoff;  /* the map that holds it (0 when unmapped) */
	uint64_t file_addr;        /* address in the DSO's own ELF virtual address space */
	const struct symbol *sym;  /* NULL when unknown */
	uint64_t sym_off;          /* file_addr - sym->start */
	bool kernel;
	/* added: perf's al_addr (address relative to the map: addr - start + pgoff,
	 * or the address itself for the kernel) and perf's cpumode letter:
	 * '.' user, 'k' kernel, 'H' not mapped at all */
	uint64_t map_addr;
	char level;
};
/* Where perf looks for an address of a sample whose cpumode (header.misc &
 * PERF_RECORD_MISC_CPUMODE_MASK) is given (util/thread.c, util/event.c): */
enum sym_lookup {
	SYM_AT_CPUMODE,            /* in that mode's maps only (thread__find_map(): a sample's ip) */
	SYM_AT_FALLBACK,           /* then in the address's own mode's (thread__find_map_fb():
	                            * perf script's branch entries and data addresses) */
	SYM_AT_ANY,                /* user maps, then the kernel's, 'H' when in neither
	                            * (thread__find_cpumode_addr_location(): perf report's
	                            * branch entries) */
};
/* Resolve addr in process pid. Always fills out (dso/sym NULL when unknown).
 * Kernel mode finds kernel addresses, and a user-range address inside the
 * kernel map as recorded (old perf began it low) as the kernel without a
 * symbol; user mode finds user addresses; guest and hypervisor modes nothing. */
void symtab_lookup(struct symtab *st, uint32_t pid, unsigned cpumode, uint64_t addr,
		   enum sym_lookup how, struct addr_loc *out);
/* Lines of a DSO address (opens its debuginfo once). NULL when none. */
struct debuginfo *dso_debuginfo(struct dso *dso);
/* Look up a symbol by file address in a DSO. */
const struct symbol *dso_find_symbol(struct dso *dso, uint64_t file_addr);
/* The separate debug file of a stripped binary (gdb's places: by build-id
 * under /usr/lib/debug/.build-id, by .gnu_debuglink beside it, in its
 * .debug/, under /usr/lib/debug/DIR), with a symbol table and the binary's
 * build-id; NULL when there is none. Caller frees. */
char *sym_debug_file(const char *path);
/* A file offset of dso -> its virtual address (the PT_LOAD holding it). */
uint64_t dso_offset_to_vaddr(const struct dso *dso, uint64_t off);
/* Open one ELF file as a DSO outside any session (autofdo's --binary). */
struct dso *dso_open_file(const char *path);
void dso_free(struct dso *dso);

/* A symbol's name as perf shows it: C++ and Rust names demangled by
 * libiberty's cplus_demangle() without parameters ("ns::Words::count"; a
 * PLT stub's target, then "@plt"), the kernel's as they are; with demangle
 * false, the symbol table's name. Valid as long as the DSO. */
const char *sym_name(struct dso *dso, const struct symbol *sym, bool demangle);
/* A mangled C++ or Rust name demangled the same way (without parameters);
 * NULL when name is not mangled or no demangler is installed. Caller frees. */
char *sym_demangle(const char *name);
/* The DSO name perf script prints in parentheses: the recorded path, "[unknown]" if unmapped. */
const char *sym_dso_name(const struct addr_loc *loc);
/* Anonymous memory or memory without a file (perf's is_anon_memory() and
 * is_no_dso_memory(): //anon, /dev/zero, [heap], [stack...): perf maps its
 * addresses 1:1, and names an executable one after its JIT symbol file
 * /tmp/perf-PID.map, which symtab reads ("START SIZE NAME" lines). */
bool sym_is_anon_map(const char *filename);
/* GNU build-ids (at most 20 bytes, as perf keeps them); their size, 0 when
 * there is none or the file cannot be read. */
struct Elf;
size_t sym_elf_build_id(struct Elf *elf, uint8_t id[20]);
size_t sym_file_build_id(const char *path, uint8_t id[20]);
/* The running kernel's, from /sys/kernel/notes. */
size_t sym_running_kernel_build_id(uint8_t id[20]);
/* perf's build-id cache directory: $PERF_BUILDID_DIR, else $HOME/.debug (in
 * *owned, to free), else NULL. The recorder fills it, the symbol search reads it. */
const char *sym_build_id_cache_dir(char **owned);

#endif
