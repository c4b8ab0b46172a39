/* fuzz-cpuid.c — `--cpuid FILE` (docs/cpuid-format.md): a CPUID dump from
 * anywhere describes a CPU (identity, hybrid, LBR kind and depth from leaves
 * 0x7, 0x1C, 0x80000008, 0x80000022) and decides which built-in architectural
 * events exist (leaf 0xA), or gives one error. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cpu/cpu.h"
#include "cpu/cpuid.h"
#include "events/events.h"
#include "util/util.h"

/* every architectural event of the built-in table, and one it lacks */
static const char *const names[] = {
	"cpu_clk_unhalted.thread", "inst_retired.any", "cpu_clk_unhalted.ref_tsc",
	"longest_lat_cache.reference", "longest_lat_cache.miss", "br_inst_retired.all_branches",
	"br_misp_retired.all_branches", "topdown.slots:u", "no_such_event",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("cpuid", data, size);
	struct cpu_source src = { .cpuid = path };
	struct cpuid_leaves leaves;
	struct ev_options opts = { 0 };
	struct ev_context *ctx;
	struct cpu_desc c;
	size_t i;

	fuzz_quiet();
	if (cpuid_parse(&leaves, fuzz_text(data, size), "fuzz") == 0)
		cpuid_free(&leaves);
	oc_err_clear();
	if (cpu_detect(&src, &c) < 0) {
		if (!*oc_errmsg())
			fuzz_fail("cpu_detect failed without saying why");
		oc_err_clear();
		return 0;
	}
	if (c.lbr.depth < -1 || c.lbr.depth > 64 || !c.name)
		fuzz_fail("implausible LBR depth %d", c.lbr.depth);
	/* the built-in table as `ocrec --cpuid FILE resolve` loads it: no download cache */
	opts.cpu = &c;
	opts.sysfs_root = fuzz_repo_path("tests/fixtures/events/sysfs-intel");
	ctx = ev_open(&opts);
	ev_set_cpuid_path(ctx, path);
	ev_set_quiet(ctx, true);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		struct ev_resolved r;
		if (ev_resolve(ctx, names[i], &r) == 0)
			ev_resolved_free(&r);
		oc_err_clear();
	}
	ev_close(ctx);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* no event cache (the index would be written at every input): an empty, private one */
	setenv("XDG_CACHE_HOME", fuzz_dir(), 1);
	unsetenv("OCREC_EVENTS");
	return 0;
}
