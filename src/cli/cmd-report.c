/* ocrec report — symbol, source-line, branch-history and hot-path views. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "perfdata/perfdata.h"
#include "report/report.h"
#include "script/script.h"

static const char usage[] =
	"usage: ocrec report [-i FILE]... [--stdio] [--json] [options]\n"
	"\n"
	"Show where the samples of a perf.data file (ocrec's or perf's) went. When the samples\n"
	"carry branch stacks (LBR, or ocrec's software branch sampler) every branch is one\n"
	"histogram entry, as in 'perf report -b'; otherwise samples are shown by symbol.\n"
	"\n"
	"Input:\n"
	"  -i, --input FILE        perf.data file (default perf.data; repeatable: the files\n"
	"                          add up, their events merged by name)\n"
	"      --perfscript FILE   read 'perf script -F ip,brstack' text instead (llvm-profgen's\n"
	"                          input), with --binary PROG for its addresses\n"
	"      --binary PROG       the profiled binary of --perfscript text\n"
	SESSION_OPTIONS_HELP
	"\n"
	"Views:\n"
	"  -s, --sort KEYS         histogram keys: symbol_from, symbol_to, dso_from, dso_to,\n"
	"                          srcline_from, srcline_to, mispredict, cycles, comm (branch\n"
	"                          mode); symbol, dso, comm, srcline, pid (sample mode)\n"
	"  -F, --fields LIST       perf's -F: 'overhead' plus sort keys\n"
	"  -b, --branch-stack      branch mode (the default when the samples carry branch stacks)\n"
	"      --no-branch-stack   sample mode even when they do\n"
	"      --source            per hot function: its source lines, branches leaving and\n"
	"                          entering each, and the source text\n"
	"      --branch-history    call chain + LBR entries as a tree, with file:line and the\n"
	"                          source text of each line\n"
	"      --hot-paths         hottest basic-block sequences, block counts, loop trip counts\n"
	"\n"
	"Filters and output:\n"
	"      --percent-limit PCT hide entries below PCT percent\n"
	"      --percentage absolute|relative\n"
	"                          with filters, percentages of every sample (absolute, the\n"
	"                          default, as perf) or of those the filters keep (relative)\n"
	"      --max-rows N        at most N entries per event\n"
	"      --comm LIST         only these command names (comma-separated)\n"
	"      --pid LIST          only these process ids\n"
	"      --tid LIST          only these thread ids\n"
	"      --dso LIST          only these objects\n"
	"      --full-source-path  show source files with their full path\n"
	"      --stdio             plain text, no pager\n"
	"      --json              JSON (schemas in docs/report-json.md)\n"
	"      --pprof FILE        write a gzipped pprof profile (profile.proto) instead, for\n"
	"                          go tool pprof and the profilers that read it: call chains\n"
	"                          in sample mode, LBR paths in branch mode (docs/pprof.md)\n"
	"      --header-only       print the file's header, like 'perf report --header-only'\n"
	"  -q, --quiet             no warnings\n"
	"  -v, --verbose           more detail\n";

enum {
	OPT_PERFSCRIPT = OPT_FIRST_LOCAL, OPT_BINARY, OPT_NO_BRANCH,
	OPT_SOURCE, OPT_HISTORY, OPT_HOT, OPT_PCT, OPT_MAX_ROWS, OPT_COMM, OPT_PID, OPT_TID,
	OPT_DSO, OPT_FULL_PATH, OPT_STDIO, OPT_JSON, OPT_HEADER_ONLY, OPT_PERCENTAGE, OPT_PPROF,
};

static int32_t *parse_ids(const char *s)
{
	size_t n, i;
	char **v = str_split(s, ',', &n);
	int32_t *ids = xcalloc(n + 1, sizeof(*ids));
	uint64_t x;

	for (i = 0; i < n; i++) {
		if (parse_u64(v[i], &x) < 0 || x > INT32_MAX) {
			strv_free(v);
			free(ids);
			return NULL;
		}
		ids[i] = (int32_t)x;
	}
	ids[n] = -1;
	strv_free(v);
	return ids;
}

/* perf's -F: "overhead" (and the sample/period columns) are always shown here;
 * the other names are sort keys. */
static char *fields_to_sort(const char *fields)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n, i;
	char **v = str_split(fields, ',', &n);

	for (i = 0; i < n; i++) {
		if (!strcmp(v[i], "overhead") || !strcmp(v[i], "sample") || !strcmp(v[i], "period"))
			continue;
		sb_printf(&sb, "%s%s", sb.len ? "," : "", v[i]);
	}
	strv_free(v);
	return sb_detach(&sb);
}

/* --pprof writes every sample of the report's mode: the text views' layout
 * options have nothing to act on, and the other views no pprof form. */
static int check_pprof(struct report_opts *o)
{
	if (o->view == VIEW_SOURCE || o->view == VIEW_HOT_PATHS || o->json)
		return cli_error("report: --pprof does not combine with %s",
				 o->json ? "--json" : o->view == VIEW_SOURCE ? "--source" : "--hot-paths");
	if (o->percent_limit > 0 || o->max_rows > 0 || o->sort)
		oc_warn("--pprof writes every entry: %s does not apply (pprof filters itself)",
			o->sort ? "--sort" : o->max_rows > 0 ? "--max-rows" : "--percent-limit");
	if (o->view == VIEW_BRANCH_HISTORY && o->branch_mode == -1)
		o->branch_mode = 1;   /* --branch-history's paths: branch mode */
	return 0;
}

static void ignore_warning(const char *msg)
{
	(void)msg;
}

/* A pager on a terminal, as perf does: $PAGER, else less. */
static FILE *start_pager(void)
{
	const char *pager = getenv("PAGER");
	FILE *p;

	if (!pager || !*pager)
		pager = "less";
	if (!strcmp(pager, "cat"))
		return NULL;
	setenv("LESS", "FRSX", 0);
	p = popen(pager, "w");
	if (p)
		signal(SIGPIPE, SIG_IGN);
	return p;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "perfscript", required_argument, NULL, OPT_PERFSCRIPT },
		{ "binary", required_argument, NULL, OPT_BINARY },
		{ "sort", required_argument, NULL, 's' },
		{ "fields", required_argument, NULL, 'F' },
		{ "branch-stack", no_argument, NULL, 'b' },
		{ "no-branch-stack", no_argument, NULL, OPT_NO_BRANCH },
		{ "source", no_argument, NULL, OPT_SOURCE },
		{ "branch-history", no_argument, NULL, OPT_HISTORY },
		{ "hot-paths", no_argument, NULL, OPT_HOT },
		{ "percent-limit", required_argument, NULL, OPT_PCT },
		{ "max-rows", required_argument, NULL, OPT_MAX_ROWS },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "comms", required_argument, NULL, OPT_COMM },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "dso", required_argument, NULL, OPT_DSO },
		{ "dsos", required_argument, NULL, OPT_DSO },
		{ "full-source-path", no_argument, NULL, OPT_FULL_PATH },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "header-only", no_argument, NULL, OPT_HEADER_ONLY },
		{ "percentage", required_argument, NULL, OPT_PERCENTAGE },
		{ "pprof", required_argument, NULL, OPT_PPROF },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		SESSION_LONG_OPTIONS,
		GLOBAL_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct report_opts o = { .branch_mode = -1, .view = VIEW_HIST };
	const char *perfscript = NULL, *binary = NULL;
	const char **inputs = xcalloc((size_t)argc + 1, sizeof(*inputs));
	size_t nr_inputs = 0, i;
	char *sort = NULL, *end;
	bool stdio = false, header_only = false;
	struct report *r;
	FILE *out = stdout, *pager = NULL;
	int c, ret = 0;

	while (!ret && (c = cli_getopt(argc, argv, "hi:s:F:bqv", opts)) != -1) {
		if ((ret = cli_session_option("report", c, optarg, &o.session)) != 0) {
			ret = ret < 0 ? 2 : 0;
			continue;
		}
		switch (c) {
		case 'i': inputs[nr_inputs++] = optarg; break;
		case OPT_PERFSCRIPT: perfscript = optarg; break;
		case OPT_BINARY: binary = optarg; break;
		case 's': free(sort); sort = xstrdup(optarg); break;
		case 'F': free(sort); sort = fields_to_sort(optarg); break;
		case 'b': o.branch_mode = 1; break;
		case OPT_NO_BRANCH: o.branch_mode = 0; break;
		case OPT_SOURCE: o.view = VIEW_SOURCE; break;
		case OPT_HISTORY: o.view = VIEW_BRANCH_HISTORY; break;
		case OPT_HOT: o.view = VIEW_HOT_PATHS; break;
		case OPT_PCT:
			o.percent_limit = strtod(optarg, &end);
			if (*end || o.percent_limit < 0 || o.percent_limit > 100)
				ret = cli_error("report: --percent-limit %s: not a percentage", optarg);
			break;
		case OPT_MAX_ROWS:
			o.max_rows = strtol(optarg, &end, 10);
			if (*end || o.max_rows < 0)
				ret = cli_error("report: --max-rows %s: not a count", optarg);
			break;
		case OPT_COMM: strv_free(o.comms); o.comms = str_split(optarg, ',', NULL); break;
		case OPT_DSO: strv_free(o.dsos); o.dsos = str_split(optarg, ',', NULL); break;
		case OPT_PID:
		case OPT_TID: {
			int32_t *ids = parse_ids(optarg);
			if (!ids)
				ret = cli_error("report: --%s %s: not a list of ids", c == OPT_PID ? "pid" : "tid", optarg);
			else if (c == OPT_PID) { free(o.pids); o.pids = ids; } else { free(o.tids); o.tids = ids; }
			break;
		}
		case OPT_FULL_PATH: o.session.full_source_path = true; break;
		case OPT_STDIO: stdio = true; break;
		case OPT_JSON: o.json = true; break;
		case OPT_HEADER_ONLY: header_only = true; break;
		case OPT_PERCENTAGE:
			if (strcmp(optarg, "absolute") && strcmp(optarg, "relative"))
				ret = cli_error("report: --percentage %s: absolute or relative", optarg);
			o.percent_relative = !strcmp(optarg, "relative");
			break;
		case OPT_PPROF: o.pprof = optarg; break;
		case 'q': o.session.sym.quiet = true; break;
		case 'v': o.verbose++; break;
		case 'h': ret = cli_help(usage); goto out;
		default: ret = cli_bad_usage("report"); break;
		}
	}
	if (ret)
		goto out;
	if (optind < argc) {
		ret = cli_error("report: unexpected argument '%s' (see 'ocrec report --help')", argv[optind]);
		goto out;
	}
	if (!nr_inputs)
		inputs[nr_inputs++] = "perf.data";
	if (header_only) {
		struct pd_reader *rd = pd_open(inputs[0]);
		if (!rd) {
			ret = cli_fail();
			goto out;
		}
		script_print_header(inputs[0], pd_get_info(rd), stdout);
		pd_close(rd);
		goto out;
	}
	o.sort = sort && *sort ? sort : NULL;
	if (o.pprof && (ret = check_pprof(&o)))
		goto out;
	if (o.session.sym.quiet)
		oc_set_warn_handler(ignore_warning);
	r = report_new(&o);
	if (perfscript)
		ret = report_read_perfscript(r, perfscript, binary);
	for (i = 0; !perfscript && i < nr_inputs && !ret; i++)
		ret = report_read_perfdata(r, inputs[i]);
	if (ret == 0) {
		if (!stdio && !o.json && isatty_stdout())
			pager = start_pager();
		if (pager)
			out = pager;
		ret = report_print(r, out);
		if (pager)
			pclose(pager);
	}
	report_free(r);
	if (ret < 0)
		ret = cli_fail();
	else if (fflush(stdout) != 0)
		ret = cli_error("report: write error on standard output");
out:
	strv_free(o.comms);
	strv_free(o.dsos);
	free(o.pids);
	free(o.tids);
	free(sort);
	free(inputs);
	return ret;
}
