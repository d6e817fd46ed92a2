// SPDX-License-Identifier: GPL-2.0-only
/* systab — ktrace's one syscall table: a row per syscall, by name, saying
 * what kind each argument is, which arguments are path names and which
 * carry data. The recorder derives its BPF hints from it (which arguments
 * to read as NAMI records, which buffer to copy as GIO data:
 * ktrace_syscall_hints), and kdump decodes with it (how to print each
 * argument). Rows are by name, so one table serves every ABI lib/syscalls
 * knows (a row for one ABI goes before the general one where the
 * arguments differ); numbers come from there. Prefix ktrace_syscall (the argument
 * kinds: KA_).
 *
 * The data of a row that moves some (io) is in its first KA_BUF, KA_IOV or
 * KA_MSGHDR argument, from or to the file descriptor of its first KA_FD
 * argument. */
#ifndef SONDE_KTRACE_SYSTAB_H
#define SONDE_KTRACE_SYSTAB_H

#include <stddef.h>
#include <stdint.h>

#include "../lib/syscalls.h"
#include "format.h"
#include "record.h"

/* What an argument is: how kdump prints it, and what the recorder reads
 * through it. A row's argument is a kind, or KA_SET(XLAT_X): a value of
 * one of the generated constant or flag sets (xlat.sets), printed by
 * name. */
enum ktrace_arg {
	KA_END,			/* no more arguments */
	KA_NUM,			/* a number: hex, decimal with kdump -d */
	KA_INT,			/* a signed int, decimal */
	KA_UINT,		/* an unsigned number, decimal */
	KA_PTR,			/* a pointer, hex */
	KA_FD,			/* a file descriptor */
	KA_DIRFD,		/* a directory fd, or AT_FDCWD */
	KA_PATH,		/* a path name: a NAMI record */
	KA_BUF,			/* a data buffer: GIO, when the row moves data */
	KA_IOV,			/* an iovec array: GIO */
	KA_MSGHDR,		/* a msghdr: GIO */
	KA_MODE,		/* a mode, octal */
	KA_CREATE_MODE,		/* a mode, present only when the open flags
				 * (KA_SET(XLAT_OPEN)) before it create a file */
	KA_SIGNAL,		/* a signal number */
	KA_CLONE_FLAGS,		/* CLONE_*, the exit signal in the low byte */
	KA_U64_LO,		/* the low half of a 64-bit number whose high
				 * half is the next argument (32-bit ABIs) */
	KA_U64_HI,		/* the high half; the low half is next */
	KA_SETVAL,		/* with a set in the high byte: KA_SET() */
	KA_STRU_IN,		/* a structure the call reads, its kind
				 * (enum ktr_stru_kind) in the high byte:
				 * KA_IN(); a STRU record at entry */
	KA_STRU_OUT,		/* one it writes: KA_OUT(); a STRU record at
				 * its successful return */
	/* kdump's, printed from the arguments before them: */
	KA_SOCKTYPE,		/* SOCK_STREAM|SOCK_CLOEXEC */
	KA_SOCKPROTO,		/* IPPROTO_TCP, NETLINK_ROUTE: by the domain
				 * (argument 0) */
	KA_SOCKOPT,		/* SO_, TCP_, IP_, IPV6_: by the level
				 * (the argument before) */
	KA_FUTEX_OP,		/* FUTEX_WAIT_PRIVATE|FUTEX_CLOCK_REALTIME */
	KA_FCNTL_ARG,		/* by the command (the argument before):
				 * FD_CLOEXEC, open flags, a signal, a number */
	KA_PID,			/* a process id: signed (-1), else as KA_NUM */
	KA_NKINDS
};

#include "src/ktrace/xlat_sets.h"

/* An argument of a set of constants or flags (enum xlat_set). */
#define KA_SET(set) ((uint16_t)(KA_SETVAL | (set) << 8))
#define KA_KIND(a) ((a) & 0xff)
#define KA_SET_OF(a) ((enum xlat_set)((a) >> 8))
/* A structure argument: KA_IN(SOCKADDR) is connect's address. The bytes
 * recorded follow from the kind (and the ABI): a sockaddr's length is the
 * next argument (in) or what it points to (out), a pollfd, iovec or
 * epoll_event array's count the next argument (in) or the return value
 * (epoll_wait), getdents64's bytes the return value. A KA_IOV argument
 * records its iovec array, a KA_MSGHDR its msg_name, besides their data. */
#define KA_IN(kind) ((uint16_t)(KA_STRU_IN | KTR_STRU_##kind << 8))
#define KA_OUT(kind) ((uint16_t)(KA_STRU_OUT | KTR_STRU_##kind << 8))
#define KA_STRU_OF(a) ((a) >> 8)

#define KTRACE_ARGS_MAX 6

struct ktrace_syscall {
	const char *name;
	uint16_t args[KTRACE_ARGS_MAX];	/* enum ktrace_arg or KA_SET();
					 * KA_END after the last */
	uint8_t io;		/* KTR_IO_* (record.h): the data it moves */
	uint8_t abis;		/* 0: every ABI; else a bit per enum sc_abi the
				 * row is for, before the general one */
};

/* How many arguments a row has. */
int ktrace_syscall_nargs(const struct ktrace_syscall *sc);

/* The rows, in no particular order. */
const struct ktrace_syscall *ktrace_syscall_table(size_t *n);
/* The row of a syscall by name, or NULL: the general one, or the one for
 * an ABI whose arguments differ (i386's pread64 passes the offset in two
 * registers). */
const struct ktrace_syscall *ktrace_syscall_find(const char *name);
const struct ktrace_syscall *ktrace_syscall_abi(enum sc_abi abi,
						const char *name);
/* The row of syscall nr of an ABI, or NULL (an index per ABI, built on
 * first use: not to be called from two threads at once). */
const struct ktrace_syscall *ktrace_syscall_nr(enum sc_abi abi, long nr);
/* The recorder's hints for a row: record.h's KTR_SI_* word (0 when the
 * syscall has neither path names, data nor structures). */
uint32_t ktrace_syscall_hints(const struct ktrace_syscall *sc);
/* How the recorder captures the row's structures for an ABI (record.h's
 * struct ktr_captures, ABI-dependent sizes resolved): how many. */
int ktrace_syscall_captures(const struct ktrace_syscall *sc, enum sc_abi abi,
			    struct ktr_captures *caps);

#endif
