/* stat's default event set, and perf's generic names with perf's u/k/h/G/H
 * modifiers (the names themselves are the events module's). */
#include <stdlib.h>
#include <string.h>

#include "events/events.h"
#include "stat/stat.h"
#include "util/util.h"

/* perf stat's default events (perf 6.1 on a non-hybrid CPU without topdown) */
const char *const stat_default_events[] = {
	"task-clock", "context-switches", "cpu-migrations", "page-faults",
	"cycles", "instructions", "branches", "branch-misses", NULL,
};

/* perf's u/k/h/G/H modifiers: the first one of u, k, h excludes the others. */
static int apply_modifiers(const char *mods, struct perf_event_attr *attr)
{
	bool u = false, k = false, h = false;
	const char *p;

	for (p = mods; *p; p++) {
		switch (*p) {
		case 'u': u = true; break;
		case 'k': k = true; break;
		case 'h': h = true; break;
		case 'G': attr->exclude_host = 1; break;
		case 'H': attr->exclude_guest = 1; break;
		default: return -1;
		}
	}
	if (u || k || h) {
		attr->exclude_user = !u;
		attr->exclude_kernel = !k;
		attr->exclude_hv = !h;
	}
	return 0;
}

int stat_generic_event(const char *spec, struct perf_event_attr *attr)
{
	const char *colon = strchr(spec, ':');
	char *name = colon ? xstrndup(spec, (size_t)(colon - spec)) : xstrdup(spec);
	uint32_t type;
	uint64_t config;
	const char *canon = ev_generic_event(name, &type, &config);
	/* perf's own command line spells them exactly (perf knows cycles, not CYCLES) */
	bool exact = canon && strcmp(canon, name) == 0;

	free(name);
	if (!exact)
		return -1;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
	return colon ? apply_modifiers(colon + 1, attr) : 0;
}
