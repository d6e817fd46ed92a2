// SPDX-License-Identifier: GPL-2.0-only
/* syscalls — system call names and numbers for the ABIs sonde decodes
 * (x86_64, its i386 and x32 compat ABIs, and aarch64), generated at build time from the kernel's UAPI
 * headers by scripts/gen-syscalls.sh. Names only: argument signatures and
 * their decoding belong to the tools. Prefix sc_. */
#ifndef SONDE_SYSCALLS_H
#define SONDE_SYSCALLS_H

/* The values are in trace files (ktrace's header): never renumbered. */
enum sc_abi { SC_X86_64, SC_AARCH64, SC_I386, SC_X32, SC_NABIS };

/* The ABI of the machine sonde was built for. */
enum sc_abi sc_native(void);
/* "x86_64", "aarch64", "i386", "x32"; sc_abi_by_name returns -1 for
 * others. */
const char *sc_abi_name(enum sc_abi abi);
int sc_abi_by_name(const char *name);
/* The name of syscall nr, or NULL when the ABI has none by that number. */
const char *sc_name(enum sc_abi abi, long nr);
/* The number of a syscall by name, or -1. */
long sc_number(enum sc_abi abi, const char *name);
/* One past the largest number in the table. */
long sc_limit(enum sc_abi abi);

#endif
