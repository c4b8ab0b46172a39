/* ocperf.c — turn a table event plus modifiers into the perf event string
 * `ocperf.py --print stat|record -e NAME` prints, following its algorithm
 * (extra_set / merge_extra / convert_extra / output_newstyle of pmu-tools'
 * ocperf.py) so that the strings are identical, except for the deliberate
 * differences docs/events.md lists (they are marked "ocrec:" below). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/ev-internal.h"

/* pmudef.py */
#define EVENTSEL_EDGE  (1ULL << 18)
#define EVENTSEL_PC    (1ULL << 19)
#define EVENTSEL_ANY   (1ULL << 21)
#define EVENTSEL_INV   (1ULL << 23)
#define EVENTSEL_CMASK 0xff000000ULL
#define EVENTSEL_UMASK2 (0xffULL << 40)
#define EVMASK (0xffffULL | EVENTSEL_EDGE | EVENTSEL_PC | EVENTSEL_ANY | EVENTSEL_INV | \
		EVENTSEL_CMASK | EVENTSEL_UMASK2)

/* --- ocperf's modifier grammar ------------------------------------------ */

/* (0x[0-9a-fA-F]+|[0-9]+): length of the match at s, 0 when none */
static size_t match_number(const char *s)
{
	size_t n = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
		n = 2;
		while (isxdigit((unsigned char)s[n]))
			n++;
		return n;
	}
	while (isdigit((unsigned char)s[n]))
		n++;
	return n;
}

static size_t match_digits(const char *s)
{
	size_t n = 0;
	while (isdigit((unsigned char)s[n]))
		n++;
	return n;
}

static size_t match_hex0x(const char *s)
{
	size_t n = 2;
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !isxdigit((unsigned char)s[2]))
		return 0;
	while (isxdigit((unsigned char)s[n]))
		n++;
	return n;
}

/* PREFIX then NUMBER (kind 'n'), digits ('d') or 0xHEX ('x') */
static size_t match_prefixed(const char *s, const char *prefix, char kind)
{
	size_t pl = strlen(prefix), n;
	if (strncmp(s, prefix, pl) != 0)
		return 0;
	n = kind == 'n' ? match_number(s + pl) : kind == 'd' ? match_digits(s + pl) : match_hex0x(s + pl);
	return n ? pl + n : 0;
}

/* PREFIX, optionally OPT, then a number: Python's backtracking over (?:OPT)?.
 * *num (when not NULL) gets where the number starts. */
static size_t match_opt(const char *s, const char *prefix, const char *opt, const char **num)
{
	size_t pl = strlen(prefix), ol = strlen(opt), n;
	if (strncmp(s, prefix, pl) != 0)
		return 0;
	if (!strncmp(s + pl, opt, ol) && (n = match_number(s + pl + ol))) {
		if (num)
			*num = s + pl + ol;
		return pl + ol + n;
	}
	n = match_number(s + pl);
	if (n && num)
		*num = s + pl;
	return n ? pl + n : 0;
}

static const char *const qual_words[] = {
	"amt1", "percore", "perf_metrics", "i1", "e1", "e0", "tx", "sup", "usr=yes", "usr=no",
	"os=yes", "os=no", "anythr=yes", "anythr=no", "pdir", "precise=yes", "cp",
};

static size_t match_qualval(const char *s)
{
	size_t n;
	if ((n = match_prefixed(s, "event_select=", 'n')) || (n = match_prefixed(s, "u", 'n')) ||
	    (n = match_opt(s, "c", "mask=", NULL)) || (n = match_opt(s, "e", "dge=", NULL)) ||
	    (n = match_prefixed(s, "ocr_msr_val=", 'n')) || (n = match_prefixed(s, "sa=", 'n')) ||
	    (n = match_prefixed(s, "sample-after=", 'n')) || (n = match_prefixed(s, "period=", 'n')))
		return n;
	return 0;
}

static size_t match_uncore(const char *s)
{
	size_t n;
	if ((s[0] == 'e' && isdigit((unsigned char)s[1]) && (n = 2)) ||
	    (n = match_prefixed(s, "t=", 'd')) || (n = match_prefixed(s, "match=", 'x')) ||
	    (n = match_prefixed(s, "filter1=", 'x')) || (n = match_prefixed(s, "nc=", 'd')) ||
	    (n = match_prefixed(s, "filter=", 'x')) || (!strncmp(s, "one_unit", 8) && (n = 8)) ||
	    (n = match_prefixed(s, "u", 'n')) || (n = match_opt(s, "opc", "=", NULL)) ||
	    (n = match_opt(s, "tid", "=", NULL)) || (n = match_opt(s, "state", "=", NULL)))
		return n;
	return 0;
}

/* One token of extra_set() at s: the alternatives in ocperf's order. */
static size_t match_token(const char *s)
{
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(qual_words); i++)
		if (!strncmp(s, qual_words[i], strlen(qual_words[i])))
			return strlen(qual_words[i]);
	if ((n = match_qualval(s)) || (n = match_uncore(s)))
		return n;
	if (*s && strchr("kuhGHSD", *s))
		return 1;
	for (n = 0; s[n] == 'p'; n++)
		;
	return n;
}

struct tokset {
	char **v;
	size_t n, cap;
};

static bool tokset_has(const struct tokset *t, const char *s)
{
	size_t i;
	for (i = 0; i < t->n; i++)
		if (!strcmp(t->v[i], s))
			return true;
	return false;
}

static void tokset_add(struct tokset *t, const char *s, size_t len)
{
	char *tok = xstrndup(s, len);
	if (tokset_has(t, tok)) {
		free(tok);
		return;
	}
	GROW(t->v, t->cap, t->n + 1);
	t->v[t->n++] = tok;
}

static void tokset_del(struct tokset *t, const char *s)
{
	size_t i;
	for (i = 0; i < t->n; i++)
		if (!strcmp(t->v[i], s)) {
			free(t->v[i]);
			t->v[i] = t->v[--t->n];
			return;
		}
}

static void tokset_free(struct tokset *t)
{
	size_t i;
	for (i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* extra_set(): re.findall over the string, unmatched characters skipped */
static void extra_set(const char *s, struct tokset *out)
{
	while (*s) {
		size_t n = match_token(s);
		if (n) {
			tokset_add(out, s, n);
			s += n;
		} else
			s++;
	}
}

/* merge_extra(a, b) into a */
static void merge_extra(struct tokset *a, const struct tokset *b)
{
	size_t i;
	for (i = 0; i < b->n; i++)
		tokset_add(a, b->v[i], strlen(b->v[i]));
	if (tokset_has(a, "ppp")) {
		tokset_del(a, "p");
		tokset_del(a, "pp");
	}
	if (tokset_has(a, "pp"))
		tokset_del(a, "p");
}

/* "".join(sorted(set)) */
static char *tokset_join(struct tokset *t)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	strv_sort(t->v, t->n);
	for (i = 0; i < t->n; i++)
		sb_puts(&sb, t->v[i]);
	return sb.buf ? sb_detach(&sb) : xstrdup("");
}


static char *str_replace_all(const char *s, const char *from, const char *to)
{
	struct strbuf sb = STRBUF_INIT;
	size_t fl = strlen(from);
	const char *p;

	while ((p = strstr(s, from))) {
		sb_add(&sb, s, (size_t)(p - s));
		sb_puts(&sb, to);
		s = p + fl;
	}
	sb_puts(&sb, s);
	return sb_detach(&sb);
}

/* ocperf joins a list that may hold empty terms (from :sup ...), which can
 * give ",," that perf rejects; ocrec leaves them out. */
static void term_add(struct strbuf *sb, bool *any, const char *term)
{
	if (!*term)
		return;
	if (*any)
		sb_putc(sb, ',');
	sb_puts(sb, term);
	*any = true;
}

/* convert_extra(): the terms (newe, joined by commas as ocperf joins its list)
 * and the perf flags (nextra) of a token string. (ocperf also ORs the bits into
 * a raw config for old kernels; ocrec builds the attr from the terms instead.) */
static void convert_extra(const char *s, struct strbuf *newe, bool *newe_any, struct strbuf *nextra)
{
	static const struct { const char *word, *term, *flags; } qual_map[] = {
		{ "amt1", "any=1", "" }, { "percore", "percore=1", "" }, { "perf_metrics", "", "" },
		{ "i1", "inv=1", "" }, { "e1", "edge=1", "" }, { "e0", "edge=0", "" }, { "tx", "in_tx=1", "" },
		{ "sup", "", "k" }, { "usr=yes", "", "u" }, { "usr=no", "", "k" }, { "os=yes", "", "k" },
		{ "os=no", "", "u" }, { "anythr=yes", "any=1", "" }, { "anythr=no", "any=0", "" },
		{ "pdir", "", "ppp" }, { "precise=yes", "", "pp" }, { "cp", "in_tx_cp=1", "" },
	};
	char tbuf[64];
	const char *num;
	size_t i, n;

	while (*s) {
		if (*s == ':') {
			s++;
			continue;
		}
		tbuf[0] = 0;
		if ((n = match_prefixed(s, "event_select=", 'n')))
			snprintf(tbuf, sizeof(tbuf), "event=0x%llx", strtoull(s + 13, NULL, 0));
		else if ((n = match_prefixed(s, "u", 'n')))
			snprintf(tbuf, sizeof(tbuf), "umask=0x%llx", strtoull(s + 1, NULL, 0));
		else if ((n = match_opt(s, "c", "mask=", &num)))
			snprintf(tbuf, sizeof(tbuf), "cmask=%llu", strtoull(num, NULL, 0));
		else if ((n = match_opt(s, "e", "dge=", &num)))
			snprintf(tbuf, sizeof(tbuf), "edge=%llu", strtoull(num, NULL, 0));
		else if ((n = match_prefixed(s, "ocr_msr_val=", 'n')))
			snprintf(tbuf, sizeof(tbuf), "config1=0x%llx", strtoull(s + 12, NULL, 0));
		else if ((n = match_prefixed(s, "sa=", 'n')) || (n = match_prefixed(s, "sample-after=", 'n')) ||
			 (n = match_prefixed(s, "period=", 'n')))
			snprintf(tbuf, sizeof(tbuf), "period=%llu", strtoull(strchr(s, '=') + 1, NULL, 0));
		if (n) {
			term_add(newe, newe_any, tbuf);
			s += n;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(qual_map); i++)
			if (!strncmp(s, qual_map[i].word, strlen(qual_map[i].word)))
				break;
		if (i < ARRAY_SIZE(qual_map)) {
			term_add(newe, newe_any, qual_map[i].term);
			sb_puts(nextra, qual_map[i].flags);
			s += strlen(qual_map[i].word);
			continue;
		}
		if (!strchr("kuhGHSDp", *s))
			break;   /* ocperf: "bad event qualifier"; ocrec rejected it earlier */
		sb_putc(nextra, *s++);
	}
}

/* --- a core event as ocperf's read_table() builds it ---------------------- */

struct core_event {
	uint64_t val;
	char *extra;            /* ocperf's Event.extra: perf flags and modifier tokens */
	struct strbuf newextra; /* ",offcore_rsp=0x...,cmask=1" */
};

static const struct fixed_counter {
	const char *name;
	uint64_t code, umask, any;
} fixed_counters[] = {
	{ "inst_retired.any", 0xc0, 0, 0 },
	{ "cpu_clk_unhalted.thread", 0x3c, 0, 0 },
	{ "cpu_clk_unhalted.thread_any", 0x3c, 0, 1 },
	/* ocrec: ocperf gives .CORE any=1 (AnyThread), wrong for Goldmont/Tremont */
	{ "cpu_clk_unhalted.core", 0x3c, 0, 0 },
};

static void core_event_init(const struct ev_table *t, const struct ev_rec *r, struct core_event *ce)
{
	static const struct { uint64_t flag; const char *name; int shift; } extra_flags[] = {
		{ EVENTSEL_EDGE, "edge", 18 }, { EVENTSEL_PC, "pc", 19 }, { EVENTSEL_ANY, "any", 21 },
		{ EVENTSEL_INV, "inv", 23 }, { EVENTSEL_CMASK, "cmask", 24 },
	};
	const char *name = rec_str(t, r->name), *counter = rec_str(t, r->counter);
	uint64_t code = r->code, umask = r->umask, anyf = 0, other;
	struct strbuf extra = STRBUF_INIT;
	size_t i;

	memset(ce, 0, sizeof(*ce));
	for (i = 0; i < ARRAY_SIZE(fixed_counters); i++)
		if (!strcasecmp(name, fixed_counters[i].name)) {
			code = fixed_counters[i].code;
			umask = fixed_counters[i].umask;
			anyf = fixed_counters[i].any;
		}
	other = r->other << 16 | (uint64_t)r->edge << 18 | (uint64_t)r->cmask << 24 | (uint64_t)r->inv << 23;
	if (r->flags & REC_HAS_ANY)
		other |= ((uint64_t)r->any | anyf) << 21;
	/* event codes above 0xff (AMD's) go in the event term, not into the umask */
	ce->val = ((code & 0xff) | umask << 8 | other) & EVMASK;
	if (other & (1 << 16))
		sb_putc(&extra, 'u');
	if (other & (1 << 17))
		sb_putc(&extra, 'k');
	if (r->collect_pebs > 1 || r->pebs >= 2) {
		sb_puts(&extra, "pp");
		if (*counter && !strchr(counter, ','))
			sb_putc(&extra, 'p');   /* one counter: the PDIR/PDIST one */
	}
	ce->extra = extra.buf ? sb_detach(&extra) : xstrdup("");
	if (r->flags & REC_HAS_MSR) {
		if (r->msr_index == 0x1a6 || r->msr_index == 0x1a7)
			sb_printf(&ce->newextra, ",offcore_rsp=0x%llx", (unsigned long long)r->msr_value);
		else if (r->msr_index == 0x3f6)
			sb_printf(&ce->newextra, ",ldlat=0x%llx", (unsigned long long)r->msr_value);
		else if (r->msr_index == 0x3f7)
			sb_printf(&ce->newextra, ",frontend=0x%llx", (unsigned long long)r->msr_value);
	}
	if (r->flags & REC_MATRIX)
		return;   /* ocperf replaces the copied event's terms with offcore_rsp alone */
	for (i = 0; i < ARRAY_SIZE(extra_flags); i++)
		if (ce->val & extra_flags[i].flag)
			sb_printf(&ce->newextra, ",%s=%llu", extra_flags[i].name,
				  (unsigned long long)((ce->val & extra_flags[i].flag) >> extra_flags[i].shift));
}

static void core_event_free(struct core_event *ce)
{
	free(ce->extra);
	sb_free(&ce->newextra);
}

/* ocrec: a term the user gives replaces the event's own (ocperf repeats it) */
static void drop_overridden_terms(struct strbuf *newextra, const char *newe)
{
	static const char *const keys[] = { "cmask=", "edge=", "inv=", "any=" };
	size_t k;

	for (k = 0; k < ARRAY_SIZE(keys); k++) {
		char *key = xasprintf(",%s", keys[k]), *p, *end;
		bool user_has = !strncmp(newe, keys[k], strlen(keys[k])) || strstr(newe, key);
		if (user_has && (p = strstr(sb_str(newextra), key))) {
			end = strchr(p + 1, ',');
			memmove(p, end ? end : p + strlen(p), strlen(end ? end : p + strlen(p)) + 1);
			newextra->len = strlen(newextra->buf);
		}
		free(key);
	}
}

static char *gen_name(const char *name, bool sup)
{
	char *n = xasprintf("%s%s", name, sup ? "_k" : ""), *p;
	for (p = n; *p; p++) {
		if (*p == '.' || *p == ':' || *p == '=')
			*p = '_';
		else
			*p = (char)tolower((unsigned char)*p);
	}
	return n;
}

/* The level of precision a token set asks for (p, pp, ppp). */
static int precise_level(const struct tokset *t)
{
	size_t i;
	int lvl = 0;
	for (i = 0; i < t->n; i++)
		if (t->v[i][0] == 'p' && strspn(t->v[i], "p") == strlen(t->v[i]) && (int)strlen(t->v[i]) > lvl)
			lvl = (int)strlen(t->v[i]);
	return lvl;
}

/* Event.output() for one core PMU: "pmu/event=...,name=.../flags". */
static char *core_output(struct ev_context *ctx, const char *pmu, const struct ev_table *t,
			 const struct ev_rec *r, const char *display, const char *user_extra)
{
	struct core_event ce;
	struct tokset evt = { 0 }, user = { 0 }, fin = { 0 };
	struct strbuf newe = STRBUF_INIT, nextra = STRBUF_INIT, e = STRBUF_INIT;
	bool newe_any = false, sup;
	char *joined, *colon_joined, *name, *uextra, *out;

	core_event_init(t, r, &ce);
	/* getevent(): merge the user's modifiers into Event.extra */
	uextra = str_replace_all(user_extra, "period=", "sample-after=");
	extra_set(uextra, &user);
	free(uextra);
	extra_set(ce.extra, &evt);
	if (user.n) {
		struct tokset merged = { 0 };
		size_t i;
		for (i = 0; i < evt.n; i++)
			tokset_add(&merged, evt.v[i], strlen(evt.v[i]));
		merge_extra(&merged, &user);
		/* ocperf takes the merge only when it is a strict superset, so an
		 * explicit :ppp on a pp event is dropped; ocrec: a higher precision wins */
		if (merged.n != evt.n || precise_level(&user) > precise_level(&evt)) {
			free(ce.extra);
			ce.extra = tokset_join(&merged);
		}
		tokset_free(&merged);
	}
	/* output(): the flags and terms of the merged extra */
	extra_set(ce.extra, &fin);
	merge_extra(&fin, &(struct tokset){ 0 });
	joined = tokset_join(&fin);
	colon_joined = xasprintf(":%s", joined);
	convert_extra(colon_joined, &newe, &newe_any, &nextra);
	/* output_newstyle() */
	if (newe_any)
		drop_overridden_terms(&ce.newextra, sb_str(&newe));
	if (r->pname)
		sb_puts(&e, rec_str(t, r->pname));
	else
		sb_printf(&e, "event=0x%llx,umask=0x%llx", (unsigned long long)((ce.val & 0xff) | (r->code & ~0xffULL)),
			  (unsigned long long)(((ce.val >> 8) & 0xff) | (((ce.val >> 40) & 0xff) << 8)));
	sb_puts(&e, sb_str(&ce.newextra));
	if (r->terms)
		sb_printf(&e, ",%s", rec_str(t, r->terms));
	if (newe_any) {
		sb_putc(&e, ',');
		sb_puts(&e, sb_str(&newe));
	}
	/* ocperf looks for "sup" in the extra and the terms; only the extra can hold it */
	sup = strstr(ce.extra, "sup") != NULL;
	name = gen_name(display, sup);
	sb_printf(&e, ",name=%s", name);
	free(name);
	if (ctx->record_mode && r->period && !strstr(sb_str(&e), ",period="))
		sb_printf(&e, ",period=%llu", (unsigned long long)r->period);
	out = xasprintf("%s/%s/%s", pmu, sb_str(&e), sb_str(&nextra));
	free(joined);
	free(colon_joined);
	sb_free(&newe);
	sb_free(&nextra);
	sb_free(&e);
	tokset_free(&evt);
	tokset_free(&user);
	tokset_free(&fin);
	core_event_free(&ce);
	return out;
}

/* --- uncore events (ocperf's UncoreEvent) -------------------------------- */

static const char *const uncore_unit_map[][2] = {
	{ "imph-u", "arb" }, { "kti ll", "upi" }, { "m3kti", "m3upi" }, { "upi ll", "upi" },
	{ "cbo", "cbox" }, { "qpi_ll", "qpi" }, { "sbo", "sbox" },
};

static bool box_exists(struct ev_context *ctx, const char *pmu, int box);

void ev_uncore_pmu(struct ev_context *ctx, const char *table_unit, char *out, size_t n)
{
	const char *kernel = ev_kernel_unit_pmu(table_unit);
	char unit[64];
	size_t i;

	if (kernel) {
		snprintf(out, n, "%s", kernel);
		return;
	}
	snprintf(unit, sizeof(unit), "%s", table_unit);
	str_lower(unit);
	for (i = 0; i < ARRAY_SIZE(uncore_unit_map); i++)
		if (!strcmp(unit, uncore_unit_map[i][0]))
			snprintf(unit, sizeof(unit), "%s", uncore_unit_map[i][1]);
	if (!strcmp(unit, "ncu"))   /* the uncore clock: its own PMU on newer kernels */
		snprintf(unit, sizeof(unit), "%s", box_exists(ctx, "uncore_clock", -1) ? "clock" : "cbox");
	snprintf(out, n, "uncore_%s", unit);
}

static bool pmu_exists(struct ev_context *ctx, const char *name)
{
	return ev_pmu_get(ctx, name)->in_sysfs;
}

static bool pmu_has_format(struct ev_context *ctx, const char *pmu, const char *term)
{
	struct ev_pmu *p = ev_pmu_get(ctx, pmu);
	size_t i;
	for (i = 0; p->in_sysfs && p->terms && p->terms[i]; i++)
		if (!strcmp(p->terms[i], term))
			return true;
	return false;
}

/* has_format_any(): on the PMU or on its first box PMU_0 */
static bool unit_has_format(struct ev_context *ctx, const char *pmu, const char *term)
{
	char *box = xasprintf("%s_0", pmu);
	bool ok = pmu_has_format(ctx, pmu, term) || pmu_has_format(ctx, box, term);
	free(box);
	return ok;
}

/* PMU itself (box -1) or its box PMU_<box> is in sysfs */
static bool box_exists(struct ev_context *ctx, const char *pmu, int box)
{
	char *n = box < 0 ? xstrdup(pmu) : xasprintf("%s_%d", pmu, box);
	bool ok = pmu_exists(ctx, n);
	free(n);
	return ok;
}

/* convert_uncore(): the uncore modifiers ocperf knows, each fully matched. */
static int convert_uncore(const char *spec, const char *flags, bool cmask_format, struct strbuf *o,
			  bool *one_unit)
{
	static const struct { const char *prefix, *opt; char kind; const char *repl; int shift; } map[] = {
		{ "e", "", '1', "edge=", 0 }, { "t=", "", 'd', "thresh=", 0 },
		{ "match=", "", 'x', "filter_occ=", 0 }, { "filter1=", "", 'x', "config1=", 32 },
		{ "nc=", "", 'd', "filter_nc=", 0 }, { "filter=", "", 'x', "config1=", 0 },
		{ "one_unit", "", 0, "", 0 }, { "u", "", 'n', "umask=", 0 },
		{ "opc", "=", 'o', "filter_opc=", 0 }, { "tid", "=", 'o', "filter_tid=", 0 },
		{ "state", "=", 'o', "filter_state=", 0 }, { "c", "mask=", 'o', NULL, 0 },
	};
	const char *s = flags;

	while (*s) {
		size_t i, n = 0, pl;
		const char *num = NULL;
		if (*s == ':' || *s == ',') {
			s++;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(map); i++) {
			pl = strlen(map[i].prefix);
			if (strncmp(s, map[i].prefix, pl) != 0)
				continue;
			if (map[i].kind == 0) {
				n = pl;
			} else if (map[i].kind == '1') {   /* e and one digit */
				num = s + 1;
				n = isdigit((unsigned char)s[1]) ? 2 : 0;
			} else if (map[i].kind == 'o')
				n = match_opt(s, map[i].prefix, map[i].opt, &num);
			else if ((n = match_prefixed(s, map[i].prefix, map[i].kind)))
				num = s + pl;
			if (n)
				break;
		}
		if (!n || (s[n] && s[n] != ':' && s[n] != ','))
			return oc_err("%s: unknown uncore modifier '%s' (valid: eN t=N match=0xN filter1=0xN "
				      "nc=N filter=0xN one_unit uN opc=N tid=N state=N cN cmask=N)", spec, s);
		if (map[i].kind == 0)
			*one_unit = true;
		else if (map[i].shift)
			sb_printf(o, ",%s0x%llx", map[i].repl, strtoull(num, NULL, 0) << map[i].shift);
		else
			sb_printf(o, ",%s%.*s", map[i].repl ? map[i].repl : cmask_format ? "cmask=" : "thresh=",
				  (int)(n - (size_t)(num - s)), num);
		s += n;
	}
	return 0;
}

/* One attr per box of pmu in sysfs (PMU_0, PMU_1, ...; one_unit: the first), or
 * one on pmu itself when it has no boxes. */
static int uncore_attrs(struct ev_context *ctx, const char *spec, const char *pmu, const char *terms,
			const char *name, bool one_unit, struct ev_resolved *out)
{
	int box, ret = 0;

	if (box_exists(ctx, pmu, -1) || !box_exists(ctx, pmu, 0)) {
		char *t = xasprintf("%s,name=%s", terms, name);
		ret = ev_attr_from_string(ctx, spec, pmu, t, "", ev_resolved_add(out));
		free(t);
		return ret;
	}
	for (box = 0; box_exists(ctx, pmu, box) && (!one_unit || box == 0) && ret == 0; box++) {
		char *p = xasprintf("%s_%d", pmu, box), *t = xasprintf("%s,name=%s_%d", terms, name, box);
		ret = ev_attr_from_string(ctx, spec, p, t, "", ev_resolved_add(out));
		free(p);
		free(t);
	}
	return ret;
}

static int uncore_output(struct ev_context *ctx, const char *spec, const struct ev_table *t,
			 const struct ev_rec *r, const char *display, const char *user_extra,
			 struct ev_resolved *out)
{
	char pmu[80], *name;
	uint64_t code = r->code | (uint64_t)r->internal << 21, umask = r->umask;
	struct strbuf o = STRBUF_INIT;
	bool one_unit = false;
	int ret;

	ev_uncore_pmu(ctx, rec_str(t, r->unit), pmu, sizeof(pmu));
	if (!strcasecmp(rec_str(t, r->unit), "ncu")) {   /* ocperf: the clock event 0xff */
		umask = 0;
		code = 0xff;
	}
	/* check_uncore_event() */
	if (!box_exists(ctx, pmu, -1) && !box_exists(ctx, pmu, 0))
		return oc_err("%s: uncore PMU %s is not in %s/bus/event_source/devices",
			      spec, pmu, ctx->sysfs_root ? ctx->sysfs_root : "/sys");
	if (r->cmask && !unit_has_format(ctx, pmu, "cmask"))
		return oc_err("%s: uncore PMU %s has no cmask format", spec, pmu);
	if (umask && !unit_has_format(ctx, pmu, "umask"))
		return oc_err("%s: uncore PMU %s has no umask format", spec, pmu);
	sb_printf(&o, "event=0x%llx", (unsigned long long)code);
	if (umask)
		sb_printf(&o, ",umask=0x%llx", (unsigned long long)umask);
	if (r->cmask)
		sb_printf(&o, ",cmask=0x%x", r->cmask);
	if (r->edge)
		sb_puts(&o, ",edge=1");
	if (r->inv)
		sb_puts(&o, ",inv=1");
	/* ocrec: IIO port and function masks (ocperf drops them) */
	if (r->port_mask && unit_has_format(ctx, pmu, "ch_mask"))
		sb_printf(&o, ",ch_mask=0x%llx", (unsigned long long)r->port_mask);
	if (r->fc_mask && unit_has_format(ctx, pmu, "fc_mask"))
		sb_printf(&o, ",fc_mask=0x%llx", (unsigned long long)r->fc_mask);
	if (r->terms)
		sb_printf(&o, ",%s", rec_str(t, r->terms));
	if (convert_uncore(spec, user_extra, unit_has_format(ctx, pmu, "cmask"), &o, &one_unit) < 0) {
		sb_free(&o);
		return -1;
	}
	name = gen_name(display, false);
	ret = uncore_attrs(ctx, spec, pmu, sb_str(&o), name, one_unit, out);
	free(name);
	sb_free(&o);
	return ret;
}

/* An event of a PMU the kernel names itself (AMD's amd_l3, amd_df, amd_umc):
 * jevents' terms, event and umask always (where the PMU has a umask), on the
 * PMU or its boxes in sysfs, else with the kernel's formats (another machine). */
static int kernel_uncore_output(struct ev_context *ctx, const char *spec, const struct ev_table *t,
				const struct ev_rec *r, const char *pmu, const char *display,
				const char *mods, struct ev_resolved *out)
{
	char *box = xasprintf("%s_0", pmu), *name;
	/* the PMU whose formats apply: pmu, its first box, or pmu with the kernel's formats */
	struct ev_pmu *fmt = ev_pmu_get(ctx, !box_exists(ctx, pmu, -1) && box_exists(ctx, pmu, 0) ? box : pmu);
	struct strbuf o = STRBUF_INIT;
	bool has_umask = false;
	size_t i;
	int ret;

	free(box);
	if (*mods)
		return oc_err("%s: %s counts for the whole package: it takes no modifiers", spec, pmu);
	if (!fmt->terms)
		return oc_err("%s: PMU %s is not in %s/bus/event_source/devices", spec, pmu,
			      ctx->sysfs_root ? ctx->sysfs_root : "/sys");
	for (i = 0; fmt->terms[i]; i++)
		has_umask |= !strcmp(fmt->terms[i], "umask");
	sb_printf(&o, "event=0x%llx", (unsigned long long)r->code);
	if (r->umask || has_umask)
		sb_printf(&o, ",umask=0x%llx", (unsigned long long)r->umask);
	if (r->terms)
		sb_printf(&o, ",%s", rec_str(t, r->terms));
	name = gen_name(display, false);
	ret = uncore_attrs(ctx, spec, pmu, sb_str(&o), name, false, out);
	free(name);
	sb_free(&o);
	return ret;
}

/* --- the user's modifiers -------------------------------------------------- */

static const char valid_mods[] =
	"u k h p pp ppp sup cN cmask=N c=N i1 inv eN edge=N e edge amt1 anythr=yes|no|N tx cp "
	"pdir precise=yes usr=yes|no os=yes|no uN period=N sa=N ocr_msr_val=N percore";

/* ocrec: perf's and libpfm4's spellings mean what they say (ocperf drops
 * them), precision is spelled out so it never exceeds ppp, and a modifier
 * nobody knows is an error. Returns the rewritten modifier string. */
static char *normalize_mods(const char *spec, const char *mods)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n, i;
	char **parts = str_split(mods, ':', &n);

	for (i = 0; i < n; i++) {
		const char *p = parts[i], *q;
		if (!strncmp(p, "c=", 2))
			sb_printf(&sb, ":cmask=%s", p + 2);
		else if (!strcmp(p, "inv") || !strcmp(p, "inv=1"))
			sb_puts(&sb, ":i1");
		else if (!strcmp(p, "e") || !strcmp(p, "edge"))
			sb_puts(&sb, ":e1");
		else if (!strcmp(p, "anythr=1"))
			sb_puts(&sb, ":anythr=yes");
		else if (!strcmp(p, "anythr=0"))
			sb_puts(&sb, ":anythr=no");
		else if (!strcmp(p, "pdir"))
			sb_puts(&sb, ":ppp");
		else if (!strcmp(p, "precise=yes"))
			sb_puts(&sb, ":pp");
		else {
			for (q = p; *q;) {
				size_t len = match_token(q);
				if (!len || (strspn(q, "p") >= len && len > 3)) {
					oc_err("%s: unknown modifier '%s' (valid: %s)", spec, p, valid_mods);
					strv_free(parts);
					sb_free(&sb);
					return NULL;
				}
				q += len;
			}
			if (*p)
				sb_printf(&sb, ":%s", p);
		}
	}
	strv_free(parts);
	return sb_detach(&sb);
}

/* --- looking names up ------------------------------------------------------- */

static bool is_core_table(const struct ev_table *t)
{
	return strcmp(t->pmu, "uncore") != 0;
}

static const struct ev_rec *find_underscored(const struct ev_table *t, const char *name)
{
	uint32_t i;
	for (i = 0; i < t->nr_sorted; i++) {
		const struct ev_rec *r = &t->recs[t->sorted[i]];
		const char *a = rec_str(t, r->name), *b = name;
		while (*a && *b && (tolower((unsigned char)*a) == *b || (*a == '.' && *b == '_')))
			a++, b++;
		if (!*a && !*b)
			return r;
	}
	return NULL;
}

static const struct ev_rec *find_pname(const struct ev_table *t, const char *name)
{
	uint32_t i;
	for (i = 0; i < t->nr_sorted; i++) {
		const struct ev_rec *r = &t->recs[t->sorted[i]];
		if (r->pname && !strcmp(rec_str(t, r->pname), name))
			return r;
	}
	return NULL;
}

struct hit {
	const struct ev_table *t;
	const struct ev_rec *r;
	char *display;   /* the name ocperf gives the event (lower case) */
	char *extra;     /* the modifiers for it */
};

/* getevent() on one core table: the name, NAME_ps (= :p), OFFCORE..._0 */
static bool find_core(const struct ev_table *t, const char *name, const char *extra, struct hit *h)
{
	const struct ev_rec *r = ev_table_find(t, name);
	size_t len = strlen(name);
	char *alt;

	if (r) {
		h->display = xstrdup(name);
		h->extra = xstrdup(extra);
	} else if (len > 3 && !strcmp(name + len - 3, "_ps")) {
		alt = xstrndup(name, len - 3);
		r = ev_table_find(t, alt);
		free(alt);
		if (r) {
			h->display = xstrdup(name);
			h->extra = xasprintf("p%s", extra);
		}
	} else if (!strncmp(name, "offcore", 7)) {
		alt = xasprintf("%s_0", name);
		r = ev_table_find(t, alt);
		if (r) {
			h->display = xstrdup(name);
			h->extra = xstrdup(extra);
		}
		free(alt);
	}
	h->t = t;
	h->r = r;
	return r != NULL;
}

static void add_desc(struct ev_resolved *out, const struct ev_table *t, const struct ev_rec *r)
{
	if (out->desc)
		return;
	out->desc = r->errata ? xasprintf("%s Errata: %s", rec_str(t, r->desc), rec_str(t, r->errata))
			      : xstrdup(rec_str(t, r->desc));
	out->deprecated = (r->flags & REC_DEPRECATED) != 0;
}

static int emit_core(struct ev_context *ctx, const char *spec, struct hit *h, const char *pmu_terms,
		     struct ev_resolved *out)
{
	char *s = core_output(ctx, h->t->pmu, h->t, h->r, h->display, h->extra);
	char *first = strchr(s, '/'), *last = strrchr(s, '/');
	char *pmu = xstrndup(s, (size_t)(first - s));
	char *terms = xasprintf("%.*s%s", (int)(last - first - 1), first + 1, pmu_terms ? pmu_terms : "");
	struct ev_attr *a = ev_resolved_add(out);
	int ret = ev_attr_from_string(ctx, spec, pmu, terms, last + 1, a);

	add_desc(out, h->t, h->r);
	free(s);
	free(pmu);
	free(terms);
	return ret;
}

int ev_resolve_table(struct ev_context *ctx, const char *spec, struct ev_resolved *out)
{
	struct ev_tables *ts;
	char *lower, *name, *mods, *extra = NULL, *pmu = NULL, *pmu_terms = NULL, *colon, *resp;
	struct hit hits[4];
	size_t nhits = 0, i;
	int ret = 1;

	if (ev_tables_load(ctx) < 0)
		return -1;
	ts = ctx->tables;
	if (!ts)
		return 1;
	lower = xstrdup(spec);
	str_lower(lower);
	name = lower;
	mods = NULL;
	if (strchr(lower, '/')) {
		/* PMU/NAME[,terms]/flags: the event of that PMU's table */
		char *slash = strchr(lower, '/'), *end = strrchr(lower, '/');
		if (end == slash)
			goto out;
		*slash = 0;
		*end = 0;
		pmu = lower;
		name = slash + 1;
		if ((pmu_terms = strchr(name, ','))) {
			pmu_terms = xstrdup(pmu_terms);
			*strchr(name, ',') = 0;
		}
		mods = end + 1;
	} else if ((colon = strchr(lower, ':'))) {
		*colon = 0;
		mods = colon + 1;
		/* NAME:request=REQ:response=RESP is OFFCORE_RESPONSE.REQ.RESP */
		resp = strstr(mods, ":response=");
		if (!strncmp(mods, "request=", 8) && resp && !strchr(resp + 10, ':')) {
			char *full = xasprintf("%s.%.*s.%s", name, (int)(resp - mods - 8), mods + 8, resp + 10);
			for (i = 0; i < ts->nr && nhits < ARRAY_SIZE(hits); i++) {
				const struct ev_rec *r;
				if (!is_core_table(ts->t[i]) || !(r = ev_table_find(ts->t[i], full)))
					continue;
				*colon = ':';
				hits[nhits++] = (struct hit){ ts->t[i], r, xstrdup(lower), xstrdup("") };
				*colon = 0;
			}
			free(full);
			if (nhits) {
				mods = NULL;
				goto emit;
			}
		}
	}
	for (i = 0; i < ts->nr && nhits < ARRAY_SIZE(hits); i++) {
		if (!is_core_table(ts->t[i]) || (pmu && strcmp(pmu, ts->t[i]->pmu) != 0))
			continue;
		if (find_core(ts->t[i], name, "", &hits[nhits]))
			nhits++;
	}
	if (!nhits) {
		for (i = 0; i < ts->nr; i++) {
			const struct ev_rec *r;
			const char *kernel;
			if (is_core_table(ts->t[i]) || !(r = ev_table_find(ts->t[i], name)))
				continue;
			if (pmu_terms) {
				ret = oc_err("%s: an uncore event takes no terms", spec);
				goto out;
			}
			kernel = ev_kernel_unit_pmu(rec_str(ts->t[i], r->unit));
			ret = kernel ? kernel_uncore_output(ctx, spec, ts->t[i], r, kernel, name, mods ? mods : "", out)
				     : uncore_output(ctx, spec, ts->t[i], r, name, mods ? mods : "", out);
			if (ret == 0)
				add_desc(out, ts->t[i], r);
			goto out;
		}
	}
	for (i = 0; !nhits && i < ts->nr; i++) {
		const struct ev_rec *r;
		if (!is_core_table(ts->t[i]) || (pmu && strcmp(pmu, ts->t[i]->pmu) != 0))
			continue;
		if ((r = find_underscored(ts->t[i], name)) || (r = find_pname(ts->t[i], name))) {
			char *n = xstrdup(rec_str(ts->t[i], r->name));
			str_lower(n);
			hits[nhits++] = (struct hit){ ts->t[i], r, n, xstrdup("") };
		}
	}
	/* the modifiers, checked once the name is known */
	if (nhits) {
		extra = normalize_mods(spec, mods ? mods : "");
		if (!extra) {
			ret = -1;
			goto free_hits;
		}
		for (i = 0; i < nhits; i++) {
			char *e = xasprintf("%s%s", hits[i].extra, extra);
			free(hits[i].extra);
			hits[i].extra = e;
		}
	}
emit:
	ret = nhits ? 0 : 1;
	for (i = 0; i < nhits && ret == 0; i++)
		ret = emit_core(ctx, spec, &hits[i], pmu_terms, out);
free_hits:
	for (i = 0; i < nhits; i++) {
		free(hits[i].display);
		free(hits[i].extra);
	}
out:
	free(extra);
	free(pmu_terms);
	free(lower);
	return ret;
}
