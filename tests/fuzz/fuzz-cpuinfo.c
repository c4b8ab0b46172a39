/* fuzz-cpuinfo.c — `--cpuinfo FILE`: a /proc/cpuinfo copy from anywhere gives a
 * CPU (vendor, family, model, stepping, its name and LBR from the tables) or
 * one error, never a crash; and the same copy beside a CPUID dump of another
 * CPU is refused. */
#include <string.h>

#include "common.h"
#include "cpu/cpu.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpu_source src = { .cpuinfo = fuzz_file("cpuinfo", data, size) };
	struct cpu_desc c;

	fuzz_quiet();
	if (cpu_detect(&src, &c) == 0) {
		/* what `ocrec info` prints of it */
		if (!c.name || strlen(c.perfmon_id) >= sizeof(c.perfmon_id) || !lbr_kind_name(c.lbr.kind))
			fuzz_fail("cpu_detect accepted a CPU it cannot describe");
	} else if (!*oc_errmsg()) {
		fuzz_fail("cpu_detect failed without saying why");
	}
	oc_err_clear();
	src.cpuid = fuzz_repo_path("tests/fixtures/cpu/skx.cpuid");
	if (cpu_detect(&src, &c) < 0 && !*oc_errmsg())
		fuzz_fail("cpu_detect with --cpuid failed without saying why");
	oc_err_clear();
	return 0;
}
