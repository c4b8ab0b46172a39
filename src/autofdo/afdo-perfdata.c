/* afdo-perfdata.c — branch stacks from perf.data (hardware LBR or ocrec's
 * software branch sampler), through the session: an address counts when the
 * map holding it is the profiled binary's (by path or build-id). */
#include <stdlib.h>
#include <string.h>

#include "autofdo/afdo-internal.h"
#include "session/session.h"
#include "util/util.h"

/* The software branch sampler's windows start where a timer interrupted the
 * thread, so a window starts in a piece of code as often as the time spent
 * there, not as often as its branches run (hardware LBR sampled on a branch
 * event has no such bias): code that waits (memory, long dependency chains)
 * opens more windows per branch than a tight loop of cheap instructions. Each
 * window is weighed by the inverse of that time per branch where it starts,
 * measured from the file itself: the branch entries of all windows that fall
 * in the region where it starts, per window started there (a region is 256
 * bytes of one function of the binary, or of the address space outside it).
 * Iterating to the weights' fixed point over-corrects the shapes measured
 * (docs/autofdo.md, "Accuracy"): one step. A window's counters are kept by
 * its start region until the weights are known. */
#define REGION_SHIFT 8
#define WEIGHT_ONE 1024      /* fixed-point weight 1 */
#define DEEP_WINDOW 1024     /* the depth to record AutoFDO's windows with */

struct region_key {
	uint64_t pid, func, chunk;   /* func: the function's entry + 1 in the binary, else 0 */
};

struct region {
	struct afdo_counts *counts;  /* of the windows started there */
	uint64_t starts, entries;
};

struct feed {
	struct afdo_binary *bin;
	struct afdo_counts *counts;
	struct afdo_lbr *lbr;        /* as deep as the deepest stack: the software sampler's go to 1024 */
	size_t cap_lbr;
	uint64_t stacks;
	bool weigh;
	struct hmap regions;         /* struct region_key -> struct region */
	uint64_t windows;
	size_t deepest;              /* the deepest window */
	const uint64_t *funcs;       /* the binary's function entries, sorted */
	size_t nr_funcs;
};

static struct region *region_of(struct feed *f, uint64_t pid, uint64_t addr, bool in, uint64_t vaddr)
{
	struct region_key key = { pid, 0, addr >> REGION_SHIFT };
	size_t i;

	if (in && (i = count_le(f->funcs, f->nr_funcs, sizeof(*f->funcs), 0, vaddr)) > 0) {
		key.func = f->funcs[i - 1] + 1;
		key.chunk = (vaddr - f->funcs[i - 1]) >> REGION_SHIFT;
	}
	return hmap_get(&f->regions, &key);
}

/* A window of the software sampler: its counters under its start region
 * (its oldest entry's), its entries counted where they fall. */
static void add_window(struct feed *f, const struct pd_sample *s, const struct afdo_lbr *lbr, size_t n)
{
	struct region *r = region_of(f, s->pid, s->branches[n - 1].from, lbr[n - 1].from_in, lbr[n - 1].from);
	size_t i;

	if (!r->counts)
		r->counts = afdo_counts_new();
	afdo_counts_add_stack(r->counts, lbr, n, 1);
	r->starts++;
	f->windows++;
	if (f->deepest < n)
		f->deepest = n;
	for (i = 0; i < n; i++)
		region_of(f, s->pid, s->branches[i].from, lbr[i].from_in, lbr[i].from)->entries++;
}

/* Every region's windows, weighed (normalised to one per window on
 * average), into counts. */
static void weigh_windows(struct feed *f)
{
	struct afdo_counts *acc = afdo_counts_new();
	double sum = 0;
	size_t i;

	for (i = 0; i < hmap_count(&f->regions); i++) {
		const struct region *r = hmap_val(&f->regions, i);
		if (r->starts)
			sum += (double)r->entries;
	}
	for (i = 0; i < hmap_count(&f->regions) && sum > 0; i++) {
		const struct region *r = hmap_val(&f->regions, i);
		if (r->counts)
			afdo_counts_merge_scaled(acc, r->counts,
						 (uint64_t)((double)r->entries / (double)r->starts *
							    (double)f->windows / sum * WEIGHT_ONE + 0.5), 1);
	}
	afdo_counts_merge_scaled(f->counts, acc, 1, WEIGHT_ONE);
	afdo_counts_free(acc);
}

static void regions_free(struct hmap *regions)
{
	size_t i;

	for (i = 0; i < hmap_count(regions); i++)
		afdo_counts_free(((struct region *)hmap_val(regions, i))->counts);
	hmap_free(regions);
}

/* A runtime address of the sample's process -> the binary's own address. */
static bool in_binary(struct feed *f, struct session *s, const struct session_sample *ss, uint64_t addr,
		      uint64_t *vaddr)
{
	const struct session_loc *l = session_resolve(s, ss, addr, SESSION_AT_BRANCH);

	return l->dso && !l->kernel && session_binary_is(afdo_binary_id(f->bin), l->dso) && afdo_offset_to_vaddr(f->bin, l->map_addr, vaddr) &&
	       afdo_is_code(f->bin, *vaddr);
}

static int on_sample(struct session *s, const struct session_sample *ss, void *arg)
{
	struct feed *f = arg;
	size_t n = ss->s->branch_nr, i;
	struct afdo_lbr *lbr;

	if (!n)
		return 0;
	GROW(f->lbr, f->cap_lbr, n);
	lbr = f->lbr;
	for (i = 0; i < n; i++) {
		const struct pd_branch *b = &ss->s->branches[i];
		lbr[i].from_in = in_binary(f, s, ss, b->from, &lbr[i].from);
		lbr[i].to_in = in_binary(f, s, ss, b->to, &lbr[i].to);
		lbr[i].spec_wrong = pd_br_spec(b) == 1;   /* PERF_BR_SPEC_WRONG_PATH */
	}
	/* a branch stack on a software event is the software sampler's window */
	if (f->weigh && ss->attr && ss->attr->attr.type == PERF_TYPE_SOFTWARE)
		add_window(f, ss->s, lbr, n);
	else
		afdo_counts_add_stack(f->counts, lbr, n, 1);
	f->stacks++;
	return 0;
}

int afdo_read_perfdata(const char *path, struct afdo_binary *b, struct afdo_counts *c,
		       const struct afdo_input_opts *opts)
{
	static const struct session_tool tool = { .sample = on_sample };
	struct session_opts so = { .sym = { .quiet = true, .maps_only = true } };
	struct feed f = { .bin = b, .counts = c, .weigh = !opts->unweighted };
	struct session *s = session_new(&so);
	const struct pd_info *in;
	bool branches = false;
	size_t i;
	int ret = -1;

	if (session_open(s, path) < 0)
		goto out;
	in = session_info(s);
	for (i = 0; i < in->nr_attrs; i++)
		branches |= (in->attrs[i].attr.sample_type & PERF_SAMPLE_BRANCH_STACK) != 0;
	if (!in->pipe_mode && !branches) {
		oc_err("%s: no branch stacks in the file: record with -b", path);
		goto out;
	}
	if (session_binary_check(afdo_binary_id(b), path, in, opts->force) < 0)
		goto out;
	hmap_init(&f.regions, sizeof(struct region_key), sizeof(struct region), NULL);
	f.nr_funcs = afdo_binary_functions(b, &f.funcs);
	ret = session_process(s, &tool, &f);
	if (ret == 0 && !f.stacks)
		ret = oc_err("%s: no branch stacks in the file: record with -b", path);
	if (ret == 0)
		weigh_windows(&f);
	/* the weights undo only part of the bias of short windows */
	if (ret == 0 && f.windows && f.deepest < DEEP_WINDOW)
		oc_warn("%s: the software sampler's windows are %zu branches deep: record with --lbr-depth %d "
			"for a more accurate profile (docs/autofdo.md, \"Accuracy\")", path, f.deepest, DEEP_WINDOW);
	regions_free(&f.regions);
out:
	session_free(s);
	free(f.lbr);
	return ret < 0 ? -1 : 0;
}
