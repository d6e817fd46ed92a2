// SPDX-License-Identifier: GPL-2.0-only
/* xlat — the tables kdump decodes with: errno names and messages, signal
 * names, and constant and flag sets (open, mmap, clone, at-, fcntl...),
 * generated from the kernel headers, per syscall ABI where the values
 * differ; and the printer that walks them over the syscall table's
 * argument kinds (systab.h): no syscall has code of its own. Prefix
 * xlat_. */
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

/* The sets (enum xlat_set: XLAT_OPEN, XLAT_FCNTL, ...) are generated from
 * the kernel's UAPI headers by scripts/gen-xlat.sh, one line of xlat.sets
 * each, with a table per architecture. */
#include "src/ktrace/xlat_sets.h"

enum xlat_kind {
	XLAT_FLAGS,		/* bits: A|B|0x40 */
	XLAT_VALUES,		/* one name per value */
};

struct xlat_set_def {
	enum xlat_kind kind;
	uint64_t mask;		/* flags: bits that are a value field (open's
				 * access mode), named by the rows inside it */
	const struct xlat_flag *rows;	/* ends with a NULL name; flags with
					 * several bits come first */
};
/* Generated (xlat_ARCH.c). */
extern const struct xlat_set_def xlat_sets_x86_64[XLAT_NSETS];
extern const struct xlat_set_def xlat_sets_aarch64[XLAT_NSETS];
extern const struct xlat_set_def xlat_sets_i386[XLAT_NSETS];

/* Append "A|B|0x40" for the bits of v; the name of the value 0 (PROT_NONE,
 * F_OK) or "0" when v is 0; a value field first (O_RDONLY). */
void xlat_flags(struct sbuf *sb, enum sc_abi abi, enum xlat_set set, uint64_t v);
/* The value of the row called name in a set, 0 when it has none. */
uint64_t xlat_named(enum sc_abi abi, enum xlat_set set, const char *name);
/* The name of value v in a set of values (F_DUPFD_CLOEXEC, AT_FDCWD for
 * (uint64_t)-100), or NULL. */
const char *xlat_value(enum sc_abi abi, enum xlat_set set, uint64_t v);

struct xlat_opts {
	bool decimal;		/* -d: numbers in decimal */
	bool raw;		/* -n: no symbolic decoding */
	/* -y: what an fd of process pid refers to, or NULL (fd_name may be
	 * NULL: no annotations). */
	const char *(*fd_name)(void *ctx, uint32_t pid, int64_t fd);
	void *fd_ctx;
	uint32_t pid;
	/* strace's spelling: ", " between arguments, numbers in decimal,
	 * NULL, flags by name alone (O_RDONLY|O_CLOEXEC). */
	bool strace;
	/* Called before each argument is printed: true when it printed
	 * argument i itself (a path name, data, a structure found elsewhere
	 * in the trace). */
	bool (*arg_hook)(void *ctx, struct sbuf *sb, int i, uint16_t kind,
			 uint64_t v);
	void *hook_ctx;
};

/* An fd's -y name: "<name>"; strace's "</memfd:x>(deleted)" for a name
 * ending in " (deleted)" when strace. */
void xlat_fd_name(struct sbuf *sb, const char *name, bool strace);

/* "openat(AT_FDCWD,0x7ffd5c2e1a10,0x80000<O_RDONLY|O_CLOEXEC>)". */
void xlat_call(struct sbuf *sb, enum sc_abi abi, uint32_t nr,
	       const uint64_t args[6], const struct xlat_opts *o);
/* "openat 3", "read -1 errno 2 No such file or directory". */
void xlat_ret(struct sbuf *sb, enum sc_abi abi, uint32_t nr, int64_t ret,
	      const struct xlat_opts *o);
/* The same, with the call's arguments (NULL: not known) for returns whose
 * meaning they give: fcntl's F_GETFD ("1<FD_CLOEXEC>"), F_GETFL. */
void xlat_ret_args(struct sbuf *sb, enum sc_abi abi, uint32_t nr, int64_t ret,
		   const uint64_t *args, const struct xlat_opts *o);
/* The syscall's name, or "#nr" in buf. */
const char *xlat_sysname(enum sc_abi abi, uint32_t nr, char *buf, unsigned len);

#endif
