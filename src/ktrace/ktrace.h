// SPDX-License-Identifier: GPL-2.0-only
/* ktrace — the pieces of sonde ktrace and sonde kdump that more than one
 * file of the tool uses: trace-point strings and the two commands'
 * internals (the syscall table is systab.h). Prefix ktrace_ (the file format's reader is
 * ktr_, in reader.h). */
#ifndef SONDE_KTRACE_H
#define SONDE_KTRACE_H

#include <stddef.h>
#include <stdint.h>

/* Parse a BSD trace-point string ("cnisw p", "+" for the default set) into
 * KTR_PT_* bits; -EINVAL names no letter it does not know. */
int ktrace_parse_points(const char *s, uint32_t *points);

#endif
