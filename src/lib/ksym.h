// SPDX-License-Identifier: GPL-2.0-only
/* ksym — kernel symbols from /proc/kallsyms or a System.map: parsed once into
 * a sorted, compact array of code symbols, looked up by address with a
 * binary search. kallsyms carries no sizes, so a symbol runs up to the next
 * one in the same module (see ksym_lookup). */
#ifndef SONDE_KSYM_H
#define SONDE_KSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* A symbol as lookups return it; strings live as long as the table. */
struct ksym {
	uint64_t addr;
	const char *name;
	const char *module;	/* KSYM_KERNEL, KSYM_BPF or a module's name */
	char type;		/* 't', 'T', 'w' or 'W' */
};

/* Module names of the core kernel image and of JIT-ed BPF programs. */
extern const char KSYM_KERNEL[];
extern const char KSYM_BPF[];

struct ksym_ent {		/* 16 bytes: 122k symbols in 2 MB */
	uint64_t addr;
	uint32_t name;		/* offset into names */
	uint16_t mod;		/* index into mods */
	char type;
	char pad;
};

struct ksym_table {
	struct ksym_ent *ents;	/* sorted by addr, one per address */
	size_t n;
	size_t aliases;		/* symbols dropped as aliases of another */
	bool hidden;		/* every address read as 0: kptr_restrict */
	struct region ents_mem, names;
	const char **mods;	/* [0] kernel, [1] bpf, then modules */
	size_t nmods, capmods;
};

/* Parse kallsyms or System.map text. The parser keeps state between calls
 * so input can arrive in chunks of any size; ksym_parse_end sorts and
 * collapses aliases. */
struct ksym_table *ksym_new(void);
void ksym_parse_chunk(struct ksym_table *t, const char *buf, size_t len);
void ksym_parse_end(struct ksym_table *t);
/* The whole of a string at once. */
struct ksym_table *ksym_parse(const char *buf, size_t len);
/* Read and parse a file. NULL with errno set if it cannot be read. */
struct ksym_table *ksym_load(const char *path);
void ksym_free(struct ksym_table *t);

/* The symbol containing addr; false when addr lies before the first
 * symbol, past an end marker (_etext, _einittext) or too far past the
 * last symbol of a module. */
bool ksym_lookup(const struct ksym_table *t, uint64_t addr, struct ksym *out);
/* First symbol with this name (linear; for rare lookups). */
bool ksym_by_name(const struct ksym_table *t, const char *name,
		  struct ksym *out);
/* The i-th symbol in address order. */
void ksym_get(const struct ksym_table *t, size_t i, struct ksym *out);

#endif
