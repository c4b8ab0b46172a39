/* passthrough.h — perf's -e syntax and ocperf.py's job.
 *  - perf's -e lists: a comma list of events and {a,b}:mods groups, where
 *    commas inside pmu/term,term/ do not separate events (stat, record and
 *    `ocrec perf` split them here);
 *  - `ocrec perf`: rewrite the -e/--event values of a perf command line that
 *    perf would not know, leave everything else as is. */
#ifndef OCREC_PASSTHROUGH_H
#define OCREC_PASSTHROUGH_H

#include <stdbool.h>
#include <stddef.h>

/* --- -e lists --- */

struct evlist_group {
	char **events;      /* NULL-terminated */
	size_t nr_events;
	bool braced;        /* written as {a,b} */
	char *modifier;     /* text after "}:" (without the colon), or NULL */
};

struct evlist {
	struct evlist_group *groups;
	size_t nr_groups;
};

/* Parse one -e value (it may be appended to an existing list); 0, or -1 +
 * oc_err() for unbalanced braces or slashes and empty events. */
int evlist_parse(struct evlist *l, const char *spec);
/* Back to perf's syntax. Caller frees. */
char *evlist_format(const struct evlist *l);
void evlist_free(struct evlist *l);
/* Event i of a group as one name, with the group's modifier (perf applies it
 * to each): "cycles:u" for {cycles,instructions}:u. Caller frees. */
char *evlist_spec(const struct evlist_group *g, size_t i);
/* -e values into single event names, groups flattened (a recording opens
 * them one by one): a NULL-terminated array (*nr names) to free with
 * strv_free. 0, or -1 + oc_err(). */
int evlist_split(char *const *lists, size_t nr_lists, char ***out, size_t *nr);

/* --- rewriting perf command lines --- */

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
