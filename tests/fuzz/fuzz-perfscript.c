/* fuzz-perfscript.c — `perf script -F ip,brstack` text, llvm-profgen's input,
 * as `ocrec report --perfscript` and `ocrec autofdo --perfscript` read it:
 * the shared line parser (pst_parse_buffer), then the report views and an
 * AutoFDO profile for a small binary (tests/fuzz/corpus/elf/loop; MMAP2 lines
 * naming a file called "loop" map it). Any text gives a result or one error
 * naming the line, never a crash, a hang or a leak. */
#include <stdio.h>
#include <stdlib.h>

#include "autofdo/autofdo.h"
#include "common.h"
#include "report/report.h"
#include "session/session.h"
#include "util/util.h"

static char binary[4096];
static struct afdo_binary *bin;

static int check_line(const struct pst_line *l, const struct pd_branch *br, void *arg)
{
	(void)br;
	(void)arg;
	if (l->kind == PST_BRANCHES && l->nr_bad && !l->bad)
		fuzz_fail("a bad branch entry counted but not shown");
	if (l->kind == PST_MMAP && !l->path)
		fuzz_fail("an MMAP line without its file");
	return 0;
}

static void report(const char *path, enum report_view view)
{
	struct report_opts ro = { .branch_mode = -1, .view = view };
	struct report *rep;

	ro.session.sym.quiet = true;
	rep = report_new(&ro);
	if (report_read_perfscript(rep, path, binary) == 0)
		report_print(rep, fuzz_devnull());
	else if (!*oc_errmsg())
		fuzz_fail("report --perfscript failed without saying why");
	report_free(rep);
	oc_err_clear();
}

static void autofdo(const char *path)
{
	struct afdo_counts *c = afdo_counts_new();
	struct afdo_profile *p;

	if (afdo_read_perfscript(path, bin, c, NULL) == 0) {
		p = afdo_build(bin, c, &(struct afdo_build_opts){ .flavor = AFDO_LLVM });
		if (p) {
			afdo_write_llvm_text(p, fuzz_devnull());
			afdo_profile_free(p);
		}
	} else if (!*oc_errmsg()) {
		fuzz_fail("autofdo --perfscript failed without saying why");
	}
	afdo_counts_free(c);
	oc_err_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path;

	if (pst_parse_buffer((const char *)data, size, check_line, NULL) < 0 && !*oc_errmsg())
		fuzz_fail("pst_parse_buffer failed without saying why");
	oc_err_clear();
	path = fuzz_file("perf.script", data, size);
	report(path, VIEW_HIST);
	report(path, VIEW_BRANCH_HISTORY);
	autofdo(path);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	snprintf(binary, sizeof(binary), "%s", fuzz_repo_path("tests/fuzz/corpus/elf/loop"));
	bin = afdo_binary_open(binary);
	if (!bin)
		fuzz_fail("%s", oc_errmsg());
	return 0;
}
