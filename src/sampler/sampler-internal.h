/* sampler-internal.h — shared between the software branch sampler's files. */
#ifndef OCREC_SAMPLER_INTERNAL_H
#define OCREC_SAMPLER_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "perfdata/perfdata.h"

#define SWB_DEFAULT_FREQ 1000   /* -F without -c or -F */

#endif
