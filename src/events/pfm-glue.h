/* pfm-glue.h — the calls into libpfm4, kept apart because libpfm4's
 * perfmon/perf_event.h and the kernel's linux/perf_event.h cannot be
 * included together. The attr is passed as bytes (the kernel ABI layout). */
#ifndef OCREC_EV_PFM_GLUE_H
#define OCREC_EV_PFM_GLUE_H

#include <stddef.h>

/* Initialise libpfm4 once per process (counted); 0 when it is usable. */
int evpfm_acquire(void);
void evpfm_release(void);
/* Encode spec for perf_event_open into attr (attr_size bytes, zeroed first).
 * 0 found (*fstr: libpfm4's full name, *desc: its description; caller frees),
 * 1 libpfm4 does not know the name, -1 with *err set to libpfm4's message. */
int evpfm_encode(const char *spec, void *attr, size_t attr_size, char **fstr, char **desc,
		 const char **err);

/* Every event of the PMUs libpfm4 found present (after evpfm_acquire()). */
void evpfm_foreach_name(void (*fn)(const char *pmu, const char *name, void *arg), void *arg);
/* The name of the core PMU libpfm4 found for this CPU (or LIBPFM_FORCE_PMU's); NULL when
 * none: its CPU tables do not know this CPU (after evpfm_acquire()). */
const char *evpfm_core_pmu(void);
/* libpfm4's description of PMU::NAME; NULL when unknown. */
const char *evpfm_event_desc(const char *pmu, const char *name);

#endif
