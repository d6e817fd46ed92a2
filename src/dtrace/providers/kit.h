// SPDX-License-Identifier: GPL-2.0-only
/* kit — what providers share, so that a provider file says only what is
 * its own: a table of fixed probes (dtrace, proc, sched, profile), the
 * state each provider keeps for one session, the registers of struct
 * pt_regs where this architecture passes arguments (by offsetof, for the
 * kprobe, uprobe and system-call providers), and the small pieces of code
 * most providers emit (a constant probe id, the probe's strings, a raw
 * tracepoint's arguments, a function's arguments at entry and return). */
#ifndef SONDE_DTRACE_PROVIDERS_KIT_H
#define SONDE_DTRACE_PROVIDERS_KIT_H

#include "provider.h"

struct dt_cg;

/* ---- session state ---- */

/* p's state in the session (zeroed, p->state_size bytes), made on first
 * use and freed (p->state_free, then the bytes) with the session. */
void *dt_provs_state(struct dt_provs *ps, const struct dt_provider *p);

/* ---- fixed tables ---- */

/* Probes named by a fixed list, one module for all, no function. The
 * names are read from rows of a caller's table: name0 points at the first
 * row's name, stride bytes between rows; a probe's arg is its row. */
struct dt_ptable {
	struct dt_probe *probes;
	size_t n;
};
void dt_ptable_init(struct dt_ptable *t, const struct dt_provider *prov,
		    uint32_t first_id, const char *mod,
		    const char *const *name0, size_t stride, size_t n);
void dt_ptable_free(struct dt_ptable *t);
int dt_ptable_match(struct dt_ptable *t, const struct dt_pdesc *pd,
		    dt_probe_fn fn, void *arg);
struct dt_probe *dt_ptable_by_id(struct dt_ptable *t, uint32_t id);
/* A unit per probe name, with the probe's arg. */
void dt_kit_unit_by_name(const struct dt_probe *p, char *key, size_t len,
			 uint64_t *arg);

/* ---- struct pt_regs ---- */

struct dt_ptregs {
	int call_arg[8];	/* a function's arguments in registers */
	int ncall_args;
	int stack_first;	/* its first stack argument: at sp + this */
	int sys_arg[6];		/* a system call's arguments */
	int ret;		/* a function's return value */
	int sp, pc;
	int sys_nr, sys_nr_size;	/* the system call (at sys_exit) */
	int mode;		/* (mode & mode_mask) == mode_user: user mode */
	uint32_t mode_mask, mode_user;
};
extern const struct dt_ptregs dt_ptregs;
/* The offset of a register named as in assembly ("rdi", "edi", "di",
 * "dil"), of len bytes; -1 when unknown (or not x86_64). */
int dt_ptregs_by_name(const char *name, size_t len);

/* ---- code ---- */

/* The id of the unit's one probe, and its provider, module, function or
 * name (which: 0-3) as a string constant. */
int dt_kit_probe_id(struct dt_cg *g);
int dt_cg_probestr_const(struct dt_cg *g, int which);
/* Word i of a raw tracepoint's context (its arguments). */
int dt_kit_tp_arg(struct dt_cg *g, int i);
/* kprobe and uprobe programs: argument i at a function's entry (registers,
 * then the stack, read with the helper read_fn), and at its return
 * (arg1 the return value, arg0 -1 as dtrace-utils gives, others 0). */
int dt_kit_entry_arg(struct dt_cg *g, int i, int read_fn);
int dt_kit_return_arg(struct dt_cg *g, int i);
/* At sys_exit (context register ctx: the raw tracepoint's args): the
 * system call's number (regs->orig_ax) into register dst, through
 * DT_FP_STASH1; r1-r3 are clobbered. */
void dt_kit_sys_exit_nr(struct dt_cg *g, int ctx, int dst);
/* Attach a unit's program to a raw tracepoint. */
int dt_kit_attach_raw_tp(struct dt_unit *u, const char *tp, char *err,
			 size_t len);

#endif
