/* autofdo.h — AutoFDO sample profiles for GCC and LLVM from branch stacks.
 *
 * Flow: afdo_binary_open() the profiled ELF (build-id, load segments, DWARF);
 * feed branch stacks from perf.data or perf-script text into one afdo_counts
 * (LBR range and branch counters in the binary's own addresses, several
 * inputs merge); afdo_build() turns them into function profiles the way
 * llvm-profgen 14 and create_gcov do (docs/autofdo.md);
 * a writer emits LLVM text or GCC 12 gcov.
 */
#ifndef OCREC_AUTOFDO_H
#define OCREC_AUTOFDO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct afdo_binary;
struct afdo_counts;
struct session_binary;
struct afdo_profile;

/* --- the profiled binary --- */
struct afdo_binary *afdo_binary_open(const char *path);
void afdo_binary_close(struct afdo_binary *b);
const char *afdo_binary_path(const struct afdo_binary *b);
bool afdo_binary_has_debuginfo(const struct afdo_binary *b);
/* Its identity for matching recorded paths and build-ids (session.h). */
struct session_binary *afdo_binary_id(const struct afdo_binary *b);
/* File offset -> the binary's virtual address; false if not in an executable segment. */
bool afdo_offset_to_vaddr(const struct afdo_binary *b, uint64_t offset, uint64_t *vaddr);
/* Is vaddr inside an executable section of the binary? */
bool afdo_is_code(const struct afdo_binary *b, uint64_t vaddr);
/* Lowest PT_LOAD address: where a non-PIE binary is mapped when no mmap is known. */
uint64_t afdo_binary_base(const struct afdo_binary *b);

/* --- counters --- */
struct afdo_lbr {
	uint64_t from, to;   /* in the binary's addresses; valid only when in_binary */
	bool from_in, to_in; /* the address lies in the binary's code */
	bool spec_wrong;     /* wrong-path speculative entry (AMD Zen 4 spec=1) */
};

struct afdo_counts *afdo_counts_new(void);
void afdo_counts_free(struct afdo_counts *c);
/* One branch stack, newest entry first, as the kernel writes it, seen weight times. */
void afdo_counts_add_stack(struct afdo_counts *c, const struct afdo_lbr *lbr, size_t n,
			   uint64_t weight);
/* Exact counts from an instruction-level source (a simulator such as
 * callgrind): the code from begin to end (the start of its last
 * instruction) ran count times; a branch from -> to was taken count times. */
void afdo_counts_add_range(struct afdo_counts *c, uint64_t begin, uint64_t end, uint64_t count);
void afdo_counts_add_branch(struct afdo_counts *c, uint64_t from, uint64_t to, uint64_t count);
uint64_t afdo_counts_nr_stacks(const struct afdo_counts *c);
/* Branch entries that fell into the binary. */
uint64_t afdo_counts_nr_in_binary(const struct afdo_counts *c);

/* --- input --- */
struct afdo_input_opts {
	bool force;          /* use the data even when build-ids disagree */
	/* perf.data: count the software branch sampler's windows as they are,
	 * not weighed by the time per branch where each starts */
	bool unweighted;
};
/* perf script text (`perf script -F ip,brstack [--show-mmap-events]`, llvm-profgen's
 * input). 0, or -1 + oc_err(). */
int afdo_read_perfscript(const char *path, struct afdo_binary *b, struct afdo_counts *c,
			 const struct afdo_input_opts *opts);
/* perf.data with branch stacks. 0, or -1 + oc_err(). */
int afdo_read_perfdata(const char *path, struct afdo_binary *b, struct afdo_counts *c,
		       const struct afdo_input_opts *opts);

/* --- profiles --- */
enum afdo_flavor {
	AFDO_LLVM,           /* LLVM base discriminators, totals like llvm-profgen 14 */
	AFDO_GCC,            /* raw discriminators, totals like create_gcov */
};
/* How a line's count comes from its instructions' counts. */
enum afdo_line_rule {
	AFDO_LINES_FLOW,     /* the flow of control: copies of a statement add up */
	AFDO_LINES_MAX,      /* the largest, as llvm-profgen 14 and create_gcov count */
};
struct afdo_build_opts {
	enum afdo_flavor flavor;
	enum afdo_line_rule lines;
	/* gcc: only the functions with samples; by default every function of
	 * the binary is listed, those without samples with zero counts */
	bool sampled_only;
};
struct afdo_profile *afdo_build(struct afdo_binary *b, const struct afdo_counts *c,
				const struct afdo_build_opts *o);
void afdo_profile_free(struct afdo_profile *p);
size_t afdo_profile_nr_functions(const struct afdo_profile *p);
int afdo_write_llvm_text(const struct afdo_profile *p, FILE *fp);
int afdo_write_gcc(const struct afdo_profile *p, FILE *fp);
/* LLVM's extensible binary sample profile, as llvm-profdata 14 writes it. */
int afdo_write_llvm_ext(const struct afdo_profile *p, FILE *fp);

/* LLVM's base discriminator and duplication factor of an encoded discriminator. */
unsigned afdo_llvm_base_discriminator(unsigned d);
unsigned afdo_llvm_duplication_factor(unsigned d);

#endif
