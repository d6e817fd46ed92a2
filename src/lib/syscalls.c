// SPDX-License-Identifier: GPL-2.0-only
/* syscalls — lookups over the generated tables. See syscalls.h. */
#include "syscalls.h"

#include <stddef.h>
#include <string.h>

extern const char *const sc_table_x86_64[];
extern const size_t sc_count_x86_64;
extern const char *const sc_table_aarch64[];
extern const size_t sc_count_aarch64;
extern const char *const sc_table_i386[];
extern const size_t sc_count_i386;
extern const char *const sc_table_x32[];
extern const size_t sc_count_x32;

static const struct {
	const char *name;
	const char *const *table;
	const size_t *count;
} abis[SC_NABIS] = {
	[SC_X86_64] = { "x86_64", sc_table_x86_64, &sc_count_x86_64 },
	[SC_AARCH64] = { "aarch64", sc_table_aarch64, &sc_count_aarch64 },
	[SC_I386] = { "i386", sc_table_i386, &sc_count_i386 },
	[SC_X32] = { "x32", sc_table_x32, &sc_count_x32 },
};

enum sc_abi sc_native(void)
{
#if defined(__aarch64__)
	return SC_AARCH64;
#else
	return SC_X86_64;
#endif
}

const char *sc_abi_name(enum sc_abi abi)
{
	return abi < SC_NABIS ? abis[abi].name : "unknown";
}

int sc_abi_by_name(const char *name)
{
	for (int i = 0; i < SC_NABIS; i++)
		if (strcmp(abis[i].name, name) == 0)
			return i;
	return -1;
}

const char *sc_name(enum sc_abi abi, long nr)
{
	if (abi >= SC_NABIS || nr < 0 || (size_t)nr >= *abis[abi].count)
		return NULL;
	return abis[abi].table[nr];
}

long sc_number(enum sc_abi abi, const char *name)
{
	if (abi >= SC_NABIS)
		return -1;
	for (size_t i = 0; i < *abis[abi].count; i++)
		if (abis[abi].table[i] && strcmp(abis[abi].table[i], name) == 0)
			return (long)i;
	return -1;
}

long sc_limit(enum sc_abi abi)
{
	return abi < SC_NABIS ? (long)*abis[abi].count : 0;
}
