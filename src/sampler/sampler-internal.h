/* sampler-internal.h — shared between the software branch sampler's files. */
#ifndef OCREC_SAMPLER_INTERNAL_H
#define OCREC_SAMPLER_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "perfdata/perfdata.h"

/* The entry names of a directory (no . and ..), NULL-terminated; free with
 * strv_free. 0, or -1 + oc_err(). */
int list_dir_names(const char *path, char ***names, size_t *n);
#define SWB_DEFAULT_FREQ 1000   /* -F without -c or -F */

#endif
