/* Unit tests of src/events: perf syntax, tables, mapfile rows, the ocperf
 * encoding, libpfm4, the index cache. Fixtures: tests/fixtures/events. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/ev-internal.h"
#include "tap.h"

static char fixtures[1024];

/* A fixture path; the strings live until the end of the test. */
static const char *fix(const char *rel)
{
	static char buf[8][2048];
	static int n;
	char *b = buf[n++ % 8];
	snprintf(b, sizeof(buf[0]), "%s/%s", fixtures, rel);
	return b;
}

static struct ev_context *open_cpu(const char *cpu_string, const char *events, const char *sysfs, bool record)
{
	static struct cpu_desc cpu;
	struct ev_options o = { &cpu, events, sysfs, record };
	if (cpu_parse_string(cpu_string, &cpu) < 0)
		return NULL;
	snprintf(cpu.perfmon_id, sizeof(cpu.perfmon_id), "%s", cpu_string);
	return ev_open(&o);
}

static void test_generic(void)
{
	struct ev_context *ctx = open_cpu("GenuineIntel-6-5E-3", NULL, fix("sysfs-intel"), false);
	struct ev_resolved r;

	CHECK(ev_resolve(ctx, "cycles", &r) == 0, "cycles resolves");
	CHECK_INT(r.nr_attrs, 1, "cycles: one attr");
	CHECK_INT(r.attrs[0].attr.type, PERF_TYPE_HARDWARE, "cycles: hardware type");
	CHECK_U64(r.attrs[0].attr.config, PERF_COUNT_HW_CPU_CYCLES, "cycles: config");
	CHECK_INT(r.attrs[0].attr.size, sizeof(struct perf_event_attr), "attr size set");
	ev_resolved_free(&r);

	CHECK(ev_resolve(ctx, "Instructions:u", &r) == 0, "generic names ignore case");
	CHECK_STR(r.attrs[0].perf_string, "instructions:u", "canonical perf string");
	CHECK(r.attrs[0].attr.exclude_kernel && r.attrs[0].attr.exclude_hv && !r.attrs[0].attr.exclude_user,
	      ":u excludes kernel and hypervisor");
	ev_resolved_free(&r);

	CHECK(ev_resolve(ctx, "task-clock", &r) == 0, "task-clock resolves");
	CHECK_INT(r.attrs[0].attr.type, PERF_TYPE_SOFTWARE, "task-clock: software");
	CHECK_U64(r.attrs[0].attr.config, PERF_COUNT_SW_TASK_CLOCK, "task-clock: config");
	ev_resolved_free(&r);

	CHECK(ev_resolve(ctx, "branch-misses:ppk", &r) == 0, "p and k together");
	CHECK_INT(r.attrs[0].attr.precise_ip, 2, ":pp is precise_ip 2");
	CHECK(r.attrs[0].attr.exclude_user && r.attrs[0].attr.exclude_guest, ":k excludes user (and guest)");
	ev_resolved_free(&r);

	CHECK(ev_resolve(ctx, "cycles:pppp", &r) < 0, "four p's fail");
	CHECK(strstr(oc_errmsg(), "at most ppp") != NULL, "and say why");
	CHECK(ev_resolve(ctx, "cycles:z", &r) < 0, "unknown perf modifier fails");
	CHECK(strstr(oc_errmsg(), "unknown modifier 'z'") && strstr(oc_errmsg(), "ukhIGH"),
	      "the error lists the valid modifiers");

	CHECK(ev_resolve(ctx, "r1a8", &r) == 0, "raw event");
	CHECK_INT(r.attrs[0].attr.type, PERF_TYPE_RAW, "raw: type");
	CHECK_U64(r.attrs[0].attr.config, 0x1a8, "raw: config");
	ev_resolved_free(&r);

	CHECK(ev_resolve(ctx, "LLC-load-misses", &r) == 0, "cache event");
	CHECK_U64(r.attrs[0].attr.config, PERF_COUNT_HW_CACHE_LL | PERF_COUNT_HW_CACHE_OP_READ << 8 |
		  (uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS << 16, "cache event config");
	ev_resolved_free(&r);

	CHECK(ev_resolve(ctx, "cpu/event=0x3c,umask=0x1,cmask=2,inv,period=5000/k", &r) == 0, "pmu terms");
	CHECK_U64(r.attrs[0].attr.config, 0x3c | 0x1 << 8 | 2ULL << 24 | 1ULL << 23, "terms placed by format");
	CHECK_U64(r.attrs[0].attr.sample_period, 5000, "period term");
	CHECK_INT(r.attrs[0].attr.type, 4, "type from sysfs");
	ev_resolved_free(&r);

	CHECK(ev_resolve(ctx, "cpu/event=0x1ff/", &r) < 0, "a value wider than its format fails");
	CHECK(strstr(oc_errmsg(), "does not fit") != NULL, "and says so");
	CHECK(ev_resolve(ctx, "cpu/bogus=1/", &r) < 0, "an unknown term fails");
	CHECK(strstr(oc_errmsg(), "no term 'bogus'") && strstr(oc_errmsg(), "umask"), "listing the PMU's terms");
	CHECK(ev_resolve(ctx, "uncore_cbox_1/event=0x34,umask=0x88/", &r) == 0, "uncore box by name");
	CHECK_INT(r.attrs[0].attr.type, 21, "its sysfs type");
	ev_resolved_free(&r);
	CHECK(ev_resolve(ctx, "nosuchpmu/event=1/", &r) < 0, "a PMU sysfs lacks fails");
	ev_close(ctx);
}

/* perf's generic names as stat takes them, without tables */
static void test_perf_generic_attr(void)
{
	struct perf_event_attr a;

	CHECK(ev_perf_generic_attr("task-clock", &a) == 0 && a.type == PERF_TYPE_SOFTWARE &&
	      a.config == PERF_COUNT_SW_TASK_CLOCK && a.size == sizeof(a), "task-clock");
	CHECK(ev_perf_generic_attr("cs", &a) == 0 && a.config == PERF_COUNT_SW_CONTEXT_SWITCHES, "alias cs");
	CHECK(ev_perf_generic_attr("cycles:u", &a) == 0 && a.type == PERF_TYPE_HARDWARE &&
	      !a.exclude_user && a.exclude_kernel && a.exclude_hv, "cycles:u counts user only");
	CHECK(ev_perf_generic_attr("page-faults:k", &a) == 0 && a.exclude_user && !a.exclude_kernel, ":k");
	CHECK(ev_perf_generic_attr("cycles:q", &a) < 0, "unknown modifier rejected");
	CHECK(ev_perf_generic_attr("cycle", &a) == 1, "near miss is not a generic name");
	CHECK(ev_perf_generic_attr("BR_INST_RETIRED.NEAR_TAKEN", &a) == 1, "table event is not generic");
}

static void test_tables(void)
{
	struct ev_context *ctx = open_cpu("GenuineIntel-6-5E-3", fix("perfmon"), fix("sysfs-intel"), true);
	struct ev_resolved r;
	char *s;

	CHECK(ev_resolve(ctx, "BR_INST_RETIRED.ALL_BRANCHES:u", &r) == 0, "table event");
	CHECK_STR(r.attrs[0].perf_string, "cpu/event=0xc4,umask=0x0,name=br_inst_retired_all_branches,period=400009/u",
		  "record-mode string");
	CHECK_U64(r.attrs[0].attr.config, 0xc4, "config");
	CHECK_U64(r.attrs[0].attr.sample_period, 400009, "SampleAfterValue is the period");
	CHECK(r.attrs[0].attr.exclude_kernel, ":u");
	CHECK(r.desc && strstr(r.desc, "Errata: SKL091"), "errata in the description");
	CHECK_STR(r.attrs[0].name, "br_inst_retired_all_branches", "display name");
	s = ev_perf_string(&r);
	CHECK_STR(s, r.attrs[0].perf_string, "joined string of one attr");
	free(s);
	ev_resolved_free(&r);

	CHECK(ev_resolve(ctx, "BR_MISP_RETIRED.ALL_BRANCHES", &r) == 0, "exact match");
	CHECK_U64(r.attrs[0].attr.config, 0xc5, "not the _PEBS event");
	ev_resolved_free(&r);
	CHECK(ev_resolve(ctx, "BR_MISP_RETIRED.ALL", &r) < 0, "a prefix is no match");
	CHECK(strstr(oc_errmsg(), "did you mean BR_MISP_RETIRED.ALL_BRANCHES") != NULL, "suggestions");

	CHECK(ev_resolve(ctx, "OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE", &r) == 0, "offcore event");
	CHECK_U64(r.attrs[0].attr.config1, 0x10001, "offcore_rsp in config1");
	CHECK_U64(r.attrs[0].attr.config, 0x1b7, "first of two event codes");
	ev_resolved_free(&r);

	CHECK(ev_resolve(ctx, "UNC_CBO_CACHE_LOOKUP.ANY_I", &r) == 0, "uncore event");
	CHECK_INT(r.nr_attrs, 2, "one attr per box");
	CHECK_INT(r.attrs[1].attr.type, 21, "second box type");
	CHECK_STR(r.attrs[1].pmu, "uncore_cbox_1", "second box");
	ev_resolved_free(&r);
	CHECK(strstr(ev_table_source(ctx), "mapfile row GenuineIntel-6-5E") != NULL, "table source names the row");
	ev_close(ctx);

	ctx = open_cpu("GenuineIntel-6-97-2", fix("perfmon"), "/nonexistent", false);
	CHECK(ev_resolve(ctx, "INST_RETIRED.ANY:u", &r) == 0, "hybrid event");
	CHECK_INT(r.nr_attrs, 2, "both core types without sysfs");
	CHECK_STR(r.attrs[0].pmu, "cpu_core", "cpu_core first");
	CHECK_STR(r.attrs[1].pmu, "cpu_atom", "cpu_atom second");
	ev_resolved_free(&r);
	CHECK_INT(ev_core_table_count(ctx), 2, "two core tables");
	ev_close(ctx);

	ctx = open_cpu("GenuineIntel-6-5E-3", fix("pmu-events/x86"), "/nonexistent", false);
	CHECK(ev_resolve(ctx, "LONGEST_LAT_CACHE.MISS", &r) == 0, "pmu-events layout");
	CHECK_U64(r.attrs[0].attr.config, 0x412e, "pmu-events encoding");
	ev_resolved_free(&r);
	CHECK(ev_resolve(ctx, "IPC", &r) < 0, "metrics are not events");
	ev_close(ctx);
}

static void test_mapfile(void)
{
	char text[] = "Family-model,Version,Filename,EventType,Core Type,Native Model ID,Core Role Name\n"
		      "GenuineIntel-6-55-[01234],V1,/SKX/a.json,core,,,\n"
		      "GenuineIntel-6-55-[56789ABCDEF],V1,/CLX/b.json,core,,,\n"
		      "GenuineIntel-6-5,V1,/X/c.json,core,,,\n"
		      "GenuineIntel-6-3C,V1,/HSW/d.json,core,,,\n"
		      "GenuineIntel-6-(3D|47),V1,/BDW/e.json,core,,,\n";
	struct ev_map_row *rows;
	char *copy;
	int n, i;

	copy = xstrdup(text);
	n = ev_mapfile_parse(copy, "GenuineIntel-6-55-4", &rows);
	CHECK_INT(n, 1, "stepping 4: one row");
	CHECK_STR(n ? rows[0].file : "", "/SKX/a.json", "stepping 4 is Skylake-X, not GenuineIntel-6-5");
	for (i = 0; i < n; i++)
		ev_map_row_free(&rows[i]);
	free(rows);
	free(copy);
	copy = xstrdup(text);
	n = ev_mapfile_parse(copy, "GenuineIntel-6-55-B", &rows);
	CHECK_STR(n == 1 ? rows[0].file : "", "/CLX/b.json", "stepping B is the second row");
	for (i = 0; i < n; i++)
		ev_map_row_free(&rows[i]);
	free(rows);
	free(copy);
	copy = xstrdup(text);
	n = ev_mapfile_parse(copy, "GenuineIntel-6-3C-3", &rows);
	CHECK_STR(n == 1 ? rows[0].file : "", "/HSW/d.json", "a row without stepping matches every stepping");
	for (i = 0; i < n; i++)
		ev_map_row_free(&rows[i]);
	free(rows);
	free(copy);
	copy = xstrdup(text);
	n = ev_mapfile_parse(copy, "GenuineIntel-6-47-1", &rows);
	CHECK_STR(n == 1 ? rows[0].file : "", "/BDW/e.json", "alternatives");
	for (i = 0; i < n; i++)
		ev_map_row_free(&rows[i]);
	free(rows);
	free(copy);
	copy = xstrdup(text);
	CHECK_INT(ev_mapfile_parse(copy, NULL, &rows), 5, "all rows without an id");
	for (i = 0; i < 5; i++)
		ev_map_row_free(&rows[i]);
	free(rows);
	free(copy);
}

static void test_table_reader(const char *tmp)
{
	char *path = xasprintf("%s/dup.json", tmp);
	const char json[] = "[{\"EventName\": \"A.B\", \"EventCode\": \"0x10\", \"UMask\": \"0x1\"},"
			    " {\"EventName\": \"a.b \", \"EventCode\": \"0x20\", \"UMask\": \"0x1\"},"
			    " {\"EventName\": \"BAD\", \"EventCode\": \"zz\", \"UMask\": \"0x1\"},"
			    " {\"EventName\": \"C.D\", \"EventCode\": 48, \"UMask\": \"0x2\", \"AnyThread\": true}]";
	struct ev_table *t = ev_table_new("cpu");
	const struct ev_rec *r;

	write_file_atomic(path, json, strlen(json));
	CHECK(ev_table_add_json(t, NULL, path) == 0, "array layout with odd rows");
	ev_table_finish(t);
	r = ev_table_find(t, "A.B");
	CHECK(r && r->code == 0x20, "the last row of a name wins, trailing blanks trimmed");
	CHECK(ev_table_find(t, "BAD") == NULL, "a row whose code does not parse is skipped");
	r = ev_table_find(t, "c.d");
	CHECK(r && r->code == 48 && r->any == 1 && (r->flags & REC_HAS_ANY), "numbers and booleans as JSON values");
	ev_table_free(t);
	write_file_atomic(path, "{\"Header\": {}}", 14);
	t = ev_table_new("cpu");
	CHECK(ev_table_add_json(t, NULL, path) < 0, "an object without Events fails");
	CHECK(strstr(oc_errmsg(), "not an event table") != NULL, "and says so");
	ev_table_free(t);
	free(path);
}

static void test_index(const char *tmp)
{
	struct ev_tables *ts = xcalloc(1, sizeof(*ts)), *back = NULL;
	struct ev_table *t = ev_table_new("cpu");
	const char *core = fix("perfmon/SKL/events/skylake_core.json");
	char *idx;

	setenv("XDG_CACHE_HOME", tmp, 1);
	CHECK(ev_table_add_json(t, NULL, core) == 0, "table for the index");
	ev_table_finish(t);
	ts->t = xcalloc(1, sizeof(*ts->t));
	ts->t[ts->nr++] = t;
	ts->source = xstrdup("unit test");
	ts->files = xcalloc(1, sizeof(char *));
	ts->files[ts->nr_files++] = xstrdup(core);
	ev_index_save("unit-key", ts);
	CHECK(ev_index_load("unit-key", &back) == 0, "index loads");
	CHECK(back && back->nr == 1 && back->t[0]->nr == t->nr, "same number of events");
	CHECK(back && ev_table_find(back->t[0], "BR_INST_RETIRED.ALL_BRANCHES") != NULL, "lookups work on the mapping");
	CHECK_STR(back ? back->source : NULL, "unit test", "source kept");
	ev_tables_free(back);
	CHECK(ev_index_load("other-key", &back) == 1, "another key misses");
	idx = xasprintf("%s/ocrec/index", tmp);
	CHECK(is_dir(idx), "index directory beside the events cache");
	free(idx);
	ev_tables_free(ts);
}

static void test_libpfm(void)
{
	struct ev_context *ctx = open_cpu("AuthenticAMD-25-1-1", NULL, "/nonexistent", false);
	struct ev_resolved r;

	CHECK(ev_resolve(ctx, "RETIRED_BRANCH_INSTRUCTIONS:u", &r) == 0, "AMD event through libpfm4");
	CHECK_U64(r.nr_attrs ? r.attrs[0].attr.config : 0, 0xc2, "its encoding");
	CHECK(r.nr_attrs && r.attrs[0].attr.exclude_kernel && !r.attrs[0].attr.exclude_user, "libpfm4's :u");
	CHECK_STR(r.nr_attrs ? r.attrs[0].perf_string : NULL, "rc2:u", "raw form without a core PMU in sysfs");
	ev_resolved_free(&r);
	CHECK(ev_resolve(ctx, "BR_INST_RETIRED.ALL_BRANCHES", &r) < 0, "never an Intel table on AMD");
	CHECK(ev_table_source(ctx) == NULL, "no table on AMD");
	CHECK(strstr(ev_no_table_hint(ctx), "libpfm4") != NULL, "the hint names libpfm4");
	ev_close(ctx);
}

/* The Linux kernel's tables (tests/data/pmu-events) on AMD CPUs described by --cpu
 * strings, with no PMU in sysfs: the kernel's formats for that family. */
static void test_kernel_tables(const char *data)
{
	static struct cpu_desc zen3, zen4;
	struct ev_options o4 = { &zen4, data, "/nonexistent", false }, o3 = { &zen3, data, "/nonexistent", false };
	struct ev_context *ctx;
	struct ev_resolved r;
	char *df_dir = xasprintf("%s/amdzen5", data);

	CHECK(cpu_detect(&(struct cpu_source){ "AuthenticAMD-25-11-1", NULL, NULL }, &zen4) == 0 &&
	      zen4.amd_perfmon_v2, "Zen 4 string: PerfMonV2 by model");
	CHECK(cpu_detect(&(struct cpu_source){ "AuthenticAMD-25-1-1", NULL, NULL }, &zen3) == 0 &&
	      !zen3.amd_perfmon_v2, "Zen 3 string: no PerfMonV2");
	CHECK(ev_default_source(&zen4) == EV_SOURCE_LINUX, "AMD downloads the kernel's tables");
	{
		struct cpu_desc intel;
		enum ev_source src;
		CHECK(cpu_parse_string("GenuineIntel-6-55-4", &intel) == 0 && ev_default_source(&intel) == EV_SOURCE_PERFMON,
		      "Intel downloads perfmon's");
		CHECK(ev_source_parse("linux", &src) == 0 && src == EV_SOURCE_LINUX, "--from linux");
		CHECK(ev_source_parse("intel", &src) < 0 && strstr(oc_errmsg(), "perfmon or linux"), "--from intel: the valid ones");
	}

	ctx = ev_open(&o4);
	CHECK(ev_resolve(ctx, "ex_ret_fused_instr", &r) == 0, "Zen 4: a kernel table event");
	CHECK_STR(r.attrs[0].perf_string, "cpu/event=0x1d0,umask=0x0,name=ex_ret_fused_instr/", "event and umask always");
	CHECK(r.attrs[0].attr.type == PERF_TYPE_RAW && r.attrs[0].attr.config == 0x1000000d0ULL,
	      "event 0x1d0: bits 8-11 to config 32-35 (amd/core.c)");
	ev_resolved_free(&r);
	CHECK(ev_resolve(ctx, "cpu/event=0x1d0,umask=0x2/k", &r) == 0 && r.attrs[0].attr.config == 0x1000002d0ULL,
	      "perf syntax on the AMD core PMU: its format without sysfs");
	ev_resolved_free(&r);
	CHECK(ev_resolve(ctx, "amd_l3/event=0x4,umask=0xff,threadmask=0x3/", &r) == 0 &&
	      r.attrs[0].attr.config == 0x30000000000ff04ULL && r.attrs[0].attr.type == EV_TYPE_UNKNOWN,
	      "perf syntax on amd_l3 without sysfs: family 19h's format, type unknown");
	ev_resolved_free(&r);
	CHECK(ev_resolve(ctx, "umc_act_cmd.wr", &r) == 0, "a UMC event");
	CHECK_STR(r.attrs[0].perf_string, "amd_umc/event=0x5,rdwrmask=0x2,name=umc_act_cmd_wr/", "UMC: no umask term, rdwrmask");
	CHECK_U64(r.attrs[0].attr.config, 0x205, "rdwrmask at config 8-9");
	ev_resolved_free(&r);
	CHECK(strstr(ev_table_source(ctx), "(amdzen4, mapfile row AuthenticAMD-25-[[:xdigit:]]+)") != NULL,
	      "Zen 4: the amdzen4 row");
	CHECK_STR(ev_table_origin(ctx), "events", "origin: --events");
	ev_close(ctx);

	ctx = ev_open(&o3);
	CHECK(ev_resolve(ctx, "ex_ret_brn", &r) == 0, "Zen 3: resolves");
	ev_resolved_free(&r);
	CHECK(strstr(ev_table_source(ctx), "(amdzen4, ") != NULL,
	      "Zen 3: the amdzen3 row's directory is absent, the next row (amdzen4) serves");
	ev_close(ctx);
	o3.events_path = df_dir;
	ctx = ev_open(&o3);
	CHECK(ev_resolve(ctx, "local_or_remote_socket_read_data_beats_dram_0", &r) < 0 &&
	      strstr(oc_errmsg(), "does not fit"), "Zen 3's data fabric has an 8-bit umask: 0xffe does not fit");
	ev_close(ctx);
	o4.events_path = df_dir;
	ctx = ev_open(&o4);
	CHECK(ev_resolve(ctx, "local_or_remote_socket_read_data_beats_dram_0", &r) == 0 &&
	      r.attrs[0].attr.config == 0xf00fe1fULL, "PerfMonV2's data fabric: umask bits 8-11 to config 24-27");
	ev_resolved_free(&r);
	ev_close(ctx);
	free(df_dir);
}

int main(void)
{
	const char *root = getenv("OCREC_ROOT");
	char tmp[4096];

	snprintf(fixtures, sizeof(fixtures), "%s/tests/fixtures/events", root ? root : ".");
	if (!test_mkdtemp(tmp, sizeof(tmp), "ocrec-test-events.XXXXXX")) {
		printf("FAIL mkdtemp\n");
		return 1;
	}
	/* the AMD PMU even on an Intel host; set before libpfm4 initialises */
	setenv("LIBPFM_FORCE_PMU", "amd64_fam19h_zen3", 1);
	setenv("XDG_CACHE_HOME", tmp, 1);
	test_generic();
	test_perf_generic_attr();
	test_tables();
	test_mapfile();
	test_table_reader(tmp);
	test_index(tmp);
	test_libpfm();
	{
		char *data = xasprintf("%s/tests/data/pmu-events/x86", root ? root : ".");
		test_kernel_tables(data);
		free(data);
	}
	{
		char *cmd = xasprintf("rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			printf("SKIP cleanup: could not remove %s\n", tmp);
		free(cmd);
	}
	return test_done();
}
