/* report-internal.h — shared state of the report views (not a public API). */
#ifndef OCREC_REPORT_INTERNAL_H
#define OCREC_REPORT_INTERNAL_H

#include "report/report.h"
#include "util/util.h"

/* One resolved address, computed once per (pid, address). */
struct rloc {
	uint64_t addr;
	uint32_t pid;
	struct dso *dso;
	const struct symbol *sym;
	uint64_t map_addr, file_addr;
	char level;                /* '.', 'k', 'H' */
	bool line_done;
	int srcline;               /* interned "file:line" as perf prints it */
	int file;                  /* interned full source path, -1 when unknown */
	unsigned line;
};

/* Interned strings: id <-> text. */
struct strtab {
	char **s;
	size_t n, cap;
	int *idx;                  /* open addressing, -1 empty */
	size_t idx_cap;
};
int str_intern(struct strtab *t, const char *s);
void strtab_free(struct strtab *t);

#define MAX_KEY_WORDS 24

struct hentry {
	uint64_t key[MAX_KEY_WORDS];
	uint64_t period, samples;
	struct rloc from, to;      /* to is unused outside branch mode */
	int comm;
	unsigned cycles;
	int mispred;               /* 0 N/A, 1 predicted, 2 mispredicted */
	uint32_t pid;
};

struct hist {
	struct hentry *e;
	size_t n, cap;
	uint32_t *idx;             /* open addressing into e (+1), 0 empty */
	size_t idx_cap;
};

/* Per-event section. */
struct rsection {
	char *name;
	uint64_t nr_samples, total_period;
	struct hist hist;
	void *view;                /* the extra view's state */
};

struct report {
	struct report_opts opts;
	struct symtab *st;
	struct strtab strs;
	bool has_branch_stack, branch_on;
	uint64_t lost;
	struct rsection *secs;
	size_t nr_secs;
	int keys[16];
	size_t nr_keys;
	/* tid -> comm id */
	struct { uint32_t tid; int comm; } *comms;
	size_t nr_comms, cap_comms;
	/* address cache */
	struct rloc **cache;
	size_t cache_n, cache_cap;
	struct rloc **chunks;
	size_t nr_chunks, chunk_used;
	bool checked;
	struct pair_slot *pairs;   /* branch entry -> hist entry (report.c) */
};

struct rloc *report_resolve(struct report *r, uint32_t pid, uint64_t addr);
/* Fill srcline/file/line of a location (DWARF once per DSO). */
void report_line(struct report *r, struct rloc *l);
int report_comm_of(struct report *r, uint32_t tid);
bool report_sample_filtered(struct report *r, const struct report_sample *s);

/* Views (views.c). */
void view_sample(struct report *r, struct rsection *sec, const struct report_sample *s);
int view_print(struct report *r, struct rsection *sec, FILE *out);
void view_free(struct report *r, struct rsection *sec);

/* JSON string output. */
void json_str(FILE *out, const char *s);

#endif
