/* record.h — the recorder: open events with perf_event_open, run or attach to
 * a workload, drain the ring buffers into a perf.data file. */
#ifndef OCREC_RECORD_H
#define OCREC_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cpu/cpu.h"
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
	const char *sysfs_root;    /* PMUs for event resolution (NULL: /sys) */
	const char *events_path;   /* --events PATH for event resolution (NULL: the default tables) */
	const char *cpuinfo, *cpuid; /* --cpuinfo/--cpuid: resolve names for that CPU (NULL: this one) */
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

/* --- building and opening events: the seam tests use for the paths a machine
 * without a PMU cannot reach (EBUSY, precise retry, the AMD precise drop) --- */
struct cpu_desc;

/* perf's -j names ("any,u", ...) into PERF_SAMPLE_BRANCH_* bits; a list with
 * only privilege bits samples any branch, like perf. 0, or -1 + oc_err(). */
int record_parse_branch_filter(const char *s, uint64_t *mask);

/* One event to open, as resolved from -e (or the default event). */
struct record_event {
	char *name;                /* for messages and EVENT_DESC */
	struct perf_event_attr attr;
	bool named;                /* given with -e; false for the default event */
	bool precise_max;          /* lower precise_ip silently until it opens (perf's precise_max) */
	enum lbr_kind lbr;         /* with -b, the CPU's branch records (record_config_attr sets it):
				    * open errors explain AMD's rules */
};

/* AMD Zen 3's BRS samples branch stacks only on this event, retired taken
 * branches (perf's cpu/branch-brs/; AMD_FAM19H_BRS_EVENT in the kernel). */
#define AMD_BRS_EVENT 0xc4

/* How the events of one recording are laid out. */
struct record_layout {
	bool tracking;             /* this event carries the COMM/MMAP2/FORK/EXIT records */
	bool several_events;       /* samples carry IDENTIFIER so a reader can tell them apart */
	bool enable_on_exec;       /* a forked workload: count from its exec on */
	bool exclude_kernel;       /* kernel profiling is not allowed (paranoid > 1, not root) */
};

/* Fill ev->attr's sampling fields from opts, for this CPU and layout. On AMD a
 * precise level is dropped for branch sampling, with a notice (oc_warn); Zen 3's
 * BRS samples with a period (400009 unless -c, -F or the event sets one), as its
 * kernel driver accepts only period mode. */
void record_config_attr(struct record_event *ev, const struct record_opts *o,
			const struct cpu_desc *cpu, const struct record_layout *l);

/* perf_event_open(ev->attr) with perf's fallback: a precise level the PMU
 * refuses is lowered and retried (with a notice unless precise_max). Returns
 * the fd, or -1 + oc_err() with the one line a user can act on; errno keeps the
 * kernel's error. all_cpus: the event was opened for -a (paranoid message). */
int record_open_event(struct record_event *ev, pid_t pid, int cpu, int group_fd, bool all_cpus);

/* The one-line message for a perf_event_open failure (recorded with oc_err). */
int record_open_error(int err, const struct record_event *ev, bool all_cpus);

/* Test seam: the system call record_open_event() makes (sys_perf_event_open
 * normally; unit tests point it at a fake to inject errors). */
extern int (*record_perf_event_open_fn)(struct perf_event_attr *attr, pid_t pid, int cpu,
					int group_fd, unsigned long flags);

#endif
