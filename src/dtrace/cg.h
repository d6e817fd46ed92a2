// SPDX-License-Identifier: GPL-2.0-only
/* cg — the expression generator's interface: a checked program becomes
 * one BPF program per unit, built on the emitter (emit.h). The functions
 * and actions (funcs.c) plug into it. */
#ifndef SONDE_DTRACE_CG_H
#define SONDE_DTRACE_CG_H

#include "ast.h"
#include "emit.h"
#include "providers/provider.h"

/* ---- values ---- */
int dt_cg_expr(struct dt_cg *g, struct dt_node *n);
/* The address of an object in memory or of a global or clause-local
 * variable's bytes (&x, an array's first element). */
int dt_cg_addr(struct dt_cg *g, struct dt_node *n);
/* The offset in alloca()'s memory of the bytes at the address in register
 * addr, in a new register, after dtrace-utils' check: an address outside
 * the memory handed out in this clause faults as a bad address, bytes
 * past its end as a bad size. The size is the register size, or isize
 * when size is -1 (a register size must be known to lie in 0..the
 * memory's size). The verifier sees the offset bounded (funcs.c). */
int dt_cg_alloca_check(struct dt_cg *g, int addr, int size, int isize);
/* An address in alloca()'s memory (register r, changed in place) as
 * dtrace-utils' programs see one, where the consumer shows it (records,
 * keys, faults): its offset in the memory plus 8, 0 for NULL. */
void dt_cg_alloca_user(struct dt_cg *g, int r);
/* Turn the checked offset in register off into a pointer to the bytes. */
int dt_cg_alloca_ptr(struct dt_cg *g, int off);
/* Store the value of e (int or string) at ptr + off, as the record or key
 * layout k says. */
void dt_cg_store_val(struct dt_cg *g, struct dt_node *e, int ptr, int off,
		     const struct dt_key *k);

/* ---- aggregations ---- */
void dt_cg_agg(struct dt_cg *g, struct dt_node *stmt);

/* chill()'s bpf_loop callback, placed at label after the program. */
void dt_cg_chill_callback(struct dt_cg *g, int label);

/* ---- units ---- */
void dt_cg_unit(struct dt_cg *g, struct dt_unit *u);

#endif
