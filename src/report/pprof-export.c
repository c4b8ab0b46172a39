/* pprof-export.c — `ocrec report --pprof FILE`: the report's samples as a
 * pprof profile (docs/pprof.md has the mapping field by field).
 *   sample mode: one stack per sample, its call chain (or its address), leaf
 *                first, with pid, tid and comm labels;
 *   branch mode: the sampled address, then each LBR entry's target and source,
 *                newest first, then the call chain: the paths --branch-history
 *                shows, as stacks a flame graph draws; mispredicted entries and
 *                cycles as numeric labels.
 * Every event has its pair of values (samples, and the period in its unit;
 * branch mode adds the branch count). Samples with the same stack, event and
 * labels are summed into one pprof Sample, as pprof itself would sum them, so
 * the file and the memory follow what is distinct, not the sample count. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pprof/pprof.h"
#include "report/report-internal.h"

#define MAX_STACK_IDS 1024         /* frames of one stack: sampled address, 2 per LBR entry, call chain */

/* A stack: location ids, leaf first (the array is owned by the table). */
struct stack_key {
	const uint64_t *ids;
	size_t n;
};

static uint64_t stack_hash(const void *key)
{
	const struct stack_key *k = key;
	return hash_words(k->ids, k->n);
}

static bool stack_eq(const void *a, const void *b)
{
	const struct stack_key *x = a, *y = b;
	return x->n == y->n && memcmp(x->ids, y->ids, x->n * sizeof(*x->ids)) == 0;
}

static const struct hmap_ops stack_ops = { stack_hash, stack_eq };

struct agg_key {                   /* what makes two samples one pprof Sample */
	uint32_t stack, event, pid, tid;
	const char *comm;              /* interned by the session */
	uint64_t mispredicts, cycles;
};

struct agg_val {
	int64_t samples, period, branches;
};

struct site_key {                  /* an address as one process sees it */
	uint64_t addr;
	uint32_t pid;
	uint32_t caller;               /* a return address: its line is the call's */
};

struct loc_key {                   /* a pprof Location */
	uint64_t mapping, addr;
	uint64_t caller;
};

struct leaf_hits {
	uint64_t all;                  /* samples whose address the mapping holds */
	uint64_t own;                  /* of them, in a process the mapping's file is the program of */
};

struct export {
	struct pprof *p;
	struct hmap sites;             /* site_key -> location id, while maps_gen holds */
	unsigned maps_gen;             /* session_maps_gen() of the sites */
	struct hmap locations;         /* loc_key -> location id */
	struct hmap names;             /* linkage name (pointer) -> demangled, interned */
	struct hmap stacks;            /* stack_key -> nothing: entry i is stack i */
	struct hmap samples;           /* agg_key -> agg_val */
	struct hmap leaf_hits;         /* user-space mapping id -> struct leaf_hits */
	/* the time the samples span, per input: the file's mtime ends it */
	int cur_input;
	int64_t cur_mtime_ns;          /* the current input's modification time, 0: a pipe */
	uint64_t first_time, last_time;
	int64_t start_ns, end_ns;      /* over all inputs, wall clock */
	bool have_time;
};

/* An input's samples end when its file was last written: they began the
 * span of their sample times before. */
static void end_input(struct export *x)
{
	int64_t start, span;

	if (x->cur_input < 0 || !x->cur_mtime_ns)
		return;
	span = x->last_time > x->first_time ? (int64_t)(x->last_time - x->first_time) : 0;
	start = x->cur_mtime_ns - span;
	if (!x->have_time || start < x->start_ns)
		x->start_ns = start;
	if (!x->have_time || x->cur_mtime_ns > x->end_ns)
		x->end_ns = x->cur_mtime_ns;
	x->have_time = true;
}

static struct export *export_of(struct report *r)
{
	struct export *x = r->pprof;

	if (x)
		return x;
	x = r->pprof = xcalloc(1, sizeof(*x));
	x->p = pprof_new();
	hmap_init(&x->sites, sizeof(struct site_key), sizeof(uint64_t), NULL);
	hmap_init(&x->locations, sizeof(struct loc_key), sizeof(uint64_t), NULL);
	hmap_init(&x->names, sizeof(const char *), sizeof(const char *), NULL);
	hmap_init(&x->stacks, sizeof(struct stack_key), 0, &stack_ops);
	hmap_init(&x->samples, sizeof(struct agg_key), sizeof(struct agg_val), NULL);
	hmap_init(&x->leaf_hits, sizeof(uint64_t), sizeof(struct leaf_hits), NULL);
	x->cur_input = -1;
	return x;
}

void report_pprof_free(struct report *r)
{
	struct export *x = r->pprof;
	size_t i;

	if (!x)
		return;
	for (i = 0; i < hmap_count(&x->stacks); i++)
		free((void *)((const struct stack_key *)hmap_key(&x->stacks, i))->ids);
	hmap_free(&x->sites);
	hmap_free(&x->locations);
	hmap_free(&x->names);
	hmap_free(&x->stacks);
	hmap_free(&x->samples);
	hmap_free(&x->leaf_hits);
	pprof_free(x->p);
	free(x);
	r->pprof = NULL;
}

/* --- locations ------------------------------------------------------------ */

static uint64_t mapping_of(struct report *r, struct export *x, const struct session_loc *l)
{
	struct pprof_mapping m;
	struct debuginfo *di;
	char build_id[41];
	size_t i;

	if (!l->dso)
		return 0;
	memset(&m, 0, sizeof(m));
	m.start = l->map_start;
	m.limit = l->map_end;
	m.offset = l->map_pgoff;
	m.file = l->dso->name;
	for (i = 0; i < l->dso->build_id_size && i < 20; i++)
		snprintf(build_id + 2 * i, 3, "%02x", l->dso->build_id[i]);
	build_id[2 * i] = '\0';
	m.build_id = build_id;
	m.has_functions = l->dso->nr_syms > 0;
	di = l->dso->kernel ? NULL : dso_debuginfo(l->dso);
	m.has_filenames = m.has_line_numbers = m.has_inline_frames = di && di_has_lines(di);
	(void)r;
	return pprof_mapping(x->p, &m);
}

/* An inlined function's name as shown: its linkage name demangled, once. */
static const char *inline_name(struct report *r, struct export *x, const struct di_frame *f)
{
	const char *key = f->linkage_name ? f->linkage_name : f->function;
	const char **shown;
	size_t i;
	bool added;
	char *d;

	if (!key)
		return NULL;
	if (r->opts.session.no_demangle)
		return key;
	i = hmap_add(&x->names, &key, &added);
	shown = hmap_val(&x->names, i);
	if (added) {
		d = sym_demangle(key);
		*shown = d ? session_intern(r->s, d) : f->function ? f->function : key;
		free(d);
	}
	return *shown;
}

/* The lines of a location: the inline chain from DWARF, innermost first,
 * else the symbol alone. A return address (caller) is looked up one byte
 * back, at the call, as perf and pprof do. */
static size_t lines_of(struct report *r, struct export *x, const struct session_loc *l, bool caller,
		       struct pprof_line *lines)
{
	struct debuginfo *di = l->dso && !l->dso->kernel ? dso_debuginfo(l->dso) : NULL;
	struct di_location dl;
	int i;

	if (di && l->file_addr >= (uint64_t)caller && di_lookup(di, l->file_addr - caller, &dl) == 0 &&
	    dl.nr_frames > 0) {
		for (i = 0; i < dl.nr_frames; i++) {
			const struct di_frame *f = &dl.frames[i];
			bool outer = i == dl.nr_frames - 1;
			/* the function all the others are inlined into is the symbol: same
			 * name as every other view gives it */
			const char *name = outer && l->sym ? l->name : inline_name(r, x, f);
			const char *system = outer && l->sym ? l->sym->name :
					     f->linkage_name ? f->linkage_name : f->function;
			lines[i].function = pprof_function(x->p, name, system, f->file, f->decl_line);
			lines[i].line = f->line;
		}
		return (size_t)dl.nr_frames;
	}
	if (!l->sym)
		return 0;
	lines[0].function = pprof_function(x->p, l->name, l->sym->name, NULL, 0);
	lines[0].line = 0;
	return 1;
}

static uint64_t location_of(struct report *r, struct export *x, const struct session_sample *ss,
			    struct session_loc *l, bool caller)
{
	struct site_key sk;
	struct loc_key lk;
	struct pprof_line lines[DI_MAX_FRAMES];
	uint64_t *id, *site;
	size_t i;
	bool added;

	/* A sample can come before the MMAP2 of the library it ran in (file
	 * order: the recorder reads one CPU's buffer after another); its
	 * address then resolves to nothing, and must not stay so once the
	 * mapping is known (seen: every sample in memset's rep stosb shown as
	 * <unknown> by pprof, since the first one came before libc's MMAP2). */
	if (x->maps_gen != session_maps_gen(r->s)) {
		hmap_clear(&x->sites);
		x->maps_gen = session_maps_gen(r->s);
	}
	memset(&sk, 0, sizeof(sk));
	sk.addr = l->addr;
	sk.pid = ss->s->pid;
	sk.caller = caller;
	i = hmap_add(&x->sites, &sk, &added);
	site = hmap_val(&x->sites, i);
	if (!added)
		return *site;
	memset(&lk, 0, sizeof(lk));
	lk.mapping = mapping_of(r, x, l);
	lk.addr = l->addr;
	lk.caller = caller;
	i = hmap_add(&x->locations, &lk, &added);
	id = hmap_val(&x->locations, i);
	if (added)
		*id = pprof_location(x->p, lk.mapping, l->addr, lines, lines_of(r, x, l, caller, lines));
	site = hmap_val(&x->sites, hmap_find(&x->sites, &sk));
	*site = *id;
	return *id;
}

/* --- samples -------------------------------------------------------------- */

static uint32_t stack_id(struct export *x, const uint64_t *ids, size_t n)
{
	struct stack_key k = { ids, n };
	bool added;
	size_t i = hmap_find(&x->stacks, &k);

	if (i != HMAP_NONE)
		return (uint32_t)i;
	k.ids = n ? memcpy(xmalloc(n * sizeof(*ids)), ids, n * sizeof(*ids)) : NULL;
	i = hmap_add(&x->stacks, &k, &added);
	return (uint32_t)i;
}

static void pprof_sample(struct report *r, struct rsection *sec, const struct session_sample *ss,
			 bool filtered)
{
	struct export *x = export_of(r);
	uint64_t ids[MAX_STACK_IDS];
	struct report_step steps[MAX_STACK_IDS];
	uint64_t period = ss->s->period ? ss->s->period : 1;
	struct session_loc *ip;
	struct agg_key k;
	struct agg_val *v;
	size_t n, i;

	if (r->branch_on && !ss->s->branch_nr)
		return;   /* as in every branch-mode view: samples without branches do not count */
	ip = report_take_sample(r, sec, ss, filtered, period);
	if (!ip)
		return;

	if ((int)ss->input != x->cur_input) {
		end_input(x);
		x->cur_input = (int)ss->input;
		x->cur_mtime_ns = r->input_mtime_ns;
		x->first_time = x->last_time = ss->s->time;
	}
	if (ss->s->time < x->first_time)
		x->first_time = ss->s->time;
	if (ss->s->time > x->last_time)
		x->last_time = ss->s->time;

	memset(&k, 0, sizeof(k));
	if (ip->dso && !ip->kernel) {
		uint64_t mapping = mapping_of(r, x, ip);
		struct leaf_hits *h = hmap_get(&x->leaf_hits, &mapping);

		h->all++;
		/* the kernel keeps 15 characters of the program's name */
		h->own += ss->thread->comm && strncmp(str_basename(ip->dso->name), ss->thread->comm, 15) == 0;
	}
	n = report_sample_path(r, ss, r->branch_on, steps, MAX_STACK_IDS);
	for (i = 0; i < n; i++)
		ids[i] = location_of(r, x, ss, steps[i].loc, steps[i].caller);
	for (i = 0; r->branch_on && i < ss->s->branch_nr; i++) {
		k.mispredicts += pd_br_mispred(&ss->s->branches[i]);
		k.cycles += pd_br_cycles(&ss->s->branches[i]);
	}
	k.stack = stack_id(x, ids, n);
	k.event = ss->event->index;
	k.pid = ss->s->pid;
	k.tid = ss->s->tid;
	k.comm = ss->thread->comm;
	v = hmap_get(&x->samples, &k);
	v->samples++;
	v->period += (int64_t)period;
	v->branches += (int64_t)ss->s->branch_nr;
}

/* The profile is the report's, not a section's (report_write_pprof prints
 * it, report_pprof_free frees it). */
const struct view_ops view_pprof = { "pprof", pprof_sample, NULL, NULL };

/* --- the profile ---------------------------------------------------------- */

static bool is_cpu_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* Sample types: per event, samples/count, [branches/count], then the period
 * in its unit (cpu/nanoseconds for the clocks). One event keeps pprof's
 * usual names; several are told apart by the event's name. */
static size_t add_sample_types(struct report *r, struct export *x)
{
	size_t i, per = r->branch_on ? 3 : 2;

	for (i = 0; i < r->nr_secs; i++) {
		const struct session_event *ev = session_event(r->s, i);
		bool cpu = is_cpu_clock(&ev->attr);
		char *samples, *branches, *period;

		if (r->nr_secs == 1) {
			samples = xstrdup("samples");
			branches = xstrdup("branches");
			period = xstrdup(cpu ? "cpu" : ev->name);
		} else {
			samples = xasprintf("%s_samples", ev->name);
			branches = xasprintf("%s_branches", ev->name);
			period = xstrdup(ev->name);
		}
		pprof_add_sample_type(x->p, samples, "count");
		if (r->branch_on)
			pprof_add_sample_type(x->p, branches, "count");
		pprof_add_sample_type(x->p, period, cpu ? "nanoseconds" : "count");
		if (i == 0) {
			/* the period pprof reports: the first event's, when it was fixed,
			 * else the mean of what its samples carried */
			const struct rsection *sec = &r->secs[0];
			int64_t p = 0;
			if (!ev->attr.freq && ev->attr.sample_period)
				p = (int64_t)ev->attr.sample_period;
			else if (cpu && ev->attr.freq && ev->attr.sample_freq)
				p = (int64_t)(1000000000ULL / ev->attr.sample_freq);
			else if (sec->nr_samples)
				p = (int64_t)(sec->total_period / sec->nr_samples);
			pprof_set_period(x->p, period, cpu ? "nanoseconds" : "count", p);
		}
		free(samples);
		free(branches);
		free(period);
	}
	return per;
}

int report_write_pprof(struct report *r, const char *path)
{
	struct export *x = export_of(r);
	size_t per = add_sample_types(r, x), nv = per * r->nr_secs, i;
	int64_t *values = xcalloc(nv ? nv : 1, sizeof(*values));
	const struct leaf_hits *h, *best = NULL;

	/* Mapping 1 is the program's binary (profile.proto): the file named as
	 * the sampled process is, else the user-space mapping most samples are
	 * in. By samples alone, a C++ program whose run spent most of its time
	 * in libc got libc.so.6 first. */
	for (i = 0; i < hmap_count(&x->leaf_hits); i++) {
		h = hmap_val(&x->leaf_hits, i);
		if (!best || h->own > best->own || (h->own == best->own && h->all > best->all)) {
			best = h;
			pprof_set_main_mapping(x->p, *(const uint64_t *)hmap_key(&x->leaf_hits, i));
		}
	}
	end_input(x);
	x->cur_input = -1;
	for (i = 0; i < hmap_count(&x->samples); i++) {
		const struct agg_key *k = hmap_key(&x->samples, i);
		const struct agg_val *v = hmap_val(&x->samples, i);
		const struct stack_key *st = hmap_key(&x->stacks, k->stack);
		struct pprof_label labels[5] = {
			{ "pid", NULL, k->pid, NULL },
			{ "tid", NULL, k->tid, NULL },
			{ "comm", k->comm, 0, NULL },
		};
		size_t nl = 3;

		memset(values, 0, nv * sizeof(*values));
		values[k->event * per] = v->samples;
		if (r->branch_on) {
			values[k->event * per + 1] = v->branches;
			/* where the branch records have them (not the software sampler's) */
			if (k->mispredicts)
				labels[nl++] = (struct pprof_label){ "mispredicts", NULL, (int64_t)k->mispredicts, "count" };
			if (k->cycles)
				labels[nl++] = (struct pprof_label){ "cycles", NULL, (int64_t)k->cycles, "cycles" };
		}
		values[k->event * per + per - 1] = v->period;
		pprof_add_sample(x->p, st->ids, st->n, values, nv, labels, nl);
	}
	free(values);
	if (x->have_time)
		pprof_set_time(x->p, x->start_ns, x->end_ns - x->start_ns);
	pprof_add_comment(x->p, r->branch_on ? "ocrec report --pprof: branch mode (stacks are LBR paths: "
					      "sampled address, then branch targets and sources newest first)"
					    : "ocrec report --pprof: sample mode (stacks are call chains)");
	return pprof_write(x->p, path);
}

/* The modification time of an input, in ns since the epoch (0: a pipe). */
int64_t report_input_mtime(const char *path)
{
	struct stat st;

	if (!strcmp(path, "-") || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}
