/* ocrec info — the CPU (this one or the one named), its LBR, and what the kernel offers. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cpu/cpu.h"
#include "events/events.h"
#include "sampler/sampler.h"

static const char usage[] =
	"usage: ocrec info [--json] [--cpu CPU-STRING] [--cpuinfo FILE] [--cpuid FILE] [--sysfs DIR]\n"
	"\n"
	"Show the CPU (vendor, family, model, stepping, perfmon CPU string, microarchitecture,\n"
	"hybrid core types), its branch record hardware (LBR kind and depth, and where that was\n"
	"learnt), and what the kernel offers: PMUs, branch-stack support, perf_event_paranoid,\n"
	"and whether 'ocrec record -b' will use hardware branch records or the software sampler;\n"
	"then the event tables: which source 'ocrec download' fetches for the CPU (Intel's\n"
	"perfmon or the Linux kernel's pmu-events) and which table serves its event names.\n"
	"\n"
	"  --json            print one JSON object\n"
	"  --cpu STRING      describe this CPU instead, e.g. GenuineIntel-6-55-4\n"
	"                    (family decimal, model and stepping hex, as perf and Intel's mapfile write it)\n"
	"  --cpuinfo FILE    describe the CPU of this /proc/cpuinfo copy\n"
	"  --cpuid FILE      CPUID leaves as `cpuid -r` prints them (docs/cpuid-format.md); gives\n"
	"                    Arch LBR / AMD depths that a model table cannot\n"
	"  --sysfs DIR       read the kernel part from DIR instead of /sys (also $OCREC_SYSFS);\n"
	"                    perf_event_paranoid is read from DIR/../proc/sys/kernel\n"
	"\n"
	"The kernel part always describes the kernel (or --sysfs tree) ocrec runs on.\n";

enum { OPT_JSON = OPT_FIRST_LOCAL, OPT_CPU };

static const char *cpu_origin(const struct cpu_source *src)
{
	if (src->cpu_string)
		return src->cpuid ? "--cpu string, CPUID dump" : "--cpu string";
	if (src->cpuinfo)
		return src->cpuid ? "cpuinfo file, CPUID dump" : "cpuinfo file";
	if (src->cpuid)
		return "CPUID dump";
	return "this machine";
}

static const char *branch_recorder(const struct kernel_pmu *k)
{
	return k->branch_stack ? "hardware" : "software-sampler";
}

/* How the software sampler stops threads here (it probes with a child
 * process); SWB_BP_AUTO for a --sysfs tree, which is not this machine. */
static enum swb_bp sampler_breakpoints(const char *root)
{
	return strcmp(root, "/sys") == 0 ? swb_breakpoints() : SWB_BP_AUTO;
}

/* Which event tables serve the CPU's names: the download source for it, and the
 * tables found (their origin and where), or why there are none. */
struct events_info {
	enum ev_source download;
	const char *origin;          /* ev_table_origin(), NULL: none */
	char *table;                 /* ev_table_source(), or the reason there is none */
};

static void events_info_get(const struct cpu_desc *c, struct events_info *ei)
{
	struct ev_context *ctx = cli_open_tables(c, NULL, false);
	const char *table;

	oc_err_clear();
	ei->download = ev_default_source(c);
	ei->origin = ev_table_origin(ctx);
	table = ev_table_source(ctx);
	ei->table = xstrdup(table ? table : *oc_errmsg() ? oc_errmsg() : ev_no_table_hint(ctx));
	ev_close(ctx);
}

static const char *origin_text(const char *origin)
{
	static const char *const texts[][2] = {
		{ "perfmon", "Intel's perfmon tables, downloaded" },
		{ "linux", "the Linux kernel's pmu-events, downloaded" },
		{ "events", "--events PATH or $OCREC_EVENTS" },
		{ "built-in", "ocrec's built-in architectural events" },
	};
	size_t i;

	for (i = 0; origin && i < ARRAY_SIZE(texts); i++)
		if (!strcmp(origin, texts[i][0]))
			return texts[i][1];
	return "none";
}

static void print_events_text(const struct events_info *ei)
{
	printf("Events\n");
	printf("  download source:     %s (%s)\n", ev_source_name(ei->download),
	       ei->download == EV_SOURCE_LINUX ? "the Linux kernel's pmu-events" : "Intel's perfmon repository");
	printf("  tables:              %s%s%s\n", ei->origin ? ei->origin : "none", ei->origin ? ", " : "",
	       ei->origin ? origin_text(ei->origin) : "");
	printf("  %-21s%s\n", ei->origin ? "from:" : "why:", ei->table);
}

static json_t *events_json(const struct events_info *ei)
{
	json_t *o = json_object();

	json_object_set_new(o, "download_source", json_string(ev_source_name(ei->download)));
	json_object_set_new(o, "tables", ei->origin ? json_string(ei->origin) : json_null());
	json_object_set_new(o, ei->origin ? "from" : "why", json_string(ei->table));
	return o;
}

static void print_text(const struct cpu_desc *c, const struct cpu_source *src,
		       const struct kernel_pmu *k, const char *root, const struct events_info *ei)
{
	enum swb_bp bp;
	int i;

	printf("CPU (%s%s)\n", cpu_origin(src), c->have_cpuid && !src->cpuid ? ", CPUID" : "");
	printf("  vendor:              %s\n", c->vendor);
	printf("  family:              %u (0x%X)\n", c->family, c->family);
	printf("  model:               %u (0x%X)\n", c->model, c->model);
	printf("  stepping:            %u\n", c->stepping);
	printf("  perfmon id:          %s\n", c->perfmon_id);
	printf("  microarchitecture:   %s\n", c->name);
	if (c->hybrid)
		printf("  hybrid:              yes, %s (from %s)\n", c->core_types, c->hybrid_source);
	else
		printf("  hybrid:              no\n");
	printf("LBR\n");
	printf("  kind:                %s\n", lbr_kind_name(c->lbr.kind));
	if (c->lbr.depth >= 0)
		printf("  depth:               %d\n", c->lbr.depth);
	else
		printf("  depth:               unknown\n");
	printf("  from:                %s\n", c->lbr.source);
	printf("Kernel (%s)\n", root);
	printf("  PMUs:               ");
	for (i = 0; i < k->nr_pmus; i++)
		printf(" %s", k->pmus[i]);
	printf("%s\n", k->nr_pmus ? "" : " none");
	if (k->core_pmu)
		printf("  core PMU:            %s%s\n", k->core_pmu,
		       k->hybrid ? " (hybrid: cpu_core + cpu_atom)" : "");
	else
		printf("  core PMU:            none (no hardware PMU: only software events)\n");
	if (k->caps_branches >= 0)
		printf("  branch stack:        %s (caps/branches = %d)\n", k->branch_stack ? "yes" : "no",
		       k->caps_branches);
	else
		printf("  branch stack:        %s (%s)\n", k->branch_stack ? "yes" : "no",
		       !k->core_pmu ? "no core PMU" :
		       k->branch_stack ? "perf_event_open probe" : "no caps/branches");
	if (k->perf_event_paranoid != -99)
		printf("  perf_event_paranoid: %d\n", k->perf_event_paranoid);
	else
		printf("  perf_event_paranoid: unreadable\n");
	printf("  record -b uses:      %s\n", k->branch_stack ? "hardware branch records" :
	       "the software branch sampler (no hardware branch stack here)");
	if ((bp = sampler_breakpoints(root)) != SWB_BP_AUTO)
		printf("  sampler stops at:    %s (%s)\n", bp == SWB_BP_INT3 ?
		       "int3 written into the code" : "debug registers", swb_breakpoints_why());
	print_events_text(ei);
}

static json_t *int_or_null(long long v, bool known)
{
	return known ? json_integer(v) : json_null();
}

static void print_json(const struct cpu_desc *c, const struct cpu_source *src,
		       const struct kernel_pmu *k, const char *root, const struct events_info *ei)
{
	json_t *cpu = json_object(), *lbr = json_object(), *kern = json_object(), *pmus = json_array();
	json_t *top = json_object();
	enum swb_bp bp;
	char *text;
	int i;

	json_object_set_new(cpu, "vendor", json_string(c->vendor));
	json_object_set_new(cpu, "family", json_integer(c->family));
	json_object_set_new(cpu, "model", json_integer(c->model));
	json_object_set_new(cpu, "stepping", json_integer(c->stepping));
	json_object_set_new(cpu, "perfmon_id", json_string(c->perfmon_id));
	json_object_set_new(cpu, "name", json_string(c->name));
	json_object_set_new(cpu, "hybrid", json_boolean(c->hybrid));
	json_object_set_new(cpu, "core_types", c->hybrid ? json_string(c->core_types) : json_null());
	json_object_set_new(cpu, "source", json_string(cpu_origin(src)));
	json_object_set_new(cpu, "have_cpuid", json_boolean(c->have_cpuid));

	json_object_set_new(lbr, "depth", int_or_null(c->lbr.depth, c->lbr.depth >= 0));
	json_object_set_new(lbr, "kind", json_string(lbr_kind_name(c->lbr.kind)));
	json_object_set_new(lbr, "source", json_string(c->lbr.source));

	for (i = 0; i < k->nr_pmus; i++)
		json_array_append_new(pmus, json_string(k->pmus[i]));
	json_object_set_new(kern, "sysfs", json_string(root));
	json_object_set_new(kern, "pmus", pmus);
	json_object_set_new(kern, "core_pmu", k->core_pmu ? json_string(k->core_pmu) : json_null());
	json_object_set_new(kern, "hybrid", json_boolean(k->hybrid));
	json_object_set_new(kern, "caps_branches", int_or_null(k->caps_branches, k->caps_branches >= 0));
	json_object_set_new(kern, "branch_stack", json_boolean(k->branch_stack));
	json_object_set_new(kern, "perf_event_paranoid",
			    int_or_null(k->perf_event_paranoid, k->perf_event_paranoid != -99));
	json_object_set_new(kern, "branch_recorder", json_string(branch_recorder(k)));
	bp = sampler_breakpoints(root);
	json_object_set_new(kern, "sampler_breakpoints", bp == SWB_BP_AUTO ? json_null() :
			    json_string(bp == SWB_BP_INT3 ? "int3" : "debug-registers"));

	json_object_set_new(top, "cpu", cpu);
	json_object_set_new(top, "lbr", lbr);
	json_object_set_new(top, "kernel", kern);
	json_object_set_new(top, "events", events_json(ei));
	text = json_dumps(top, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	puts(text);
	free(text);
	json_decref(top);
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "cpu", required_argument, NULL, OPT_CPU },
		GLOBAL_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct cpu_source src = { NULL, NULL, NULL };
	struct cpu_desc cpu;
	struct kernel_pmu kern;
	struct events_info ei;
	bool json = false;
	const char *root;
	int c;

	while ((c = cli_getopt(argc, argv, "h", opts)) != -1) {
		switch (c) {
		case OPT_JSON: json = true; break;
		case OPT_CPU: src.cpu_string = optarg; break;
		case 'h': return cli_help(usage);
		default: return cli_bad_usage("info");
		}
	}
	if (optind < argc)
		return cli_error("info: unexpected argument '%s' (see 'ocrec info --help')", argv[optind]);
	src.cpuinfo = g_opts.cpuinfo;
	src.cpuid = g_opts.cpuid;
	if (src.cpu_string && src.cpuinfo)
		return cli_error("info: --cpu and --cpuinfo both name a CPU; give one");
	if (cpu_detect(&src, &cpu) < 0)
		return cli_fail();
	root = sysfs_root();
	if (kernel_pmu_probe(root, &kern) < 0)
		return cli_fail();
	events_info_get(&cpu, &ei);
	if (json)
		print_json(&cpu, &src, &kern, root, &ei);
	else
		print_text(&cpu, &src, &kern, root, &ei);
	free(ei.table);
	kernel_pmu_free(&kern);
	return 0;
}
