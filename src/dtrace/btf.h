// SPDX-License-Identifier: GPL-2.0-only
/* btf — the kernel's types from its BTF, loaded on first use (btf.c). */
#ifndef SONDE_DTRACE_BTF_H
#define SONDE_DTRACE_BTF_H

/* The byte offset of a member of kernel struct type; member may be a
 * dotted path ("se.sum_exec_runtime") and look into anonymous structs
 * and unions. -ENOENT when the kernel has no BTF or no such member. */
int dt_btf_member_offset(const char *type, const char *member);

/* Let the kernel's BTF go (about 6 MB resident once read): for a process
 * that lives on after compiling (sonde agent). The next lookup reads it
 * again. */
void dt_btf_release(void);

#endif
