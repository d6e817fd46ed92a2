// SPDX-License-Identifier: GPL-2.0-only
/* hash — an open-addressing hash table of pointers keyed by a 64-bit hash
 * plus a caller-supplied equality test, and hash functions for integers and
 * byte strings. The table owns only its slot array. */
#ifndef SONDE_HASH_H
#define SONDE_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hslot {
	uint64_t hash;
	void *val;		/* NULL: empty */
};

struct htab {
	struct hslot *slots;
	size_t cap;		/* a power of two, or 0 */
	size_t n;
};

/* splitmix64's finalizer: a cheap, well-mixed hash of one integer. */
static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

uint64_t hash_bytes(const void *p, size_t n, uint64_t seed);

typedef bool (*htab_eq_fn)(const void *val, const void *key);

/* The stored value whose hash and key match, or NULL. */
void *htab_get(const struct htab *t, uint64_t hash, htab_eq_fn eq,
	       const void *key);
/* Insert val (must not be NULL and not already present). */
void htab_put(struct htab *t, uint64_t hash, void *val);
void htab_free(struct htab *t);

#endif
