/* Unit tests for the hash table of src/util (util.h: struct hmap). */
#include <stdlib.h>

#include "tap.h"
#include "util/util.h"

struct pair { uint64_t a, b; };

/* Every key in one chain: lookups must compare keys, not hashes. */
static uint64_t same_hash(const void *key) { return 42; }
static bool u32_eq(const void *a, const void *b) { return *(const uint32_t *)a == *(const uint32_t *)b; }
static const struct hmap_ops colliding = { same_hash, u32_eq };

/* hmap_retain: the keys not divisible by *arg */
static bool keep_odd(const void *key, void *val, void *arg)
{
	return *(const uint32_t *)key % *(uint32_t *)arg != 0;
}

int main(void)
{
	struct hmap m;
	size_t i, bad;
	bool added;

	hmap_init(&m, sizeof(struct pair), sizeof(uint64_t), NULL);
	CHECK(hmap_find(&m, &(struct pair){ 1, 2 }) == HMAP_NONE, "find in an empty table");
	CHECK(hmap_add(&m, &(struct pair){ 1, 2 }, &added) == 0 && added, "first add makes entry 0");
	CHECK(*(uint64_t *)hmap_val(&m, 0) == 0, "a new value is zeroed");
	*(uint64_t *)hmap_get(&m, &(struct pair){ 1, 2 }) += 5;
	CHECK(hmap_add(&m, &(struct pair){ 1, 2 }, &added) == 0 && !added, "adding again finds the entry");
	CHECK(hmap_find(&m, &(struct pair){ 2, 1 }) == HMAP_NONE, "the key's halves are not interchangeable");
	CHECK_INT(*(uint64_t *)hmap_get(&m, &(struct pair){ 1, 2 }), 5, "the value is kept");
	for (i = 0; i < 100000; i++)
		*(uint64_t *)hmap_get(&m, &(struct pair){ i, i * 3 }) += i;
	CHECK_INT(hmap_count(&m), 100001, "100000 more keys through many growths");
	for (i = bad = 0; i < 100000; i++) {
		size_t e = hmap_find(&m, &(struct pair){ i, i * 3 });
		const struct pair *k = hmap_key(&m, i + 1);
		if (e != i + 1 || k->a != i || k->b != i * 3 || *(uint64_t *)hmap_val(&m, e) != i)
			bad++;
	}
	CHECK_INT(bad, 0, "every key found, entries in insertion order with their values");
	hmap_clear(&m);
	CHECK(hmap_count(&m) == 0 && hmap_find(&m, &(struct pair){ 1, 2 }) == HMAP_NONE, "clear empties");
	CHECK(hmap_add(&m, &(struct pair){ 7, 7 }, &added) == 0 && added, "a cleared table fills from entry 0");
	hmap_free(&m);
	CHECK(hmap_find(&m, &(struct pair){ 7, 7 }) == HMAP_NONE && hmap_add(&m, &(struct pair){ 7, 7 }, NULL) == 0,
	      "a freed table is empty and usable");
	hmap_free(&m);

	{	/* string keys compare by content, whatever pointer holds them */
		char a[] = "geo::Sq::area", b[] = "geo::Sq::area";
		const char *pa = a, *pb = b, *other = "main";
		hmap_init(&m, sizeof(const char *), 0, &hmap_str_ops);
		CHECK(hmap_add(&m, &pa, NULL) == 0 && hmap_add(&m, &other, NULL) == 1, "two names");
		CHECK(hmap_find(&m, &pb) == 0, "a copy of a name finds it");
		CHECK(*(const char *const *)hmap_key(&m, 1) == other, "the key is the caller's pointer");
		hmap_free(&m);
	}
	{	/* interned keys are the table's own copies */
		char name[] = "geo::Sq::area";
		size_t e;
		hmap_init(&m, sizeof(char *), 0, &hmap_str_ops);
		CHECK(hmap_intern(&m, name, &added) == 0 && added, "interning a new string adds it");
		CHECK(*(char *const *)hmap_key(&m, 0) != name, "the key is a copy");
		name[0] = 'G';
		CHECK(hmap_intern(&m, "geo::Sq::area", &added) == 0 && !added, "the copy is found after the original changed");
		e = hmap_intern(&m, name, &added);
		CHECK(e == 1 && added && hmap_count(&m) == 2, "another string, another entry");
		hmap_clear_interned(&m);
		CHECK(hmap_count(&m) == 0 && hmap_intern(&m, name, NULL) == 0, "cleared (the copies freed), and usable");
		hmap_clear_interned(&m);
		hmap_free(&m);
	}
	{	/* small and odd-sized keys, values aligned after them */
		struct val { uint64_t x; } *v;
		uint8_t k3[3] = { 1, 2, 3 }, k3b[3] = { 1, 2, 4 };
		hmap_init(&m, 3, sizeof(struct val), NULL);
		CHECK(m.val_off % 8 == 0 && m.entry_size % 8 == 0, "an 8-byte value is 8-aligned after a 3-byte key");
		v = hmap_get(&m, k3);
		v->x = 9;
		CHECK(hmap_find(&m, k3b) == HMAP_NONE, "3-byte keys compare in full");
		CHECK_INT(((struct val *)hmap_val(&m, hmap_find(&m, k3)))->x, 9, "3-byte key's value");
		hmap_free(&m);
	}
	{	/* one chain for all: probing past other keys, across growths */
		uint32_t k;
		hmap_init(&m, sizeof(uint32_t), sizeof(uint32_t), &colliding);
		for (k = 0; k < 100; k++)
			*(uint32_t *)hmap_get(&m, &k) = k * 2;
		for (k = bad = 0; k < 100; k++)
			if (hmap_find(&m, &k) != k || *(uint32_t *)hmap_val(&m, k) != k * 2)
				bad++;
		k = 100;
		CHECK(bad == 0 && hmap_find(&m, &k) == HMAP_NONE, "keys with one hash are told apart");
		hmap_free(&m);
	}
	{	/* retain: what stays keeps its order and values, and is found */
		uint32_t k, two = 2;
		hmap_init(&m, sizeof(uint32_t), sizeof(uint32_t), NULL);
		for (k = 0; k < 1000; k++)
			*(uint32_t *)hmap_get(&m, &k) = k * 3;
		hmap_retain(&m, keep_odd, &two);
		for (k = bad = 0; k < 1000; k++)
			if (k % 2 ? hmap_find(&m, &k) != k / 2 || *(uint32_t *)hmap_val(&m, k / 2) != k * 3
				  : hmap_find(&m, &k) != HMAP_NONE)
				bad++;
		CHECK(bad == 0 && hmap_count(&m) == 500, "retain keeps the odd keys in order, with their values");
		k = 2;
		CHECK(hmap_add(&m, &k, NULL) == 500, "a key dropped by retain can be added again");
		hmap_free(&m);
	}
	return test_done();
}
