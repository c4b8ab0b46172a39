/* fuzz-event-name.c — an event name with modifiers, as -e takes it, through
 * the whole resolver chain (perf syntax, the perfmon tables with ocperf's
 * encoding, uncore boxes, hybrid PMUs, libpfm4, "did you mean") against fixed
 * tables: one resolved event or one error. The first byte picks the CPU. */
#include <stdlib.h>

#include "events-common.h"

static struct ev_context *ctx[ARRAY_SIZE(fuzz_cpus)];
static struct ev_pmu *known_pmus[ARRAY_SIZE(fuzz_cpus)];

/* The PMU cache keeps every name asked for: forget those of the last input, so
 * that an input means the same whatever ran before it. */
static void forget_pmus(size_t i)
{
	while (ctx[i]->pmus != known_pmus[i]) {
		struct ev_pmu *p = ctx[i]->pmus;
		ctx[i]->pmus = p->next;
		free(p->name);
		strv_free(p->terms);
		strv_free(p->specs);
		free(p);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i;

	if (!size || size > 4096)
		return 0;
	i = data[0] % ARRAY_SIZE(fuzz_cpus);
	fuzz_resolve(ctx[i], fuzz_text(data + 1, size - 1));
	forget_pmus(i);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	size_t i;

	(void)argc;
	(void)argv;
	fuzz_quiet();
	fuzz_no_event_cache();
	for (i = 0; i < ARRAY_SIZE(fuzz_cpus); i++) {
		char tree[4096];
		snprintf(tree, sizeof(tree), "%s", fuzz_repo_path("tests/fixtures/events/perfmon"));
		ctx[i] = fuzz_ev_open(i, tree);
		/* load the tables and the core PMUs now, once */
		fuzz_resolve(ctx[i], "cycles");
		fuzz_resolve(ctx[i], "br_inst_retired.all_branches");
		if (!ctx[i]->tables)
			fuzz_fail("%s: no tables for %s", tree, fuzz_cpus[i].id);
		known_pmus[i] = ctx[i]->pmus;
	}
	return 0;
}
