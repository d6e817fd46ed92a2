// SPDX-License-Identifier: GPL-2.0-only
/* linux_kind — what kind of report a Linux kernel log line starts: the
 * headline recognisers (Oops, BUG, WARNING in its old and 6.15+ forms,
 * KASAN/KFENCE/KMSAN/KCSAN/UBSAN, lockdep, hung tasks, stalls, lockups,
 * panics, SLUB, ...) with the function a headline names, the lines before
 * or inside a report that name it better, and which headlines continue
 * the report before them. Pure functions of the line; the parser's state
 * lives in linux.c. */
#ifndef SONDE_KPTRACE_LINUX_KIND_H
#define SONDE_KPTRACE_LINUX_KIND_H

#include "report.h"

#include <stdbool.h>
#include <stddef.h>

/* The kind of the report this line starts (malloc'd), or NULL. *func gets
 * a function the headline names (WARNING at ... func, KASAN in func),
 * malloc'd, or NULL. */
char *lx_headline(const char *body, char **func);
/* A headline glued to or after other text on the line (two printks
 * interleaved, "syz-executor: ...BUG: unable to handle ..."). */
char *lx_headline_inside(const char *body, char **func);
/* Whether a headline of this kind continues the open report r (the Oops
 * line after "BUG: kernel NULL pointer dereference", arm64's "Internal
 * error: Oops" after "Unable to handle", ...) at input line lineno. */
bool lx_continues(const struct kp_report *r, const char *kind, int lineno);
/* A line before a headline that names the report better ("list_add
 * corruption", "ODEBUG:", ...): the kind, or NULL. */
const char *lx_prelude_kind(const char *s);
/* A line inside a report that refines its kind ("refcount_t:", "Kernel
 * stack is corrupted in:"): the kind, or NULL; *len the length of the
 * marker (the function it names follows). */
const char *lx_refine_kind(const char *s, size_t *len);
/* Whether a panic message (after "Kernel panic - not syncing: ") is one
 * the kernel prints because of a report before it: "Fatal exception",
 * "panic_on_warn set", "hung_task: blocked tasks", "Attempted to kill
 * init", ... (not "sysrq triggered crash" or "VFS: Unable to mount root"). */
bool lx_panic_follows(const char *msg);
/* A headline without a leading "rcu: ", "watchdog: ", "Oops: ", ... */
const char *lx_strip_subsys(const char *s);

/* How a lockdep headline names its lock. */
enum lx_lock_mode {
	LOCK_FIRST,		/* the first "at:" that is no plumbing */
	LOCK_DIRECT,		/* the first "at:", as it is */
	LOCK_CIRCULAR,		/* of the next two "at:", the first that is
				 * no plumbing (else the dependency chain
				 * names it) */
	LOCK_STACK,		/* none: the call trace names it */
};
enum lx_lock_mode lx_lock_mode_of(const char *headline);

/* The kernel release a line states ("CPU: 0 PID: 1 Comm: sh Tainted: G
 * 6.1.0-18-cloud-amd64 #1", "Linux version ..."), malloc'd, or NULL. */
char *lx_release_of(const char *s);

#endif
