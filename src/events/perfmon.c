/* perfmon.c — read Intel perfmon event files (the {"Header", "Events"} object
 * and the older plain array), the Linux kernel's pmu-events files (arrays,
 * several topic files per CPU, Unit naming the PMU), and offcore matrix files,
 * into flat tables: records plus a string pool. */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/ev-internal.h"

struct ev_table *ev_table_new(const char *pmu)
{
	struct ev_table *t = xcalloc(1, sizeof(*t));
	t->pmu = xstrdup(pmu);
	t->pool = xmalloc(1);
	t->pool[0] = 0;
	t->pool_len = 1;
	return t;
}

void ev_table_free(struct ev_table *t)
{
	if (!t)
		return;
	free(t->pmu);
	free(t->path);
	if (!t->mapped) {
		free(t->recs);
		free(t->pool);
		free(t->sorted);
	}
	free(t);
}

static uint32_t pool_add(struct ev_table *t, const char *s)
{
	size_t len = strlen(s);
	uint32_t off;

	if (!len)
		return 0;
	off = t->pool_len;
	t->pool = xrealloc(t->pool, t->pool_len + len + 1);
	memcpy(t->pool + off, s, len + 1);
	t->pool_len += (uint32_t)len + 1;
	return off;
}

static struct ev_rec *rec_add(struct ev_table *t)
{
	struct ev_rec *r;
	GROW(t->recs, t->cap, (size_t)t->nr + 1);
	r = &t->recs[t->nr++];
	memset(r, 0, sizeof(*r));
	return r;
}

/* The text of a field (strings as they are, numbers and booleans spelled
 * out); NULL when absent or null. */
static const char *field(json_t *row, const char *key, char *buf, size_t n)
{
	json_t *v = json_object_get(row, key);
	if (!v || json_is_null(v))
		return NULL;
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v)) {
		snprintf(buf, n, "%lld", (long long)json_integer_value(v));
		return buf;
	}
	if (json_is_boolean(v))
		return json_is_true(v) ? "1" : "0";
	return NULL;
}

struct row_ctx {
	const char *path, *name;
};

/* A number field: hex ("0xB7, 0xBB" gives the first code, the second in
 * *second), or decimal. Absent → 0. */
static int number(const struct row_ctx *rc, json_t *row, const char *key, int base,
		  uint64_t *out, uint64_t *second, bool *present)
{
	char buf[32], *end;
	const char *s = field(row, key, buf, sizeof(buf));
	json_t *v = json_object_get(row, key);

	*out = 0;
	if (second)
		*second = 0;
	if (present)
		*present = s != NULL;
	if (!s)
		return 0;
	if (json_is_integer(v)) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (!strcasecmp(s, "True") || !strcasecmp(s, "False")) {
		*out = !strcasecmp(s, "True");
		return 0;
	}
	while (*s == ' ')
		s++;
	if (!*s || !strcasecmp(s, "na") || !strcasecmp(s, "null"))
		return 0;
	*out = strtoull(s, &end, base);
	while (*end == ' ')
		end++;
	if (end == s || (*end && *end != ','))
		return oc_err("%s: event %s: %s '%s' is not a number", rc->path, rc->name, key, s);
	if (*end == ',' && second) {
		const char *p = end + 1;
		while (*p == ' ')
			p++;
		*second = strtoull(p, NULL, base);
	}
	return 0;
}

static bool is_core_pmu_name(const char *s)
{
	return !strcasecmp(s, "cpu") || !strcasecmp(s, "cpu_core") || !strcasecmp(s, "cpu_atom");
}

/* The fields jevents.py (perf's pmu-events compiler) turns into event terms that
 * ocperf's algorithm does not know, in jevents' order: "rdwrmask=0x1,threadmask=0x3". */
static char *jevents_terms(json_t *row)
{
	static const char *const fields[][2] = {
		{ "NodeType", "type" }, { "RdWrMask", "rdwrmask" }, { "EnAllCores", "enallcores" },
		{ "EnAllSlices", "enallslices" }, { "SliceId", "sliceid" }, { "ThreadMask", "threadmask" },
	};
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		char buf[32], *end;
		const char *s = field(row, fields[i][0], buf, sizeof(buf));
		bool hex = s && (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2));
		unsigned long long v;

		if (!s || !*s)
			continue;
		v = strtoull(s, &end, hex ? 16 : 10);
		if (*end)
			sb_printf(&sb, "%s%s=%s", sb.len ? "," : "", fields[i][1], s);
		else if (v)   /* jevents leaves zero values out, and writes hex as 0x%x */
			sb_printf(&sb, hex ? "%s%s=0x%llx" : "%s%s=%llu", sb.len ? "," : "", fields[i][1], v);
	}
	return sb.buf ? sb_detach(&sb) : NULL;
}

static int add_row(struct ev_table *core, struct ev_table *uncore, const char *path, json_t *row)
{
	char buf[32], nbuf[32], ubuf[32];
	const char *name = field(row, "EventName", nbuf, sizeof(nbuf));
	const char *unit = field(row, "Unit", ubuf, sizeof(ubuf));
	const char *s;
	struct row_ctx rc = { path, name };
	struct ev_table *t;
	struct ev_rec *r;
	char *trimmed, *terms;
	uint64_t v;
	bool present;
	int err = 0;

	if (!name || !*name || json_object_get(row, "MetricName") || json_object_get(row, "ArchStdEvent"))
		return 0;
	if (unit && is_core_pmu_name(unit)) {
		if (strcasecmp(unit, core->pmu) != 0 && strcasecmp(core->pmu, "cpu") != 0)
			return 0;   /* the other core type's row of a hybrid pmu-events file */
		unit = NULL;
	}
	t = unit ? uncore : core;
	if (!t)
		return 0;
	if (t->nr >= EV_MAX_EVENTS || t->pool_len > EV_MAX_POOL)
		return oc_err("%s: more than %u events or %u MiB of text: the most ocrec loads for a CPU",
			      path, EV_MAX_EVENTS, EV_MAX_POOL >> 20);
	r = rec_add(t);
	trimmed = xstrdup(name);
	{
		size_t n = strlen(trimmed);
		while (n && (trimmed[n - 1] == ' ' || trimmed[n - 1] == '\t'))
			trimmed[--n] = 0;
	}
	r->name = pool_add(t, trimmed);
	free(trimmed);
	if (unit) {
		r->flags |= REC_UNCORE;
		r->unit = pool_add(t, unit);
	}
	/* ocperf skips rows whose code or umask do not parse: so do we */
	if (number(&rc, row, "EventCode", 16, &r->code, &r->code2, NULL) < 0 ||
	    number(&rc, row, "UMask", 16, &r->umask, NULL, NULL) < 0) {
		t->nr--;
		oc_err_clear();
		return 0;
	}
	err |= number(&rc, row, "UMaskExt", 16, &v, NULL, &present);
	if (present && !unit)
		r->umask |= v << 32;
	err |= number(&rc, row, "Other", 16, &r->other, NULL, NULL);
	err |= number(&rc, row, "EdgeDetect", 16, &v, NULL, NULL);
	r->edge = (uint32_t)v;
	err |= number(&rc, row, "Invert", 16, &v, NULL, NULL);
	r->inv = (uint32_t)v;
	err |= number(&rc, row, "AnyThread", 16, &v, NULL, &present);
	r->any = (uint32_t)v;
	if (present)
		r->flags |= REC_HAS_ANY;
	err |= number(&rc, row, "CounterMask", 10, &v, NULL, &present);
	if (!present)
		err |= number(&rc, row, "CMask", 10, &v, NULL, NULL);
	r->cmask = (uint32_t)v;
	if ((s = field(row, "MSRIndex", buf, sizeof(buf))) && *s &&
	    (s = field(row, "MSRValue", buf, sizeof(buf))) && *s) {
		r->flags |= REC_HAS_MSR;
		err |= number(&rc, row, "MSRIndex", 16, &r->msr_index, NULL, NULL);
		err |= number(&rc, row, "MSRValue", 16, &r->msr_value, NULL, NULL);
	}
	err |= number(&rc, row, "SampleAfterValue", 10, &r->period, NULL, &present);
	if (present)
		r->flags |= REC_HAS_SAV;
	err |= number(&rc, row, "PEBS", 10, &v, NULL, NULL);
	r->pebs = (int32_t)v;
	err |= number(&rc, row, "Precise", 10, &v, NULL, NULL);
	r->precise = (int32_t)v;
	err |= number(&rc, row, "CollectPEBS", 10, &v, NULL, NULL);
	r->collect_pebs = (int32_t)v;
	err |= number(&rc, row, "Deprecated", 10, &v, NULL, NULL);
	if (v)
		r->flags |= REC_DEPRECATED;
	if (unit) {
		err |= number(&rc, row, "Internal", 10, &v, NULL, NULL);
		r->internal = (uint32_t)v;
		err |= number(&rc, row, "PortMask", 16, &r->port_mask, NULL, NULL);
		err |= number(&rc, row, "FCMask", 16, &r->fc_mask, NULL, NULL);
	}
	if (err)
		return -1;
	if ((s = field(row, "PublicDescription", buf, sizeof(buf))) ||
	    (s = field(row, "BriefDescription", buf, sizeof(buf))) ||
	    (s = field(row, "Description", buf, sizeof(buf)))) {
		char *d = xstrdup(s);
		r->desc = pool_add(t, str_trim(d));
		free(d);
	}
	if ((s = field(row, "BriefDescription", buf, sizeof(buf))))
		r->brief = pool_add(t, s);
	if ((s = field(row, "Errata", buf, sizeof(buf))) && strcmp(s, "null") != 0)
		r->errata = pool_add(t, s);
	if ((s = field(row, "Counter", buf, sizeof(buf))))
		r->counter = pool_add(t, s);
	if ((terms = jevents_terms(row))) {
		r->terms = pool_add(t, terms);
		free(terms);
	}
	return 0;
}

/* The event rows of a parsed table: the current layout (an object with
 * "Events") or the older plain array. */
static json_t *table_rows(json_t *root, const char *name)
{
	json_t *events;

	if (json_is_object(root) && (events = json_object_get(root, "Events")) && json_is_array(events)) {
		json_incref(events);
		json_decref(root);
		return events;
	}
	if (!json_is_array(root)) {
		json_decref(root);
		oc_err("%s: not an event table (neither an array of events nor an object with \"Events\")",
		       name);
		return NULL;
	}
	return root;
}

static json_t *load_rows(const char *path)
{
	json_error_t jerr;
	json_t *root;
	size_t len;
	char *text;

	if (!file_exists(path)) {
		oc_err_errno("%s", path);
		return NULL;
	}
	/* bounded: a 1 GB "table" (or /dev/zero) is refused before jansson builds it */
	text = read_file_max(path, &len, EV_MAX_TABLE_FILE, "an event table");
	if (!text)
		return NULL;
	root = json_loadb(text, len, JSON_DECODE_ANY, &jerr);
	free(text);
	if (!root) {
		oc_err("%s:%d: not a valid JSON event table: %s", path, jerr.line, jerr.text);
		return NULL;
	}
	return table_rows(root, path);
}

static int add_rows(struct ev_table *core, struct ev_table *uncore, const char *name, json_t *rows)
{
	json_t *row;
	size_t i;

	if (!rows)
		return -1;
	json_array_foreach(rows, i, row) {
		if (!json_is_object(row))
			continue;
		if (add_row(core, uncore, name, row) < 0) {
			json_decref(rows);
			return -1;
		}
	}
	json_decref(rows);
	if (!core->path)
		core->path = xstrdup(name);
	if (uncore && !uncore->path && uncore->nr)
		uncore->path = xstrdup(name);
	return 0;
}

int ev_table_add_json(struct ev_table *core, struct ev_table *uncore, const char *path)
{
	return add_rows(core, uncore, path, load_rows(path));
}

int ev_table_add_json_text(struct ev_table *core, const char *name, const char *text)
{
	json_error_t jerr;
	json_t *root = json_loads(text, JSON_DECODE_ANY, &jerr);

	if (!root)
		return oc_err("%s:%d: not a valid JSON event table: %s", name, jerr.line, jerr.text);
	return add_rows(core, NULL, name, table_rows(root, name));
}

struct matrix_part {
	const char *name, *value, *desc;
};

int ev_table_add_matrix(struct ev_table *core, const char *path)
{
	json_t *rows, *row;
	struct matrix_part *req = NULL, *resp = NULL;
	size_t nreq = 0, nresp = 0, creq = 0, cresp = 0, i, j;
	const struct ev_rec *base;
	struct ev_rec proto;
	int ret = 0;

	ev_table_finish(core);
	base = ev_table_find(core, "OFFCORE_RESPONSE");
	if (!base)
		return 0;
	proto = *base;
	rows = load_rows(path);
	if (!rows)
		return -1;
	json_array_foreach(rows, i, row) {
		const char *rq = json_string_value(json_object_get(row, "MATRIX_REQUEST"));
		const char *rs = json_string_value(json_object_get(row, "MATRIX_RESPONSE"));
		const char *val = json_string_value(json_object_get(row, "MATRIX_VALUE"));
		const char *desc = json_string_value(json_object_get(row, "DESCRIPTION"));
		struct matrix_part p = { NULL, val, desc ? desc : "" };
		if (!rq || !rs || !val)
			continue;
		if (strcasecmp(rq, "null") != 0) {
			p.name = rq;
			GROW(req, creq, nreq + 1);
			req[nreq++] = p;
		}
		if (strcasecmp(rs, "null") != 0) {
			p.name = rs;
			GROW(resp, cresp, nresp + 1);
			resp[nresp++] = p;
		}
	}
	/* every request with every response: a hostile file could ask for billions */
	if (nresp && (core->nr >= EV_MAX_EVENTS || nreq > (EV_MAX_EVENTS - core->nr) / nresp)) {
		ret = oc_err("%s: %zu requests times %zu responses make more than %u events", path, nreq,
			     nresp, EV_MAX_EVENTS);
		goto out;
	}
	for (i = 0; i < nreq; i++) {
		for (j = 0; j < nresp; j++) {
			char *name, *desc;
			struct ev_rec *r;
			if (core->pool_len > EV_MAX_POOL) {
				ret = oc_err("%s: the events it makes hold more than %u MiB of text", path,
					     EV_MAX_POOL >> 20);
				goto out;
			}
			name = xasprintf("OFFCORE_RESPONSE.%s.%s", req[i].name, resp[j].name);
			desc = xasprintf("%s %s", req[i].desc, resp[j].desc);
			if (ev_table_find(core, name)) {
				free(name);
				free(desc);
				continue;
			}
			r = rec_add(core);
			*r = proto;
			r->name = pool_add(core, name);
			r->desc = pool_add(core, desc);
			r->brief = r->desc;
			r->msr_index = 0x1a6;
			r->msr_value = strtoull(req[i].value, NULL, 16) | strtoull(resp[j].value, NULL, 16) << 16;
			r->flags |= REC_MATRIX | REC_HAS_MSR;
			free(name);
			free(desc);
		}
	}
out:
	free(req);
	free(resp);
	json_decref(rows);
	ev_table_finish(core);
	return ret;
}

static int cmp_rec(const void *a, const void *b, void *arg)
{
	const struct ev_table *t = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcasecmp(rec_str(t, t->recs[x].name), rec_str(t, t->recs[y].name));
	return c ? c : (x < y ? -1 : x > y);
}

void ev_table_finish(struct ev_table *t)
{
	uint32_t i, n = 0;

	free(t->sorted);
	t->sorted = xmalloc((t->nr + 1) * sizeof(*t->sorted));
	for (i = 0; i < t->nr; i++)
		t->sorted[i] = i;
	qsort_r(t->sorted, t->nr, sizeof(*t->sorted), cmp_rec, t);
	for (i = 0; i < t->nr; i++) {
		/* equal names: keep the last row, as a dict in ocperf would */
		if (i + 1 < t->nr && !strcasecmp(rec_str(t, t->recs[t->sorted[i]].name),
						 rec_str(t, t->recs[t->sorted[i + 1]].name)))
			continue;
		t->sorted[n++] = t->sorted[i];
	}
	t->nr_sorted = n;
}

const struct ev_rec *ev_table_find(const struct ev_table *t, const char *name)
{
	uint32_t lo = 0, hi = t->nr_sorted;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct ev_rec *r = &t->recs[t->sorted[mid]];
		int c = strcasecmp(name, rec_str(t, r->name));
		if (!c)
			return r;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* The topdown metrics of the kernel's perf_metrics support, which ocperf adds
 * as named events (pname: the kernel's event alias of the core PMU). */
void ev_table_add_topdown(struct ev_table *t)
{
	/* ocperf's descriptions, except that it calls retiring "frontend bound" */
	static const struct { const char *name, *pname, *desc; bool level2; } td[] = {
		{ "PERF_METRICS.RETIRING", "topdown-retiring", "Number of slots the pipeline was retiring.", false },
		{ "PERF_METRICS.BAD_SPECULATION", "topdown-bad-spec", "Number of slots the pipeline was doing bad speculation.", false },
		{ "PERF_METRICS.FRONTEND_BOUND", "topdown-fe-bound", "Number of slots the pipeline was frontend bound.", false },
		{ "PERF_METRICS.BACKEND_BOUND", "topdown-be-bound", "Number of slots the pipeline was backend bound.", false },
		{ "TOPDOWN.SLOTS", "slots", "Number of slots", false },
		{ "PERF_METRICS.HEAVY_OPERATIONS", "topdown-heavy-ops", "Number of slots pipeline retired microcode instructions with >2 uops", true },
		{ "PERF_METRICS.BRANCH_MISPREDICTS", "topdown-br-mispredict", "Number of slots frontend was bound by branch mispredictions", true },
		{ "PERF_METRICS.MEMORY_BOUND", "topdown-mem-bound", "Number of slots backend was bound by memory", true },
		{ "PERF_METRICS.FETCH_LATENCY", "topdown-fetch-lat", "Number of slots frontend was bound by memory fetch latency", true },
	};

	bool level2;
	size_t i;

	ev_table_finish(t);
	if (!ev_table_find(t, "TOPDOWN.SLOTS") || ev_table_find(t, "PERF_METRICS.RETIRING"))
		return;
	level2 = ev_table_find(t, "TOPDOWN.MEMORY_BOUND_SLOTS") != NULL;
	for (i = 0; i < ARRAY_SIZE(td); i++) {
		struct ev_rec *r;
		if (td[i].level2 && !level2)
			continue;
		r = rec_add(t);
		r->name = pool_add(t, td[i].name);
		r->pname = pool_add(t, td[i].pname);
		r->desc = pool_add(t, td[i].desc);
		r->brief = r->desc;
	}
	ev_table_finish(t);
}
