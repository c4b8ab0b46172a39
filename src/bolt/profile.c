/* profile.c — branch stacks aggregated the way perf2bolt 16's DataAggregator
 * does (parseBranchEvents, processBranchEvents, doTrace, doBranch,
 * getFallthroughsInTrace), and the three output forms: fdata, its no_lbr
 * variant and the pre-aggregated text. */
#include <stdlib.h>
#include <string.h>

#include "bolt/bolt-internal.h"
#include "util/util.h"

/* perf2bolt drops LBR entries touching the kernel (ignoreKernelInterrupt). */
#define KERNEL_BASE 0xffff800000000000ULL
/* An address outside the binary: BOLT's -1 for one it cannot place. */
#define OUTSIDE UINT64_MAX

/* Keys and values of the tables: two addresses and two counts. */
struct pair {
	uint64_t a, b;
};

static int cmp_pair_entry(const void *pa, const void *pb)
{
	const struct pair *a = pa, *b = pb;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

/* The entries of a (pair -> pair) table as key, value pairs sorted by key;
 * caller frees. */
static struct pair *sorted_entries(const struct hmap *m)
{
	struct pair *v = xcalloc(2 * hmap_count(m) + 1, sizeof(*v));
	size_t i;
	for (i = 0; i < hmap_count(m); i++) {
		v[2 * i] = *(const struct pair *)hmap_key(m, i);
		v[2 * i + 1] = *(const struct pair *)hmap_val(m, i);
	}
	if (hmap_count(m) > 1)
		qsort(v, hmap_count(m), 2 * sizeof(*v), cmp_pair_entry);
	return v;
}

static struct pair *pair_get(struct hmap *m, uint64_t a, uint64_t b)
{
	struct pair k = { a, b };
	return hmap_get(m, &k);
}

/* A table of pairs with a small direct-mapped cache of entry numbers in
 * front: most branches and traces of a profile repeat, and a hit costs no
 * hashing of the whole key. */
#define HOT_SLOTS 4096

struct pair_table {
	struct hmap map;
	uint32_t hot[HOT_SLOTS];    /* entry + 1, 0: empty */
};

static struct pair *table_get(struct pair_table *t, uint64_t a, uint64_t b)
{
	uint32_t *slot = &t->hot[((a * 0x9e3779b97f4a7c15ULL) ^ (b * 0xc2b2ae3d27d4eb4fULL)) >> 52];
	const struct pair *k;
	size_t i;

	if (*slot) {
		k = hmap_key(&t->map, *slot - 1);
		if (k->a == a && k->b == b)
			return hmap_val(&t->map, *slot - 1);
	}
	i = hmap_add(&t->map, &(struct pair){ a, b }, NULL);
	*slot = (uint32_t)(i + 1);
	return hmap_val(&t->map, i);
}

/* --- the profile -------------------------------------------------------------------- */

struct bolt_profile {
	struct bolt_binary *bin;
	struct pair_table branches; /* (from, to) -> (count, mispreds); 0 outside functions */
	struct pair_table traces;   /* (from, to) -> (intern, extern) fall-through counts */
	struct hmap samples;        /* (ip, 0) -> (count, 0), no_lbr */
	char **events;              /* no_lbr event names, in insertion order */
	size_t nr_events;
	struct bolt_stats stats;
	struct { uint64_t addr; struct bolt_func *f; } near[1024];   /* address -> function */
};

struct bolt_profile *bolt_profile_new(struct bolt_binary *b)
{
	struct bolt_profile *p = xcalloc(1, sizeof(*p));
	size_t i;
	p->bin = b;
	hmap_init(&p->branches.map, sizeof(struct pair), sizeof(struct pair), NULL);
	hmap_init(&p->traces.map, sizeof(struct pair), sizeof(struct pair), NULL);
	hmap_init(&p->samples, sizeof(struct pair), sizeof(struct pair), NULL);
	for (i = 0; i < ARRAY_SIZE(p->near); i++)
		p->near[i].addr = OUTSIDE;
	return p;
}

void bolt_profile_free(struct bolt_profile *p)
{
	size_t i;
	if (!p)
		return;
	hmap_free(&p->branches.map);
	hmap_free(&p->traces.map);
	hmap_free(&p->samples);
	for (i = 0; i < p->nr_events; i++)
		free(p->events[i]);
	free(p->events);
	free(p);
}

void bolt_profile_stats(const struct bolt_profile *p, struct bolt_stats *out)
{
	*out = p->stats;
}

static struct bolt_func *func_of(const struct bolt_profile *p, uint64_t addr)
{
	return addr == OUTSIDE ? NULL : bolt_func_containing(p->bin, addr);
}

/* The function holding addr, remembered per address: branch entries repeat. */
static struct bolt_func *func_near(struct bolt_profile *p, uint64_t addr)
{
	size_t slot = (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 54);

	if (addr == OUTSIDE)
		return NULL;
	if (p->near[slot].addr != addr) {
		p->near[slot].addr = addr;
		p->near[slot].f = bolt_func_containing(p->bin, addr);
	}
	return p->near[slot].f;
}

void bolt_profile_add_stack(struct bolt_profile *p, const struct bolt_branch *e, size_t n)
{
	struct bolt_func *next_f = NULL;
	uint64_t next_from = 0;
	bool have_next = false;
	size_t i;

	p->stats.stacks++;
	for (i = 0; i < n; i++) {
		uint64_t from = e[i].from_in ? e[i].from : OUTSIDE, to = e[i].to_in ? e[i].to : OUTSIDE;
		struct bolt_func *ff, *tf;
		struct pair *s;

		if ((!e[i].from_in && e[i].from >= KERNEL_BASE) || (!e[i].to_in && e[i].to >= KERNEL_BASE))
			continue;
		if (!e[i].mispred && !e[i].predicted)
			p->stats.mispred_missing = true;
		ff = func_near(p, from);
		tf = func_near(p, to);
		if (have_next) {
			/* the straight run from this entry's target to the newer one's source */
			if (tf && next_from != OUTSIDE && bolt_func_contains(tf, next_from)) {
				s = table_get(&p->traces, to, next_from);
				if (from != OUTSIDE && bolt_func_contains(tf, from))
					s->a++;
				else
					s->b++;
			} else if (tf && next_f) {
				p->stats.mismatched_traces++;
			}
			p->stats.traces++;
		}
		next_from = from;
		next_f = ff;
		have_next = true;
		s = table_get(&p->branches, ff ? from : 0, tf ? to : 0);
		s->a++;
		s->b += e[i].mispred;
	}
}

void bolt_profile_add_aggregated(struct bolt_profile *p, char kind, uint64_t from, uint64_t to,
				 uint64_t count, uint64_t mispreds)
{
	struct pair *s;

	if (kind == 'B') {
		s = table_get(&p->branches, from, to);
		s->a += count;
		s->b += mispreds;
		p->stats.stacks++;
	} else {
		s = table_get(&p->traces, from, to);
		if (kind == 'F')
			s->a += count;
		else
			s->b += count;
	}
}

void bolt_profile_add_sample(struct bolt_profile *p, uint64_t ip, bool in_binary, const char *event)
{
	size_t i;

	p->stats.samples++;
	for (i = 0; i < p->nr_events && strcmp(p->events[i], event); i++)
		;
	if (i == p->nr_events) {
		p->events = xrealloc(p->events, (p->nr_events + 1) * sizeof(*p->events));
		p->events[p->nr_events++] = xstrdup(event);
	}
	if (in_binary && ip)
		pair_get(&p->samples, ip, 0)->a++;
}

/* --- processing: BOLT's doTrace and doBranch into per-function lines ------------------ */

/* One line of the fdata: from and to locations, a location being a function
 * (index, or -1 for an unknown place) and an offset. */
struct line_key {
	int64_t ff;
	uint64_t fo;
	int64_t tf;
	uint64_t to;
};

static void add_line(struct hmap *l, long ff, uint64_t fo, long tf, uint64_t to, uint64_t count, uint64_t mis)
{
	struct line_key k = { ff, fo, tf, to };
	struct pair *v = hmap_get(l, &k);
	v->a += count;
	v->b += mis;
}

/* DataAggregator::getFallthroughsInTrace: the fall-through edges (block's
 * last instruction -> next block) a trace [from, to] runs through; none when
 * the trace does not fit the function's blocks. */
static void fallthroughs(const struct bolt_func *f, uint64_t first_from, uint64_t from_addr, uint64_t to_addr,
			 struct hmap *out, long fi, uint64_t count)
{
	uint64_t from = from_addr - f->addr, to = to_addr - f->addr;
	long fb, tb, k;

	if (!f->simple || !f->nr_blocks || from > to)
		return;
	fb = bolt_block_containing(f, from);
	tb = bolt_block_containing(f, to);
	if (fb < 0 || tb < 0)
		return;
	/* a return to the block after a call: the call's block falls through */
	if (from == f->blocks[fb].offset && !(first_from != OUTSIDE && bolt_func_contains(f, first_from)) &&
	    !f->blocks[fb].entry && !f->blocks[fb].landing_pad && fb > 0 && f->blocks[fb - 1].next_is_succ &&
	    f->blocks[fb - 1].ends_in_call)
		fb--;
	if (fb == tb)
		return;
	for (k = fb; k < tb; k++)
		if (!f->blocks[k].next_is_succ)
			return;
	for (k = fb; k < tb; k++)
		add_line(out, fi, f->blocks[k].last, fi, f->blocks[k + 1].offset, count, 0);
}

/* DataAggregator::doTrace */
static void do_trace(struct bolt_profile *p, struct hmap *out, uint64_t first_from, uint64_t from, uint64_t to,
		     uint64_t count)
{
	struct bolt_func *ff = func_of(p, from), *tf = func_of(p, to);

	if (ff && ff == tf)
		fallthroughs(ff, first_from, from, to, out, ff - p->bin->funcs, count);
}

/* DataAggregator::doBranch: within a function (not to its entry), or a call,
 * return or jump between functions (and from or to an unknown place). */
static void do_branch(struct bolt_profile *p, struct hmap *out, struct hmap *entries, uint64_t from,
		      uint64_t to, uint64_t count, uint64_t mis)
{
	struct bolt_func *ff = from ? func_of(p, from) : NULL, *tf = to ? func_of(p, to) : NULL;
	long fi = ff ? ff - p->bin->funcs : -1, ti = tf ? tf - p->bin->funcs : -1;
	uint64_t fo = ff ? from - ff->addr : from, to_off = tf ? to - tf->addr : to;

	if (!ff && !tf)
		return;
	if (ff == tf && to != tf->addr) {
		add_line(out, fi, fo, fi, to_off, count, mis);
		return;
	}
	if (ff)
		add_line(out, fi, fo, ti, to_off, count, mis);
	if (tf && !ff)
		add_line(entries, -1, fo, ti, to_off, count, mis);
}

/* hasProfileAvailable: the functions holding an end of a branch or trace
 * (or a sample), which lite mode (no relocations) disassembles. */
static void mark_profiled(struct bolt_profile *p)
{
	const struct hmap *maps[] = { &p->branches.map, &p->traces.map, &p->samples };
	size_t i, k;

	for (k = 0; k < ARRAY_SIZE(maps); k++)
		for (i = 0; i < hmap_count(maps[k]); i++) {
			const struct pair *key = hmap_key(maps[k], i);
			struct bolt_func *f;
			if ((f = func_of(p, key->a)))
				f->profiled = true;
			if (k < 2 && (f = func_of(p, key->b)))
				f->profiled = true;
		}
}

static int cmp_line(const void *pa, const void *pb)
{
	const struct line_key *a = pa, *b = pb;
	if (a->ff != b->ff)
		return a->ff < b->ff ? -1 : 1;
	if (a->fo != b->fo)
		return a->fo < b->fo ? -1 : 1;
	if (a->tf != b->tf)
		return a->tf < b->tf ? -1 : 1;
	return a->to < b->to ? -1 : a->to > b->to;
}

/* The lines sorted, each a key and its counts; caller frees. */
struct line {
	struct line_key k;
	struct pair v;
};

static struct line *sorted_lines(const struct hmap *l)
{
	struct line *v = xcalloc(hmap_count(l) + 1, sizeof(*v));
	size_t i;
	for (i = 0; i < hmap_count(l); i++) {
		v[i].k = *(const struct line_key *)hmap_key(l, i);
		v[i].v = *(const struct pair *)hmap_val(l, i);
	}
	if (hmap_count(l) > 1)
		qsort(v, hmap_count(l), sizeof(*v), cmp_line);
	return v;
}

/* BOLT's getEscapedName: spaces and backslashes escaped. */
static void put_name(FILE *fp, const char *name)
{
	for (; *name; name++) {
		if (*name == ' ' || *name == '\\')
			fputc('\\', fp);
		fputc(*name, fp);
	}
}

static void put_location(FILE *fp, const struct bolt_binary *b, long fi, uint64_t off)
{
	if (fi < 0) {
		fprintf(fp, "0 [unknown] %llx ", (unsigned long long)off);
		return;
	}
	fputs("1 ", fp);
	put_name(fp, b->funcs[fi].name);
	fprintf(fp, " %llx ", (unsigned long long)off);
}

static void write_lines(FILE *fp, const struct bolt_binary *b, const struct hmap *l)
{
	struct line *v = sorted_lines(l);
	size_t i;

	for (i = 0; i < hmap_count(l); i++) {
		put_location(fp, b, v[i].k.ff, v[i].k.fo);
		put_location(fp, b, v[i].k.tf, v[i].k.to);
		fprintf(fp, "%llu %llu\n", (unsigned long long)v[i].v.b, (unsigned long long)v[i].v.a);
	}
	free(v);
}

/* LLVM 16's StringMap order of the no_lbr event names (perf script's
 * "NAME:", djbHash buckets, quadratic probing), as perf2bolt prints them. */
static void write_event_names(FILE *fp, char **names, size_t n)
{
	size_t buckets = 16, i;
	long *slot;

	while (n * 4 > buckets * 3)
		buckets *= 2;
	slot = xcalloc(buckets, sizeof(*slot));
	for (i = 0; i < n; i++) {
		uint32_t h = 0;
		const unsigned char *c;
		size_t at, probe = 1;
		for (c = (const unsigned char *)names[i]; *c; c++)
			h = (h << 5) + h + *c;
		h = (h << 5) + h + ':';
		for (at = h & (buckets - 1); slot[at]; at = (at + probe++) & (buckets - 1))
			;
		slot[at] = (long)i + 1;
	}
	fputs("no_lbr", fp);
	for (i = 0; i < buckets; i++)
		if (slot[i])
			fprintf(fp, " %s:", names[slot[i] - 1]);
	fputc('\n', fp);
	free(slot);
}

int bolt_write_fdata(struct bolt_profile *p, FILE *fp)
{
	struct hmap out, entries;
	size_t i;

	mark_profiled(p);
	if (bolt_build_cfgs(p->bin) != 0)
		return -1;
	hmap_init(&out, sizeof(struct line_key), sizeof(struct pair), NULL);
	hmap_init(&entries, sizeof(struct line_key), sizeof(struct pair), NULL);
	if (!p->stats.stacks && p->nr_events) {
		struct line *v;
		write_event_names(fp, p->events, p->nr_events);
		for (i = 0; i < hmap_count(&p->samples); i++) {
			const struct pair *k = hmap_key(&p->samples, i), *c = hmap_val(&p->samples, i);
			struct bolt_func *f = func_of(p, k->a);
			if (f)
				add_line(&out, f - p->bin->funcs, k->a - f->addr, -1, 0, c->a, 0);
		}
		v = sorted_lines(&out);
		for (i = 0; i < hmap_count(&out); i++) {
			put_location(fp, p->bin, v[i].k.ff, v[i].k.fo);
			fprintf(fp, "%llu\n", (unsigned long long)v[i].v.a);
		}
		free(v);
	} else {
		for (i = 0; i < hmap_count(&p->traces.map); i++) {
			const struct pair *k = hmap_key(&p->traces.map, i), *c = hmap_val(&p->traces.map, i);
			if (c->a)
				do_trace(p, &out, k->a, k->a, k->b, c->a);
			if (c->b)
				do_trace(p, &out, OUTSIDE, k->a, k->b, c->b);
		}
		for (i = 0; i < hmap_count(&p->branches.map); i++) {
			const struct pair *k = hmap_key(&p->branches.map, i), *c = hmap_val(&p->branches.map, i);
			do_branch(p, &out, &entries, k->a, k->b, c->a, c->b);
		}
		write_lines(fp, p->bin, &out);
		write_lines(fp, p->bin, &entries);
	}
	hmap_free(&out);
	hmap_free(&entries);
	if (ferror(fp))
		return oc_err_errno("cannot write the profile");
	return 0;
}

static void put_address(FILE *fp, const struct bolt_binary *b, uint64_t addr)
{
	size_t i;
	if (addr && b->build_id_len) {
		for (i = 0; i < b->build_id_len; i++)
			fprintf(fp, "%02x", b->build_id[i]);
		fputc(':', fp);
	}
	fprintf(fp, "%llx", (unsigned long long)addr);
}

int bolt_write_preaggregated(struct bolt_profile *p, FILE *fp)
{
	struct pair *v;
	size_t i;

	v = sorted_entries(&p->branches.map);
	for (i = 0; i < hmap_count(&p->branches.map); i++) {
		fputs("B ", fp);
		put_address(fp, p->bin, v[2 * i].a);
		fputc(' ', fp);
		put_address(fp, p->bin, v[2 * i].b);
		fprintf(fp, " %llu %llu\n", (unsigned long long)v[2 * i + 1].a, (unsigned long long)v[2 * i + 1].b);
	}
	free(v);
	v = sorted_entries(&p->traces.map);
	for (i = 0; i < hmap_count(&p->traces.map); i++) {
		int k;
		for (k = 0; k < 2; k++) {
			uint64_t count = k ? v[2 * i + 1].b : v[2 * i + 1].a;
			if (!count)
				continue;
			fputs(k ? "f " : "F ", fp);
			put_address(fp, p->bin, v[2 * i].a);
			fputc(' ', fp);
			put_address(fp, p->bin, v[2 * i].b);
			fprintf(fp, " %llu\n", (unsigned long long)count);
		}
	}
	free(v);
	if (ferror(fp))
		return oc_err_errno("cannot write the profile");
	return 0;
}
