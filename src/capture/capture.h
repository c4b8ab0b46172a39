/* capture.h — what both ways of recording need, the recorder (src/record:
 * perf_event_open with the PMU's own samples) and the software branch sampler
 * (src/sampler: ptrace): the options and results of `ocrec record`, perf_event
 * ring buffers, the workload held before exec, records synthesized from /proc
 * for what already runs, the objects that got samples with their build-ids
 * (the BUILD_ID feature and perf's ~/.debug cache), and the output file.
 * The record command (src/cli/cmd-record.c) chooses between the two. */
#ifndef OCREC_CAPTURE_H
#define OCREC_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "perfdata/perfdata.h"

/* --- what `ocrec record` was asked (cmd-record.c fills it), and what it did --- */

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
	size_t mmap_pages;         /* -m: data pages of each ring, a power of two (0: the default) */
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

/* --- ring buffers --- */

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

/* --- the workload --- */

/* A workload forked stopped: it execs when workload_start() says go. */
struct workload {
	pid_t pid;
	int go_fd;      /* write end: one byte releases the child */
	int err_fd;     /* read end: the child's exec errno, or EOF when exec worked */
};
/* Fork argv[0] (searched in PATH); the child waits before exec. 0 or -1 + oc_err(). */
int workload_prepare(struct workload *w, char *const argv[]);
/* Let it exec. 0, or -1 + oc_err() ("PROG: command not found") when exec
 * failed; *exec_errno gets the child's errno (ENOENT, EACCES, ...). */
int workload_start(struct workload *w, const char *prog, int *exec_errno);
/* Kill a workload that never started and reap it. */
void workload_abort(struct workload *w);

/* --- objects with samples, build-ids --- */

/* Which mapped objects got samples, from the records as they pass by. */
struct dso_tracker;
struct dso_tracker *dso_tracker_new(void);
void dso_tracker_free(struct dso_tracker *t);
/* Feed one record (sample_type of every event is the same: ip_offset is where
 * the ip sits after the header, 0 or 8). */
void dso_tracker_record(struct dso_tracker *t, const struct perf_event_header *h, size_t ip_offset);
/* A user-space address a sample touched (the software branch sampler's
 * sample ip and branch ends, which it writes itself). */
void dso_tracker_mark(struct dso_tracker *t, uint32_t pid, uint64_t ip);
/* Resolve the samples that went by before their mapping did: call after each
 * pass over every ring buffer (records of one pass are not in time order). */
void dso_tracker_resolve_pending(struct dso_tracker *t);
/* A synthesized executable mapping of pid (from /proc). */
void dso_tracker_add_map(struct dso_tracker *t, uint32_t pid, uint64_t start, uint64_t len, const char *path);
/* Whether samples landed in the object at path (for tests and -v). */
bool dso_tracker_was_sampled(const struct dso_tracker *t, const char *path);
/* For each object with samples that has a build-id: add it to the BUILD_ID
 * feature and, when cache_dir is not NULL, to the build-id cache there (perf's
 * ~/.debug layout). Problems with the cache are warnings. */
void dso_tracker_write_build_ids(struct dso_tracker *t, struct pd_writer *w, const char *cache_dir);

/* Add path (with build-id id) to the build-id cache under cache_dir
 * (sym_build_id_cache_dir(), perf's ~/.debug):
 * cache_dir/<abs path>/<hex>/elf and the link cache_dir/.build-id/xx/<rest>. */
int build_id_cache_add(const char *cache_dir, const char *path, const uint8_t *id, int size);

/* --- the output --- */

/* Keep an existing output file as PATH.old, like perf. 0, or -1 + oc_err(). */
int output_keep_old(const char *path);

/* --- what already runs --- */

/* Synthesize what perf synthesizes for processes that already run: COMM (and
 * FORK for non-leader threads) per thread and MMAP2 for executable maps, read
 * from /proc/PID. Maps are also fed to the tracker. 0 (also when the process
 * has ended meanwhile) or -1 + oc_err() when writing failed. */
int synthesize_process(struct pd_writer *w, struct dso_tracker *t, pid_t pid);
/* The same for every process in /proc (for -a); processes that end meanwhile are skipped. */
int synthesize_all_processes(struct pd_writer *w, struct dso_tracker *t);
/* The kernel's MMAP ([kernel.kallsyms]_text) like perf, when /proc/kallsyms shows
 * addresses. trailer_size: zero bytes of the sample_id_all trailer. */
int synthesize_kernel_mmap(struct pd_writer *w, size_t trailer_size);

#endif
