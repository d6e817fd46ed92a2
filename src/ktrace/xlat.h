// SPDX-License-Identifier: GPL-2.0-only
/* xlat — the tables kdump decodes with: syscall signatures (argument
 * kinds by syscall name), errno names and messages (generated from the
 * kernel headers), signal names, and flag sets (open, mmap, clone, at-,
 * access...), per syscall ABI where the values differ. The printer walks
 * the tables; no syscall has code of its own. Prefix xlat_. */
#ifndef SONDE_KTRACE_XLAT_H
#define SONDE_KTRACE_XLAT_H

#include <stdbool.h>
#include <stdint.h>

#include "../lib/syscalls.h"
#include "../lib/util.h"

struct xlat_errno {
	int nr;
	const char *name, *msg;
};
/* Generated (errnos.c). */
extern const struct xlat_errno xlat_errnos[];
extern const unsigned xlat_nerrnos;

/* "ENOENT" and "No such file or directory" for 2; the kernel's internal
 * restart codes (512-516) too; NULL for numbers without a name. */
const char *xlat_errno_name(int nr);
const char *xlat_errno_msg(int nr);

/* "SIGUSR1" for 10 (the same numbers on x86_64 and aarch64); NULL when
 * unknown. Real-time signals are "SIGRT3" (SIGRTMIN+3). */
const char *xlat_signal_name(enum sc_abi abi, int sig, char *buf, unsigned len);

struct xlat_flag {
	uint64_t val;
	const char *name;
};

enum xlat_set {
	XLAT_OPEN, XLAT_PROT, XLAT_MMAP, XLAT_CLONE, XLAT_AT, XLAT_ACCESS,
	XLAT_NSETS
};
/* Append "A|B|0x40" for the bits of v; "0" when v is 0 (O_RDONLY for
 * open flags, whose access mode is a value, not a bit). */
void xlat_flags(struct sbuf *sb, enum sc_abi abi, enum xlat_set set, uint64_t v);

/* How the arguments of the syscall are printed: one character per
 * argument (see xlat.c); NULL when it has no signature (all six are then
 * printed in hex). */
const char *xlat_signature(const char *name);
/* The name of the i-th signature, or NULL past the last (for tests). */
const char *xlat_signature_at(unsigned i);

struct xlat_opts {
	bool decimal;		/* -d: numbers in decimal */
	bool raw;		/* -n: no symbolic decoding */
};

/* "openat(AT_FDCWD,0x7ffd5c2e1a10,0x80000<O_RDONLY|O_CLOEXEC>)". */
void xlat_call(struct sbuf *sb, enum sc_abi abi, uint32_t nr,
	       const uint64_t args[6], const struct xlat_opts *o);
/* "openat 3", "read -1 errno 2 No such file or directory". */
void xlat_ret(struct sbuf *sb, enum sc_abi abi, uint32_t nr, int64_t ret,
	      const struct xlat_opts *o);
/* The syscall's name, or "#nr" in buf. */
const char *xlat_sysname(enum sc_abi abi, uint32_t nr, char *buf, unsigned len);

#endif
