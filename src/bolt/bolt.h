/* bolt.h — profiles for llvm-bolt (BOLT, LLVM's post-link optimizer) from
 * branch stacks, the ones perf2bolt 16 writes.
 *
 * Flow: bolt_binary_open() reads the profiled ELF file the way BOLT 16 sees
 * it (docs/bolt.md): its functions under BOLT's names, and for each the basic
 * blocks BOLT's disassembler builds, which decide the fall-through lines of
 * the profile. Branch stacks, already mapped into the binary's addresses by
 * the caller, go into one bolt_profile (several inputs merge); a writer emits
 * BOLT's fdata text, its no_lbr form (samples without branch stacks), or the
 * pre-aggregated text llvm-bolt reads with -pa. The module knows nothing of
 * perf.data.
 */
#ifndef OCREC_BOLT_H
#define OCREC_BOLT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct bolt_binary;
struct bolt_profile;

/* --- the profiled binary --- */
/* path: the binary (code bytes, dynamic relocations, PLT); symbols: a file
 * with its symbol table (a separate debug file of a stripped binary), or
 * NULL for path itself. NULL + oc_err() when unreadable or not x86-64. */
struct bolt_binary *bolt_binary_open(const char *path, const char *symbols);
void bolt_binary_close(struct bolt_binary *b);

/* --- counters --- */
/* One branch-stack entry. Addresses inside the binary are its own virtual
 * addresses (as in its ELF headers); others stay as recorded. */
struct bolt_branch {
	uint64_t from, to;
	bool from_in, to_in;     /* the address lies in the binary */
	bool mispred, predicted; /* LBR flags; neither: the recorder does not know */
};

struct bolt_profile *bolt_profile_new(struct bolt_binary *b);
void bolt_profile_free(struct bolt_profile *p);
/* One sample's branch stack, newest entry first, as the kernel writes it. */
void bolt_profile_add_stack(struct bolt_profile *p, const struct bolt_branch *e, size_t n);
/* One sample without a branch stack (perf2bolt -nl): its ip and event name. */
void bolt_profile_add_sample(struct bolt_profile *p, uint64_t ip, bool in_binary, const char *event);

struct bolt_stats {
	uint64_t stacks;                 /* branch stacks */
	uint64_t samples;                /* samples without branch stacks */
	/* straight runs between two entries, and those that start in one function
	 * of the binary and end in another (perf2bolt's "traces mismatching
	 * disassembled function contents": many of them mean another binary) */
	uint64_t traces, mismatched_traces;
	bool mispred_missing;            /* an entry had neither P nor M */
};
void bolt_profile_stats(const struct bolt_profile *p, struct bolt_stats *out);

/* --- output --- */
/* BOLT's fdata: `no_lbr EVENT...` and sample lines when no stack was added,
 * else branch and fall-through lines. -1 + oc_err() on a write error. */
int bolt_write_fdata(struct bolt_profile *p, FILE *fp);
/* The pre-aggregated text of `llvm-bolt -pa` / `perf2bolt -pa`: B, F and f
 * lines whose addresses are prefixed with the binary's build-id. */
int bolt_write_preaggregated(struct bolt_profile *p, FILE *fp);

#endif
