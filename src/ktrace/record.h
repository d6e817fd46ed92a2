// SPDX-License-Identifier: GPL-2.0-only
/* record — what the recorder's BPF program (record.bpf.c) and its loader
 * (record.c) share beyond the file format: trace-point bits, the states of
 * the traced-process map and the per-syscall decoding hints user space
 * fills in. Included by BPF C and by user space. */
#ifndef SONDE_KTRACE_RECORD_H
#define SONDE_KTRACE_RECORD_H

/* Trace points, BSD's letters. */
#define KTR_PT_SYSCALL 0x01	/* c */
#define KTR_PT_NAMEI 0x02	/* n */
#define KTR_PT_GENIO 0x04	/* i */
#define KTR_PT_SIG 0x08		/* s */
#define KTR_PT_CSW 0x10		/* w */
#define KTR_PT_PROC 0x20	/* p */
#define KTR_PT_STRU 0x40	/* t (FreeBSD's letter: structures) */
#define KTR_PT_DEFAULT (KTR_PT_SYSCALL | KTR_PT_NAMEI | KTR_PT_GENIO | \
			KTR_PT_SIG | KTR_PT_PROC | KTR_PT_STRU)
#define KTR_PT_ALL (KTR_PT_DEFAULT | KTR_PT_CSW)

/* Values of the traced map (key: process id). */
#define KTR_ST_ARMED 1		/* traced from its next execve on */
#define KTR_ST_TRACING 2

/* The syscall table size the program knows hints for, per ABI: the
 * sysinfo map's key is KTR_SI_KEY(pers, nr). */
#define KTR_NR_MAX 1024
#define KTR_SI_KEY(pers, nr) ((pers) * KTR_NR_MAX + (nr))

/* Hints per syscall number (the sysinfo map's u32 values), derived from
 * the syscall table (systab.h) by ktrace_syscall_hints:
 * bits 0-5: which arguments are path names (NAMI);
 * bits 8-10: data kind (GIO, KTR_IO_*), bits 12-14: the fd argument,
 * bits 16-18: the buffer (or iovec, or msghdr) argument. */
#define KTR_SI_PATHS 0x3f
#define KTR_SI_IO_SHIFT 8
#define KTR_SI_FD_SHIFT 12
#define KTR_SI_BUF_SHIFT 16
#define KTR_SI_MAKE(paths, io, fd, buf) \
	(((paths) & KTR_SI_PATHS) | ((unsigned)(io) << KTR_SI_IO_SHIFT) | \
	 ((unsigned)(fd) << KTR_SI_FD_SHIFT) | \
	 ((unsigned)(buf) << KTR_SI_BUF_SHIFT))
/* Structures the call reads (captured at entry) or writes (at its
 * successful return): the captures map holds how (struct ktr_captures). */
#define KTR_SI_STRU_IN (1u << 20)
#define KTR_SI_STRU_OUT (1u << 21)
/* The fields of a hint word. */
#define KTR_SI_PATHMASK(info) ((info) & KTR_SI_PATHS)
#define KTR_SI_IO(info) (((info) >> KTR_SI_IO_SHIFT) & 7)
#define KTR_SI_FD(info) (((info) >> KTR_SI_FD_SHIFT) & 7)
#define KTR_SI_BUF(info) (((info) >> KTR_SI_BUF_SHIFT) & 7)
enum {
	KTR_IO_NONE,
	KTR_IO_READ,		/* data in a buffer, read: the return value says how much */
	KTR_IO_WRITE,
	KTR_IO_READV,		/* data in an iovec array */
	KTR_IO_WRITEV,
	KTR_IO_RECVMSG,		/* data in a msghdr's iovec array */
	KTR_IO_SENDMSG,
};

/* How to capture a structure argument (STRU records), per syscall and
 * ABI: up to KTR_CAPS of them, in the captures map under KTR_SI_KEY. The
 * bytes are size, or come from the next argument, the return value or
 * the msghdr, as rule says, and never more than max. */
enum {
	KTR_CAP_NONE,
	KTR_CAP_FIXED,		/* size bytes */
	KTR_CAP_LEN_ARG,	/* the next argument's value in bytes */
	KTR_CAP_LEN_PTR,	/* the u32 the next argument points to */
	KTR_CAP_COUNT_ARG,	/* the next argument's value times size */
	KTR_CAP_COUNT_RET,	/* the return value times size */
	KTR_CAP_BYTES_RET,	/* the return value in bytes */
	KTR_CAP_MSGNAME,	/* a msghdr's msg_name, msg_namelen bytes
				 * (size: the msghdr's, 56 or 28 in compat) */
};
struct ktr_capture {
	uint8_t arg;		/* the argument (0-5) */
	uint8_t kind;		/* enum ktr_stru_kind */
	uint8_t dir;		/* KTR_STRU_IN or KTR_STRU_OUT */
	uint8_t rule;		/* KTR_CAP_* */
	uint16_t size;
	uint16_t max;
};
#define KTR_CAPS 3
struct ktr_captures {
	struct ktr_capture c[KTR_CAPS];
};
/* The most bytes one STRU record carries, and of an exec's environment. */
#define KTR_STRU_MAX 4096
#define KTR_ENV_MAX 8192

/* The most data one GIO record carries (-m's ceiling) and iovec entries
 * followed. */
#define KTR_GIO_MAX 16384
#define KTR_IOV_MAX 8
/* How much of an exec's argv is copied. */
#define KTR_ARGV_MAX 8192
#define KTR_PATH_MAX 4096

/* A CPU's batch (record.bpf.c): the latest records of the thread running
 * on it, whole trace-file records back to back in b[0..len), written to
 * the ring buffer in one piece. The recorder collects what is left in
 * each CPU's batch when tracing ends. */
#define KTR_BATCH_MAX 4096
struct ktr_batch {
	uint32_t len;		/* bytes of records in b */
	uint32_t busy;		/* taken with an atomic exchange */
	uint32_t pid;		/* the process they are of */
	uint32_t n;		/* how many */
	char b[KTR_BATCH_MAX + 256];
};

#endif
