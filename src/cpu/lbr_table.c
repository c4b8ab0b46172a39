/* What each CPU model is called and which branch stack it has: tables, read by
 * cpu_classify(). Intel family-6 models and their LBR init functions follow the
 * Linux kernel (arch/x86/events/intel/core.c model switch, intel/lbr.c init
 * functions); AMD by family/model range (Zen 3 BRS in amd/brs.c, Zen 4+
 * LbrExtV2 in amd/lbr.c). */
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/cpuid.h"
#include "util/util.h"

/* The kernel's legacy-LBR init functions, each with the depth it sets. */
enum lbr_init {
	INIT_NONE,   /* not in the kernel's switch: no LBR */
	INIT_CORE, INIT_NHM, INIT_ATOM, INIT_SLM, INIT_GLM, INIT_SNB, INIT_HSW,
	INIT_KNL, INIT_SKL, INIT_ICL,
	INIT_ARCH,   /* Architectural LBR: depth from CPUID 0x1C */
};

static const struct {
	enum lbr_kind kind;
	int depth;
	const char *source;
} lbr_inits[] = {
	[INIT_NONE] = { LBR_NONE, 0, "model table: no LBR for this model in the kernel" },
	[INIT_CORE] = { LBR_LEGACY, 4, "model table (intel_pmu_lbr_init_core)" },
	[INIT_NHM]  = { LBR_LEGACY, 16, "model table (intel_pmu_lbr_init_nhm)" },
	[INIT_ATOM] = { LBR_LEGACY, 8, "model table (intel_pmu_lbr_init_atom)" },
	[INIT_SLM]  = { LBR_LEGACY, 8, "model table (intel_pmu_lbr_init_slm)" },
	[INIT_GLM]  = { LBR_LEGACY, 32, "model table (intel_pmu_lbr_init_skl, Goldmont)" },
	[INIT_SNB]  = { LBR_LEGACY, 16, "model table (intel_pmu_lbr_init_snb)" },
	[INIT_HSW]  = { LBR_LEGACY, 16, "model table (intel_pmu_lbr_init_hsw)" },
	[INIT_KNL]  = { LBR_LEGACY, 8, "model table (intel_pmu_lbr_init_knl)" },
	[INIT_SKL]  = { LBR_LEGACY, 32, "model table (intel_pmu_lbr_init_skl)" },
	[INIT_ICL]  = { LBR_LEGACY, 32, "model table (intel_pmu_lbr_init_skl, Ice Lake)" },
	[INIT_ARCH] = { LBR_ARCH, -1, "model table: Architectural LBR, depth needs CPUID 0x1C (--cpuid)" },
};

struct intel_model {
	uint8_t model;
	uint8_t step_lo, step_hi;   /* stepping range this row names */
	enum lbr_init lbr;
	const char *name;
	const char *core_types;     /* hybrid parts */
};

#define ANY_STEP 0, 0xff

/* Intel family 6, from the kernel's intel-family.h and core.c model switch. */
static const struct intel_model intel_models[] = {
	{ 0x0E, ANY_STEP, INIT_NONE, "Yonah", NULL },
	{ 0x0F, ANY_STEP, INIT_CORE, "Merom", NULL },
	{ 0x16, ANY_STEP, INIT_CORE, "Merom-L", NULL },
	{ 0x17, ANY_STEP, INIT_CORE, "Penryn", NULL },
	{ 0x1D, ANY_STEP, INIT_CORE, "Dunnington", NULL },
	{ 0x1E, ANY_STEP, INIT_NHM, "Nehalem", NULL },
	{ 0x1A, ANY_STEP, INIT_NHM, "Nehalem-EP", NULL },
	{ 0x2E, ANY_STEP, INIT_NHM, "Nehalem-EX", NULL },
	{ 0x1F, ANY_STEP, INIT_NONE, "Nehalem-G", NULL },
	{ 0x25, ANY_STEP, INIT_NHM, "Westmere", NULL },
	{ 0x2C, ANY_STEP, INIT_NHM, "Westmere-EP", NULL },
	{ 0x2F, ANY_STEP, INIT_NHM, "Westmere-EX", NULL },
	{ 0x1C, ANY_STEP, INIT_ATOM, "Bonnell", NULL },
	{ 0x26, ANY_STEP, INIT_ATOM, "Bonnell-MID", NULL },
	{ 0x36, ANY_STEP, INIT_ATOM, "Saltwell", NULL },
	{ 0x27, ANY_STEP, INIT_ATOM, "Saltwell-MID", NULL },
	{ 0x35, ANY_STEP, INIT_ATOM, "Saltwell-Tablet", NULL },
	{ 0x37, ANY_STEP, INIT_SLM, "Silvermont", NULL },
	{ 0x4D, ANY_STEP, INIT_SLM, "Silvermont-D", NULL },
	{ 0x4A, ANY_STEP, INIT_SLM, "Silvermont-MID", NULL },
	{ 0x4C, ANY_STEP, INIT_SLM, "Airmont", NULL },
	{ 0x5A, ANY_STEP, INIT_SLM, "Airmont-MID", NULL },
	{ 0x75, ANY_STEP, INIT_NONE, "Airmont-NP", NULL },
	{ 0x5C, ANY_STEP, INIT_GLM, "Goldmont", NULL },
	{ 0x5F, ANY_STEP, INIT_GLM, "Goldmont-D (Denverton)", NULL },
	{ 0x7A, ANY_STEP, INIT_GLM, "Goldmont Plus", NULL },
	{ 0x86, ANY_STEP, INIT_GLM, "Tremont-D (Snow Ridge)", NULL },
	{ 0x96, ANY_STEP, INIT_GLM, "Tremont (Elkhart Lake)", NULL },
	{ 0x9C, ANY_STEP, INIT_GLM, "Tremont-L (Jasper Lake)", NULL },
	{ 0x2A, ANY_STEP, INIT_SNB, "Sandy Bridge", NULL },
	{ 0x2D, ANY_STEP, INIT_SNB, "Sandy Bridge-X", NULL },
	{ 0x3A, ANY_STEP, INIT_SNB, "Ivy Bridge", NULL },
	{ 0x3E, ANY_STEP, INIT_SNB, "Ivy Bridge-X", NULL },
	{ 0x3C, ANY_STEP, INIT_HSW, "Haswell", NULL },
	{ 0x3F, ANY_STEP, INIT_HSW, "Haswell-X", NULL },
	{ 0x45, ANY_STEP, INIT_HSW, "Haswell-L", NULL },
	{ 0x46, ANY_STEP, INIT_HSW, "Haswell-G", NULL },
	{ 0x3D, ANY_STEP, INIT_HSW, "Broadwell", NULL },
	{ 0x47, ANY_STEP, INIT_HSW, "Broadwell-G", NULL },
	{ 0x4F, ANY_STEP, INIT_HSW, "Broadwell-X", NULL },
	{ 0x56, ANY_STEP, INIT_HSW, "Broadwell-D", NULL },
	{ 0x57, ANY_STEP, INIT_KNL, "Knights Landing", NULL },
	{ 0x85, ANY_STEP, INIT_KNL, "Knights Mill", NULL },
	/* 0x55 is one model for three server generations, told apart by stepping
	 * (as Intel's perfmon mapfile does) */
	{ 0x55, 0x0, 0x4, INIT_SKL, "Skylake-X", NULL },
	{ 0x55, 0x5, 0x9, INIT_SKL, "Cascade Lake-X", NULL },
	{ 0x55, 0xA, 0xff, INIT_SKL, "Cooper Lake", NULL },
	{ 0x4E, ANY_STEP, INIT_SKL, "Skylake-L", NULL },
	{ 0x5E, ANY_STEP, INIT_SKL, "Skylake", NULL },
	{ 0x8E, ANY_STEP, INIT_SKL, "Kaby Lake-L (Amber/Whiskey Lake)", NULL },
	{ 0x9E, ANY_STEP, INIT_SKL, "Kaby Lake / Coffee Lake", NULL },
	{ 0xA5, ANY_STEP, INIT_SKL, "Comet Lake", NULL },
	{ 0xA6, ANY_STEP, INIT_SKL, "Comet Lake-L", NULL },
	{ 0x66, ANY_STEP, INIT_NONE, "Cannon Lake", NULL },
	{ 0x6A, ANY_STEP, INIT_ICL, "Ice Lake-X", NULL },
	{ 0x6C, ANY_STEP, INIT_ICL, "Ice Lake-D", NULL },
	{ 0x7D, ANY_STEP, INIT_ICL, "Ice Lake", NULL },
	{ 0x7E, ANY_STEP, INIT_ICL, "Ice Lake-L", NULL },
	{ 0x9D, ANY_STEP, INIT_NONE, "Ice Lake NNPI", NULL },
	{ 0x8C, ANY_STEP, INIT_ICL, "Tiger Lake-L", NULL },
	{ 0x8D, ANY_STEP, INIT_ICL, "Tiger Lake", NULL },
	{ 0xA7, ANY_STEP, INIT_ICL, "Rocket Lake", NULL },
	{ 0x8A, ANY_STEP, INIT_NONE, "Lakefield", "Sunny Cove + Tremont" },
	{ 0x8F, ANY_STEP, INIT_ARCH, "Sapphire Rapids", NULL },
	{ 0xCF, ANY_STEP, INIT_ARCH, "Emerald Rapids", NULL },
	{ 0xAD, ANY_STEP, INIT_ARCH, "Granite Rapids-X", NULL },
	{ 0xAE, ANY_STEP, INIT_ARCH, "Granite Rapids-D", NULL },
	{ 0x97, ANY_STEP, INIT_ARCH, "Alder Lake", "Golden Cove + Gracemont" },
	{ 0x9A, ANY_STEP, INIT_ARCH, "Alder Lake-L", "Golden Cove + Gracemont" },
	{ 0xBE, ANY_STEP, INIT_ARCH, "Alder Lake-N (Gracemont)", NULL },
	{ 0xB7, ANY_STEP, INIT_ARCH, "Raptor Lake", "Raptor Cove + Gracemont" },
	{ 0xBA, ANY_STEP, INIT_ARCH, "Raptor Lake-P", "Raptor Cove + Gracemont" },
	{ 0xBF, ANY_STEP, INIT_ARCH, "Raptor Lake-S", "Raptor Cove + Gracemont" },
	{ 0xAC, ANY_STEP, INIT_ARCH, "Meteor Lake", "Redwood Cove + Crestmont" },
	{ 0xAA, ANY_STEP, INIT_ARCH, "Meteor Lake-L", "Redwood Cove + Crestmont" },
	{ 0xC6, ANY_STEP, INIT_ARCH, "Arrow Lake", "Lion Cove + Skymont" },
	{ 0xC5, ANY_STEP, INIT_ARCH, "Arrow Lake-H", "Lion Cove + Skymont" },
	{ 0xB5, ANY_STEP, INIT_ARCH, "Arrow Lake-U", "Lion Cove + Skymont" },
	{ 0xBD, ANY_STEP, INIT_ARCH, "Lunar Lake", "Lion Cove + Skymont" },
	{ 0xCC, ANY_STEP, INIT_ARCH, "Panther Lake", "Cougar Cove + Darkmont" },
	{ 0xAF, ANY_STEP, INIT_ARCH, "Sierra Forest", NULL },
	{ 0xB6, ANY_STEP, INIT_ARCH, "Grand Ridge", NULL },
	{ 0xDD, ANY_STEP, INIT_ARCH, "Clearwater Forest", NULL },
};

/* The kernel enables Bonnell's LBR only from this stepping on (intel_pmu_lbr_init_atom). */
#define BONNELL_MODEL 0x1C
#define BONNELL_FIRST_GOOD_STEPPING 10

/* What an AMD family (or model range) implies before CPUID is read. */
enum amd_branch {
	AMD_NONE,    /* Zen 1/2 and older: no branch stack */
	AMD_BRS,     /* Zen 3: BRS (16) when CPUID 0x80000008 EBX[31] */
	AMD_LBR_V2,  /* Zen 4+: LbrExtV2, depth CPUID 0x80000022 EBX[9:4] */
};

struct amd_model {
	uint8_t family, model_lo, model_hi;
	enum amd_branch branch;
	const char *name;
};

/* Model ranges as perf's AMD mapfile splits them (pmu-events/arch/x86/mapfile.csv). */
static const struct amd_model amd_models[] = {
	{ 0x0F, 0x00, 0xff, AMD_NONE, "K8" },
	{ 0x10, 0x00, 0xff, AMD_NONE, "K10" },
	{ 0x11, 0x00, 0xff, AMD_NONE, "K8 (Griffin)" },
	{ 0x12, 0x00, 0xff, AMD_NONE, "K10 (Llano)" },
	{ 0x14, 0x00, 0xff, AMD_NONE, "Bobcat" },
	{ 0x15, 0x00, 0x0f, AMD_NONE, "Bulldozer" },
	{ 0x15, 0x10, 0x2f, AMD_NONE, "Piledriver" },
	{ 0x15, 0x30, 0x3f, AMD_NONE, "Steamroller" },
	{ 0x15, 0x60, 0x7f, AMD_NONE, "Excavator" },
	{ 0x16, 0x00, 0xff, AMD_NONE, "Jaguar" },
	{ 0x17, 0x00, 0x2f, AMD_NONE, "Zen" },
	{ 0x17, 0x30, 0xff, AMD_NONE, "Zen 2" },
	{ 0x19, 0x00, 0x0f, AMD_BRS, "Zen 3 (Milan)" },
	{ 0x19, 0x10, 0x1f, AMD_LBR_V2, "Zen 4 (Genoa)" },
	{ 0x19, 0x20, 0x2f, AMD_BRS, "Zen 3 (Vermeer)" },
	{ 0x19, 0x30, 0x3f, AMD_LBR_V2, "Zen 4" },
	{ 0x19, 0x40, 0x4f, AMD_BRS, "Zen 3+ (Rembrandt)" },
	{ 0x19, 0x50, 0x5f, AMD_BRS, "Zen 3 (Cezanne)" },
	{ 0x19, 0x60, 0x6f, AMD_LBR_V2, "Zen 4 (Raphael)" },
	{ 0x19, 0x70, 0x7f, AMD_LBR_V2, "Zen 4 (Phoenix)" },
	{ 0x19, 0xa0, 0xaf, AMD_LBR_V2, "Zen 4c (Bergamo/Siena)" },
	{ 0x1A, 0x00, 0xff, AMD_LBR_V2, "Zen 5" },
};

#define AMD_BRS_FAMILY 0x19   /* the kernel enables BRS on this family only (amd/brs.c) */
#define AMD_BRS_DEPTH 16

static void set_lbr(struct cpu_desc *c, enum lbr_kind kind, int depth, const char *source)
{
	c->lbr.kind = kind;
	c->lbr.depth = depth;
	c->lbr.source = source;
}

static const struct intel_model *find_intel_model(unsigned family, unsigned model, unsigned stepping)
{
	size_t i;
	if (family != 6)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(intel_models); i++) {
		const struct intel_model *m = &intel_models[i];
		if (m->model == model && stepping >= m->step_lo && stepping <= m->step_hi)
			return m;
	}
	return NULL;
}

static const struct amd_model *find_amd_model(unsigned family, unsigned model)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(amd_models); i++) {
		const struct amd_model *m = &amd_models[i];
		if (m->family == family && model >= m->model_lo && model <= m->model_hi)
			return m;
	}
	return NULL;
}

/* fls(): position of the highest set bit, 1-based; 0 for 0. */
static int highest_bit(uint32_t x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

/* Arch LBR (CPUID 7 EDX[19]); returns true when it decided the LBR. */
static bool intel_arch_lbr(struct cpu_desc *c, const struct cpuid_leaves *cpuid)
{
	struct cpuid_regs r;
	if (!cpuid_query(cpuid, 7, 0, &r) || !(r.edx & (1u << 19)))
		return false;
	if (!cpuid_query(cpuid, 0x1c, 0, &r)) {
		set_lbr(c, LBR_ARCH, -1, "CPUID 7 EDX[19] (Arch LBR); leaf 0x1C missing, depth unknown");
		return true;
	}
	/* bit n of EAX[7:0] means depth 8*(n+1) is supported; the kernel uses the largest */
	if ((r.eax & 0xff) == 0)
		set_lbr(c, LBR_NONE, 0, "CPUID 0x1C: Arch LBR depth mask is 0");
	else
		set_lbr(c, LBR_ARCH, highest_bit(r.eax & 0xff) * 8, "CPUID 0x1C EAX[7:0] depth mask");
	return true;
}

static void classify_intel(struct cpu_desc *c, const struct cpuid_leaves *cpuid)
{
	const struct intel_model *m = find_intel_model(c->family, c->model, c->stepping);
	struct cpuid_regs r;

	c->name = m ? m->name : c->family == 15 ? "NetBurst" : "unknown";
	if (cpuid && cpuid_query(cpuid, 7, 0, &r) && (r.edx & (1u << 15))) {
		c->hybrid = true;
		c->hybrid_source = "CPUID 7 EDX[15]";
	} else if (!cpuid && m && m->core_types) {
		c->hybrid = true;
		c->hybrid_source = "model table";
	}
	if (c->hybrid)
		c->core_types = m && m->core_types ? m->core_types : "unknown";

	/* the kernel tries Arch LBR before its model switch */
	if (cpuid && intel_arch_lbr(c, cpuid))
		return;
	if (!m) {
		if (c->family == 15)
			set_lbr(c, LBR_NONE, 0, "NetBurst: the kernel has no LBR support for it");
		else
			set_lbr(c, LBR_UNKNOWN, -1, "model not in ocrec's table");
		return;
	}
	if (m->lbr == INIT_ARCH && cpuid) {
		set_lbr(c, LBR_NONE, 0, "CPUID 7 EDX[19] clear: Arch LBR absent or hidden (VM)");
		return;
	}
	if (c->model == BONNELL_MODEL && c->stepping < BONNELL_FIRST_GOOD_STEPPING) {
		set_lbr(c, LBR_NONE, 0, "model table: Bonnell LBR erratum (stepping < 10)");
		return;
	}
	set_lbr(c, lbr_inits[m->lbr].kind, lbr_inits[m->lbr].depth, lbr_inits[m->lbr].source);
}

static void classify_amd(struct cpu_desc *c, const struct cpuid_leaves *cpuid)
{
	const struct amd_model *m = find_amd_model(c->family, c->model);
	struct cpuid_regs r;

	c->name = m ? m->name : "unknown";
	c->amd_perfmon_v2 = cpuid ? cpuid_query(cpuid, 0x80000022, 0, &r) && (r.eax & 1) :
			    m && m->branch == AMD_LBR_V2;
	if (cpuid) {
		/* LbrExtV2 is preferred over BRS (amd/core.c); needs PerfMonV2 too */
		if (cpuid_query(cpuid, 0x80000022, 0, &r) && (r.eax & 3) == 3) {
			set_lbr(c, LBR_AMD_V2, (int)((r.ebx >> 4) & 0x3f), "CPUID 0x80000022 EBX[9:4]");
			return;
		}
		if (c->family == AMD_BRS_FAMILY && cpuid_query(cpuid, 0x80000008, 0, &r) &&
		    (r.ebx & (1u << 31))) {
			set_lbr(c, LBR_AMD_BRS, AMD_BRS_DEPTH, "CPUID 0x80000008 EBX[31] (BRS), family 0x19");
			return;
		}
		set_lbr(c, LBR_NONE, 0,
			"CPUID: neither LbrExtV2 (0x80000022 EAX[1]) nor BRS (0x80000008 EBX[31])");
		return;
	}
	if (!m) {
		set_lbr(c, LBR_UNKNOWN, -1, "family/model not in ocrec's table");
		return;
	}
	switch (m->branch) {
	case AMD_NONE:
		set_lbr(c, LBR_NONE, 0, "family table: no branch stack before Zen 3");
		break;
	case AMD_BRS:
		set_lbr(c, LBR_UNKNOWN, -1,
			"family table: Zen 3 has BRS (16) only if CPUID 0x80000008 EBX[31] is set (--cpuid)");
		break;
	case AMD_LBR_V2:
		set_lbr(c, LBR_AMD_V2, -1, "family table: LbrExtV2, depth needs CPUID 0x80000022 (--cpuid)");
		break;
	}
}

void cpu_classify(struct cpu_desc *c, const struct cpuid_leaves *cpuid)
{
	c->hybrid = false;
	c->amd_perfmon_v2 = false;
	c->core_types = c->hybrid_source = NULL;
	if (cpu_is_intel(c)) {
		classify_intel(c, cpuid);
	} else if (cpu_is_amd(c)) {
		classify_amd(c, cpuid);
	} else {
		c->name = "unknown";
		set_lbr(c, LBR_UNKNOWN, -1, "vendor not in ocrec's tables");
	}
}

bool cpu_is_intel(const struct cpu_desc *c)
{
	return strcmp(c->vendor, "GenuineIntel") == 0;
}

bool cpu_is_amd(const struct cpu_desc *c)
{
	return strcmp(c->vendor, "AuthenticAMD") == 0;
}

const char *lbr_kind_name(enum lbr_kind k)
{
	static const char *const names[] = {
		[LBR_UNKNOWN] = "unknown", [LBR_NONE] = "none", [LBR_LEGACY] = "legacy",
		[LBR_ARCH] = "arch", [LBR_AMD_BRS] = "amd-brs", [LBR_AMD_V2] = "amd-lbr-v2",
	};
	return (unsigned)k < ARRAY_SIZE(names) ? names[k] : "unknown";
}
