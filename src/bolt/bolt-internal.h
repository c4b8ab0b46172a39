/* bolt-internal.h — shared between the bolt source files: the binary as
 * BOLT 16 models it (sections, functions, basic blocks). */
#ifndef OCREC_BOLT_INTERNAL_H
#define OCREC_BOLT_INTERNAL_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bolt/bolt.h"

struct bolt_section {
	char *name;
	uint64_t addr, size;
	uint32_t type;
	uint64_t flags;
	const uint8_t *data;        /* the section's bytes; NULL for NOBITS */
	bool alloc, text, writable;
};

/* A basic block in the original layout order, as BOLT's buildCFG makes it. */
struct bolt_block {
	uint32_t offset;            /* from the function's start */
	uint32_t last;              /* offset of its last instruction */
	bool next_is_succ;          /* the next block in layout is a successor */
	bool ends_in_call;          /* the last instruction is a call */
	bool entry;                 /* an entry point (offset 0 or a secondary entry) */
	bool landing_pad;           /* where an exception thrown by one of its calls lands */
};

/* A static relocation in a function's code (relocation mode): the address
 * BOLT takes it to reference. */
struct bolt_code_ref {
	uint32_t off;               /* from the function's start */
	bool pcrel;
	uint64_t value;
};

/* A function as BOLT's BinaryFunction: discovered from the symbol table,
 * the FDEs of .eh_frame and the PLT. */
struct bolt_func {
	const char *name;           /* getOneName(): BOLT's unique name */
	uint64_t addr, size, max_size;
	uint32_t section;           /* index into bolt_binary.sections */
	bool simple;                /* BOLT's IsSimple at aggregation time */
	bool ignored;               /* not disassembled at all */
	bool fragment;              /* a split-off part: NAME.cold[.N] */
	bool plt;                   /* a PLT entry (NAME@PLT) or the PLT header */
	/* parents of a fragment, as indexes into bolt_binary.funcs */
	uint32_t *parents;
	size_t nr_parents;
	/* offsets that start a basic block for reasons outside the function's
	 * own code: secondary entry points, data references (relocation mode) */
	uint32_t *entries;          /* secondary entry points (sorted, unique) */
	size_t nr_entries, cap_entries;
	uint32_t *ext_refs;         /* BOLT's ExternallyReferencedOffsets */
	size_t nr_ext_refs, cap_ext_refs;
	uint32_t *labels;           /* local labels made from data relocations */
	size_t nr_labels, cap_labels;
	struct bolt_code_ref *code_refs;
	size_t nr_code_refs, cap_code_refs;
	bool internal_label_ref;    /* HasInternalLabelReference */
	bool profiled;              /* hasProfileAvailable (decides lite mode) */
	uint64_t lsda;              /* its FDE's language-specific data (C++ exceptions) */
	/* the CFG, when simple */
	struct bolt_block *blocks;
	size_t nr_blocks;
};

struct bolt_binary {
	char *path;
	int fd, sym_fd;
	const uint8_t *map, *sym_map;
	size_t map_len, sym_map_len;
	struct Elf *elf, *sym_elf;
	uint8_t build_id[20];
	size_t build_id_len;
	bool relocs;                /* .rela.text: relocation (and strict) mode */
	struct bolt_section *sections;
	size_t nr_sections;
	struct bolt_func *funcs;    /* sorted by address */
	size_t nr_funcs;
	char **names;               /* owned function names */
	size_t nr_names;
	/* dynamic relocations (.rela.dyn, .rela.plt): addresses, sorted */
	uint64_t *dyn_relocs;
	size_t nr_dyn_relocs;
	/* relocation mode: data locations holding a code address (absolute,
	 * and PC-relative for PIC jump tables), sorted */
	uint64_t *data_abs, *data_pcrel;
	size_t nr_data_abs, nr_data_pcrel;
	csh cs;                     /* capstone, with instruction details */
	cs_insn *cs_insn;
	bool analyzed;              /* CFGs built */
};

/* How many of the n records (size bytes each, sorted by an unsigned key of
 * width 4 or 8 bytes at offset off) have a key below x, or at most x with
 * or_equal: where a binary search for x ends. */
static inline size_t bolt_bound(const void *v, size_t n, size_t size, size_t off, size_t width, uint64_t x,
				bool or_equal)
{
	const unsigned char *p = v;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const unsigned char *k = p + mid * size + off;
		uint64_t key = width == 8 ? *(const uint64_t *)(const void *)k : *(const uint32_t *)(const void *)k;
		if (key < x || (or_equal && key == x))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
#define BOLT_BOUND(v, n, field, x, or_equal) \
	bolt_bound((v), (n), sizeof(*(v)), offsetof(__typeof__(*(v)), field), sizeof((v)->field), (x), (or_equal))

/* --- binary.c --- */
const struct bolt_section *bolt_section_at(const struct bolt_binary *b, uint64_t addr);
/* BOLT's getBinaryFunctionContainingAddress(addr, CheckPastEnd=false, UseMaxSize=true). */
struct bolt_func *bolt_func_containing(const struct bolt_binary *b, uint64_t addr);
/* The function starting exactly at addr, or NULL. */
struct bolt_func *bolt_func_at(const struct bolt_binary *b, uint64_t addr);
static inline bool bolt_func_contains(const struct bolt_func *f, uint64_t addr)
{
	return addr >= f->addr && addr - f->addr < f->size;
}
bool bolt_sorted_has(const uint64_t *v, size_t n, uint64_t x);
void bolt_func_add_entry(struct bolt_func *f, uint32_t offset);
void bolt_func_add_ext_ref(struct bolt_func *f, uint32_t offset);
void bolt_func_add_label(struct bolt_func *f, uint32_t offset);

/* DWARF's uleb128 and DW_EH_PE-encoded pointers (at address addr). */
uint64_t bolt_read_uleb(const uint8_t **p, const uint8_t *end);
bool bolt_read_encoded(const uint8_t **p, const uint8_t *end, unsigned enc, uint64_t addr, uint64_t *out);

/* --- cfg.c: disassembly and basic blocks of every function --- */
/* Build the CFGs of the functions that need them (all in relocation mode,
 * those marked profiled otherwise, as perf2bolt's lite mode). 0, or -1 +
 * oc_err() when capstone is missing. */
int bolt_build_cfgs(struct bolt_binary *b);
/* The GOT slot the indirect jump of a PLT entry at addr reads; an entry
 * of 8 bytes becomes 16 when the section (first) starts with endbr64. */
bool bolt_plt_target(struct bolt_binary *b, const uint8_t *code, size_t avail, uint64_t addr,
		     uint64_t *entry, bool first, uint64_t *got);
/* The block holding offset in f (BOLT's getBasicBlockContainingOffset), or -1. */
long bolt_block_containing(const struct bolt_func *f, uint64_t offset);

/* --- profile.c --- */
/* One line of pre-aggregated text (kind B, F or f), as perf2bolt -pa reads it. */
void bolt_profile_add_aggregated(struct bolt_profile *p, char kind, uint64_t from, uint64_t to,
				 uint64_t count, uint64_t mispreds);

#endif
