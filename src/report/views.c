/* views.c — the views beyond the histogram:
 *   --source          per hot function: its source lines, how many branch entries
 *                     leave and enter each line, and the line's text;
 *   --branch-history  the sample address, then LBR entries newest first (to, from
 *                     of each, as perf's machine.c does) and the call chain, merged
 *                     into a tree with percentages; nodes show function, file:line
 *                     and the source text;
 *   --hot-paths       basic blocks from the ranges between consecutive branches,
 *                     the most frequent block sequences, and loop trip counts.
 * All tables are keyed by distinct locations, so memory follows the code size. */
#define _GNU_SOURCE   /* qsort_r */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/report-internal.h"

/* Every table below is a struct hmap from a key of words to nothing: its
 * entries come in insertion order, so a key's entry index is also its index in
 * the view's own array, appended when hmap_add() says the key is new. */
static void words_map(struct hmap *m, size_t nw)
{
	hmap_init(m, nw * sizeof(uint64_t), 0, NULL);
}

/* A location as the views print it: function, file:line, full path and line. */
struct vloc {
	const char *func;          /* NULL: unknown */
	char level;
	uint64_t addr;
	const char *srcline, *file;   /* interned by the session; file NULL when unknown */
	unsigned line;
	const struct dso *dso;
	uint64_t file_addr;        /* address in the binary's own ELF address space */
};

static struct vloc vloc_of(struct report *r, struct session_loc *l)
{
	session_loc_line(r->s, l);
	return (struct vloc){ l->name, l->level, l->level == 'H' ? l->addr : l->map_addr, l->srcline, l->file,
			      l->line, l->dso, l->file_addr };
}

/* A branch entry's source or target, as perf report looks it up. */
static struct session_loc *branch_loc(struct report *r, const struct session_sample *ss, uint64_t addr)
{
	return session_resolve(r->s, ss, addr, SESSION_AT_BRANCH);
}

static void func_text(const struct vloc *v, char *buf, size_t size)
{
	if (v->func)
		snprintf(buf, size, "%s", v->func);
	else
		snprintf(buf, size, "[%c] %#" PRIx64, v->level, v->addr);
}

/* --- source text ------------------------------------------------------- */

struct srcfile {
	char *text;
	char **lines;
	size_t nr_lines;
	bool tried;
};

struct srcfiles {
	struct hmap map;           /* interned path -> index in f */
	struct srcfile *f;
	size_t n, cap;
};

static void srcfiles_init(struct srcfiles *sf)
{
	memset(sf, 0, sizeof(*sf));
	words_map(&sf->map, 1);
}

/* A source file DWARF names: a regular file (never a FIFO or a device a
 * hostile binary could name) of a size a source file has. */
static char *source_text(const char *path, size_t *len)
{
	return is_regular_file(path) ? read_file_max(path, len, 64u << 20, "a source file") : NULL;
}

static const char *source_line(struct report *r, struct srcfiles *sf, const char *path, unsigned line)
{
	struct srcfile *f;
	uint64_t key = (uint64_t)(uintptr_t)path;
	size_t idx;
	bool added;

	if (!path || line == 0)
		return NULL;
	idx = hmap_add(&sf->map, &key, &added);
	if (added) {
		GROW(sf->f, sf->cap, sf->n + 1);
		memset(&sf->f[sf->n++], 0, sizeof(*sf->f));
	}
	f = &sf->f[idx];
	if (!f->tried) {
		size_t len, cap = 0;
		char *p;
		f->tried = true;
		f->text = source_text(path, &len);
		if (!f->text && r->opts.session.sym.symfs) {
			char *alt = xasprintf("%s/%s", r->opts.session.sym.symfs, path);
			f->text = source_text(alt, &len);
			free(alt);
		}
		oc_err_clear();
		for (p = f->text; p && *p;) {
			char *nl = strchr(p, '\n');
			GROW(f->lines, cap, f->nr_lines + 1);
			f->lines[f->nr_lines++] = p;
			if (!nl)
				break;
			*nl = 0;
			p = nl + 1;
		}
	}
	if (line > f->nr_lines)
		return NULL;
	return str_trim(f->lines[line - 1]);
}

static void srcfiles_free(struct srcfiles *sf)
{
	size_t i;
	for (i = 0; i < sf->n; i++) {
		free(sf->f[i].text);
		free(sf->f[i].lines);
	}
	free(sf->f);
	hmap_free(&sf->map);
}

/* --- --source ---------------------------------------------------------- */

struct src_line {
	const struct dso *dso;
	const struct symbol *sym;
	const char *func;
	const char *file;          /* NULL: no line information */
	unsigned line;
	uint64_t leave, enter;
	size_t func_idx;
};

struct src_func {
	const char *name;
	uint64_t total;
};

struct source_view {
	struct hmap lines_map, funcs_map;
	struct src_line *lines;
	size_t nr_lines, cap_lines;
	struct src_func *funcs;
	size_t nr_funcs, cap_funcs;
};

static void source_count(struct report *r, struct source_view *v, struct session_loc *l, bool leave)
{
	uint64_t key[3], fkey[2];
	size_t idx, fidx;
	struct src_line *sl;
	bool added;

	session_loc_line(r->s, l);
	if (!l->sym || report_dso_filtered(r, l))
		return;
	fkey[0] = (uint64_t)(uintptr_t)l->dso;
	fkey[1] = (uint64_t)(uintptr_t)l->sym;
	fidx = hmap_add(&v->funcs_map, fkey, &added);
	if (added) {
		GROW(v->funcs, v->cap_funcs, v->nr_funcs + 1);
		v->funcs[v->nr_funcs++] = (struct src_func){ l->name, 0 };
	}
	v->funcs[fidx].total++;
	key[0] = fkey[1];
	key[1] = (uint64_t)(uintptr_t)l->file;
	key[2] = l->line;
	idx = hmap_add(&v->lines_map, key, &added);
	if (added) {
		GROW(v->lines, v->cap_lines, v->nr_lines + 1);
		v->lines[v->nr_lines++] = (struct src_line){ l->dso, l->sym, l->name, l->file, l->line,
							     0, 0, fidx };
	}
	sl = &v->lines[idx];
	if (leave)
		sl->leave++;
	else
		sl->enter++;
}

/* Functions by their total, then their lines in file order (a file without
 * line information first, then by interned path: the order they were met). */
static int cmp_src_lines(const void *pa, const void *pb, void *ctx)
{
	const struct source_view *v = ctx;
	const struct src_line *a = pa, *b = pb;
	uint64_t ta = v->funcs[a->func_idx].total, tb = v->funcs[b->func_idx].total;
	if (a->func_idx != b->func_idx) {
		if (ta != tb)
			return ta > tb ? -1 : 1;
		return a->func_idx < b->func_idx ? -1 : 1;
	}
	if (a->file != b->file)
		return !a->file ? -1 : !b->file ? 1 : strcmp(a->file, b->file);
	return a->line < b->line ? -1 : a->line > b->line;
}

static int source_print(struct report *r, struct rsection *sec, FILE *out)
{
	struct source_view *v = sec->view;
	struct srcfiles sf;
	uint64_t ends = 2 * report_shown_period(r, sec);
	size_t i, shown_funcs = 0;
	size_t cur = SIZE_MAX;
	bool skip_func = false;

	srcfiles_init(&sf);
	qsort_r(v->lines, v->nr_lines, sizeof(*v->lines), cmp_src_lines, v);
	if (r->opts.json)
		fprintf(out, "\"functions\": [");
	else
		fprintf(out, "# Branch entries: %" PRIu64 " of event '%s' (each entry leaves one line and "
			"enters another)\n#\n", report_shown_period(r, sec), sec->name);
	for (i = 0; i < v->nr_lines; i++) {
		const struct src_line *l = &v->lines[i];
		const struct src_func *f = &v->funcs[l->func_idx];
		double pct = ends ? 100.0 * f->total / ends : 0;
		const char *text;
		if (l->func_idx != cur) {
			cur = l->func_idx;
			skip_func = (r->opts.percent_limit > 0 && pct < r->opts.percent_limit) ||
				    (r->opts.max_rows > 0 && shown_funcs >= (size_t)r->opts.max_rows);
			if (skip_func)
				continue;
			if (r->opts.json) {
				fprintf(out, "%s\n    {\"function\": ", shown_funcs ? "]}," : "");
				json_str(out, f->name);
				fprintf(out, ", \"dso\": ");
				json_str(out, l->dso ? l->dso->name : "[unknown]");
				fprintf(out, ", \"percent\": %.4f, \"lines\": [", pct);
			} else {
				fprintf(out, "%s%s (%s)  %.2f%% of branch ends\n", shown_funcs ? "\n" : "", f->name,
					l->dso ? l->dso->short_name : "[unknown]", pct);
				fprintf(out, "  %8s  %8s  %-24s  %s\n", "leave", "enter", "file:line", "source");
			}
			shown_funcs++;
		}
		if (skip_func)
			continue;
		text = source_line(r, &sf, l->file, l->line);
		if (r->opts.json) {
			bool first = i == 0 || v->lines[i - 1].func_idx != l->func_idx;
			fprintf(out, "%s{\"file\": ", first ? "" : ", ");
			json_str(out, l->file ? l->file : "");
			fprintf(out, ", \"line\": %u, \"leave\": %" PRIu64 ", \"enter\": %" PRIu64 ", \"text\": ",
				l->line, l->leave, l->enter);
			if (text)
				json_str(out, text);
			else
				fputs("null", out);
			fputc('}', out);
		} else {
			char where[512];
			if (l->file)
				snprintf(where, sizeof(where), "%s:%u", str_basename(l->file), l->line);
			else
				snprintf(where, sizeof(where), "(no line info)");
			fprintf(out, "  %7.2f%%  %7.2f%%  %-24s  %s\n", report_percent(r, sec, l->leave),
				report_percent(r, sec, l->enter), where, text ? text : "");
		}
	}
	if (r->opts.json)
		fprintf(out, "%s]", shown_funcs ? "]}" : "");
	else
		fputs("\n\n", out);
	srcfiles_free(&sf);
	return 0;
}

/* Every branch entry leaves one line and enters another; the section counts
 * entries, and the lines and functions the ends its filters keep. */
static void source_sample(struct report *r, struct rsection *sec, const struct session_sample *ss, bool filtered)
{
	struct source_view *v = sec->view;
	size_t i;

	if (!ss->s->branch_nr)
		return;
	if (!v) {
		v = sec->view = xcalloc(1, sizeof(*v));
		words_map(&v->lines_map, 3);
		words_map(&v->funcs_map, 2);
	}
	sec->nr_samples += ss->s->branch_nr;
	sec->total_period += ss->s->branch_nr;
	if (filtered)
		return;
	for (i = 0; i < ss->s->branch_nr; i++) {
		struct session_loc *from = branch_loc(r, ss, ss->s->branches[i].from);
		struct session_loc *to = branch_loc(r, ss, ss->s->branches[i].to);
		if (report_dso_filtered(r, from) && report_dso_filtered(r, to))
			continue;
		source_count(r, v, from, true);
		source_count(r, v, to, false);
		sec->kept_samples++;
		sec->kept_period++;
	}
}

static void source_free(void *state)
{
	struct source_view *v = state;

	hmap_free(&v->lines_map);
	hmap_free(&v->funcs_map);
	free(v->lines);
	free(v->funcs);
	free(v);
}

const struct view_ops view_source = { "source", source_sample, source_print, source_free };

/* --- --branch-history -------------------------------------------------- */

struct bh_node {
	struct vloc loc;
	uint32_t parent;           /* UINT32_MAX for roots */
	uint64_t period;
	uint32_t *kids;
	size_t nr_kids, cap_kids;
};

struct bh_view {
	struct hmap map;           /* (parent, srcline, func ptr, addr-if-unknown) -> node */
	struct bh_node *nodes;
	size_t n, cap;
	uint32_t *roots;
	size_t nr_roots, cap_roots;
};

#define BH_MAX_DEPTH 64

static uint32_t bh_child(struct bh_view *v, uint32_t parent, const struct vloc *loc)
{
	uint64_t key[4] = { parent, (uint64_t)(uintptr_t)loc->srcline, (uint64_t)(uintptr_t)loc->func,
			    loc->func ? 0 : loc->addr };
	bool added;
	uint32_t idx = (uint32_t)hmap_add(&v->map, key, &added);
	if (!added)
		return idx;
	GROW(v->nodes, v->cap, v->n + 1);
	v->nodes[v->n] = (struct bh_node){ .loc = *loc, .parent = parent };
	if (parent == UINT32_MAX) {
		GROW(v->roots, v->cap_roots, v->nr_roots + 1);
		v->roots[v->nr_roots++] = idx;
	} else {
		struct bh_node *p = &v->nodes[parent];
		GROW(p->kids, p->cap_kids, p->nr_kids + 1);
		p->kids[p->nr_kids++] = idx;
	}
	v->n++;
	return idx;
}

/* The tree grows along each sample's path (report_sample_path). */
static void bh_sample(struct report *r, struct rsection *sec, const struct session_sample *ss, bool filtered)
{
	struct bh_view *v = sec->view;
	struct vloc path[BH_MAX_DEPTH];
	struct report_step steps[BH_MAX_DEPTH];
	size_t n = 0, i;
	uint32_t node = UINT32_MAX;
	uint64_t period = ss->s->period ? ss->s->period : 1;

	if (!v) {
		v = sec->view = xcalloc(1, sizeof(*v));
		words_map(&v->map, 4);
	}
	if (!report_take_sample(r, sec, ss, filtered, period))
		return;
	n = report_sample_path(r, ss, true, steps, BH_MAX_DEPTH);
	for (i = 0; i < n; i++)
		path[i] = vloc_of(r, steps[i].loc);
	for (i = 0; i < n; i++) {
		/* consecutive records at the same line collapse into one node */
		if (i && node != UINT32_MAX && v->nodes[node].loc.srcline == path[i].srcline &&
		    v->nodes[node].loc.func == path[i].func)
			continue;
		node = bh_child(v, node, &path[i]);
		v->nodes[node].period += period;
	}
}

static int cmp_bh(const void *pa, const void *pb, void *ctx)
{
	const struct bh_view *v = ctx;
	uint64_t a = v->nodes[*(const uint32_t *)pa].period;
	uint64_t b = v->nodes[*(const uint32_t *)pb].period;
	return a > b ? -1 : a < b;
}

#define BH_CHILD_LIMIT 0.5     /* percent: like perf's callchain threshold */

static void bh_print_node(struct report *r, struct rsection *sec, struct srcfiles *sf, uint32_t idx,
			  unsigned depth, unsigned indent, FILE *out, bool *first)
{
	struct bh_view *v = sec->view;
	struct bh_node *nd = &v->nodes[idx];
	double pct = report_percent(r, sec, nd->period);
	const char *text = source_line(r, sf, nd->loc.file, nd->loc.line);
	char fn[512];
	size_t i;

	if (depth && pct < BH_CHILD_LIMIT)
		return;
	func_text(&nd->loc, fn, sizeof(fn));
	if (r->opts.json) {
		fprintf(out, "%s{\"percent\": %.4f, \"function\": ", *first ? "" : ", ", pct);
		json_str(out, fn);
		fprintf(out, ", \"srcline\": ");
		json_str(out, nd->loc.srcline);
		fprintf(out, ", \"text\": ");
		if (text)
			json_str(out, text);
		else
			fputs("null", out);
		fprintf(out, ", \"children\": [");
	} else {
		fprintf(out, "%*s%s%6.2f%%  %s %s%s%s\n", (int)(indent * 4), "", depth ? "--" : "  ", pct, fn,
			nd->loc.srcline, text ? "  | " : "", text ? text : "");
	}
	*first = false;
	if (nd->nr_kids > 1)   /* a leaf's kids is NULL, which qsort must not get */
		qsort_r(nd->kids, nd->nr_kids, sizeof(*nd->kids), cmp_bh, v);
	bool kid_first = true;
	/* an only child continues the chain at the same indentation, as perf draws it */
	unsigned kid_indent = indent + (v->nodes[idx].nr_kids > 1);
	for (i = 0; i < v->nodes[idx].nr_kids; i++)
		bh_print_node(r, sec, sf, v->nodes[idx].kids[i], depth + 1, kid_indent, out, &kid_first);
	if (r->opts.json)
		fputs("]}", out);
}

static int bh_print(struct report *r, struct rsection *sec, FILE *out)
{
	struct bh_view *v = sec->view;
	struct srcfiles sf;
	size_t i, shown = 0;
	bool first = true;

	srcfiles_init(&sf);
	qsort_r(v->roots, v->nr_roots, sizeof(*v->roots), cmp_bh, v);
	if (r->opts.json) {
		fprintf(out, "\"tree\": [");
	} else {
		fprintf(out, "# Samples: %" PRIu64 " of event '%s' (branch history: sample address, then "
			"branch targets and sources newest first)\n", report_shown_samples(r, sec), sec->name);
		fprintf(out, "# Event count (approx.): %" PRIu64 "\n#\n", report_shown_period(r, sec));
	}
	for (i = 0; i < v->nr_roots; i++) {
		double pct = report_percent(r, sec, v->nodes[v->roots[i]].period);
		if (r->opts.percent_limit > 0 && pct < r->opts.percent_limit)
			continue;
		if (r->opts.max_rows > 0 && shown >= (size_t)r->opts.max_rows)
			break;
		bh_print_node(r, sec, &sf, v->roots[i], 0, 0, out, &first);
		if (!r->opts.json)
			fputc('\n', out);
		shown++;
	}
	if (r->opts.json)
		fputc(']', out);
	srcfiles_free(&sf);
	return 0;
}

static void bh_free(void *state)
{
	struct bh_view *v = state;
	size_t i;

	for (i = 0; i < v->n; i++)
		free(v->nodes[i].kids);
	hmap_free(&v->map);
	free(v->nodes);
	free(v->roots);
	free(v);
}

const struct view_ops view_branch_history = { "branch_history", bh_sample, bh_print, bh_free };

/* --- hot paths --------------------------------------------------------- */

struct block {
	uint64_t start, end;       /* addresses of the first byte and of the ending branch */
	struct vloc s, e;
	uint64_t count;
};

struct path3 {
	uint32_t b[3];
	uint64_t count;
};

struct loop {
	uint64_t latch, head;      /* the backward branch */
	struct vloc l, h;
	uint64_t taken, runs, run_iters, partial_runs, partial_iters;
};

struct hot_view {
	struct hmap bmap, pmap, lmap;
	struct block *blocks;
	size_t nb, cb;
	struct path3 *paths;
	size_t np, cp;
	struct loop *loops;
	size_t nl, cl;
	uint64_t windows;
};

static uint32_t hot_block(struct report *r, struct hot_view *v, const struct session_sample *ss,
			  uint64_t start, uint64_t end)
{
	uint64_t key[2] = { start, end };
	bool added;
	uint32_t idx = (uint32_t)hmap_add(&v->bmap, key, &added);
	if (added) {
		GROW(v->blocks, v->cb, v->nb + 1);
		v->blocks[v->nb++] = (struct block){ start, end, vloc_of(r, branch_loc(r, ss, start)),
						     vloc_of(r, branch_loc(r, ss, end)), 0 };
	}
	v->blocks[idx].count++;
	return idx;
}

static struct loop *hot_loop(struct report *r, struct hot_view *v, const struct session_sample *ss,
			     uint64_t latch, uint64_t head)
{
	uint64_t key[2] = { latch, head };
	bool added;
	size_t idx = hmap_add(&v->lmap, key, &added);
	if (added) {
		GROW(v->loops, v->cl, v->nl + 1);
		v->loops[v->nl++] = (struct loop){ latch, head, vloc_of(r, branch_loc(r, ss, latch)),
						   vloc_of(r, branch_loc(r, ss, head)), 0, 0, 0, 0, 0 };
	}
	return &v->loops[idx];
}

/* Ranges between consecutive branches (oldest first): entry i+1 (older) lands at
 * to, and the code runs straight to entry i's from (newer). */
static void hot_count(struct report *r, struct hot_view *v, const struct session_sample *ss)
{
	const struct pd_branch *br = ss->s->branches;
	size_t nr = ss->s->branch_nr, i;
	uint32_t prev[2] = { UINT32_MAX, UINT32_MAX };
	struct loop *cur = NULL;
	uint64_t iters = 0;
	bool entered = false;

	v->windows++;
	for (i = nr - 1; i > 0; i--) {
		const struct pd_branch *older = &br[i], *newer = &br[i - 1];
		uint32_t b;
		if (newer->from < older->to || newer->from - older->to > 1 << 20)
			continue;   /* not a straight-line range (interrupt, or another process) */
		b = hot_block(r, v, ss, older->to, newer->from);
		if (prev[0] != UINT32_MAX && prev[1] != UINT32_MAX) {
			uint64_t key[3] = { prev[0], prev[1], b };
			bool added;
			size_t idx = hmap_add(&v->pmap, key, &added);
			if (added) {
				GROW(v->paths, v->cp, v->np + 1);
				v->paths[v->np++] = (struct path3){ { prev[0], prev[1], b }, 0 };
			}
			v->paths[idx].count++;
		}
		prev[0] = prev[1];
		prev[1] = b;
	}
	/* loops: runs of one backward branch with every branch between it staying
	 * inside [head, latch]; a run seen from its entry to its exit is complete */
	for (i = nr; i-- > 0;) {
		const struct pd_branch *b = &br[i];
		bool backward = b->to <= b->from && b->from - b->to < 1 << 16;
		if (backward && !(cur && b->from == cur->latch && b->to == cur->head)) {
			/* a loop's back edge stays in one function (calls may go backward too) */
			const struct symbol *fsym = branch_loc(r, ss, b->from)->sym;
			backward = fsym && branch_loc(r, ss, b->to)->sym == fsym;
		}
		if (cur && b->from == cur->latch && b->to == cur->head) {
			cur->taken++;
			iters++;
			continue;
		}
		if (cur && b->from >= cur->head && b->from <= cur->latch &&
		    b->to >= cur->head && b->to <= cur->latch)
			continue;      /* a branch inside the loop body */
		if (cur) {
			bool left = b->from >= cur->head && b->from <= cur->latch;
			if (entered && left) {
				cur->runs++;
				cur->run_iters += iters + 1;
			} else {
				cur->partial_runs++;
				cur->partial_iters += iters + 1;
			}
			cur = NULL;
		}
		if (backward) {
			cur = hot_loop(r, v, ss, b->from, b->to);
			cur->taken++;
			iters = 1;
			/* the previous (older) entry tells whether the loop was entered in view */
			entered = i + 1 < nr &&
				  !(br[i + 1].to >= b->to && br[i + 1].to <= b->from &&
				    br[i + 1].from >= b->to && br[i + 1].from <= b->from);
		}
	}
	if (cur) {
		cur->partial_runs++;
		cur->partial_iters += iters + 1;
	}
}

static void hot_sample(struct report *r, struct rsection *sec, const struct session_sample *ss, bool filtered)
{
	struct hot_view *v = sec->view;

	if (!v) {
		v = sec->view = xcalloc(1, sizeof(*v));
		words_map(&v->bmap, 2);
		words_map(&v->pmap, 3);
		words_map(&v->lmap, 2);
	}
	if (report_take_sample(r, sec, ss, filtered, ss->s->period) && ss->s->branch_nr >= 2)
		hot_count(r, v, ss);
}

static int cmp_blocks(const void *a, const void *b, void *ctx)
{
	const struct hot_view *v = ctx;
	uint64_t x = v->blocks[*(const uint32_t *)a].count, y = v->blocks[*(const uint32_t *)b].count;
	return x > y ? -1 : x < y;
}

static int cmp_paths(const void *a, const void *b)
{
	uint64_t x = ((const struct path3 *)a)->count, y = ((const struct path3 *)b)->count;
	return x > y ? -1 : x < y;
}

static int cmp_loops(const void *a, const void *b)
{
	uint64_t x = ((const struct loop *)a)->taken, y = ((const struct loop *)b)->taken;
	return x > y ? -1 : x < y;
}

static void block_text(const struct block *b, char *buf, size_t size)
{
	char fn[256];
	func_text(&b->s, fn, sizeof(fn));
	snprintf(buf, size, "%s %s-%s [%#" PRIx64 "-%#" PRIx64 "]", fn, b->s.srcline, b->e.srcline,
		 b->s.file_addr, b->e.file_addr);
}

static int hot_print(struct report *r, struct rsection *sec, FILE *out)
{
	struct hot_view *v = sec->view;
	size_t limit = r->opts.max_rows > 0 ? (size_t)r->opts.max_rows : 20, i, k;
	uint32_t *order = xcalloc(v->nb ? v->nb : 1, sizeof(*order));
	char buf[1024];

	for (i = 0; i < v->nb; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, v->nb, sizeof(*order), cmp_blocks, v);
	qsort(v->paths, v->np, sizeof(*v->paths), cmp_paths);
	qsort(v->loops, v->nl, sizeof(*v->loops), cmp_loops);
	if (r->opts.json)
		fprintf(out, "\"windows\": %" PRIu64 ",\n   \"blocks\": [", v->windows);
	else
		fprintf(out, "# Event '%s': %" PRIu64 " LBR windows\n#\n# Hot basic blocks (executions counted "
			"from the ranges between consecutive branches)\n#   count  block\n", sec->name, v->windows);
	for (i = 0; i < v->nb && i < limit; i++) {
		const struct block *b = &v->blocks[order[i]];
		block_text(b, buf, sizeof(buf));
		if (r->opts.json) {
			fprintf(out, "%s{\"count\": %" PRIu64 ", \"block\": ", i ? ", " : "", b->count);
			json_str(out, buf);
			fputc('}', out);
		} else {
			fprintf(out, "%9" PRIu64 "  %s\n", b->count, buf);
		}
	}
	if (r->opts.json)
		fprintf(out, "],\n   \"paths\": [");
	else
		fprintf(out, "#\n# Hot paths (sequences of three basic blocks)\n");
	for (i = 0; i < v->np && i < limit; i++) {
		if (r->opts.json)
			fprintf(out, "%s{\"count\": %" PRIu64 ", \"blocks\": [", i ? ", " : "", v->paths[i].count);
		else
			fprintf(out, "%9" PRIu64 "  ", v->paths[i].count);
		for (k = 0; k < 3; k++) {
			block_text(&v->blocks[v->paths[i].b[k]], buf, sizeof(buf));
			if (r->opts.json) {
				if (k)
					fputs(", ", out);
				json_str(out, buf);
			} else {
				fprintf(out, "%s%s\n", k ? "           -> " : "", buf);
			}
		}
		if (r->opts.json)
			fputs("]}", out);
	}
	if (r->opts.json)
		fprintf(out, "],\n   \"loops\": [");
	else
		fprintf(out, "#\n# Loops (backward branches): taken count and estimated trip count\n"
			"#   taken   trips  latch -> head\n");
	for (i = 0; i < v->nl && i < limit; i++) {
		const struct loop *l = &v->loops[i];
		char fn[256], trips[64];
		/* complete runs give the estimate; runs cut by the window edge a lower bound */
		if (l->runs)
			snprintf(trips, sizeof(trips), "%.1f", (double)l->run_iters / l->runs);
		else
			snprintf(trips, sizeof(trips), ">=%.1f",
				 l->partial_runs ? (double)l->partial_iters / l->partial_runs : 0.0);
		func_text(&l->l, fn, sizeof(fn));
		if (r->opts.json) {
			fprintf(out, "%s{\"taken\": %" PRIu64 ", \"trips\": ", i ? ", " : "", l->taken);
			json_str(out, trips);
			fprintf(out, ", \"function\": ");
			json_str(out, fn);
			fprintf(out, ", \"latch\": ");
			json_str(out, l->l.srcline);
			fprintf(out, ", \"head\": ");
			json_str(out, l->h.srcline);
			fputc('}', out);
		} else {
			fprintf(out, "%9" PRIu64 "  %6s  %s %s -> %s\n", l->taken, trips, fn, l->l.srcline,
				l->h.srcline);
		}
	}
	if (r->opts.json)
		fputc(']', out);
	else
		fputs("\n\n", out);
	free(order);
	return 0;
}

static void hot_free(void *state)
{
	struct hot_view *v = state;

	hmap_free(&v->bmap);
	hmap_free(&v->pmap);
	hmap_free(&v->lmap);
	free(v->blocks);
	free(v->paths);
	free(v->loops);
	free(v);
}

const struct view_ops view_hot_paths = { "hot_paths", hot_sample, hot_print, hot_free };
