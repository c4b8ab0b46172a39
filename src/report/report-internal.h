/* report-internal.h — shared state of the report views (not a public API). */
#ifndef OCREC_REPORT_INTERNAL_H
#define OCREC_REPORT_INTERNAL_H

#include "report/report.h"
#include "session/session.h"
#include "util/util.h"

#define MAX_KEY_WORDS 24

/* A histogram entry (its key, the --sort keys' words, is the hash table's). */
struct hentry {
	uint64_t period, samples;
	struct session_loc from, to;   /* to is unused outside branch mode */
	const char *comm;              /* interned by the session */
	unsigned cycles;
	int mispred;                   /* 0 N/A, 1 predicted, 2 mispredicted */
	uint32_t pid;
};

/* Per-event section. Every view counts each sample in nr_samples and
 * total_period (in its own unit: branch entries or periods), and what the
 * filters keep in kept_samples and kept_period: the percentages are of the
 * first (--percentage absolute, perf's default) or of the second (relative). */
struct rsection {
	const char *name;
	uint64_t nr_samples, total_period;
	uint64_t kept_samples, kept_period;
	void *view;                    /* the view's state, made by its sample op */
};

struct report;

/* A view: how it takes samples, prints a section (text or --json) and
 * frees its state. */
struct view_ops {
	const char *name;              /* --json's "view" */
	void (*sample)(struct report *r, struct rsection *sec, const struct session_sample *ss, bool filtered);
	int (*print)(struct report *r, struct rsection *sec, FILE *out);
	void (*free)(void *state);
};

extern const struct view_ops view_hist, view_source, view_branch_history, view_hot_paths, view_pprof;

struct report {
	struct report_opts opts;
	struct session *s;
	const struct view_ops *view;
	bool has_branch_stack, branch_on;
	uint64_t lost;
	struct rsection *secs;         /* indexed by session event */
	size_t nr_secs;
	int keys[16];
	size_t nr_keys;
	bool checked;
	struct pair_slot *pairs;       /* branch entry -> hist entry (report.c) */
	void *pprof;                   /* --pprof's profile (pprof-export.c) */
	int64_t input_mtime_ns;        /* the input being read: when it was written */
};

/* The percentage of n in a section, and the counts its header shows, after
 * --percentage. */
double report_percent(const struct report *r, const struct rsection *sec, uint64_t n);
uint64_t report_shown_samples(const struct report *r, const struct rsection *sec);
uint64_t report_shown_period(const struct report *r, const struct rsection *sec);
/* A sample of a view that counts samples (not branch entries), weighing
 * units, counted in sec: its ip's location when the filters (--comm, --pid,
 * --tid; --dso on the ip) keep it, else NULL. */
struct session_loc *report_take_sample(struct report *r, struct rsection *sec, const struct session_sample *ss,
				       bool filtered, uint64_t units);
/* Does --dso leave out this location? */
bool report_dso_filtered(const struct report *r, const struct session_loc *l);

/* The path of a sample that --branch-history and --pprof walk: the sampled
 * address, then (with branches) each LBR entry's target and source, newest
 * first as perf's machine.c orders them, then the call chain's return
 * addresses (caller true). At most max steps; returns how many. */
struct report_step {
	struct session_loc *loc;
	bool caller;
};
size_t report_sample_path(struct report *r, const struct session_sample *ss, bool branches,
			  struct report_step *steps, size_t max);

/* --pprof (pprof-export.c): write the profile; free its state; an input's
 * modification time in ns since the epoch (0 for a pipe). */
int report_write_pprof(struct report *r, const char *path);
void report_pprof_free(struct report *r);
int64_t report_input_mtime(const char *path);

/* JSON string output. */
void json_str(FILE *out, const char *s);

#endif
