/* suggest.c — "did you mean": the closest known names to an unknown one. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/ev-internal.h"
#include "events/pfm-glue.h"

#define NR_SUGGEST 3

struct best {
	const char *query;
	size_t qlen;
	char *name[NR_SUGGEST];
	size_t score[NR_SUGGEST];
};

/* Edit distance, but a name that contains the query (BR_INST_RETIRED for
 * BR_INST_RETIRED.ALL_BRANCHES) counts as close. */
static void consider(struct best *b, const char *cand)
{
	size_t score, i, j, clen = strlen(cand);

	if (clen > b->qlen + 40 || b->qlen > clen + 40)
		return;
	score = strcasestr(cand, b->query) ? (clen - b->qlen) / 8 + 1 : str_distance(b->query, cand) * 2;
	if (score > 2 * (b->qlen / 3 > 3 ? b->qlen / 3 : 3))
		return;
	for (i = 0; i < NR_SUGGEST; i++)
		if (b->name[i] && !strcasecmp(b->name[i], cand))
			return;
	for (i = 0; i < NR_SUGGEST; i++) {
		if (b->name[i] && b->score[i] <= score)
			continue;
		free(b->name[NR_SUGGEST - 1]);
		for (j = NR_SUGGEST - 1; j > i; j--) {
			b->name[j] = b->name[j - 1];
			b->score[j] = b->score[j - 1];
		}
		b->name[i] = xstrdup(cand);
		b->score[i] = score;
		return;
	}
}

static void consider_pfm(const char *pmu, const char *name, void *arg)
{
	(void)pmu;
	consider(arg, name);
}

void ev_suggest(struct ev_context *ctx, const char *spec, struct strbuf *out)
{
	static const char *const generic[] = {
		"cycles", "instructions", "branches", "branch-misses", "cache-references", "cache-misses",
		"ref-cycles", "bus-cycles", "cpu-clock", "task-clock", "page-faults", "context-switches",
		"cpu-migrations", "minor-faults", "major-faults", "branch-instructions", "cpu-cycles",
	};
	struct best b;
	char *query = xstrdup(spec), *colon = strchr(query, ':');
	size_t i, n = 0;
	uint32_t k;

	if (colon)
		*colon = 0;
	memset(&b, 0, sizeof(b));
	b.query = query;
	b.qlen = strlen(query);
	for (i = 0; i < ARRAY_SIZE(generic); i++)
		consider(&b, generic[i]);
	if (ctx->tables)
		for (i = 0; i < ctx->tables->nr; i++) {
			const struct ev_table *t = ctx->tables->t[i];
			for (k = 0; k < t->nr_sorted; k++)
				consider(&b, rec_str(t, t->recs[t->sorted[k]].name));
		}
	if (!ctx->tables || ctx->tables->origin == EV_ORIGIN_BUILTIN) {
		if (ev_pfm_ready(ctx, false))
			evpfm_foreach_name(consider_pfm, &b);
	}
	for (i = 0; i < NR_SUGGEST; i++) {
		if (!b.name[i])
			continue;
		sb_printf(out, "%s%s", n == 0 ? "; did you mean " : ", ", b.name[i]);
		n++;
		free(b.name[i]);
	}
	if (n)
		sb_putc(out, '?');
	free(query);
}
