// SPDX-License-Identifier: GPL-2.0-only
/* cg_agg — the BPF code that updates an aggregation's value (cg_agg.c). */
#ifndef SONDE_DTRACE_CG_AGG_H
#define SONDE_DTRACE_CG_AGG_H

struct dt_cg;
struct dt_var;

/* Add the value in register val (incr: the histograms' increment
 * register, -1 for one) to v's per-CPU value at the pointer register p;
 * all three stay allocated. */
void dt_cg_agg_update(struct dt_cg *g, const struct dt_var *v, int p,
		      int val, int incr);

#endif
