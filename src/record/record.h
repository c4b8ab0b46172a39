/* record.h — the recorder: open events with perf_event_open, run or attach to
 * a workload, drain the ring buffers into a perf.data file. */
#ifndef OCREC_RECORD_H
#define OCREC_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "perfdata/perfdata.h"

enum branch_sampler { BRANCH_SAMPLER_AUTO, BRANCH_SAMPLER_HARDWARE, BRANCH_SAMPLER_SOFTWARE };

struct record_opts {
	char **events;             /* -e values (already split at commas), NULL-terminated */
	size_t nr_events;
	bool branch_stack;         /* -b or -j */
	uint64_t branch_filter;    /* PERF_SAMPLE_BRANCH_* from -j (ANY for -b) */
	enum branch_sampler sampler; /* --branch-sampler=hardware|software|auto */
	int lbr_depth;             /* --lbr-depth N for the software sampler (0: from CPU, else 32) */
	bool callgraph_fp;         /* -g / --call-graph fp */
	uint64_t period;           /* -c */
	uint64_t freq;             /* -F */
	pid_t pid;                 /* -p (0: fork argv) */
	bool all_cpus;             /* -a */
	const char *output;        /* -o (default perf.data) */
	bool quiet, buildid_cache; /* -q, !--no-buildid-cache */
	int verbose;               /* -v */
	char **argv;               /* workload, NULL-terminated */
	int orig_argc;             /* ocrec's own command line, for the CMDLINE feature */
	char **orig_argv;
};

struct record_stats {
	uint64_t samples, lost, wakeups, bytes;
	int exit_status;           /* the workload's, as from waitpid */
	bool emulated_branches;    /* the software sampler produced the branch stacks */
	int lbr_depth;
};

#endif
