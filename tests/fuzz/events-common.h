/* events-common.h — the CPUs and fixture trees the event targets resolve for. */
#ifndef OCREC_FUZZ_EVENTS_COMMON_H
#define OCREC_FUZZ_EVENTS_COMMON_H

#include <stdio.h>
#include <string.h>

#include "common.h"
#include "events/ev-internal.h"

/* Each a CPU of tests/fixtures/events/perfmon, with the sysfs tree it is tested
 * with: core + uncore (cbox, arb, clock), offcore matrix, server uncore boxes
 * (cha, iio), hybrid cpu_core + cpu_atom. */
static const struct fuzz_cpu {
	const char *id, *sysfs;
} fuzz_cpus[] = {
	{ "GenuineIntel-6-5E-3", "tests/fixtures/events/sysfs-intel" },
	{ "GenuineIntel-6-3C-3", "tests/fixtures/events/sysfs-intel" },
	{ "GenuineIntel-6-55-4", "tests/fixtures/events/sysfs-skx" },
	{ "GenuineIntel-6-97-2", "tests/fixtures/events/sysfs-hybrid" },
};

/* An event context for fuzz_cpus[i] reading its tables from events (a file or
 * a tree; NULL: none, the built-in table). */
static inline struct ev_context *fuzz_ev_open(size_t i, const char *events)
{
	static struct cpu_desc cpu;
	struct ev_options o = { 0 };
	char sysfs[4096];
	struct ev_context *ctx;

	if (cpu_parse_string(fuzz_cpus[i].id, &cpu) < 0)
		fuzz_fail("%s", oc_errmsg());
	snprintf(cpu.perfmon_id, sizeof(cpu.perfmon_id), "%s", fuzz_cpus[i].id);
	cpu_classify(&cpu, NULL);
	snprintf(sysfs, sizeof(sysfs), "%s", fuzz_repo_path(fuzz_cpus[i].sysfs));
	o.cpu = &cpu;
	o.events_path = events;
	o.sysfs_root = sysfs;
	ctx = ev_open(&o);
	ev_set_quiet(ctx, true);
	return ctx;
}

/* Resolve spec; the result must be whole (one attr at least, each with its
 * PMU, perf string and name) or an error must say why. */
static inline void fuzz_resolve(struct ev_context *ctx, const char *spec)
{
	struct ev_resolved r;
	size_t i;

	if (ev_resolve(ctx, spec, &r) == 0) {
		char *s = ev_perf_string(&r);
		if (!r.nr_attrs)
			fuzz_fail("'%s' resolved to no event", spec);
		for (i = 0; i < r.nr_attrs; i++)
			if (!r.attrs[i].pmu || !r.attrs[i].perf_string || !r.attrs[i].name)
				fuzz_fail("'%s' resolved to an incomplete event", spec);
		free(s);
		ev_resolved_free(&r);
	} else if (!*oc_errmsg()) {
		fuzz_fail("'%s' failed without saying why", spec);
	}
	oc_err_clear();
}

/* No index cache: it would be written at every input (the index has its own target). */
static inline void fuzz_no_event_cache(void)
{
	setenv("XDG_CACHE_HOME", "/dev/null/no-cache", 1);
	unsetenv("OCREC_EVENTS");
}

#endif
