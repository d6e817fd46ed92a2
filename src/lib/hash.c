// SPDX-License-Identifier: GPL-2.0-only
/* hash — open addressing with linear probing, grown at 50% load. */
#include "hash.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

uint64_t hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *s = p;
	uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ull);

	while (n >= 8) {
		uint64_t w;

		memcpy(&w, s, 8);
		h = hash_u64(h ^ w);
		s += 8;
		n -= 8;
	}
	if (n) {
		uint64_t w = 0;

		memcpy(&w, s, n);
		h = hash_u64(h ^ w ^ ((uint64_t)n << 56));
	}
	return h;
}

void *htab_get(const struct htab *t, uint64_t hash, htab_eq_fn eq,
	       const void *key)
{
	if (!t->cap)
		return NULL;
	for (size_t i = hash & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		const struct hslot *s = &t->slots[i];

		if (!s->val)
			return NULL;
		if (s->hash == hash && eq(s->val, key))
			return s->val;
	}
}

static void insert(struct hslot *slots, size_t cap, uint64_t hash, void *val)
{
	size_t i = hash & (cap - 1);

	while (slots[i].val)
		i = (i + 1) & (cap - 1);
	slots[i].hash = hash;
	slots[i].val = val;
}

void htab_put(struct htab *t, uint64_t hash, void *val)
{
	if ((t->n + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct hslot *s = sd_calloc(cap, sizeof(*s));

		for (size_t i = 0; i < t->cap; i++)
			if (t->slots[i].val)
				insert(s, cap, t->slots[i].hash, t->slots[i].val);
		free(t->slots);
		t->slots = s;
		t->cap = cap;
	}
	insert(t->slots, t->cap, hash, val);
	t->n++;
}

void htab_free(struct htab *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
