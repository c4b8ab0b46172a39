/* afdo-perfdata.c — branch stacks from perf.data (hardware LBR or ocrec's
 * software branch sampler), through the session: an address counts when the
 * map holding it is the profiled binary's (by path or build-id). */
#include <stdlib.h>
#include <string.h>

#include "autofdo/afdo-internal.h"
#include "session/session.h"
#include "util/util.h"

struct feed {
	struct afdo_binary *bin;
	struct afdo_counts *counts;
	struct afdo_lbr *lbr;        /* as deep as the deepest stack: the software sampler's go to 1024 */
	size_t cap_lbr;
	uint64_t stacks;
};

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
	afdo_counts_add_stack(f->counts, lbr, n, 1);
	f->stacks++;
	return 0;
}

int afdo_read_perfdata(const char *path, struct afdo_binary *b, struct afdo_counts *c,
		       const struct afdo_input_opts *opts)
{
	static const struct session_tool tool = { .sample = on_sample };
	struct session_opts so = { .sym = { .quiet = true, .maps_only = true } };
	struct feed f = { .bin = b, .counts = c };
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
	ret = session_process(s, &tool, &f);
	if (ret == 0 && !f.stacks)
		ret = oc_err("%s: no branch stacks in the file: record with -b", path);
out:
	session_free(s);
	free(f.lbr);
	return ret < 0 ? -1 : 0;
}
