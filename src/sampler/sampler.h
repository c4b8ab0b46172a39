/* sampler.h — software branch sampling for machines without LBR: a timer
 * samples the workload and, at each sample, ptrace collects the next N taken
 * branches it really executes; each window becomes an ordinary
 * PERF_SAMPLE_BRANCH_STACK sample in perf.data. */
#ifndef OCREC_SAMPLER_H
#define OCREC_SAMPLER_H

#include "record/record.h"

/* Run opts->argv (or attach to opts->pid) under the software branch sampler and
 * write opts->output. Same contract as record_run(). */
int swbranch_record(const struct record_opts *opts, struct record_stats *st);

#endif
