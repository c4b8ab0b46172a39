/* ocrec — main: the command table and the options every command shares. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli/cli.h"
#include "cpu/cpu.h"
#include "events/events.h"
#include "session/session.h"

struct global_opts g_opts;

const struct command commands[] = {
	{ "record",      cmd_record,      "Record a profile (the default command): ocrec -e EVENT -b prog args" },
	{ "report",      cmd_report,      "Show a profile: symbol, source-line, branch-history and sample views" },
	{ "script",      cmd_script,      "Print the samples of a perf.data file one per line, like perf script" },
	{ "list-events", cmd_list_events, "List the events of this CPU's tables" },
	{ "resolve",     cmd_resolve,     "Translate event names into perf event strings" },
	{ "download",    cmd_download,    "Download the event tables for this CPU into the cache" },
	{ "info",        cmd_info,        "Show the CPU, its LBR depth and what the kernel offers" },
	{ "stat",        cmd_stat,        "Count events while a program runs, like perf stat" },
	{ "autofdo",     cmd_autofdo,     "Turn branch samples into AutoFDO profiles for GCC and LLVM" },
	{ "bolt",        cmd_bolt,        "Turn branch samples into profiles for llvm-bolt" },
	{ "perf",        cmd_perf,        "Run perf with event names translated, like ocperf.py" },
	{ "help",        cmd_help,        "Show help for a command" },
	{ NULL, NULL, NULL },
};

static const char main_usage[] =
	"usage: ocrec [--cpuinfo FILE] [--cpuid FILE] [--sysfs DIR] COMMAND [ARGS]\n"
	"       ocrec -e EVENT [-b] PROG [ARGS]     (record is the default command)\n"
	"       ocrec --version | --help\n";

const struct command *find_command(const char *name)
{
	const struct command *c;
	for (c = commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

static void print_main_help(FILE *fp)
{
	const struct command *c;
	fputs(main_usage, fp);
	fputs("\nCommands:\n", fp);
	for (c = commands; c->name; c++)
		fprintf(fp, "  %-12s %s\n", c->name, c->summary);
	fputs("\nGlobal options (before or after the command name):\n"
	      "  --cpuinfo FILE  describe the CPU of this /proc/cpuinfo copy\n"
	      "  --cpuid FILE    describe the CPU of this CPUID dump (see docs/cpuid-format.md)\n"
	      "  --sysfs DIR     read PMUs from DIR instead of /sys (also $OCREC_SYSFS)\n"
	      "\n'ocrec help COMMAND' or 'ocrec COMMAND --help' describes a command.\n", fp);
}

int global_option(int c, const char *arg)
{
	switch (c) {
	case OPT_GLOBAL_CPUINFO: g_opts.cpuinfo = arg; return 1;
	case OPT_GLOBAL_CPUID:   g_opts.cpuid = arg; return 1;
	case OPT_GLOBAL_SYSFS:   g_opts.sysfs = arg; return 1;
	}
	return 0;
}

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *opts)
{
	int c;

	while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1 && global_option(c, optarg))
		;
	return c;
}

const char *sysfs_root(void)
{
	const char *env;
	if (g_opts.sysfs)
		return g_opts.sysfs;
	env = getenv("OCREC_SYSFS");
	return env && *env ? env : "/sys";
}

int cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("ocrec: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return 2;
}

int cli_fail(void)
{
	return cli_error("%s", *oc_errmsg() ? oc_errmsg() : "failed");
}

int cli_bad_usage(const char *cmd)
{
	/* getopt already printed what was wrong */
	fprintf(stderr, "ocrec: see 'ocrec %s --help'\n", cmd);
	return 2;
}

int cli_write_output(const char *out, int (*write)(void *arg, FILE *fp), void *arg)
{
	struct atomic_file af;

	if (!out || !strcmp(out, "-"))
		return write(arg, stdout) || fflush(stdout) ? cli_fail() : 0;
	if (atomic_open(&af, out) != 0)
		return cli_fail();
	if (write(arg, af.fp) != 0) {
		atomic_abort(&af);
		return cli_fail();
	}
	return atomic_commit(&af) != 0 ? cli_fail() : 0;
}

int cli_help(const char *usage)
{
	fputs(usage, stdout);
	return 0;
}

int cli_session_option(const char *cmd, int c, const char *arg, struct session_opts *so)
{
	uint64_t n;

	switch (c) {
	case OPT_SESSION_SYMFS: so->sym.symfs = arg; return 1;
	case OPT_SESSION_KALLSYMS: so->sym.kallsyms = arg; return 1;
	case OPT_SESSION_NO_DEMANGLE: so->no_demangle = true; return 1;
	case OPT_SESSION_MAX_STACK:
		if (parse_u64(arg, &n) < 0 || n > INT32_MAX) {
			cli_error("%s: --max-stack %s: not a number of frames", cmd, arg);
			return -1;
		}
		so->max_stack = n ? (int)n : -1;   /* the session's 0 is perf's default */
		return 1;
	}
	return 0;
}

int cli_exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

struct ev_context *cli_open_tables(const struct cpu_desc *cpu, const char *events_path, bool record_mode)
{
	struct ev_options eo = { cpu, events_path, sysfs_root(), record_mode };
	struct ev_context *ctx = ev_open(&eo);

	if (ctx && g_opts.cpuid)
		ev_set_cpuid_path(ctx, g_opts.cpuid);
	return ctx;
}

int cli_events_option(int c, const char *arg, struct cli_events *ev)
{
	switch (c) {
	case OPT_EVENTS_CPU: ev->cpu_string = arg; return 1;
	case OPT_EVENTS_PATH: ev->events_path = arg; return 1;
	}
	return 0;
}

struct ev_context *cli_events_get(struct cli_events *ev)
{
	struct cpu_source src = { ev->cpu_string, g_opts.cpuinfo, g_opts.cpuid };

	if (!ev->opened) {
		ev->opened = true;
		if (cpu_detect(&src, &ev->cpu) == 0)
			ev->ctx = cli_open_tables(&ev->cpu, ev->events_path, ev->record_mode);
	}
	return ev->ctx;
}

void cli_events_close(struct cli_events *ev)
{
	ev_close(ev->ctx);
	ev->ctx = NULL;
}

int cmd_help(int argc, char **argv)
{
	const struct command *c;
	char *args[] = { NULL, "--help", NULL };
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		print_main_help(stdout);
		return 0;
	}
	c = find_command(argv[1]);
	if (!c)
		return cli_error("no such command '%s' (try 'ocrec help')", argv[1]);
	args[0] = (char *)c->name;
	optind = 0;
	return c->fn(2, args);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		GLOBAL_LONG_OPTIONS,
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *cmd;
	int c;

	/* Global options before the command; stop at the first non-option
	 * or at the first option we do not know (it belongs to record). */
	opterr = 0;
	while (optind < argc && argv[optind][0] == '-' && argv[optind][1] == '-') {
		int save = optind;
		c = getopt_long(argc, argv, "+", opts, NULL);
		if (c == -1)
			break;
		if (c == 'V') {
			printf("ocrec %s\n", OCREC_VERSION);
			return 0;
		}
		if (c == 'h') {
			print_main_help(stdout);
			return 0;
		}
		if (!global_option(c, optarg)) {
			optind = save;   /* not global: leave it for the command */
			break;
		}
	}
	opterr = 1;
	argc -= optind;
	argv += optind;
	optind = 0;   /* full getopt reset for the command's own parse */

	if (argc == 0) {
		print_main_help(stderr);
		return 2;
	}
	if (argv[0][0] == '-') {
		/* `ocrec -e EV -b prog`: record is the default command. argv[-1] is
		 * a valid slot (the last consumed global option or the program name). */
		argv--;
		argc++;
		argv[0] = "record";
		return cmd_record(argc, argv);
	}
	cmd = find_command(argv[0]);
	if (!cmd)
		return cli_error("'%s' is not an ocrec command (see 'ocrec --help'; to record a program: ocrec record %s)",
				 argv[0], argv[0]);
	return cmd->fn(argc, argv);
}
