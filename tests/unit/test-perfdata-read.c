/* test-perfdata-read.c — the perf.data reader on files built byte by byte here:
 * attr sizes 64 and 136, unknown features and record types skipped by size,
 * two events told apart by IDENTIFIER in samples and sample_id_all trailers,
 * every sample_type field in the kernel's order, and PERF_RECORD_COMPRESSED
 * (split records; a small record expanding to 256 MB is read in bounded memory). */
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zstd.h>

#include "perfdata/perfdata.h"
#include "tap.h"
#include "util/util.h"

/* --- building a file ---------------------------------------------------- */

static void put(struct strbuf *b, const void *p, size_t n) { sb_add(b, p, n); }
static void put64(struct strbuf *b, uint64_t v) { put(b, &v, 8); }
static void put32(struct strbuf *b, uint32_t v) { put(b, &v, 4); }

static void put_hdr(struct strbuf *b, uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = { type, misc, size };
	put(b, &h, sizeof(h));
}

struct tattr {
	struct perf_event_attr attr;
	uint32_t size;           /* attr.size written in the file */
	uint64_t ids[2];
	size_t nr_ids;
};

struct tfeat {
	int bit;
	const void *data;
	size_t len;
};

/* header | attrs (each followed by its ids section) | ids | data | feature table | features */
static char *write_file(const struct tattr *a, size_t nr, size_t attr_size, const struct strbuf *data,
			const struct tfeat *f, size_t nf)
{
	struct strbuf b = STRBUF_INIT;
	uint64_t ids_off = 104 + nr * attr_size, data_off = ids_off, feat_off;
	uint64_t features[4] = { 0 };
	char *path = xmalloc(4096);
	size_t i, fo;
	int fd;

	for (i = 0; i < nr; i++)
		data_off += a[i].nr_ids * 8;
	for (i = 0; i < nf; i++)
		features[f[i].bit / 64] |= 1ULL << (f[i].bit % 64);
	put64(&b, 0x32454c4946524550ULL);
	put64(&b, 104);
	put64(&b, attr_size);
	put64(&b, 104); put64(&b, nr * attr_size);
	put64(&b, data_off); put64(&b, data->len);
	put64(&b, 0); put64(&b, 0);       /* event_types */
	put(&b, features, sizeof(features));
	for (i = 0, fo = ids_off; i < nr; i++) {
		unsigned char raw[256] = { 0 };
		struct perf_event_attr at = a[i].attr;
		at.size = a[i].size;
		memcpy(raw, &at, sizeof(at));
		put(&b, raw, attr_size - 16);
		put64(&b, fo);
		put64(&b, a[i].nr_ids * 8);
		fo += a[i].nr_ids * 8;
	}
	for (i = 0; i < nr; i++)
		put(&b, a[i].ids, a[i].nr_ids * 8);
	put(&b, data->buf, data->len);
	feat_off = b.len + nf * 16;
	for (i = 0; i < nf; i++) {
		put64(&b, feat_off);
		put64(&b, f[i].len);
		feat_off += f[i].len;
	}
	for (i = 0; i < nf; i++)
		put(&b, f[i].data, f[i].len);
	fd = test_mkstemp(path, 4096, "ocrec-test-pdread.XXXXXX");
	if (fd < 0 || write(fd, b.buf, b.len) != (ssize_t)b.len) {
		perror("test file");
		exit(1);
	}
	close(fd);
	sb_free(&b);
	return path;
}

/* --- collecting what the reader delivers -------------------------------- */

struct seen {
	int n, samples, comms, unknown;
	uint64_t ip[8];
	int sample_attr[8];
	uint64_t period[8];
	int comm_attr;
	uint64_t comm_time;
	uint32_t comm_tid;
	char comm[16];
	uint64_t bytes;
};

static int collect(const struct pd_event *ev, void *arg)
{
	struct seen *s = arg;

	s->n++;
	s->bytes += ev->size;
	if (ev->type == PERF_RECORD_SAMPLE && s->samples < 8) {
		s->ip[s->samples] = ev->u.sample.ip;
		s->period[s->samples] = ev->u.sample.period;
		s->sample_attr[s->samples++] = ev->attr_index;
	} else if (ev->type == PERF_RECORD_COMM) {
		s->comms++;
		s->comm_attr = ev->attr_index;
		s->comm_time = ev->sid_time;
		s->comm_tid = ev->u.comm.tid;
		snprintf(s->comm, sizeof(s->comm), "%s", ev->u.comm.comm);
	} else if (ev->type == 200 || ev->type == 30) {
		s->unknown++;
	}
	return 0;
}

static int read_all(const char *path, struct seen *s, struct pd_reader **out)
{
	struct pd_reader *r = pd_open(path);
	int ret;

	memset(s, 0, sizeof(*s));
	if (!r) {
		printf("# %s\n", oc_errmsg());
		return -1;
	}
	ret = pd_for_each(r, collect, s);
	if (ret)
		printf("# %s\n", oc_errmsg());
	*out = r;
	return ret;
}

/* attr size 64 (perf 3.x), unknown records and features skipped by size */
static void test_old_attr_unknowns(void)
{
	struct tattr a = { .size = 64, .ids = { 7 }, .nr_ids = 1 };
	struct strbuf d = STRBUF_INIT, host = STRBUF_INIT, junk = STRBUF_INIT, caps = STRBUF_INIT;
	struct pd_reader *r;
	struct seen s;
	char *path;
	int i;

	a.attr.type = PERF_TYPE_SOFTWARE;
	a.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD;
	for (i = 0; i < 2; i++) {
		put_hdr(&d, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 32);
		put64(&d, 0x400000 + i);
		put32(&d, 10); put32(&d, 11);
		put64(&d, 1000 + i);
		/* a user record type ocrec does not know, and an unknown kernel one */
		put_hdr(&d, i ? 30 : 200, 0, 40);
		put(&d, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 16);
		put(&d, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 16);
	}
	put32(&host, 8); put(&host, "testbox\0", 8);
	for (i = 0; i < 5; i++)
		put64(&junk, 0xdeadbeefdeadbeefULL);
	put32(&caps, 1);
	put32(&caps, 8); put(&caps, "branches", 8);
	put32(&caps, 4); put(&caps, "32\0\0", 4);
	struct tfeat f[] = {
		{ PD_FEAT_HOSTNAME, host.buf, host.len },
		{ 26, junk.buf, junk.len },             /* a feature ocrec does not decode */
		{ PD_FEAT_CPU_PMU_CAPS, caps.buf, caps.len },
		{ 200, junk.buf, junk.len },            /* a feature no perf knows yet */
	};
	path = write_file(&a, 1, 64 + 16, &d, f, ARRAY_SIZE(f));
	CHECK_INT(read_all(path, &s, &r), 0, "attr size 64: reads");
	if (r) {
		const struct pd_info *in = pd_get_info(r);
		CHECK_INT(in->nr_attrs, 1, "attr size 64: one attr");
		CHECK_INT(in->attrs[0].file_attr_size, 64, "attr size 64: size as found");
		CHECK_U64(in->attrs[0].attr.sample_type, a.attr.sample_type, "attr size 64: sample_type");
		CHECK_U64(in->attrs[0].attr.branch_sample_type, 0, "attr size 64: fields past its size are 0");
		CHECK_STR(in->hostname, "testbox", "HOSTNAME before an undecoded feature");
		CHECK(in->nr_pmu_caps == 1 && !strcmp(in->pmu_caps[0], "branches=32"),
		      "CPU_PMU_CAPS after an undecoded feature (skipped by its size)");
		pd_close(r);
	}
	CHECK_INT(s.samples, 2, "both samples around unknown records");
	CHECK_U64(s.ip[1], 0x400001, "second sample's ip");
	CHECK_U64(s.period[1], 1001, "second sample's period");
	CHECK_INT(s.unknown, 2, "unknown record types delivered raw, skipped by size");
	unlink(path);
	free(path);
	sb_free(&d); sb_free(&host); sb_free(&junk); sb_free(&caps);
}

/* two events (attr size 136), told apart by IDENTIFIER and the trailer */
static void test_two_events(void)
{
	struct tattr a[2] = { { .size = 136, .ids = { 11, 12 }, .nr_ids = 2 },
			      { .size = 136, .ids = { 22 }, .nr_ids = 1 } };
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		      PERF_SAMPLE_PERIOD;
	struct strbuf d = STRBUF_INIT;
	uint64_t ids[3] = { 22, 12, 99 };
	struct pd_reader *r;
	struct seen s;
	char *path;
	int i;

	for (i = 0; i < 2; i++) {
		a[i].attr.sample_type = st;
		a[i].attr.sample_id_all = 1;
		a[i].attr.config = (uint64_t)i;
	}
	for (i = 0; i < 3; i++) {
		put_hdr(&d, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 48);
		put64(&d, ids[i]);
		put64(&d, 0x1000 * (i + 1));
		put32(&d, 5); put32(&d, 6);
		put64(&d, 777);
		put64(&d, 1);
	}
	/* COMM: pid, tid, "ls\0" padded to 8, then the trailer: TID, TIME, IDENTIFIER */
	put_hdr(&d, PERF_RECORD_COMM, 0, 8 + 8 + 8 + 24);
	put32(&d, 5); put32(&d, 6);
	put(&d, "ls\0\0\0\0\0\0", 8);
	put32(&d, 5); put32(&d, 6);
	put64(&d, 123456789);
	put64(&d, 22);
	path = write_file(a, 2, 136 + 16, &d, NULL, 0);
	CHECK_INT(read_all(path, &s, &r), 0, "attr size 136, two events: reads");
	if (r) {
		CHECK_INT(pd_get_info(r)->attrs[1].file_attr_size, 136, "attr size 136 kept");
		pd_close(r);
	}
	CHECK_INT(s.samples, 3, "three samples");
	CHECK_INT(s.sample_attr[0], 1, "IDENTIFIER 22 -> second event");
	CHECK_INT(s.sample_attr[1], 0, "IDENTIFIER 12 -> first event (its second id)");
	CHECK_INT(s.sample_attr[2], 0, "an unknown id -> the first event, as perf does");
	CHECK_INT(s.comms, 1, "COMM delivered");
	CHECK_STR(s.comm, "ls", "COMM name");
	CHECK_INT(s.comm_attr, 1, "COMM's sample_id_all trailer -> second event");
	CHECK_U64(s.comm_time, 123456789, "COMM's trailer time");
	unlink(path);
	free(path);
	sb_free(&d);
}

/* every sample_type field, in the kernel's order */
static void test_all_fields(void)
{
	struct perf_event_attr attr;
	struct strbuf b = STRBUF_INIT;
	struct pd_sample s;
	uint16_t size;

	memset(&attr, 0, sizeof(attr));
	attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
			   PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
			   PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
			   PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |
			   PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |
			   PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX;
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	attr.sample_regs_user = 0x7;    /* 3 registers */
	attr.sample_regs_intr = 0xff;   /* abi 0 below: none written */

	put_hdr(&b, PERF_RECORD_SAMPLE, 0, 0);
	put64(&b, 42);                           /* IDENTIFIER */
	put64(&b, 0xffffffff81000000ULL);        /* IP */
	put32(&b, 100); put32(&b, 101);          /* TID */
	put64(&b, 5000);                         /* TIME */
	put64(&b, 0xadd0);                       /* ADDR */
	put64(&b, 42);                           /* ID */
	put64(&b, 43);                           /* STREAM_ID */
	put32(&b, 3); put32(&b, 0);              /* CPU */
	put64(&b, 99);                           /* PERIOD */
	put64(&b, 2);                            /* READ: nr, then {value, id} x 2 */
	put64(&b, 1); put64(&b, 42); put64(&b, 2); put64(&b, 44);
	put64(&b, 3);                            /* CALLCHAIN */
	put64(&b, (uint64_t)PERF_CONTEXT_USER); put64(&b, 0x401000); put64(&b, 0x401100);
	put32(&b, 4); put(&b, "RAW!", 4);        /* RAW: u32 size + data, 8-aligned */
	put64(&b, 2);                            /* BRANCH_STACK: nr, hw_idx, entries */
	put64(&b, 5);
	put64(&b, 0x401010); put64(&b, 0x401020); put64(&b, pd_br_make_flags(1, 0, 7, 1));
	put64(&b, 0x401030); put64(&b, 0x401040); put64(&b, pd_br_make_flags(0, 1, 9, 2));
	put64(&b, 2);                            /* REGS_USER: abi 64-bit, 3 regs */
	put64(&b, 1); put64(&b, 2); put64(&b, 3);
	put64(&b, 16);                           /* STACK_USER: size, data, dyn_size */
	put64(&b, 0); put64(&b, 0); put64(&b, 16);
	put64(&b, 250);                          /* WEIGHT */
	put64(&b, 0x1234);                       /* DATA_SRC */
	put64(&b, 0x5);                          /* TRANSACTION */
	put64(&b, 0);                            /* REGS_INTR: abi none, no regs */
	put64(&b, 0xfeed000);                    /* PHYS_ADDR */
	put64(&b, 1);                            /* CGROUP */
	put64(&b, 4096);                         /* DATA_PAGE_SIZE */
	put64(&b, 4096);                         /* CODE_PAGE_SIZE */
	put64(&b, 8); put64(&b, 0);              /* AUX: size, data */
	size = (uint16_t)b.len;
	memcpy(b.buf + 6, &size, 2);

	CHECK_INT(pd_parse_sample(&attr, b.buf, b.len, &s), 0, "all fields: parses");
	CHECK_U64(s.id, 42, "IDENTIFIER/ID");
	CHECK_U64(s.ip, 0xffffffff81000000ULL, "IP");
	CHECK(s.pid == 100 && s.tid == 101, "TID");
	CHECK_U64(s.time, 5000, "TIME");
	CHECK_U64(s.addr, 0xadd0, "ADDR");
	CHECK_U64(s.stream_id, 43, "STREAM_ID");
	CHECK_INT(s.cpu, 3, "CPU");
	CHECK_U64(s.period, 99, "PERIOD after a group READ");
	CHECK(s.callchain_nr == 3 && s.callchain[2] == 0x401100, "CALLCHAIN");
	CHECK(s.raw_size == 4 && !memcmp(s.raw, "RAW!", 4), "RAW");
	CHECK(s.branch_nr == 2 && s.has_hw_idx && s.branch_hw_idx == 5, "BRANCH_STACK nr and hw_idx");
	CHECK(s.branches[0].from == 0x401010 && pd_br_mispred(&s.branches[0]) &&
	      pd_br_cycles(&s.branches[0]) == 7, "branch entry 0");
	CHECK(s.branches[1].to == 0x401040 && pd_br_predicted(&s.branches[1]) &&
	      pd_br_cycles(&s.branches[1]) == 9 && pd_br_type(&s.branches[1]) == 2, "branch entry 1");
	CHECK_U64(s.weight, 250, "WEIGHT after REGS_USER and STACK_USER");
	CHECK_U64(s.data_src, 0x1234, "DATA_SRC");
	CHECK_U64(s.transaction, 5, "TRANSACTION");
	CHECK_U64(s.phys_addr, 0xfeed000, "PHYS_ADDR after an empty REGS_INTR");
	CHECK_INT(pd_parse_sample(&attr, b.buf, b.len - 8, &s), -1, "one word short: refused");
	CHECK(strstr(oc_errmsg(), "AUX") != NULL, "one word short: names the AUX field");

	/* without HW_INDEX the entries follow nr directly */
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	sb_reset(&b);
	put_hdr(&b, PERF_RECORD_SAMPLE, 0, 8 + 8 + 8 + 24);
	put64(&b, 0x400000);
	put64(&b, 1);
	put64(&b, 0x400010); put64(&b, 0x400020); put64(&b, 0);
	CHECK_INT(pd_parse_sample(&attr, b.buf, b.len, &s), 0, "no HW_INDEX: parses");
	CHECK(!s.has_hw_idx && s.branch_nr == 1 && s.branches[0].to == 0x400020, "no HW_INDEX: entry");
	memcpy(b.buf + 16, &(uint64_t){ 1ULL << 60 }, 8);
	CHECK_INT(pd_parse_sample(&attr, b.buf, b.len, &s), -1, "absurd branch nr: refused");
	sb_free(&b);
}

/* --- PERF_RECORD_COMPRESSED -------------------------------------------- */

/* Compress src into one or more COMPRESSED records (split at `cut` bytes of input). */
static void put_compressed(struct strbuf *d, const void *src, size_t len, size_t cut)
{
	ZSTD_CCtx *z = ZSTD_createCCtx();
	size_t at = 0;

	while (at < len) {
		size_t n = len - at < cut ? len - at : cut;
		unsigned char out[65000];
		size_t k = ZSTD_compressCCtx(z, out, sizeof(out), (const char *)src + at, n, 1);
		if (ZSTD_isError(k))
			abort();
		/* perf does not pad them: the records after one are unaligned */
		put_hdr(d, PD_RECORD_COMPRESSED, 0, (uint16_t)(8 + k));
		put(d, out, k);
		at += n;
	}
	ZSTD_freeCCtx(z);
}

static long maxrss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static void test_compressed(void)
{
	struct tattr a = { .size = 128 };
	struct strbuf raw = STRBUF_INIT, d = STRBUF_INIT;
	struct pd_reader *r;
	struct seen s;
	char *path;
	int i;

	a.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;
	for (i = 0; i < 6; i++) {
		put_hdr(&raw, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 24);
		put64(&raw, 0x500000 + i);
		put64(&raw, 10);
	}
	/* 60 bytes a piece: records split between COMPRESSED records */
	put_compressed(&d, raw.buf, raw.len, 60);
	path = write_file(&a, 1, 128 + 16, &d, NULL, 0);
	CHECK_INT(read_all(path, &s, &r), 0, "COMPRESSED: reads");
	pd_close(r);
	CHECK_INT(s.samples, 6, "COMPRESSED: every record, split ones joined");
	CHECK_U64(s.ip[5], 0x500005, "COMPRESSED: last sample's ip");
	unlink(path);
	free(path);

	/* 256 MB of records from one small COMPRESSED record: streamed, not held */
	{
		ZSTD_CCtx *z = ZSTD_createCCtx();
		static unsigned char rec[65528], out[65000];
		ZSTD_outBuffer ob = { out, sizeof(out), 0 };
		size_t k;
		long before;

		memset(rec, 0, sizeof(rec));
		memcpy(rec, &(struct perf_event_header){ 200, 0, sizeof(rec) }, 8);
		for (i = 0; i < 4096; i++) {
			ZSTD_inBuffer ib = { rec, sizeof(rec), 0 };
			while (ib.pos < ib.size)
				if (ZSTD_isError(ZSTD_compressStream2(z, &ob, &ib, ZSTD_e_continue)))
					abort();
		}
		do {
			ZSTD_inBuffer ib = { NULL, 0, 0 };
			k = ZSTD_compressStream2(z, &ob, &ib, ZSTD_e_end);
		} while (k && !ZSTD_isError(k) && ob.pos < ob.size);
		ZSTD_freeCCtx(z);
		if (k) {
			SKIP("COMPRESSED bomb", "does not compress into one record here");
			goto out;
		}
		sb_reset(&d);
		put_hdr(&d, PD_RECORD_COMPRESSED, 0, (uint16_t)(8 + ob.pos));
		put(&d, out, ob.pos);
		path = write_file(&a, 1, 128 + 16, &d, NULL, 0);
		before = maxrss_kb();
		CHECK_INT(read_all(path, &s, &r), 0, "256 MB in one COMPRESSED record: reads");
		pd_close(r);
		CHECK_INT(s.unknown, 4096, "256 MB in one COMPRESSED record: every record delivered");
		CHECK(maxrss_kb() - before < 64 * 1024, "256 MB in one COMPRESSED record: memory stays bounded");
		unlink(path);
		free(path);
	}
out:
	sb_free(&raw);
	sb_free(&d);
}

static void quiet(const char *msg)
{
	(void)msg;
}

int main(void)
{
	oc_set_warn_handler(quiet);
	test_old_attr_unknowns();
	test_two_events();
	test_all_fields();
	test_compressed();
	return test_done();
}
