/* list.c — walk the events of the loaded tables (or libpfm4's) for list-events. */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/ev-internal.h"
#include "events/pfm-glue.h"

bool ev_pattern_match(const char *pattern, const char *name)
{
	if (!pattern || !*pattern)
		return true;
	if (strpbrk(pattern, "*?["))
		return fnmatch(pattern, name, FNM_CASEFOLD) == 0;
	return strcasestr(name, pattern) != NULL;
}

struct pfm_name {
	char *pmu, *name;
};

struct pfm_walk {
	const char *pattern;
	struct pfm_name *v;
	size_t n, cap;
};

static void collect_pfm_event(const char *pmu, const char *name, void *arg)
{
	struct pfm_walk *w = arg;

	if (!ev_pattern_match(w->pattern, name))
		return;
	GROW(w->v, w->cap, w->n + 1);
	w->v[w->n].pmu = xstrdup(pmu);
	w->v[w->n++].name = xstrdup(name);
}

static int cmp_pfm_name(const void *a, const void *b)
{
	const struct pfm_name *x = a, *y = b;
	int c = strcmp(x->pmu, y->pmu);
	return c ? c : strcasecmp(x->name, y->name);
}

/* libpfm4's events of the PMUs it found, sorted by PMU and name. */
static void list_pfm(struct ev_context *ctx, const char *pattern,
		     void (*fn)(const struct ev_list_entry *e, void *arg), void *arg)
{
	struct pfm_walk w = { pattern, NULL, 0, 0 };
	size_t i;

	if (!ev_pfm_ready(ctx, false))
		return;
	evpfm_foreach_name(collect_pfm_event, &w);
	if (w.n > 1)
		qsort(w.v, w.n, sizeof(*w.v), cmp_pfm_name);
	for (i = 0; i < w.n; i++) {
		struct ev_list_entry e;
		const char *desc = evpfm_event_desc(w.v[i].pmu, w.v[i].name);
		memset(&e, 0, sizeof(e));
		e.name = w.v[i].name;
		e.pmu = w.v[i].pmu;
		e.desc = desc ? desc : "";
		e.brief = "";
		e.counter = "";
		e.from_libpfm = true;
		fn(&e, arg);
		free(w.v[i].pmu);
		free(w.v[i].name);
	}
	free(w.v);
}

int ev_core_table_count(struct ev_context *ctx)
{
	size_t i;
	int n = 0;

	if (ev_tables_load(ctx) < 0 || !ctx->tables)
		return 0;
	for (i = 0; i < ctx->tables->nr; i++)
		n += strcmp(ctx->tables->t[i]->pmu, "uncore") != 0;
	return n;
}

int ev_list(struct ev_context *ctx, const char *pattern,
	    void (*fn)(const struct ev_list_entry *e, void *arg), void *arg)
{
	struct strbuf desc = STRBUF_INIT;
	char uncore_pmu[80];
	size_t i;
	uint32_t k;

	if (ev_tables_load(ctx) < 0)
		return -1;
	if (!ctx->tables) {
		list_pfm(ctx, pattern, fn, arg);
		return 0;
	}
	for (i = 0; i < ctx->tables->nr; i++) {
		const struct ev_table *t = ctx->tables->t[i];
		for (k = 0; k < t->nr_sorted; k++) {
			const struct ev_rec *r = &t->recs[t->sorted[k]];
			struct ev_list_entry e;
			const char *name = rec_str(t, r->name);
			if (!ev_pattern_match(pattern, name))
				continue;
			memset(&e, 0, sizeof(e));
			sb_reset(&desc);
			sb_puts(&desc, rec_str(t, r->desc));
			if (r->errata)
				sb_printf(&desc, " Errata: %s", rec_str(t, r->errata));
			e.name = name;
			e.pmu = r->flags & REC_UNCORE ? NULL : t->pmu;
			if (r->flags & REC_UNCORE) {
				e.unit = rec_str(t, r->unit);
				ev_uncore_pmu(ctx, e.unit, uncore_pmu, sizeof(uncore_pmu));
				e.uncore_pmu = uncore_pmu;
			}
			e.desc = sb_str(&desc);
			e.brief = rec_str(t, r->brief);
			e.counter = rec_str(t, r->counter);
			e.errata = r->errata ? rec_str(t, r->errata) : NULL;
			e.deprecated = (r->flags & REC_DEPRECATED) != 0;
			e.event_code = r->code;
			e.event_code2 = r->code2;
			e.umask = r->umask;
			e.cmask = r->cmask;
			e.inv = r->inv;
			e.edge = r->edge;
			e.any = r->any;
			e.msr_index = r->flags & REC_HAS_MSR ? r->msr_index : 0;
			e.msr_value = r->flags & REC_HAS_MSR ? r->msr_value : 0;
			e.period = r->period;
			e.pebs = r->pebs;
			e.precise = r->precise;
			fn(&e, arg);
		}
	}
	sb_free(&desc);
	return 0;
}
