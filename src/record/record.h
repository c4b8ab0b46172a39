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

/* --- ring buffers (shared with the software sampler) --- */

/* One perf_event mmap ring buffer: 1 + 2^n pages, mapped read-write. */
struct ring {
	void *base;
	size_t size;               /* whole mapping */
	size_t data_size;          /* 2^n pages */
	unsigned char *copybuf;    /* for records that wrap around */
	size_t copybuf_size;
};
/* Map fd's ring buffer with data_pages (a power of two) pages. */
int ring_map(struct ring *r, int fd, size_t data_pages);
void ring_unmap(struct ring *r);
/* Deliver every complete record between tail and head (wrap-around handled),
 * then release them to the kernel. Returns the number of records, or -1 if
 * the callback failed (its error stays in oc_errmsg()). */
typedef int (*ring_record_fn)(const struct perf_event_header *hdr, void *arg);
long ring_drain(struct ring *r, ring_record_fn fn, void *arg);

/* perf_event_open(2) wrapper. */
int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			unsigned long flags);

/* Record as opts say; fills st. Returns 0, or -1 + oc_err() (the message is the
 * one line a user can act on). */
int record_run(const struct record_opts *opts, struct record_stats *st);

#endif
