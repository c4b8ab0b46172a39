/* Unit tests for src/passthrough: which events perf knows, and rewritten perf
 * command lines (events in lists and groups, workload arguments untouched). */
#include <stdlib.h>

#include "tap.h"
#include "passthrough/passthrough.h"
#include "util/util.h"

/* A stand-in resolver with two table events. */
static char *fake_resolve(const char *event, void *arg)
{
	int *calls = arg;
	(*calls)++;
	if (strcmp(event, "BR_INST_RETIRED.NEAR_TAKEN") == 0)
		return xstrdup("cpu/event=0xc4,umask=0x20,name=BR_INST_RETIRED.NEAR_TAKEN/");
	if (strcmp(event, "BR_INST_RETIRED.NEAR_TAKEN:pp") == 0)
		return xstrdup("cpu/event=0xc4,umask=0x20,name=BR_INST_RETIRED.NEAR_TAKEN/pp");
	return NULL;
}

#define BR "cpu/event=0xc4,umask=0x20,name=BR_INST_RETIRED.NEAR_TAKEN/"

static char *joined(char **v)
{
	struct strbuf sb = STRBUF_INIT;
	for (; v && *v; v++) {
		sb_puts(&sb, *v);
		if (v[1])
			sb_putc(&sb, '|');
	}
	return sb_detach(&sb);
}

static void check_args(const char *name, char **in, const char *want)
{
	int calls = 0;
	char **out = perf_rewrite_args(in, fake_resolve, &calls);
	char *got = joined(out);
	CHECK_STR(got, want, name);
	free(got);
	strv_free(out);
}

static void test_knows(void)
{
	static const char *const known[] = {
		"cycles", "cycles:u", "task-clock", "instructions:ppp", "L1-dcache-load-misses",
		"LLC-loads", "dTLB-store-misses", "branch-loads", "r1a8", "r1a8:u", "cpu/event=0x3c/",
		"cpu/event=0x3c,umask=0x1/uk", "cpu/cycles-t/", "cpu/event=0xc4,name=BR.X/", "sched:sched_switch", "syscalls:sys_enter_openat",
		"mem:0x1000:rw",
	};
	static const char *const unknown[] = {
		"BR_INST_RETIRED.NEAR_TAKEN", "inst_retired.any", "BR_INST_RETIRED.NEAR_TAKEN:pp",
		"UNC_CHA_TOR_INSERTS.IA_MISS", "cpu/BR_INST_RETIRED.NEAR_TAKEN/u",
		"cpu/BR_INST_RETIRED.NEAR_TAKEN,period=1000/", "rgb", "r", "foo:u", "L1-dcache-frobs", "CYCLES",
	};
	size_t i;
	char label[96];

	for (i = 0; i < ARRAY_SIZE(known); i++) {
		snprintf(label, sizeof(label), "perf knows %s", known[i]);
		CHECK(perf_knows_event(known[i]), label);
	}
	for (i = 0; i < ARRAY_SIZE(unknown); i++) {
		snprintf(label, sizeof(label), "perf does not know %s", unknown[i]);
		CHECK(!perf_knows_event(unknown[i]), label);
	}
}

static void test_lists(void)
{
	int calls = 0;
	char *s;

	s = perf_rewrite_event_list("cycles,BR_INST_RETIRED.NEAR_TAKEN", fake_resolve, &calls);
	CHECK_STR(s, "cycles," BR, "comma list: only the table event rewritten");
	CHECK_INT(calls, 1, "perf's own events are not sent to the resolver");
	free(s);
	s = perf_rewrite_event_list("{BR_INST_RETIRED.NEAR_TAKEN:pp,cycles}:u,r1a8", fake_resolve, &calls);
	CHECK_STR(s, "{" BR "pp,cycles}:u,r1a8", "group with a modifier kept");
	free(s);
	s = perf_rewrite_event_list("NO_SUCH.EVENT,cpu/event=0x3c,umask=0/", fake_resolve, &calls);
	CHECK_STR(s, "NO_SUCH.EVENT,cpu/event=0x3c,umask=0/", "unresolvable left for perf to report");
	free(s);
	CHECK(!perf_rewrite_event_list("{cycles", fake_resolve, &calls) && strstr(oc_errmsg(), "{cycles"),
	      "unbalanced group is an error");
}

/* What a recording opens: one name per event, a group's modifier on each. */
static void test_split(void)
{
	char *lists[] = { "{cycles,instructions}:u,cpu/event=0xc4,umask=0x20/", "r1a8", "{a,b" };
	char **evs = NULL;
	size_t n = 0;

	CHECK(evlist_split(lists, 2, &evs, &n) == 0 && n == 4 && evs[4] == NULL &&
	      !strcmp(evs[0], "cycles:u") && !strcmp(evs[1], "instructions:u") &&
	      !strcmp(evs[2], "cpu/event=0xc4,umask=0x20/") && !strcmp(evs[3], "r1a8"),
	      "split: groups flattened with their modifier, pmu terms kept whole");
	strv_free(evs);
	CHECK(evlist_split(lists + 2, 1, &evs, &n) < 0 && strstr(oc_errmsg(), "{a,b"),
	      "split: an unbalanced group is an error naming the list");
}

static void test_args(void)
{
	char *a1[] = { "stat", "-e", "BR_INST_RETIRED.NEAR_TAKEN", "-a", "./prog", "-e",
		       "BR_INST_RETIRED.NEAR_TAKEN", NULL };
	char *a2[] = { "record", "--event=BR_INST_RETIRED.NEAR_TAKEN", "-eBR_INST_RETIRED.NEAR_TAKEN:pp",
		       "-c", "100", "--event", "cycles", "-b", "--", "prog", "-e", "x", NULL };
	char *a3[] = { "record", "-o", "BR_INST_RETIRED.NEAR_TAKEN", "-e", "BR_INST_RETIRED.NEAR_TAKEN",
		       "prog", NULL };
	char *a4[] = { "--no-pager", "stat", "-x", ",", "-e", "{BR_INST_RETIRED.NEAR_TAKEN,instructions}",
		       "true", NULL };
	char *a5[] = { "report", "-i", "perf.data", "--stdio", NULL };
	char *a6[] = { "record", "-c", "1000", "./a.out", "-c", "5", NULL };
	char *a7[] = { "stat", "-e", "{BR_INST_RETIRED.NEAR_TAKEN", "true", NULL };
	char *a8[] = { "script", "-e", "BR_INST_RETIRED.NEAR_TAKEN", NULL };
	int calls = 0;

	check_args("stat: -e rewritten, the workload's -e untouched", a1,
		   "stat|-e|" BR "|-a|./prog|-e|BR_INST_RETIRED.NEAR_TAKEN");
	check_args("record: --event=, -eVALUE, --event VALUE forms; after -- untouched", a2,
		   "record|--event=" BR "|-e" BR "pp|-c|100|--event|cycles|-b|--|prog|-e|x");
	check_args("the value of -o is not an event", a3,
		   "record|-o|BR_INST_RETIRED.NEAR_TAKEN|-e|" BR "|prog");
	check_args("perf's global options before the subcommand; -x value kept", a4,
		   "--no-pager|stat|-x|,|-e|{" BR ",instructions}|true");
	check_args("a command line without events is copied", a5, "report|-i|perf.data|--stdio");
	check_args("workload arguments like the options are untouched", a6, "record|-c|1000|./a.out|-c|5");
	CHECK(!perf_rewrite_args(a7, fake_resolve, &calls), "unbalanced group in -e: error");
	check_args("subcommands without a workload: every -e", a8, "script|-e|" BR);
}

int main(void)
{
	test_knows();
	test_lists();
	test_split();
	test_args();
	return test_done();
}
