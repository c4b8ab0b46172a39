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

#endif
