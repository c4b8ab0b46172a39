/* attr.c — perf_event_attr for a recording (perf 6.1's evsel__config choices,
 * docs/perfdata.md, "The attr"), -j branch filters, and opening events with
 * perf's fallbacks and one-line messages ("Errors without LBR"). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu/cpu.h"
#include "record/record.h"
#include "util/util.h"

#define DEFAULT_FREQ 4000   /* perf record's default -F */
/* BRS (Zen 3) accepts period mode only (arch/x86/events/amd/brs.c); this is the
 * period Intel's tables give BR_INST_RETIRED.NEAR_TAKEN, the same event there. */
#define AMD_BRS_PERIOD 400009
#define AMD_BRS_DEPTH 16    /* x86_pmu.lbr_nr for BRS */
/* The bits amd_is_brs_event() compares (AMD64_RAW_EVENT_MASK: event, umask,
 * edge, inv, cmask). */
#define AMD_RAW_EVENT_MASK 0xfff84ffffULL

int (*record_perf_event_open_fn)(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
				 unsigned long flags) = sys_perf_event_open;

/* perf 6.1 util/parse-branch-options.c names. */
static const struct name_bits branch_names[] = {
	{ "u", PERF_SAMPLE_BRANCH_USER },
	{ "k", PERF_SAMPLE_BRANCH_KERNEL },
	{ "hv", PERF_SAMPLE_BRANCH_HV },
	{ "any", PERF_SAMPLE_BRANCH_ANY },
	{ "any_call", PERF_SAMPLE_BRANCH_ANY_CALL },
	{ "any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN },
	{ "ind_call", PERF_SAMPLE_BRANCH_IND_CALL },
	{ "abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX },
	{ "in_tx", PERF_SAMPLE_BRANCH_IN_TX },
	{ "no_tx", PERF_SAMPLE_BRANCH_NO_TX },
	{ "cond", PERF_SAMPLE_BRANCH_COND },
	{ "ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP },
	{ "call", PERF_SAMPLE_BRANCH_CALL },
	{ "save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE },
	{ "stack", PERF_SAMPLE_BRANCH_CALL_STACK },
};

#define BRANCH_PRIV_BITS (PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV)

int record_parse_branch_filter(const char *s, uint64_t *mask)
{
	uint64_t m;

	if (parse_name_bits(s, branch_names, ARRAY_SIZE(branch_names), "-j", "branch filter", &m) < 0)
		return -1;
	if ((m & ~BRANCH_PRIV_BITS) == 0)
		m |= PERF_SAMPLE_BRANCH_ANY;
	*mask = m;
	return 0;
}

void record_config_attr(struct record_event *ev, const struct record_opts *o,
			const struct cpu_desc *cpu, const struct record_layout *l)
{
	struct perf_event_attr *a = &ev->attr;
	bool brs = o->branch_stack && cpu && cpu->lbr.kind == LBR_AMD_BRS;

	ev->lbr = o->branch_stack && cpu ? cpu->lbr.kind : LBR_UNKNOWN;
	a->size = sizeof(*a);
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	if (o->all_cpus)
		a->sample_type |= PERF_SAMPLE_CPU;
	if (o->callgraph_fp)
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (l->several_events) {
		a->sample_type |= PERF_SAMPLE_IDENTIFIER;
		a->read_format |= PERF_FORMAT_ID;
	}
	if (l->count_lost)
		a->read_format |= PERF_FORMAT_LOST;   /* as perf's: see record.c */
	if (o->branch_stack) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = o->branch_filter ? o->branch_filter : PERF_SAMPLE_BRANCH_ANY;
		/* Precise events route to IBS on AMD, and IBS has no branch stacks. */
		if (a->precise_ip && cpu && cpu_is_amd(cpu)) {
			if (!ev->precise_max)
				oc_warn("%s: precise modifier dropped for branch sampling on AMD "
					"(precise sampling uses IBS, which has no branch stacks)", ev->name);
			a->precise_ip = 0;
		}
	}

	/* -c wins over -F; a period the event came with (ocperf's SampleAfterValue)
	 * wins over the default frequency. */
	if (o->period) {
		a->freq = 0;
		a->sample_period = o->period;
	} else if (o->freq) {
		a->freq = 1;
		a->sample_freq = o->freq;
	} else if (brs && !a->sample_period) {
		a->freq = 0;
		a->sample_period = AMD_BRS_PERIOD;
	} else if (!a->sample_period) {
		a->freq = 1;
		a->sample_freq = DEFAULT_FREQ;
	}

	a->sample_id_all = 1;
	a->inherit = 1;
	a->disabled = 1;
	a->enable_on_exec = l->enable_on_exec;
	/* Kernel-only events (:k) keep asking, so the open error names the sysctl. */
	if (l->exclude_kernel && !a->exclude_user) {
		a->exclude_kernel = 1;
		a->exclude_hv = 1;
	}
	if (l->tracking) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
	}
}

static bool is_software(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE || a->type == PERF_TYPE_TRACEPOINT;
}

/* Which rule of the BRS driver (amd_brs_hw_config, amd_brs_setup_filter) an
 * attr breaks, as perf's evsel__open_strerror explains EINVAL there; NULL: none. */
static const char *amd_brs_rule(const struct perf_event_attr *a)
{
	if ((a->config & AMD_RAW_EVENT_MASK) != AMD_BRS_EVENT)
		return "AMD BRS (Zen 3) samples branch stacks only on retired taken branches: "
		       "use -e ex_ret_brn_tkn (event 0xc4, perf's cpu/branch-brs/)";
	if (a->freq)
		return "AMD BRS (Zen 3) does not sample in frequency mode: give a period with -c N "
		       "(N above the BRS depth, 16)";
	if (a->sample_period <= AMD_BRS_DEPTH)
		return "AMD BRS (Zen 3) needs a period above its depth, 16 (-c N)";
	if ((a->branch_sample_type & ~BRANCH_PRIV_BITS) != PERF_SAMPLE_BRANCH_ANY)
		return "AMD BRS (Zen 3) records every taken branch: no -j filter but any (with u, k)";
	return NULL;
}

/* Filters AMD's LbrExtV2 driver refuses (LBR_NOT_SUPP in amd/lbr.c). */
#define AMD_LBR_V2_UNSUPPORTED (PERF_SAMPLE_BRANCH_ABORT_TX | PERF_SAMPLE_BRANCH_IN_TX | \
				PERF_SAMPLE_BRANCH_NO_TX | PERF_SAMPLE_BRANCH_CALL_STACK | \
				PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_NO_CYCLES)

static int read_sysctl_int(const char *path, int dflt)
{
	char *s = read_line_file(path);
	int v = s ? atoi(s) : dflt;

	free(s);
	return v;
}

int record_open_error(int err, const struct record_event *ev, bool all_cpus)
{
	const struct perf_event_attr *a = &ev->attr;
	bool branches = a->sample_type & PERF_SAMPLE_BRANCH_STACK;
	const char *name = ev->name;

	switch (err) {
	case ENOENT:
		if (is_software(a))
			return oc_err("%s: event not supported by this kernel", name);
		return oc_err("%s: no hardware PMU here — a VM? (software events such as cpu-clock work%s)",
			      name, branches ? "; for -b use --branch-sampler=software" : "");
	case EOPNOTSUPP:
		if (branches && ev->lbr == LBR_AMD_V2 && (a->branch_sample_type & AMD_LBR_V2_UNSUPPORTED))
			return oc_err("%s: AMD LbrExtV2 has no call-stack or transaction filters "
				      "(-j stack, abort_tx, in_tx, no_tx)", name);
		if (branches)
			return oc_err("%s: %s no branch stacks (-b/-j); use --branch-sampler=software",
				      name, is_software(a) ? "software events have" : "this PMU gives");
		return oc_err("%s: not supported by this PMU (operation not supported)", name);
	case EACCES:
	case EPERM: {
		int paranoid = read_sysctl_int("/proc/sys/kernel/perf_event_paranoid", -99);
		int need = all_cpus ? 0 : (!a->exclude_kernel ||
					   (a->branch_sample_type & PERF_SAMPLE_BRANCH_KERNEL)) ? 1 : 2;

		if (paranoid != -99 && paranoid <= need)
			return oc_err("%s: permission denied although kernel.perf_event_paranoid (%d) allows it: "
				      "the process is another user's, or kernel.yama.ptrace_scope forbids tracing it",
				      name, paranoid);
		return oc_err("%s: permission denied: kernel.perf_event_paranoid is %d, %s needs %d or lower "
			      "(or root/CAP_PERFMON): sysctl kernel.perf_event_paranoid=%d",
			      name, paranoid, all_cpus ? "-a" : a->exclude_kernel ? "profiling" :
			      "kernel profiling", need, need);
	}
	case EBUSY:
		return oc_err("%s: the PMU is busy: the LBR or counters are in use by another tool "
			      "(another perf, BTS or PT session); retry when it ends", name);
	case EINVAL:
		if (a->freq) {
			int max = read_sysctl_int("/proc/sys/kernel/perf_event_max_sample_rate", 0);

			if (max > 0 && a->sample_freq > (uint64_t)max)
				return oc_err("-F %llu is above kernel.perf_event_max_sample_rate (%d)",
					      (unsigned long long)a->sample_freq, max);
		}
		if (branches) {
			const char *rule = ev->lbr == LBR_AMD_BRS ? amd_brs_rule(a) : NULL;

			return oc_err("%s: %s", name, rule ? rule :
				      "the kernel refused this branch filter or period (invalid argument)");
		}
		return oc_err("%s: the kernel refused the event settings (invalid argument)", name);
	case ESRCH:
		return oc_err("%s: no such process", name);
	case EMFILE:
		return oc_err("%s: too many open files (raise ulimit -n)", name);
	default:
		return oc_err("%s: perf_event_open failed: %s", name, strerror(err));
	}
}

int record_open_event(struct record_event *ev, pid_t pid, int cpu, int group_fd, bool all_cpus)
{
	for (;;) {
		int fd = record_perf_event_open_fn(&ev->attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
		int err = errno;

		if (fd >= 0)
			return fd;
		/* Like perf: a precise level the PMU refuses is lowered and retried. */
		if ((err == EOPNOTSUPP || err == EINVAL) && ev->attr.precise_ip > 0) {
			unsigned lower = ev->attr.precise_ip - 1;

			if (!ev->precise_max)
				oc_warn("%s: precise level %u is not supported here, retrying with %u",
					ev->name, ev->attr.precise_ip, lower);
			ev->attr.precise_ip = lower;
			continue;
		}
		record_open_error(err, ev, all_cpus);
		errno = err;
		return -1;
	}
}
