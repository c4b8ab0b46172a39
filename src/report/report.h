/* report.h — the report views of `ocrec report`: branch mode (every LBR entry a
 * histogram entry with pseudo period 1, as perf), plain samples, source lines
 * (--source), --branch-history and hot paths. Records arrive through the
 * report_* feed functions (from perf.data or perf script text); memory grows with
 * distinct keys and distinct addresses, never with the number of samples. */
#ifndef OCREC_REPORT_H
#define OCREC_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "symbols/symbols.h"

enum report_view {
	VIEW_HIST,             /* branch or sample histogram by --sort keys */
	VIEW_SOURCE,           /* --source: per hot function, its lines */
	VIEW_BRANCH_HISTORY,   /* --branch-history: LBR (+callchain) tree */
	VIEW_HOT_PATHS,        /* --hot-paths: block sequences, block counts, trip counts */
};

struct report_opts {
	const char *sort;          /* --sort keys, NULL for the mode's default */
	int branch_mode;           /* -1 auto, 0 off (--no-branch-stack), 1 on (-b) */
	enum report_view view;
	double percent_limit;      /* --percent-limit */
	long max_rows;             /* --max-rows, 0 = all */
	char **comms, **dsos;      /* NULL-terminated filter lists or NULL */
	int32_t *pids, *tids;      /* filter lists, -1-terminated, or NULL */
	int verbose;
	bool json;
	bool full_source_path;
	struct sym_options sym;
};

/* One branch entry as the feed gives it (newest first in a sample). */
struct report_branch {
	uint64_t from, to;
	bool mispred, predicted;
	unsigned cycles;
};

struct report_sample {
	int event;                 /* index returned by report_add_event */
	uint32_t pid, tid;
	uint64_t ip, period;
	bool kernel;               /* cpumode of ip */
	const struct report_branch *branches;
	size_t nr_branches;
	const uint64_t *callchain; /* may contain PERF_CONTEXT_* markers */
	size_t nr_callchain;
};

struct report;

struct report *report_new(const struct report_opts *opts);
void report_free(struct report *r);
/* Register an event section; returns its index. */
int report_add_event(struct report *r, const char *name);
/* Whether the file says it has branch stacks (perf's HEADER_BRANCH_STACK bit or
 * branch stacks in sample_type); used for the auto mode. */
void report_set_has_branch_stack(struct report *r, bool yes);
void report_set_lost(struct report *r, uint64_t lost);
void report_comm(struct report *r, uint32_t pid, uint32_t tid, const char *comm, bool exec);
void report_mmap(struct report *r, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		 const char *filename, bool kernel);
void report_fork(struct report *r, uint32_t pid, uint32_t ppid, uint32_t tid);
void report_build_id(struct report *r, const char *path, const uint8_t *id, uint8_t size);
/* Check the options against what was seen; 0 or -1 + oc_err (unknown --sort key...). */
int report_check(struct report *r);
void report_sample(struct report *r, const struct report_sample *s);
/* Print the chosen view (text or --json) of every event section. */
int report_print(struct report *r, FILE *out);
/* The session's symbols (for callers that resolve addresses themselves). */
struct symtab *report_symtab(struct report *r);

/* Readers that feed a report. -1 + oc_err() on unreadable input. */
int report_read_perfdata(struct report *r, const char *path);
/* perf script text (-F ip,brstack, optional PERF_RECORD_MMAP2 lines), as
 * llvm-profgen reads it. binary (may be NULL) is mapped where the MMAP2 line with
 * its basename says, or at its own addresses when the text has no MMAP2. */
int report_read_perfscript(struct report *r, const char *path, const char *binary);

#endif
