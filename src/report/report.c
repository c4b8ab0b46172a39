/* report.c — the report over the session (sections per event, filters,
 * --percentage) and the histogram view: perf report's branch mode (perf 6.1
 * util/hist.c hist_iter_branch: one entry per LBR entry, pseudo period 1)
 * and its plain sample mode, with perf's sort keys, headers and column
 * layout (docs/perfdata.md, "What perf report and perf script print"). */
#define _GNU_SOURCE   /* qsort_r */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/report-internal.h"

enum sort_key {
	K_COMM, K_DSO, K_SYM, K_SRCLINE, K_DSO_FROM, K_DSO_TO, K_SYM_FROM, K_SYM_TO,
	K_SRCLINE_FROM, K_SRCLINE_TO, K_MISPRED, K_CYCLES, K_PID,
};

static const struct {
	const char *name, *header;
	bool branch;               /* needs branch mode */
} sort_keys[] = {
	[K_COMM] = { "comm", "Command", false },
	[K_DSO] = { "dso", "Shared Object", false },
	[K_SYM] = { "symbol", "Symbol", false },
	[K_SRCLINE] = { "srcline", "Source:Line", false },
	[K_DSO_FROM] = { "dso_from", "Source Shared Object", true },
	[K_DSO_TO] = { "dso_to", "Target Shared Object", true },
	[K_SYM_FROM] = { "symbol_from", "Source Symbol", true },
	[K_SYM_TO] = { "symbol_to", "Target Symbol", true },
	[K_SRCLINE_FROM] = { "srcline_from", "From Source:Line", true },
	[K_SRCLINE_TO] = { "srcline_to", "To Source:Line", true },
	[K_MISPRED] = { "mispredict", "Branch Mispredicted", true },
	[K_CYCLES] = { "cycles", "Basic Block Cycles", true },
	[K_PID] = { "pid", "Pid:Command", false },
};

#define DEFAULT_SORT "comm,dso,symbol"
#define DEFAULT_BRANCH_SORT "comm,dso_from,symbol_from,symbol_to,cycles"

static const struct view_ops *const views[] = {
	[VIEW_HIST] = &view_hist, [VIEW_SOURCE] = &view_source,
	[VIEW_BRANCH_HISTORY] = &view_branch_history, [VIEW_HOT_PATHS] = &view_hot_paths,
};

void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* --- the report -------------------------------------------------------- */

struct report *report_new(const struct report_opts *opts)
{
	struct report *r = xcalloc(1, sizeof(*r));
	r->opts = *opts;
	r->view = opts->pprof ? &view_pprof : views[opts->view];
	r->s = session_new(&opts->session);
	return r;
}

void report_free(struct report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_secs; i++)
		if (r->secs[i].view)
			r->view->free(r->secs[i].view);
	free(r->secs);
	free(r->pairs);
	report_pprof_free(r);
	session_free(r->s);
	free(r);
}

double report_percent(const struct report *r, const struct rsection *sec, uint64_t n)
{
	uint64_t total = report_shown_period(r, sec);
	return total ? 100.0 * (double)n / (double)total : 0;
}

uint64_t report_shown_samples(const struct report *r, const struct rsection *sec)
{
	return r->opts.percent_relative ? sec->kept_samples : sec->nr_samples;
}

uint64_t report_shown_period(const struct report *r, const struct rsection *sec)
{
	return r->opts.percent_relative ? sec->kept_period : sec->total_period;
}

/* One section per session event, in the inputs' order. */
static void add_sections(struct report *r)
{
	size_t n = session_nr_events(r->s);

	if (n <= r->nr_secs)
		return;
	r->secs = xrealloc(r->secs, n * sizeof(*r->secs));
	memset(&r->secs[r->nr_secs], 0, (n - r->nr_secs) * sizeof(*r->secs));
	for (; r->nr_secs < n; r->nr_secs++)
		r->secs[r->nr_secs].name = session_event(r->s, r->nr_secs)->name;
}

/* --- checks and filters ------------------------------------------------ */

static int parse_sort(struct report *r, const char *spec)
{
	char **v = str_split(spec, ',', NULL);
	size_t i, k;
	int ret = 0;

	r->nr_keys = 0;
	for (i = 0; v[i]; i++) {
		char *name = str_trim(v[i]);
		if (!*name)
			continue;
		for (k = 0; k < ARRAY_SIZE(sort_keys); k++)
			if (strcmp(sort_keys[k].name, name) == 0)
				break;
		if (k == ARRAY_SIZE(sort_keys)) {
			ret = oc_err("--sort: unknown key '%s' (branch keys: symbol_from, symbol_to, dso_from, "
				     "dso_to, srcline_from, srcline_to, mispredict, cycles; also comm, dso, "
				     "symbol, srcline, pid)", name);
			break;
		}
		if (sort_keys[k].branch && !r->branch_on) {
			ret = oc_err("--sort: key '%s' needs branch mode (a file with branch stacks, or -b)", name);
			break;
		}
		if (r->nr_keys == ARRAY_SIZE(r->keys)) {
			ret = oc_err("--sort: too many keys");
			break;
		}
		r->keys[r->nr_keys++] = (int)k;
	}
	if (!ret && !r->nr_keys)
		ret = oc_err("--sort: no keys given");
	strv_free(v);
	return ret;
}

/* The mode and the keys, from what the first input says it has. */
static int check(struct report *r)
{
	const char *sort = r->opts.sort;

	r->checked = true;
	if (r->opts.branch_mode == 1 && !r->has_branch_stack)
		return oc_err("-b given but the file has no branch stacks (was it recorded with -b?)");
	r->branch_on = r->opts.branch_mode == 1 || (r->opts.branch_mode == -1 && r->has_branch_stack);
	if (r->opts.view != VIEW_HIST && r->opts.view != VIEW_BRANCH_HISTORY && !r->has_branch_stack)
		return oc_err("this view needs branch stacks, and the file has none (record with -b)");
	if (r->opts.view == VIEW_BRANCH_HISTORY && !r->has_branch_stack)
		return oc_err("--branch-history needs branch stacks or a call chain, and the file has neither");
	if (!sort)
		sort = r->branch_on ? DEFAULT_BRANCH_SORT : DEFAULT_SORT;
	return parse_sort(r, sort);
}

static bool in_ids(const int32_t *list, uint32_t id)
{
	for (; *list != -1; list++)
		if ((uint32_t)*list == id)
			return true;
	return false;
}

/* --comm, --pid, --tid */
static bool sample_filtered(const struct report *r, const struct session_sample *ss)
{
	if (r->opts.pids && !in_ids(r->opts.pids, ss->s->pid))
		return true;
	if (r->opts.tids && !in_ids(r->opts.tids, ss->s->tid))
		return true;
	if (r->opts.comms && !strv_contains(r->opts.comms, ss->thread->comm))
		return true;
	return false;
}

bool report_dso_filtered(const struct report *r, const struct session_loc *l)
{
	if (!r->opts.dsos)
		return false;
	return !l->dso || !(strv_contains(r->opts.dsos, l->dso->short_name) || strv_contains(r->opts.dsos, l->dso->name));
}

struct session_loc *report_take_sample(struct report *r, struct rsection *sec, const struct session_sample *ss,
				       bool filtered, uint64_t units)
{
	struct session_loc *ip;

	sec->nr_samples++;
	sec->total_period += units;
	if (filtered)
		return NULL;
	ip = session_resolve(r->s, ss, ss->s->ip, SESSION_AT_IP);
	if (report_dso_filtered(r, ip))
		return NULL;
	sec->kept_samples++;
	sec->kept_period += units;
	return ip;
}

/* --- reading ----------------------------------------------------------- */

static int on_begin(struct session *s, void *arg)
{
	struct report *r = arg;
	const struct pd_info *in = session_info(s);
	bool branches = pd_has_feature(in, PD_FEAT_BRANCH_STACK);
	size_t i;

	for (i = 0; i < in->nr_attrs; i++)
		if (in->attrs[i].attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
			branches = true;
	add_sections(r);
	free(r->pairs);   /* another input's processes */
	r->pairs = NULL;
	if (r->checked)
		return 0;
	r->has_branch_stack = branches;
	return check(r) < 0 ? -1 : 0;
}

static int on_sample(struct session *s, const struct session_sample *ss, void *arg)
{
	struct report *r = arg;

	if (ss->event->index >= r->nr_secs)
		add_sections(r);
	r->view->sample(r, &r->secs[ss->event->index], ss, sample_filtered(r, ss));
	return 0;
}

static int on_record(struct session *s, const struct pd_event *ev, void *arg)
{
	struct report *r = arg;

	switch (ev->type) {
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		r->lost += ev->u.lost.lost;
		break;
	case PERF_RECORD_COMM:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		free(r->pairs);   /* cached entries carry the old name or map */
		r->pairs = NULL;
		break;
	default:
		break;
	}
	return 0;
}

static const struct session_tool report_tool = { on_begin, on_sample, on_record };

int report_read_perfdata(struct report *r, const char *path)
{
	r->input_mtime_ns = report_input_mtime(path);
	return session_read(r->s, path, &report_tool, r) < 0 ? -1 : 0;
}

int report_read_perfscript(struct report *r, const char *path, const char *binary)
{
	r->input_mtime_ns = report_input_mtime(path);
	return session_read_perfscript(r->s, path, binary, &report_tool, r) < 0 ? -1 : 0;
}

size_t report_sample_path(struct report *r, const struct session_sample *ss, bool branches,
			  struct report_step *steps, size_t max)
{
	size_t n = 0, i = 0;

	if (!max)
		return 0;
	steps[n++] = (struct report_step){ session_resolve(r->s, ss, ss->s->ip, SESSION_AT_IP), false };
	for (i = 0; branches && i < ss->s->branch_nr && n + 2 <= max; i++) {
		const struct pd_branch *b = &ss->s->branches[i];
		steps[n++] = (struct report_step){ session_resolve(r->s, ss, b->to, SESSION_AT_BRANCH), false };
		steps[n++] = (struct report_step){ session_resolve(r->s, ss, b->from, SESSION_AT_BRANCH), false };
	}
	/* a call chain begins with the sampled address itself */
	i = ss->nr_frames && ss->frames[0].ip == ss->s->ip;
	for (; i < ss->nr_frames && n < max; i++)
		steps[n++] = (struct report_step){ session_frame(r->s, ss, i), true };
	return n;
}

/* --- histogram --------------------------------------------------------- */

struct hist {
	struct hmap map;           /* the --sort keys' words -> struct hentry */
};

static void sym_key(const struct session_loc *l, uint64_t *w)
{
	/* perf compares symbols, or raw addresses when both are unresolved */
	w[0] = l->sym ? (uint64_t)(uintptr_t)l->dso : 1;
	w[1] = l->sym ? (uint64_t)(uintptr_t)l->sym : l->addr;
}

static size_t make_key(const struct report *r, const struct hentry *e, uint64_t *key)
{
	size_t i, n = 0;

	for (i = 0; i < r->nr_keys; i++) {
		switch (r->keys[i]) {
		case K_COMM: key[n++] = (uint64_t)(uintptr_t)e->comm; break;
		case K_PID: key[n++] = e->pid; break;
		case K_DSO: case K_DSO_FROM: key[n++] = (uint64_t)(uintptr_t)e->from.dso; break;
		case K_DSO_TO: key[n++] = (uint64_t)(uintptr_t)e->to.dso; break;
		case K_SYM: case K_SYM_FROM: sym_key(&e->from, &key[n]); n += 2; break;
		case K_SYM_TO: sym_key(&e->to, &key[n]); n += 2; break;
		case K_SRCLINE: case K_SRCLINE_FROM: key[n++] = (uint64_t)(uintptr_t)e->from.srcline; break;
		case K_SRCLINE_TO: key[n++] = (uint64_t)(uintptr_t)e->to.srcline; break;
		case K_MISPRED: key[n++] = (uint64_t)e->mispred; break;
		case K_CYCLES: key[n++] = e->cycles; break;
		}
	}
	return n;
}

static bool needs_srcline(const struct report *r, bool from)
{
	size_t i;
	for (i = 0; i < r->nr_keys; i++)
		if (r->keys[i] == (from ? K_SRCLINE_FROM : K_SRCLINE_TO) || (from && r->keys[i] == K_SRCLINE))
			return true;
	return false;
}

/* Adds period to proto's entry; returns the entry's index. */
static size_t hist_add(const struct report *r, struct hist *h, const struct hentry *proto, uint64_t period)
{
	uint64_t key[MAX_KEY_WORDS];
	size_t nw = make_key(r, proto, key), i;
	struct hentry *e;
	bool added;

	if (!h->map.entry_size)   /* the keys are known once the first entry comes */
		hmap_init(&h->map, nw * sizeof(uint64_t), sizeof(struct hentry), NULL);
	i = hmap_add(&h->map, key, &added);
	e = hmap_val(&h->map, i);
	if (added) {
		*e = *proto;
		e->period = e->samples = 0;
	}
	e->period += period;
	e->samples++;
	return i;
}

/* Branch entries repeat (a hot loop fills the LBR with the same few
 * branches): a small cache from the raw entry to its histogram entry skips
 * resolving and hashing for the repeats. Everything a key can depend on is
 * part of the cache key. */
#define PAIR_CACHE 4096      /* 2^12: the index is the top 12 bits of the hash */
struct pair_slot {
	uint64_t from, to;
	uint32_t pid, tid;
	unsigned cycles;
	int mispred, sec;
	int64_t entry;            /* index in the section's hist; -1 filtered out */
};

static struct pair_slot *pair_lookup(struct report *r, int sec, uint32_t pid, uint32_t tid,
				     const struct pd_branch *b, int mispred, bool *hit)
{
	unsigned cycles = pd_br_cycles(b);
	/* a cheap multiplicative hash: this runs once per branch entry */
	uint64_t h = b->from * 0x9e3779b97f4a7c15ULL ^ b->to * 0xc2b2ae3d27d4eb4fULL ^
		     ((uint64_t)tid << 20) ^ cycles ^ (uint64_t)(mispred + 4 * sec) << 40;
	struct pair_slot *p;

	if (!r->pairs) {
		r->pairs = xcalloc(PAIR_CACHE, sizeof(*r->pairs));
		for (size_t i = 0; i < PAIR_CACHE; i++)
			r->pairs[i].sec = -1;
	}
	p = &r->pairs[(h ^ h >> 29) * 0xbf58476d1ce4e5b9ULL >> 52];
	*hit = p->sec == sec && p->from == b->from && p->to == b->to && p->pid == pid &&
	       p->tid == tid && p->cycles == cycles && p->mispred == mispred;
	if (!*hit)
		*p = (struct pair_slot){ b->from, b->to, pid, tid, cycles, mispred, sec, -1 };
	return p;
}

static void hist_branches(struct report *r, struct rsection *sec, struct hist *h,
			  const struct session_sample *ss)
{
	bool line_from = needs_srcline(r, true), line_to = needs_srcline(r, false);
	int idx = (int)ss->event->index;
	struct hentry proto;
	size_t i;

	memset(&proto, 0, sizeof(proto));
	proto.comm = ss->thread->comm;
	proto.pid = ss->s->pid;
	for (i = 0; i < ss->s->branch_nr; i++) {
		const struct pd_branch *b = &ss->s->branches[i];
		int mispred = pd_br_mispred(b) ? 2 : pd_br_predicted(b) ? 1 : 0;
		struct session_loc *from, *to;
		bool hit;
		struct pair_slot *ps = pair_lookup(r, idx, ss->s->pid, ss->s->tid, b, mispred, &hit);

		if (hit) {
			if (ps->entry >= 0) {
				struct hentry *e = hmap_val(&h->map, (size_t)ps->entry);
				e->period++;
				e->samples++;
				sec->kept_samples++;
				sec->kept_period++;
			}
			continue;
		}
		from = session_resolve(r->s, ss, b->from, SESSION_AT_BRANCH);
		to = session_resolve(r->s, ss, b->to, SESSION_AT_BRANCH);
		if (report_dso_filtered(r, to) && report_dso_filtered(r, from))
			continue;
		if (line_from)
			session_loc_line(r->s, from);
		if (line_to)
			session_loc_line(r->s, to);
		proto.from = *from;
		proto.to = *to;
		proto.cycles = pd_br_cycles(b);
		proto.mispred = mispred;
		ps->entry = (int64_t)hist_add(r, h, &proto, 1);
		sec->kept_samples++;
		sec->kept_period++;
	}
}

static void hist_sample(struct report *r, struct rsection *sec, const struct session_sample *ss, bool filtered)
{
	struct hist *h = sec->view;
	struct session_loc *ip;
	struct hentry proto;

	if (!h)
		h = sec->view = xcalloc(1, sizeof(*h));
	if (r->branch_on) {
		/* samples without a branch stack do not count in branch mode */
		sec->nr_samples += ss->s->branch_nr;
		sec->total_period += ss->s->branch_nr;
		if (!filtered)
			hist_branches(r, sec, h, ss);
		return;
	}
	ip = report_take_sample(r, sec, ss, filtered, ss->s->period);
	if (!ip)
		return;
	memset(&proto, 0, sizeof(proto));
	proto.comm = ss->thread->comm;
	proto.pid = ss->s->pid;
	proto.from = *ip;
	if (needs_srcline(r, true))
		session_loc_line(r->s, &proto.from);
	hist_add(r, h, &proto, ss->s->period);
}

static void hist_free(void *state)
{
	struct hist *h = state;

	hmap_free(&h->map);
	free(h);
}

/* --- printing ---------------------------------------------------------- */

static void sym_text(const struct session_loc *l, char *buf, size_t size)
{
	if (l->sym)
		snprintf(buf, size, "[%c] %s", l->level, l->name);
	else
		snprintf(buf, size, "[%c] %#.16" PRIx64, l->level, l->level == 'H' ? l->addr : l->map_addr);
}

static const char *srcline_text(const struct session_loc *l)
{
	return l->srcline ? l->srcline : "??:0";
}

static void cell_text(const struct report *r, const struct hentry *e, int key, char *buf, size_t size)
{
	(void)r;
	switch (key) {
	case K_COMM: snprintf(buf, size, "%s", e->comm); break;
	case K_PID: snprintf(buf, size, "%7u:%s", e->pid, e->comm); break;
	case K_DSO: case K_DSO_FROM:
		snprintf(buf, size, "%s", e->from.dso ? e->from.dso->short_name : "[unknown]"); break;
	case K_DSO_TO: snprintf(buf, size, "%s", e->to.dso ? e->to.dso->short_name : "[unknown]"); break;
	case K_SYM: case K_SYM_FROM: sym_text(&e->from, buf, size); break;
	case K_SYM_TO: sym_text(&e->to, buf, size); break;
	case K_SRCLINE: case K_SRCLINE_FROM: snprintf(buf, size, "%s", srcline_text(&e->from)); break;
	case K_SRCLINE_TO: snprintf(buf, size, "%s", srcline_text(&e->to)); break;
	case K_MISPRED: snprintf(buf, size, "%s", e->mispred == 2 ? "Y" : e->mispred == 1 ? "N" : "N/A"); break;
	case K_CYCLES:
		if (e->cycles)
			snprintf(buf, size, "%u", e->cycles);
		else
			snprintf(buf, size, "-");
		break;
	}
}

static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
	const struct report *r = ctx;
	const struct hentry *a = *(const struct hentry *const *)pa, *b = *(const struct hentry *const *)pb;
	char ta[512], tb[512];
	size_t i;
	int c;

	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	/* ties in a stable, readable order: by the printed keys */
	for (i = 0; i < r->nr_keys; i++) {
		cell_text(r, a, r->keys[i], ta, sizeof(ta));
		cell_text(r, b, r->keys[i], tb, sizeof(tb));
		c = strcmp(ta, tb);
		if (c)
			return c;
	}
	return 0;
}

/* perf's convert_unit: "147K", "416 " */
static void samples_text(uint64_t n, char *buf, size_t size)
{
	char unit = ' ';
	if (n > 1000) { n /= 1000; unit = 'K'; }
	if (n > 1000) { n /= 1000; unit = 'M'; }
	if (n > 1000) { n /= 1000; unit = 'G'; }
	snprintf(buf, size, "%" PRIu64 "%c", n, unit);
}

/* The rows to show: sorted, after --percent-limit and --max-rows. */
static size_t visible_rows(struct report *r, struct rsection *sec, struct hentry ***rows_out)
{
	struct hist *h = sec->view;
	size_t nr = h ? hmap_count(&h->map) : 0, i, n = 0;
	struct hentry **rows = xcalloc(nr ? nr : 1, sizeof(*rows));

	for (i = 0; i < nr; i++) {
		struct hentry *e = hmap_val(&h->map, i);
		if (r->opts.percent_limit > 0 && report_percent(r, sec, e->period) < r->opts.percent_limit)
			continue;
		rows[n++] = e;
	}
	qsort_r(rows, n, sizeof(*rows), cmp_rows, r);
	if (r->opts.max_rows > 0 && n > (size_t)r->opts.max_rows)
		n = (size_t)r->opts.max_rows;
	*rows_out = rows;
	return n;
}

static void print_hist_text(struct report *r, struct rsection *sec, FILE *out)
{
	struct hentry **rows;
	size_t n = visible_rows(r, sec, &rows), i, k;
	size_t width[16];
	char buf[1024];

	samples_text(report_shown_samples(r, sec), buf, sizeof(buf));
	fprintf(out, "# Samples: %s of event '%s'\n", buf, sec->name);
	fprintf(out, "# Event count (approx.): %" PRIu64 "\n#\n", report_shown_period(r, sec));
	for (k = 0; k < r->nr_keys; k++)
		width[k] = strlen(sort_keys[r->keys[k]].header);
	for (i = 0; i < n; i++)
		for (k = 0; k < r->nr_keys; k++) {
			cell_text(r, rows[i], r->keys[k], buf, sizeof(buf));
			if (strlen(buf) > width[k])
				width[k] = strlen(buf);
		}
	fputs("# Overhead", out);
	for (k = 0; k < r->nr_keys; k++)
		fprintf(out, "  %-*s", (int)width[k], sort_keys[r->keys[k]].header);
	fputs("\n# ........", out);
	for (k = 0; k < r->nr_keys; k++) {
		fputs("  ", out);
		for (i = 0; i < width[k]; i++)
			fputc('.', out);
	}
	fputs("\n#\n", out);
	for (i = 0; i < n; i++) {
		fprintf(out, "  %7.2f%%", report_percent(r, sec, rows[i]->period));
		for (k = 0; k < r->nr_keys; k++) {
			cell_text(r, rows[i], r->keys[k], buf, sizeof(buf));
			fprintf(out, "  %-*s", (int)width[k], buf);
		}
		fputc('\n', out);
	}
	fputs("\n\n", out);
	free(rows);
}

static void print_hist_json(struct report *r, struct rsection *sec, FILE *out)
{
	struct hentry **rows;
	size_t n = visible_rows(r, sec, &rows), i, k;
	char buf[1024];

	fprintf(out, "\"sort\": [");
	for (k = 0; k < r->nr_keys; k++)
		fprintf(out, "%s\"%s\"", k ? ", " : "", sort_keys[r->keys[k]].name);
	fprintf(out, "],\n   \"rows\": [");
	for (i = 0; i < n; i++) {
		fprintf(out, "%s\n    {\"overhead\": %.4f, \"period\": %" PRIu64, i ? "," : "",
			report_percent(r, sec, rows[i]->period), rows[i]->period);
		for (k = 0; k < r->nr_keys; k++) {
			int key = r->keys[k];
			const struct session_loc *l = key == K_SYM_TO || key == K_DSO_TO || key == K_SRCLINE_TO ?
						      &rows[i]->to : &rows[i]->from;
			cell_text(r, rows[i], key, buf, sizeof(buf));
			fprintf(out, ", \"%s\": ", sort_keys[key].name);
			if (key == K_SYM || key == K_SYM_FROM || key == K_SYM_TO) {
				/* the name without perf's "[.] " level prefix, plus the level and address */
				fprintf(out, "{\"name\": ");
				if (l->sym)
					json_str(out, l->name);
				else
					fputs("null", out);
				fprintf(out, ", \"level\": \"%c\", \"addr\": \"0x%" PRIx64 "\", \"dso\": ", l->level,
					l->level == 'H' ? l->addr : l->map_addr);
				if (l->dso)
					json_str(out, l->dso->name);
				else
					fputs("null", out);
				fputc('}', out);
			} else {
				json_str(out, buf);
			}
		}
		fputc('}', out);
	}
	fprintf(out, "\n   ]");
	free(rows);
}

static int hist_print(struct report *r, struct rsection *sec, FILE *out)
{
	if (r->opts.json)
		print_hist_json(r, sec, out);
	else
		print_hist_text(r, sec, out);
	return 0;
}

const struct view_ops view_hist = { "hist", hist_sample, hist_print, hist_free };

/* --- the whole report -------------------------------------------------- */

/* One section per event that has samples (the only event is always shown). */
static bool section_hidden(const struct report *r, const struct rsection *sec)
{
	return r->nr_secs > 1 && sec->nr_samples == 0;
}

int report_print(struct report *r, FILE *out)
{
	bool first = true;
	size_t i;

	if (!r->checked && check(r) < 0)
		return -1;
	if (r->opts.pprof)
		return report_write_pprof(r, r->opts.pprof);
	if (r->opts.json)
		fprintf(out, "{\"ocrec_report\": 1,\n \"mode\": \"%s\",\n \"view\": \"%s\",\n \"lost\": %" PRIu64
			",\n \"events\": [", r->branch_on ? "branch" : "sample", r->view->name, r->lost);
	else
		fprintf(out, "# To display the perf.data header info, please use --header/--header-only "
			"options.\n#\n#\n# Total Lost Samples: %" PRIu64 "\n#\n", r->lost);
	for (i = 0; i < r->nr_secs; i++) {
		struct rsection *sec = &r->secs[i];
		if (section_hidden(r, sec))
			continue;
		if (r->opts.json) {
			fprintf(out, "%s\n  {\"event\": ", first ? "" : ",");
			json_str(out, sec->name);
			fprintf(out, ", \"samples\": %" PRIu64 ", \"event_count\": %" PRIu64 ",\n   ",
				report_shown_samples(r, sec), report_shown_period(r, sec));
		}
		first = false;
		if (!sec->view && r->view != &view_hist) {
			if (r->opts.json)
				fputs("\"empty\": true", out);
			else
				fprintf(out, "# Event '%s': no samples with branch stacks\n#\n", sec->name);
		} else if (r->view->print(r, sec, out) < 0) {
			return -1;
		}
		if (r->opts.json)
			fputc('}', out);
	}
	if (r->opts.json)
		fprintf(out, "\n ]\n}\n");
	return ferror(out) ? oc_err_errno("writing the report") : 0;
}
