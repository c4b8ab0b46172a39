/* Unit tests for src/cpu: the LBR/model tables across generations, CPUID
 * decoding (Arch LBR depth bitmaps, AMD BRS and LbrExtV2, hybrid), CPU strings,
 * cpuinfo and CPUID-dump parsing. */
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"
#include "cpu/cpu.h"
#include "cpu/cpuid.h"
#include "util/util.h"

static const char *root(void)
{
	const char *r = getenv("OCREC_ROOT");
	return r && *r ? r : ".";
}

/* Classify a CPU string with the tables alone (no CPUID), as --cpu does. */
static struct cpu_desc from_table(const char *cpu_string)
{
	struct cpu_source src = { .cpu_string = cpu_string };
	struct cpu_desc c;
	if (cpu_detect(&src, &c) < 0) {
		printf("FAIL detect %s: %s\n", cpu_string, oc_errmsg());
		memset(&c, 0, sizeof(c));
		c.name = "(failed)";
	}
	return c;
}

static void check_model(const char *cpu_string, const char *name, enum lbr_kind kind, int depth)
{
	struct cpu_desc c = from_table(cpu_string);
	char label[160];
	snprintf(label, sizeof(label), "%s is %s", cpu_string, name);
	CHECK_STR(c.name, name, label);
	snprintf(label, sizeof(label), "%s LBR %s, depth %d", cpu_string, lbr_kind_name(kind), depth);
	CHECK(c.lbr.kind == kind && c.lbr.depth == depth, label);
	CHECK(c.lbr.source && *c.lbr.source, "LBR source is given");
}

static void test_intel_table(void)
{
	/* one model per row of the kernel's switch (docs/lbr.md) */
	check_model("GenuineIntel-6-F-6", "Merom", LBR_LEGACY, 4);
	check_model("GenuineIntel-6-17-A", "Penryn", LBR_LEGACY, 4);
	check_model("GenuineIntel-6-1D-1", "Dunnington", LBR_LEGACY, 4);
	check_model("GenuineIntel-6-1A-5", "Nehalem-EP", LBR_LEGACY, 16);
	check_model("GenuineIntel-6-2C-2", "Westmere-EP", LBR_LEGACY, 16);
	check_model("GenuineIntel-6-2A-7", "Sandy Bridge", LBR_LEGACY, 16);
	check_model("GenuineIntel-6-3E-4", "Ivy Bridge-X", LBR_LEGACY, 16);
	check_model("GenuineIntel-6-3C-3", "Haswell", LBR_LEGACY, 16);
	check_model("GenuineIntel-6-4F-1", "Broadwell-X", LBR_LEGACY, 16);
	check_model("GenuineIntel-6-1C-A", "Bonnell", LBR_LEGACY, 8);
	check_model("GenuineIntel-6-36-1", "Saltwell", LBR_LEGACY, 8);
	check_model("GenuineIntel-6-37-8", "Silvermont", LBR_LEGACY, 8);
	check_model("GenuineIntel-6-4C-3", "Airmont", LBR_LEGACY, 8);
	check_model("GenuineIntel-6-5C-9", "Goldmont", LBR_LEGACY, 32);
	check_model("GenuineIntel-6-7A-1", "Goldmont Plus", LBR_LEGACY, 32);
	check_model("GenuineIntel-6-96-1", "Tremont (Elkhart Lake)", LBR_LEGACY, 32);
	check_model("GenuineIntel-6-57-1", "Knights Landing", LBR_LEGACY, 8);
	check_model("GenuineIntel-6-85-0", "Knights Mill", LBR_LEGACY, 8);
	check_model("GenuineIntel-6-5E-3", "Skylake", LBR_LEGACY, 32);
	check_model("GenuineIntel-6-55-4", "Skylake-X", LBR_LEGACY, 32);
	check_model("GenuineIntel-6-55-7", "Cascade Lake-X", LBR_LEGACY, 32);
	check_model("GenuineIntel-6-55-B", "Cooper Lake", LBR_LEGACY, 32);
	check_model("GenuineIntel-6-9E-A", "Kaby Lake / Coffee Lake", LBR_LEGACY, 32);
	check_model("GenuineIntel-6-7E-5", "Ice Lake-L", LBR_LEGACY, 32);
	check_model("GenuineIntel-6-8C-1", "Tiger Lake-L", LBR_LEGACY, 32);
	check_model("GenuineIntel-6-A7-1", "Rocket Lake", LBR_LEGACY, 32);
	/* the Bonnell erratum: LBR only from stepping 10 */
	check_model("GenuineIntel-6-1C-2", "Bonnell", LBR_NONE, 0);
	/* models the kernel gives no LBR */
	check_model("GenuineIntel-6-E-8", "Yonah", LBR_NONE, 0);
	check_model("GenuineIntel-6-66-3", "Cannon Lake", LBR_NONE, 0);
	/* Arch LBR models: the table knows the kind, only CPUID knows the depth */
	check_model("GenuineIntel-6-8F-8", "Sapphire Rapids", LBR_ARCH, -1);
	check_model("GenuineIntel-6-97-2", "Alder Lake", LBR_ARCH, -1);
	/* models not in the table: a clear "unknown", never a guess */
	check_model("GenuineIntel-6-FF-0", "unknown", LBR_UNKNOWN, -1);
	check_model("GenuineIntel-19-1-0", "unknown", LBR_UNKNOWN, -1);
	check_model("GenuineIntel-15-4-1", "NetBurst", LBR_NONE, 0);
	check_model("CentaurHauls-6-F-0", "unknown", LBR_UNKNOWN, -1);
}

static void test_amd_table(void)
{
	check_model("AuthenticAMD-23-31-0", "Zen 2", LBR_NONE, 0);
	check_model("AuthenticAMD-23-1-1", "Zen", LBR_NONE, 0);
	/* Zen 3 BRS exists only where CPUID says so: unknown from the table */
	check_model("AuthenticAMD-25-1-1", "Zen 3 (Milan)", LBR_UNKNOWN, -1);
	check_model("AuthenticAMD-25-21-0", "Zen 3 (Vermeer)", LBR_UNKNOWN, -1);
	check_model("AuthenticAMD-25-11-1", "Zen 4 (Genoa)", LBR_AMD_V2, -1);
	check_model("AuthenticAMD-25-61-2", "Zen 4 (Raphael)", LBR_AMD_V2, -1);
	check_model("AuthenticAMD-26-2-0", "Zen 5", LBR_AMD_V2, -1);
}

static void test_hybrid_table(void)
{
	struct cpu_desc c = from_table("GenuineIntel-6-97-2");
	CHECK(c.hybrid, "Alder Lake is hybrid (table)");
	CHECK_STR(c.core_types, "Golden Cove + Gracemont", "Alder Lake core types");
	CHECK_STR(c.hybrid_source, "model table", "hybrid from the model table");
	c = from_table("GenuineIntel-6-55-4");
	CHECK(!c.hybrid && !c.core_types, "Skylake-X is not hybrid");
}

static void test_cpu_strings(void)
{
	static const char *const bad[] = {
		"", "GenuineIntel", "GenuineIntel-6-55", "GenuineIntel-6-55-4-1", "GenuineIntel-x-55-4",
		"GenuineIntel-6-55-", "GenuineIntel-6-155-4", "GenuineIntel-6-55-10", "Genuine Intel-6-55-4",
		"-6-55-4", "GenuineIntel-0x6-55-4",
	};
	struct cpu_desc c;
	size_t i;

	memset(&c, 0, sizeof(c));
	CHECK(cpu_parse_string("GenuineIntel-6-8f-8", &c) == 0 && c.model == 0x8f && c.stepping == 8,
	      "model is hex, lower case accepted");
	c = from_table("GenuineIntel-6-8f-8");
	CHECK_STR(c.perfmon_id, "GenuineIntel-6-8F-8", "perfmon id upper-case hex");
	c = from_table("AuthenticAMD-25-11-1");
	CHECK(c.family == 25 && c.model == 0x11 && c.stepping == 1, "AMD family decimal, model hex");
	CHECK_STR(c.perfmon_id, "AuthenticAMD-25-11-1", "AMD perfmon id");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char label[96];
		snprintf(label, sizeof(label), "bad CPU string '%s' rejected", bad[i]);
		CHECK(cpu_parse_string(bad[i], &c) < 0 && strstr(oc_errmsg(), "GenuineIntel-6-55-4"), label);
	}
}

/* A CPU described by CPUID text alone. */
static int classify_dump(const char *text, struct cpu_desc *c)
{
	char path[4096];
	struct cpu_source src = { .cpuid = path };
	int fd = test_mkstemp(path, sizeof(path), "ocrec-test-cpuid.XXXXXX"), ret;
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return -1;
	close(fd);
	ret = cpu_detect(&src, c);
	unlink(path);
	return ret;
}

#define INTEL_LEAF0 "0x00000000 0x00: eax=0x00000020 ebx=0x756e6547 ecx=0x6c65746e edx=0x49656e69\n"
#define AMD_LEAF0   "0x00000000 0x00: eax=0x00000010 ebx=0x68747541 ecx=0x444d4163 edx=0x69746e65\n"
#define SPR_LEAF1   "0x00000001 0x00: eax=0x000806f8 ebx=0 ecx=0 edx=0\n"

static void check_arch_depth(unsigned mask, int depth)
{
	char text[512], label[64];
	struct cpu_desc c;
	snprintf(text, sizeof(text), INTEL_LEAF0 SPR_LEAF1
		 "0x00000007 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x00080000\n"
		 "0x0000001c 0x00: eax=0x%08x ebx=0x7 ecx=0x7 edx=0x0\n", 0x40000000u | mask);
	snprintf(label, sizeof(label), "Arch LBR mask 0x%02x gives depth %d", mask, depth);
	CHECK(classify_dump(text, &c) == 0 && c.lbr.kind == (depth ? LBR_ARCH : LBR_NONE) &&
	      c.lbr.depth == depth, label);
}

static void test_cpuid_intel(void)
{
	struct cpu_desc c;

	check_arch_depth(0x01, 8);
	check_arch_depth(0x03, 16);
	check_arch_depth(0x0f, 32);
	check_arch_depth(0x05, 24);   /* the highest set bit decides, as the kernel's fls() */
	check_arch_depth(0x80, 64);
	check_arch_depth(0x00, 0);

	CHECK(classify_dump(INTEL_LEAF0 SPR_LEAF1
			    "0x00000007 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x00080000\n", &c) == 0 &&
	      c.lbr.kind == LBR_ARCH && c.lbr.depth == -1, "Arch LBR bit without leaf 0x1C: depth unknown");
	CHECK(classify_dump(INTEL_LEAF0 SPR_LEAF1
			    "0x00000007 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n", &c) == 0 &&
	      c.lbr.kind == LBR_NONE && c.lbr.depth == 0 && strstr(c.lbr.source, "EDX[19]"),
	      "Sapphire Rapids with Arch LBR hidden: none, saying why");
	CHECK(c.have_cpuid && c.family == 6 && c.model == 0x8f && c.stepping == 8 &&
	      strcmp(c.vendor, "GenuineIntel") == 0, "identity decoded from leaves 0 and 1");
	/* Arch LBR wins over the model table, as in the kernel */
	CHECK(classify_dump(INTEL_LEAF0 "0x00000001 0x00: eax=0x00050654 ebx=0 ecx=0 edx=0\n"
			    "0x00000007 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x00080000\n"
			    "0x0000001c 0x00: eax=0x3 ebx=0x0 ecx=0x0 edx=0x0\n", &c) == 0 &&
	      c.lbr.kind == LBR_ARCH && c.lbr.depth == 16, "Arch LBR bit overrides the model table");
	CHECK(classify_dump(INTEL_LEAF0 "0x00000001 0x00: eax=0x00050654 ebx=0 ecx=0 edx=0\n"
			    "0x00000007 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n", &c) == 0 &&
	      c.lbr.kind == LBR_LEGACY && c.lbr.depth == 32 && !strcmp(c.name, "Skylake-X"),
	      "legacy model with CPUID still uses the table");
	/* hybrid bit */
	CHECK(classify_dump(INTEL_LEAF0 "0x00000001 0x00: eax=0x00090672 ebx=0 ecx=0 edx=0\n"
			    "0x00000007 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x00088000\n"
			    "0x0000001c 0x00: eax=0xf ebx=0x0 ecx=0x0 edx=0x0\n", &c) == 0 &&
	      c.hybrid && !strcmp(c.hybrid_source, "CPUID 7 EDX[15]") &&
	      !strcmp(c.core_types, "Golden Cove + Gracemont"), "hybrid from CPUID 7 EDX[15]");
	CHECK(classify_dump(INTEL_LEAF0 "0x00000001 0x00: eax=0x00090672 ebx=0 ecx=0 edx=0\n"
			    "0x00000007 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x00080000\n", &c) == 0 &&
	      !c.hybrid, "Alder Lake without the hybrid bit (P-cores only) is not hybrid");
	CHECK(classify_dump(INTEL_LEAF0 "0x00000001 0x00: eax=0x000a06a4 ebx=0 ecx=0 edx=0\n", &c) == 0 &&
	      !strcmp(c.perfmon_id, "GenuineIntel-6-AA-4") && !strcmp(c.name, "Meteor Lake-L"),
	      "extended model bits decoded (0xAA)");
}

static void test_cpuid_amd(void)
{
	struct cpu_desc c;

	CHECK(classify_dump(AMD_LEAF0 "0x00000001 0x00: eax=0x00a00f11 ebx=0 ecx=0 edx=0\n"
			    "0x80000008 0x00: eax=0x3030 ebx=0x930ad205 ecx=0x0 edx=0x0\n", &c) == 0 &&
	      c.lbr.kind == LBR_AMD_BRS && c.lbr.depth == 16, "Zen 3 with BRS bit: amd-brs 16");
	CHECK(c.family == 0x19 && c.model == 1 && c.stepping == 1, "AMD extended family decoded");
	CHECK(classify_dump(AMD_LEAF0 "0x00000001 0x00: eax=0x00a00f11 ebx=0 ecx=0 edx=0\n"
			    "0x80000008 0x00: eax=0x3030 ebx=0x130ad205 ecx=0x0 edx=0x0\n"
			    "0x80000022 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n", &c) == 0 &&
	      c.lbr.kind == LBR_NONE && c.lbr.depth == 0, "Zen 3 VM: BRS hidden, 0x80000022 zero: none");
	CHECK(classify_dump(AMD_LEAF0 "0x00000001 0x00: eax=0x00a10f11 ebx=0 ecx=0 edx=0\n"
			    "0x80000008 0x00: eax=0x3030 ebx=0x911ef257 ecx=0x0 edx=0x0\n"
			    "0x80000022 0x00: eax=0x7 ebx=0x1106 ecx=0x0 edx=0x0\n", &c) == 0 &&
	      c.lbr.kind == LBR_AMD_V2 && c.lbr.depth == 16, "Zen 4: LbrExtV2 depth from EBX[9:4], preferred to BRS");
	CHECK(classify_dump(AMD_LEAF0 "0x00000001 0x00: eax=0x00a10f11 ebx=0 ecx=0 edx=0\n"
			    "0x80000022 0x00: eax=0x3 ebx=0x0206 ecx=0x0 edx=0x0\n", &c) == 0 &&
	      c.lbr.depth == 32, "LbrExtV2 depth is read, not assumed (32)");
	CHECK(classify_dump(AMD_LEAF0 "0x00000001 0x00: eax=0x00a10f11 ebx=0 ecx=0 edx=0\n"
			    "0x80000022 0x00: eax=0x2 ebx=0x0106 ecx=0x0 edx=0x0\n", &c) == 0 &&
	      c.lbr.kind == LBR_NONE, "LbrExtV2 needs PerfMonV2 (EAX[0]) too");
	CHECK(classify_dump(AMD_LEAF0 "0x00000001 0x00: eax=0x00830f10 ebx=0 ecx=0 edx=0\n"
			    "0x80000008 0x00: eax=0x3030 ebx=0x800000000 ecx=0x0 edx=0x0\n", &c) < 0,
	      "register value wider than 32 bits rejected");
	CHECK(classify_dump(AMD_LEAF0 "0x00000001 0x00: eax=0x00830f10 ebx=0 ecx=0 edx=0\n"
			    "0x80000008 0x00: eax=0x3030 ebx=0x80000000 ecx=0x0 edx=0x0\n", &c) == 0 &&
	      c.family == 0x17 && c.lbr.kind == LBR_NONE, "BRS bit outside family 0x19 is not used (kernel)");
}

static void test_cpuid_dump_format(void)
{
	struct cpuid_leaves l;
	struct cpuid_regs r;
	struct cpu_desc c;
	char *path;

	CHECK(cpuid_parse(&l, "CPU 0:\n" INTEL_LEAF0 SPR_LEAF1
			  "CPU 1:\n0x00000001 0x00: eax=0x00090672 ebx=0 ecx=0 edx=0\n", "dump") == 0 &&
	      cpuid_query(&l, 1, 0, &r) && r.eax == 0x806f8, "only the first CPU of `cpuid -r` is used");
	CHECK(!cpuid_query(&l, 0x1c, 0, &r), "a leaf absent from the dump is absent");
	cpuid_free(&l);
	CHECK(cpuid_parse(&l, "# comment\n\n" INTEL_LEAF0 "0x00000001 0x00 eax=0x1\n", "dump.txt") < 0 &&
	      strstr(oc_errmsg(), "dump.txt:4:"), "bad line named with file and line");
	CHECK(cpuid_parse(&l, INTEL_LEAF0, "dump.txt") < 0 && strstr(oc_errmsg(), "0x1"),
	      "dump without leaf 1 rejected");
	CHECK(cpuid_parse(&l, INTEL_LEAF0 SPR_LEAF1 "junk\n", "d") < 0, "trailing junk line rejected");
	CHECK(cpuid_parse(&l, INTEL_LEAF0 "0x00000001 0x00: eax=0x000806f8 ebx=0 ecx=0 edx=0 extra\n", "d") < 0,
	      "trailing text on a line rejected");

	path = xasprintf("%s/tests/fixtures/cpu/amd-epyc-milan-vm.cpuid", root());
	{
		struct cpu_source src = { .cpuid = path };
		CHECK(cpu_detect(&src, &c) == 0 && !strcmp(c.perfmon_id, "AuthenticAMD-25-1-1") &&
		      c.lbr.kind == LBR_NONE && !strcmp(c.name, "Zen 3 (Milan)"),
		      "real `cpuid -r -1` dump of the CI VM: Zen 3, no branch stack");
		src.cpu_string = "GenuineIntel-6-55-4";
		CHECK(cpu_detect(&src, &c) < 0 && strstr(oc_errmsg(), path),
		      "--cpu naming another CPU than the CPUID dump is an error");
		src.cpu_string = "AuthenticAMD-25-1-1";
		CHECK(cpu_detect(&src, &c) == 0 && c.have_cpuid && c.lbr.kind == LBR_NONE,
		      "--cpu with a matching CPUID dump uses the dump's leaves");
	}
	free(path);
}

static void test_cpuinfo(void)
{
	struct cpu_source src = { 0 };
	struct cpu_desc c;
	char *path;

	path = xasprintf("%s/tests/fixtures/cpu/merom.cpuinfo", root());
	src.cpuinfo = path;
	CHECK(cpu_detect(&src, &c) == 0 && !strcmp(c.perfmon_id, "GenuineIntel-6-F-6") &&
	      c.lbr.depth == 4 && !c.have_cpuid, "Merom cpuinfo: depth 4, no CPUID");
	free(path);
	path = xasprintf("%s/tests/fixtures/cpu/arm64.cpuinfo", root());
	src.cpuinfo = path;
	CHECK(cpu_detect(&src, &c) < 0 && strstr(oc_errmsg(), "vendor_id") && strstr(oc_errmsg(), path),
	      "non-x86 cpuinfo: names the missing line and the file");
	free(path);
	path = xasprintf("%s/tests/fixtures/cpu/bad-model.cpuinfo", root());
	src.cpuinfo = path;
	CHECK(cpu_detect(&src, &c) < 0 && strstr(oc_errmsg(), "model '0x55'"), "hex model in cpuinfo rejected");
	free(path);
	src.cpuinfo = "/nonexistent/cpuinfo";
	CHECK(cpu_detect(&src, &c) < 0 && strstr(oc_errmsg(), "/nonexistent/cpuinfo"), "missing file named");
}

static void test_this_machine(void)
{
	struct cpu_desc c;
	CHECK(cpu_detect(NULL, &c) == 0 && c.vendor[0] && c.name && c.lbr.source, "this machine detected");
	CHECK(strncmp(c.perfmon_id, c.vendor, strlen(c.vendor)) == 0, "perfmon id starts with the vendor");
	CHECK_STR(lbr_kind_name(LBR_AMD_V2), "amd-lbr-v2", "kind name amd-lbr-v2");
	CHECK_STR(lbr_kind_name(LBR_AMD_BRS), "amd-brs", "kind name amd-brs");
}

int main(void)
{
	test_intel_table();
	test_amd_table();
	test_hybrid_table();
	test_cpu_strings();
	test_cpuid_intel();
	test_cpuid_amd();
	test_cpuid_dump_format();
	test_cpuinfo();
	test_this_machine();
	return test_done();
}
