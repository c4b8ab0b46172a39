/* debuginfo.h — DWARF source lines and inline chains for one ELF file (libdw).
 * Addresses are the file's own virtual addresses (as in its ELF headers). */
#ifndef OCREC_DEBUGINFO_H
#define OCREC_DEBUGINFO_H

#include <stdbool.h>
#include <stdint.h>

struct debuginfo;

/* One frame of the inline chain at an address, innermost first. */
struct di_frame {
	const char *function;       /* DW_AT_name of the (inlined) subprogram */
	const char *linkage_name;   /* mangled name (DW_AT_linkage_name), else the name */
	unsigned decl_line;         /* DW_AT_decl_line of the subprogram (AutoFDO offsets) */
	const char *file;           /* source file of this frame's line (full path) */
	unsigned line, column, discriminator;
};

#define DI_MAX_FRAMES 32

struct di_location {
	int nr_frames;              /* 0 when there is no line information */
	struct di_frame frames[DI_MAX_FRAMES];   /* [0] innermost; [nr-1] the real function */
};

/* NULL + oc_err() if the file cannot be opened; a file without DWARF opens
 * and has_lines() says false. */
struct debuginfo *di_open(const char *path);
void di_close(struct debuginfo *di);
bool di_has_lines(const struct debuginfo *di);
/* Inline chain and line of addr. 0, or -1 when nothing is known. Strings stay
 * valid until di_close(). */
int di_lookup(struct debuginfo *di, uint64_t addr, struct di_location *out);

/* --- functions (for AutoFDO): top-level DW_TAG_subprogram code ranges --- */
struct di_range {
	uint64_t lo, hi;            /* [lo, hi) */
};
/* All code ranges of the function whose code holds addr (hot and cold parts);
 * returns how many (at most max are stored), 0 when addr is in no function. */
int di_function_ranges(const struct debuginfo *di, uint64_t addr, struct di_range *out, int max);
/* The linkage name (else the name) of the function whose entry is addr, or NULL. */
const char *di_function_at_entry(const struct debuginfo *di, uint64_t addr);
/* The DW_AT_producer of the first compile unit ("GNU C17 12.2.0 ...",
 * "Debian clang version 14..."), or NULL. */
const char *di_producer(const struct debuginfo *di);

#endif
