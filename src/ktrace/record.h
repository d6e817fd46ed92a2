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
#define KTR_PT_DEFAULT (KTR_PT_SYSCALL | KTR_PT_NAMEI | KTR_PT_GENIO | \
			KTR_PT_SIG | KTR_PT_PROC)
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

/* The most data one GIO record carries (-m's ceiling) and iovec entries
 * followed. */
#define KTR_GIO_MAX 16384
#define KTR_IOV_MAX 8
/* How much of an exec's argv is copied. */
#define KTR_ARGV_MAX 2048
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
