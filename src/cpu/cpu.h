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
	bool this_machine;        /* same vendor, family and model as the CPU ocrec runs on */
	struct lbr_info lbr;
	bool amd_perfmon_v2;      /* AMD PerfMonV2 (CPUID 0x80000022 EAX[0]; without CPUID: Zen 4 on) */
	const char *core_types;   /* hybrid parts: "Golden Cove + Gracemont"; else NULL */
	const char *hybrid_source; /* "CPUID 7 EDX[15]" or "model table"; NULL when not hybrid */
};

/* Identify the CPU; 0, or -1 + oc_err() naming the bad input. */
int cpu_detect(const struct cpu_source *src, struct cpu_desc *out);
bool cpu_is_intel(const struct cpu_desc *c);
bool cpu_is_amd(const struct cpu_desc *c);
const char *lbr_kind_name(enum lbr_kind k);   /* "legacy", "arch", "amd-brs", ... */

/* Parse a perfmon CPU string "GenuineIntel-6-55-4" (family decimal, model and
 * stepping hex) into vendor/family/model/stepping; 0, or -1 + oc_err(). */
int cpu_parse_string(const char *s, struct cpu_desc *out);
/* Name, hybrid and LBR of out (vendor/family/model/stepping set) from the tables
 * and, when cpuid is not NULL, CPUID leaves (struct cpuid_leaves, cpu/cpuid.h). */
struct cpuid_leaves;
void cpu_classify(struct cpu_desc *out, const struct cpuid_leaves *cpuid);

/* The architectural performance events CPUID leaf 0xA says the CPU has (bit i:
 * the SDM's event i), read from cpuid_path (a dump) or, without one and when
 * live, from this CPU; every bit when CPUID cannot say. */
uint32_t cpu_arch_events_present(const char *cpuid_path, bool live);

/* What the running kernel offers (read from a sysfs root, "/sys" normally).
 * perf_event_paranoid is read from proc/sys/kernel/perf_event_paranoid beside the
 * sysfs root (/sys → /proc; a fake tree FAKE/sys → FAKE/proc). On hybrid parts
 * core_pmu is "cpu_core". Without caps/branches, branch_stack is probed with
 * perf_event_open on the live /sys only. */
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
/* The contents of one format term ("config:0-7"); NULL + oc_err() when absent. Caller frees. */
char *pmu_format_term_spec(const char *sysfs_root, const char *pmu, const char *term);
/* Uncore box PMU names of a unit prefix ("uncore_cbox" → uncore_cbox_0, ...); free with strv_free. */
char **pmu_boxes(const char *sysfs_root, const char *prefix);

#endif
