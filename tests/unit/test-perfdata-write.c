/* Unit tests for the perf.data writer: files written with pd_writer_* read back
 * field for field by ocrec's reader, for every sample_type combination the
 * recorder and the sampler use; the header layout perf 6.1 needs (attr.size
 * 128, attr_size 144, ids, data.size patched, feature bits); temp name until
 * commit; errors. perf 6.1 itself reads these files in t0310. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu/cpu.h"
#include "perfdata/perfdata.h"
#include "tap.h"
#include "util/util.h"

#define NR_SAMPLES 4
#define MAX_EVS 2

static char *dir;

/* One sample_type combination and the expectations that follow from it. */
struct combo {
	const char *name;
	uint64_t sample_type;
	uint64_t branch_sample_type;
	int nr_evs;               /* 2: the second event has the same type, samples alternate */
	bool sample_id_all;
};

static const struct combo combos[] = {
	/* ocrec record, no -b, no -a */
	{ "record", PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD, 0, 1, true },
	/* ocrec record -a -g */
	{ "record-a-g", PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
	  PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN, 0, 1, true },
	/* ocrec record -b */
	{ "record-b", PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
	  PERF_SAMPLE_BRANCH_STACK, PERF_SAMPLE_BRANCH_ANY, 1, true },
	/* ocrec record -b -j any,u,save_type with HW_INDEX (--call-graph lbr style) */
	{ "record-b-hwidx", PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
	  PERF_SAMPLE_BRANCH_STACK, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
	  PERF_SAMPLE_BRANCH_TYPE_SAVE | PERF_SAMPLE_BRANCH_HW_INDEX, 1, true },
	/* ocrec record -e a,b -a -g -b: several events told apart by IDENTIFIER */
	{ "record-2ev", PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	  PERF_SAMPLE_PERIOD | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK,
	  PERF_SAMPLE_BRANCH_ANY, 2, true },
	/* ID rather than IDENTIFIER, as older perf writes */
	{ "id-2ev", PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
	  PERF_SAMPLE_PERIOD, 0, 2, true },
	/* the software branch sampler */
	{ "sampler", PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
	  PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK, PERF_SAMPLE_BRANCH_ANY, 1, true },
	/* no sample_id_all: side-band records without trailers */
	{ "no-sample-id-all", PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD, 0, 1, false },
	/* every field the encoder knows */
	{ "everything", PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	  PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
	  PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK |
	  PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR,
	  PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX, 1, true },
};

static const uint64_t ev_ids[MAX_EVS][2] = { { 1001, 1002 }, { 2001, 2002 } };
static const char *const ev_names[MAX_EVS] = { "cycles:u", "instructions:u" };
static const char raw_data[5] = { 'r', 'a', 'w', '!', '?' };

/* The i-th sample: every field distinct, a branch stack of i entries (0 included),
 * a call chain of i + 1 entries with a context marker. */
static void make_sample(int i, int nr_evs, struct pd_sample *s, struct pd_branch *br, uint64_t *cc)
{
	int k;

	memset(s, 0, sizeof(*s));
	s->attr_index = i % nr_evs;
	s->ip = 0x401000 + 0x10 * (uint64_t)i;
	s->pid = 4000 + (uint32_t)i;
	s->tid = 5000 + (uint32_t)i;
	s->time = 1000000000ULL + 333 * (uint64_t)i;
	s->addr = 0x7fff0000 + (uint64_t)i;
	s->id = ev_ids[s->attr_index][i % 2];
	s->stream_id = 77 + (uint64_t)i;
	s->cpu = (uint32_t)i % 2;
	s->period = 100003 + (uint64_t)i;
	s->misc = i == 3 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	cc[0] = (uint64_t)-512;   /* PERF_CONTEXT_USER */
	for (k = 0; k < i; k++)
		cc[k + 1] = 0x402000 + 0x100 * (uint64_t)k;
	s->callchain_nr = (uint64_t)i + 1;
	s->callchain = cc;
	for (k = 0; k < i; k++) {
		br[k].from = 0x403000 + 0x20 * (uint64_t)k;
		br[k].to = 0x404000 + 0x20 * (uint64_t)k;
		br[k].flags = pd_br_make_flags(k % 2, (k + 1) % 2, 10u * (unsigned)k, (unsigned)k % 7);
	}
	s->branch_nr = (uint64_t)i;
	s->branches = br;
	s->has_hw_idx = true;
	s->branch_hw_idx = (uint64_t)i * 3;
	s->raw = raw_data;
	s->raw_size = sizeof(raw_data);
	s->weight = 40 + (uint64_t)i;
	s->data_src = 0x1234500 + (uint64_t)i;
	s->transaction = 6 + (uint64_t)i;
	s->phys_addr = 0x8000000 + (uint64_t)i;
}

struct readback {
	const struct combo *c;
	int samples, comms, mmaps, forks, exits, lost, rounds, other;
	int bad;                 /* fields that differed */
	char what[256];          /* the first difference */
};

static void differ(struct readback *rb, const char *field, int i)
{
	if (!rb->bad++)
		snprintf(rb->what, sizeof(rb->what), "%s of record %d", field, i);
}

#define SAME(rb, got, want, field, i) do { if ((uint64_t)(got) != (uint64_t)(want)) \
	differ(rb, field, i); } while (0)

static void compare_sample(struct readback *rb, const struct pd_sample *got, int i)
{
	const struct combo *c = rb->c;
	uint64_t t = c->sample_type;
	struct pd_sample want;
	struct pd_branch br[NR_SAMPLES];
	uint64_t cc[NR_SAMPLES + 1];
	uint64_t k;

	make_sample(i, c->nr_evs, &want, br, cc);
	SAME(rb, got->misc, want.misc, "misc", i);
	SAME(rb, got->attr_index, want.attr_index, "event", i);
	if (t & PERF_SAMPLE_IP)
		SAME(rb, got->ip, want.ip, "ip", i);
	if (t & PERF_SAMPLE_TID) {
		SAME(rb, got->pid, want.pid, "pid", i);
		SAME(rb, got->tid, want.tid, "tid", i);
	}
	if (t & PERF_SAMPLE_TIME)
		SAME(rb, got->time, want.time, "time", i);
	if (t & PERF_SAMPLE_ADDR)
		SAME(rb, got->addr, want.addr, "addr", i);
	if (t & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		SAME(rb, got->id, want.id, "id", i);
	if (t & PERF_SAMPLE_STREAM_ID)
		SAME(rb, got->stream_id, want.stream_id, "stream_id", i);
	if (t & PERF_SAMPLE_CPU)
		SAME(rb, got->cpu, want.cpu, "cpu", i);
	if (t & PERF_SAMPLE_PERIOD)
		SAME(rb, got->period, want.period, "period", i);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		SAME(rb, got->callchain_nr, want.callchain_nr, "callchain nr", i);
		for (k = 0; k < got->callchain_nr && k < want.callchain_nr; k++)
			SAME(rb, got->callchain[k], want.callchain[k], "callchain entry", i);
	}
	if (t & PERF_SAMPLE_RAW) {
		/* the kernel's size counts the padding that ends the field 8-aligned */
		SAME(rb, got->raw_size, 12, "raw size", i);
		if (got->raw_size == 12 && (memcmp(got->raw, raw_data, sizeof(raw_data)) ||
					    memcmp((const char *)got->raw + 5, "\0\0\0\0\0\0\0", 7)))
			differ(rb, "raw data", i);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		bool hw = c->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX;
		SAME(rb, got->branch_nr, want.branch_nr, "branch nr", i);
		SAME(rb, got->has_hw_idx, hw, "has hw_idx", i);
		if (hw)
			SAME(rb, got->branch_hw_idx, want.branch_hw_idx, "hw_idx", i);
		for (k = 0; k < got->branch_nr && k < want.branch_nr; k++) {
			SAME(rb, got->branches[k].from, br[k].from, "branch from", i);
			SAME(rb, got->branches[k].to, br[k].to, "branch to", i);
			SAME(rb, got->branches[k].flags, br[k].flags, "branch flags", i);
		}
	} else {
		SAME(rb, got->branch_nr, 0, "branch nr", i);
	}
	if (t & PERF_SAMPLE_WEIGHT)
		SAME(rb, got->weight, want.weight, "weight", i);
	if (t & PERF_SAMPLE_DATA_SRC)
		SAME(rb, got->data_src, want.data_src, "data_src", i);
	if (t & PERF_SAMPLE_TRANSACTION)
		SAME(rb, got->transaction, want.transaction, "transaction", i);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		SAME(rb, got->phys_addr, want.phys_addr, "phys_addr", i);
}

/* The side-band trailer the writer was given before record i (see write_file). */
static void compare_sid(struct readback *rb, const struct pd_event *ev, uint32_t pid, uint64_t time,
			uint32_t cpu, int i)
{
	uint64_t t = rb->c->sample_type;

	SAME(rb, ev->has_sample_id, rb->c->sample_id_all, "has trailer", i);
	if (!ev->has_sample_id)
		return;
	if (t & PERF_SAMPLE_TID) {
		SAME(rb, ev->sid_pid, pid, "trailer pid", i);
		SAME(rb, ev->sid_tid, pid + 1, "trailer tid", i);
	}
	if (t & PERF_SAMPLE_TIME)
		SAME(rb, ev->sid_time, time, "trailer time", i);
	if (t & PERF_SAMPLE_CPU)
		SAME(rb, ev->sid_cpu, cpu, "trailer cpu", i);
	if (t & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) {
		SAME(rb, ev->sid_id, ev_ids[rb->c->nr_evs - 1][0], "trailer id", i);
		SAME(rb, ev->attr_index, rb->c->nr_evs - 1, "trailer event", i);
	}
}

static int on_event(const struct pd_event *ev, void *arg)
{
	struct readback *rb = arg;

	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		compare_sample(rb, &ev->u.sample, rb->samples);
		rb->samples++;
		break;
	case PERF_RECORD_COMM:
		SAME(rb, ev->u.comm.pid, 10, "comm pid", 0);
		SAME(rb, ev->u.comm.tid, 11, "comm tid", 0);
		SAME(rb, ev->u.comm.exec, true, "comm exec", 0);
		if (strcmp(ev->u.comm.comm, "prog-with-a-long-name"))
			differ(rb, "comm name", 0);
		compare_sid(rb, ev, 10, 500, 1, 0);
		rb->comms++;
		break;
	case PERF_RECORD_MMAP2:
		SAME(rb, ev->u.mmap.pid, 10, "mmap pid", 1);
		SAME(rb, ev->u.mmap.tid, 11, "mmap tid", 1);
		SAME(rb, ev->u.mmap.start, 0x400000, "mmap start", 1);
		SAME(rb, ev->u.mmap.len, 0x3000, "mmap len", 1);
		SAME(rb, ev->u.mmap.pgoff, 0x1000, "mmap pgoff", 1);
		SAME(rb, ev->u.mmap.maj, 8, "mmap maj", 1);
		SAME(rb, ev->u.mmap.min, 3, "mmap min", 1);
		SAME(rb, ev->u.mmap.ino, 987654, "mmap ino", 1);
		SAME(rb, ev->u.mmap.prot, 5, "mmap prot", 1);
		SAME(rb, ev->u.mmap.flags, 2, "mmap flags", 1);
		if (strcmp(ev->u.mmap.filename, "/usr/bin/prog"))
			differ(rb, "mmap filename", 1);
		compare_sid(rb, ev, 10, 600, 0, 1);
		rb->mmaps++;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		bool fork = ev->type == PERF_RECORD_FORK;
		SAME(rb, ev->u.fork.pid, fork ? 20 : 30, "task pid", 2);
		SAME(rb, ev->u.fork.ppid, fork ? 21 : 31, "task ppid", 2);
		SAME(rb, ev->u.fork.tid, fork ? 22 : 32, "task tid", 2);
		SAME(rb, ev->u.fork.ptid, fork ? 23 : 33, "task ptid", 2);
		SAME(rb, ev->u.fork.time, fork ? 700 : 900, "task time", 2);
		/* written with the zero trailer perf gives synthesized records */
		if (ev->has_sample_id)
			SAME(rb, ev->sid_pid | ev->sid_tid | ev->sid_time | ev->sid_cpu | ev->sid_id, 0,
			     "zero trailer", 2);
		fork ? rb->forks++ : rb->exits++;
		break;
	}
	case PERF_RECORD_LOST:
		SAME(rb, ev->u.lost.id, ev_ids[0][0], "lost id", 3);
		SAME(rb, ev->u.lost.lost, 17, "lost count", 3);
		rb->lost++;
		break;
	case PD_RECORD_FINISHED_ROUND:
		rb->rounds++;
		break;
	default:
		rb->other++;
	}
	return 0;
}

static const uint8_t bid_user[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const uint8_t bid_kernel[8] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };

/* Write one file for combo c with every record type the writer offers. */
static int write_file(const struct combo *c, const char *path, uint64_t *data_size)
{
	struct pd_writer_event evs[MAX_EVS];
	struct pd_branch br[NR_SAMPLES];
	uint64_t cc[NR_SAMPLES + 1];
	struct pd_sample s;
	struct pd_writer *w;
	char *argv[] = { "ocrec", "record", "-b", "--", "./prog", NULL };
	int i, e;

	memset(evs, 0, sizeof(evs));
	for (e = 0; e < c->nr_evs; e++) {
		struct perf_event_attr *a = &evs[e].attr;
		a->type = PERF_TYPE_HARDWARE;
		a->config = (uint64_t)e;
		a->size = 136;    /* a newer caller's attr: the file still says 128 */
		a->sample_period = 4000;
		a->freq = 1;
		a->sample_type = c->sample_type;
		a->branch_sample_type = c->branch_sample_type;
		a->sample_id_all = c->sample_id_all;
		a->exclude_kernel = a->exclude_hv = 1;
		a->mmap = a->comm = a->mmap2 = a->comm_exec = e == 0;
		evs[e].name = ev_names[e];
		evs[e].ids = ev_ids[e];
		evs[e].nr_ids = 2;
	}
	w = pd_writer_open(path, evs, (size_t)c->nr_evs);
	if (!w)
		return -1;
	pd_writer_set_cmdline(w, 5, argv);
	pd_writer_set_string(w, PD_FEAT_HOSTNAME, "testhost");
	pd_writer_set_string(w, PD_FEAT_CPUDESC, "Test CPU @ 1GHz");
	pd_writer_add_build_id(w, -1, PERF_RECORD_MISC_USER, bid_user, 20, "/usr/bin/prog");
	pd_writer_add_build_id(w, -1, PERF_RECORD_MISC_KERNEL, bid_kernel, 8, "[kernel.kallsyms]");

	/* side-band records with a real trailer (pid, pid + 1, time, cpu, last event's id) */
	s = (struct pd_sample){ .pid = 10, .tid = 11, .time = 500, .cpu = 1, .id = ev_ids[c->nr_evs - 1][0] };
	pd_writer_set_sample_id(w, &s);
	if (pd_write_comm(w, 10, 11, "prog-with-a-long-name", true) < 0)
		goto fail;
	s.time = 600;
	s.cpu = 0;
	pd_writer_set_sample_id(w, &s);
	if (pd_write_mmap2(w, 10, 11, 0x400000, 0x3000, 0x1000, 8, 3, 987654, 5, 2, "/usr/bin/prog") < 0)
		goto fail;
	pd_writer_set_sample_id(w, NULL);
	if (pd_write_fork(w, 20, 21, 22, 23, 700) < 0 || pd_write_finished_round(w) < 0)
		goto fail;
	for (i = 0; i < NR_SAMPLES; i++) {
		make_sample(i, c->nr_evs, &s, br, cc);
		if (pd_write_sample(w, s.attr_index, &s) < 0)
			goto fail;
	}
	if (pd_write_lost(w, ev_ids[0][0], 17) < 0 || pd_write_exit(w, 30, 31, 32, 33, 900) < 0)
		goto fail;
	*data_size = pd_writer_data_size(w);
	return pd_writer_close(w, true);
fail:
	pd_writer_close(w, false);
	return -1;
}

static bool feature(const struct pd_info *info, int bit)
{
	return pd_has_feature(info, bit);
}

static void test_combo(const struct combo *c)
{
	char *path = xasprintf("%s/%s.data", dir, c->name), *name;
	struct readback rb = { .c = c };
	const struct pd_info *info;
	struct pd_reader *r;
	uint64_t data_size = 0, hdr[13];
	char *file;
	size_t len;
	int e;

	name = xasprintf("%s: written", c->name);
	CHECK(write_file(c, path, &data_size) == 0, name);
	free(name);

	/* the header as perf 6.1 reads it */
	file = read_file(path, &len);
	if (!file || len < sizeof(hdr)) {
		CHECK(0, "header readable");
		free(file);
		free(path);
		return;
	}
	memcpy(hdr, file, sizeof(hdr));
	name = xasprintf("%s: magic PERFILE2, header size 104", c->name);
	CHECK(hdr[0] == 0x32454c4946524550ULL && hdr[1] == 104, name);
	free(name);
	name = xasprintf("%s: attr_size 144 = attr.size 128 + ids section", c->name);
	CHECK_U64(hdr[2], 144, name);
	free(name);
	name = xasprintf("%s: attrs section holds every event", c->name);
	CHECK_U64(hdr[4], 144 * (uint64_t)c->nr_evs, name);
	free(name);
	{
		uint32_t attr_size;
		uint64_t ids[2];
		memcpy(&attr_size, file + hdr[3] + 4, 4);
		name = xasprintf("%s: attr.size in the file is 128", c->name);
		CHECK_INT(attr_size, 128, name);
		free(name);
		/* the second event's ids section, right after its 128-byte attr */
		memcpy(ids, file + hdr[3] + 144 * (uint64_t)(c->nr_evs - 1) + 128, 16);
		name = xasprintf("%s: ids section points at the event's ids", c->name);
		CHECK(ids[1] == 16 && ids[0] + 16 <= len &&
		      !memcmp(file + ids[0], ev_ids[c->nr_evs - 1], 16), name);
		free(name);
	}
	name = xasprintf("%s: data.size patched at close", c->name);
	CHECK(hdr[6] == data_size && data_size > 0 && hdr[5] == hdr[3] + hdr[4], name);
	free(name);
	free(file);

	r = pd_open(path);
	name = xasprintf("%s: the reader opens it", c->name);
	CHECK(r != NULL, name);
	free(name);
	if (!r) {
		printf("# %s\n", oc_errmsg());
		free(path);
		return;
	}
	info = pd_get_info(r);
	name = xasprintf("%s: events, ids, names and attrs", c->name);
	{
		bool ok = info->nr_attrs == (size_t)c->nr_evs;
		for (e = 0; ok && e < c->nr_evs; e++) {
			const struct pd_attr *a = &info->attrs[e];
			ok = a->file_attr_size == 128 && a->nr_ids == 2 && a->ids[0] == ev_ids[e][0] &&
			     a->ids[1] == ev_ids[e][1] && a->name && !strcmp(a->name, ev_names[e]) &&
			     a->attr.sample_type == c->sample_type &&
			     a->attr.branch_sample_type == c->branch_sample_type &&
			     a->attr.config == (uint64_t)e && a->attr.sample_id_all == c->sample_id_all;
		}
		CHECK(ok, name);
	}
	free(name);
	name = xasprintf("%s: BRANCH_STACK feature exactly when samples carry branch stacks", c->name);
	CHECK(feature(info, PD_FEAT_BRANCH_STACK) == !!(c->sample_type & PERF_SAMPLE_BRANCH_STACK), name);
	free(name);
	name = xasprintf("%s: features perf record writes", c->name);
	CHECK(feature(info, PD_FEAT_BUILD_ID) && feature(info, PD_FEAT_HOSTNAME) &&
	      feature(info, PD_FEAT_OSRELEASE) && feature(info, PD_FEAT_ARCH) &&
	      feature(info, PD_FEAT_NRCPUS) && feature(info, PD_FEAT_CPUDESC) &&
	      feature(info, PD_FEAT_CPUID) && feature(info, PD_FEAT_TOTAL_MEM) &&
	      feature(info, PD_FEAT_CMDLINE) && feature(info, PD_FEAT_EVENT_DESC) &&
	      !feature(info, PD_FEAT_VERSION) && !feature(info, PD_FEAT_TRACING_DATA), name);
	free(name);
	name = xasprintf("%s: strings set by the caller", c->name);
	CHECK(info->hostname && !strcmp(info->hostname, "testhost") && info->cpudesc &&
	      !strcmp(info->cpudesc, "Test CPU @ 1GHz"), name);
	free(name);
	name = xasprintf("%s: cmdline", c->name);
	CHECK(info->nr_cmdline == 5 && !strcmp(info->cmdline[0], "ocrec") &&
	      !strcmp(info->cmdline[4], "./prog"), name);
	free(name);
	name = xasprintf("%s: build-ids with their real size", c->name);
	CHECK(info->nr_build_ids == 2 && info->build_ids[0].size == 20 &&
	      !memcmp(info->build_ids[0].id, bid_user, 20) && info->build_ids[0].pid == -1 &&
	      (info->build_ids[0].misc & 7) == PERF_RECORD_MISC_USER &&
	      !strcmp(info->build_ids[0].filename, "/usr/bin/prog") &&
	      info->build_ids[1].size == 8 && !memcmp(info->build_ids[1].id, bid_kernel, 8) &&
	      (info->build_ids[1].misc & 7) == PERF_RECORD_MISC_KERNEL &&
	      !strcmp(info->build_ids[1].filename, "[kernel.kallsyms]"), name);
	free(name);

	name = xasprintf("%s: records read back", c->name);
	CHECK(pd_for_each(r, on_event, &rb) == 0, name);
	free(name);
	name = xasprintf("%s: every record once, in order", c->name);
	CHECK(rb.samples == NR_SAMPLES && rb.comms == 1 && rb.mmaps == 1 && rb.forks == 1 &&
	      rb.exits == 1 && rb.lost == 1 && rb.rounds == 1 && rb.other == 0, name);
	free(name);
	name = xasprintf("%s: every field equal", c->name);
	CHECK(rb.bad == 0, name);
	if (rb.bad)
		printf("# %d differences; first: %s\n", rb.bad, rb.what);
	free(name);
	pd_close(r);
	free(path);
}

static int count_entries(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *de;
	int n = 0;

	if (!dp)
		return -1;
	while ((de = readdir(dp)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(dp);
	return n;
}

/* Temp name until commit; abort and failure leave nothing; commit replaces. */
static void test_commit_abort(void)
{
	char *sub = xasprintf("%s/atomic", dir), *path = xasprintf("%s/perf.data", sub);
	struct pd_writer_event ev = { .name = "cpu-clock" };
	struct pd_sample s = { .ip = 1, .pid = 2, .tid = 2, .period = 1 };
	struct pd_writer *w;
	struct stat st;
	char *data;
	size_t len;

	mkdir_p(sub, 0755);
	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD;
	w = pd_writer_open(path, &ev, 1);
	CHECK(w != NULL, "writer opens");
	if (!w)
		return;
	CHECK(pd_write_sample(w, 0, &s) == 0, "a sample written");
	CHECK(stat(path, &st) < 0 && count_entries(sub) == 1, "only a temporary file before commit");
	CHECK(pd_writer_close(w, false) == 0, "abort succeeds");
	CHECK_INT(count_entries(sub), 0, "abort removes the temporary file");

	write_file_atomic(path, "old", 3);
	w = pd_writer_open(path, &ev, 1);
	CHECK(w && pd_write_sample(w, 0, &s) == 0 && pd_writer_close(w, true) == 0, "commit");
	data = read_file(path, &len);
	CHECK(data && len > 104 && !memcmp(data, "PERFILE2", 8), "commit replaces the old file");
	free(data);
	CHECK_INT(count_entries(sub), 1, "no temporary file left after commit");

	/* errors: one message naming the thing */
	w = pd_writer_open(path, &ev, 1);
	CHECK(w && pd_write_sample(w, 1, &s) < 0 && strstr(oc_errmsg(), "no event #1"),
	      "sample for an unknown event refused");
	if (w) {
		struct pd_writer_event ev2 = ev;
		pd_writer_close(w, false);
		ev2.attr.sample_type |= PERF_SAMPLE_REGS_USER;
		w = pd_writer_open(path, &ev2, 1);
		CHECK(w && pd_write_sample(w, 0, &s) < 0 && strstr(oc_errmsg(), "cannot encode sample_type 0x1000"),
		      "sample_type the encoder lacks refused");
		pd_writer_close(w, false);
	}
	CHECK(pd_writer_open(path, &ev, 0) == NULL && strstr(oc_errmsg(), "no events"), "no events refused");
	{
		char *bad = xasprintf("%s/missing/perf.data", sub);
		CHECK(pd_writer_open(bad, &ev, 1) == NULL && strstr(oc_errmsg(), "missing"),
		      "uncreatable path refused, named");
		free(bad);
	}
	{
		static char big[70000];
		memset(big, 'x', sizeof(big) - 1);
		w = pd_writer_open(path, &ev, 1);
		CHECK(w && pd_write_comm(w, 1, 1, big, false) < 0 && strstr(oc_errmsg(), "record too large"),
		      "a record over 64 KiB refused");
		pd_writer_close(w, false);
	}
	CHECK_INT(count_entries(sub), 1, "failed writers leave no files");
	free(path);
	free(sub);
}

/* The machine's strings, as perf writes them: CPUID "vendor,family,model,stepping". */
static void test_defaults(void)
{
	char *path = xasprintf("%s/defaults.data", dir);
	struct pd_writer_event ev = { .name = "cpu-clock" };
	struct pd_reader *r;
	struct cpu_desc cpu;
	struct pd_writer *w;

	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.sample_type = PERF_SAMPLE_IP;
	ev.attr.exclude_kernel = ev.attr.exclude_hv = 1;
	ev.name = NULL;
	w = pd_writer_open(path, &ev, 1);
	CHECK(w && pd_write_comm(w, 1, 1, "x", false) == 0 && pd_writer_close(w, true) == 0,
	      "a file with only a COMM record");
	r = pd_open(path);
	CHECK(r != NULL, "it is readable");
	if (!r) {
		free(path);
		return;
	}
	{
		const struct pd_info *info = pd_get_info(r);
		long online = sysconf(_SC_NPROCESSORS_ONLN);
		CHECK(info->nr_build_ids == 0 && pd_has_feature(info, PD_FEAT_BUILD_ID),
		      "empty BUILD_ID section, as perf record writes");
		CHECK(!pd_has_feature(info, PD_FEAT_CMDLINE), "no CMDLINE unless set");
		CHECK(info->nr_attrs == 1 && info->attrs[0].name && !strcmp(info->attrs[0].name, "cpu-clock:u"),
		      "an event without a name gets perf's name for its attr in EVENT_DESC");
		CHECK(!pd_has_feature(info, PD_FEAT_BRANCH_STACK), "no BRANCH_STACK without branch stacks");
		CHECK_INT(info->nr_cpus_online, online, "NRCPUS online");
		CHECK(info->arch && info->arch[0] && info->osrelease && info->osrelease[0] &&
		      info->hostname && info->hostname[0], "ARCH, OSRELEASE, HOSTNAME from uname");
		if (cpu_detect(NULL, &cpu) == 0 && cpu.vendor[0] && (cpu_is_intel(&cpu) || cpu_is_amd(&cpu))) {
			char *want = xasprintf("%s,%u,%u,%u", cpu.vendor, cpu.family, cpu.model, cpu.stepping);
			CHECK_STR(info->cpuid, want, "CPUID in perf's x86 format");
			free(want);
			CHECK(info->cpudesc && info->cpudesc[0] && !strstr(info->cpudesc, "  ") &&
			      !strchr(info->cpudesc, '\t'), "CPUDESC with blanks squeezed");
		} else {
			SKIP("CPUID in perf's x86 format", "not an x86 CPU ocrec identifies");
		}
	}
	pd_close(r);
	free(path);
}

static int count_empty(const struct pd_event *ev, void *arg)
{
	const struct pd_sample *s = &ev->u.sample;

	if (ev->type == PERF_RECORD_SAMPLE && s->ip == 0x1234 && s->callchain_nr == 0 &&
	    s->branch_nr == 0 && s->raw_size == 4)
		++*(int *)arg;
	return 0;
}

/* Empty call chain, branch stack and raw data with NULL pointers, as callers
 * leave them (the sanitizer build checks nothing reads through them). */
static void test_empty_fields(void)
{
	char *path = xasprintf("%s/empty.data", dir);
	struct pd_writer_event ev = { .name = "cycles:u" };
	struct pd_sample s = { .ip = 0x1234, .pid = 1, .tid = 1, .period = 1 };
	struct pd_reader *r;
	struct pd_writer *w;
	int found = 0;

	ev.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
			      PERF_SAMPLE_BRANCH_STACK;
	ev.attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	w = pd_writer_open(path, &ev, 1);
	CHECK(w && pd_write_sample(w, 0, &s) == 0 && pd_writer_close(w, true) == 0,
	      "empty variable-length fields written");
	r = pd_open(path);
	CHECK(r && pd_for_each(r, count_empty, &found) == 0 && found == 1,
	      "empty fields read back (raw padded to 4 bytes)");
	pd_close(r);
	free(path);
}

int main(void)
{
	char tmpl[4096];
	size_t i;

	dir = test_mkdtemp(tmpl, sizeof(tmpl), "ocrec-pdwrite.XXXXXX");
	if (!dir) {
		CHECK(0, "temporary directory");
		return test_done();
	}
	for (i = 0; i < ARRAY_SIZE(combos); i++)
		test_combo(&combos[i]);
	test_commit_abort();
	test_defaults();
	test_empty_fields();
	{
		char *cmd = xasprintf("rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
		free(cmd);
	}
	return test_done();
}
