/* cli.h — the command-line front end: command table, global options, messages.
 *
 * Each command lives in its own cmd-NAME.c as `int cmd_NAME(int argc, char **argv)`
 * (argv[0] is the command name). Commands parse their options, call the library
 * below src/ and print; the knowledge lives in the library.
 */
#ifndef OCREC_CLI_H
#define OCREC_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "cpu/cpu.h"
#include "util/util.h"

/* Options every command honours (also accepted before the command name). */
struct global_opts {
	const char *cpuinfo;   /* --cpuinfo FILE: a /proc/cpuinfo copy */
	const char *cpuid;     /* --cpuid FILE: a CPUID dump (docs/cpuid-format.md) */
	const char *sysfs;     /* --sysfs DIR or $OCREC_SYSFS: stand-in for /sys */
};
extern struct global_opts g_opts;

enum {
	OPT_GLOBAL_CPUINFO = 0x1000,
	OPT_GLOBAL_CPUID,
	OPT_GLOBAL_SYSFS,
	OPT_EVENTS_CPU = 0x1040,
	OPT_EVENTS_PATH,
	OPT_SESSION_SYMFS = 0x1080,
	OPT_SESSION_KALLSYMS,
	OPT_SESSION_MAX_STACK,
	OPT_SESSION_NO_DEMANGLE,
	OPT_FIRST_LOCAL = 0x1100,  /* commands number their long-only options from here */
};

/* Put this at the end of a command's struct option array (before the {0}). */
#define GLOBAL_LONG_OPTIONS \
	{ "cpuinfo", required_argument, NULL, OPT_GLOBAL_CPUINFO }, \
	{ "cpuid", required_argument, NULL, OPT_GLOBAL_CPUID }, \
	{ "sysfs", required_argument, NULL, OPT_GLOBAL_SYSFS }, \
	{ "help", no_argument, NULL, 'h' }

/* The options of the commands that read perf.data through a session (report,
 * script), and their help lines. */
#define SESSION_LONG_OPTIONS \
	{ "symfs", required_argument, NULL, OPT_SESSION_SYMFS }, \
	{ "kallsyms", required_argument, NULL, OPT_SESSION_KALLSYMS }, \
	{ "max-stack", required_argument, NULL, OPT_SESSION_MAX_STACK }, \
	{ "no-demangle", no_argument, NULL, OPT_SESSION_NO_DEMANGLE }
#define SESSION_OPTIONS_HELP \
	"      --symfs DIR         look for binaries under DIR, like perf\n" \
	"      --kallsyms FILE     kernel symbols (default: /proc/kallsyms where perf takes it:\n" \
	"                          see the man page)\n" \
	"      --max-stack N       at most N frames of a call chain (default, as perf:\n" \
	"                          kernel.perf_event_max_stack, 127 where it cannot be read)\n" \
	"      --no-demangle       C++ and Rust names as in the symbol table\n"
struct session_opts;
/* Handle one of SESSION_LONG_OPTIONS for cmd: 1 if it was one, -1 after an
 * error line (a bad --max-stack), 0 if it was none. */
int cli_session_option(const char *cmd, int c, const char *arg, struct session_opts *so);

/* Handle a global option returned by getopt_long; returns 1 if it was one. */
int global_option(int c, const char *arg);
/* getopt_long over a command's options (opts ends with GLOBAL_LONG_OPTIONS),
 * the global ones handled on the way: the next of the command's own, or -1. */
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *opts);
/* The sysfs root to use: --sysfs, else $OCREC_SYSFS, else "/sys". */
const char *sysfs_root(void);

/* Print "ocrec: MSG" on stderr; returns 2 (the exit code for bad input). */
int cli_error(const char *fmt, ...) OC_PRINTF(1, 2);
/* Print the library's last error (oc_errmsg()) as one line; returns 2. */
int cli_fail(void);
/* For an option getopt rejected: one line pointing at --help; returns 2. */
int cli_bad_usage(const char *cmd);
/* Print usage text to stdout (for --help) and return 0. */
int cli_help(const char *usage);
/* Write a command's output with write(arg, fp): to standard output when out
 * is NULL or "-", else to a temporary file renamed to out once complete.
 * 0, or 2 after printing the error line. */
int cli_write_output(const char *out, int (*write)(void *arg, FILE *fp), void *arg);
/* A workload's wait status as a shell's exit code (128 + signal when killed). */
int cli_exit_status(int status);

/* The event tables a command resolves names in, opened on first need (most
 * runs of perf and stat need none): for the CPU of --cpu STR, else of the
 * global options (--cpuinfo, --cpuid) or this machine; from --events PATH,
 * else the usual places. */
struct cli_events {
	const char *cpu_string;       /* --cpu (resolve, list-events) */
	const char *events_path;      /* --events */
	bool record_mode;             /* periods as `ocperf.py record` adds them */
	struct cpu_desc cpu;          /* the CPU, once opened */
	struct ev_context *ctx;
	bool opened;
};
/* The options that fill a struct cli_events; a command takes those that fit it. */
#define EVENTS_CPU_LONG_OPTION { "cpu", required_argument, NULL, OPT_EVENTS_CPU }
#define EVENTS_PATH_LONG_OPTION { "events", required_argument, NULL, OPT_EVENTS_PATH }
/* Handle --cpu or --events for ev: 1 if c was one of them, else 0. */
int cli_events_option(int c, const char *arg, struct cli_events *ev);
/* The tables, opened on the first call: NULL + oc_err() when the CPU cannot
 * be detected or a table is corrupt (later calls return NULL again). */
struct ev_context *cli_events_get(struct cli_events *ev);
void cli_events_close(struct cli_events *ev);
/* The event tables for cpu, already detected: --sysfs's PMUs, and the
 * architectural events of a --cpuid dump. NULL + oc_err(). */
struct ev_context *cli_open_tables(const struct cpu_desc *cpu, const char *events_path, bool record_mode);

/* Command table entry. */
struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};
extern const struct command commands[];
const struct command *find_command(const char *name);

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_list_events(int argc, char **argv);
int cmd_resolve(int argc, char **argv);
int cmd_download(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_autofdo(int argc, char **argv);
int cmd_bolt(int argc, char **argv);
int cmd_perf(int argc, char **argv);
int cmd_help(int argc, char **argv);

#endif
