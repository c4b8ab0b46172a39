/* input-perfdata.c — feed a report from a perf.data file (ocrec's or perf's,
 * file or pipe mode), one record at a time. */
#include <stdlib.h>
#include <string.h>

#include "perfdata/perfdata.h"
#include "report/report.h"
#include "util/util.h"

struct feed {
	struct report *r;
	struct pd_reader *rd;
	int *section;            /* attr index -> report event section, -1 before its first sample */
	size_t nr_section;
	size_t nr_build_ids;     /* build-ids already passed on */
	bool checked;
	struct report_branch *br;
	size_t cap_br;
};

static void pass_build_ids(struct feed *f)
{
	const struct pd_info *in = pd_get_info(f->rd);

	for (; f->nr_build_ids < in->nr_build_ids; f->nr_build_ids++) {
		const struct pd_build_id *b = &in->build_ids[f->nr_build_ids];
		report_build_id(f->r, b->filename, b->id, b->size);
	}
}

/* The mode (branch or not) is decided from the attrs, which a pipe only
 * delivers before its first sample. */
static int check(struct feed *f)
{
	const struct pd_info *in = pd_get_info(f->rd);
	bool branches = pd_has_feature(in, PD_FEAT_BRANCH_STACK);
	size_t i;

	for (i = 0; i < in->nr_attrs; i++)
		if (in->attrs[i].attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
			branches = true;
	report_set_has_branch_stack(f->r, branches);
	f->checked = true;
	return report_check(f->r);
}

static int section_of(struct feed *f, int attr)
{
	if (attr < 0)
		return -1;
	if ((size_t)attr >= f->nr_section) {
		f->section = xrealloc(f->section, ((size_t)attr + 1) * sizeof(int));
		while (f->nr_section <= (size_t)attr)
			f->section[f->nr_section++] = -1;
	}
	if (f->section[attr] < 0) {
		char *name = pd_attr_name(pd_attr_of(f->rd, attr));
		f->section[attr] = report_add_event(f->r, name);
		free(name);
	}
	return f->section[attr];
}

static int on_event(const struct pd_event *ev, void *arg)
{
	struct feed *f = arg;
	const struct pd_sample *s;
	struct report_sample rs;
	size_t i;

	switch (ev->type) {
	case PERF_RECORD_COMM:
		report_comm(f->r, ev->u.comm.pid, ev->u.comm.tid, ev->u.comm.comm, ev->u.comm.exec);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (ev->u.mmap.build_id_size)
			report_build_id(f->r, ev->u.mmap.filename, ev->u.mmap.build_id,
					ev->u.mmap.build_id_size);
		report_mmap(f->r, ev->u.mmap.pid, ev->u.mmap.start, ev->u.mmap.len, ev->u.mmap.pgoff,
			    ev->u.mmap.filename,
			    (ev->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL);
		break;
	case PERF_RECORD_FORK:
		report_fork(f->r, ev->u.fork.pid, ev->u.fork.ppid, ev->u.fork.tid);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		report_set_lost(f->r, ev->u.lost.lost);
		break;
	case PERF_RECORD_SAMPLE:
		if (!f->checked) {
			pass_build_ids(f);
			if (check(f) < 0)
				return -1;
		}
		s = &ev->u.sample;
		if (f->cap_br < s->branch_nr)
			GROW(f->br, f->cap_br, s->branch_nr);
		for (i = 0; i < s->branch_nr; i++) {
			const struct pd_branch *b = &s->branches[i];
			f->br[i] = (struct report_branch){ b->from, b->to, pd_br_mispred(b),
							   pd_br_predicted(b), pd_br_cycles(b) };
		}
		memset(&rs, 0, sizeof(rs));
		rs.event = section_of(f, s->attr_index);
		rs.pid = s->pid;
		rs.tid = s->tid;
		rs.ip = s->ip;
		rs.period = s->period;
		rs.kernel = (s->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
		rs.branches = f->br;
		rs.nr_branches = s->branch_nr;
		rs.callchain = s->callchain;
		rs.nr_callchain = s->callchain_nr;
		report_sample(f->r, &rs);
		break;
	default:
		break;
	}
	return 0;
}

int report_read_perfdata(struct report *r, const char *path)
{
	struct feed f = { .r = r };
	const struct pd_info *in;
	size_t i;
	int ret;

	f.rd = pd_open(path);
	if (!f.rd)
		return -1;
	in = pd_get_info(f.rd);
	/* one section per event, in the file's order, even those without samples */
	for (i = 0; i < in->nr_attrs; i++)
		section_of(&f, (int)i);
	pass_build_ids(&f);
	ret = pd_for_each(f.rd, on_event, &f);
	if (ret == 0 && !f.checked)
		ret = check(&f);   /* a file without samples still gets its (empty) report */
	free(f.section);
	free(f.br);
	pd_close(f.rd);
	return ret < 0 ? -1 : 0;
}
