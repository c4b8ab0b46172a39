/* Unit tests: `ocrec stat` and `ocrec record` build the same event for the same
 * -e name and modifiers (perf's parse-events rules, applied once in the events
 * module). Nothing is opened: record_run() goes through its perf_event_open
 * seam, stat_add_events() only builds counters. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"
#include "cpu/cpu.h"
#include "events/events.h"
#include "record/record.h"
#include "stat/stat.h"
#include "util/util.h"

static struct perf_event_attr seen_attr;
static int nr_calls;

/* The first attr record_run() would open; the open then fails (no PMU needed). */
static int capture_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	if (nr_calls++ == 0)
		seen_attr = *attr;
	errno = ENOENT;
	return -1;
}

static char *fixture(const char *rel)
{
	const char *r = getenv("OCREC_ROOT");

	return xasprintf("%s/tests/fixtures/cpu/%s", r && *r ? r : ".", rel);
}

/* Tables for the names stat does not take directly: the Skylake-SP fixture. */
struct tables {
	struct cpu_desc cpu;
	char *cpuid, *sysfs;
	struct ev_context *ev;
};

static struct ev_context *open_tables(void *arg)
{
	struct tables *t = arg;

	if (!t->ev) {
		struct ev_options eo = { &t->cpu, NULL, t->sysfs, false };
		if (cpu_detect(&(struct cpu_source){ NULL, NULL, t->cpuid }, &t->cpu) < 0 ||
		    !(t->ev = ev_open(&eo)))
			return NULL;
		ev_set_cpuid_path(t->ev, t->cpuid);
	}
	return t->ev;
}

/* The fields an event's name and modifiers decide (a recording adds its
 * sampling fields, a count its read format). */
static bool same_event(const struct perf_event_attr *a, const struct perf_event_attr *b)
{
	return a->type == b->type && a->config == b->config && a->config1 == b->config1 &&
	       a->config2 == b->config2 && a->exclude_user == b->exclude_user &&
	       a->exclude_kernel == b->exclude_kernel && a->exclude_hv == b->exclude_hv &&
	       a->exclude_idle == b->exclude_idle && a->exclude_host == b->exclude_host &&
	       a->exclude_guest == b->exclude_guest && a->precise_ip == b->precise_ip &&
	       a->pinned == b->pinned && a->exclusive == b->exclusive;
}

int main(void)
{
	/* Names whose modifiers exclude user or kernel mode themselves: a
	 * recording without the right to profile the kernel excludes it from the
	 * others (as perf does), a count does not. */
	static const char *const specs[] = {
		"cycles:u", "cycles:k", "instructions:uH", "branches:uG", "cycles:upp",
		"branch-misses:kh", "cpu-clock:u", "L1-dcache-load-misses:u", "r00c4:u",
		"BR_INST_RETIRED.ALL_BRANCHES:u",
	};
	struct tables t = { .cpuid = fixture("skx.cpuid"), .sysfs = fixture("sysfs-skx/sys") };
	char dir[4096], *out;
	size_t i;

	if (!test_mkdtemp(dir, sizeof(dir), "ocrec-test-attrs-XXXXXX")) {
		SKIP("stat and record attrs", "cannot make a temporary directory");
		return test_done();
	}
	out = xasprintf("%s/perf.data", dir);
	record_perf_event_open_fn = capture_open;
	for (i = 0; i < ARRAY_SIZE(specs); i++) {
		char *events[] = { (char *)specs[i], NULL }, *argv[] = { "true", NULL }, *name;
		struct record_opts o = { .events = events, .nr_events = 1, .argv = argv, .output = out,
					 .sysfs_root = t.sysfs, .cpuid = t.cpuid };
		struct record_stats st;
		struct stat_session s;
		int rc;

		memset(&s, 0, sizeof(s));
		nr_calls = 0;
		rc = record_run(&o, &st);
		name = xasprintf("%s: record builds it (the open fails here)", specs[i]);
		CHECK(rc < 0 && nr_calls == 1, name);
		free(name);
		name = xasprintf("%s: stat builds it", specs[i]);
		CHECK(stat_add_events(&s, events, 1, open_tables, &t) == 0 && s.nr_counters == 1, name);
		free(name);
		name = xasprintf("%s: stat and record build the same event", specs[i]);
		CHECK(s.nr_counters == 1 && same_event(&s.counters[0].attr, &seen_attr), name);
		if (s.nr_counters == 1 && !same_event(&s.counters[0].attr, &seen_attr))
			printf("    stat:   type %u config %#llx exclude u%d k%d h%d G%d H%d precise %d\n"
			       "    record: type %u config %#llx exclude u%d k%d h%d G%d H%d precise %d\n",
			       s.counters[0].attr.type, (unsigned long long)s.counters[0].attr.config,
			       s.counters[0].attr.exclude_user, s.counters[0].attr.exclude_kernel,
			       s.counters[0].attr.exclude_hv, s.counters[0].attr.exclude_guest,
			       s.counters[0].attr.exclude_host, s.counters[0].attr.precise_ip,
			       seen_attr.type, (unsigned long long)seen_attr.config, seen_attr.exclude_user,
			       seen_attr.exclude_kernel, seen_attr.exclude_hv, seen_attr.exclude_guest,
			       seen_attr.exclude_host, seen_attr.precise_ip);
		free(name);
		stat_session_free(&s);
	}
	record_perf_event_open_fn = sys_perf_event_open;
	if (t.ev)
		ev_close(t.ev);
	rmdir(dir);
	free(out);
	free(t.cpuid);
	free(t.sysfs);
	return test_done();
}
