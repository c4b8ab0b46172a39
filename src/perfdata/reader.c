/* reader.c — a streaming reader for Linux perf's perf.data, file and pipe mode.
 *
 * The header, attrs and feature sections are parsed by pd_open(); the data
 * section is read in fixed-size chunks by pd_for_each(), one callback per
 * record, so memory does not grow with the file. Every size read from the file
 * is checked against what is really there, and every error names the file and
 * the byte offset. Layouts: docs/perfdata.md, "The format".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "perfdata/perfdata.h"
#include "util/util.h"

#define PD_MAGIC 0x32454c4946524550ULL          /* "PERFILE2" */
#define PD_MAGIC_SWAPPED 0x50455246494c4532ULL
#define PD_MAGIC_V1 0x454c494646524550ULL       /* "PERFFILE", perf before 2.6.37 */
#define CHUNK (1u << 20)
#define MAX_RECORD 65536
#define MISC_BUILD_ID_SIZE (1 << 15)
/* What a header may claim, whatever the file's size (a sparse file can be a
 * terabyte of zeros): perf records a few hundred events, one id per CPU or
 * thread of each, a few thousand build-ids. docs/fuzzing.md lists the limits. */
#define MAX_ATTRS (1u << 16)
#define MAX_IDS (1u << 22)
#define MAX_FEATURE (64u << 20)     /* one feature section; all build-id records */
#define MISC_MMAP_BUILD_ID (1 << 14)

struct id_map {
	uint64_t id;
	int attr;
};

struct pd_reader {
	char *path;
	int fd;
	bool is_stdin;
	uint64_t file_size;         /* 0 in pipe mode */
	struct pd_info info;
	size_t cap_attrs, cap_bids;
	struct id_map *ids;         /* sorted by id once ids_sorted */
	size_t nr_ids;
	bool ids_sorted;
	size_t build_id_bytes;
	/* how to find the attr of a record (perf's id_pos / is_pos) */
	int sample_id_pos;          /* u64 index of the id from a sample's start, -1: none */
	int trailer_id_pos;         /* u64 index of the id from a trailer's end, -1: none */
	/* the data stream */
	unsigned char *buf;
	size_t buf_pos, buf_len;
	uint64_t buf_file_off;      /* file offset of buf[0] */
	uint64_t data_end;          /* file mode: data.offset + data.size */
	bool eof;
	/* PERF_RECORD_COMPRESSED */
	ZSTD_DStream *zstd;
	unsigned char *dbuf;        /* decompressed records not yet delivered */
	size_t dbuf_len, dbuf_cap;
};

static int rd_err(struct pd_reader *r, uint64_t off, const char *fmt, ...) OC_PRINTF(3, 4);
static int rd_err(struct pd_reader *r, uint64_t off, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return oc_err("%s: %s at offset %llu", r->path, msg, (unsigned long long)off);
}

/* Read exactly n bytes at off (file mode). */
static int pread_all(struct pd_reader *r, void *dst, size_t n, uint64_t off, const char *what)
{
	size_t done = 0;

	if (off > r->file_size || n > r->file_size - off)
		return rd_err(r, off, "truncated file: %s (%zu bytes) runs past the end (%llu bytes)",
			      what, n, (unsigned long long)r->file_size);
	while (done < n) {
		ssize_t k = pread(r->fd, (char *)dst + done, n - done, (off_t)(off + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? oc_err_errno("%s: read", r->path)
				     : rd_err(r, off + done, "unexpected end of file in %s", what);
		done += (size_t)k;
	}
	return 0;
}

/* Read exactly n bytes from the stream (pipe mode header); 1 at a clean EOF. */
static int read_stream(struct pd_reader *r, void *dst, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t k = read(r->fd, (char *)dst + done, n - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return oc_err_errno("%s: read", r->path);
		if (k == 0)
			return done ? rd_err(r, done, "truncated header") : 1;
		done += (size_t)k;
	}
	return 0;
}

/* --- attrs and ids ---------------------------------------------------------- */

static int cmp_id(const void *a, const void *b)
{
	const struct id_map *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int add_attr(struct pd_reader *r, const void *raw, uint32_t file_size, const void *ids,
		    size_t nr_ids)
{
	struct pd_info *in = &r->info;
	struct pd_attr *a;
	size_t i;

	if (in->nr_attrs >= MAX_ATTRS)
		return oc_err("more than %u event attributes", MAX_ATTRS);
	if (nr_ids > MAX_IDS - r->nr_ids)
		return oc_err("more than %u sample ids", MAX_IDS);
	GROW(in->attrs, r->cap_attrs, in->nr_attrs + 1);
	a = &in->attrs[in->nr_attrs];
	memset(a, 0, sizeof(*a));
	memcpy(&a->attr, raw, file_size < sizeof(a->attr) ? file_size : sizeof(a->attr));
	a->file_attr_size = file_size;
	if (nr_ids) {
		/* ids may sit unaligned in a corrupt pipe record: copy before reading */
		a->ids = xmalloc(nr_ids * sizeof(*a->ids));
		memcpy(a->ids, ids, nr_ids * sizeof(*a->ids));
		a->nr_ids = nr_ids;
		r->ids = xrealloc(r->ids, (r->nr_ids + nr_ids) * sizeof(*r->ids));
		for (i = 0; i < nr_ids; i++)
			r->ids[r->nr_ids++] = (struct id_map){ a->ids[i], (int)in->nr_attrs };
		r->ids_sorted = false;
	}
	in->nr_attrs++;
	return 0;
}

/* Sorted when an id is first looked up after attrs arrived, not per attr:
 * thousands of attrs (pipe mode sends one record each) would make per-attr
 * sorting quadratic. */
static void sort_ids(struct pd_reader *r)
{
	if (!r->ids_sorted && r->nr_ids)
		qsort(r->ids, r->nr_ids, sizeof(*r->ids), cmp_id);
	r->ids_sorted = true;
}

/* Where the id sits in samples and in sample_id_all trailers (perf's
 * evsel id_pos / is_pos), from the first attr: perf requires the attrs of a
 * file to agree on it. */
static void compute_id_positions(struct pd_reader *r)
{
	uint64_t t;
	int pos = 0;

	r->sample_id_pos = r->trailer_id_pos = -1;
	if (!r->info.nr_attrs)
		return;
	t = r->info.attrs[0].attr.sample_type;
	if (t & PERF_SAMPLE_IDENTIFIER) {
		r->sample_id_pos = 0;
		r->trailer_id_pos = 1;
		return;
	}
	if (t & PERF_SAMPLE_ID) {
		pos = !!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) +
		      !!(t & PERF_SAMPLE_ADDR);
		r->sample_id_pos = pos;
		r->trailer_id_pos = 1 + !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_STREAM_ID);
	}
}

static int attr_of_id(struct pd_reader *r, uint64_t id)
{
	size_t n;

	sort_ids(r);
	n = COUNT_LE(r->ids, r->nr_ids, id, id);
	if (n && r->ids[n - 1].id == id)
		return r->ids[n - 1].attr;
	return r->info.nr_attrs ? 0 : -1;   /* perf maps unknown ids (synthesized: 0) to the first */
}

const struct pd_attr *pd_attr_of(const struct pd_reader *r, int attr_index)
{
	if (attr_index < 0 || (size_t)attr_index >= r->info.nr_attrs)
		return NULL;
	return &r->info.attrs[attr_index];
}

const struct pd_info *pd_get_info(const struct pd_reader *r)
{
	return &r->info;
}

/* --- feature sections --------------------------------------------------------- */

struct fbuf {
	const unsigned char *p, *end;
};

/* The next sizeof(*v) bytes of b into *v (a u32 or u64 field); false at the end. */
#define FB_GET(b, v) fb_get((b), (v), sizeof(*(v)))
static bool fb_get(struct fbuf *b, void *v, size_t n)
{
	if ((size_t)(b->end - b->p) < n)
		return false;
	memcpy(v, b->p, n);
	b->p += n;
	return true;
}

/* perf_header_string: u32 len, then len bytes (NUL-padded). */
static char *fb_string(struct fbuf *b)
{
	uint32_t len;

	if (!FB_GET(b, &len) || len > (size_t)(b->end - b->p))
		return NULL;
	b->p += len;
	return xstrndup((const char *)b->p - len, len);
}

/* A u32 count, then that many entries of per (1 or 2) perf_header_strings: a
 * fresh NULL-terminated *v (what it held is freed), an entry of two kept as
 * "name=value" (perf's CPU_PMU_CAPS). false when the section ends early. */
static bool fb_string_list(struct fbuf *b, unsigned per, char ***v, size_t *nr)
{
	uint32_t n, i;

	if (!FB_GET(b, &n) || n > (size_t)(b->end - b->p) / (4 * per))
		return false;
	strv_free(*v);
	*v = xcalloc((size_t)n + 1, sizeof(char *));
	*nr = 0;
	for (i = 0; i < n; i++) {
		char *s = fb_string(b);

		if (s && per == 2) {
			char *value = fb_string(b), *pair = value ? xasprintf("%s=%s", s, value) : NULL;

			free(s);
			free(value);
			s = pair;
		}
		if (!s)
			return false;
		(*v)[(*nr)++] = s;
	}
	return true;
}

/* 0, or -1 + oc_err() when the build-ids would take more than MAX_FEATURE. */
static int add_build_id(struct pd_reader *r, const unsigned char *rec, size_t size)
{
	struct pd_info *in = &r->info;
	struct pd_build_id *b;
	uint16_t misc;

	if (size < 36)
		return 0;
	r->build_id_bytes += size;
	if (r->build_id_bytes > MAX_FEATURE)
		return oc_err("build-id records of more than %u MiB", MAX_FEATURE >> 20);
	GROW(in->build_ids, r->cap_bids, in->nr_build_ids + 1);
	b = &in->build_ids[in->nr_build_ids++];
	memset(b, 0, sizeof(*b));
	memcpy(&misc, rec + 4, 2);
	memcpy(&b->pid, rec + 8, 4);
	memcpy(b->id, rec + 12, 20);
	b->misc = misc & 7;
	/* old perf wrote no size: a SHA-1, or fewer bytes with zero padding */
	b->size = (misc & MISC_BUILD_ID_SIZE) && rec[32] && rec[32] <= 20 ? rec[32] : 20;
	b->filename = xstrndup((const char *)rec + 36, size - 36);
	return 0;
}

static int parse_feature(struct pd_reader *r, int feat, const unsigned char *data, size_t len,
			 uint64_t off)
{
	struct pd_info *in = &r->info;
	struct fbuf b = { data, data + len };
	char **slot = NULL;
	uint32_t n, i;

	switch (feat) {
	case PD_FEAT_HOSTNAME: slot = &in->hostname; break;
	case PD_FEAT_OSRELEASE: slot = &in->osrelease; break;
	case PD_FEAT_VERSION: slot = &in->version; break;
	case PD_FEAT_ARCH: slot = &in->arch; break;
	case PD_FEAT_CPUDESC: slot = &in->cpudesc; break;
	case PD_FEAT_CPUID: slot = &in->cpuid; break;
	case PD_FEAT_NRCPUS:
		if (!FB_GET(&b, &in->nr_cpus_avail) || !FB_GET(&b, &in->nr_cpus_online))
			goto bad;
		return 0;
	case PD_FEAT_TOTAL_MEM:
		if (!FB_GET(&b, &in->total_mem))
			goto bad;
		return 0;
	case PD_FEAT_SAMPLE_TIME:
		if (!FB_GET(&b, &in->sample_time_first) || !FB_GET(&b, &in->sample_time_last))
			goto bad;
		return 0;
	case PD_FEAT_CMDLINE:
		if (!fb_string_list(&b, 1, &in->cmdline, &in->nr_cmdline))
			goto bad;
		return 0;
	case PD_FEAT_CPU_PMU_CAPS:
		if (!fb_string_list(&b, 2, &in->pmu_caps, &in->nr_pmu_caps))
			goto bad;
		return 0;
	case PD_FEAT_EVENT_DESC: {
		uint32_t attr_size;
		if (!FB_GET(&b, &n) || !FB_GET(&b, &attr_size) || attr_size < 64)
			goto bad;
		for (i = 0; i < n; i++) {
			uint32_t nr_ids;
			char *name;
			if ((size_t)(b.end - b.p) < attr_size)
				goto bad;
			b.p += attr_size;
			if (!FB_GET(&b, &nr_ids) || !(name = fb_string(&b)))
				goto bad;
			if ((size_t)(b.end - b.p) / 8 < nr_ids) {
				free(name);
				goto bad;
			}
			b.p += (size_t)nr_ids * 8;
			if (i < in->nr_attrs && !in->attrs[i].name)
				in->attrs[i].name = name;
			else
				free(name);
		}
		return 0;
	}
	case PD_FEAT_BUILD_ID:
		while (b.end - b.p >= 8) {
			struct perf_event_header h;
			memcpy(&h, b.p, sizeof(h));
			if (h.size < 36 || h.size > b.end - b.p)
				goto bad;
			if (add_build_id(r, b.p, h.size) < 0)
				return rd_err(r, off, "%s", oc_errmsg());
			b.p += h.size;
		}
		return 0;
	default:
		return 0;   /* features ocrec does not use are skipped by their size */
	}
	free(*slot);
	*slot = fb_string(&b);
	if (!*slot)
		goto bad;
	return 0;
bad:
	return rd_err(r, off, "malformed %s feature section", feat == PD_FEAT_BUILD_ID ? "BUILD_ID" :
		      feat == PD_FEAT_EVENT_DESC ? "EVENT_DESC" : feat == PD_FEAT_CMDLINE ? "CMDLINE" :
		      "header");
}

/* The features parse_feature() reads; the others are skipped unread (tracing
 * data alone can be megabytes). */
static bool feature_is_read(int feat)
{
	switch (feat) {
	case PD_FEAT_BUILD_ID: case PD_FEAT_HOSTNAME: case PD_FEAT_OSRELEASE: case PD_FEAT_VERSION:
	case PD_FEAT_ARCH: case PD_FEAT_NRCPUS: case PD_FEAT_CPUDESC: case PD_FEAT_CPUID:
	case PD_FEAT_TOTAL_MEM: case PD_FEAT_CMDLINE: case PD_FEAT_EVENT_DESC: case PD_FEAT_SAMPLE_TIME:
	case PD_FEAT_CPU_PMU_CAPS:
		return true;
	default:
		return false;
	}
}

static int read_features(struct pd_reader *r)
{
	struct pd_info *in = &r->info;
	uint64_t off = in->data_offset + in->data_size;
	int feat, nr = 0, k = 0;
	uint64_t (*secs)[2];

	for (feat = 0; feat < PD_FEAT_MAX; feat++)
		nr += pd_has_feature(in, feat);
	if (!nr)
		return 0;
	secs = xcalloc((size_t)nr, sizeof(*secs));
	if (pread_all(r, secs, (size_t)nr * 16, off, "feature section table") < 0)
		goto fail;
	for (feat = 0; feat < PD_FEAT_MAX; feat++) {
		unsigned char *data;
		if (!pd_has_feature(in, feat))
			continue;
		/* a feature perf does not know is skipped; one that is only a flag has size 0 */
		if (secs[k][1] && feature_is_read(feat)) {
			if (secs[k][1] > r->file_size)
				goto bad_size;
			if (secs[k][1] > MAX_FEATURE) {
				rd_err(r, off + (uint64_t)k * 16 + 8, "feature section %d of %llu bytes: larger than "
				       "the %u MiB ocrec reads", feat, (unsigned long long)secs[k][1], MAX_FEATURE >> 20);
				goto fail;
			}
			data = xmalloc(secs[k][1]);
			if (pread_all(r, data, secs[k][1], secs[k][0], "feature section") < 0 ||
			    parse_feature(r, feat, data, secs[k][1], secs[k][0]) < 0) {
				free(data);
				goto fail;
			}
			free(data);
		}
		k++;
	}
	free(secs);
	return 0;
bad_size:
	rd_err(r, off + (uint64_t)k * 16, "feature section %d has size %llu, larger than the file",
	       feat, (unsigned long long)secs[k][1]);
fail:
	free(secs);
	return -1;
}

/* --- opening ------------------------------------------------------------------ */

static int open_file_mode(struct pd_reader *r, uint64_t hsize)
{
	struct pd_info *in = &r->info;
	uint64_t h[13] = { 0 };
	uint64_t attr_size, attrs_off, attrs_size, nr, i, off, ids_total;

	if (hsize != 104 && hsize != 72)
		return rd_err(r, 8, "unsupported header size %llu", (unsigned long long)hsize);
	if (pread_all(r, h, hsize, 0, "header") < 0)
		return -1;
	attr_size = h[2];
	attrs_off = h[3];
	attrs_size = h[4];
	in->data_offset = h[5];
	in->data_size = h[6];
	if (hsize == 104)
		memcpy(in->features, &h[9], sizeof(in->features));
	if (attr_size < 64 + 16 || attr_size > 4096)
		return rd_err(r, 16, "implausible attr size %llu", (unsigned long long)attr_size);
	if (attrs_off > r->file_size || attrs_size > r->file_size - attrs_off)
		return rd_err(r, 24, "attr section (%llu bytes at %llu) runs past the end of the file",
			      (unsigned long long)attrs_size, (unsigned long long)attrs_off);
	if (in->data_offset > r->file_size || in->data_size > r->file_size - in->data_offset)
		return rd_err(r, 40, "truncated file: data section (%llu bytes at %llu) runs past the end (%llu bytes)",
			      (unsigned long long)in->data_size, (unsigned long long)in->data_offset,
			      (unsigned long long)r->file_size);
	nr = attrs_size / attr_size;
	if (nr > MAX_ATTRS)
		return rd_err(r, 32, "attr section of %llu bytes holds %llu event attributes, more than %u",
			      (unsigned long long)attrs_size, (unsigned long long)nr, MAX_ATTRS);
	off = attrs_off;
	ids_total = 0;
	for (i = 0; i < nr; i++) {
		unsigned char raw[4096];
		uint32_t asize;
		uint64_t sec[2], *ids = NULL;
		int ret;

		/* perf reads attr.size bytes, then the ids section right after them */
		if (pread_all(r, raw, 64, off, "attr") < 0)
			return -1;
		memcpy(&asize, raw + 4, 4);
		if (!asize)
			asize = 64;
		if (asize < 64 || asize + 16 > attr_size)
			return rd_err(r, off + 4, "attr size %u does not match the header's %llu", asize,
				      (unsigned long long)attr_size);
		if (pread_all(r, raw, asize, off, "attr") < 0 ||
		    pread_all(r, sec, sizeof(sec), off + asize, "attr ids section") < 0)
			return -1;
		if (sec[1] % 8 || sec[0] > r->file_size || sec[1] > r->file_size - sec[0])
			return rd_err(r, off + asize, "attr ids section runs past the end of the file");
		/* the ids sections of a sound file do not overlap: all of them fit in it */
		ids_total += sec[1];
		if (ids_total > r->file_size)
			return rd_err(r, off + asize, "attr ids sections add up to more than the file");
		if (ids_total / 8 > MAX_IDS)
			return rd_err(r, off + asize, "attr ids sections hold more than %u ids", MAX_IDS);
		if (sec[1]) {
			ids = xmalloc(sec[1]);
			if (pread_all(r, ids, sec[1], sec[0], "attr ids") < 0) {
				free(ids);
				return -1;
			}
		}
		ret = add_attr(r, raw, asize, ids, sec[1] / 8);
		free(ids);
		if (ret < 0)
			return rd_err(r, off, "%s", oc_errmsg());
		off += attr_size;
	}
	if (!in->nr_attrs)
		return rd_err(r, 24, "no event attributes");
	sort_ids(r);
	compute_id_positions(r);
	if (read_features(r) < 0)
		return -1;
	r->buf_file_off = in->data_offset;
	r->data_end = in->data_offset + in->data_size;
	if (!in->data_size)
		oc_warn("%s: data size is 0: the file was not properly terminated (the recorder was killed?)",
			r->path);
	return 0;
}

struct pd_reader *pd_open(const char *path)
{
	struct pd_reader *r = xcalloc(1, sizeof(*r));
	uint64_t h[2];
	struct stat st;
	int ret;

	r->path = xstrdup(strcmp(path, "-") ? path : "<stdin>");
	r->is_stdin = !strcmp(path, "-");
	r->fd = r->is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		oc_err_errno("%s", path);
		goto fail;
	}
	if (fstat(r->fd, &st) < 0) {
		oc_err_errno("%s", path);
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		oc_err("%s: is a directory", path);
		goto fail;
	}
	r->buf = xmalloc(CHUNK + MAX_RECORD);
	if (S_ISREG(st.st_mode)) {
		r->file_size = (uint64_t)st.st_size;
		ret = pread_all(r, h, 16, 0, "header") < 0 ? -1 : 0;
	} else {
		ret = read_stream(r, h, 16);
		if (ret == 1)
			ret = oc_err("%s: empty input", r->path);
	}
	if (ret < 0)
		goto fail;
	if (h[0] == PD_MAGIC_SWAPPED) {
		oc_err("%s: byte-swapped perf.data (recorded on a machine of the other endianness) is not supported, at offset 0",
		       r->path);
		goto fail;
	}
	if (h[0] == PD_MAGIC_V1) {
		oc_err("%s: perf.data version 1 (perf before Linux 2.6.37) is not supported, at offset 0", r->path);
		goto fail;
	}
	if (h[0] != PD_MAGIC) {
		oc_err("%s: not a perf.data file (bad magic) at offset 0", r->path);
		goto fail;
	}
	if (h[1] == 16) {
		/* pipe mode: attrs and features arrive as records */
		r->info.pipe_mode = true;
		r->buf_file_off = 16;
		r->data_end = UINT64_MAX;
		r->sample_id_pos = r->trailer_id_pos = -1;
		if (S_ISREG(st.st_mode) && lseek(r->fd, 16, SEEK_SET) < 0) {
			oc_err_errno("%s: seek", r->path);
			goto fail;
		}
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		oc_err("%s: a file-mode perf.data cannot be read from a pipe", r->path);
		goto fail;
	}
	if (open_file_mode(r, h[1]) < 0)
		goto fail;
	return r;
fail:
	pd_close(r);
	return NULL;
}

void pd_close(struct pd_reader *r)
{
	struct pd_info *in;
	size_t i;

	if (!r)
		return;
	in = &r->info;
	if (r->fd > 0 && !r->is_stdin)
		close(r->fd);
	for (i = 0; i < in->nr_attrs; i++) {
		free(in->attrs[i].ids);
		free(in->attrs[i].name);
	}
	free(in->attrs);
	free(in->hostname); free(in->osrelease); free(in->version); free(in->arch);
	free(in->cpudesc); free(in->cpuid);
	strv_free(in->cmdline);
	strv_free(in->pmu_caps);
	for (i = 0; i < in->nr_build_ids; i++)
		free(in->build_ids[i].filename);
	free(in->build_ids);
	free(r->ids);
	free(r->buf);
	free(r->dbuf);
	if (r->zstd)
		ZSTD_freeDStream(r->zstd);
	free(r->path);
	free(r);
}

/* --- the record stream -------------------------------------------------------- */

/* Make n bytes available at buf + buf_pos; 1 at the end of the data. */
static int fill(struct pd_reader *r, size_t n)
{
	while (r->buf_len - r->buf_pos < n) {
		uint64_t file_pos = r->buf_file_off + r->buf_len;
		size_t want;
		ssize_t k;

		if (r->buf_pos) {
			memmove(r->buf, r->buf + r->buf_pos, r->buf_len - r->buf_pos);
			r->buf_file_off += r->buf_pos;
			r->buf_len -= r->buf_pos;
			r->buf_pos = 0;
			continue;
		}
		if (r->eof || file_pos >= r->data_end)
			return 1;
		want = CHUNK + MAX_RECORD - r->buf_len;
		if (r->data_end - file_pos < want)
			want = (size_t)(r->data_end - file_pos);
		k = r->info.pipe_mode ? read(r->fd, r->buf + r->buf_len, want)
				      : pread(r->fd, r->buf + r->buf_len, want, (off_t)file_pos);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return oc_err_errno("%s: read", r->path);
		if (k == 0) {
			r->eof = true;
			return 1;
		}
		r->buf_len += (size_t)k;
	}
	return 0;
}

/* The sample_id_all trailer of a non-sample kernel record. */
static void parse_trailer(struct pd_reader *r, struct pd_event *ev, const unsigned char *rec,
			  size_t body_end)
{
	const struct pd_attr *a = pd_attr_of(r, 0);
	uint64_t t, v;
	size_t end = ev->size, need;

	if (!a)
		return;
	t = a->attr.sample_type;
	need = pd_sample_id_size(&a->attr);
	if (!need || end < body_end + need)
		return;
	/* parsed backwards from the end, as perf does */
#define PREV() (end -= 8, memcpy(&v, rec + end, 8), v)
	if (t & PERF_SAMPLE_IDENTIFIER)
		ev->sid_id = PREV();
	if (t & PERF_SAMPLE_CPU)
		ev->sid_cpu = (uint32_t)PREV();
	if (t & PERF_SAMPLE_STREAM_ID)
		end -= 8;
	if (t & PERF_SAMPLE_ID)
		ev->sid_id = PREV();
	if (t & PERF_SAMPLE_TIME)
		ev->sid_time = PREV();
	if (t & PERF_SAMPLE_TID) {
		v = PREV();
		ev->sid_pid = (uint32_t)v;
		ev->sid_tid = (uint32_t)(v >> 32);
	}
#undef PREV
	ev->has_sample_id = true;
	ev->attr_index = r->nr_ids > 1 ? attr_of_id(r, ev->sid_id) : 0;
}

/* NUL-terminated string field of a record: must end inside the record. */
static const char *rec_string(const unsigned char *rec, size_t off, size_t size)
{
	if (off >= size || !memchr(rec + off, 0, size - off))
		return NULL;
	return (const char *)rec + off;
}

static int decode(struct pd_reader *r, struct pd_event *ev, const unsigned char *rec, uint64_t off)
{
	size_t size = ev->size, body = 0;
	uint32_t u[4];

	ev->attr_index = -1;
	switch (ev->type) {
	case PERF_RECORD_SAMPLE: {
		int idx = 0;
		if (r->info.nr_attrs > 1 && r->sample_id_pos >= 0) {
			uint64_t id;
			if (size < 8 + 8 * (size_t)(r->sample_id_pos + 1))
				return rd_err(r, off, "sample record of %zu bytes too short for its id", size);
			memcpy(&id, rec + 8 + 8 * r->sample_id_pos, 8);
			idx = attr_of_id(r, id);
		}
		if (!r->info.nr_attrs)
			return rd_err(r, off, "sample record before any event attribute");
		if (pd_parse_sample(&r->info.attrs[idx].attr, rec, size, &ev->u.sample) < 0)
			return rd_err(r, off, "%s", oc_errmsg());
		ev->u.sample.attr_index = ev->attr_index = idx;
		return 0;
	}
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		size_t fname = ev->type == PERF_RECORD_MMAP ? 40 : 72;
		memset(&ev->u.mmap, 0, sizeof(ev->u.mmap));   /* MMAP has no maj/min/ino/build-id */
		if (size < fname + 1)
			return rd_err(r, off, "%s record of %zu bytes is too short", pd_record_name(ev->type), size);
		memcpy(u, rec + 8, 8);
		ev->u.mmap.pid = u[0];
		ev->u.mmap.tid = u[1];
		memcpy(&ev->u.mmap.start, rec + 16, 8);
		memcpy(&ev->u.mmap.len, rec + 24, 8);
		memcpy(&ev->u.mmap.pgoff, rec + 32, 8);
		if (ev->type == PERF_RECORD_MMAP2) {
			if (ev->misc & MISC_MMAP_BUILD_ID) {
				ev->u.mmap.build_id_size = rec[40] > 20 ? 20 : rec[40];
				ev->u.mmap.build_id = rec + 44;
			} else {
				memcpy(&ev->u.mmap.maj, rec + 40, 4);
				memcpy(&ev->u.mmap.min, rec + 44, 4);
				memcpy(&ev->u.mmap.ino, rec + 48, 8);
			}
			memcpy(&ev->u.mmap.prot, rec + 64, 4);
			memcpy(&ev->u.mmap.flags, rec + 68, 4);
		}
		ev->u.mmap.filename = rec_string(rec, fname, size);
		if (!ev->u.mmap.filename)
			return rd_err(r, off, "%s record without a file name", pd_record_name(ev->type));
		body = fname + strlen(ev->u.mmap.filename) + 1;
		break;
	}
	case PERF_RECORD_COMM:
		if (size < 17 || !(ev->u.comm.comm = rec_string(rec, 16, size)))
			return rd_err(r, off, "malformed COMM record");
		memcpy(u, rec + 8, 8);
		ev->u.comm.pid = u[0];
		ev->u.comm.tid = u[1];
		ev->u.comm.exec = ev->misc & PERF_RECORD_MISC_COMM_EXEC;
		body = 16 + strlen(ev->u.comm.comm) + 1;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (size < 32)
			return rd_err(r, off, "%s record of %zu bytes is too short", pd_record_name(ev->type), size);
		memcpy(u, rec + 8, 16);
		ev->u.fork.pid = u[0];
		ev->u.fork.ppid = u[1];
		ev->u.fork.tid = u[2];
		ev->u.fork.ptid = u[3];
		memcpy(&ev->u.fork.time, rec + 24, 8);
		body = 32;
		break;
	case PERF_RECORD_LOST:
		if (size < 24)
			return rd_err(r, off, "LOST record of %zu bytes is too short", size);
		memcpy(&ev->u.lost.id, rec + 8, 8);
		memcpy(&ev->u.lost.lost, rec + 16, 8);
		body = 24;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (size < 16)
			return rd_err(r, off, "LOST_SAMPLES record of %zu bytes is too short", size);
		ev->u.lost.id = 0;
		memcpy(&ev->u.lost.lost, rec + 8, 8);
		body = 16;
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (size < 32)
			return rd_err(r, off, "%s record of %zu bytes is too short", pd_record_name(ev->type), size);
		memcpy(&ev->u.throttle.time, rec + 8, 8);
		memcpy(&ev->u.throttle.id, rec + 16, 8);
		memcpy(&ev->u.throttle.stream_id, rec + 24, 8);
		body = 32;
		break;
	default:
		/* other kernel records carry the trailer at their end too (perf
		 * parses it for every type below PERF_RECORD_USER_TYPE_START) */
		body = sizeof(struct perf_event_header);
		break;
	}
	if (ev->type < 64)
		parse_trailer(r, ev, rec, body);
	return 0;
}

/* Pipe-mode records that carry what the header carries in file mode. */
static int pipe_header_record(struct pd_reader *r, const struct pd_event *ev, const unsigned char *rec,
			      uint64_t off)
{
	size_t size = ev->size;

	if (ev->type == PD_RECORD_HEADER_ATTR) {
		uint32_t asize;
		if (size < 8 + 64)
			return rd_err(r, off, "HEADER_ATTR record of %zu bytes is too short", size);
		memcpy(&asize, rec + 12, 4);
		if (!asize)
			asize = 64;
		if (asize < 64 || 8 + (size_t)asize > size || (size - 8 - asize) % 8)
			return rd_err(r, off, "HEADER_ATTR record with attr size %u in %zu bytes", asize, size);
		if (add_attr(r, rec + 8, asize, rec + 8 + asize, (size - 8 - asize) / 8) < 0)
			return rd_err(r, off, "%s", oc_errmsg());
		compute_id_positions(r);
	} else if (ev->type == PD_RECORD_HEADER_FEATURE) {
		uint64_t feat;
		if (size < 16)
			return rd_err(r, off, "HEADER_FEATURE record of %zu bytes is too short", size);
		memcpy(&feat, rec + 8, 8);
		if (feat < PD_FEAT_MAX) {
			r->info.features[feat / 64] |= 1ULL << (feat % 64);
			return parse_feature(r, (int)feat, rec + 16, size - 16, off + 16);
		}
	} else if (ev->type == PD_RECORD_HEADER_BUILD_ID) {
		if (add_build_id(r, rec, size) < 0)
			return rd_err(r, off, "%s", oc_errmsg());
	}
	return 0;
}

static int deliver(struct pd_reader *r, const unsigned char *rec, uint64_t off, bool in_compressed,
		   pd_event_fn fn, void *arg);

/* Deliver the whole records at the start of dbuf; keep a partial one. */
static int deliver_decompressed(struct pd_reader *r, uint64_t off, pd_event_fn fn, void *arg)
{
	size_t pos = 0;
	int ret = 0;

	while (r->dbuf_len - pos >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		/* copied out: records may be unaligned in dbuf, and the callback must
		 * not see dbuf move under it */
		unsigned char tmp[MAX_RECORD] __attribute__((aligned(8)));

		memcpy(&h, r->dbuf + pos, sizeof(h));
		if (h.size < sizeof(h)) {
			ret = rd_err(r, off, "record of size %u inside a COMPRESSED record", h.size);
			break;
		}
		if (h.size > r->dbuf_len - pos)
			break;
		memcpy(tmp, r->dbuf + pos, h.size);
		pos += h.size;
		ret = deliver(r, tmp, off, true, fn, arg);
		if (ret)
			break;
	}
	memmove(r->dbuf, r->dbuf + pos, r->dbuf_len - pos);
	r->dbuf_len -= pos;
	return ret;
}

/* PERF_RECORD_COMPRESSED: a zstd stream of whole records; a record may be
 * split between two compressed records, so the tail is kept for the next.
 * Decompressed in bounded steps, records delivered between them, so a small
 * record that expands to gigabytes never sits in memory. */
static int decompress(struct pd_reader *r, const unsigned char *rec, size_t size, uint64_t off,
		      pd_event_fn fn, void *arg)
{
	ZSTD_inBuffer in = { rec + 8, size - 8, 0 };
	bool full = true;
	int ret;

	if (!r->zstd) {
		r->zstd = ZSTD_createDStream();
		if (!r->zstd || ZSTD_isError(ZSTD_initDStream(r->zstd)))
			return rd_err(r, off, "cannot initialise zstd");
		r->dbuf_cap = CHUNK + MAX_RECORD;
		r->dbuf = xmalloc(r->dbuf_cap);
	}
	/* zstd may hold output back until there is room: go on while it fills the buffer */
	while (in.pos < in.size || full) {
		ZSTD_outBuffer out = { r->dbuf, r->dbuf_cap, r->dbuf_len };
		size_t z = ZSTD_decompressStream(r->zstd, &out, &in);

		if (ZSTD_isError(z))
			return rd_err(r, off, "COMPRESSED record: %s", ZSTD_getErrorName(z));
		full = out.pos == out.size;
		r->dbuf_len = out.pos;
		ret = deliver_decompressed(r, off, fn, arg);
		if (ret)
			return ret;   /* what is left is part of one record: under MAX_RECORD */
	}
	return 0;
}

/* The header fields of ev. Field by field: clearing the whole event per
 * record costs `ocrec script` a tenth of its time. decode() fills the union
 * for the types it decodes; for other types it is undefined. */
static void start_event(struct pd_event *ev, const unsigned char *rec, uint64_t off)
{
	const struct perf_event_header *h = (const void *)rec;

	ev->type = h->type;
	ev->misc = h->misc;
	ev->size = h->size;
	ev->file_offset = off;
	ev->raw = rec;
	ev->has_sample_id = false;
	ev->sid_pid = ev->sid_tid = ev->sid_cpu = 0;
	ev->sid_time = ev->sid_id = 0;
	ev->attr_index = -1;
}

int pd_decode(struct pd_reader *r, const void *rec, uint64_t file_offset, struct pd_event *ev)
{
	start_event(ev, rec, file_offset);
	return decode(r, ev, rec, file_offset);
}

static int deliver(struct pd_reader *r, const unsigned char *rec, uint64_t off, bool in_compressed,
		   pd_event_fn fn, void *arg)
{
	struct pd_event ev;
	int ret;

	start_event(&ev, rec, off);
	if (ev.type == PD_RECORD_COMPRESSED && !in_compressed) {
		ret = decompress(r, rec, ev.size, off, fn, arg);
		if (ret)
			return ret;
	} else if (r->info.pipe_mode &&
		   (ev.type == PD_RECORD_HEADER_ATTR || ev.type == PD_RECORD_HEADER_FEATURE ||
		    ev.type == PD_RECORD_HEADER_BUILD_ID)) {
		if (pipe_header_record(r, &ev, rec, off) < 0)
			return -1;
	}
	if (decode(r, &ev, rec, off) < 0)
		return -1;
	return fn(&ev, arg);
}

/* Records followed by a payload that is not counted in header.size. */
static int skip_payload(struct pd_reader *r, const unsigned char *rec, uint64_t off, uint64_t *skip)
{
	struct perf_event_header hdr, *h = &hdr;   /* rec may be unaligned (after COMPRESSED) */
	uint64_t n = 0;

	memcpy(&hdr, rec, sizeof(hdr));
	*skip = 0;
	if (h->type == PD_RECORD_HEADER_TRACING_DATA && h->size >= 12) {
		uint32_t sz;
		memcpy(&sz, rec + 8, 4);
		n = ((uint64_t)sz + 7) & ~7ULL;
	} else if (h->type == PD_RECORD_AUXTRACE && h->size >= 16) {
		memcpy(&n, rec + 8, 8);
	}
	if (n > (1ULL << 40))
		return rd_err(r, off, "%s record with a payload of %llu bytes", pd_record_name(h->type),
			      (unsigned long long)n);
	*skip = n;
	return 0;
}

int pd_for_each(struct pd_reader *r, pd_event_fn fn, void *arg)
{
	for (;;) {
		struct perf_event_header h;
		unsigned char *rec;
		uint64_t off, skip;
		int ret = fill(r, sizeof(h));

		if (ret < 0)
			return -1;
		if (ret == 1) {
			if (r->buf_len - r->buf_pos)
				return rd_err(r, r->buf_file_off + r->buf_pos,
					      "truncated record header (%zu bytes left)", r->buf_len - r->buf_pos);
			return 0;
		}
		off = r->buf_file_off + r->buf_pos;
		memcpy(&h, r->buf + r->buf_pos, sizeof(h));
		if (h.size < sizeof(h))
			return rd_err(r, off, "record of size %u (type %u): corrupt data", h.size, h.type);
		ret = fill(r, h.size);
		if (ret < 0)
			return -1;
		if (ret == 1)
			return rd_err(r, off, "truncated %s record (%u bytes, %zu left)", pd_record_name(h.type),
				      h.size, r->buf_len - r->buf_pos);
		rec = r->buf + r->buf_pos;
		if (skip_payload(r, rec, off, &skip) < 0)
			return -1;
		r->buf_pos += h.size;
		if (((uintptr_t)rec & 7) == 0) {
			ret = deliver(r, rec, off, false, fn, arg);
		} else {
			/* records are 8-byte aligned in a sound file; a corrupt size
			 * can break that, and the decoders read u64s */
			unsigned char tmp[MAX_RECORD] __attribute__((aligned(8)));
			memcpy(tmp, rec, h.size);
			ret = deliver(r, tmp, off, false, fn, arg);
		}
		if (ret)
			return ret;
		while (skip) {
			size_t k;
			if (fill(r, 1) != 0)
				return rd_err(r, off, "truncated payload of a %s record", pd_record_name(h.type));
			k = r->buf_len - r->buf_pos;
			if (k > skip)
				k = (size_t)skip;
			r->buf_pos += k;
			skip -= k;
		}
	}
}
