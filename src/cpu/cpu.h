/* cpu.h — which CPU this is (or the one named), its LBR, and what the kernel offers.
 * CPU knowledge lives in tables (lbr_table.c), not in code paths. */
#ifndef OCREC_CPU_H
#define OCREC_CPU_H

#include <stdbool.h>
#include <stdint.h>

enum lbr_kind { LBR_UNKNOWN, LBR_NONE, LBR_LEGACY, LBR_ARCH, LBR_AMD_BRS, LBR_AMD_V2 };

struct lbr_info {
	enum lbr_kind kind;
	int depth;                /* -1 when unknown */
	const char *source;       /* how it was found: "model table", "CPUID 0x1C", ... */
};

/* Where to read the CPU from; all NULL = this machine. */
struct cpu_source {
	const char *cpu_string;   /* --cpu GenuineIntel-6-55-4 */
	const char *cpuinfo;      /* --cpuinfo FILE */
	const char *cpuid;        /* --cpuid FILE (docs/cpuid-format.md) */
};

struct cpu_desc {
	char vendor[16];          /* "GenuineIntel", "AuthenticAMD" */
	unsigned family, model, stepping;
	char perfmon_id[48];      /* "GenuineIntel-6-55-4" (model/stepping upper-case hex) */
	const char *name;         /* microarchitecture, e.g. "Skylake-SP"; "unknown" */
	bool hybrid;              /* core types cpu_core + cpu_atom */
	bool have_cpuid;          /* CPUID leaves were available (live or --cpuid) */
	struct lbr_info lbr;
};

/* Identify the CPU; 0, or -1 + oc_err() naming the bad input. */
int cpu_detect(const struct cpu_source *src, struct cpu_desc *out);
bool cpu_is_intel(const struct cpu_desc *c);
bool cpu_is_amd(const struct cpu_desc *c);
const char *lbr_kind_name(enum lbr_kind k);   /* "legacy", "arch", "amd-brs", ... */

/* What the running kernel offers (read from a sysfs root, "/sys" normally). */
struct kernel_pmu {
	char **pmus;              /* names in /sys/bus/event_source/devices, sorted, NULL-terminated */
	int nr_pmus;
	const char *core_pmu;     /* "cpu", or NULL when there is no hardware PMU */
	bool hybrid;              /* cpu_core + cpu_atom present */
	int caps_branches;        /* caps/branches of the core PMU, -1 if absent */
	bool branch_stack;        /* hardware branch stacks usable here */
	int perf_event_paranoid;  /* -99 if unreadable */
};
int kernel_pmu_probe(const char *sysfs_root, struct kernel_pmu *out);
void kernel_pmu_free(struct kernel_pmu *k);
/* The format terms a PMU declares (sysfs .../devices/PMU/format/TERM): NULL-terminated; free with strv_free. */
char **pmu_format_terms(const char *sysfs_root, const char *pmu);
/* Uncore box PMU names of a unit prefix ("uncore_cbox" → uncore_cbox_0, ...); free with strv_free. */
char **pmu_boxes(const char *sysfs_root, const char *prefix);

#endif
