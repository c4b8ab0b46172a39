/* events.c — stat's counters from -e lists: perf stat's default set, perf's
 * generic names and every other name, all made by the events module. */
#include <stdlib.h>
#include <string.h>

#include "events/events.h"
#include "passthrough/passthrough.h"
#include "stat/stat.h"
#include "util/util.h"

/* perf stat's default events (perf 6.1 on a non-hybrid CPU without topdown) */
static const char *const default_events[] = {
	"task-clock", "context-switches", "cpu-migrations", "page-faults",
	"cycles", "instructions", "branches", "branch-misses", NULL,
};

/* One event of a -e list into counters of group (-1: alone). */
static int add_event(struct stat_session *s, const char *spec, int group, stat_tables_fn tables, void *arg)
{
	struct perf_event_attr attr;
	struct ev_resolved res;
	struct ev_context *ev;
	size_t i;

	int rc = ev_perf_generic_attr(spec, &attr);

	if (rc <= 0) {
		if (rc == 0)
			stat_add(s, spec, &attr, group);
		return rc;
	}
	if (!(ev = tables(arg)) || ev_resolve(ev, spec, &res) < 0)
		return -1;
	for (i = 0; i < res.nr_attrs; i++)
		stat_add(s, res.attrs[i].name ? res.attrs[i].name : spec, &res.attrs[i].attr, group);
	ev_resolved_free(&res);
	return 0;
}

int stat_add_events(struct stat_session *s, char *const *lists, size_t nr_lists, stat_tables_fn tables, void *arg)
{
	struct evlist l = { NULL, 0 };
	int next_group = 0, ret = 0;
	size_t i, g, e;

	if (nr_lists == 0) {
		for (i = 0; default_events[i]; i++)
			if (add_event(s, default_events[i], -1, tables, arg) < 0)
				return -1;
		return 0;
	}
	for (i = 0; i < nr_lists && ret == 0; i++)
		ret = evlist_parse(&l, lists[i]);
	for (g = 0; g < l.nr_groups && ret == 0; g++) {
		const struct evlist_group *grp = &l.groups[g];
		int group = grp->braced ? next_group++ : -1;
		for (e = 0; e < grp->nr_events && ret == 0; e++) {
			char *spec = evlist_spec(grp, e);
			ret = add_event(s, spec, group, tables, arg);
			free(spec);
		}
	}
	evlist_free(&l);
	return ret;
}
