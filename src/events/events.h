/* events.h — event tables and name resolution (ocperf.py's job).
 *
 * A table is loaded for one CPU from: --events PATH / $OCREC_EVENTS, else the
 * download cache ($XDG_CACHE_HOME/ocrec/events), else the built-in architectural
 * table (GenuineIntel only); libpfm4 encodes its own names and is the fallback.
 */
#ifndef OCREC_EVENTS_H
#define OCREC_EVENTS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#include "cpu/cpu.h"

struct ev_context;

struct ev_options {
	const struct cpu_desc *cpu;  /* the CPU the names are for */
	const char *events_path;     /* --events PATH (NULL: $OCREC_EVENTS, cache, built-in) */
	const char *sysfs_root;      /* PMUs, format terms and uncore boxes */
	bool record_mode;            /* add period=SampleAfterValue like `ocperf.py record` */
};

/* Load the tables for opts->cpu. Never fails for lack of a table (generic
 * names and libpfm4 still work); NULL + oc_err() on a corrupt table. */
struct ev_context *ev_open(const struct ev_options *opts);
void ev_close(struct ev_context *ctx);

/* attr.type of a PMU whose type is not known: not in sysfs (resolving for another machine). */
#define EV_TYPE_UNKNOWN 0xffffffffu

/* One resolved event, for one PMU. */
struct ev_attr {
	struct perf_event_attr attr; /* type, config, config1/2, precise_ip, exclude_*, sample_period */
	char *pmu;                   /* "cpu", "cpu_core", "uncore_cbox_0", "software", ... */
	char *perf_string;           /* what perf's -e takes: "cpu/event=0xc4,umask=0x0,name=.../p" */
	char *name;                  /* display name */
};

struct ev_resolved {
	char *input;                 /* the name as given */
	struct ev_attr *attrs;       /* several for hybrid or uncore boxes */
	size_t nr_attrs;
	bool deprecated;
	char *desc;
};

/* Resolve NAME[:mod...] (perfmon, libpfm4, generic, rNNNN, pmu/terms/).
 * 0, or -1 + oc_err(): one line, naming the event and, for an unknown name,
 * up to three close names; for an unknown modifier, the valid ones. */
int ev_resolve(struct ev_context *ctx, const char *spec, struct ev_resolved *out);
void ev_resolved_free(struct ev_resolved *r);
/* The joined perf -e string of all attrs (comma-separated). Caller frees. */
char *ev_perf_string(const struct ev_resolved *r);

/* --- additions (events engineer) --------------------------------------- */

/* Note: ev_open() reads nothing; the tables are loaded (from the index cache
 * when it is current) by the first ev_resolve()/ev_list() that needs them, so
 * generic names never touch a table and a corrupt table is reported there. */

/* --cpuid FILE: CPUID leaf 0xA decides which built-in architectural events
 * exist (without it: the live CPU when cpu->have_cpuid, else all of them). */
void ev_set_cpuid_path(struct ev_context *ctx, const char *path);
/* No warnings (deprecated events) from ev_resolve: for bulk resolution. */
void ev_set_quiet(struct ev_context *ctx, bool quiet);
/* Where downloaded tables come from: Intel's perfmon repository, or the Linux
 * kernel's pmu-events (tools/perf/pmu-events/arch/x86: AMD and the others). */
enum ev_source { EV_SOURCE_PERFMON, EV_SOURCE_LINUX };
/* perfmon for GenuineIntel, linux for every other vendor. */
enum ev_source ev_default_source(const struct cpu_desc *cpu);
const char *ev_source_name(enum ev_source source);          /* "perfmon", "linux" */
int ev_source_parse(const char *name, enum ev_source *out); /* 0, or -1 + oc_err() */
/* The perfmon download cache: $XDG_CACHE_HOME/ocrec/events, else ~/.cache/ocrec/events. Caller frees. */
char *ev_cache_dir(void);
/* A source's download cache: that one, or $XDG_CACHE_HOME/ocrec/linux/x86. Caller frees. */
char *ev_source_cache_dir(enum ev_source source);
/* Where the tables of ctx come from ("DIR (SKX/events/skylakex_core.json, mapfile row
 * GenuineIntel-6-55-[01234])", "DIR (amdzen4, mapfile row AuthenticAMD-25-[[:xdigit:]]+)",
 * "FILE", "built-in architectural table"); NULL when no table covers the CPU
 * (generic names, raw events and libpfm4 still work). Loads the tables if
 * needed; -1 is reported through oc_err() and gives NULL. */
const char *ev_table_source(struct ev_context *ctx);
/* Which source that is: "perfmon" or "linux" (a download cache), "events"
 * (--events PATH or $OCREC_EVENTS), "built-in"; NULL as for ev_table_source. */
const char *ev_table_origin(struct ev_context *ctx);
/* Why no table covers the CPU, with the command that gets one (after ev_table_source gave NULL). */
const char *ev_no_table_hint(struct ev_context *ctx);

/* --- listing (ocrec list-events) ---------------------------------------- */
struct ev_list_entry {
	const char *name;            /* as the table spells it (BR_INST_RETIRED.ALL_BRANCHES) */
	const char *pmu;             /* core PMU ("cpu", "cpu_core", "cpu_atom"), libpfm4 PMU, or NULL */
	const char *unit;            /* uncore unit as the table names it ("CHA"), else NULL */
	const char *uncore_pmu;      /* its perf PMU prefix ("uncore_cha"; boxes add _N), else NULL */
	const char *desc;            /* the public description, with "Errata: ..." appended */
	const char *brief;           /* the brief description ("" when none) */
	const char *counter;         /* "0,1,2,3", "Fixed counter 1", ... ("" when none) */
	const char *errata;          /* NULL when none */
	bool deprecated;
	bool from_libpfm;            /* no table covers the CPU: libpfm4's event */
	unsigned long long event_code, event_code2, umask, cmask, inv, edge, any;
	unsigned long long msr_index, msr_value, period;
	int pebs, precise;
};
/* Call fn for each event whose name matches pattern (a glob, or a substring
 * when it has no * ? [; case-insensitive; NULL: all): each core table sorted
 * by name (cpu_core before cpu_atom), then the uncore events. Without a table
 * for the CPU, libpfm4's events of the PMUs it finds. 0, or -1 + oc_err(). */
int ev_list(struct ev_context *ctx, const char *pattern,
	    void (*fn)(const struct ev_list_entry *e, void *arg), void *arg);
/* How many core PMU tables (2 on a hybrid CPU, 0 without a table). */
int ev_core_table_count(struct ev_context *ctx);
/* Does name match a list-events pattern (see ev_list)? */
bool ev_pattern_match(const char *pattern, const char *name);

/* --- download (ocrec download) ------------------------------------------- */
struct ev_download_opts {
	enum ev_source source;
	const char *base_url;     /* NULL: $OCREC_EVENTS_URL (perfmon) or $OCREC_LINUX_EVENTS_URL,
				   * else the source's repository on GitHub */
	const char *cpu_id;       /* perfmon CPU string whose files to fetch */
	bool all;                 /* every file (directory) mapfile.csv names */
	bool force;               /* no conditional requests */
	const char *cache_dir;    /* NULL: ev_source_cache_dir(source) */
	/* called while a file arrives (for a terminal progress line); may be NULL */
	void (*progress)(const char *file, size_t done, size_t total, void *arg);
	void *progress_arg;
};
struct ev_download_result {
	int files;                /* files the CPU needs, mapfile.csv included */
	int fetched;              /* written to the cache */
	int not_modified;         /* the server said 304: cached copy kept */
	int removed;              /* cached files the source no longer has (linux) */
	size_t bytes;
	char table[64];           /* linux: the directory of the CPU's mapfile row ("amdzen4") */
};
/* 0, or -1 + oc_err() with the cache left as it was. */
int ev_download(const struct ev_download_opts *o, struct ev_download_result *res);

/* perf's generic event NAME without modifiers (cycles, cpu-clock, cs,
 * L1-dcache-loads, ...; matched case-insensitively): its type and config, and
 * the canonical spelling; NULL when NAME is not one. Needs no tables. */
const char *ev_generic_event(const char *name, uint32_t *type, uint64_t *config);
/* perf's generic event NAME[:MODIFIERS], NAME spelled as perf's own command
 * line takes it (cycles, not CYCLES), into attr with perf's modifier rules
 * (the same as ev_resolve's): 0; 1 when NAME is not one; -1 + oc_err() for a
 * bad modifier. Needs no tables. */
int ev_perf_generic_attr(const char *spec, struct perf_event_attr *attr);
/* Whether s is a non-empty string of perf's modifier letters (syntax only). */
bool ev_is_perf_modifiers(const char *s);

#endif
