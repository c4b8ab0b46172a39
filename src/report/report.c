/* report.c — the session (comms, maps, address cache) and the histogram view:
 * perf report's branch mode (perf 6.1 util/hist.c hist_iter_branch: one entry per LBR
 * entry, pseudo period 1) and its plain sample mode, with perf's sort keys,
 * headers and column layout (docs/perfdata.md, "What perf report and perf script print"). */
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

/* --- interned strings -------------------------------------------------- */

static void strtab_rehash(struct strtab *t)
{
	size_t i;
	free(t->idx);
	t->idx_cap = t->idx_cap ? t->idx_cap * 2 : 256;
	t->idx = xmalloc(t->idx_cap * sizeof(*t->idx));
	memset(t->idx, 0xff, t->idx_cap * sizeof(*t->idx));
	for (i = 0; i < t->n; i++) {
		size_t h = hash_str(t->s[i]) & (t->idx_cap - 1);
		while (t->idx[h] >= 0)
			h = (h + 1) & (t->idx_cap - 1);
		t->idx[h] = (int)i;
	}
}

int str_intern(struct strtab *t, const char *s)
{
	size_t h;
	if ((t->n + 1) * 2 > t->idx_cap)
		strtab_rehash(t);
	for (h = hash_str(s) & (t->idx_cap - 1); t->idx[h] >= 0; h = (h + 1) & (t->idx_cap - 1))
		if (strcmp(t->s[t->idx[h]], s) == 0)
			return t->idx[h];
	GROW(t->s, t->cap, t->n + 1);
	t->s[t->n] = xstrdup(s);
	t->idx[h] = (int)t->n;
	return (int)t->n++;
}

void strtab_free(struct strtab *t)
{
	size_t i;
	for (i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->idx);
	memset(t, 0, sizeof(*t));
}

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

/* --- session ----------------------------------------------------------- */

struct report *report_new(const struct report_opts *opts)
{
	struct report *r = xcalloc(1, sizeof(*r));
	r->opts = *opts;
	r->st = symtab_new(&opts->sym);
	str_intern(&r->strs, ":-1");   /* id 0: a thread without a COMM */
	return r;
}

static void cache_clear(struct report *r)
{
	size_t i;
	for (i = 0; i < r->nr_chunks; i++)
		free(r->chunks[i]);
	free(r->chunks);
	r->chunks = NULL;
	r->nr_chunks = 0;
	r->chunk_used = 0;
	if (r->cache)
		memset(r->cache, 0, r->cache_cap * sizeof(*r->cache));
	r->cache_n = 0;
	/* the branch-entry cache holds resolutions too */
	free(r->pairs);
	r->pairs = NULL;
}

void report_free(struct report *r)
{
	size_t i;
	if (!r)
		return;
	for (i = 0; i < r->nr_secs; i++) {
		view_free(r, &r->secs[i]);
		free(r->secs[i].name);
		free(r->secs[i].hist.e);
		free(r->secs[i].hist.idx);
	}
	free(r->secs);
	cache_clear(r);
	free(r->cache);
	free(r->comms);
	free(r->pairs);
	strtab_free(&r->strs);
	symtab_free(r->st);
	free(r);
}

struct symtab *report_symtab(struct report *r)
{
	return r->st;
}

int report_add_event(struct report *r, const char *name)
{
	r->secs = xrealloc(r->secs, (r->nr_secs + 1) * sizeof(*r->secs));
	memset(&r->secs[r->nr_secs], 0, sizeof(r->secs[0]));
	r->secs[r->nr_secs].name = xstrdup(name);
	return (int)r->nr_secs++;
}

void report_set_has_branch_stack(struct report *r, bool yes)
{
	r->has_branch_stack = yes;
}

void report_set_lost(struct report *r, uint64_t lost)
{
	r->lost += lost;
}

static size_t comm_slot(struct report *r, uint32_t tid, bool *found)
{
	size_t lo = 0, hi = r->nr_comms;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->comms[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < r->nr_comms && r->comms[lo].tid == tid;
	return lo;
}

static void set_comm(struct report *r, uint32_t tid, int comm)
{
	bool found;
	size_t i = comm_slot(r, tid, &found);
	if (!found) {
		GROW(r->comms, r->cap_comms, r->nr_comms + 1);
		memmove(&r->comms[i + 1], &r->comms[i], (r->nr_comms - i) * sizeof(*r->comms));
		r->nr_comms++;
		r->comms[i].tid = tid;
	}
	r->comms[i].comm = comm;
}

int report_comm_of(struct report *r, uint32_t tid)
{
	bool found;
	size_t i = comm_slot(r, tid, &found);
	if (found)
		return r->comms[i].comm;
	/* perf names an unknown thread ":TID" */
	char buf[32];
	snprintf(buf, sizeof(buf), ":%u", tid);
	int id = str_intern(&r->strs, buf);
	set_comm(r, tid, id);
	return id;
}

void report_comm(struct report *r, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	set_comm(r, tid, str_intern(&r->strs, comm));
	if (exec) {
		symtab_exec(r->st, pid);
		cache_clear(r);
	} else {
		free(r->pairs);   /* cached entries carry the old name */
		r->pairs = NULL;
	}
}

void report_mmap(struct report *r, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		 const char *filename, bool kernel)
{
	symtab_mmap(r->st, pid, start, len, pgoff, filename, kernel);
	if (r->cache_n || r->pairs)
		cache_clear(r);
}

void report_fork(struct report *r, uint32_t pid, uint32_t ppid, uint32_t tid)
{
	bool found;
	if (pid != ppid)
		symtab_fork(r->st, pid, ppid);
	/* a new thread inherits its parent's name until it sets its own */
	comm_slot(r, tid, &found);
	if (!found && pid == ppid)
		set_comm(r, tid, report_comm_of(r, pid));
	else if (!found)
		set_comm(r, tid, report_comm_of(r, ppid));
}

void report_build_id(struct report *r, const char *path, const uint8_t *id, uint8_t size)
{
	symtab_add_build_id(r->st, path, id, size);
}

/* --- address cache ----------------------------------------------------- */

#define CHUNK 4096

static size_t cache_hash(uint32_t pid, uint64_t addr)
{
	return hash_u64(addr ^ ((uint64_t)pid << 47));
}

struct rloc *report_resolve(struct report *r, uint32_t pid, uint64_t addr)
{
	struct addr_loc loc;
	struct rloc *l;
	size_t h;

	if (addr >> 63)
		pid = UINT32_MAX;       /* kernel addresses are the same in every process */
	if ((r->cache_n + 1) * 2 > r->cache_cap) {
		struct rloc **old = r->cache;
		size_t oldcap = r->cache_cap, i;
		r->cache_cap = r->cache_cap ? r->cache_cap * 2 : 4096;
		r->cache = xcalloc(r->cache_cap, sizeof(*r->cache));
		for (i = 0; i < oldcap; i++) {
			if (!old[i])
				continue;
			h = cache_hash(old[i]->pid, old[i]->addr) & (r->cache_cap - 1);
			while (r->cache[h])
				h = (h + 1) & (r->cache_cap - 1);
			r->cache[h] = old[i];
		}
		free(old);
	}
	for (h = cache_hash(pid, addr) & (r->cache_cap - 1); r->cache[h]; h = (h + 1) & (r->cache_cap - 1))
		if (r->cache[h]->addr == addr && r->cache[h]->pid == pid)
			return r->cache[h];
	if (!r->nr_chunks || r->chunk_used == CHUNK) {
		r->chunks = xrealloc(r->chunks, (r->nr_chunks + 1) * sizeof(*r->chunks));
		r->chunks[r->nr_chunks++] = xmalloc(CHUNK * sizeof(struct rloc));
		r->chunk_used = 0;
	}
	l = &r->chunks[r->nr_chunks - 1][r->chunk_used++];
	symtab_resolve(r->st, pid == UINT32_MAX ? 0 : pid, addr, &loc);
	*l = (struct rloc){ .addr = addr, .pid = pid, .dso = loc.dso, .sym = loc.sym,
			    .map_addr = loc.map_addr, .file_addr = loc.file_addr, .level = loc.level,
			    .srcline = -1, .file = -1 };
	r->cache[h] = l;
	r->cache_n++;
	return l;
}

/* perf's srcline: basename:line from DWARF (innermost frame); else "+off" in a
 * known symbol, "dso[0xaddr]", or "??:0" (perf 6.1 util/srcline.c). */
void report_line(struct report *r, struct rloc *l)
{
	struct debuginfo *di;
	struct di_location dl;
	char buf[512];

	if (l->line_done)
		return;
	l->line_done = true;
	di = l->dso ? dso_debuginfo(l->dso) : NULL;
	if (di && di_lookup(di, l->file_addr, &dl) == 0 && dl.nr_frames > 0 && dl.frames[0].file) {
		const char *f = dl.frames[0].file, *base = strrchr(f, '/');
		snprintf(buf, sizeof(buf), "%s:%u",
			 r->opts.full_source_path || !base ? f : base + 1, dl.frames[0].line);
		l->srcline = str_intern(&r->strs, buf);
		l->file = str_intern(&r->strs, f);
		l->line = dl.frames[0].line;
		return;
	}
	if (!l->dso)
		snprintf(buf, sizeof(buf), "??:0");
	else if (l->sym)
		snprintf(buf, sizeof(buf), "+%" PRIu64, l->file_addr - l->sym->start);
	else
		snprintf(buf, sizeof(buf), "%s[%" PRIx64 "]", l->dso->short_name, l->map_addr);
	l->srcline = str_intern(&r->strs, buf);
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

int report_check(struct report *r)
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

static bool in_strs(char **list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

static bool in_ids(const int32_t *list, uint32_t id)
{
	for (; *list != -1; list++)
		if ((uint32_t)*list == id)
			return true;
	return false;
}

bool report_sample_filtered(struct report *r, const struct report_sample *s)
{
	if (r->opts.pids && !in_ids(r->opts.pids, s->pid))
		return true;
	if (r->opts.tids && !in_ids(r->opts.tids, s->tid))
		return true;
	if (r->opts.comms && !in_strs(r->opts.comms, r->strs.s[report_comm_of(r, s->tid)]))
		return true;
	return false;
}

static bool dso_filtered(struct report *r, const struct rloc *l)
{
	if (!r->opts.dsos)
		return false;
	return !l->dso || !(in_strs(r->opts.dsos, l->dso->short_name) || in_strs(r->opts.dsos, l->dso->name));
}

/* --- histogram --------------------------------------------------------- */

static void sym_key(const struct rloc *l, uint64_t *w)
{
	/* perf compares symbols, or raw addresses when both are unresolved */
	w[0] = l->sym ? (uint64_t)(uintptr_t)l->dso : 1;
	w[1] = l->sym ? (uint64_t)(uintptr_t)l->sym : l->addr;
}

static size_t make_key(struct report *r, const struct hentry *e, uint64_t *key)
{
	size_t i, n = 0;
	struct rloc *from = (struct rloc *)&e->from, *to = (struct rloc *)&e->to;
	for (i = 0; i < r->nr_keys; i++) {
		switch (r->keys[i]) {
		case K_COMM: key[n++] = (uint64_t)e->comm; break;
		case K_PID: key[n++] = e->pid; break;
		case K_DSO: case K_DSO_FROM: key[n++] = (uint64_t)(uintptr_t)from->dso; break;
		case K_DSO_TO: key[n++] = (uint64_t)(uintptr_t)to->dso; break;
		case K_SYM: case K_SYM_FROM: sym_key(from, &key[n]); n += 2; break;
		case K_SYM_TO: sym_key(to, &key[n]); n += 2; break;
		case K_SRCLINE: case K_SRCLINE_FROM: key[n++] = (uint64_t)from->srcline; break;
		case K_SRCLINE_TO: key[n++] = (uint64_t)to->srcline; break;
		case K_MISPRED: key[n++] = (uint64_t)e->mispred; break;
		case K_CYCLES: key[n++] = e->cycles; break;
		}
	}
	return n;
}

static bool needs_srcline(struct report *r, bool from)
{
	size_t i;
	for (i = 0; i < r->nr_keys; i++)
		if (r->keys[i] == (from ? K_SRCLINE_FROM : K_SRCLINE_TO) || (from && r->keys[i] == K_SRCLINE))
			return true;
	return false;
}

/* Adds period to proto's entry; returns the entry's index. */
static size_t hist_add(struct report *r, struct hist *h, struct hentry *proto, uint64_t period)
{
	uint64_t key[MAX_KEY_WORDS];
	size_t nw = make_key(r, proto, key), i, slot;
	uint64_t hv = hash_words(key, nw);

	if ((h->n + 1) * 2 > h->idx_cap) {
		free(h->idx);
		h->idx_cap = h->idx_cap ? h->idx_cap * 2 : 1024;
		h->idx = xcalloc(h->idx_cap, sizeof(*h->idx));
		for (i = 0; i < h->n; i++) {
			slot = hash_words(h->e[i].key, nw) & (h->idx_cap - 1);
			while (h->idx[slot])
				slot = (slot + 1) & (h->idx_cap - 1);
			h->idx[slot] = (uint32_t)i + 1;
		}
	}
	for (slot = hv & (h->idx_cap - 1); h->idx[slot]; slot = (slot + 1) & (h->idx_cap - 1)) {
		struct hentry *e = &h->e[h->idx[slot] - 1];
		if (memcmp(e->key, key, nw * sizeof(uint64_t)) == 0) {
			e->period += period;
			e->samples++;
			return (size_t)(e - h->e);
		}
	}
	GROW(h->e, h->cap, h->n + 1);
	proto->period = period;
	proto->samples = 1;
	memcpy(proto->key, key, nw * sizeof(uint64_t));
	memset(proto->key + nw, 0, (MAX_KEY_WORDS - nw) * sizeof(uint64_t));
	h->e[h->n] = *proto;
	h->idx[slot] = (uint32_t)++h->n;
	return h->n - 1;
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
				     const struct report_branch *b, int mispred, bool *hit)
{
	/* a cheap multiplicative hash: this runs once per branch entry */
	uint64_t h = b->from * 0x9e3779b97f4a7c15ULL ^ b->to * 0xc2b2ae3d27d4eb4fULL ^
		     ((uint64_t)tid << 20) ^ b->cycles ^ (uint64_t)(mispred + 4 * sec) << 40;
	struct pair_slot *p;

	if (!r->pairs) {
		r->pairs = xcalloc(PAIR_CACHE, sizeof(*r->pairs));
		for (size_t i = 0; i < PAIR_CACHE; i++)
			r->pairs[i].sec = -1;
	}
	p = &r->pairs[(h ^ h >> 29) * 0xbf58476d1ce4e5b9ULL >> 52];
	*hit = p->sec == sec && p->from == b->from && p->to == b->to && p->pid == pid &&
	       p->tid == tid && p->cycles == b->cycles && p->mispred == mispred;
	if (!*hit)
		*p = (struct pair_slot){ b->from, b->to, pid, tid, b->cycles, mispred, sec, -1 };
	return p;
}

void report_sample(struct report *r, const struct report_sample *s)
{
	struct rsection *sec;
	struct hentry proto;
	size_t i;

	if (s->event < 0 || (size_t)s->event >= r->nr_secs)
		return;
	sec = &r->secs[s->event];
	if (r->opts.view != VIEW_HIST) {
		if (!report_sample_filtered(r, s))
			view_sample(r, sec, s);
		return;
	}
	if (r->branch_on) {
		bool line_from = needs_srcline(r, true), line_to = needs_srcline(r, false);
		bool filtered;
		/* samples without a branch stack do not count in branch mode */
		if (!s->nr_branches)
			return;
		sec->nr_samples += s->nr_branches;
		sec->total_period += s->nr_branches;
		filtered = report_sample_filtered(r, s);
		if (filtered)
			return;
		memset(&proto, 0, sizeof(proto));
		proto.comm = report_comm_of(r, s->tid);
		proto.pid = s->pid;
		for (i = 0; i < s->nr_branches; i++) {
			const struct report_branch *b = &s->branches[i];
			int mispred = b->mispred ? 2 : b->predicted ? 1 : 0;
			bool hit;
			struct pair_slot *ps = pair_lookup(r, s->event, s->pid, s->tid, b, mispred, &hit);
			if (hit) {
				if (ps->entry >= 0) {
					sec->hist.e[ps->entry].period++;
					sec->hist.e[ps->entry].samples++;
				}
				continue;
			}
			struct rloc *from = report_resolve(r, s->pid, b->from);
			struct rloc *to = report_resolve(r, s->pid, b->to);
			if (dso_filtered(r, to) && dso_filtered(r, from))
				continue;
			if (line_from)
				report_line(r, from);
			if (line_to)
				report_line(r, to);
			proto.from = *from;
			proto.to = *to;
			proto.cycles = b->cycles;
			proto.mispred = mispred;
			ps->entry = (int64_t)hist_add(r, &sec->hist, &proto, 1);
		}
		return;
	}
	sec->nr_samples++;
	sec->total_period += s->period;
	if (report_sample_filtered(r, s))
		return;
	memset(&proto, 0, sizeof(proto));
	proto.comm = report_comm_of(r, s->tid);
	proto.pid = s->pid;
	proto.from = *report_resolve(r, s->pid, s->ip);
	if (dso_filtered(r, &proto.from))
		return;
	if (needs_srcline(r, true))
		report_line(r, &proto.from);
	hist_add(r, &sec->hist, &proto, s->period);
}

/* --- printing ---------------------------------------------------------- */

static void sym_text(const struct rloc *l, char *buf, size_t size)
{
	if (l->sym)
		snprintf(buf, size, "[%c] %s", l->level, l->sym->name);
	else
		snprintf(buf, size, "[%c] %#.16" PRIx64, l->level, l->level == 'H' ? l->addr : l->map_addr);
}

static void cell_text(struct report *r, const struct hentry *e, int key, char *buf, size_t size)
{
	switch (key) {
	case K_COMM: snprintf(buf, size, "%s", r->strs.s[e->comm]); break;
	case K_PID: snprintf(buf, size, "%7u:%s", e->pid, r->strs.s[e->comm]); break;
	case K_DSO: case K_DSO_FROM:
		snprintf(buf, size, "%s", e->from.dso ? e->from.dso->short_name : "[unknown]"); break;
	case K_DSO_TO: snprintf(buf, size, "%s", e->to.dso ? e->to.dso->short_name : "[unknown]"); break;
	case K_SYM: case K_SYM_FROM: sym_text(&e->from, buf, size); break;
	case K_SYM_TO: sym_text(&e->to, buf, size); break;
	case K_SRCLINE: case K_SRCLINE_FROM: snprintf(buf, size, "%s", r->strs.s[e->from.srcline]); break;
	case K_SRCLINE_TO: snprintf(buf, size, "%s", r->strs.s[e->to.srcline]); break;
	case K_MISPRED: snprintf(buf, size, "%s", e->mispred == 2 ? "Y" : e->mispred == 1 ? "N" : "N/A"); break;
	case K_CYCLES:
		if (e->cycles)
			snprintf(buf, size, "%u", e->cycles);
		else
			snprintf(buf, size, "-");
		break;
	}
}

static const struct report *sort_ctx;

static int cmp_rows(const void *pa, const void *pb)
{
	const struct hentry *a = *(const struct hentry *const *)pa, *b = *(const struct hentry *const *)pb;
	char ta[512], tb[512];
	size_t i;
	int c;
	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	/* ties in a stable, readable order: by the printed keys */
	for (i = 0; i < sort_ctx->nr_keys; i++) {
		cell_text((struct report *)sort_ctx, a, sort_ctx->keys[i], ta, sizeof(ta));
		cell_text((struct report *)sort_ctx, b, sort_ctx->keys[i], tb, sizeof(tb));
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
	struct hentry **rows = xcalloc(sec->hist.n ? sec->hist.n : 1, sizeof(*rows));
	size_t i, n = 0;
	for (i = 0; i < sec->hist.n; i++) {
		double pct = sec->total_period ? 100.0 * sec->hist.e[i].period / sec->total_period : 0;
		if (r->opts.percent_limit > 0 && pct < r->opts.percent_limit)
			continue;
		rows[n++] = &sec->hist.e[i];
	}
	sort_ctx = r;
	qsort(rows, n, sizeof(*rows), cmp_rows);
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

	samples_text(sec->nr_samples, buf, sizeof(buf));
	fprintf(out, "# Samples: %s of event '%s'\n", buf, sec->name);
	fprintf(out, "# Event count (approx.): %" PRIu64 "\n#\n", sec->total_period);
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
		double pct = sec->total_period ? 100.0 * rows[i]->period / sec->total_period : 0;
		fprintf(out, "  %7.2f%%", pct);
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
		double pct = sec->total_period ? 100.0 * rows[i]->period / sec->total_period : 0;
		fprintf(out, "%s\n    {\"overhead\": %.4f, \"period\": %" PRIu64, i ? "," : "", pct,
			rows[i]->period);
		for (k = 0; k < r->nr_keys; k++) {
			int key = r->keys[k];
			const struct rloc *l = key == K_SYM_TO || key == K_DSO_TO || key == K_SRCLINE_TO ?
					       &rows[i]->to : &rows[i]->from;
			cell_text(r, rows[i], key, buf, sizeof(buf));
			fprintf(out, ", \"%s\": ", sort_keys[key].name);
			if (key == K_SYM || key == K_SYM_FROM || key == K_SYM_TO) {
				/* the name without perf's "[.] " level prefix, plus the level and address */
				fprintf(out, "{\"name\": ");
				if (l->sym)
					json_str(out, l->sym->name);
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

/* One section per event that has samples (the only event is always shown). */
static bool section_hidden(const struct report *r, const struct rsection *sec)
{
	return r->nr_secs > 1 && sec->nr_samples == 0;
}

int report_print(struct report *r, FILE *out)
{
	size_t i;
	if (!r->checked && report_check(r) < 0)
		return -1;
	if (r->opts.json) {
		fprintf(out, "{\"ocrec_report\": 1,\n \"mode\": \"%s\",\n \"view\": \"%s\",\n \"lost\": %" PRIu64
			",\n \"events\": [",
			r->branch_on ? "branch" : "sample",
			r->opts.view == VIEW_HIST ? "hist" : r->opts.view == VIEW_SOURCE ? "source" :
			r->opts.view == VIEW_BRANCH_HISTORY ? "branch_history" : "hot_paths", r->lost);
		bool first = true;
		for (i = 0; i < r->nr_secs; i++) {
			struct rsection *sec = &r->secs[i];
			if (section_hidden(r, sec))
				continue;
			fprintf(out, "%s\n  {\"event\": ", first ? "" : ",");
			first = false;
			json_str(out, sec->name);
			fprintf(out, ", \"samples\": %" PRIu64 ", \"event_count\": %" PRIu64 ",\n   ",
				sec->nr_samples, sec->total_period);
			if (r->opts.view == VIEW_HIST)
				print_hist_json(r, sec, out);
			else if (view_print(r, sec, out) < 0)
				return -1;
			fputc('}', out);
		}
		fprintf(out, "\n ]\n}\n");
		return ferror(out) ? oc_err_errno("writing the report") : 0;
	}
	fputs("# To display the perf.data header info, please use --header/--header-only options.\n#\n#\n",
	      out);
	fprintf(out, "# Total Lost Samples: %" PRIu64 "\n#\n", r->lost);
	for (i = 0; i < r->nr_secs; i++) {
		struct rsection *sec = &r->secs[i];
		if (section_hidden(r, sec))
			continue;
		if (r->opts.view == VIEW_HIST)
			print_hist_text(r, sec, out);
		else if (view_print(r, sec, out) < 0)
			return -1;
	}
	return ferror(out) ? oc_err_errno("writing the report") : 0;
}
