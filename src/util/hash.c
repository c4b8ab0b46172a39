/* The hash table of util.h: entries in insertion order in one array, and an
 * index of slots (linear probing, at most half full) that holds 32 bits of
 * each entry's hash, so that growing never rehashes a key and most probes
 * that miss never read an entry. */
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

uint64_t hash_mem(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL + 0x2545f4914f6cdd1dULL;
	}
	if (n) {
		w = 0;
		memcpy(&w, s, n);
		h = (h ^ w) * 0xff51afd7ed558ccdULL + 0x2545f4914f6cdd1dULL;
	}
	return hash_u64(h);
}

static uint64_t str_hash(const void *key)
{
	const char *s = *(const char *const *)key;
	return hash_mem(s, strlen(s));
}

static bool str_eq(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b) == 0;
}

const struct hmap_ops hmap_str_ops = { str_hash, str_eq };

/* The alignment a field of this size may need (its largest power of two up to 8). */
static size_t align_for(size_t size)
{
	return size % 8 == 0 ? 8 : size % 4 == 0 ? 4 : size % 2 == 0 ? 2 : 1;
}

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

void hmap_init(struct hmap *m, size_t key_size, size_t val_size, const struct hmap_ops *ops)
{
	size_t ka = align_for(key_size), va = align_for(val_size);

	memset(m, 0, sizeof(*m));
	m->ops = ops;
	m->key_size = key_size;
	m->val_size = val_size;
	m->val_off = round_up(key_size, va);
	m->entry_size = round_up(m->val_off + val_size, ka > va ? ka : va);
}

static uint32_t key_hash(const struct hmap *m, const void *key)
{
	return (uint32_t)(m->ops ? m->ops->hash(key) : hash_mem(key, m->key_size));
}

static bool key_eq(const struct hmap *m, const void *stored, const void *key)
{
	uint64_t a[2], b[2];

	if (m->ops)
		return m->ops->eq(stored, key);
	switch (m->key_size) {      /* the common keys without a call to memcmp */
	case 8:
		memcpy(a, stored, 8);
		memcpy(b, key, 8);
		return a[0] == b[0];
	case 16:
		memcpy(a, stored, 16);
		memcpy(b, key, 16);
		return a[0] == b[0] && a[1] == b[1];
	default:
		return memcmp(stored, key, m->key_size) == 0;
	}
}

/* The entry of key (HMAP_NONE when absent); *slot gets its slot or the empty one
 * that ends its probe. */
static size_t probe(const struct hmap *m, const void *key, uint32_t h, size_t *slot)
{
	size_t mask = m->cap - 1, i;

	for (i = h & mask; m->index[i]; i = (i + 1) & mask) {
		uint64_t s = m->index[i];
		size_t e = (uint32_t)s - 1;

		if ((uint32_t)(s >> 32) == h && key_eq(m, hmap_key(m, e), key)) {
			*slot = i;
			return e;
		}
	}
	*slot = i;
	return HMAP_NONE;
}

size_t hmap_find(const struct hmap *m, const void *key)
{
	size_t slot;

	return m->n ? probe(m, key, key_hash(m, key), &slot) : HMAP_NONE;
}

static void grow_index(struct hmap *m)
{
	uint64_t *old = m->index;
	size_t old_cap = m->cap, i, j, mask;

	m->cap = m->cap ? m->cap * 2 : 16;
	m->index = xcalloc(m->cap, sizeof(*m->index));
	mask = m->cap - 1;
	for (i = 0; i < old_cap; i++) {
		if (!old[i])
			continue;
		for (j = (old[i] >> 32) & mask; m->index[j]; j = (j + 1) & mask)
			;
		m->index[j] = old[i];
	}
	free(old);
}

size_t hmap_add(struct hmap *m, const void *key, bool *added)
{
	size_t slot, e;
	uint32_t h;
	unsigned char *p;

	if ((m->n + 1) * 2 > m->cap)
		grow_index(m);
	h = key_hash(m, key);
	e = probe(m, key, h, &slot);
	if (added)
		*added = e == HMAP_NONE;
	if (e != HMAP_NONE)
		return e;
	if (m->n >= UINT32_MAX - 1) {
		fprintf(stderr, "ocrec: a hash table outgrew 2^32 entries\n");
		abort();
	}
	grow_array((void **)&m->entries, &m->cap_entries, m->n + 1, m->entry_size);
	p = m->entries + m->n * m->entry_size;
	memset(p, 0, m->entry_size);
	memcpy(p, key, m->key_size);
	m->index[slot] = (uint64_t)h << 32 | (m->n + 1);
	return m->n++;
}

void hmap_clear(struct hmap *m)
{
	if (m->cap)
		memset(m->index, 0, m->cap * sizeof(*m->index));
	m->n = 0;
}

size_t hmap_intern(struct hmap *m, const char *s, bool *added)
{
	bool is_new;
	size_t i = hmap_add(m, &s, &is_new);

	if (is_new)   /* the same text: its hash in the index still holds */
		*(char **)hmap_key(m, i) = xstrdup(s);
	if (added)
		*added = is_new;
	return i;
}

void hmap_clear_interned(struct hmap *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(*(char **)hmap_key(m, i));
	hmap_clear(m);
}

void hmap_retain(struct hmap *m, bool (*keep)(const void *key, void *val, void *arg), void *arg)
{
	size_t i, n = 0, mask = m->cap - 1;

	for (i = 0; i < m->n; i++) {
		unsigned char *e = m->entries + i * m->entry_size;

		if (!keep(e, e + m->val_off, arg))
			continue;
		if (n != i)
			memcpy(m->entries + n * m->entry_size, e, m->entry_size);
		n++;
	}
	if (n == m->n)
		return;
	/* the index names entries by position: build it again */
	hmap_clear(m);
	for (i = 0; i < n; i++) {
		uint32_t h = key_hash(m, hmap_key(m, i));
		size_t j;

		for (j = h & mask; m->index[j]; j = (j + 1) & mask)
			;
		m->index[j] = (uint64_t)h << 32 | (i + 1);
	}
	m->n = n;
}

void hmap_free(struct hmap *m)
{
	free(m->entries);
	free(m->index);
	m->entries = NULL;
	m->index = NULL;
	m->n = m->cap_entries = m->cap = 0;
}
