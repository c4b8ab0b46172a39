/* ev-internal.h — what the files of src/events share; not a contract for other modules. */
#ifndef OCREC_EV_INTERNAL_H
#define OCREC_EV_INTERNAL_H

#include <stdint.h>

#include "events/events.h"
#include "util/util.h"

/* A PMU's format terms and type, read once from sysfs (or built in for the
 * Intel core PMUs when sysfs does not have them: resolving for another CPU). */
struct ev_pmu {
	char *name;
	uint32_t type;             /* EV_TYPE_UNKNOWN when neither sysfs nor built in */
	bool in_sysfs;
	char **terms;              /* NULL-terminated: "event", "umask", ... */
	char **specs;              /* parallel: "config:0-7", ... */
	struct ev_pmu *next;
};

/* Where a set of tables comes from (stored in the index). */
enum ev_origin { EV_ORIGIN_PATH, EV_ORIGIN_BUILTIN, EV_ORIGIN_PERFMON, EV_ORIGIN_LINUX };

/* One event of a table. Strings are offsets into the table's pool (0 = ""),
 * so a table is two flat arrays that the index cache stores as they are. */
enum {
	REC_UNCORE     = 1 << 0,
	REC_DEPRECATED = 1 << 1,
	REC_HAS_ANY    = 1 << 2,   /* the row has an AnyThread field */
	REC_HAS_MSR    = 1 << 3,   /* MSRIndex and MSRValue are both non-empty */
	REC_MATRIX     = 1 << 4,   /* built from an offcore matrix file */
	REC_HAS_SAV    = 1 << 5,
};

struct ev_rec {
	uint32_t name, desc, brief, errata, counter, unit, pname;
	uint32_t flags;
	uint64_t code, code2, umask, other, msr_index, msr_value, period;
	uint64_t port_mask, fc_mask;
	uint32_t cmask, internal;
	uint32_t edge, inv, any;
	int32_t pebs, precise, collect_pebs;
	uint32_t terms;             /* jevents' further terms: "rdwrmask=0x1,threadmask=0x3" */
};

/* The events of one PMU kind: a core PMU ("cpu", "cpu_core", "cpu_atom"),
 * or the uncore events (pmu "uncore"). */
struct ev_table {
	char *pmu;
	char *path;                 /* the file(s) it came from, for messages */
	struct ev_rec *recs;
	uint32_t nr;
	size_t cap;
	char *pool;
	uint32_t pool_len;
	uint32_t *sorted;           /* rec indices by case-folded name, duplicates removed */
	uint32_t nr_sorted;
	bool mapped;                /* the arrays live in the index mapping (not freed) */
};

struct ev_tables {
	struct ev_table **t;
	size_t nr;
	char **files;               /* every file the tables were read from (index validation) */
	size_t nr_files, cap_files;
	void *mapping;              /* the index file the tables live in, or NULL */
	size_t mapping_len;
	char *source;               /* "--events FILE", "DIR (SKX/..., mapfile row ...)", "built-in ..." */
	enum ev_origin origin;
};

static inline const char *rec_str(const struct ev_table *t, uint32_t off)
{
	return t->pool + off;
}

/* --- perfmon.c: reading tables ------------------------------------------ */
/* The largest event file (JSON table, mapfile.csv) ocrec reads or downloads:
 * Intel's and the kernel's are under 4 MB; jansson needs about 7 bytes of
 * memory per byte of JSON. docs/fuzzing.md lists the limits. */
#define EV_MAX_TABLE_FILE (32u << 20)
/* mapfile.csv: Intel's has 260 rows in 20 KB. */
#define EV_MAX_MAPFILE (1u << 20)
/* What the tables of one CPU may hold (Sapphire Rapids, core and uncore: 4,000
 * events and 2 MB of text); the string pool's offsets are 32-bit. */
#define EV_MAX_EVENTS (1u << 18)
#define EV_MAX_POOL (256u << 20)
struct ev_table *ev_table_new(const char *pmu);
void ev_table_free(struct ev_table *t);
/* Add the events of one perfmon/pmu-events JSON file. uncore: the table for
 * rows with a Unit (NULL: those rows are skipped). 0, or -1 + oc_err(). */
int ev_table_add_json(struct ev_table *core, struct ev_table *uncore, const char *path);
/* The built-in table (events/intel-architectural.json), embedded by builtin.c. */
#define BUILTIN_EVENTS_NAME "intel-architectural.json"
extern const char ocrec_builtin_events[];
/* A table held in memory (the built-in one); name is used in messages. */
int ev_table_add_json_text(struct ev_table *core, const char *name, const char *text);
/* Add OFFCORE_RESPONSE.<REQ>.<RESP> events from an offcore matrix file. */
int ev_table_add_matrix(struct ev_table *core, const char *path);
/* PERF_METRICS.* and TOPDOWN.SLOTS as the kernel's topdown aliases, when the table has TOPDOWN.SLOTS. */
void ev_table_add_topdown(struct ev_table *t);
/* Sort and de-duplicate (the last row of a name wins, as in ocperf). */
void ev_table_finish(struct ev_table *t);
/* Exact case-insensitive lookup; NULL when absent. */
const struct ev_rec *ev_table_find(const struct ev_table *t, const char *name);

/* --- ocperf.c: table events as ocperf.py spells them ---------------------- */
/* Resolve NAME[:mods] or PMU/NAME/flags from the tables: 0, 1 when no table
 * has the name, -1 + oc_err(). */
int ev_resolve_table(struct ev_context *ctx, const char *spec, struct ev_resolved *out);
/* The PMU of a table's uncore Unit: uncore_<unit> for Intel's ("CBO" → uncore_cbox,
 * "iMPH-U" → uncore_arb), the kernel's name for others ("L3PMC" → amd_l3). The PMU
 * is that or its boxes PMU_0, PMU_1, ... */
void ev_uncore_pmu(struct ev_context *ctx, const char *table_unit, char *out, size_t n);

/* --- kernel.c: the kernel's PMU knowledge for PMUs sysfs does not show ----- */
struct ev_format {
	const char *term, *spec;   /* "event", "config:0-7,32-35" */
};
/* The format terms the kernel gives PMU on ctx's CPU ({NULL, NULL}-terminated)
 * and its type (PERF_TYPE_RAW for the core PMU, else EV_TYPE_UNKNOWN); NULL
 * when ocrec does not know them. */
const struct ev_format *ev_kernel_formats(struct ev_context *ctx, const char *pmu, uint32_t *type);
/* The kernel's event alias NAME of a core PMU (Intel's topdown events), or NULL. */
const char *ev_kernel_alias(struct ev_context *ctx, const char *pmu, const char *name);
/* The PMU a pmu-events Unit names when it is not an Intel uncore box
 * ("L3PMC" → "amd_l3", jevents.py), else NULL. */
const char *ev_kernel_unit_pmu(const char *unit);

/* --- pfm.c: libpfm4 --------------------------------------------------------- */
/* 0, 1 when libpfm4 does not know the name, -1 + oc_err(). */
int ev_resolve_pfm(struct ev_context *ctx, const char *spec, struct ev_resolved *out);
void ev_pfm_release(struct ev_context *ctx);
/* libpfm4 loaded and describing the context's CPU: this machine's, or the one
 * LIBPFM_FORCE_PMU forces; explicit_pmu (a "pmu::EVENT" name) asks for it anyway. */
bool ev_pfm_ready(struct ev_context *ctx, bool explicit_pmu);
/* Where a CPU without a table gets its events: "its events come from libpfm4", or why not
 * (libpfm4 found no core PMU on this machine). Caller frees. */
char *ev_pfm_coverage(struct ev_context *ctx);

/* --- index.c: a compact copy of the loaded tables in the cache ------------- */
/* Tables stored under key whose files are unchanged: 0 and *out, 1 on a miss. */
int ev_index_load(const char *key, struct ev_tables **out);
/* Store ts under key (best effort: a cache that cannot be written is skipped). */
void ev_index_save(const char *key, const struct ev_tables *ts);
/* Write the checksum that ends an index image of len bytes (ev_index_save does;
 * the fuzz target does it to reach the checks behind the checksum). */
void ev_index_seal(void *image, size_t len);

/* --- suggest.c --------------------------------------------------------------- */
/* Append "; did you mean A, B, C?" with up to three known names close to spec. */
void ev_suggest(struct ev_context *ctx, const char *spec, struct strbuf *out);

/* --- tables.c: where tables come from ------------------------------------- */
/* Does a path a mapfile or a listing names climb out of its tree (a ".."
 * component)? A download would write it outside the cache. */
bool ev_path_climbs(const char *path);
/* One row of a perfmon mapfile.csv. */
struct ev_map_row {
	char *pattern, *file, *type, *core_type, *role;
};
/* The rows of mapfile text (modified) whose Family-model matches id (all when
 * id is NULL); a row naming a file outside the tree is skipped with a warning.
 * Returns the number of rows. */
int ev_mapfile_parse(char *text, const char *id, struct ev_map_row **rows);
void ev_map_row_free(struct ev_map_row *r);
/* Load the tables for ctx (once). 0 with ctx->tables possibly NULL (none
 * cover this CPU), or -1 + oc_err() on a corrupt table. */
int ev_tables_load(struct ev_context *ctx);
void ev_tables_free(struct ev_tables *ts);

struct ev_context {
	struct cpu_desc cpu;
	bool have_cpu;
	char *events_path;
	char *sysfs_root;
	bool record_mode;
	bool quiet;
	struct ev_pmu *pmus;        /* cache of sysfs PMU formats */
	char *cpuid_path;
	struct ev_tables *tables;   /* loaded on first use */
	bool tables_tried;
	int tables_error;           /* -1 when loading failed (oc_err() said why) */
	char *no_table_hint;
	bool hint_needs_pfm;        /* no_table_hint still lacks ev_pfm_coverage() */
	int pfm_state;              /* 0 not tried, 1 ready, -1 failed */
};

/* --- generic.c: perf's own syntax ------------------------------------- */

/* The PMU of this name (sysfs, cached in ctx), never NULL. */
struct ev_pmu *ev_pmu_get(struct ev_context *ctx, const char *name);
/* Fill one ev_attr for "pmu/terms/mods" (a complete perf event string). */
int ev_attr_from_string(struct ev_context *ctx, const char *spec, const char *pmu_name,
			const char *terms, const char *mods, struct ev_attr *out);
/* Resolve perf-syntax specs: generic names, rNNNN, pmu/terms/. 1 when spec
 * is not perf syntax (try the tables), 0 resolved, -1 error. */
int ev_resolve_perf_syntax(struct ev_context *ctx, const char *spec, struct ev_resolved *out);

/* Add one attr to out (grows the array); returns it, zeroed. */
struct ev_attr *ev_resolved_add(struct ev_resolved *out);

#endif
