/* rewrite.h — ocperf.py's job for `ocrec perf`: rewrite the -e/--event values of
 * a perf command line that perf would not know, leave everything else as is. */
#ifndef OCREC_PASSTHROUGH_REWRITE_H
#define OCREC_PASSTHROUGH_REWRITE_H

#include <stdbool.h>

/* Does perf itself know this single event? Generic and cache names, raw rNNN,
 * pmu/terms/, mem: breakpoints and subsystem:tracepoint are perf's own. */
bool perf_knows_event(const char *event);

/* Resolve one event (without group braces) into perf syntax; a fresh string,
 * or NULL to leave it unchanged (perf will say what is wrong with it). */
typedef char *(*pt_resolve_fn)(const char *event, void *arg);

/* Rewrite one -e value: each event perf does not know goes through resolve;
 * commas, {groups} and :modifiers are kept. NULL + oc_err() for a value perf's
 * syntax cannot parse (unbalanced braces). Caller frees. */
char *perf_rewrite_event_list(const char *list, pt_resolve_fn resolve, void *arg);

/* Rewrite a perf command line: args[0] is the perf subcommand (perf's global
 * options may come first). -e/--event values are rewritten up to the workload
 * (the first non-option of record/stat/top/trace) or "--"; everything else is
 * copied. Returns a NULL-terminated array of fresh strings (free with strv_free),
 * or NULL + oc_err(). */
char **perf_rewrite_args(char **args, pt_resolve_fn resolve, void *arg);

#endif
