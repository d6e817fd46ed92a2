// SPDX-License-Identifier: GPL-2.0-only
/* prof — `sonde prof`, the CPU profiler launcher: runs a command with
 * libsonde-prof.so preloaded and turns the profile it writes into the
 * requested format. Private to src/prof. */
#ifndef SONDE_PROF_H
#define SONDE_PROF_H

#include <stdint.h>
#include <stdio.h>

#include "../lib/demangle.h"
#include "../lib/pprof.h"

/* Folded stacks (root first, counts = samples) of a profile; kinds: the
 * symbols to show demangled (lib/demangle's DEMANGLE_*), 0 for the
 * symbols as they are. */
void prof_write_folded(struct pprof *p, FILE *f, unsigned kinds);
/* The hottest functions (top rows; 0 = all) and the threads. */
void prof_write_table(struct pprof *p, FILE *f, uint64_t top,
		      unsigned kinds);

#endif
