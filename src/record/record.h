/* record.h — the recorder: open events with perf_event_open, run or attach to
 * a workload, drain the ring buffers into a perf.data file. */
#ifndef OCREC_RECORD_H
#define OCREC_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture/capture.h"
#include "cpu/cpu.h"
#include "perfdata/perfdata.h"

/* Record as opts say; fills st. Returns 0, or -1 + oc_err() (the message is the
 * one line a user can act on), or RECORD_NO_BRANCH_STACKS: -b found no branch
 * stacks on the PMU, --branch-sampler is auto and no hardware event was named,
 * so the software branch sampler may take over (nothing was written). */
#define RECORD_NO_BRANCH_STACKS 1
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
	bool count_lost;           /* the kernel counts each event's lost records (Linux 6.0) */
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
