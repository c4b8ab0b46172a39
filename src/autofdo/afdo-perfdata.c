/* afdo-perfdata.c — branch stacks from perf.data (hardware LBR or ocrec's
 * software branch sampler), mapped into the profiled binary through the
 * MMAP/MMAP2 records of the processes that ran it. */
#include <stdlib.h>
#include <string.h>

#include "autofdo/afdo-internal.h"
#include "perfdata/perfdata.h"
#include "util/util.h"

#define MAX_STACK 256

struct pd_feed {
	const char *path;
	struct afdo_binary *bin;
	struct afdo_counts *counts;
	struct afdo_mapper *mapper;
	uint64_t stacks;
};

static int on_event(const struct pd_event *ev, void *arg)
{
	struct pd_feed *f = arg;
	const struct pd_sample *s;
	struct afdo_lbr lbr[MAX_STACK];
	size_t n, i;

	switch (ev->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (afdo_path_matches(f->bin, ev->u.mmap.filename) ||
		    (ev->u.mmap.build_id_size &&
		     afdo_build_id_matches(f->bin, ev->u.mmap.build_id, ev->u.mmap.build_id_size)))
			afdo_mapper_add(f->mapper, ev->u.mmap.pid, ev->u.mmap.start, ev->u.mmap.len,
					ev->u.mmap.pgoff);
		break;
	case PERF_RECORD_FORK:
		if (ev->u.fork.pid != ev->u.fork.ppid)
			afdo_mapper_fork(f->mapper, ev->u.fork.pid, ev->u.fork.ppid);
		break;
	case PERF_RECORD_SAMPLE:
		s = &ev->u.sample;
		n = s->branch_nr < MAX_STACK ? s->branch_nr : MAX_STACK;
		if (!n)
			break;
		for (i = 0; i < n; i++) {
			const struct pd_branch *b = &s->branches[i];
			lbr[i].from_in = afdo_mapper_map(f->mapper, s->pid, b->from, &lbr[i].from);
			lbr[i].to_in = afdo_mapper_map(f->mapper, s->pid, b->to, &lbr[i].to);
			lbr[i].spec_wrong = pd_br_spec(b) == 1;   /* PERF_BR_SPEC_WRONG_PATH */
		}
		afdo_counts_add_stack(f->counts, lbr, n, 1);
		f->stacks++;
		break;
	default:
		break;
	}
	return 0;
}

/* The binary is matched by build-id where the file has one for it; a
 * mismatch means the profile would describe another build. */
static int check_build_id(const char *path, const struct pd_info *in, struct afdo_binary *b,
			  const struct afdo_input_opts *opts)
{
	const uint8_t *own;
	bool named = false;
	size_t i;

	if (!afdo_binary_build_id(b, &own)) {
		oc_warn("%s has no build-id: matching it by path", afdo_binary_path(b));
		return 0;
	}
	for (i = 0; i < in->nr_build_ids; i++) {
		const struct pd_build_id *bid = &in->build_ids[i];
		if (afdo_build_id_matches(b, bid->id, bid->size))
			return 0;
		if (afdo_path_matches(b, bid->filename))
			named = true;
	}
	if (named && !opts->force)
		return oc_err("%s: the build-id recorded for %s differs from the binary's: it was rebuilt "
			      "since (--force uses the data anyway)", path, afdo_binary_path(b));
	if (!named)
		oc_warn("%s: no build-id recorded for %s: matching it by path", path, afdo_binary_path(b));
	return 0;
}

int afdo_read_perfdata(const char *path, struct afdo_binary *b, struct afdo_counts *c,
		       const struct afdo_input_opts *opts)
{
	struct pd_feed f = { .path = path, .bin = b, .counts = c };
	struct pd_reader *r = pd_open(path);
	const struct pd_info *in;
	bool branches = false;
	size_t i;
	int ret;

	if (!r)
		return -1;
	in = pd_get_info(r);
	for (i = 0; i < in->nr_attrs; i++)
		branches |= (in->attrs[i].attr.sample_type & PERF_SAMPLE_BRANCH_STACK) != 0;
	if (!in->pipe_mode && !branches) {
		pd_close(r);
		return oc_err("%s: no branch stacks in the file: record with -b", path);
	}
	if (check_build_id(path, in, b, opts) < 0) {
		pd_close(r);
		return -1;
	}
	f.mapper = afdo_mapper_new(b, false);
	ret = pd_for_each(r, on_event, &f);
	if (ret == 0 && !f.stacks)
		ret = oc_err("%s: no branch stacks in the file: record with -b", path);
	afdo_mapper_free(f.mapper);
	pd_close(r);
	return ret < 0 ? -1 : 0;
}
