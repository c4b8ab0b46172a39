/* fuzz-perfdata.c — the perf.data reader through the session layer under its
 * consumers: `ocrec script` (every field, the header, time order) and `ocrec
 * report` (the branch or sample histogram, the branch history): any input
 * gives output or one error, never a crash, a hang or a leak. Symbols come
 * from a small --symfs tree (one ELF file, as /bin/true) and --kallsyms file,
 * not from this machine's files: the ELF target fuzzes the symbol loading. */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "report/report.h"
#include "script/script.h"
#include "session/session.h"
#include "util/util.h"

static struct sym_options sym;

static void script(const char *path)
{
	struct session_opts so = { 0 };
	struct session *s;

	script_session_opts(&so);
	so.sym.symfs = sym.symfs;
	so.sym.kallsyms = sym.kallsyms;
	s = session_new(&so);
	if (session_open(s, path) == 0) {
		/* every field, whether the samples carry it or not */
		script_print_header(path, session_info(s), fuzz_devnull());
		script_print_samples(s, SF_COMM | SF_TID | SF_PID | SF_TIME | SF_CPU | SF_PERIOD | SF_EVENT |
				     SF_IP | SF_ADDR | SF_BRSTACK | SF_SYM | SF_SYMOFF | SF_DSO | SF_BRSTACKSYM,
				     fuzz_devnull());
	}
	session_free(s);
	oc_err_clear();
}

static void report(const char *path, enum report_view view)
{
	struct report_opts ro = { .branch_mode = -1, .view = view, .session.sym = sym };
	struct report *rep = report_new(&ro);

	if (report_read_perfdata(rep, path) == 0)
		report_print(rep, fuzz_devnull());
	report_free(rep);
	oc_err_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("perf.data", data, size);

	fuzz_quiet();
	script(path);
	report(path, VIEW_HIST);
	report(path, VIEW_BRANCH_HISTORY);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char kallsyms[] =
		"ffffffff81000000 T _text\nffffffff81000100 T do_syscall_64\n"
		"ffffffff81000200 t entry_SYSCALL_64\nffffffff81000300 W weak_fn\n"
		"ffffffffc0000000 t mod_fn\t[mod]\n";
	static char symfs[256], ksyms[256];
	char cmd[1024];

	(void)argc;
	(void)argv;
	snprintf(ksyms, sizeof(ksyms), "%s", fuzz_file("kallsyms", kallsyms, sizeof(kallsyms) - 1));
	snprintf(symfs, sizeof(symfs), "%s/symfs", fuzz_dir());
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/bin' && cp '%s' '%s/bin/true'", symfs,
		 fuzz_repo_path("tests/fuzz/corpus/elf/loop"), symfs);
	if (system(cmd) != 0)
		fuzz_fail("cannot make the symfs tree: %s", cmd);
	sym.symfs = symfs;
	sym.kallsyms = ksyms;
	sym.quiet = true;
	/* no build-id cache of the user's: a private one */
	setenv("XDG_CACHE_HOME", fuzz_dir(), 1);
	setenv("HOME", fuzz_dir(), 1);
	return 0;
}
