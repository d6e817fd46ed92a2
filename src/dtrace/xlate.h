// SPDX-License-Identifier: GPL-2.0-only
/* xlate — code for the members of translated structs (xlate.c). */
#ifndef SONDE_DTRACE_XLATE_H
#define SONDE_DTRACE_XLATE_H

struct dt_cg;

/* A member of a translated struct (enum dt_xlate xl, member idx, from
 * dt_xlate_member) from the kernel pointer in ptr (freed); the value's
 * register (a scratch pointer for strings). */
int dt_xlate_cg(struct dt_cg *g, int xl, int idx, int ptr);

#endif
