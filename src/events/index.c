/* index.c — the loaded tables of a CPU, stored in the cache as the flat arrays
 * they already are ($XDG_CACHE_HOME/ocrec/index/<hash of key>.idx), so that a
 * later run maps one file instead of parsing megabytes of JSON. The index
 * names every source file with its size and mtime and is used only while all
 * of them are unchanged. A checksum over the whole file ends it: a damaged
 * index (a disk error, a copy cut short) is rebuilt, never used; and every
 * count and offset in it is checked against the file before it is read. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "events/ev-internal.h"

#define IDX_MAGIC "OCRECIX1"
#define IDX_VERSION 4

struct idx_header {
	char magic[8];
	uint32_t version, rec_size;
	uint32_t key_len, source_len, nr_files, nr_tables;
	uint32_t origin, pad;
};

struct idx_file {
	uint64_t size;
	int64_t mtime_sec, mtime_nsec;
	uint32_t path_len, pad;
};

struct idx_table {
	uint32_t pmu_len, path_len, nr, nr_sorted, pool_len, pad;
};

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The checksum of an index image: its 64-bit words but the last, which holds it. */
static uint64_t image_sum(const void *image, size_t len)
{
	return hash_words(image, len / 8 - 1);
}

void ev_index_seal(void *image, size_t len)
{
	uint64_t sum;

	if (len < 8 || len % 8)
		return;   /* not an index image: the reader refuses it whatever its end says */
	sum = image_sum(image, len);
	memcpy((char *)image + len - 8, &sum, 8);
}

static char *index_path(const char *key)
{
	char *cache = ev_cache_dir(), *dir, *p;

	/* beside the events directory: .../ocrec/index */
	dir = xasprintf("%s", cache);
	p = strrchr(dir, '/');
	if (p)
		*p = 0;
	p = xasprintf("%s/index/%016llx.idx", dir, (unsigned long long)hash_str(key));
	free(dir);
	free(cache);
	return p;
}

static bool file_unchanged(const char *path, const struct idx_file *f)
{
	struct stat st;
	return stat(path, &st) == 0 && (uint64_t)st.st_size == f->size &&
	       st.st_mtim.tv_sec == f->mtime_sec && st.st_mtim.tv_nsec == f->mtime_nsec;
}

/* A bounds-checked reader over the mapping. */
struct cursor {
	const char *base;
	size_t len, off;
	bool bad;
};

static const void *take(struct cursor *c, size_t n)
{
	const void *p;
	if (c->bad || n > c->len - c->off) {
		c->bad = true;
		return NULL;
	}
	p = c->base + c->off;
	c->off += pad8(n);
	if (c->off > c->len)
		c->off = c->len;
	return p;
}

int ev_index_load(const char *key, struct ev_tables **out)
{
	char *path = index_path(key);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	struct cursor c = { NULL, 0, 0, false };
	const struct idx_header *h;
	struct ev_tables *ts = NULL;
	void *map;
	uint32_t i;

	free(path);
	if (fd < 0)
		return 1;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(*h)) {
		close(fd);
		return 1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 1;
	c.base = map;
	c.len = (size_t)st.st_size;
	{
		uint64_t sum;
		if (c.len % 8 || c.len < sizeof(*h) + 8)
			goto miss;
		memcpy(&sum, c.base + c.len - 8, 8);
		if (sum != image_sum(c.base, c.len))
			goto miss;
	}
	c.len -= 8;   /* the checksum is not part of what the cursor reads */
	h = take(&c, sizeof(*h));
	if (!h || memcmp(h->magic, IDX_MAGIC, 8) != 0 || h->version != IDX_VERSION ||
	    h->rec_size != sizeof(struct ev_rec) || h->key_len != strlen(key) || h->origin > EV_ORIGIN_LINUX)
		goto miss;
	{
		const char *k = take(&c, h->key_len);
		if (!k || memcmp(k, key, h->key_len) != 0)
			goto miss;
	}
	ts = xcalloc(1, sizeof(*ts));
	ts->mapping = map;
	ts->mapping_len = (size_t)st.st_size;
	ts->origin = (enum ev_origin)h->origin;
	{
		const char *src = take(&c, h->source_len);
		if (!src)
			goto miss;
		ts->source = xstrndup(src, h->source_len);
	}
	for (i = 0; i < h->nr_files; i++) {
		const struct idx_file *f = take(&c, sizeof(*f));
		const char *p = f ? take(&c, f->path_len) : NULL;
		char *fp;
		bool same;
		if (!p)
			goto miss;
		fp = xstrndup(p, f->path_len);
		same = file_unchanged(fp, f);
		GROW(ts->files, ts->cap_files, ts->nr_files + 1);
		ts->files[ts->nr_files++] = fp;
		if (!same)
			goto miss;
	}
	for (i = 0; i < h->nr_tables; i++) {
		const struct idx_table *it = take(&c, sizeof(*it));
		const char *pmu, *tpath;
		struct ev_table *t;
		if (!it || !(pmu = take(&c, it->pmu_len)) || !(tpath = take(&c, it->path_len)))
			goto miss;
		t = xcalloc(1, sizeof(*t));
		ts->t = xrealloc(ts->t, (ts->nr + 1) * sizeof(*ts->t));
		ts->t[ts->nr++] = t;
		t->mapped = true;
		t->pmu = xstrndup(pmu, it->pmu_len);
		t->path = it->path_len ? xstrndup(tpath, it->path_len) : NULL;
		t->nr = it->nr;
		t->nr_sorted = it->nr_sorted;
		t->pool_len = it->pool_len;
		t->recs = (struct ev_rec *)take(&c, (size_t)it->nr * sizeof(struct ev_rec));
		t->sorted = (uint32_t *)take(&c, (size_t)it->nr_sorted * sizeof(uint32_t));
		t->pool = (char *)take(&c, it->pool_len);
		if (c.bad || !t->pool || !it->pool_len || t->pool[it->pool_len - 1] != 0 ||
		    it->nr_sorted > it->nr)
			goto miss;
		{
			/* every offset must stay inside the pool, every index inside recs */
			uint32_t k;
			for (k = 0; k < t->nr_sorted; k++)
				if (t->sorted[k] >= t->nr)
					goto miss;
			for (k = 0; k < t->nr; k++) {
				const struct ev_rec *r = &t->recs[k];
				if (r->name >= t->pool_len || r->desc >= t->pool_len || r->brief >= t->pool_len ||
				    r->errata >= t->pool_len || r->counter >= t->pool_len ||
				    r->unit >= t->pool_len || r->pname >= t->pool_len || r->terms >= t->pool_len)
					goto miss;
			}
		}
	}
	if (c.off != c.len)
		goto miss;   /* bytes nothing accounts for */
	*out = ts;
	return 0;
miss:
	if (ts)
		ev_tables_free(ts);   /* unmaps */
	else
		munmap(map, (size_t)st.st_size);
	return 1;
}

static void put(struct strbuf *sb, const void *p, size_t n)
{
	static const char zeros[8];
	if (!n)
		return;
	sb_add(sb, p, n);
	sb_add(sb, zeros, pad8(n) - n);
}

void ev_index_save(const char *key, const struct ev_tables *ts)
{
	static const uint64_t zero_sum;
	struct strbuf sb = STRBUF_INIT;
	struct idx_header h;
	char *path = index_path(key), *dir = xstrdup(path), *slash = strrchr(dir, '/');
	size_t i;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, IDX_MAGIC, 8);
	h.version = IDX_VERSION;
	h.rec_size = sizeof(struct ev_rec);
	h.key_len = (uint32_t)strlen(key);
	h.source_len = (uint32_t)strlen(ts->source ? ts->source : "");
	h.nr_files = (uint32_t)ts->nr_files;
	h.nr_tables = (uint32_t)ts->nr;
	h.origin = ts->origin;
	put(&sb, &h, sizeof(h));
	put(&sb, key, h.key_len);
	put(&sb, ts->source ? ts->source : "", h.source_len);
	for (i = 0; i < ts->nr_files; i++) {
		struct idx_file f;
		struct stat st;
		memset(&f, 0, sizeof(f));
		if (stat(ts->files[i], &st) < 0)
			goto out;
		f.size = (uint64_t)st.st_size;
		f.mtime_sec = st.st_mtim.tv_sec;
		f.mtime_nsec = st.st_mtim.tv_nsec;
		f.path_len = (uint32_t)strlen(ts->files[i]);
		put(&sb, &f, sizeof(f));
		put(&sb, ts->files[i], f.path_len);
	}
	for (i = 0; i < ts->nr; i++) {
		const struct ev_table *t = ts->t[i];
		struct idx_table it;
		memset(&it, 0, sizeof(it));
		it.pmu_len = (uint32_t)strlen(t->pmu);
		it.path_len = (uint32_t)(t->path ? strlen(t->path) : 0);
		it.nr = t->nr;
		it.nr_sorted = t->nr_sorted;
		it.pool_len = t->pool_len;
		put(&sb, &it, sizeof(it));
		put(&sb, t->pmu, it.pmu_len);
		put(&sb, t->path ? t->path : "", it.path_len);
		put(&sb, t->recs, (size_t)t->nr * sizeof(struct ev_rec));
		put(&sb, t->sorted, (size_t)t->nr_sorted * sizeof(uint32_t));
		put(&sb, t->pool, t->pool_len);
	}
	put(&sb, &zero_sum, sizeof(zero_sum));
	ev_index_seal(sb.buf, sb.len);
	if (slash)
		*slash = 0;
	if (mkdir_p(dir, 0755) == 0 && write_file_atomic(path, sb.buf, sb.len) == 0)
		oc_debug(1, "event index written: %s", path);
	oc_err_clear();   /* a cache that cannot be written is not an error */
out:
	sb_free(&sb);
	free(dir);
	free(path);
}
