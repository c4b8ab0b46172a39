/* sampler-internal.h — /proc helpers of the software branch sampler. */
#ifndef OCREC_SAMPLER_INTERNAL_H
#define OCREC_SAMPLER_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "perfdata/perfdata.h"

/* The entry names of a directory (no . and ..), NULL-terminated; free with
 * strv_free. 0, or -1 + oc_err(). */
int list_dir_names(const char *path, char ***names, size_t *n);
/* Size of a file, 0 when it cannot be read. */
uint64_t file_size_of(const char *path);

#endif
