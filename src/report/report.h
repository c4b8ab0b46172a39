/* report.h — the report views of `ocrec report`: branch mode (every LBR entry a
 * histogram entry with pseudo period 1, as perf), plain samples, source lines
 * (--source), --branch-history and hot paths. Samples come through the session
 * layer (src/session), from perf.data or perf script text; memory grows with
 * distinct keys and distinct addresses, never with the number of samples. */
#ifndef OCREC_REPORT_H
#define OCREC_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "session/session.h"

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
	bool percent_relative;     /* --percentage relative: of what the filters keep */
	long max_rows;             /* --max-rows, 0 = all */
	char **comms, **dsos;      /* NULL-terminated filter lists or NULL */
	int32_t *pids, *tids;      /* filter lists, -1-terminated, or NULL */
	int verbose;
	bool json;
	const char *pprof;         /* --pprof FILE: write a pprof profile instead of text */
	struct session_opts session;   /* --symfs, --kallsyms, --max-stack, --no-demangle,
	                                * --full-source-path, -q (its order is the report's) */
};

struct report;

struct report *report_new(const struct report_opts *opts);
void report_free(struct report *r);

/* Read an input into the report; several add up (their events merge by
 * name). -1 + oc_err() on unreadable input or options the input cannot
 * serve (an unknown --sort key...). */
int report_read_perfdata(struct report *r, const char *path);
/* perf script text (-F ip,brstack, optional PERF_RECORD_MMAP2 lines), as
 * llvm-profgen reads it. binary (may be NULL) is mapped where the MMAP2 line with
 * its basename says, or at its own addresses when the text has no MMAP2. */
int report_read_perfscript(struct report *r, const char *path, const char *binary);
/* Print the chosen view (text or --json) of every event section. */
int report_print(struct report *r, FILE *out);

#endif
