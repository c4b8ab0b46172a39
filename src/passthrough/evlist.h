/* evlist.h — perf's -e syntax: a comma list of events and {a,b}:mods groups,
 * where commas inside pmu/term,term/ do not separate events. Shared by
 * `ocrec stat` and `ocrec perf`. */
#ifndef OCREC_PASSTHROUGH_EVLIST_H
#define OCREC_PASSTHROUGH_EVLIST_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
