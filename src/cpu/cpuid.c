/* CPUID leaves from the CPU itself or from a `cpuid -r` dump, and what leaf
 * 0xA says of the architectural performance events. */
#define _DEFAULT_SOURCE   /* strsep */
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define HAVE_CPUID_INSN 1
#endif

#include "cpu/cpu.h"
#include "cpu/cpuid.h"
#include "util/util.h"

static const char line_form[] = "'0xLEAF 0xSUBLEAF: eax=0x... ebx=0x... ecx=0x... edx=0x...'";

/* A dump of one CPU has about 100 leaves; a file of a million lines must not
 * take a million squared steps, so lines are appended, then sorted. */
#define MAX_CPUID_DUMP (16u << 20)

static int cmp_entry(const void *a, const void *b)
{
	const struct cpuid_entry *x = a, *y = b;
	if (x->leaf != y->leaf)
		return x->leaf < y->leaf ? -1 : 1;
	if (x->subleaf != y->subleaf)
		return x->subleaf < y->subleaf ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Sort by leaf and subleaf; of the lines for one leaf the later wins. */
static void sort_entries(struct cpuid_leaves *c)
{
	size_t i, n = 0;

	if (c->n > 1)
		qsort(c->e, c->n, sizeof(*c->e), cmp_entry);
	for (i = 0; i < c->n; i++) {
		if (i + 1 < c->n && c->e[i + 1].leaf == c->e[i].leaf && c->e[i + 1].subleaf == c->e[i].subleaf)
			continue;
		c->e[n++] = c->e[i];
	}
	c->n = n;
}

static bool fits_u32(const unsigned long long *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (v[i] > 0xffffffffull)
			return false;
	return true;
}

/* "CPU:" (cpuid -1 -r) or "CPU N:" (cpuid -r): returns N, 0 for "CPU:", -1 if not a header. */
static int cpu_header(const char *s)
{
	unsigned n;
	int end = 0;
	if (strcmp(s, "CPU:") == 0)
		return 0;
	if (sscanf(s, "CPU %u:%n", &n, &end) == 1 && end && s[end] == 0)
		return (int)n;
	return -1;
}

int cpuid_parse(struct cpuid_leaves *c, const char *text, const char *name)
{
	char *copy = xstrdup(text), *rest = copy, *line;
	int lineno = 0, ret = 0;

	memset(c, 0, sizeof(*c));
	while ((line = strsep(&rest, "\n"))) {
		char *s = str_trim(line);
		struct cpuid_entry ent;
		unsigned long long v[6];
		int end = 0, cpu;

		lineno++;
		if (!*s || *s == '#')
			continue;
		cpu = cpu_header(s);
		if (cpu > 0)
			break;      /* only the first CPU's leaves describe the CPU */
		if (cpu == 0)
			continue;
		if (sscanf(s, "%llx %llx: eax=%llx ebx=%llx ecx=%llx edx=%llx%n",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &end) != 6 || s[end] != 0 ||
		    !fits_u32(v, ARRAY_SIZE(v))) {
			ret = oc_err("%s:%d: not a CPUID line (expected %s as `cpuid -r` prints)",
				     name, lineno, line_form);
			break;
		}
		ent.line = (uint32_t)lineno;
		ent.leaf = (uint32_t)v[0];
		ent.subleaf = (uint32_t)v[1];
		ent.r.eax = (uint32_t)v[2];
		ent.r.ebx = (uint32_t)v[3];
		ent.r.ecx = (uint32_t)v[4];
		ent.r.edx = (uint32_t)v[5];
		GROW(c->e, c->cap, c->n + 1);
		c->e[c->n++] = ent;
	}
	free(copy);
	sort_entries(c);
	if (ret == 0) {
		struct cpuid_regs r;
		if (!cpuid_query(c, 0, 0, &r) || !cpuid_query(c, 1, 0, &r))
			ret = oc_err("%s: no CPUID leaves 0x0 and 0x1 (expected lines like %s)", name, line_form);
	}
	if (ret)
		cpuid_free(c);
	return ret;
}

int cpuid_load(struct cpuid_leaves *c, const char *path)
{
	char *text = read_file_max(path, NULL, MAX_CPUID_DUMP, "a CPUID dump");
	int ret;
	if (!text)
		return -1;
	ret = cpuid_parse(c, text, path);
	free(text);
	return ret;
}

int cpuid_use_live(struct cpuid_leaves *c)
{
	memset(c, 0, sizeof(*c));
#ifdef HAVE_CPUID_INSN
	c->live = true;
	return 0;
#else
	return oc_err("this CPU has no CPUID instruction");
#endif
}

#ifdef HAVE_CPUID_INSN
static bool live_query(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	/* __get_cpuid_max checks the range the CPU implements (basic or extended) */
	if ((uint32_t)__get_cpuid_max(leaf & 0x80000000u, NULL) < leaf)
		return false;
	__cpuid_count(leaf, subleaf, r->eax, r->ebx, r->ecx, r->edx);
	return true;
}
#endif

bool cpuid_query(const struct cpuid_leaves *c, uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	size_t lo = 0, hi = c->n;

#ifdef HAVE_CPUID_INSN
	if (c->live)
		return live_query(leaf, subleaf, r);
#endif
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct cpuid_entry *e = &c->e[mid];
		if (e->leaf == leaf && e->subleaf == subleaf) {
			*r = e->r;
			return true;
		}
		if (e->leaf < leaf || (e->leaf == leaf && e->subleaf < subleaf))
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

void cpuid_free(struct cpuid_leaves *c)
{
	free(c->e);
	memset(c, 0, sizeof(*c));
}

uint32_t cpu_arch_events_present(const char *cpuid_path, bool live)
{
	struct cpuid_leaves leaves;
	struct cpuid_regs r;
	uint32_t present = ~0u, len;

	if (cpuid_path) {
		if (cpuid_load(&leaves, cpuid_path) < 0) {
			oc_err_clear();
			return present;
		}
	} else if (!live || cpuid_use_live(&leaves) < 0) {
		oc_err_clear();
		return present;
	}
	if (cpuid_query(&leaves, 0xa, 0, &r)) {
		len = (r.eax >> 24) & 0xff;
		present = (r.eax & 0xff) ? ~r.ebx & (len >= 32 ? ~0u : (1u << len) - 1) : 0;
	}
	cpuid_free(&leaves);
	return present;
}
