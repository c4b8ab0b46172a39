/* cpuid.h — CPUID leaves, read live from this CPU or from a text dump
 * (the format of `cpuid -r`, see docs/cpuid-format.md). Internal to src/cpu
 * and its tests. */
#ifndef OCREC_CPU_CPUID_H
#define OCREC_CPU_CPUID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

struct cpuid_entry {
	uint32_t leaf, subleaf;
	struct cpuid_regs r;
	uint32_t line;            /* where it was in the dump: a later line for a leaf wins */
};

struct cpuid_leaves {
	struct cpuid_entry *e;    /* sorted by leaf and subleaf */
	size_t n, cap;
	bool live;                /* query the CPU itself instead of e[] */
};

/* Parse a dump; name is used in error messages ("FILE:LINE: ..."). 0 or -1 + oc_err(). */
int cpuid_parse(struct cpuid_leaves *c, const char *text, const char *name);
int cpuid_load(struct cpuid_leaves *c, const char *path);
/* Use this CPU's CPUID instruction; -1 + oc_err() where there is none (not x86). */
int cpuid_use_live(struct cpuid_leaves *c);
/* The registers of (leaf, subleaf); false when the CPU (or the dump) does not have it. */
bool cpuid_query(const struct cpuid_leaves *c, uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r);
void cpuid_free(struct cpuid_leaves *c);

#endif
