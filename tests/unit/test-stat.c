/* Unit tests for src/stat: multiplex scaling, run statistics,
 * the -e list syntax, output of scaled counts, and counting a real child. */
#include <math.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "events/events.h"
#include "passthrough/passthrough.h"
#include "stat/stat.h"
#include "util/util.h"

static void test_scale(void)
{
	double pct, v;

	v = stat_scale(1000, 500, 500, &pct);
	CHECK(v == 1000 && pct == 100, "never descheduled: raw count, 100%");
	v = stat_scale(1000, 400, 100, &pct);
	CHECK(v == 4000 && pct == 25, "running a quarter of the time: x4, 25%");
	v = stat_scale(333, 3000, 1000, &pct);
	CHECK(v == 999 && fabs(pct - 33.333333) < 1e-4, "x3, 33.33%");
	v = stat_scale(0, 1000, 0, &pct);
	CHECK(v < 0, "never ran: not counted");
	v = stat_scale(1ull << 62, 1ull << 40, 1ull << 39, &pct);
	CHECK(v == ldexp(1, 63) && pct == 50, "raw * enabled beyond 64 bits does not overflow");
	v = stat_scale(7, 0, 0, &pct);
	CHECK(v < 0, "zero times: not counted");
}

static void test_stats(void)
{
	struct stat_stats s = { 0, 0, 0 };
	double x[] = { 1, 2, 3, 4 };
	size_t i;

	CHECK(stat_stats_rel_stddev(&s) == 0, "no runs: no variance");
	for (i = 0; i < ARRAY_SIZE(x); i++)
		stat_stats_update(&s, x[i]);
	CHECK(s.mean == 2.5, "mean of 1..4");
	/* sample variance 5/3; stddev of the mean sqrt(5/3/4) */
	CHECK(fabs(stat_stats_stddev_mean(&s) - sqrt(5.0 / 12)) < 1e-12, "stddev of the mean");
	CHECK(fabs(stat_stats_rel_stddev(&s) - 100 * sqrt(5.0 / 12) / 2.5) < 1e-9, "relative stddev in percent");
}

static void test_evlist(void)
{
	struct evlist l = { NULL, 0 };
	char *s;

	CHECK(evlist_parse(&l, "cycles,instructions") == 0 && l.nr_groups == 2 && !l.groups[0].braced,
	      "two events");
	evlist_free(&l);
	CHECK(evlist_parse(&l, "{cycles,cpu/event=0x3c,umask=0x0,name=x/u}:u,task-clock") == 0 &&
	      l.nr_groups == 2 && l.groups[0].braced && l.groups[0].nr_events == 2 &&
	      !strcmp(l.groups[0].events[1], "cpu/event=0x3c,umask=0x0,name=x/u") &&
	      !strcmp(l.groups[0].modifier, "u") && !strcmp(l.groups[1].events[0], "task-clock"),
	      "group with pmu terms and a modifier");
	s = evlist_format(&l);
	CHECK_STR(s, "{cycles,cpu/event=0x3c,umask=0x0,name=x/u}:u,task-clock", "formats back");
	free(s);
	evlist_free(&l);
	CHECK(evlist_parse(&l, "a") == 0 && evlist_parse(&l, "{b,c}") == 0 && l.nr_groups == 2,
	      "several -e values append");
	evlist_free(&l);
	CHECK(evlist_parse(&l, "{a,b") < 0 && strstr(oc_errmsg(), "'{a,b'"), "unclosed group");
	evlist_free(&l);
	CHECK(evlist_parse(&l, "a}") < 0, "'}' without '{'");
	evlist_free(&l);
	CHECK(evlist_parse(&l, "cpu/event=1") < 0 && strstr(oc_errmsg(), "'/'"), "unclosed pmu terms");
	evlist_free(&l);
	CHECK(evlist_parse(&l, "{}") < 0, "empty group");
	evlist_free(&l);
	CHECK(evlist_parse(&l, ",") < 0, "empty list");
	evlist_free(&l);
	CHECK(evlist_parse(&l, "{a}x") < 0, "junk after a group");
	evlist_free(&l);
}

/* A session whose counters were multiplexed, printed as perf stat would. */
static void test_print_scaled(void)
{
	struct stat_session s;
	struct perf_event_attr a;
	struct stat_print_opts po = { .target_desc = "'x'" };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	double pct;

	memset(&s, 0, sizeof(s));
	ev_perf_generic_attr("cycles", &a);
	stat_add(&s, "cycles", &a, -1);
	ev_perf_generic_attr("instructions", &a);
	stat_add(&s, "instructions", &a, -1);
	stat_add(&s, "branches", &a, -1);   /* never ran */
	s.counters[0].ever_supported = s.counters[1].ever_supported = s.counters[2].ever_supported = true;
	stat_stats_update(&s.counters[0].value, stat_scale(1000, 200, 100, &pct));
	stat_stats_update(&s.counters[0].pct, pct);
	stat_stats_update(&s.counters[1].value, stat_scale(3000, 200, 200, &pct));
	stat_stats_update(&s.counters[1].pct, pct);
	stat_stats_update(&s.elapsed, 0.5);
	s.runs = 1;

	fp = open_memstream(&buf, &len);
	stat_print(fp, &s, &po);
	fclose(fp);
	CHECK(strstr(buf, "              2000      cycles") != NULL, "scaled count printed (1000 x 200/100)");
	CHECK(strstr(buf, "  (50.00%)\n") != NULL, "scaling percentage shown");
	CHECK(strstr(buf, "#    1.500 insn per cycle") != NULL, "IPC from the scaled cycles");
	CHECK(strstr(buf, "     <not counted>      branches\n") != NULL, "never ran: <not counted>");
	free(buf);

	po.csv_sep = ";";
	fp = open_memstream(&buf, &len);
	stat_print(fp, &s, &po);
	fclose(fp);
	CHECK(strstr(buf, "2000;;cycles;0;50.00;;\n") != NULL, "CSV: value;unit;event;runtime;pct");
	free(buf);
	stat_session_free(&s);
}

/* A child that does n voluntary context switches: a count with a known floor. */
static void test_count_child(void)
{
	struct stat_session s;
	struct perf_event_attr a;
	char *argv[] = { "sh", "-c", "i=0; while [ $i -lt 20 ]; do sleep 0.001; i=$((i+1)); done", NULL };
	char *bad[] = { "/nonexistent/prog", NULL };
	int status = -1;

	memset(&s, 0, sizeof(s));
	ev_perf_generic_attr("task-clock", &a);
	stat_add(&s, "task-clock", &a, 0);
	ev_perf_generic_attr("context-switches", &a);
	stat_add(&s, "context-switches", &a, 0);
	ev_perf_generic_attr("cycles", &a);
	stat_add(&s, "cycles", &a, -1);
	CHECK(stat_run_workload(&s, argv, &status) == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "workload ran");
	CHECK(s.counters[0].state == STAT_COUNTED && s.counters[0].raw > 0 &&
	      s.counters[0].running == s.counters[0].enabled, "task-clock counted, not multiplexed");
	CHECK(s.counters[1].state == STAT_COUNTED && s.counters[1].raw >= 20,
	      "20 sleeps in children: at least 20 context switches (inherit)");
	if (access("/sys/bus/event_source/devices/cpu", F_OK) != 0)
		CHECK(s.counters[2].state == STAT_NOT_SUPPORTED, "no core PMU: cycles not supported");
	else
		SKIP("cycles not supported", "this machine has a core PMU");
	CHECK(stat_run_workload(&s, bad, &status) < 0 && strstr(oc_errmsg(), "/nonexistent/prog"),
	      "a program that cannot run is an error naming it");
	stat_session_free(&s);
}

int main(void)
{
	test_scale();
	test_stats();
	test_evlist();
	test_print_scaled();
	test_count_child();
	return test_done();
}
