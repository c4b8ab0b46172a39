/* fuzz-mapfile.c — a perfmon mapfile.csv from a download or a mirror, at the
 * top of a tree of small tables (tests/fixtures/events: perfmon files and a
 * kernel pmu-events directory): its rows give a CPU's tables or one error,
 * never a crash or a file outside the tree. The first byte picks the CPU. */
#include <stdlib.h>

#include "events-common.h"

static char tree[512];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ev_map_row *rows;
	struct ev_context *ctx;
	char *text, mapfile[600];
	int n, k;

	if (!size)
		return 0;
	/* every row, as `ocrec download --all` reads them */
	text = xstrdup(fuzz_text(data + 1, size - 1));
	n = ev_mapfile_parse(text, NULL, &rows);
	for (k = 0; k < n; k++) {
		if (!rows[k].pattern || !rows[k].file || !rows[k].type || ev_path_climbs(rows[k].file))
			fuzz_fail("mapfile row %d: missing field or a file outside the tree", k);
		ev_map_row_free(&rows[k]);
	}
	free(rows);
	free(text);
	/* the tables of one CPU through that mapfile */
	snprintf(mapfile, sizeof(mapfile), "%s/mapfile.csv", tree);
	fuzz_file("tree/mapfile.csv", data + 1, size - 1);
	ctx = fuzz_ev_open(data[0] % ARRAY_SIZE(fuzz_cpus), tree);
	if (!ev_table_source(ctx) && !*oc_errmsg() && !*ev_no_table_hint(ctx))
		fuzz_fail("no tables and no reason");
	oc_err_clear();
	fuzz_resolve(ctx, "br_inst_retired.all_branches:u");
	fuzz_resolve(ctx, "unc_cbo_cache_lookup.any_i");
	ev_close(ctx);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char cmd[2048];

	(void)argc;
	(void)argv;
	fuzz_quiet();
	fuzz_no_event_cache();
	snprintf(tree, sizeof(tree), "%s/tree", fuzz_dir());
	/* the fixture tables, and a kernel pmu-events directory a row may name */
	snprintf(cmd, sizeof(cmd), "cp -r '%s' '%s' && cp -r '%s' '%s/skylake'", fuzz_repo_path("tests/fixtures/events/perfmon"),
		 tree, fuzz_repo_path("tests/fixtures/events/pmu-events/x86/skylake"), tree);
	if (system(cmd) != 0)
		fuzz_fail("cannot copy the fixture tables: %s", cmd);
	return 0;
}
