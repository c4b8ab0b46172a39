/* fuzz-events-json.c — an event table from a download or a mirror: perfmon's
 * {"Header", "Events"} object or its older array, or a Linux pmu-events file
 * (kernel layout: Unit, ArchStdEvent, MetricName rows). Loading it gives
 * tables or one error; every event it lists then resolves, with modifiers, or
 * fails with a message. The first byte picks the CPU. */
#include <stdlib.h>

#include "events-common.h"

#define MAX_NAMES 48

struct names {
	char *v[MAX_NAMES];
	size_t n;
};

static void collect(const struct ev_list_entry *e, void *arg)
{
	struct names *ns = arg;

	if (!e->name || !e->desc || !e->brief || !e->counter)
		fuzz_fail("list entry without name or strings");
	if (ns->n < MAX_NAMES)
		ns->v[ns->n++] = xstrdup(e->name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const mods[] = { "", ":u", ":c=2:inv:pp", ":period=1000:e", ":sup:anythr=yes" };
	struct names ns = { .n = 0 };
	struct ev_context *ctx;
	const char *path;
	size_t i, cpu;

	if (!size)
		return 0;
	cpu = data[0] % ARRAY_SIZE(fuzz_cpus);
	path = fuzz_file("table.json", data + 1, size - 1);
	ctx = fuzz_ev_open(cpu, path);
	if (ev_list(ctx, NULL, collect, &ns) < 0 && !*oc_errmsg())
		fuzz_fail("ev_list failed without saying why");
	oc_err_clear();
	for (i = 0; i < ns.n; i++) {
		char *spec = xasprintf("%s%s", ns.v[i], mods[i % ARRAY_SIZE(mods)]);
		fuzz_resolve(ctx, spec);
		free(spec);
		free(ns.v[i]);
	}
	ev_close(ctx);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	fuzz_no_event_cache();
	return 0;
}
