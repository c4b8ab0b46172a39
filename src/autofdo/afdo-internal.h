/* afdo-internal.h — shared between the autofdo source files. */
#ifndef OCREC_AFDO_INTERNAL_H
#define OCREC_AFDO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "autofdo/autofdo.h"
#include "symbols/debuginfo.h"
#include "util/util.h"

struct debuginfo *afdo_binary_debuginfo(struct afdo_binary *b);
/* The first instruction starting at or after addr within the code; false at the end. */
bool afdo_insn_at_or_after(struct afdo_binary *b, uint64_t addr, uint64_t *insn, unsigned *size);
/* What the instruction at addr does to the flow of control. */
enum afdo_insn_kind { AFDO_INSN_OTHER, AFDO_INSN_CALL, AFDO_INSN_RET, AFDO_INSN_JMP };
enum afdo_insn_kind afdo_insn_kind_at(struct afdo_binary *b, uint64_t addr);
/* The entries of the binary's function symbols (sorted; a name may repeat). */
size_t afdo_binary_functions(const struct afdo_binary *b, const uint64_t **entries);

/* The key of the counters' tables (util.h's struct hmap, values uint64_t). */
struct afdo_pair {
	uint64_t a, b;
};

/* Counters (afdo_counts) as the profile builder reads them. */
const struct hmap *afdo_counts_ranges(const struct afdo_counts *c);    /* (begin, end) inclusive */
const struct hmap *afdo_counts_branches(const struct afdo_counts *c);  /* (from, to) */

/* c += src's counters times num / den, each rounded (at least 1 where src
 * has a counter); its stack totals as they are. */
void afdo_counts_merge_scaled(struct afdo_counts *c, const struct afdo_counts *src, uint64_t num, uint64_t den);

/* Address mapping for one input: the binary's mappings seen in MMAP records. */
struct afdo_mapper;
/* identity: without any mapping, take addresses as the binary's own
 * (llvm-profgen's fallback for perf script text without MMAP2 lines). */
struct afdo_mapper *afdo_mapper_new(struct afdo_binary *b, bool identity);
void afdo_mapper_free(struct afdo_mapper *m);
/* A mapping of the binary (pid -1 when unknown). */
void afdo_mapper_add(struct afdo_mapper *m, int64_t pid, uint64_t start, uint64_t len, uint64_t pgoff);
size_t afdo_mapper_count(const struct afdo_mapper *m);
/* Runtime address of process pid (-1: any) -> binary address. */
bool afdo_mapper_map(const struct afdo_mapper *m, int64_t pid, uint64_t addr, uint64_t *vaddr);

#endif
