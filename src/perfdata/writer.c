/* writer.c — file-mode perf.data that perf 6.1 reads without a warning.
 *
 * Layout, as perf record writes it (docs/perfdata.md, "File header"):
 * header (104 bytes), the id arrays, the attrs (attr.size 128 + ids section),
 * the data records, then the feature section table and payloads. The file
 * is written under a temporary name; the header is patched and the file
 * renamed into place only by pd_writer_close(w, true).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "perfdata/perfdata.h"
#include "util/util.h"

#define PD_MAGIC 0x32454c4946524550ULL  /* "PERFILE2" */
#define PD_HEADER_SIZE 104
#define PD_ATTR_SIZE 128                /* perf 6.1 rejects bigger attrs */
_Static_assert(sizeof(struct perf_event_attr) >= PD_ATTR_SIZE, "perf_event_attr from headers older than Linux 5.13");
#define NAME_ALIGN 64                   /* perf pads header strings to this */
#define MISC_BUILD_ID_SIZE (1 << 15)

struct wr_event {
	struct perf_event_attr attr;
	char *name;
	uint64_t *ids;
	size_t nr_ids;
	uint64_t ids_offset;
};

struct wr_build_id {
	int32_t pid;
	uint16_t misc;
	uint8_t size, id[20];
	char *filename;
};

struct pd_writer {
	struct atomic_file af;
	struct wr_event *evs;
	size_t nr_evs;
	uint64_t data_offset, data_size;
	char *strings[PD_FEAT_MAX];         /* string features set by the caller */
	char **cmdline;
	int nr_cmdline;
	struct wr_build_id *bids;
	size_t nr_bids, cap_bids;
	uint64_t features[4];
	size_t trailer_size;                /* sample_id_all trailer of synthesized records */
	bool have_sid;                      /* trailer values set by pd_writer_set_sample_id() */
	struct pd_sample sid;
	bool failed;
	struct strbuf sample;               /* pd_write_sample()'s, kept: no allocation a sample */
};

static void set_bit(uint64_t *f, int bit, bool on)
{
	if (on)
		f[bit / 64] |= 1ULL << (bit % 64);
	else
		f[bit / 64] &= ~(1ULL << (bit % 64));
}

static int put(struct pd_writer *w, const void *p, size_t n)
{
	if (w->failed)
		return -1;
	if (n && fwrite(p, 1, n, w->af.fp) != n) {
		w->failed = true;
		return oc_err_errno("%s: write", w->af.path);
	}
	return 0;
}

static int put_zeros(struct pd_writer *w, size_t n)
{
	static const char zeros[64];

	while (n) {
		size_t k = n < sizeof(zeros) ? n : sizeof(zeros);
		if (put(w, zeros, k) < 0)
			return -1;
		n -= k;
	}
	return 0;
}

struct pd_writer *pd_writer_open(const char *path, const struct pd_writer_event *evs, size_t nr_evs)
{
	struct pd_writer *w;
	uint64_t off = PD_HEADER_SIZE;
	size_t i;

	if (!nr_evs) {
		oc_err("%s: no events to write", path);
		return NULL;
	}
	w = xcalloc(1, sizeof(*w));
	if (atomic_open(&w->af, path) < 0) {
		free(w);
		return NULL;
	}
	w->nr_evs = nr_evs;
	w->evs = xcalloc(nr_evs, sizeof(*w->evs));
	for (i = 0; i < nr_evs; i++) {
		struct wr_event *e = &w->evs[i];
		e->attr = evs[i].attr;
		e->attr.size = PD_ATTR_SIZE;
		if (evs[i].name) {
			e->name = xstrdup(evs[i].name);
		} else {
			/* perf would show EVENT_DESC's "" as the name: derive perf's */
			struct pd_attr pa = { .attr = e->attr };
			e->name = pd_attr_name(&pa);
		}
		e->nr_ids = evs[i].nr_ids;
		if (e->nr_ids) {
			e->ids = xmalloc(e->nr_ids * sizeof(*e->ids));
			memcpy(e->ids, evs[i].ids, e->nr_ids * sizeof(*e->ids));
		}
		e->ids_offset = off;
		off += e->nr_ids * 8;
		if (e->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
			set_bit(w->features, PD_FEAT_BRANCH_STACK, true);
	}
	w->trailer_size = pd_sample_id_size(&w->evs[0].attr);
	/* the header is rewritten at close; reserve its room now */
	put_zeros(w, PD_HEADER_SIZE);
	for (i = 0; i < nr_evs; i++)
		put(w, w->evs[i].ids, w->evs[i].nr_ids * 8);
	for (i = 0; i < nr_evs; i++) {
		uint64_t sec[2] = { w->evs[i].ids_offset, w->evs[i].nr_ids * 8 };
		put(w, &w->evs[i].attr, PD_ATTR_SIZE);
		put(w, sec, sizeof(sec));
	}
	w->data_offset = off + nr_evs * (PD_ATTR_SIZE + 16);
	for (i = PD_FEAT_HOSTNAME; i <= PD_FEAT_CMDLINE; i++)
		if (i != PD_FEAT_VERSION)
			set_bit(w->features, (int)i, true);
	set_bit(w->features, PD_FEAT_EVENT_DESC, true);
	/* perf record always writes BUILD_ID, empty when no object was hit */
	set_bit(w->features, PD_FEAT_BUILD_ID, true);
	if (w->failed) {
		pd_writer_close(w, false);
		return NULL;
	}
	return w;
}

int pd_write_raw(struct pd_writer *w, const void *rec, size_t size)
{
	if (put(w, rec, size) < 0)
		return -1;
	w->data_size += size;
	return 0;
}

uint64_t pd_writer_data_size(const struct pd_writer *w)
{
	return w->data_size;
}

void pd_writer_set_sample_id(struct pd_writer *w, const struct pd_sample *sid)
{
	w->have_sid = sid != NULL;
	if (sid)
		w->sid = *sid;
}

/* The sample_id_all trailer, in the kernel's order (the first event's layout:
 * perf parses every non-sample record with it). */
static void put_trailer(struct pd_writer *w)
{
	uint64_t t = w->evs[0].attr.sample_type;
	const struct pd_sample *s = &w->sid;

	if (!w->have_sid) {
		put_zeros(w, w->trailer_size);
		return;
	}
	if (t & PERF_SAMPLE_TID)
		put(w, (uint32_t[2]){ s->pid, s->tid }, 8);
	if (t & PERF_SAMPLE_TIME)
		put(w, &s->time, 8);
	if (t & PERF_SAMPLE_ID)
		put(w, &s->id, 8);
	if (t & PERF_SAMPLE_STREAM_ID)
		put(w, &s->stream_id, 8);
	if (t & PERF_SAMPLE_CPU)
		put(w, (uint32_t[2]){ s->cpu, 0 }, 8);
	if (t & PERF_SAMPLE_IDENTIFIER)
		put(w, &s->id, 8);
}

/* A synthesized record: header, body, zero-padding to 8 bytes, trailer. */
static int write_record(struct pd_writer *w, uint32_t type, uint16_t misc, const void *body,
			size_t body_len, const char *str)
{
	size_t slen = str ? strlen(str) + 1 : 0;
	size_t pad = (8 - (body_len + slen) % 8) % 8;
	size_t size = sizeof(struct perf_event_header) + body_len + slen + pad + w->trailer_size;
	struct perf_event_header h = { type, misc, (uint16_t)size };

	if (size > 0xffff)
		return oc_err("%s: record too large (%zu bytes)", w->af.path, size);
	put(w, &h, sizeof(h));
	put(w, body, body_len);
	if (str)
		put(w, str, slen);
	put_zeros(w, pad);
	if (w->trailer_size)
		put_trailer(w);
	if (w->failed)
		return -1;
	w->data_size += size;
	return 0;
}

int pd_write_comm(struct pd_writer *w, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	uint32_t body[2] = { pid, tid };

	return write_record(w, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0, body,
			    sizeof(body), comm);
}

int pd_write_mmap2(struct pd_writer *w, uint32_t pid, uint32_t tid, uint64_t start, uint64_t len,
		   uint64_t pgoff, uint32_t maj, uint32_t min, uint64_t ino, uint32_t prot,
		   uint32_t flags, const char *filename)
{
	struct {
		uint32_t pid, tid;
		uint64_t start, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, ino_generation;
		uint32_t prot, flags;
	} body = { pid, tid, start, len, pgoff, maj, min, ino, 0, prot, flags };

	return write_record(w, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, &body, sizeof(body), filename);
}

static int write_task(struct pd_writer *w, uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid,
		      uint32_t ptid, uint64_t time)
{
	struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } body = { pid, ppid, tid, ptid, time };

	return write_record(w, type, 0, &body, sizeof(body), NULL);
}

int pd_write_fork(struct pd_writer *w, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time)
{
	return write_task(w, PERF_RECORD_FORK, pid, ppid, tid, ptid, time);
}

int pd_write_exit(struct pd_writer *w, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time)
{
	return write_task(w, PERF_RECORD_EXIT, pid, ppid, tid, ptid, time);
}

int pd_write_lost(struct pd_writer *w, uint64_t id, uint64_t lost)
{
	uint64_t body[2] = { id, lost };

	return write_record(w, PERF_RECORD_LOST, 0, body, sizeof(body), NULL);
}

int pd_write_finished_round(struct pd_writer *w)
{
	struct perf_event_header h = { PD_RECORD_FINISHED_ROUND, 0, sizeof(h) };

	return pd_write_raw(w, &h, sizeof(h));
}

/* The sample_type bits the encoder knows; others (READ, REGS_*, STACK_USER,
 * AUX, ...) need data a struct pd_sample does not carry. */
#define ENCODABLE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		   PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
		   PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | \
		   PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | \
		   PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR)

int pd_write_sample(struct pd_writer *w, int evidx, const struct pd_sample *s)
{
	const struct perf_event_attr *a;
	struct strbuf *sb = &w->sample;
	struct perf_event_header h;
	uint64_t t, u;
	int ret;

	if (evidx < 0 || (size_t)evidx >= w->nr_evs)
		return oc_err("%s: no event #%d", w->af.path, evidx);
	a = &w->evs[evidx].attr;
	t = a->sample_type;
	if (t & ~(uint64_t)ENCODABLE)
		return oc_err("%s: cannot encode sample_type 0x%llx", w->af.path,
			      (unsigned long long)(t & ~(uint64_t)ENCODABLE));
	sb_reset(sb);
#define U64(v) do { u = (v); sb_add(sb, (const char *)&u, 8); } while (0)
#define U32PAIR(x, y) do { uint32_t p_[2] = { (x), (y) }; sb_add(sb, (const char *)p_, 8); } while (0)
	if (t & PERF_SAMPLE_IDENTIFIER)
		U64(s->id);
	if (t & PERF_SAMPLE_IP)
		U64(s->ip);
	if (t & PERF_SAMPLE_TID)
		U32PAIR(s->pid, s->tid);
	if (t & PERF_SAMPLE_TIME)
		U64(s->time);
	if (t & PERF_SAMPLE_ADDR)
		U64(s->addr);
	if (t & PERF_SAMPLE_ID)
		U64(s->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		U64(s->stream_id);
	if (t & PERF_SAMPLE_CPU)
		U32PAIR(s->cpu, 0);
	if (t & PERF_SAMPLE_PERIOD)
		U64(s->period);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		U64(s->callchain_nr);
		if (s->callchain_nr)   /* the pointer may be NULL when empty */
			sb_add(sb, (const char *)s->callchain, s->callchain_nr * 8);
	}
	if (t & PERF_SAMPLE_RAW) {
		/* u32 size + data, padded so the field ends 8-aligned */
		uint32_t padded = (uint32_t)(((s->raw_size + 4 + 7) & ~7u) - 4);
		sb_add(sb, (const char *)&padded, 4);
		if (s->raw_size)
			sb_add(sb, s->raw, s->raw_size);
		while (padded-- > s->raw_size)
			sb_putc(sb, 0);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		U64(s->branch_nr);
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			U64(s->has_hw_idx ? s->branch_hw_idx : (uint64_t)-1);
		if (s->branch_nr)
			sb_add(sb, (const char *)s->branches, s->branch_nr * sizeof(struct pd_branch));
	}
	if (t & PERF_SAMPLE_WEIGHT)
		U64(s->weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		U64(s->data_src);
	if (t & PERF_SAMPLE_TRANSACTION)
		U64(s->transaction);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		U64(s->phys_addr);
#undef U64
#undef U32PAIR
	if (sb->len + sizeof(h) > 0xffff)
		return oc_err("%s: sample too large (%zu bytes)", w->af.path, sb->len + sizeof(h));
	h.type = PERF_RECORD_SAMPLE;
	h.misc = s->misc ? s->misc : PERF_RECORD_MISC_USER;
	h.size = (uint16_t)(sb->len + sizeof(h));
	ret = pd_write_raw(w, &h, sizeof(h));
	if (ret == 0)
		ret = pd_write_raw(w, sb->buf, sb->len);
	return ret;
}

/* --- header features ------------------------------------------------------- */

void pd_writer_set_string(struct pd_writer *w, enum pd_feature feat, const char *value)
{
	free(w->strings[feat]);
	w->strings[feat] = value ? xstrdup(value) : NULL;
	set_bit(w->features, feat, value != NULL);
}

void pd_writer_set_cmdline(struct pd_writer *w, int argc, char *const argv[])
{
	int i;

	strv_free(w->cmdline);
	w->cmdline = xcalloc((size_t)argc + 1, sizeof(char *));
	for (i = 0; i < argc; i++)
		w->cmdline[i] = xstrdup(argv[i]);
	w->nr_cmdline = argc;
}

void pd_writer_add_build_id(struct pd_writer *w, int32_t pid, uint16_t misc, const uint8_t *id,
			    uint8_t size, const char *filename)
{
	struct wr_build_id *b;

	GROW(w->bids, w->cap_bids, w->nr_bids + 1);
	b = &w->bids[w->nr_bids++];
	memset(b, 0, sizeof(*b));
	b->pid = pid;
	b->misc = misc;
	b->size = size > 20 ? 20 : size;
	memcpy(b->id, id, b->size);
	b->filename = xstrdup(filename);
	set_bit(w->features, PD_FEAT_BUILD_ID, true);
}

void pd_writer_set_feature(struct pd_writer *w, enum pd_feature feat, bool on)
{
	set_bit(w->features, feat, on);
}

/* perf_header_string: u32 len, then the string NUL-padded to NAME_ALIGN. */
static void put_string(struct pd_writer *w, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t len = (uint32_t)((n + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN);

	put(w, &len, 4);
	put(w, s, n);
	put_zeros(w, len - n);
}

/* "model name", "vendor_id", ... of /proc/cpuinfo's first processor. The key
 * must be followed by blanks and ':' only, so "model" does not match "model name". */
static char *cpuinfo_field(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen)) {
			const char *colon = p + klen, *end;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			if (*colon == ':') {
				char *v, *t;
				end = strchr(colon, '\n');
				v = xstrndup(colon + 1, end ? (size_t)(end - colon - 1) : strlen(colon + 1));
				t = xstrdup(str_trim(v));
				free(v);
				return t;
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* Defaults for the string features from this machine, as perf writes them. */
static char *default_string(int feat)
{
	struct utsname u;
	char *text, *v = NULL;

	if (feat == PD_FEAT_HOSTNAME || feat == PD_FEAT_OSRELEASE || feat == PD_FEAT_ARCH) {
		if (uname(&u) < 0)
			return xstrdup("");
		return xstrdup(feat == PD_FEAT_HOSTNAME ? u.nodename :
			       feat == PD_FEAT_OSRELEASE ? u.release : u.machine);
	}
	text = read_file("/proc/cpuinfo", NULL);
	if (!text)
		return xstrdup("");
	if (feat == PD_FEAT_CPUDESC) {
		/* perf turns each run of blanks in the model name into one space */
		char *m = cpuinfo_field(text, "model name"), *r, *q;
		if (m) {
			for (r = q = m; *r; r++) {
				bool blank = *r == ' ' || *r == '\t';
				if (!blank)
					*q++ = *r;
				else if (q > m && q[-1] != ' ')
					*q++ = ' ';
			}
			*q = 0;
		}
		v = m;
	} else if (feat == PD_FEAT_CPUID) {
		char *vendor = cpuinfo_field(text, "vendor_id"), *fam = cpuinfo_field(text, "cpu family");
		char *model = cpuinfo_field(text, "model"), *step = cpuinfo_field(text, "stepping");
		if (vendor && fam && model && step)
			v = xasprintf("%s,%s,%s,%s", vendor, fam, model, step);
		free(vendor); free(fam); free(model); free(step);
	}
	free(text);
	return v ? v : xstrdup("");
}

static void write_feature(struct pd_writer *w, int feat)
{
	size_t i;

	switch (feat) {
	case PD_FEAT_HOSTNAME: case PD_FEAT_OSRELEASE: case PD_FEAT_VERSION: case PD_FEAT_ARCH:
	case PD_FEAT_CPUDESC: case PD_FEAT_CPUID:
		if (w->strings[feat]) {
			put_string(w, w->strings[feat]);
		} else {
			char *s = default_string(feat);
			put_string(w, s);
			free(s);
		}
		break;
	case PD_FEAT_NRCPUS: {
		uint32_t n[2] = { (uint32_t)sysconf(_SC_NPROCESSORS_CONF),
				  (uint32_t)sysconf(_SC_NPROCESSORS_ONLN) };
		put(w, n, sizeof(n));
		break;
	}
	case PD_FEAT_TOTAL_MEM: {
		struct sysinfo si;
		uint64_t kb = sysinfo(&si) == 0 ? (uint64_t)si.totalram * si.mem_unit / 1024 : 0;
		put(w, &kb, 8);
		break;
	}
	case PD_FEAT_CMDLINE: {
		uint32_t n = (uint32_t)w->nr_cmdline;
		put(w, &n, 4);
		for (i = 0; i < (size_t)w->nr_cmdline; i++)
			put_string(w, w->cmdline[i]);
		break;
	}
	case PD_FEAT_EVENT_DESC: {
		uint32_t hdr[2] = { (uint32_t)w->nr_evs, PD_ATTR_SIZE };
		put(w, hdr, sizeof(hdr));
		for (i = 0; i < w->nr_evs; i++) {
			uint32_t nr = (uint32_t)w->evs[i].nr_ids;
			put(w, &w->evs[i].attr, PD_ATTR_SIZE);
			put(w, &nr, 4);
			put_string(w, w->evs[i].name);
			put(w, w->evs[i].ids, w->evs[i].nr_ids * 8);
		}
		break;
	}
	case PD_FEAT_BUILD_ID:
		for (i = 0; i < w->nr_bids; i++) {
			const struct wr_build_id *b = &w->bids[i];
			size_t n = strlen(b->filename) + 1;
			size_t len = (n + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
			struct perf_event_header h = { PD_RECORD_HEADER_BUILD_ID,
						       (uint16_t)(b->misc | MISC_BUILD_ID_SIZE),
						       (uint16_t)(36 + len) };
			uint8_t id[24] = { 0 };
			memcpy(id, b->id, b->size);
			id[20] = b->size;
			put(w, &h, sizeof(h));
			put(w, &b->pid, 4);
			put(w, id, sizeof(id));
			put(w, b->filename, n);
			put_zeros(w, len - n);
		}
		break;
	default:
		break;   /* flag-only features such as BRANCH_STACK have no payload */
	}
}

static void writer_free(struct pd_writer *w)
{
	size_t i;

	for (i = 0; i < w->nr_evs; i++) {
		free(w->evs[i].name);
		free(w->evs[i].ids);
	}
	free(w->evs);
	for (i = 0; i < PD_FEAT_MAX; i++)
		free(w->strings[i]);
	strv_free(w->cmdline);
	for (i = 0; i < w->nr_bids; i++)
		free(w->bids[i].filename);
	free(w->bids);
	sb_free(&w->sample);
	free(w);
}

int pd_writer_close(struct pd_writer *w, bool commit)
{
	uint64_t off, sec_off, secs[PD_FEAT_MAX][2];
	int feat, nr = 0, ret = 0;

	if (!w)
		return 0;
	if (!commit || w->failed) {
		atomic_abort(&w->af);
		ret = commit ? -1 : 0;
		writer_free(w);
		return ret;
	}
	if (!w->cmdline)
		set_bit(w->features, PD_FEAT_CMDLINE, false);
	/* feature section table, then the payloads, in ascending bit order */
	sec_off = w->data_offset + w->data_size;
	for (feat = 0; feat < PD_FEAT_MAX; feat++)
		nr += (w->features[feat / 64] >> (feat % 64)) & 1;
	put_zeros(w, (size_t)nr * 16);
	off = sec_off + (uint64_t)nr * 16;
	nr = 0;
	for (feat = 0; feat < PD_FEAT_MAX; feat++) {
		long before, after;
		if (!((w->features[feat / 64] >> (feat % 64)) & 1))
			continue;
		before = ftell(w->af.fp);
		write_feature(w, feat);
		after = ftell(w->af.fp);
		secs[nr][0] = off;
		secs[nr][1] = (uint64_t)(after - before);
		off += secs[nr][1];
		nr++;
	}
	if (!w->failed && fseek(w->af.fp, (long)sec_off, SEEK_SET) < 0)
		ret = oc_err_errno("%s: seek", w->af.path);
	put(w, secs, (size_t)nr * 16);
	if (!w->failed && ret == 0) {
		uint64_t hdr[13] = { PD_MAGIC, PD_HEADER_SIZE, PD_ATTR_SIZE + 16,
				     0, 0, w->data_offset, w->data_size, 0, 0,
				     w->features[0], w->features[1], w->features[2], w->features[3] };
		size_t i;
		/* attrs start after every id array */
		hdr[3] = PD_HEADER_SIZE;
		for (i = 0; i < w->nr_evs; i++)
			hdr[3] += w->evs[i].nr_ids * 8;
		hdr[4] = w->nr_evs * (PD_ATTR_SIZE + 16);
		if (fseek(w->af.fp, 0, SEEK_SET) < 0)
			ret = oc_err_errno("%s: seek", w->af.path);
		else
			put(w, hdr, sizeof(hdr));
	}
	if (w->failed || ret < 0) {
		atomic_abort(&w->af);
		ret = -1;
	} else if (atomic_commit(&w->af) < 0) {
		ret = -1;
	}
	writer_free(w);
	return ret;
}
