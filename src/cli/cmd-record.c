/* ocrec record — record a profile into perf.data with perf_event_open, like
 * perf record (the default command: `ocrec -e EVENT -b prog args`). The work is
 * in src/record (record_run) and, for -b without LBR, src/sampler (sampler_record):
 * this file chooses. */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "passthrough/passthrough.h"
#include "record/record.h"
#include "sampler/sampler.h"

static const char usage[] =
	"usage: ocrec [record] [-e EVENT,...] [-b | -j FILTER] [-g] [-c N | -F HZ] [-o FILE] PROG [ARGS]\n"
	"       ocrec [record] [options] -p PID | -a [PROG [ARGS]]\n"
	"\n"
	"Record samples of EVENT while PROG runs (its threads and children included), like\n"
	"perf record, into a perf.data file that perf and ocrec read. ocrec opens the events\n"
	"itself (perf_event_open, one ring buffer per CPU). record is the default command:\n"
	"`ocrec -e BR_INST_RETIRED.ALL_BRANCHES:p -b prog` records prog's branch stacks.\n"
	"\n"
	"  -e, --event LIST        events to sample: Intel names from the event tables\n"
	"                          (BR_INST_RETIRED.ALL_BRANCHES:p), libpfm4 names, perf's\n"
	"                          generic names (cycles, cpu-clock, task-clock), rNNNN,\n"
	"                          pmu/terms/; a comma list, or -e given more than once\n"
	"                          ({a,b} groups are recorded as separate events).\n"
	"                          Default: cycles, or cpu-clock without a hardware PMU\n"
	"      --events PATH       event tables (default: $OCREC_EVENTS, the cache, built-in)\n"
	"  -b, --branch-any        sample any taken branch (LBR branch stacks; = -j any)\n"
	"  -j, --branch-filter F   branch stack filter, perf's names: any, any_call, any_ret,\n"
	"                          ind_call, ind_jmp, call, cond, u, k, hv, abort_tx, in_tx,\n"
	"                          no_tx, stack, save_type (comma-separated)\n"
	"      --branch-sampler=auto|hardware|software\n"
	"                          where -b's branch stacks come from: the PMU (hardware), the\n"
	"                          software branch sampler (software: ptrace, 1000 Hz by\n"
	"                          default), or auto (default): the PMU, else the software\n"
	"                          sampler when no hardware event was named\n"
	"      --lbr-depth N       branches per sample of the software sampler (default: the\n"
	"                          CPU's LBR depth, else 32)\n"
	"  -g                      record call chains (frame pointers; = --call-graph fp)\n"
	"      --call-graph fp     the same (fp is the only mode)\n"
	"  -c, --count N           sample every N events\n"
	"  -F, --freq HZ|max       sample HZ times a second (default 4000, perf's)\n"
	"  -p, --pid PID           record the running process PID (all its threads) until it\n"
	"                          exits or Ctrl-C\n"
	"  -a, --all-cpus          record every CPU (system wide), until PROG exits or Ctrl-C\n"
	"  -o, --output FILE       output file (default perf.data; an existing one becomes\n"
	"                          FILE.old)\n"
	"  -m, --mmap-pages N|SIZE the ring buffer of each CPU: N pages or SIZE bytes (4M,\n"
	"                          512K), up to a power of two (default 512K; 256K for the\n"
	"                          software sampler)\n"
	"  -N, --no-buildid-cache  do not copy the sampled objects into ~/.debug\n"
	"  -q, --quiet             print no summary or notices\n"
	"  -v, --verbose           say what is opened (twice: more)\n"
	"  --cpuinfo FILE, --cpuid FILE, --sysfs DIR   resolve event names for that CPU/PMUs\n"
	"\n"
	"The summary goes to stderr. The exit status is PROG's (128+N when signal N killed\n"
	"it, 127 when it is not found); 2 for errors. Ctrl-C (SIGINT) or SIGTERM stops PROG\n"
	"and leaves a complete file.\n";

enum { OPT_CALL_GRAPH = OPT_FIRST_LOCAL, OPT_BRANCH_SAMPLER, OPT_LBR_DEPTH, OPT_EVENTS };

/* 0, or 2 after a one-line error. */
static int parse_count(const char *opt, const char *arg, uint64_t *out)
{
	if (parse_u64(arg, out) < 0 || *out == 0)
		return cli_error("record: %s needs a positive number, not '%s'", opt, arg);
	return 0;
}

/* -m N (pages) or -m SIZE (bytes, with B, K, M or G), in pages (not yet
 * rounded); 0, or 2 after a one-line error. */
static int parse_mmap_pages(const char *arg, size_t *out)
{
	static const char units[] = "BKMG";
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = strlen(arg);
	const char *unit = len ? strchr(units, toupper((unsigned char)arg[len - 1])) : NULL;
	unsigned shift = unit ? 10 * (unsigned)(unit - units) : 0;
	char *num = xstrndup(arg, unit ? len - 1 : len);
	uint64_t v, pages;
	int bad = parse_u64(num, &v) < 0 || v == 0 || v > (1ULL << 40) >> shift;

	free(num);
	if (bad)
		return cli_error("record: -m needs a number of pages or a size (512K, 4M), not '%s'", arg);
	pages = unit ? ((v << shift) + page - 1) / page : v;
	if (pages > (1u << 20))
		return cli_error("record: -m %s: at most %u pages a ring", arg, 1u << 20);
	*out = pages;
	return 0;
}

/* Up to a power of two, as perf does, with a notice unless -q. */
static void round_mmap_pages(const char *arg, struct record_opts *o)
{
	size_t pages = 1;

	while (pages < o->mmap_pages)
		pages <<= 1;
	if (pages != o->mmap_pages && !o->quiet)
		oc_warn("-m %s: rounded up to %zu pages (%zu KiB)", arg, pages,
			pages * (size_t)sysconf(_SC_PAGESIZE) / 1024);
	o->mmap_pages = pages;
}

/* -F HZ or -F max (the kernel's limit, like perf); 0, or 2 after a one-line error. */
static int parse_freq(const char *arg, uint64_t *out)
{
	if (strcmp(arg, "max") == 0) {
		char *s = read_line_file("/proc/sys/kernel/perf_event_max_sample_rate");

		*out = s ? strtoull(s, NULL, 10) : 0;
		free(s);
		if (*out == 0)
			return cli_error("record: -F max: cannot read kernel.perf_event_max_sample_rate");
		return 0;
	}
	return parse_count("-F", arg, out);
}

static void print_summary(const struct record_opts *o, const struct record_stats *st)
{
	fprintf(stderr, "[ ocrec record: Woken up %llu times to write data ]\n",
		(unsigned long long)st->wakeups);
	if (o->branch_stack) {
		if (st->emulated_branches)
			fprintf(stderr, "[ ocrec record: branch stacks emulated by the software sampler, %d deep ]\n",
				st->lbr_depth);
		else if (st->lbr_depth > 0)
			fprintf(stderr, "[ ocrec record: LBR depth %d ]\n", st->lbr_depth);
		else
			fprintf(stderr, "[ ocrec record: LBR depth unknown for this CPU ]\n");
	}
	fprintf(stderr, "[ ocrec record: Captured and wrote %.3f MB %s (%llu samples, %llu lost) ]\n",
		(double)st->bytes / (1024.0 * 1024.0), o->output, (unsigned long long)st->samples,
		(unsigned long long)st->lost);
}

static void drop_warning(const char *msg)
{
	(void)msg;
}

/* Parse the command line into o (events still as -e gave them, in *lists).
 * 0, 1 when --help was printed, or the exit code of a one-line error. */
static int parse_args(int argc, char **argv, struct record_opts *o, char ***lists, size_t *nr_lists)
{
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "branch-any", no_argument, NULL, 'b' },
		{ "branch-filter", required_argument, NULL, 'j' },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "count", required_argument, NULL, 'c' },
		{ "freq", required_argument, NULL, 'F' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "output", required_argument, NULL, 'o' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "no-buildid-cache", no_argument, NULL, 'N' },
		{ "branch-sampler", required_argument, NULL, OPT_BRANCH_SAMPLER },
		{ "lbr-depth", required_argument, NULL, OPT_LBR_DEPTH },
		{ "events", required_argument, NULL, OPT_EVENTS },
		GLOBAL_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	size_t cap = 0;
	bool branch_any = false;
	uint64_t filter = 0, v, m;
	const char *mmap_arg = NULL;
	int c;

	opterr = 0;   /* our own one-line messages */
	while ((c = cli_getopt(argc, argv, "+:e:bj:gc:F:p:ao:m:qvNh", longopts)) != -1) {
		switch (c) {
		case 'e':
			GROW(*lists, cap, *nr_lists + 1);
			(*lists)[(*nr_lists)++] = optarg;
			break;
		case 'b':
			branch_any = true;
			break;
		case 'j':
			if (record_parse_branch_filter(optarg, &m) < 0)
				return cli_fail();
			filter |= m;
			break;
		case 'g':
			o->callgraph_fp = true;
			break;
		case OPT_CALL_GRAPH:
			if (strcmp(optarg, "fp") != 0)
				return cli_error("record: --call-graph %s: only fp (frame pointers) is supported", optarg);
			o->callgraph_fp = true;
			break;
		case 'c':
			if (parse_count("-c", optarg, &o->period))
				return 2;
			break;
		case 'F':
			if (parse_freq(optarg, &o->freq))
				return 2;
			break;
		case 'p':
			if (parse_u64(optarg, &v) < 0 || v == 0 || v > 0x7fffffff)
				return cli_error("record: -p needs a process id, not '%s'", optarg);
			o->pid = (pid_t)v;
			break;
		case 'a':
			o->all_cpus = true;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'm':
			if (parse_mmap_pages(optarg, &o->mmap_pages))
				return 2;
			mmap_arg = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'N':
			o->buildid_cache = false;
			break;
		case OPT_BRANCH_SAMPLER:
			if (strcmp(optarg, "auto") == 0)
				o->sampler = BRANCH_SAMPLER_AUTO;
			else if (strcmp(optarg, "hardware") == 0)
				o->sampler = BRANCH_SAMPLER_HARDWARE;
			else if (strcmp(optarg, "software") == 0)
				o->sampler = BRANCH_SAMPLER_SOFTWARE;
			else
				return cli_error("record: --branch-sampler=%s: use auto, hardware or software", optarg);
			break;
		case OPT_LBR_DEPTH:
			if (parse_u64(optarg, &v) < 0 || v == 0 || v > 1024)
				return cli_error("record: --lbr-depth needs a number of branches (1-1024), not '%s'", optarg);
			o->lbr_depth = (int)v;
			break;
		case OPT_EVENTS:
			o->events_path = optarg;
			break;
		case 'h':
			cli_help(usage);
			return 1;
		case ':':
			return cli_error("record: %s needs an argument (see 'ocrec record --help')", argv[optind - 1]);
		case '?':
			if (optopt)
				return cli_error("record: unknown option -%c (see 'ocrec record --help')", optopt);
			return cli_error("record: unknown option %s (see 'ocrec record --help')", argv[optind - 1]);
		default:
			return cli_bad_usage("record");
		}
	}
	opterr = 1;

	o->argv = argv[optind] ? argv + optind : NULL;
	if (o->pid && o->all_cpus)
		return cli_error("record: -p PID and -a exclude each other");
	if (o->pid && o->argv)
		return cli_error("record: -p PID records a running process: name no program with it");
	if (!o->argv && !o->pid && !o->all_cpus)
		return cli_error("record: nothing to record: name a program, -p PID or -a (see 'ocrec record --help')");
	if (strcmp(o->output, "-") == 0)
		return cli_error("record: -o -: perf's pipe mode is not supported, name a file");
	if (mmap_arg)
		round_mmap_pages(mmap_arg, o);
	/* -b is -j any; --branch-sampler=software asks for branch stacks too. */
	if (branch_any)
		filter |= PERF_SAMPLE_BRANCH_ANY;
	o->branch_stack = filter != 0 || o->sampler == BRANCH_SAMPLER_SOFTWARE;
	o->branch_filter = o->branch_stack ? (filter ? filter : PERF_SAMPLE_BRANCH_ANY) : 0;
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = { .output = "perf.data", .buildid_cache = true,
				 .orig_argc = argc, .orig_argv = argv };
	struct record_stats st;
	char **lists = NULL;
	size_t nr_lists = 0;
	int rc;

	rc = parse_args(argc, argv, &o, &lists, &nr_lists);
	if (rc == 0 && evlist_split(lists, nr_lists, &o.events, &o.nr_events) < 0)
		rc = cli_fail();
	free(lists);
	if (rc)
		return rc == 1 ? 0 : rc;
	o.sysfs_root = sysfs_root();
	o.cpuinfo = g_opts.cpuinfo;
	o.cpuid = g_opts.cpuid;
	oc_verbose = o.verbose;
	if (o.quiet)
		oc_set_warn_handler(drop_warning);

	if (o.branch_stack && o.sampler == BRANCH_SAMPLER_SOFTWARE)
		rc = sampler_record(&o, &st, false);
	else if ((rc = record_run(&o, &st)) == RECORD_NO_BRANCH_STACKS)
		rc = sampler_record(&o, &st, true);
	if (o.quiet)
		oc_set_warn_handler(NULL);
	strv_free(o.events);
	if (rc < 0) {
		int code = cli_exit_status(st.exit_status);

		cli_fail();
		/* The program could not be run: a shell's 127 (not found) or 126. */
		return code == 126 || code == 127 ? code : 2;
	}
	if (!o.quiet)
		print_summary(&o, &st);
	if (WIFSIGNALED(st.exit_status)) {
		int sig = WTERMSIG(st.exit_status);

		fprintf(stderr, "ocrec: %s was killed by signal %d (%s)\n", o.argv ? o.argv[0] : "the workload",
			sig, strsignal(sig));
	}
	return cli_exit_status(st.exit_status);
}
