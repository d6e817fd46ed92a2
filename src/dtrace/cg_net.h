// SPDX-License-Identifier: GPL-2.0-only
/* cg_net — code for D's network address functions (inet_ntoa6, link_ntop). */
#ifndef SONDE_DTRACE_CG_NET_H
#define SONDE_DTRACE_CG_NET_H

struct dt_cg;

#include <stdbool.h>

/* inet_ntoa6(a[, strict]): the 16 bytes at the address in register a
 * (freed by the caller) as IPv6 text, in a scratch block; returns the
 * text's scratch offset (64 bytes, NUL-terminated, zero-padded). strict:
 * IPv4-in-IPv6 addresses keep their "::" or "::ffff:" prefix. */
int dt_cg_inet_ntoa6(struct dt_cg *g, int a, bool strict);

/* link_ntop(type, a): the hardware address at a (register) of the
 * ARPHRD_* type in register type as text; returns its scratch offset (64
 * bytes, NUL-terminated). Another type faults. */
int dt_cg_link_ntop(struct dt_cg *g, int type, int a);
#define DT_LINK_NTOP_SIZE 64

#endif
