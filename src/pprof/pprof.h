/* pprof.h — a writer of pprof's profile.proto (github.com/google/pprof,
 * proto/profile.proto), gzipped as `go tool pprof` and the continuous
 * profilers read it. It knows profiles, not perf.data: the caller gives
 * mappings, functions, locations and samples, and gets ids back; strings,
 * mappings, functions and locations are stored once. Samples are encoded as
 * they come, so memory follows what is distinct. The encoding is written by
 * hand (the format is small and stable, as Go's runtime/pprof does it);
 * docs/pprof.md says how ocrec's views map onto it. */
#ifndef OCREC_PPROF_H
#define OCREC_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pprof;

struct pprof *pprof_new(void);
void pprof_free(struct pprof *p);

/* One value of every sample: its type and unit ("cpu", "nanoseconds"). In the
 * order of the calls; every sample has one value per type. */
void pprof_add_sample_type(struct pprof *p, const char *type, const char *unit);
/* The type pprof shows first (default: the last sample type, as pprof does). */
void pprof_set_default_sample_type(struct pprof *p, const char *type);
/* The sampling period and its type ("cpu", "nanoseconds", 250000). */
void pprof_set_period(struct pprof *p, const char *type, const char *unit, int64_t period);
/* When the profile began (wall clock, ns since the epoch) and how long it lasted. */
void pprof_set_time(struct pprof *p, int64_t time_nanos, int64_t duration_nanos);
void pprof_add_comment(struct pprof *p, const char *text);

struct pprof_mapping {
	uint64_t start, limit, offset; /* the address range [start, limit) maps file offset offset */
	const char *file;              /* may be NULL */
	const char *build_id;          /* hex, may be NULL */
	bool has_functions, has_filenames, has_line_numbers, has_inline_frames;
};
/* The id of a mapping (the same fields give the same id). */
uint64_t pprof_mapping(struct pprof *p, const struct pprof_mapping *m);
/* The mapping of the program's own binary, which pprof expects first
 * (default: the first one made). */
void pprof_set_main_mapping(struct pprof *p, uint64_t mapping);

/* The id of a function: name as shown, system_name (mangled), source file,
 * first line; NULL strings are empty. */
uint64_t pprof_function(struct pprof *p, const char *name, const char *system_name,
			const char *file, int64_t start_line);

struct pprof_line {
	uint64_t function;             /* a pprof_function() id */
	int64_t line;                  /* 0 when unknown */
};
/* A new location: an address in a mapping (mapping 0: none), and its
 * lines, innermost (inlined) function first, the function they are inlined
 * into last. The caller keeps its own map from its addresses to ids. */
uint64_t pprof_location(struct pprof *p, uint64_t mapping, uint64_t address,
			const struct pprof_line *lines, size_t nr_lines);

struct pprof_label {
	const char *key;
	const char *str;               /* a string label, or NULL for a number */
	int64_t num;
	const char *num_unit;          /* NULL: none */
};
/* A sample: its stack (location ids, leaf first), one value per sample type,
 * and its labels. */
void pprof_add_sample(struct pprof *p, const uint64_t *locations, size_t nr_locations,
		      const int64_t *values, size_t nr_values,
		      const struct pprof_label *labels, size_t nr_labels);
size_t pprof_nr_sample_types(const struct pprof *p);

/* Write the gzipped profile to path (a temporary name, then renamed): 0, or
 * -1 + oc_err() naming the file. */
int pprof_write(struct pprof *p, const char *path);

#endif
