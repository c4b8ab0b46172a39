/* afdo-profile.c — LBR counters, their attribution to source lines and
 * inline stacks, and the LLVM text and GCC 12 gcov writers.
 *
 * Semantics follow llvm-profgen 14 (non-CS line-number profile) and
 * create_gcov, as docs/autofdo.md states them with their sources.
 */
#include <stdlib.h>
#include <string.h>

#include "autofdo/afdo-internal.h"
#include "util/util.h"

#define MAX_RANGE_BYTES (1u << 20)   /* create_gcov drops longer ranges */
#define MAX_FUNC_RANGES 64

/* --- counters --- */
struct afdo_counts {
	struct hmap ranges, branches;    /* afdo_pair -> uint64_t count */
	uint64_t nr_stacks, nr_in_binary;
};

struct afdo_counts *afdo_counts_new(void)
{
	struct afdo_counts *c = xcalloc(1, sizeof(*c));

	hmap_init(&c->ranges, sizeof(struct afdo_pair), sizeof(uint64_t), NULL);
	hmap_init(&c->branches, sizeof(struct afdo_pair), sizeof(uint64_t), NULL);
	return c;
}

const struct hmap *afdo_counts_ranges(const struct afdo_counts *c) { return &c->ranges; }
const struct hmap *afdo_counts_branches(const struct afdo_counts *c) { return &c->branches; }
uint64_t afdo_counts_nr_stacks(const struct afdo_counts *c) { return c->nr_stacks; }
uint64_t afdo_counts_nr_in_binary(const struct afdo_counts *c) { return c->nr_in_binary; }

void afdo_counts_free(struct afdo_counts *c)
{
	if (!c)
		return;
	hmap_free(&c->ranges);
	hmap_free(&c->branches);
	free(c);
}

/* Entries with neither end in the binary are dropped; of the others, the
 * code from an entry's target to the newer entry's source ran straight
 * through when both lie in the binary, and an entry is a branch count when
 * both its ends do (llvm-profgen's computeCounterFromLBR since it keeps
 * external entries as ExternalAddr). A call into a library and its return
 * need no stitching: the range before the call ends at the call, the one
 * after it starts at the return's target. A stack that begins or ends
 * inside a library keeps the ranges of its in-binary part. llvm-profgen 14
 * pairs each call out with the return that follows it and drops the rest of
 * a stack at an unpaired transition: it loses the code after the oldest
 * return from a library (2.7 % of the ranges of a gawk profile that spends
 * half its time in libc). */
void afdo_counts_add_stack(struct afdo_counts *c, const struct afdo_lbr *lbr, size_t n,
			   uint64_t weight)
{
	uint64_t newer_from = 0;
	bool newer_from_in = false;   /* a newer entry exists and its source is in the binary */
	size_t i;

	c->nr_stacks += weight;
	for (i = 0; i < n; i++) {
		const struct afdo_lbr *e = &lbr[i];

		if (e->spec_wrong)
			continue;   /* never retired: neither a branch nor a range end */
		if (!e->from_in && !e->to_in)
			continue;
		c->nr_in_binary += weight;
		if (e->from_in && e->to_in)
			*(uint64_t *)hmap_get(&c->branches, &(struct afdo_pair){ e->from, e->to }) += weight;
		if (newer_from_in && e->to_in && e->to <= newer_from &&
		    newer_from - e->to < MAX_RANGE_BYTES)
			*(uint64_t *)hmap_get(&c->ranges, &(struct afdo_pair){ e->to, newer_from }) += weight;
		newer_from = e->from;
		newer_from_in = e->from_in;
	}
}

static void merge_table(struct hmap *dst, const struct hmap *src, uint64_t num, uint64_t den)
{
	size_t i;

	for (i = 0; i < hmap_count(src); i++) {
		uint64_t n = (*(const uint64_t *)hmap_val(src, i) * num + den / 2) / den;
		*(uint64_t *)hmap_get(dst, hmap_key(src, i)) += n ? n : 1;
	}
}

void afdo_counts_merge_scaled(struct afdo_counts *c, const struct afdo_counts *src, uint64_t num, uint64_t den)
{
	merge_table(&c->ranges, &src->ranges, num, den);
	merge_table(&c->branches, &src->branches, num, den);
	c->nr_stacks += src->nr_stacks;
	c->nr_in_binary += src->nr_in_binary;
}

void afdo_counts_add_range(struct afdo_counts *c, uint64_t begin, uint64_t end, uint64_t count)
{
	*(uint64_t *)hmap_get(&c->ranges, &(struct afdo_pair){ begin, end }) += count;
	c->nr_in_binary += count;
}

void afdo_counts_add_branch(struct afdo_counts *c, uint64_t from, uint64_t to, uint64_t count)
{
	*(uint64_t *)hmap_get(&c->branches, &(struct afdo_pair){ from, to }) += count;
	c->nr_in_binary += count;
}

/* --- LLVM discriminator encoding (llvm/IR/DebugInfoMetadata.h) --- */
static unsigned prefix_decode(unsigned u)
{
	if (u & 1)
		return 0;
	u >>= 1;
	if (u & 0x40)
		return (u & 0x3f) | ((u >> 1) & 0xfe0);
	return u & 0x1f;
}

unsigned afdo_llvm_base_discriminator(unsigned d)
{
	return prefix_decode(d);
}

unsigned afdo_llvm_duplication_factor(unsigned d)
{
	unsigned next = (d & 1) == 0 ? d >> ((d & 0x40) ? 14 : 7) : d >> 1;
	unsigned f = prefix_decode(next);
	return f ? f : 1;
}

/* --- profiles --- */
struct call_target {
	unsigned name;
	uint64_t count;
};

struct body_sample {
	uint32_t offset, disc;
	uint64_t count;
	struct call_target *targets;
	size_t nr_targets;
	bool duplicated;   /* LLVM: some instruction has a duplication factor > 1 */
	/* LLVM, duplicated instructions: the largest factor, the largest count
	 * before it multiplies, the call instructions and the calls they made */
	unsigned dup, nr_calls;
	uint64_t plain, calls;
};

/* A line's count from the flow of control (see count_flow): the counts of
 * the pieces of code that hold it, less what passes between them. */
struct flow_acc {
	uint32_t offset, disc;
	uint64_t sum, inner;
	size_t piece;      /* the last piece counted + 1 */
};

struct fprof;

struct callsite {
	uint32_t offset, disc;
	struct fprof *callee;
};

struct fprof {
	unsigned name;
	uint64_t total, head;
	struct hmap body_index;          /* struct site -> index in body */
	struct body_sample *body;
	size_t nr_body, cap_body;
	struct hmap callsite_index;      /* struct site -> index in calls */
	struct callsite *calls;
	size_t nr_calls, cap_calls;
	struct hmap flow_index;          /* struct site -> index in flow */
	struct flow_acc *flow;
	size_t nr_flow, cap_flow;
};

struct afdo_profile {
	enum afdo_flavor flavor;
	struct hmap names;               /* const char * (the debug info's); entry i is name id i */
	struct hmap top_index;           /* unsigned name -> struct fprof * */
	struct fprof **top;
	size_t nr_top, cap_top;
};

static unsigned intern(struct afdo_profile *p, const char *s)
{
	return (unsigned)hmap_add(&p->names, &s, NULL);
}

static const char *name_of(const struct afdo_profile *p, unsigned id)
{
	return *(const char *const *)hmap_key(&p->names, id);
}

/* A line of a function's body, or a callsite there with its callee's name. */
struct site {
	uint32_t offset, disc, name;
};

static struct fprof *new_fprof(unsigned name)
{
	struct fprof *f = xcalloc(1, sizeof(*f));
	f->name = name;
	hmap_init(&f->body_index, sizeof(struct site), sizeof(size_t), NULL);
	hmap_init(&f->callsite_index, sizeof(struct site), sizeof(size_t), NULL);
	hmap_init(&f->flow_index, sizeof(struct site), sizeof(size_t), NULL);
	return f;
}

static struct fprof *top_profile(struct afdo_profile *p, unsigned name)
{
	struct fprof **f = hmap_get(&p->top_index, &name);
	if (!*f) {
		GROW(p->top, p->cap_top, p->nr_top + 1);
		p->top[p->nr_top++] = *f = new_fprof(name);
	}
	return *f;
}

static struct body_sample *body_at(struct fprof *f, uint32_t offset, uint32_t disc)
{
	bool added;
	size_t *i = hmap_val(&f->body_index, hmap_add(&f->body_index, &(struct site){ offset, disc, 0 }, &added));
	if (added) {
		GROW(f->body, f->cap_body, f->nr_body + 1);
		f->body[f->nr_body] = (struct body_sample){ .offset = offset, .disc = disc };
		*i = f->nr_body++;
	}
	return &f->body[*i];
}

static struct fprof *callsite_at(struct fprof *f, uint32_t offset, uint32_t disc, unsigned name)
{
	bool added;
	size_t *i = hmap_val(&f->callsite_index,
			     hmap_add(&f->callsite_index, &(struct site){ offset, disc, name }, &added));
	if (added) {
		GROW(f->calls, f->cap_calls, f->nr_calls + 1);
		f->calls[f->nr_calls] = (struct callsite){ offset, disc, new_fprof(name) };
		*i = f->nr_calls++;
	}
	return f->calls[*i].callee;
}

static void free_fprof(struct fprof *f)
{
	size_t i;
	for (i = 0; i < f->nr_body; i++)
		free(f->body[i].targets);
	for (i = 0; i < f->nr_calls; i++)
		free_fprof(f->calls[i].callee);
	free(f->body);
	free(f->calls);
	free(f->flow);
	hmap_free(&f->body_index);
	hmap_free(&f->callsite_index);
	hmap_free(&f->flow_index);
	free(f);
}

void afdo_profile_free(struct afdo_profile *p)
{
	size_t i;
	if (!p)
		return;
	for (i = 0; i < p->nr_top; i++)
		free_fprof(p->top[i]);
	free(p->top);
	hmap_free(&p->names);
	hmap_free(&p->top_index);
	free(p);
}

size_t afdo_profile_nr_functions(const struct afdo_profile *p)
{
	return p->nr_top;
}

static uint32_t frame_offset(const struct di_frame *f)
{
	return (f->line - f->decl_line) & 0xffff;
}

static uint32_t frame_disc(const struct afdo_profile *p, unsigned raw)
{
	return p->flavor == AFDO_LLVM ? afdo_llvm_base_discriminator(raw) : raw;
}

/* The profile of the innermost frame, creating the inline path from the
 * outermost function and adding total to every level on the way. */
static struct fprof *leaf_profile(struct afdo_profile *p, const struct di_location *loc, uint64_t total)
{
	int k = loc->nr_frames - 1;
	struct fprof *f = top_profile(p, intern(p, loc->frames[k].linkage_name));

	f->total += total;
	for (; k > 0; k--) {
		const struct di_frame *caller = &loc->frames[k];
		/* GCC looks callsites up without a discriminator */
		uint32_t disc = p->flavor == AFDO_GCC ? 0 : frame_disc(p, caller->discriminator);
		f = callsite_at(f, frame_offset(caller), disc, intern(p, loc->frames[k - 1].linkage_name));
		f->total += total;
	}
	return f;
}

static bool usable(const struct di_location *loc)
{
	return loc->nr_frames > 0 && strcmp(loc->frames[loc->nr_frames - 1].function, "??") != 0;
}

struct range_event {
	uint64_t addr;
	int64_t count, cover;
};

static int cmp_event(const void *a, const void *b)
{
	const struct range_event *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void add_event(struct range_event **ev, size_t *n, size_t *cap, uint64_t begin, uint64_t end,
		      uint64_t count)
{
	GROW(*ev, *cap, *n + 2);
	(*ev)[(*n)++] = (struct range_event){ begin, (int64_t)count, 1 };
	(*ev)[(*n)++] = (struct range_event){ end + 1, -(int64_t)count, -1 };
}

/* The straight-line pieces of code the ranges cut the binary into, each
 * with one count, and the lines each holds (flow accumulators). */
struct piece {
	uint64_t start, end, count;   /* [start, end] */
	uint64_t first, last, next;   /* its first and last instruction, the one after */
	size_t first_key, nr_keys;
};

struct piece_key {
	struct fprof *f;
	size_t flow;
};

/* Control passing from piece a to piece b, both holding line key. */
struct inner_edge {
	struct piece_key key;
	size_t a, b;
	uint64_t count;
};

struct pieces {
	struct piece *p;
	size_t nr, cap;
	struct piece_key *keys;
	size_t nr_keys, cap_keys;
	struct hmap from, to;       /* uint64_t address -> branches taken from it, into it */
	struct inner_edge *edges;
	size_t nr_edges, cap_edges;
};

static struct flow_acc *flow_at(struct fprof *f, uint32_t offset, uint32_t disc, size_t *index)
{
	bool added;
	size_t *i = hmap_val(&f->flow_index, hmap_add(&f->flow_index, &(struct site){ offset, disc, 0 }, &added));
	if (added) {
		GROW(f->flow, f->cap_flow, f->nr_flow + 1);
		f->flow[f->nr_flow] = (struct flow_acc){ .offset = offset, .disc = disc };
		*i = f->nr_flow++;
	}
	*index = *i;
	return &f->flow[*i];
}

/* Count every instruction of [begin, end] and attribute it to its line. */
static void attribute_range(struct afdo_profile *p, struct afdo_binary *b, uint64_t begin,
			    uint64_t end, uint64_t count, struct pieces *ps)
{
	struct debuginfo *di = afdo_binary_debuginfo(b);
	struct di_location loc;
	struct piece *pc;
	uint64_t ip;
	unsigned size;

	GROW(ps->p, ps->cap, ps->nr + 1);
	pc = &ps->p[ps->nr++];
	*pc = (struct piece){ .start = begin, .end = end, .count = count, .first_key = ps->nr_keys };
	/* straight on from the previous piece, with no branch out of it or into
	 * this one (one-instruction ranges of exact counts): one piece */
	if (ps->nr > 1 && afdo_insn_at_or_after(b, begin, &ip, &size) && ip <= end) {
		struct piece *prev = pc - 1;
		if (prev->next == ip && prev->count == count && afdo_insn_kind_at(b, prev->last) == AFDO_INSN_OTHER &&
		    hmap_find(&ps->from, &prev->last) == HMAP_NONE && hmap_find(&ps->to, &ip) == HMAP_NONE) {
			ps->nr--;
			pc = prev;
			pc->end = end;
		}
	}
	for (ip = begin; afdo_insn_at_or_after(b, ip, &ip, &size) && ip <= end; ip += size) {
		const struct di_frame *leaf;
		struct body_sample *s;
		struct flow_acc *acc;
		struct fprof *f;
		uint64_t c = count;
		uint32_t disc;
		size_t k;

		if (!pc->next)
			pc->first = ip;
		pc->last = ip;
		pc->next = ip + size;
		if (di_lookup(di, ip, &loc) != 0 || !usable(&loc))
			continue;
		/* llvm-profgen 14 weighs totals by instruction bytes (its FIXME) */
		f = leaf_profile(p, &loc, p->flavor == AFDO_LLVM ? count * size : count);
		leaf = &loc.frames[0];
		disc = frame_disc(p, leaf->discriminator);
		s = body_at(f, frame_offset(leaf), disc);
		if (p->flavor == AFDO_LLVM && afdo_llvm_duplication_factor(leaf->discriminator) > 1) {
			unsigned dup = afdo_llvm_duplication_factor(leaf->discriminator);
			c *= dup;
			s->duplicated = true;
			if (s->dup < dup)
				s->dup = dup;
			if (s->plain < count)
				s->plain = count;
			if (afdo_insn_kind_at(b, ip) == AFDO_INSN_CALL) {
				s->nr_calls++;
				s->calls += count;
			}
		}
		if (s->count < c)
			s->count = c;   /* a line's count is the max over its instructions */
		if (!count)
			continue;
		/* gcc 12 reads one count per line, whatever the discriminator */
		acc = flow_at(f, frame_offset(leaf), p->flavor == AFDO_GCC ? 0 : disc, &k);
		if (acc->piece != (size_t)(pc - ps->p) + 1) {
			acc->piece = (size_t)(pc - ps->p) + 1;
			acc->sum += count;
			GROW(ps->keys, ps->cap_keys, ps->nr_keys + 1);
			ps->keys[ps->nr_keys++] = (struct piece_key){ f, k };
			pc->nr_keys++;
		}
	}
	if (!pc->next)
		ps->nr--;   /* no instruction starts in it (between one-instruction ranges) */
}

/* The piece holding addr, or NULL. */
static struct piece *piece_at(const struct pieces *ps, uint64_t addr)
{
	size_t lo = 0, hi = ps->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ps->p[mid].end < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ps->nr && ps->p[lo].start <= addr ? &ps->p[lo] : NULL;
}

/* count runs from piece a on into piece b: the lines both hold. */
static void flow_between(struct pieces *ps, const struct piece *a, const struct piece *b, uint64_t count)
{
	size_t i, j;

	for (i = a->first_key; i < a->first_key + a->nr_keys; i++)
		for (j = b->first_key; j < b->first_key + b->nr_keys; j++)
			if (ps->keys[i].f == ps->keys[j].f && ps->keys[i].flow == ps->keys[j].flow) {
				GROW(ps->edges, ps->cap_edges, ps->nr_edges + 1);
				ps->edges[ps->nr_edges++] = (struct inner_edge){ ps->keys[i], (size_t)(a - ps->p),
										 (size_t)(b - ps->p), count };
			}
}

static int cmp_edge(const void *x, const void *y)
{
	const struct inner_edge *a = x, *b = y;
	if (a->key.f != b->key.f)
		return (uintptr_t)a->key.f < (uintptr_t)b->key.f ? -1 : 1;
	return a->key.flow < b->key.flow ? -1 : a->key.flow > b->key.flow;
}

#define MAX_LOOP_PIECES 64

/* What passes between two pieces of a line was counted in both: it is
 * taken off, and each turn of a loop that stays within the line's pieces
 * is added back (per strongly connected set of pieces: the least count of
 * its edges), as gcov counts a line's iterations. */
static void count_group(struct inner_edge *e, size_t n)
{
	struct flow_acc *acc = &e->key.f->flow[e->key.flow];
	size_t node[MAX_LOOP_PIECES], nr = 0, a[MAX_LOOP_PIECES * 2], i, j, k;
	bool reach[MAX_LOOP_PIECES][MAX_LOOP_PIECES] = { { false } }, counted[MAX_LOOP_PIECES] = { false };
	uint64_t turns = 0;

	for (i = 0; i < n; i++)
		acc->inner += e[i].count;
	if (n > MAX_LOOP_PIECES)
		goto out;   /* no loop looked for in a line of that many pieces */
	/* local node numbers of the edges' ends */
	for (i = 0; i < 2 * n; i++) {
		size_t piece = i % 2 ? e[i / 2].b : e[i / 2].a;
		for (j = 0; j < nr && node[j] != piece; j++)
			;
		if (j == nr) {
			if (nr == MAX_LOOP_PIECES)
				goto out;
			node[nr++] = piece;
		}
		a[i] = j;
	}
	/* transitive closure (Warshall) */
	for (i = 0; i < n; i++)
		reach[a[2 * i]][a[2 * i + 1]] = true;
	for (k = 0; k < nr; k++)
		for (i = 0; i < nr; i++)
			if (reach[i][k])
				for (j = 0; j < nr; j++)
					reach[i][j] |= reach[k][j];
	/* an edge u -> v is on a loop when v reaches u; its loop set is u's
	 * strongly connected set, counted once, at its least edge */
	for (i = 0; i < n; i++) {
		size_t u = a[2 * i], v = a[2 * i + 1];
		uint64_t least = UINT64_MAX;

		if (!reach[v][u] || counted[u])
			continue;
		for (j = 0; j < n; j++) {
			size_t x = a[2 * j], y = a[2 * j + 1];
			if (reach[y][x] && reach[u][x] && reach[x][u] && e[j].count < least)
				least = e[j].count;
		}
		for (j = 0; j < nr; j++)
			if (reach[u][j] && reach[j][u])
				counted[j] = true;
		turns += least;
	}
out:
	acc->inner = acc->inner > turns ? acc->inner - turns : 0;
}

static void count_inner(struct pieces *ps)
{
	size_t i, j;

	sort_items(ps->edges, ps->nr_edges, sizeof(*ps->edges), cmp_edge);
	for (i = 0; i < ps->nr_edges; i = j) {
		for (j = i + 1; j < ps->nr_edges && !cmp_edge(&ps->edges[i], &ps->edges[j]); j++)
			;
		count_group(ps->edges + i, j - i);
	}
}

/* The line counts of the flow of control. The largest count of a line's
 * instructions (llvm-profgen's and create_gcov's rule) is a line's count
 * only when its code is in one place; optimized code copies statements
 * (an interpreter's dispatch into the end of every case, a loop's test
 * into both paths of its body, a tail call made a loop), and each copy runs
 * a share of the line's executions. A line's count is here the sum of the
 * counts of the straight pieces of code that hold it, less what runs from
 * one of those pieces into another (a statement cut by a call, a branch
 * target or a jump is counted once), as gcov counts a line: the times
 * control enters it, and each turn of a loop that stays within it. */
static void count_flow(struct afdo_binary *b, const struct afdo_counts *c, struct pieces *ps)
{
	size_t i;
	/* falling through into the next piece: all of a piece ending in a call
	 * (it returns), none of one ending in a jump or return, else what its
	 * last instruction did not branch away */
	for (i = 0; i + 1 < ps->nr; i++) {
		const struct piece *a = &ps->p[i];
		enum afdo_insn_kind kind;
		size_t at = hmap_find(&ps->from, &a->last);
		uint64_t away = at == HMAP_NONE ? 0 : *(uint64_t *)hmap_val(&ps->from, at), flow;

		if (!a->next || a->next != ps->p[i + 1].first || !a->count)
			continue;
		kind = afdo_insn_kind_at(b, a->last);
		flow = kind == AFDO_INSN_CALL ? a->count : kind != AFDO_INSN_OTHER || away >= a->count ? 0 :
		       a->count - away;
		if (flow > ps->p[i + 1].count)
			flow = ps->p[i + 1].count;   /* a call that did not return */
		if (flow)
			flow_between(ps, a, &ps->p[i + 1], flow);
	}
	/* jumps (calls and returns leave the function) */
	for (i = 0; i < hmap_count(&c->branches); i++) {
		const struct afdo_pair *br = hmap_key(&c->branches, i);
		const struct piece *a, *t;
		enum afdo_insn_kind kind = afdo_insn_kind_at(b, br->a);

		if (kind == AFDO_INSN_CALL || kind == AFDO_INSN_RET)
			continue;
		a = piece_at(ps, br->a);
		t = piece_at(ps, br->b);
		if (a && t && t->first == br->b)
			flow_between(ps, a, t, *(uint64_t *)hmap_val(&c->branches, i));
	}
	count_inner(ps);
}

/* LLVM's count of a line with a duplication factor F is its largest count
 * times F: the unroller made F copies, each running a share of the line's
 * executions. Copies the optimizer then folded away do not run: clang 14
 * unrolls loop.c's inner loop ten times, drops the five copies of `foo(i)`
 * that `i % 2` rules out, and count x 10 makes the line twice as hot as it
 * ran. A line that calls counts its surviving copies: where it has fewer
 * call instructions than F, the calls they made are its executions. */
static void count_copies(struct body_sample *s)
{
	uint64_t n = s->calls < s->count ? s->calls : s->count;

	if (s->duplicated && s->nr_calls && s->nr_calls < s->dup)
		s->count = n > s->plain ? n : s->plain;
}

/* Each line's count from the flow, where it exceeds the largest count of
 * its instructions; LLVM's lines with duplication factors (unrolled loops)
 * count their copies instead (count_copies). gcc 12 reads the last entry
 * of a line, its largest (see afdo_write_gcc): that one gets the line's
 * count. */
static void apply_flow(struct afdo_profile *p, struct fprof *f)
{
	struct hmap best;   /* struct site -> the index + 1 of its largest body sample */
	size_t i;

	hmap_init(&best, sizeof(struct site), sizeof(size_t), NULL);
	for (i = 0; i < f->nr_body; i++) {
		const struct body_sample *s = &f->body[i];
		size_t *v = hmap_get(&best, &(struct site){ s->offset, p->flavor == AFDO_GCC ? 0 : s->disc, 0 });
		if (!*v || s->count > f->body[*v - 1].count)
			*v = i + 1;
	}
	for (i = 0; i < f->nr_flow; i++) {
		const struct flow_acc *acc = &f->flow[i];
		uint64_t n = acc->sum > acc->inner ? acc->sum - acc->inner : 0;
		size_t at = hmap_find(&best, &(struct site){ acc->offset, acc->disc, 0 });
		struct body_sample *s = at == HMAP_NONE ? NULL : &f->body[*(size_t *)hmap_val(&best, at) - 1];

		if (s && !s->duplicated && s->count < n)
			s->count = n;
	}
	hmap_free(&best);
	for (i = 0; i < f->nr_body; i++)
		count_copies(&f->body[i]);
	for (i = 0; i < f->nr_calls; i++)
		apply_flow(p, f->calls[i].callee);
}

static void add_call_target(struct body_sample *s, unsigned name, uint64_t count)
{
	size_t i;
	for (i = 0; i < s->nr_targets; i++)
		if (s->targets[i].name == name) {
			s->targets[i].count += count;
			return;
		}
	s->targets = xrealloc(s->targets, (s->nr_targets + 1) * sizeof(*s->targets));
	s->targets[s->nr_targets++] = (struct call_target){ name, count };
}

struct afdo_profile *afdo_build(struct afdo_binary *b, const struct afdo_counts *c,
				const struct afdo_build_opts *o)
{
	struct afdo_profile *p = xcalloc(1, sizeof(*p));
	struct debuginfo *di = afdo_binary_debuginfo(b);
	struct range_event *ev = NULL;
	struct hmap filled;              /* afdo_pair: function ranges with zero counts */
	struct pieces ps = { 0 };
	size_t nev = 0, cap = 0, i;
	int64_t sum = 0, cover = 0;

	p->flavor = o->flavor;
	hmap_init(&p->names, sizeof(const char *), 0, &hmap_str_ops);
	hmap_init(&p->top_index, sizeof(unsigned), sizeof(struct fprof *), NULL);
	hmap_init(&filled, sizeof(struct afdo_pair), 0, NULL);
	hmap_init(&ps.from, sizeof(uint64_t), sizeof(uint64_t), NULL);
	hmap_init(&ps.to, sizeof(uint64_t), sizeof(uint64_t), NULL);
	for (i = 0; i < hmap_count(&c->branches); i++) {
		const struct afdo_pair *br = hmap_key(&c->branches, i);
		uint64_t count = *(uint64_t *)hmap_val(&c->branches, i);
		*(uint64_t *)hmap_get(&ps.from, &br->a) += count;
		*(uint64_t *)hmap_get(&ps.to, &br->b) += count;
	}
	/* ranges, plus zero counts over every function they touch so that
	 * unexecuted code of a sampled function reads as cold */
	for (i = 0; i < hmap_count(&c->ranges); i++) {
		const struct afdo_pair *range = hmap_key(&c->ranges, i);
		struct di_range fr[MAX_FUNC_RANGES];
		int k, nr;
		bool added;

		add_event(&ev, &nev, &cap, range->a, range->b, *(uint64_t *)hmap_val(&c->ranges, i));
		nr = di_function_ranges(di, range->a, fr, MAX_FUNC_RANGES);
		for (k = 0; k < nr && k < MAX_FUNC_RANGES; k++) {
			hmap_add(&filled, &(struct afdo_pair){ fr[k].lo, fr[k].hi }, &added);
			if (added)
				add_event(&ev, &nev, &cap, fr[k].lo, fr[k].hi - 1, 0);
		}
	}
	hmap_free(&filled);
	/* disjoint ranges with summed counts */
	sort_items(ev, nev, sizeof(*ev), cmp_event);
	for (i = 0; i < nev;) {
		uint64_t at = ev[i].addr;
		while (i < nev && ev[i].addr == at) {
			sum += ev[i].count;
			cover += ev[i].cover;
			i++;
		}
		if (cover > 0 && i < nev)
			attribute_range(p, b, at, ev[i].addr - 1, (uint64_t)sum, &ps);
	}
	free(ev);
	if (o->lines == AFDO_LINES_FLOW) {
		count_flow(b, c, &ps);
		for (i = 0; i < p->nr_top; i++)
			apply_flow(p, p->top[i]);
	}
	free(ps.p);
	free(ps.keys);
	free(ps.edges);
	hmap_free(&ps.from);
	hmap_free(&ps.to);

	/* calls: branches into function entries give call targets and head counts */
	for (i = 0; i < hmap_count(&c->branches); i++) {
		const struct afdo_pair *br = hmap_key(&c->branches, i);
		uint64_t count = *(uint64_t *)hmap_val(&c->branches, i);
		struct di_location loc;
		const char *callee;
		unsigned callee_id;

		if (!(callee = di_function_at_entry(di, br->b)))
			continue;
		callee_id = intern(p, callee);
		if (di_lookup(di, br->a, &loc) == 0 && usable(&loc)) {
			struct fprof *f = leaf_profile(p, &loc, 0);
			struct body_sample *bs = body_at(f, frame_offset(&loc.frames[0]),
							 frame_disc(p, loc.frames[0].discriminator));
			add_call_target(bs, callee_id, count);
		}
		top_profile(p, callee_id)->head += count;
	}
	/* gcc 12 optimizes a function its profile does not name as if there
	 * were no profile: with -funroll-loops, -fpeel-loops and -ftracer on
	 * (-fauto-profile turns them on), gawk's code grew by 18 %. Named with
	 * zero counts, it is optimized as PGO optimizes code that never ran
	 * (gawk: 751 KB of code became 522 KB, +2.6 % became +3.5 %). */
	if (o->flavor == AFDO_GCC && !o->sampled_only) {
		const uint64_t *entry;
		size_t n = afdo_binary_functions(b, &entry);

		for (i = 0; i < n; i++) {
			const char *name = di_function_at_entry(di, entry[i]);
			if (name)
				top_profile(p, intern(p, name));
		}
	}
	return p;
}

/* --- LLVM text writer --- */
static int cmp_top(const void *a, const void *b, void *p)
{
	const struct fprof *x = *(struct fprof *const *)a, *y = *(struct fprof *const *)b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(name_of(p, x->name), name_of(p, y->name));
}

static int cmp_body(const void *a, const void *b)
{
	const struct body_sample *x = a, *y = b;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->disc < y->disc ? -1 : x->disc > y->disc;
}

static int cmp_callsite(const void *a, const void *b, void *p)
{
	const struct callsite *x = a, *y = b;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->disc != y->disc)
		return x->disc < y->disc ? -1 : 1;
	return strcmp(name_of(p, x->callee->name), name_of(p, y->callee->name));
}

static int cmp_target(const void *a, const void *b, void *p)
{
	const struct call_target *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(name_of(p, x->name), name_of(p, y->name));
}

/* Sort in place (indexes are not used after building); names compare as p has them. */
static void sort_fprof(const struct afdo_profile *p, struct fprof *f)
{
	size_t i;
	sort_items(f->body, f->nr_body, sizeof(*f->body), cmp_body);
	for (i = 0; i < f->nr_body; i++)
		sort_items_r(f->body[i].targets, f->body[i].nr_targets, sizeof(*f->body[i].targets), cmp_target,
			     (void *)p);
	sort_items_r(f->calls, f->nr_calls, sizeof(*f->calls), cmp_callsite, (void *)p);
	for (i = 0; i < f->nr_calls; i++)
		sort_fprof(p, f->calls[i].callee);
}

static void write_location(FILE *fp, int depth, uint32_t offset, uint32_t disc)
{
	fprintf(fp, "%*s%u", depth, "", offset);
	if (disc)
		fprintf(fp, ".%u", disc);
	fputs(": ", fp);
}

static void write_text_body(const struct afdo_profile *p, const struct fprof *f, FILE *fp, int depth)
{
	size_t i, t;

	for (i = 0; i < f->nr_body; i++) {
		const struct body_sample *s = &f->body[i];
		write_location(fp, depth, s->offset, s->disc);
		fprintf(fp, "%llu", (unsigned long long)s->count);
		for (t = 0; t < s->nr_targets; t++)
			fprintf(fp, " %s:%llu", name_of(p, s->targets[t].name),
				(unsigned long long)s->targets[t].count);
		fputc('\n', fp);
	}
	for (i = 0; i < f->nr_calls; i++) {
		const struct callsite *cs = &f->calls[i];
		write_location(fp, depth, cs->offset, cs->disc);
		fprintf(fp, "%s:%llu\n", name_of(p, cs->callee->name), (unsigned long long)cs->callee->total);
		write_text_body(p, cs->callee, fp, depth + 1);
	}
}

static void sort_all(const struct afdo_profile *p)
{
	size_t i;
	sort_items_r(p->top, p->nr_top, sizeof(*p->top), cmp_top, (void *)p);
	for (i = 0; i < p->nr_top; i++)
		sort_fprof(p, p->top[i]);
}

int afdo_write_llvm_text(const struct afdo_profile *p, FILE *fp)
{
	size_t i;

	sort_all(p);
	for (i = 0; i < p->nr_top; i++) {
		const struct fprof *f = p->top[i];
		fprintf(fp, "%s:%llu:%llu\n", name_of(p, f->name), (unsigned long long)f->total,
			(unsigned long long)f->head);
		write_text_body(p, f, fp, 1);
	}
	return ferror(fp) ? oc_err_errno("cannot write the profile") : 0;
}

/* --- GCC 12 AutoFDO gcov writer (docs/autofdo.md, "GCC's AutoFDO file") --- */
enum {
	GCOV_DATA_MAGIC = 0x67636461,
	AUTO_PROFILE_VERSION = 2,
	GCOV_TAG_AFDO_FILE_NAMES = (int)0xaa000000,
	GCOV_TAG_AFDO_FUNCTION = (int)0xac000000,
	GCOV_TAG_AFDO_MODULE_GROUPING = (int)0xae000000,
	HIST_TYPE_INDIR_CALL_TOPN = 7,
};

static void put_u32(FILE *fp, uint32_t v)
{
	uint8_t b[4] = { v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24 };
	fwrite(b, 1, 4, fp);
}

static void put_counter(FILE *fp, uint64_t v)
{
	put_u32(fp, (uint32_t)v);
	put_u32(fp, (uint32_t)(v >> 32));
}

/* GCC 12 strings: byte length including the NUL, then the bytes, no padding. */
static void put_string(FILE *fp, const char *s)
{
	size_t n = strlen(s) + 1;
	put_u32(fp, (uint32_t)n);
	fwrite(s, 1, n, fp);
}

static void write_gcc_pos_count(const struct body_sample *s, FILE *fp)
{
	size_t t;

	put_u32(fp, s->offset << 16 | (s->disc & 0xffff));
	put_u32(fp, (uint32_t)s->nr_targets);
	put_counter(fp, s->count);
	for (t = 0; t < s->nr_targets; t++) {
		put_u32(fp, HIST_TYPE_INDIR_CALL_TOPN);
		put_counter(fp, s->targets[t].name + 1);
		put_counter(fp, s->targets[t].count);
	}
}

static void write_gcc_instance(const struct fprof *f, FILE *fp)
{
	size_t i, j, k, max;

	/* name indexes are shifted by one: index 0 is the reserved empty string */
	put_u32(fp, f->name + 1);
	put_u32(fp, (uint32_t)f->nr_body);
	put_u32(fp, (uint32_t)f->nr_calls);
	/* gcc 12 masks the discriminator off and keeps the last count it reads
	 * for a line (auto-profile.cc read_function_instance), so the largest
	 * count of each line goes last; a reader that keeps discriminators sees
	 * the same entries */
	for (i = 0; i < f->nr_body; i = j) {
		for (j = max = i; j < f->nr_body && f->body[j].offset == f->body[i].offset; j++)
			if (f->body[j].count > f->body[max].count)
				max = j;
		for (k = i; k < j; k++)
			if (k != max)
				write_gcc_pos_count(&f->body[k], fp);
		write_gcc_pos_count(&f->body[max], fp);
	}
	for (i = 0; i < f->nr_calls; i++) {
		put_u32(fp, f->calls[i].offset << 16);
		write_gcc_instance(f->calls[i].callee, fp);
	}
}

int afdo_write_gcc(const struct afdo_profile *p, FILE *fp)
{
	size_t i;

	sort_all(p);
	put_u32(fp, GCOV_DATA_MAGIC);
	put_u32(fp, AUTO_PROFILE_VERSION);
	put_u32(fp, 0);
	put_u32(fp, GCOV_TAG_AFDO_FILE_NAMES);
	put_u32(fp, 0);   /* length: GCC does not read it */
	put_u32(fp, (uint32_t)hmap_count(&p->names) + 1);
	put_string(fp, "");
	for (i = 0; i < hmap_count(&p->names); i++)
		put_string(fp, name_of(p, i));
	put_u32(fp, GCOV_TAG_AFDO_FUNCTION);
	put_u32(fp, 0);
	put_u32(fp, (uint32_t)p->nr_top);
	for (i = 0; i < p->nr_top; i++) {
		/* A function entered too rarely for a sample to catch its entry
		 * (gawk's r_interpret: one call runs the whole program) has head
		 * count 0. gcc 12 makes the head count the function's count and
		 * scales the annotated body to it once its propagation gives the
		 * entry block a count (a sample of a block that runs once per
		 * call does): every count of the function becomes 0 and it is
		 * compiled as never executed. A function with samples was entered
		 * at least once. */
		uint64_t head = p->top[i]->head;
		if (!head && p->top[i]->total)
			head = 1;
		put_counter(fp, head);
		write_gcc_instance(p->top[i], fp);
	}
	/* GCC 12 requires an empty module grouping */
	put_u32(fp, GCOV_TAG_AFDO_MODULE_GROUPING);
	put_u32(fp, 0);
	put_u32(fp, 0);
	return ferror(fp) ? oc_err_errno("cannot write the profile") : 0;
}

/* --- LLVM extensible binary format (SPF_Ext_Binary, version 103), laid out
 * the way llvm-profdata 14 `merge --sample --extbinary` writes it: header,
 * section header table, then the profile summary, the name table (sorted),
 * an empty CS name table, the function profiles, the function offset table,
 * and empty symbol-list and metadata sections. --- */
enum {
	SEC_PROF_SUMMARY = 1, SEC_NAME_TABLE = 2, SEC_PROFILE_SYMBOL_LIST = 3,
	SEC_FUNC_OFFSET_TABLE = 4, SEC_FUNC_METADATA = 5, SEC_CS_NAME_TABLE = 6,
	SEC_LBR_PROFILE = 0x20,
};
#define SPF_EXT_BINARY_MAGIC                                                               \
	((uint64_t)'S' << 56 | (uint64_t)'P' << 48 | (uint64_t)'R' << 40 | (uint64_t)'O' << 32 | \
	 (uint64_t)'F' << 24 | (uint64_t)'4' << 16 | (uint64_t)'2' << 8 | 4u)
#define SPF_VERSION 103

/* ProfileSummaryBuilder::DefaultCutoffs, parts per million */
static const uint32_t summary_cutoffs[] = { 10000, 100000, 200000, 300000, 400000, 500000,
					    600000, 700000, 800000, 900000, 950000, 990000,
					    999000, 999900, 999990, 999999 };

static void put_uleb(struct strbuf *sb, uint64_t v)
{
	do {
		char byte = (char)(v & 0x7f);
		v >>= 7;
		sb_putc(sb, (char)(byte | (v ? 0x80 : 0)));
	} while (v);
}

static void put_u64le(struct strbuf *sb, uint64_t v)
{
	char b[8];
	int i;
	for (i = 0; i < 8; i++)
		b[i] = (char)(v >> (8 * i));
	sb_add(sb, b, 8);
}

struct ext_summary {
	uint64_t total, max_count, max_function, nr_counts, nr_functions;
	uint64_t *counts;          /* every body count, for the detailed summary */
	size_t cap_counts;
};

/* SampleProfileSummaryBuilder::addRecord */
static void summarize(struct ext_summary *s, const struct fprof *f, bool callsite)
{
	size_t i;

	if (!callsite) {
		s->nr_functions++;
		if (f->head > s->max_function)
			s->max_function = f->head;
	}
	for (i = 0; i < f->nr_body; i++) {
		uint64_t c = f->body[i].count;
		s->total += c;
		if (c > s->max_count)
			s->max_count = c;
		GROW(s->counts, s->cap_counts, s->nr_counts + 1);
		s->counts[s->nr_counts++] = c;
	}
	for (i = 0; i < f->nr_calls; i++)
		summarize(s, f->calls[i].callee, true);
}

static int cmp_u64_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x > y ? -1 : x < y;
}

static void write_ext_summary(struct strbuf *sb, const struct afdo_profile *p)
{
	struct ext_summary s = { 0 };
	size_t i, k = 0;
	uint64_t sum = 0, count = 0, seen = 0;

	for (i = 0; i < p->nr_top; i++)
		summarize(&s, p->top[i], false);
	sort_items(s.counts, s.nr_counts, sizeof(*s.counts), cmp_u64_desc);
	put_uleb(sb, s.total);
	put_uleb(sb, s.max_count);
	put_uleb(sb, s.max_function);
	put_uleb(sb, s.nr_counts);
	put_uleb(sb, s.nr_functions);
	put_uleb(sb, s.nr_counts ? ARRAY_SIZE(summary_cutoffs) : 0);
	for (i = 0; s.nr_counts && i < ARRAY_SIZE(summary_cutoffs); i++) {
		/* computeDetailedSummary: the smallest count whose cumulative sum reaches
		 * the cutoff; equal counts are taken together */
		uint64_t want = (uint64_t)((unsigned __int128)s.total * summary_cutoffs[i] / 1000000);
		while (sum < want && k < s.nr_counts) {
			count = s.counts[k];
			for (; k < s.nr_counts && s.counts[k] == count; k++, seen++)
				sum += count;
		}
		put_uleb(sb, summary_cutoffs[i]);
		put_uleb(sb, count);
		put_uleb(sb, seen);
	}
	free(s.counts);
}

static void mark_names(const struct fprof *f, bool *used)
{
	size_t i, t;

	used[f->name] = true;
	for (i = 0; i < f->nr_body; i++)
		for (t = 0; t < f->body[i].nr_targets; t++)
			used[f->body[i].targets[t].name] = true;
	for (i = 0; i < f->nr_calls; i++)
		mark_names(f->calls[i].callee, used);
}

static int cmp_name_id(const void *a, const void *b, void *p)
{
	return strcmp(name_of(p, *(const unsigned *)a), name_of(p, *(const unsigned *)b));
}

/* SampleProfileWriterBinary::writeBody */
static void write_ext_body(struct strbuf *sb, const struct fprof *f, const unsigned *rank)
{
	size_t i, t;

	put_uleb(sb, rank[f->name]);
	put_uleb(sb, f->total);
	put_uleb(sb, f->nr_body);
	for (i = 0; i < f->nr_body; i++) {
		const struct body_sample *s = &f->body[i];
		put_uleb(sb, s->offset);
		put_uleb(sb, s->disc);
		put_uleb(sb, s->count);
		put_uleb(sb, s->nr_targets);
		for (t = 0; t < s->nr_targets; t++) {
			put_uleb(sb, rank[s->targets[t].name]);
			put_uleb(sb, s->targets[t].count);
		}
	}
	put_uleb(sb, f->nr_calls);
	for (i = 0; i < f->nr_calls; i++) {
		put_uleb(sb, f->calls[i].offset);
		put_uleb(sb, f->calls[i].disc);
		write_ext_body(sb, f->calls[i].callee, rank);
	}
}

struct ext_section {
	uint64_t type, offset, size;   /* offset: from the start of the section data */
};

static void end_section(struct ext_section *table, size_t *nr, uint64_t type, size_t start,
			const struct strbuf *sec)
{
	table[(*nr)++] = (struct ext_section){ type, start, sec->len - start };
}

int afdo_write_llvm_ext(const struct afdo_profile *p, FILE *fp)
{
	/* LLVM writes the sections in this order and lists them in the header in
	 * its layout order: the offset table before the profiles */
	static const unsigned layout[] = { 0, 1, 2, 5, 3, 4, 6 };
	struct strbuf hdr = STRBUF_INIT, sec = STRBUF_INIT;
	bool *used = xcalloc(hmap_count(&p->names) + 1, sizeof(*used));
	unsigned *order = xcalloc(hmap_count(&p->names) + 1, sizeof(*order));
	unsigned *rank = xcalloc(hmap_count(&p->names) + 1, sizeof(*rank));
	uint64_t *func_offset = xcalloc(p->nr_top + 1, sizeof(*func_offset));
	struct ext_section table[ARRAY_SIZE(layout)];
	size_t i, nr_used = 0, nr_sec = 0, start, table_at;
	int ret;

	sort_all(p);
	for (i = 0; i < p->nr_top; i++)
		mark_names(p->top[i], used);
	for (i = 0; i < hmap_count(&p->names); i++)
		if (used[i])
			order[nr_used++] = (unsigned)i;
	sort_items_r(order, nr_used, sizeof(*order), cmp_name_id, (void *)p);
	for (i = 0; i < nr_used; i++)
		rank[order[i]] = (unsigned)i;

	start = sec.len;
	write_ext_summary(&sec, p);
	end_section(table, &nr_sec, SEC_PROF_SUMMARY, start, &sec);

	start = sec.len;
	put_uleb(&sec, nr_used);
	for (i = 0; i < nr_used; i++)
		sb_add(&sec, name_of(p, order[i]), strlen(name_of(p, order[i])) + 1);
	end_section(table, &nr_sec, SEC_NAME_TABLE, start, &sec);

	start = sec.len;
	put_uleb(&sec, 0);
	end_section(table, &nr_sec, SEC_CS_NAME_TABLE, start, &sec);

	start = sec.len;
	for (i = 0; i < p->nr_top; i++) {
		func_offset[i] = sec.len - start;
		put_uleb(&sec, p->top[i]->head);
		write_ext_body(&sec, p->top[i], rank);
	}
	end_section(table, &nr_sec, SEC_LBR_PROFILE, start, &sec);

	end_section(table, &nr_sec, SEC_PROFILE_SYMBOL_LIST, sec.len, &sec);

	start = sec.len;
	put_uleb(&sec, p->nr_top);
	for (i = 0; i < p->nr_top; i++) {
		put_uleb(&sec, rank[p->top[i]->name]);
		put_uleb(&sec, func_offset[i]);
	}
	end_section(table, &nr_sec, SEC_FUNC_OFFSET_TABLE, start, &sec);

	end_section(table, &nr_sec, SEC_FUNC_METADATA, sec.len, &sec);

	/* header: magic and version as ULEB128, then the section table in u64s */
	put_uleb(&hdr, SPF_EXT_BINARY_MAGIC);
	put_uleb(&hdr, SPF_VERSION);
	put_u64le(&hdr, nr_sec);
	table_at = hdr.len + nr_sec * 32;
	for (i = 0; i < nr_sec; i++) {
		const struct ext_section *e = &table[layout[i]];
		put_u64le(&hdr, e->type);
		put_u64le(&hdr, 0);   /* flags */
		put_u64le(&hdr, table_at + e->offset);
		put_u64le(&hdr, e->size);
	}
	fwrite(hdr.buf, 1, hdr.len, fp);
	fwrite(sec.buf, 1, sec.len, fp);
	ret = ferror(fp) ? oc_err_errno("cannot write the profile") : 0;
	sb_free(&hdr);
	sb_free(&sec);
	free(used);
	free(order);
	free(rank);
	free(func_offset);
	return ret;
}
