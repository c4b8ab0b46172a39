/* ocrec stat — count events while a program runs (or for -p PID / -a), like perf stat. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli/cli.h"
#include "cpu/cpu.h"
#include "events/events.h"
#include "stat/stat.h"

static const char usage[] =
	"usage: ocrec stat [-e EVENT,...] [-a] [-p PID] [-r N] [-x SEP] [--json] [-o FILE] [--events PATH]\n"
	"                  [PROG [ARGS]]\n"
	"\n"
	"Count events with perf_event_open while PROG runs, like perf stat. Events in {a,b} are\n"
	"counted as one group when they fit on the PMU together; counts the kernel multiplexed\n"
	"are scaled by time_enabled/time_running and the percentage of time counted is shown.\n"
	"\n"
	"  -e, --event LIST        events: perf's generic names (task-clock, cycles, ...), names\n"
	"                          from the event tables and libpfm4, pmu/terms/; groups {a,b};\n"
	"                          may be given more than once (default: perf stat's default set)\n"
	"      --events PATH       event tables (default: $OCREC_EVENTS, the cache, built-in)\n"
	"  -a, --all-cpus          count on every CPU (system wide)\n"
	"  -p, --pid PID           count the threads of process PID (until it exits or Ctrl-C,\n"
	"                          or while PROG runs)\n"
	"  -r, --repeat N          run PROG N times; show means and ( +- relative stddev )\n"
	"  -x, --field-separator SEP  CSV like perf stat -x: value,unit,event,[variance,]run-time,\n"
	"                          percent-running,metric,metric-unit\n"
	"      --json              one JSON object (target, runs, elapsed-seconds, counters[])\n"
	"  -o, --output FILE       write the results to FILE instead of stderr\n"
	"  -v, --verbose           say when counting starts (-p, -a) and why events\n"
	"                          could not be counted\n"
	"\n"
	"The results go to stderr (as perf stat does) unless -o is given; the exit status is PROG's.\n";

enum { OPT_JSON = OPT_FIRST_LOCAL };

struct stat_cli {
	char **event_lists;
	size_t nr_event_lists;
	bool all_cpus, json;
	long pid;
	long repeat;
	const char *sep, *output;
	struct cli_events ev;       /* opened for the first name that is not perf's generic one */
};

static struct ev_context *open_tables(void *arg)
{
	struct stat_cli *o = arg;

	return cli_events_get(&o->ev);
}

static char *describe_target(const struct stat_cli *o, char **argv)
{
	struct strbuf sb = STRBUF_INIT;
	if (o->all_cpus && !argv[0])
		return xstrdup("'system wide'");
	if (o->pid > 0 && !argv[0])
		return xasprintf("process id '%ld'", o->pid);
	sb_putc(&sb, '\'');
	for (; *argv; argv++) {
		sb_puts(&sb, *argv);
		if (argv[1])
			sb_putc(&sb, ' ');
	}
	sb_putc(&sb, '\'');
	return sb_detach(&sb);
}

static int parse_positive(const char *opt, const char *arg, long *out)
{
	uint64_t v;
	if (parse_u64(arg, &v) < 0 || v == 0 || v > 1000000000)
		return cli_error("stat: %s needs a positive number, not '%s'", opt, arg);
	*out = (long)v;
	return 0;
}

static int run(struct stat_cli *o, char **argv)
{
	struct stat_session s;
	struct stat_print_opts po = { 0 };
	struct atomic_file af;
	FILE *out = stderr;
	int status = 0, ret = 0;
	long r;

	memset(&s, 0, sizeof(s));
	if (stat_add_events(&s, o->event_lists, o->nr_event_lists, open_tables, o) < 0)
		goto fail;
	if (o->all_cpus && stat_target_cpus(&s.target) < 0)
		goto fail;
	if (o->pid > 0 && !o->all_cpus && stat_target_pid(&s.target, (pid_t)o->pid) < 0)
		goto fail;
	if (argv[0]) {
		for (r = 0; r < o->repeat; r++) {
			if (stat_run_workload(&s, argv, &status) < 0)
				goto fail;
		}
	} else if (stat_count_until_stopped(&s, o->pid > 0 ? (pid_t)o->pid : 0) < 0) {
		goto fail;
	}
	if (oc_verbose) {
		size_t i;
		for (i = 0; i < s.nr_counters; i++)
			if (s.counters[i].why && s.counters[i].value.n == 0)
				oc_warn("%s: %s", s.counters[i].name, s.counters[i].why);
	}
	po.target_desc = describe_target(o, argv);
	po.csv_sep = o->sep;
	po.json = o->json;
	po.show_times = argv[0] != NULL && !o->all_cpus && o->pid <= 0;
	if (o->output) {
		if (atomic_open(&af, o->output) < 0) {
			free((char *)po.target_desc);
			goto fail;
		}
		out = af.fp;
	}
	stat_print(out, &s, &po);
	free((char *)po.target_desc);
	if (o->output && atomic_commit(&af) < 0)
		goto fail;
	ret = argv[0] ? cli_exit_status(status) : 0;
	stat_session_free(&s);
	return ret;
fail:
	stat_session_free(&s);
	return cli_fail();
}

int cmd_stat(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		EVENTS_PATH_LONG_OPTION,
		GLOBAL_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct stat_cli o;
	int c, ret;

	memset(&o, 0, sizeof(o));
	o.repeat = 1;
	while ((c = cli_getopt(argc, argv, "+e:ap:r:x:o:vh", opts)) != -1) {
		if (cli_events_option(c, optarg, &o.ev))
			continue;
		switch (c) {
		case 'e':
			o.event_lists = xrealloc(o.event_lists, (o.nr_event_lists + 1) * sizeof(char *));
			o.event_lists[o.nr_event_lists++] = optarg;
			break;
		case 'a': o.all_cpus = true; break;
		case 'p':
			if (parse_positive("-p", optarg, &o.pid))
				goto bad;
			break;
		case 'r':
			if (parse_positive("-r", optarg, &o.repeat))
				goto bad;
			break;
		case 'x':
			if (!*optarg) {
				cli_error("stat: -x needs a separator");
				goto bad;
			}
			o.sep = optarg;
			break;
		case OPT_JSON: o.json = true; break;
		case 'o': o.output = optarg; break;
		case 'v': oc_verbose++; break;
		case 'h':
			free(o.event_lists);
			return cli_help(usage);
		default:
			free(o.event_lists);
			return cli_bad_usage("stat");
		}
	}
	argv += optind;
	if (!argv[0] && !o.all_cpus && o.pid <= 0) {
		free(o.event_lists);
		return cli_error("stat: nothing to count: give a program, -p PID or -a "
				 "(see 'ocrec stat --help')");
	}
	if (o.repeat > 1 && !argv[0]) {
		free(o.event_lists);
		return cli_error("stat: -r needs a program to repeat");
	}
	if (o.json && o.sep) {
		free(o.event_lists);
		return cli_error("stat: --json and -x exclude each other");
	}
	ret = run(&o, argv);
	cli_events_close(&o.ev);
	free(o.event_lists);
	return ret;
bad:
	free(o.event_lists);
	return 2;
}
