/* sampler-record — run swbranch_record() directly, for the software branch
 * sampler's tests and benchmark independently of the command line.
 * Usage: sampler-record [-F HZ] [-c NS] [--lbr-depth N] [-o FILE] [-q] [-v] [-p PID] [-- PROG ARGS...]
 * -v prints the sampler's statistics (windows, stops).
 * Prints one summary line (unless -q) and exits with the workload's status
 * (128 + signal when it was killed); 2 and a message on errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sampler/sampler.h"
#include "util/util.h"

static int status_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 0;
}

int main(int argc, char **argv)
{
	struct record_opts o = { .branch_stack = true, .sampler = BRANCH_SAMPLER_SOFTWARE,
				 .orig_argc = argc, .orig_argv = argv };
	struct record_stats st;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "-q")) {
			o.quiet = true;
			continue;
		}
		if (!strcmp(argv[i], "-v")) {
			oc_verbose = ++o.verbose;
			continue;
		}
		if (i + 1 >= argc)
			break;
		if (!strcmp(argv[i], "-F"))
			o.freq = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-c"))
			o.period = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--lbr-depth"))
			o.lbr_depth = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-o"))
			o.output = argv[++i];
		else if (!strcmp(argv[i], "-p"))
			o.pid = atoi(argv[++i]);
		else
			break;
	}
	if (i < argc)
		o.argv = argv + i;
	else if (!o.pid) {
		fprintf(stderr, "usage: sampler-record [-F HZ] [-c NS] [--lbr-depth N] [-o FILE] [-q] [-v] [-p PID] [-- PROG ARGS...]\n");
		return 2;
	}
	if (swbranch_record(&o, &st) < 0) {
		fprintf(stderr, "sampler-record: %s\n", oc_errmsg());
		return st.exit_status ? status_code(st.exit_status) : 2;
	}
	if (!o.quiet)
		fprintf(stderr, "[ sampler-record: %llu samples, %d deep, branch stacks emulated (software branch sampler) ]\n",
			(unsigned long long)st.samples, st.lbr_depth);
	return status_code(st.exit_status);
}
