/* Unit tests for src/record/attr.c: -j names, the attr a recording builds, and
 * the open fallbacks and messages for errors this machine cannot produce
 * (EBUSY, precise retry, AMD precise drop) through the injectable syscall;
 * then record_run() itself through the same seam, for an Intel and an AMD CPU
 * description (fixtures), checking the attr it hands to perf_event_open. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"
#include "cpu/cpu.h"
#include "record/record.h"
#include "util/util.h"

static char last_warning[512];
static int nr_warnings;

static void capture_warning(const char *msg)
{
	snprintf(last_warning, sizeof(last_warning), "%s", msg);
	nr_warnings++;
}

/* Fake perf_event_open: refuses precise levels above max_precise with
 * EOPNOTSUPP, then fails with fail_errno (0: succeeds with fd 42). */
static unsigned max_precise;
static int fail_errno, nr_calls;

static int fake_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	nr_calls++;
	if (attr->precise_ip > max_precise) {
		errno = EOPNOTSUPP;
		return -1;
	}
	if (fail_errno) {
		errno = fail_errno;
		return -1;
	}
	return 42;
}

static void test_branch_filter(void)
{
	uint64_t m = 0;

	CHECK(record_parse_branch_filter("any,u", &m) == 0 && m == 0x9, "-j any,u is ANY|USER (0x9)");
	CHECK(record_parse_branch_filter("u", &m) == 0 &&
	      m == (PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY), "-j u alone samples any branch");
	CHECK(record_parse_branch_filter("any_call,any_ret,ind_call,ind_jmp,call,cond", &m) == 0 &&
	      m == (PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_ANY_RETURN | PERF_SAMPLE_BRANCH_IND_CALL |
		    PERF_SAMPLE_BRANCH_IND_JUMP | PERF_SAMPLE_BRANCH_CALL | PERF_SAMPLE_BRANCH_COND),
	      "-j call kinds");
	CHECK(record_parse_branch_filter("stack,save_type,abort_tx,in_tx,no_tx,k,hv", &m) == 0 &&
	      (m & PERF_SAMPLE_BRANCH_CALL_STACK) && (m & PERF_SAMPLE_BRANCH_TYPE_SAVE) &&
	      (m & PERF_SAMPLE_BRANCH_KERNEL) && (m & PERF_SAMPLE_BRANCH_HV) && !(m & PERF_SAMPLE_BRANCH_ANY),
	      "-j stack,save_type,tx,k,hv");
	CHECK(record_parse_branch_filter("any,bogus", &m) < 0 && strstr(oc_errmsg(), "'bogus'") &&
	      strstr(oc_errmsg(), "any_call"), "-j unknown name is named, valid ones listed");
}

static void test_config(void)
{
	struct record_opts o = { 0 };
	struct record_event ev = { .name = "cpu-clock" };
	struct record_layout l = { .tracking = true, .enable_on_exec = true };
	struct cpu_desc amd, intel;
	struct perf_event_attr *a = &ev.attr;

	CHECK(cpu_parse_string("AuthenticAMD-25-11-1", &amd) == 0, "AMD cpu string");
	CHECK(cpu_parse_string("GenuineIntel-6-55-4", &intel) == 0, "Intel cpu string");

	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	record_config_attr(&ev, &o, &amd, &l);
	CHECK_U64(a->sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD,
		  "default sample_type IP|TID|TIME|PERIOD");
	CHECK(a->freq && a->sample_freq == 4000, "default frequency 4000 Hz like perf");
	CHECK(a->enable_on_exec && a->disabled && a->inherit && a->sample_id_all, "forked workload flags");
	CHECK(a->mmap && a->mmap2 && a->comm && a->comm_exec && a->task, "tracking event side-band flags");
	CHECK(!a->exclude_kernel, "kernel allowed");
	CHECK_INT(a->size, sizeof(*a), "attr size");

	memset(a, 0, sizeof(*a));
	o.period = 100003;
	o.freq = 999;
	o.all_cpus = true;
	o.callgraph_fp = true;
	l = (struct record_layout){ .several_events = true, .exclude_kernel = true };
	record_config_attr(&ev, &o, &intel, &l);
	CHECK(!a->freq && a->sample_period == 100003, "-c wins over -F");
	CHECK((a->sample_type & PERF_SAMPLE_CPU) && (a->sample_type & PERF_SAMPLE_CALLCHAIN) &&
	      (a->sample_type & PERF_SAMPLE_IDENTIFIER) && (a->read_format & PERF_FORMAT_ID),
	      "-a adds CPU, -g CALLCHAIN, several events IDENTIFIER");
	CHECK(!a->enable_on_exec && !a->mmap && !a->comm, "non-tracking event without enable_on_exec");
	CHECK(a->exclude_kernel && a->exclude_hv, "exclude_kernel when kernel profiling is not allowed");
	CHECK(!(a->read_format & PERF_FORMAT_LOST), "no PERF_FORMAT_LOST unless the kernel counts lost records");
	memset(a, 0, sizeof(*a));
	l.count_lost = true;
	record_config_attr(&ev, &o, &intel, &l);
	CHECK_INT(a->read_format, PERF_FORMAT_ID | PERF_FORMAT_LOST, "read_format ID|LOST, as perf's from Linux 6.0");

	/* An event that came with a period (ocperf's SampleAfterValue) keeps it. */
	memset(a, 0, sizeof(*a));
	o = (struct record_opts){ 0 };
	a->sample_period = 2000003;
	record_config_attr(&ev, &o, &intel, &l);
	CHECK(!a->freq && a->sample_period == 2000003, "event's own period kept without -c/-F");
	memset(a, 0, sizeof(*a));
	o.freq = 10000;
	record_config_attr(&ev, &o, &intel, &l);
	CHECK(a->freq && a->sample_freq == 10000, "-F sets the frequency");

	/* -b: branch stack; AMD drops the precise level with a notice, Intel keeps it. */
	memset(a, 0, sizeof(*a));
	o = (struct record_opts){ .branch_stack = true };
	ev.name = "ex_ret_brn_tkn:p";
	a->type = PERF_TYPE_RAW;
	a->precise_ip = 2;
	nr_warnings = 0;
	record_config_attr(&ev, &o, &amd, &l);
	CHECK((a->sample_type & PERF_SAMPLE_BRANCH_STACK) && a->branch_sample_type == PERF_SAMPLE_BRANCH_ANY,
	      "-b samples branch stacks with filter ANY (0x8)");
	CHECK_INT(a->precise_ip, 0, "AMD: precise dropped for branch sampling");
	CHECK(nr_warnings == 1 && strstr(last_warning, "ex_ret_brn_tkn:p") && strstr(last_warning, "IBS"),
	      "AMD precise drop notice names the event and IBS");

	memset(a, 0, sizeof(*a));
	a->precise_ip = 2;
	o.branch_filter = PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_USER;
	nr_warnings = 0;
	record_config_attr(&ev, &o, &intel, &l);
	CHECK(a->precise_ip == 2 && nr_warnings == 0, "Intel keeps the precise level with -b");
	CHECK_U64(a->branch_sample_type, PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_USER, "-j filter used");
}

static void test_open(void)
{
	struct record_event ev = { .name = "BR_INST_RETIRED.ALL_BRANCHES:ppp", .named = true };
	char *paranoid;
	int fd;

	record_perf_event_open_fn = fake_open;
	ev.attr.type = PERF_TYPE_RAW;
	ev.attr.precise_ip = 3;
	ev.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
	max_precise = 1;
	fail_errno = 0;
	nr_warnings = 0;
	fd = record_open_event(&ev, 1234, 0, -1, false);
	CHECK_INT(fd, 42, "precise retry opens at a lower level");
	CHECK_INT(ev.attr.precise_ip, 1, "precise lowered to what the PMU takes");
	CHECK(nr_warnings == 2 && strstr(last_warning, "precise level 2") && strstr(last_warning, "retrying with 1"),
	      "each precise retry is said");

	ev.attr.precise_ip = 3;
	ev.precise_max = true;
	nr_warnings = 0;
	CHECK_INT(record_open_event(&ev, 1234, 0, -1, false), 42, "precise_max retry opens");
	CHECK_INT(nr_warnings, 0, "precise_max (the default event) retries silently like perf");
	ev.precise_max = false;

	/* Branch stacks refused at every precise level: the message names the software sampler. */
	ev.attr.precise_ip = 2;
	max_precise = 0;
	fail_errno = EOPNOTSUPP;
	nr_calls = 0;
	fd = record_open_event(&ev, 1234, 0, -1, false);
	CHECK(fd < 0 && errno == EOPNOTSUPP && nr_calls == 3, "EOPNOTSUPP after precise 2,1,0 keeps errno");
	CHECK(strstr(oc_errmsg(), "BR_INST_RETIRED.ALL_BRANCHES:ppp") && strstr(oc_errmsg(), "no branch stacks") &&
	      strstr(oc_errmsg(), "--branch-sampler=software"), "EOPNOTSUPP + -b names --branch-sampler=software");

	fail_errno = EBUSY;
	CHECK(record_open_event(&ev, 1234, 0, -1, false) < 0 && errno == EBUSY, "EBUSY fails");
	CHECK(strstr(oc_errmsg(), "busy") && strstr(oc_errmsg(), "LBR") && !strchr(oc_errmsg(), '\n'),
	      "EBUSY message: one line, LBR busy");

	fail_errno = ENOENT;
	CHECK(record_open_event(&ev, 1234, 0, -1, false) < 0, "ENOENT fails");
	CHECK(strstr(oc_errmsg(), "BR_INST_RETIRED.ALL_BRANCHES:ppp: no hardware PMU here — a VM?") != NULL,
	      "ENOENT: no hardware PMU here — a VM?, naming the event");

	fail_errno = EACCES;
	CHECK(record_open_event(&ev, -1, 0, -1, true) < 0, "EACCES fails");
	CHECK(strstr(oc_errmsg(), "kernel.perf_event_paranoid") && strstr(oc_errmsg(), "-a needs 0"),
	      "EACCES names kernel.perf_event_paranoid and what -a needs");

	/* Allowed by the sysctl, refused anyway: another user's process (ptrace rules). */
	paranoid = read_line_file("/proc/sys/kernel/perf_event_paranoid");
	if (!paranoid || atoi(paranoid) > 2) {
		SKIP("EACCES for a user-space event", "kernel.perf_event_paranoid is unreadable or above 2");
	} else {
		ev.attr.exclude_kernel = 1;
		ev.attr.exclude_hv = 1;
		ev.attr.sample_type = PERF_SAMPLE_IP;   /* no kernel branches either */
		ev.attr.branch_sample_type = 0;
		CHECK(record_open_event(&ev, 1, 0, -1, false) < 0 && strstr(oc_errmsg(), "another user's") &&
		      strstr(oc_errmsg(), "ptrace_scope"), "EACCES for a user-space event: names ptrace rules, not the sysctl");
	}
	free(paranoid);

	fail_errno = EINVAL;
	ev.attr.freq = 1;
	ev.attr.sample_freq = 100000000;
	CHECK(record_open_event(&ev, 1234, 0, -1, false) < 0 &&
	      strstr(oc_errmsg(), "kernel.perf_event_max_sample_rate"), "EINVAL with -F above the maximum names the sysctl");
	record_perf_event_open_fn = sys_perf_event_open;
}

/* record_run() through the seam: the first attr it opens is kept, and the
 * open fails with fail_errno. */
static struct perf_event_attr seen_attr;
static pid_t seen_pid;

static int capture_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	if (nr_calls++ == 0) {
		seen_attr = *attr;
		seen_pid = pid;
	}
	errno = fail_errno;
	return -1;
}

static char *fixture(const char *rel)
{
	const char *r = getenv("OCREC_ROOT");

	return xasprintf("%s/tests/fixtures/cpu/%s", r && *r ? r : ".", rel);
}

static void test_record_run(void)
{
	char *argv[] = { "true", NULL };
	char *intel_ev[] = { "BR_INST_RETIRED.ALL_BRANCHES:p", NULL };
	char *amd_ev[] = { "r00c4:p", NULL };
	char dir[4096];
	char *out, *skx = fixture("skx.cpuid"), *skx_sys = fixture("sysfs-skx/sys");
	char *zen4 = fixture("amd-zen4-lbrv2.cpuid"), *zen4_sys = fixture("sysfs-amd-zen4/sys");
	struct record_opts o = { .events = intel_ev, .nr_events = 1, .branch_stack = true,
				 .branch_filter = PERF_SAMPLE_BRANCH_ANY, .argv = argv, .buildid_cache = false,
				 .sysfs_root = skx_sys, .cpuid = skx };
	struct record_stats st;
	int rc;

	if (!test_mkdtemp(dir, sizeof(dir), "ocrec-test-record-XXXXXX")) {
		SKIP("record_run through the seam", "cannot make a temporary directory");
		return;
	}
	out = xasprintf("%s/perf.data", dir);
	o.output = out;
	record_perf_event_open_fn = capture_open;

	/* The article's command line on a Skylake-SP with its LBR busy. */
	nr_calls = 0;
	fail_errno = EBUSY;
	nr_warnings = 0;
	rc = record_run(&o, &st);
	CHECK(rc < 0 && nr_calls == 1, "-e BR_INST_RETIRED.ALL_BRANCHES:p -b, EBUSY: fails at the first open");
	CHECK(strstr(oc_errmsg(), "BR_INST_RETIRED.ALL_BRANCHES:p: ") && strstr(oc_errmsg(), "busy") &&
	      strstr(oc_errmsg(), "LBR") && !strchr(oc_errmsg(), '\n'), "EBUSY: one line naming the event and the LBR");
	CHECK(seen_attr.type == PERF_TYPE_RAW && seen_attr.config == 0xc4, "Intel: raw event 0xc4 (umask 0)");
	CHECK_INT(seen_attr.precise_ip, 1, "Intel: :p kept with -b");
	CHECK((seen_attr.sample_type & PERF_SAMPLE_BRANCH_STACK) &&
	      seen_attr.branch_sample_type == PERF_SAMPLE_BRANCH_ANY, "-b: BRANCH_STACK, filter ANY");
	CHECK(!seen_attr.freq && seen_attr.sample_period == 400009, "the table's SampleAfterValue is the period");
	CHECK(seen_attr.disabled && seen_attr.enable_on_exec && seen_attr.inherit && seen_attr.sample_id_all &&
	      seen_attr.mmap2 && seen_attr.comm_exec && seen_attr.task,
	      "forked workload: enable_on_exec, inherit, side-band records");
	CHECK(seen_pid > 0 && seen_pid != getpid(), "opened on the forked workload");
	CHECK(access(out, F_OK) < 0 && errno == ENOENT, "EBUSY: no output file");

	/* The same recording with -F: frequency instead of the table's period. */
	o.freq = 1000;
	nr_calls = 0;
	record_run(&o, &st);
	CHECK(seen_attr.freq && seen_attr.sample_freq == 1000, "-F wins over the table's period");
	o.freq = 0;

	/* AMD Zen 4 (LbrExtV2): the precise level is dropped for -b (IBS has no
	 * branch stacks), with a notice; the kernel's EOPNOTSUPP names the sampler. */
	o.events = amd_ev;
	o.cpuid = zen4;
	o.sysfs_root = zen4_sys;
	nr_calls = 0;
	nr_warnings = 0;
	last_warning[0] = 0;
	fail_errno = EOPNOTSUPP;
	o.sampler = BRANCH_SAMPLER_HARDWARE;
	rc = record_run(&o, &st);
	CHECK(rc < 0 && seen_attr.type == PERF_TYPE_RAW && seen_attr.config == 0xc4, "AMD: raw event 0xc4 opened");
	CHECK_INT(seen_attr.precise_ip, 0, "AMD: precise dropped before opening with -b");
	CHECK(nr_warnings == 1 && strstr(last_warning, "r00c4:p") && strstr(last_warning, "IBS"),
	      "AMD: one notice naming the event and IBS");
	CHECK(strstr(oc_errmsg(), "no branch stacks") && strstr(oc_errmsg(), "--branch-sampler=software"),
	      "AMD, EOPNOTSUPP: the error names --branch-sampler=software");
	CHECK_INT(nr_calls, 1, "precise 0 refused: no precise retry");

	/* Without -b AMD keeps :p (IBS samples it). */
	o.branch_stack = false;
	o.branch_filter = 0;
	nr_calls = 0;
	nr_warnings = 0;
	fail_errno = EBUSY;
	record_run(&o, &st);
	CHECK(seen_attr.precise_ip == 1 && nr_warnings == 0 && !(seen_attr.sample_type & PERF_SAMPLE_BRANCH_STACK),
	      "AMD without -b: :p kept, no notice");

	record_perf_event_open_fn = sys_perf_event_open;
	rmdir(dir);
	free(out);
	free(skx);
	free(skx_sys);
	free(zen4);
	free(zen4_sys);
}

/* AMD branch records through the seam, with sysfs and CPUID fixtures of the
 * machines: the attrs perf builds there (perf record -b -c N -e cpu/branch-brs/
 * on Zen 3, perf record -b -e EVENT on Zen 4) and the messages for the rules of
 * the kernel's drivers (arch/x86/events/amd/brs.c, lbr.c). */
/* record_run() with the first open's attr kept in seen_attr. */
static int run_first(const struct record_opts *o, struct record_stats *st)
{
	nr_calls = 0;
	return record_run(o, st);
}

static void test_amd_branch_records(void)
{
	char *argv[] = { "true", NULL };
	char *brs_ev[] = { "cpu/branch-brs/", NULL }, *other_ev[] = { "cpu/event=0xc2/", NULL };
	char *v2_ev[] = { "cpu/event=0xc4/", NULL };
	char *table_ev[] = { "ex_ret_brn_tkn", NULL }, *table_p_ev[] = { "ex_ret_brn_tkn:p", NULL };
	const char *root = getenv("OCREC_ROOT");
	char *data = xasprintf("%s/tests/data/pmu-events/x86", root && *root ? root : ".");
	char dir[] = "/tmp/ocrec-test-record-XXXXXX";
	char *out, *zen3 = fixture("amd-zen3-brs.cpuid"), *zen3_sys = fixture("sysfs-amd-zen3-brs/sys");
	char *zen4 = fixture("amd-zen4-lbrv2.cpuid"), *zen4_sys = fixture("sysfs-amd-zen4/sys");
	struct record_opts o = { .branch_stack = true, .branch_filter = PERF_SAMPLE_BRANCH_ANY, .argv = argv,
				 .sysfs_root = zen3_sys, .cpuid = zen3, .sampler = BRANCH_SAMPLER_HARDWARE };
	struct record_stats st;

	if (!mkdtemp(dir)) {
		SKIP("AMD branch records through the seam", "cannot make a temporary directory");
		return;
	}
	out = xasprintf("%s/perf.data", dir);
	o.output = out;
	record_perf_event_open_fn = capture_open;
	fail_errno = EINVAL;

	/* Zen 3 BRS, no -e: perf's cpu/branch-brs/ (0xc4) in period mode */
	CHECK(run_first(&o, &st) < 0 && nr_calls == 1, "Zen 3 -b: one open, refused");
	CHECK(seen_attr.type == PERF_TYPE_RAW && seen_attr.config == 0xc4 && seen_attr.precise_ip == 0,
	      "Zen 3 -b without -e: retired taken branches (0xc4), not cycles");
	CHECK(!seen_attr.freq && seen_attr.sample_period == 400009, "Zen 3 -b: period mode, 400009");
	CHECK((seen_attr.sample_type & PERF_SAMPLE_BRANCH_STACK) && seen_attr.branch_sample_type == PERF_SAMPLE_BRANCH_ANY,
	      "Zen 3 -b: BRANCH_STACK, filter ANY");

	/* -e cpu/branch-brs/ (the sysfs alias) -c 1000037: perf's own example */
	o.events = brs_ev;
	o.nr_events = 1;
	o.period = 1000037;
	run_first(&o, &st);
	CHECK(seen_attr.type == 4 && seen_attr.config == 0xc4 && !seen_attr.freq && seen_attr.sample_period == 1000037,
	      "Zen 3 -e cpu/branch-brs/ -c 1000037: type 4 (sysfs), config 0xc4, that period");

	/* the command line, -e ex_ret_brn_tkn -b, with the kernel's tables */
	o.events = table_ev;
	o.period = 0;
	o.events_path = data;
	run_first(&o, &st);
	CHECK(seen_attr.type == 4 && seen_attr.config == 0xc4 && !seen_attr.freq && seen_attr.sample_period == 400009 &&
	      seen_attr.branch_sample_type == PERF_SAMPLE_BRANCH_ANY && seen_attr.precise_ip == 0,
	      "Zen 3 -e ex_ret_brn_tkn -b: perf's branch-brs attr, period 400009");
	o.events = brs_ev;
	o.period = 1000037;

	/* the rules of amd_brs_hw_config, each named when the kernel says EINVAL */
	o.period = 16;
	CHECK(run_first(&o, &st) < 0 && strstr(oc_errmsg(), "cpu/branch-brs/: ") &&
	      strstr(oc_errmsg(), "period above its depth, 16"), "Zen 3 -c 16: the period must exceed the depth");
	o.period = 0;
	o.freq = 1000;
	CHECK(run_first(&o, &st) < 0 && seen_attr.freq && strstr(oc_errmsg(), "frequency mode") &&
	      strstr(oc_errmsg(), "-c N"), "Zen 3 -F: the kernel's EINVAL explained, -c named");
	o.freq = 0;
	o.branch_filter = PERF_SAMPLE_BRANCH_ANY_CALL;
	CHECK(run_first(&o, &st) < 0 && seen_attr.branch_sample_type == PERF_SAMPLE_BRANCH_ANY_CALL &&
	      strstr(oc_errmsg(), "no -j filter but any"), "Zen 3 -j any_call: BRS has no filters");
	o.branch_filter = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	o.events = other_ev;
	CHECK(run_first(&o, &st) < 0 && seen_attr.config == 0xc2 && !seen_attr.freq &&
	      strstr(oc_errmsg(), "cpu/event=0xc2/: ") && strstr(oc_errmsg(), "only on retired taken branches") &&
	      strstr(oc_errmsg(), "ex_ret_brn_tkn"), "Zen 3 another event: named, ex_ret_brn_tkn suggested");

	/* Zen 4 LbrExtV2: any event, perf's default frequency; its filters */
	o.cpuid = zen4;
	o.sysfs_root = zen4_sys;
	o.events = table_p_ev;
	o.branch_filter = PERF_SAMPLE_BRANCH_ANY;
	nr_warnings = 0;
	run_first(&o, &st);
	CHECK(seen_attr.type == 4 && seen_attr.config == 0xc4 && seen_attr.freq && seen_attr.sample_freq == 4000 &&
	      seen_attr.precise_ip == 0 && nr_warnings == 1, "Zen 4 -e ex_ret_brn_tkn:p -b: -F 4000, :p dropped with a notice");
	o.events = v2_ev;
	run_first(&o, &st);
	CHECK(seen_attr.type == 4 && seen_attr.config == 0xc4 && seen_attr.freq && seen_attr.sample_freq == 4000 &&
	      seen_attr.branch_sample_type == PERF_SAMPLE_BRANCH_ANY, "Zen 4 -e cpu/event=0xc4/ -b: -F 4000 like perf");
	fail_errno = EOPNOTSUPP;
	o.branch_filter = PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_USER;
	CHECK(run_first(&o, &st) < 0 && strstr(oc_errmsg(), "LbrExtV2 has no call-stack"),
	      "Zen 4 -j stack: LbrExtV2's missing filter named");
	o.events = NULL;
	o.nr_events = 0;
	o.branch_filter = PERF_SAMPLE_BRANCH_ANY;
	run_first(&o, &st);
	CHECK(seen_attr.type == PERF_TYPE_HARDWARE && seen_attr.config == PERF_COUNT_HW_CPU_CYCLES && seen_attr.freq,
	      "Zen 4 -b without -e: cycles, as perf");

	record_perf_event_open_fn = sys_perf_event_open;
	rmdir(dir);
	free(out);
	free(zen3);
	free(zen3_sys);
	free(zen4);
	free(zen4_sys);
	free(data);
}

int main(void)
{
	oc_set_warn_handler(capture_warning);
	test_branch_filter();
	test_config();
	test_open();
	test_record_run();
	test_amd_branch_records();
	return test_done();
}
