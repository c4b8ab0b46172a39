/* kernel.c — what ocrec takes from the Linux kernel's PMU drivers for
 * resolving where sysfs does not show a PMU (this VM, or --cpu for another
 * machine): the format terms of the core PMUs (Intel, AMD) and of AMD's uncore
 * PMUs, the Intel core PMU's topdown aliases, and which PMU a pmu-events
 * `Unit` names (tools/perf/pmu-events/jevents.py, unit_to_pmu). */
#include <string.h>
#include <strings.h>

#include "events/ev-internal.h"

/* arch/x86/events/intel/core.c */
static const struct ev_format intel_core[] = {
	{ "event", "config:0-7" }, { "umask", "config:8-15" }, { "edge", "config:18" },
	{ "pc", "config:19" }, { "any", "config:21" }, { "inv", "config:23" },
	{ "cmask", "config:24-31" }, { "in_tx", "config:32" }, { "in_tx_cp", "config:33" },
	{ "offcore_rsp", "config1:0-63" }, { "ldlat", "config1:0-15" },
	{ "frontend", "config1:0-23" }, { NULL, NULL },
};

/* arch/x86/events/amd/core.c: event codes above 0xff go to bits 32-35 */
static const struct ev_format amd_core[] = {
	{ "event", "config:0-7,32-35" }, { "umask", "config:8-15" }, { "edge", "config:18" },
	{ "inv", "config:23" }, { "cmask", "config:24-31" }, { NULL, NULL },
};

/* arch/x86/events/amd/uncore.c: L3 of family 19h on, and of 17h/18h */
static const struct ev_format amd_l3_f19h[] = {
	{ "event", "config:0-7" }, { "umask", "config:8-15" }, { "threadmask", "config:56-57" },
	{ "coreid", "config:42-44" }, { "enallslices", "config:46" }, { "enallcores", "config:47" },
	{ "sliceid", "config:48-50" }, { NULL, NULL },
};
static const struct ev_format amd_l3_f17h[] = {
	{ "event", "config:0-7" }, { "umask", "config:8-15" }, { "threadmask", "config:56-63" },
	{ "slicemask", "config:48-51" }, { NULL, NULL },
};
/* the data fabric, with PerfMonV2 (Zen 4 on) and before */
static const struct ev_format amd_df_v2[] = {
	{ "event", "config:0-7,32-37" }, { "umask", "config:8-15,24-27" }, { NULL, NULL },
};
static const struct ev_format amd_df_v1[] = {
	{ "event", "config:0-7,32-35,59-60" }, { "umask", "config:8-15" }, { NULL, NULL },
};
/* the memory controllers (PerfMonV2 only) */
static const struct ev_format amd_umc[] = {
	{ "event", "config:0-7" }, { "rdwrmask", "config:8-9" }, { NULL, NULL },
};

/* The kernel's topdown aliases of the Intel core PMU (its events/ in sysfs). */
static const struct ev_format intel_core_aliases[] = {
	{ "slots", "event=0x00,umask=0x4" },
	{ "topdown-retiring", "event=0x00,umask=0x80" },
	{ "topdown-bad-spec", "event=0x00,umask=0x81" },
	{ "topdown-fe-bound", "event=0x00,umask=0x82" },
	{ "topdown-be-bound", "event=0x00,umask=0x83" },
	{ "topdown-heavy-ops", "event=0x00,umask=0x84" },
	{ "topdown-br-mispredict", "event=0x00,umask=0x85" },
	{ "topdown-fetch-lat", "event=0x00,umask=0x86" },
	{ "topdown-mem-bound", "event=0x00,umask=0x87" },
	{ NULL, NULL },
};

/* jevents.py's unit_to_pmu for the units that are not an Intel uncore box
 * (those are uncore_<unit>, ocperf.c). */
static const struct { const char *unit, *pmu; } unit_pmus[] = {
	{ "L3PMC", "amd_l3" }, { "DFPMC", "amd_df" }, { "UMCPMC", "amd_umc" },
};

static bool is_core_pmu(const char *name)
{
	return !strcmp(name, "cpu") || !strcmp(name, "cpu_core") || !strcmp(name, "cpu_atom");
}

/* The CPU the names are for; NULL when it cannot be told (Intel's formats then). */
static const struct cpu_desc *ctx_cpu(struct ev_context *ctx)
{
	if (!ctx->have_cpu) {
		if (cpu_detect(NULL, &ctx->cpu) < 0) {
			oc_err_clear();
			return NULL;
		}
		ctx->have_cpu = true;
	}
	return &ctx->cpu;
}

const struct ev_format *ev_kernel_formats(struct ev_context *ctx, const char *pmu, uint32_t *type)
{
	const struct cpu_desc *cpu;
	bool amd;

	*type = EV_TYPE_UNKNOWN;
	if (!is_core_pmu(pmu) && strncmp(pmu, "amd_", 4) != 0)
		return NULL;
	cpu = ctx_cpu(ctx);
	amd = cpu && cpu_is_amd(cpu);
	if (is_core_pmu(pmu)) {
		/* the x86 core PMU is PERF_TYPE_RAW; a hybrid part's cpu_atom has its own type */
		if (strcmp(pmu, "cpu_atom") != 0)
			*type = PERF_TYPE_RAW;
		if (!amd)
			return intel_core;
		return strcmp(pmu, "cpu") ? NULL : amd_core;
	}
	if (!amd)
		return NULL;
	if (!strcmp(pmu, "amd_l3"))
		return cpu->family >= 0x19 ? amd_l3_f19h : cpu->family >= 0x17 ? amd_l3_f17h : NULL;
	if (!strcmp(pmu, "amd_df"))
		return cpu->amd_perfmon_v2 ? amd_df_v2 : cpu->family >= 0x17 ? amd_df_v1 : NULL;
	if (!strcmp(pmu, "amd_umc"))
		return cpu->amd_perfmon_v2 ? amd_umc : NULL;
	return NULL;
}

const char *ev_kernel_alias(struct ev_context *ctx, const char *pmu, const char *name)
{
	const struct cpu_desc *cpu;
	size_t i;

	if (!is_core_pmu(pmu) || ((cpu = ctx_cpu(ctx)) && cpu_is_amd(cpu)))
		return NULL;
	for (i = 0; intel_core_aliases[i].term; i++)
		if (!strcmp(name, intel_core_aliases[i].term))
			return intel_core_aliases[i].spec;
	return NULL;
}

const char *ev_kernel_unit_pmu(const char *unit)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(unit_pmus); i++)
		if (!strcasecmp(unit, unit_pmus[i].unit))
			return unit_pmus[i].pmu;
	return NULL;
}
