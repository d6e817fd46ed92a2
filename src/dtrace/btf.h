// SPDX-License-Identifier: GPL-2.0-only
/* btf — the kernel's types from its BTF, loaded on first use (btf.c). */
#ifndef SONDE_DTRACE_BTF_H
#define SONDE_DTRACE_BTF_H

#include <stdbool.h>

/* The byte offset of a member of kernel struct type; member may be a
 * dotted path ("se.sum_exec_runtime") and look into anonymous structs
 * and unions. -ENOENT when the kernel has no BTF or no such member. */
int dt_btf_member_offset(const char *type, const char *member);

/* Let the kernel's BTF go (about 6 MB resident once read): for a process
 * that lives on after compiling (sonde agent). The next lookup reads it
 * again. */
void dt_btf_release(void);

struct dt_cc;
struct dt_type;
struct dt_ctype;
/* The kernel's struct or union TAG (is_union) as a D type, its members
 * read when first named; false when the kernel has none (or no BTF). The
 * same kernel type is the same D type for the whole compilation. */
bool dt_btf_sou(struct dt_cc *cc, bool is_union, const char *tag,
		struct dt_type *t);
/* Read the members of a kernel struct or union met through a pointer or
 * as a member (ct->btf_id), once. */
void dt_btf_complete(struct dt_cc *cc, struct dt_ctype *ct);

#endif
