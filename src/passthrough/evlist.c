/* Splitting and rebuilding perf -e lists. */
#include <stdlib.h>
#include <string.h>

#include "passthrough/passthrough.h"
#include "util/util.h"

/* Length of the event at s: up to a comma or '}' outside pmu/terms/; -1 for an unclosed '/'. */
static long event_len(const char *s)
{
	const char *p = s;
	bool in_terms = false;

	for (; *p; p++) {
		/* perf's pmu/terms/ has exactly two slashes; commas between them are terms */
		if (*p == '/')
			in_terms = !in_terms;
		else if (!in_terms && (*p == ',' || *p == '}'))
			break;
	}
	return in_terms ? -1 : (long)(p - s);
}

static void group_add(struct evlist_group *g, const char *s, size_t len)
{
	g->events = xrealloc(g->events, (g->nr_events + 2) * sizeof(*g->events));
	g->events[g->nr_events++] = xstrndup(s, len);
	g->events[g->nr_events] = NULL;
}

static struct evlist_group *new_group(struct evlist *l)
{
	struct evlist_group *g;
	l->groups = xrealloc(l->groups, (l->nr_groups + 1) * sizeof(*l->groups));
	g = &l->groups[l->nr_groups++];
	memset(g, 0, sizeof(*g));
	return g;
}

int evlist_parse(struct evlist *l, const char *spec)
{
	const char *p = spec;

	while (*p) {
		struct evlist_group *g;
		long len;

		if (*p == ',') {
			p++;
			continue;
		}
		g = new_group(l);
		if (*p == '{') {
			g->braced = true;
			p++;
			for (;;) {
				len = event_len(p);
				if (len < 0)
					return oc_err("event list '%s': unclosed '/' in '%s'", spec, p);
				if (len == 0)
					return oc_err("event list '%s': empty event in a {group}", spec);
				group_add(g, p, (size_t)len);
				p += len;
				if (*p == '}')
					break;
				if (*p != ',')
					return oc_err("event list '%s': '{' without '}'", spec);
				p++;
			}
			p++;   /* past '}' */
			if (*p == ':') {
				len = event_len(++p);
				if (len <= 0)
					return oc_err("event list '%s': empty modifier after '}:'", spec);
				g->modifier = xstrndup(p, (size_t)len);
				p += len;
			}
			if (*p && *p != ',')
				return oc_err("event list '%s': unexpected '%c' after a group", spec, *p);
			continue;
		}
		len = event_len(p);
		if (len < 0)
			return oc_err("event list '%s': unclosed '/' in '%s'", spec, p);
		if (p[len] == '}')
			return oc_err("event list '%s': '}' without '{'", spec);
		group_add(g, p, (size_t)len);
		p += len;
	}
	/* an empty list or one made only of commas names nothing */
	if (l->nr_groups == 0)
		return oc_err("empty event list '%s'", spec);
	return 0;
}

char *evlist_format(const struct evlist *l)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, j;

	for (i = 0; i < l->nr_groups; i++) {
		const struct evlist_group *g = &l->groups[i];
		if (i)
			sb_putc(&sb, ',');
		if (g->braced)
			sb_putc(&sb, '{');
		for (j = 0; j < g->nr_events; j++) {
			if (j)
				sb_putc(&sb, ',');
			sb_puts(&sb, g->events[j]);
		}
		if (g->braced)
			sb_putc(&sb, '}');
		if (g->modifier) {
			sb_putc(&sb, ':');
			sb_puts(&sb, g->modifier);
		}
	}
	return sb_detach(&sb);
}

void evlist_free(struct evlist *l)
{
	size_t i;
	for (i = 0; i < l->nr_groups; i++) {
		strv_free(l->groups[i].events);
		free(l->groups[i].modifier);
	}
	free(l->groups);
	memset(l, 0, sizeof(*l));
}

char *evlist_spec(const struct evlist_group *g, size_t i)
{
	return g->modifier ? xasprintf("%s:%s", g->events[i], g->modifier) : xstrdup(g->events[i]);
}

int evlist_split(char *const *lists, size_t nr_lists, char ***out, size_t *nr)
{
	struct evlist l = { NULL, 0 };
	size_t i, g, e, cap = 0;
	char **evs = NULL;
	int rc = 0;

	*nr = 0;
	for (i = 0; i < nr_lists && rc == 0; i++)
		rc = evlist_parse(&l, lists[i]);
	for (g = 0; g < l.nr_groups && rc == 0; g++) {
		for (e = 0; e < l.groups[g].nr_events; e++) {
			GROW(evs, cap, *nr + 2);
			evs[(*nr)++] = evlist_spec(&l.groups[g], e);
		}
	}
	evlist_free(&l);
	if (rc < 0) {
		for (i = 0; i < *nr; i++)
			free(evs[i]);
		free(evs);
		return -1;
	}
	GROW(evs, cap, *nr + 1);
	evs[*nr] = NULL;
	*out = evs;
	return 0;
}
