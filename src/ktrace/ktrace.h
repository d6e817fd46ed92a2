// SPDX-License-Identifier: GPL-2.0-only
/* ktrace — the pieces of sonde ktrace and sonde kdump that more than one
 * file of the tool uses: the syscall hint table, trace-point strings and
 * the two commands' internals. Prefix ktrace_ (the file format's reader is
 * ktr_, in reader.h). */
#ifndef SONDE_KTRACE_H
#define SONDE_KTRACE_H

#include <stddef.h>
#include <stdint.h>

/* A syscall, by name, and its hints (record.h's KTR_SI_* layout). */
struct ktrace_sysinfo {
	const char *name;
	uint32_t info;
};
const struct ktrace_sysinfo *ktrace_sysinfo_table(size_t *n);

/* Parse a BSD trace-point string ("cnisw p", "+" for the default set) into
 * KTR_PT_* bits; -EINVAL names no letter it does not know. */
int ktrace_parse_points(const char *s, uint32_t *points);

#endif
