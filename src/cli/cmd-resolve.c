/* ocrec resolve — translate event names into the perf event strings perf's -e takes. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cpu/cpu.h"
#include "events/events.h"

static const char usage[] =
	"usage: ocrec resolve [--cpu STR] [--events PATH] [--record] [--attr] NAME...\n"
	"       ocrec resolve [options] -          (names from standard input)\n"
	"\n"
	"Print, for each NAME, the event string perf's -e takes: one line per name, in order.\n"
	"NAME is an event name from Intel's perfmon tables (BR_INST_RETIRED.ALL_BRANCHES) or\n"
	"the Linux kernel's (AMD's ex_ret_brn_tkn), matched exactly and case-insensitively,\n"
	"with ocperf.py's or perf's modifiers (:u :k :p :pp :ppp :c2 :cmask=2 :i1 :inv :e1\n"
	":edge :amt1 :sup :period=N ...), a libpfm4\n"
	"name (skl::BR_INST_RETIRED:ALL_BRANCHES:u, or this CPU's own names), a perf generic\n"
	"name (cycles, instructions, cpu-clock ...), a raw rNNNN or a pmu/term=value/ string.\n"
	"An event on several PMUs (hybrid core types, uncore boxes) prints them comma-separated.\n"
	"A name that does not resolve prints an empty line and its error on stderr; the exit\n"
	"status is then 1.\n"
	"\n"
	"  --cpu STR        resolve for this CPU (GenuineIntel-6-55-4) instead of this machine\n"
	"  --events PATH    a JSON event file, a directory of them, or a mapfile.csv tree\n"
	"                   (also $OCREC_EVENTS); no download\n"
	"  --record         add period=SampleAfterValue, like 'ocperf.py record'\n"
	"  --attr           also print the perf_event_attr fields (after a tab)\n"
	"  -                read names from standard input, print NAME<TAB>STRING lines\n"
	"  --cpuinfo FILE, --cpuid FILE, --sysfs DIR   as for every command\n"
	"\n"
	"Tables come from --events, $OCREC_EVENTS, the download caches ('ocrec download'),\n"
	"then ocrec's built-in architectural table (Intel CPUs); libpfm4 is the fallback.\n";

enum { OPT_RECORD = OPT_FIRST_LOCAL, OPT_ATTR };

static void print_attrs(const struct ev_resolved *r)
{
	size_t i;

	for (i = 0; i < r->nr_attrs; i++) {
		const struct perf_event_attr *a = &r->attrs[i].attr;
		printf("%stype=%" PRIu32 " config=0x%llx config1=0x%llx config2=0x%llx precise_ip=%u"
		       " exclude_user=%u exclude_kernel=%u exclude_hv=%u sample_period=%llu",
		       i ? " | " : "\t", a->type, (unsigned long long)a->config,
		       (unsigned long long)a->config1, (unsigned long long)a->config2,
		       (unsigned)a->precise_ip, (unsigned)a->exclude_user, (unsigned)a->exclude_kernel,
		       (unsigned)a->exclude_hv, (unsigned long long)a->sample_period);
	}
}

/* Resolve one name and print its line; false when it did not resolve. */
static bool resolve_one(struct ev_context *ctx, const char *name, bool tabbed, bool attrs)
{
	struct ev_resolved r;
	char *s;

	if (tabbed)
		printf("%s\t", name);
	if (ev_resolve(ctx, name, &r) < 0) {
		putchar('\n');
		fflush(stdout);
		fprintf(stderr, "ocrec: %s\n", oc_errmsg());
		return false;
	}
	s = ev_perf_string(&r);
	fputs(s, stdout);
	free(s);
	if (attrs)
		print_attrs(&r);
	putchar('\n');
	ev_resolved_free(&r);
	return true;
}

int cmd_resolve(int argc, char **argv)
{
	static const struct option opts[] = {
		EVENTS_CPU_LONG_OPTION,
		EVENTS_PATH_LONG_OPTION,
		{ "record", no_argument, NULL, OPT_RECORD },
		{ "attr", no_argument, NULL, OPT_ATTR },
		GLOBAL_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_events ev = { 0 };
	struct ev_context *ctx;
	bool attrs = false, all_ok = true;
	int c, i;

	while ((c = cli_getopt(argc, argv, "h", opts)) != -1) {
		if (cli_events_option(c, optarg, &ev))
			continue;
		switch (c) {
		case OPT_RECORD: ev.record_mode = true; break;
		case OPT_ATTR: attrs = true; break;
		case 'h': return cli_help(usage);
		default: return cli_bad_usage("resolve");
		}
	}
	if (optind >= argc)
		return cli_error("resolve: no event name given (see 'ocrec resolve --help')");
	ctx = cli_events_get(&ev);
	if (!ctx)
		return cli_fail();
	for (i = optind; i < argc; i++) {
		if (!strcmp(argv[i], "-")) {
			struct line_reader lr;
			char *line;
			size_t len;
			ev_set_quiet(ctx, true);   /* bulk runs: errors only */
			lr_init(&lr, stdin, 64 * 1024);
			while ((line = lr_next(&lr, &len))) {
				char *name = str_trim(line);
				if (!*name)
					continue;
				all_ok &= resolve_one(ctx, name, true, attrs);
			}
			if (lr.too_long) {
				fprintf(stderr, "ocrec: <stdin>:%lu: an event name longer than 64 KiB\n", lr.lineno + 1);
				all_ok = false;
			}
			lr_free(&lr);
			continue;
		}
		all_ok &= resolve_one(ctx, argv[i], false, attrs);
	}
	cli_events_close(&ev);
	fflush(stdout);
	return all_ok ? 0 : 1;
}
