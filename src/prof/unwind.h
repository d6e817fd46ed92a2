// SPDX-License-Identifier: GPL-2.0-only
/* unwind — an async-signal-safe stack walker for libsonde-prof.so. It runs
 * inside a SIGPROF handler of an arbitrary program: no malloc, no locks, no
 * stdio. Each frame is unwound with the DWARF call-frame information of the
 * object that holds its code (.eh_frame, found through glibc's lock-free
 * _dl_find_object and the .eh_frame_hdr search table), which is exact at
 * every instruction, also in code built without frame pointers; code that
 * has no CFI (JIT code, hand-written assembly) is unwound through the frame
 * pointer chain. Every memory read is checked against the thread's stack
 * bounds or the object's mapping first, so a corrupt stack ends the walk
 * instead of faulting. x86_64 only. */
#ifndef SONDE_PROF_UNWIND_H
#define SONDE_PROF_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The stack memory a walk may read: [lo, hi). */
struct unw_stack {
	uintptr_t lo, hi;
};

/* Why a walk ended (for the counters in the profile). */
enum unw_end {
	UNW_END_OK,		/* reached the outermost frame */
	UNW_END_MAX,		/* the frame buffer was full: truncated */
	UNW_END_BAD,		/* a check failed: bad CFI or a corrupt stack */
};

/* Walk the stack of the context uc (a ucontext_t from a signal handler).
 * frames[0] is the interrupted PC; every further entry is a return address
 * minus one, so that it falls inside the call instruction (what a symbolizer
 * wants), except the frame interrupted by a nested signal whose PC is exact.
 * Reads of stack memory are limited to stack (and, when the context is on a
 * sigaltstack, to that stack). Returns the number of frames and stores why
 * the walk ended. */
int unw_walk(const void *uc, const struct unw_stack *stack, uintptr_t *frames,
	     int max, enum unw_end *why);

/* Tests: decode the ULEB128/SLEB128 at *p (advancing it), never past end. */
bool unw_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v);
bool unw_sleb(const uint8_t **p, const uint8_t *end, int64_t *v);

#endif
