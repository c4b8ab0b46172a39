/* command.c — `ocrec record` with the software branch sampler, asked for
 * (--branch-sampler=software) or taking over where the PMU gives no branch
 * stacks: the command's checks and notices, and its output file kept as .old. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampler/sampler-internal.h"
#include "sampler/sampler.h"
#include "util/util.h"

/* The -j bits the software branch sampler honours: it records every taken
 * user-space branch, with its type. */
#define SAMPLER_BRANCH_FILTERS (PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_TYPE_SAVE)

int sampler_record(const struct record_opts *o, struct record_stats *st, bool automatic)
{
	const char *output = o->output ? o->output : "perf.data";
	bool kept = file_exists(output);
	int rc;

	memset(st, 0, sizeof(*st));
	if (o->branch_filter & ~SAMPLER_BRANCH_FILTERS)
		return oc_err("-j: %sthe software branch sampler records every user-space branch (-b, -j any,u, "
			      "save_type); other filters need hardware branch stacks (LBR)",
			      automatic ? "no hardware branch stacks here, and " : "");
	if (automatic) {
		if (o->period)
			oc_warn("-b: no hardware branch stacks here: branch stacks emulated by the software sampler "
				"(every %llu ns of %s)", (unsigned long long)o->period,
				o->nr_events ? o->events[0] : "task-clock");
		else
			oc_warn("-b: no hardware branch stacks here: branch stacks emulated by the software sampler "
				"(%llu Hz)", (unsigned long long)(o->freq ? o->freq : SWB_DEFAULT_FREQ));
	}
	/* the sampler writes the file itself: an old one goes aside first, and
	 * comes back when the sampler failed before writing */
	if (output_keep_old(output) < 0)
		return -1;
	rc = swbranch_record(o, st);
	if (rc < 0 && kept && !file_exists(output)) {
		char *old = xasprintf("%s.old", output);

		rename(old, output);
		free(old);
	}
	return rc;
}
