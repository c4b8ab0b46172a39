/* sampler-trace — drive the software sampler's ptrace engine on a program, for
 * the exactness tests: "full" single-steps every instruction and prints every
 * taken branch; "windows DEPTH" collects back-to-back windows with the engine
 * and prints their branches. For a deterministic program both lists must be
 * identical (address randomization is off for the child).
 * Usage: sampler-trace full|windows DEPTH [--debug N] [--leaves N] [--seek] [--verify] [--follow] [--start ADDR] -- PROG [ARGS...]
 * --start: run freely up to ADDR (hex, e.g. main) before tracing.
 * --seek: windows run on to their starting point (they slide); a "--" line
 * then ends each window, which is then only a piece of the full trace.
 * Windows are emulated where the engine can (--follow: not);
 * the thread is then followed to each window's end, where emulation stopped
 * early with the emulated branches as guide (--verify: without them), and the
 * window printed holds the emulated branches where it was followed without
 * (counted as diverged when they differ).
 * Prints "from to type" lines (hex), then "exit N" and, on stderr, counters. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sampler/swtrace.h"
#include "util/util.h"

static void print_entry(const struct swb_entry *e)
{
	printf("%" PRIx64 " %" PRIx64 " %u\n", e->from, e->to, e->type);
}

/* Resume whatever other thread reports (the helper traces one thread). */
static void other(pid_t pid, int status, void *arg)
{
	(void)arg;
	if (WIFSTOPPED(status))
		ptrace(PTRACE_CONT, pid, NULL, (void *)(uintptr_t)(status >> 16 ? 0 : WSTOPSIG(status)));
}

/* The tracer runs at normal priority on every CPU, whatever the helper was
 * started with (taskset, chrt --idle): so a test can starve the program
 * alone, as a loaded machine does. */
static void unstarve(void)
{
	cpu_set_t all;
	long n = sysconf(_SC_NPROCESSORS_CONF), i;

	CPU_ZERO(&all);
	for (i = 0; i < n && i < CPU_SETSIZE; i++)
		CPU_SET(i, &all);
	sched_setaffinity(0, sizeof(all), &all);
	sched_setscheduler(0, SCHED_OTHER, &(struct sched_param){ 0 });
}

int main(int argc, char **argv)
{
	/* the thread is followed to each window's end: windows are back to back */
	struct swb_tracer t = { .other = other, .finish = true, .no_emulation = !swb_emulation_wanted() };
	struct swb_space *sp;
	bool full, follow = false;
	int depth = 0, status, argi = 2, i;
	uint64_t start = 0;
	pid_t pid;

	if (argc < 4)
		goto usage;

	full = strcmp(argv[1], "full") == 0;
	if (!full) {
		if (strcmp(argv[1], "windows") != 0)
			goto usage;
		depth = atoi(argv[2]);
		argi = 3;
	}
	if (argi + 1 < argc && strcmp(argv[argi], "--debug") == 0) {
		oc_verbose = atoi(argv[argi + 1]);     /* the engine's debug lines on stderr */
		argi += 2;
	}
	if (argi + 1 < argc && strcmp(argv[argi], "--leaves") == 0) {
		t.max_leaves = atoi(argv[argi + 1]);
		argi += 2;
	}
	if (argi < argc && strcmp(argv[argi], "--seek") == 0) {
		t.seek = true;
		argi++;
	}
	if (argi < argc && strcmp(argv[argi], "--verify") == 0) {
		t.verify = true;
		argi++;
	}
	if (argi < argc && strcmp(argv[argi], "--follow") == 0) {
		follow = true;
		argi++;
	}
	if (argi + 1 < argc && strcmp(argv[argi], "--start") == 0) {
		start = strtoull(argv[argi + 1], NULL, 16);
		argi += 2;
	}
	if (argi >= argc || strcmp(argv[argi], "--") != 0 || argi + 1 >= argc)
		goto usage;
	argi++;

	pid = fork();
	if (pid == 0) {
		personality(ADDR_NO_RANDOMIZE);
		/* stdout carries the trace: the program's output must not land
		 * inside it, wherever the buffers happen to be flushed */
		dup2(STDERR_FILENO, STDOUT_FILENO);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(argv[argi], argv + argi);
		_exit(127);
	}
	/* not through the environment: the program's would differ from the full
	 * trace's, and so would the loader's branches over it */
	if (follow)
		t.no_emulation = true;
	unstarve();
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {
		fprintf(stderr, "sampler-trace: %s did not start\n", argv[argi]);
		return 2;
	}
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(uintptr_t)PTRACE_O_EXITKILL);
	if (start && swb_run_to(&t, pid, start, &status) < 0) {
		fprintf(stderr, "sampler-trace: %s: %s\n", argv[argi], oc_errmsg());
		return 2;
	}
	sp = swb_space_new();
	if (!sp) {
		fprintf(stderr, "sampler-trace: %s\n", oc_errmsg());
		return 2;
	}
	if (full) {
		struct swb_entry e;
		int rc;

		while ((rc = swb_step(&t, sp, pid, &e, &status)) >= 0)
			if (rc == 1)
				print_entry(&e);
	} else {
		struct swb_window w = { .e = xcalloc((size_t)depth, sizeof(struct swb_entry)) };
		enum swb_result r;

		do {
			r = swb_collect(&t, sp, pid, depth, &w);
			for (i = 0; i < w.nr; i++)
				print_entry(&w.e[i]);
			if (t.seek)
				printf("--\n");
			status = w.status;
		} while (r == SWB_DONE);
		if (r == SWB_FAILED)
			fprintf(stderr, "sampler-trace: %s\n", oc_errmsg());
		free(w.e);
	}
	/* Whatever ended the trace, let the program finish and report its status. */
	while (!WIFEXITED(status) && !WIFSIGNALED(status)) {
		if (WIFSTOPPED(status))
			ptrace(PTRACE_CONT, pid, NULL,
			       (void *)(uintptr_t)(status >> 16 ? 0 : WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status)));
		if (waitpid(pid, &status, __WALL) < 0)
			break;
	}
	printf("exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	fprintf(stderr, "breakpoints: %s\n", swb_breakpoints_name(t.bp ? t.bp : swb_breakpoints()));
	fprintf(stderr, "emulated %" PRIu64 " interpreted %" PRIu64 " followed %" PRIu64
		" instructions; emulation stopped at:", t.emulated_insns, t.interpreted_insns, t.followed_insns);
	for (i = 1; i < SWB_UC_NR; i++)
		fprintf(stderr, " %s %" PRIu64, swb_uc_why_name((enum swb_uc_why)i), t.fallbacks[i]);
	fprintf(stderr, "\nwindows %" PRIu64 " stops %" PRIu64 " steps %" PRIu64 " restarts %" PRIu64
		" mismatches %" PRIu64 " diverged %" PRIu64 " blocked %" PRIu64 " lost %" PRIu64 "\n", t.windows,
		t.stops, t.steps, t.restarts, t.mismatches, t.diverged, t.blocked, t.lost);
	swb_tracer_free(&t);
	swb_space_free(sp);
	return 0;
usage:
	fprintf(stderr, "usage: sampler-trace full|windows DEPTH [--debug N] [--leaves N] [--seek] [--verify] [--follow] [--start ADDR] -- PROG [ARGS...]\n");
	return 2;
}
