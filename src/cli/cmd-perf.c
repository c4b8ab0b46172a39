/* ocrec perf — run perf with the event names it would not know translated, like ocperf.py. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cpu/cpu.h"
#include "events/events.h"
#include "passthrough/passthrough.h"

static const char usage[] =
	"usage: ocrec perf [-v] [-n] [--events PATH] PERF-COMMAND [PERF-ARGS...]\n"
	"\n"
	"Run perf with every -e/--event value rewritten: events perf does not know itself\n"
	"(names from the Intel perfmon tables, libpfm4 names) become perf's pmu/terms/ syntax,\n"
	"also inside comma lists and {groups}; the rest of the command line is passed unchanged,\n"
	"as pmu-tools' ocperf.py does. Events ocrec cannot resolve are left for perf to report.\n"
	"\n"
	"  -v, --verbose       print the rewritten perf command on stderr, and why an event\n"
	"                      could not be resolved\n"
	"  -n, --dry-run       print the rewritten perf command on stdout and do not run it\n"
	"      --events PATH   event tables to resolve with (default: $OCREC_EVENTS, the cache,\n"
	"                      the built-in table)\n"
	"\n"
	"Options of ocrec perf come before PERF-COMMAND; everything after it is perf's.\n"
	"The perf binary is $OCREC_PERF, else 'perf' on PATH.\n";

struct resolver {
	struct cli_events ev;
	bool verbose;
};

/* The event tables are loaded only when an event needs them. */
static char *resolve_event(const char *event, void *arg)
{
	struct resolver *r = arg;
	bool first = !r->ev.opened;
	struct ev_context *ctx = cli_events_get(&r->ev);
	struct ev_resolved res;
	char *s;

	if (!ctx) {
		if (first && r->verbose)
			oc_warn("no event tables: %s", oc_errmsg());
		return NULL;
	}
	if (ev_resolve(ctx, event, &res) < 0) {
		if (r->verbose)
			oc_warn("%s (left for perf)", oc_errmsg());
		return NULL;
	}
	s = ev_perf_string(&res);
	ev_resolved_free(&res);
	return s;
}

/* A word as a POSIX shell reads it back. */
static void put_quoted(FILE *fp, const char *w)
{
	const char *p;
	if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%^") ==
	    strlen(w)) {
		fputs(w, fp);
		return;
	}
	fputc('\'', fp);
	for (p = w; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", fp);
		else
			fputc(*p, fp);
	}
	fputc('\'', fp);
}

static void print_command(FILE *fp, const char *perf, char **args)
{
	put_quoted(fp, perf);
	for (; *args; args++) {
		fputc(' ', fp);
		put_quoted(fp, *args);
	}
	fputc('\n', fp);
}

int cmd_perf(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "dry-run", no_argument, NULL, 'n' },
		EVENTS_PATH_LONG_OPTION,
		GLOBAL_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct resolver r;
	const char *perf = getenv("OCREC_PERF");
	bool dry_run = false;
	char **rewritten, **exec_argv;
	size_t n;
	int c;

	memset(&r, 0, sizeof(r));
	while ((c = cli_getopt(argc, argv, "+vnh", opts)) != -1) {
		if (cli_events_option(c, optarg, &r.ev))
			continue;
		switch (c) {
		case 'v': r.verbose = true; break;
		case 'n': dry_run = true; break;
		case 'h': return cli_help(usage);
		default: return cli_bad_usage("perf");
		}
	}
	if (optind >= argc)
		return cli_error("perf: no perf command given (see 'ocrec perf --help')");
	if (!perf || !*perf)
		perf = "perf";
	/* the perf subcommand: the first word that is not one of perf's own options */
	for (n = (size_t)optind; argv[n] && argv[n][0] == '-'; n++)
		;
	r.ev.record_mode = argv[n] && strcmp(argv[n], "record") == 0;
	rewritten = perf_rewrite_args(argv + optind, resolve_event, &r);
	cli_events_close(&r.ev);
	if (!rewritten)
		return cli_fail();
	if (dry_run || r.verbose)
		print_command(dry_run ? stdout : stderr, perf, rewritten);
	if (dry_run) {
		strv_free(rewritten);
		return 0;
	}
	for (n = 0; rewritten[n]; n++)
		;
	exec_argv = xcalloc(n + 2, sizeof(*exec_argv));
	exec_argv[0] = (char *)perf;
	memcpy(exec_argv + 1, rewritten, n * sizeof(*exec_argv));
	fflush(stdout);
	execvp(perf, exec_argv);
	cli_error("cannot run %s: %s", perf, strerror(errno));
	free(exec_argv);
	strv_free(rewritten);
	return 127;
}
