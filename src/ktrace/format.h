// SPDX-License-Identifier: GPL-2.0-only
/* format — the sonde trace file (docs/trace-format.md, version 2): the one
 * contract between the recorder (ktrace, whose BPF program writes records in
 * exactly this layout) and the decoder (kdump). A file is one header
 * followed by self-delimiting records; every record starts with its length,
 * so a reader can skip types it does not know and a killed recorder damages
 * at most its last record. Integers are in the byte order the header names
 * (the recorder's); every record's length is a multiple of 8. Prefix ktr_.
 *
 * This header is included by BPF C (record.bpf.c) as well as by user space:
 * fixed-width types only, no libc. */
#ifndef SONDE_KTRACE_FORMAT_H
#define SONDE_KTRACE_FORMAT_H

#ifndef __VMLINUX_H__
#include <stdint.h>
#endif

#define KTR_MAGIC "SONDEKTR"	/* 8 bytes, no NUL */
#define KTR_VERSION 2		/* what the recorder writes */
#define KTR_VERSION_MIN 1	/* the oldest the reader reads */
#define KTR_LITTLE 1		/* byte_order */
#define KTR_BIG 2

/* The file header, written once. hdr_len lets later versions grow it:
 * a reader skips to hdr_len for the first record. */
struct ktr_file_header {
	char magic[8];
	uint32_t version;
	uint32_t hdr_len;	/* bytes from the file start to the first record */
	uint8_t byte_order;	/* KTR_LITTLE or KTR_BIG */
	uint8_t abi;		/* the machine's syscall ABI: enum sc_abi
				 * (0 x86_64, 1 aarch64) */
	uint16_t sum_algo;	/* KTR_SUM_*: the checksum of its SUM records
				 * (0: none) */
	uint32_t reserved1;
	/* Wall-clock time = record ts (CLOCK_MONOTONIC ns) + clock_base_ns. */
	int64_t clock_base_ns;
	char release[65];	/* uname -r of the recording kernel */
	char hostname[65];
	char reserved2[6];
};				/* 168 bytes */

/* Record types. */
enum ktr_type {
	KTR_CALL = 1,		/* syscall entry: nr and six raw arguments */
	KTR_RET = 2,		/* syscall return: nr and the return value */
	KTR_NAMI = 3,		/* a path name a syscall took (NUL-terminated) */
	KTR_GIO = 4,		/* data read or written by a syscall */
	KTR_PSIG = 5,		/* a signal generated for or delivered to the thread */
	KTR_CSW = 6,		/* a context switch of the thread */
	KTR_FORK = 7,		/* a new process or thread */
	KTR_EXEC = 8,		/* a successful exec: path and argv */
	KTR_EXIT = 9,		/* a thread exited */
	KTR_DROP = 10,		/* records were lost before this one */
	KTR_RETGIO = 11,	/* a GIO and the RET that follows it, in one */
	KTR_CALLRET = 12,	/* a CALL, maybe a GIO, and the RET, in one */
	KTR_STRU = 13,		/* a structure a syscall read or wrote */
	KTR_END = 14,		/* the recording ended: totals, and how */
	KTR_FD = 15,		/* an fd a process held when the recorder
				 * attached to it (-p, -g), or that the
				 * command inherits (KTR_F_START) */
	KTR_SUM = 16,		/* a checksum of the bytes before it */
	KTR_NTYPES
};

/* Record flags. */
#define KTR_F_DROP 0x1		/* records of this process were lost before it */
#define KTR_F_START 0x2		/* an FD record of what -- COMMAND inherits
				 * (fds without FD_CLOEXEC, the working
				 * directory), written before its exec */

#define KTR_COMM_LEN 16

/* The syscall ABI of a record (its pers), relative to the header's: the
 * machine's own, its 32-bit compat ABI (i386 on x86_64), or x32. Version 1
 * files have 0 there. */
#define KTR_PERS_NATIVE 0
#define KTR_PERS_COMPAT 1
#define KTR_PERS_X32 2
#define KTR_NPERS 3

/* Every record starts with this header; len covers header and payload and
 * is a multiple of 8. pid is the process (thread group) id, tid the thread. */
struct ktr_rec {
	uint32_t len;
	uint16_t type;
	uint16_t flags;
	uint32_t pid;
	uint32_t tid;
	uint64_t ts;		/* CLOCK_MONOTONIC ns */
	uint16_t cpu;
	uint8_t pers;		/* KTR_PERS_*: the ABI of the syscall the record
				 * is about (0 for records of no syscall) */
	uint8_t reserved;
	char comm[KTR_COMM_LEN];
	uint32_t reserved2;
};				/* 48 bytes */

#define KTR_MAX_ARGS 6
#define KTR_REC_MAX (1u << 20)	/* no valid record is longer */

struct ktr_call {
	struct ktr_rec h;
	uint32_t nr;
	uint32_t reserved;
	uint64_t args[KTR_MAX_ARGS];
};

struct ktr_ret {
	struct ktr_rec h;
	uint32_t nr;
	uint32_t reserved;
	int64_t ret;		/* the raw return value; -4095..-1 is -errno */
};

/* NAMI: the header, then the path, NUL-terminated, padded with NULs. */
struct ktr_nami {
	struct ktr_rec h;
	char path[];
};

#define KTR_GIO_READ 0
#define KTR_GIO_WRITE 1

/* GIO: data_len bytes follow (at most the recorder's -m), of total bytes
 * the call transferred (its return value). */
struct ktr_gio {
	struct ktr_rec h;
	int32_t fd;
	uint32_t nr;
	uint8_t dir;		/* KTR_GIO_READ or KTR_GIO_WRITE */
	uint8_t reserved[3];
	uint32_t data_len;
	uint64_t total;
	char data[];
};

/* RETGIO: what a GIO record and the syscall's RET record say, merged
 * because nothing can come between them (both are written at the call's
 * exit, in one go); the recorder uses it for small data when it records
 * both. kdump prints it as the two records. */
struct ktr_retgio {
	struct ktr_rec h;
	uint32_t nr;
	int32_t fd;
	int64_t ret;		/* the return value: the bytes moved */
	uint8_t dir;		/* KTR_GIO_READ or KTR_GIO_WRITE */
	uint8_t reserved[3];
	uint32_t data_len;
	char data[];
};

/* CALLRET: a syscall's CALL record, then (gio set) its GIO record, then
 * its RET record, merged because nothing was recorded between them. The
 * header's ts and cpu are the return's; call_ts and call_cpu the entry's.
 * The header's flags belong to the CALL. kdump prints it as the two or
 * three records. */
struct ktr_callret {
	struct ktr_rec h;
	uint64_t call_ts;	/* CLOCK_MONOTONIC ns at entry */
	uint16_t call_cpu;
	uint8_t gio;		/* 1: GIO data follows (total = ret) */
	uint8_t dir;		/* KTR_GIO_READ or KTR_GIO_WRITE */
	int32_t fd;
	uint32_t nr;
	uint32_t data_len;
	int64_t ret;
	uint64_t args[KTR_MAX_ARGS];
	char data[];
};				/* 128 bytes before the data */

#define KTR_SIG_GENERATED 0
#define KTR_SIG_DELIVERED 1

/* PSIG: generated (recorded for the target thread; result the kernel's
 * TRACE_SIGNAL_* verdict) or delivered (handler is the disposition: 0
 * SIG_DFL, 1 SIG_IGN, else the handler's address). Both say what the
 * siginfo says: sender the sending process (si_pid) for signals a process
 * sent (kill, tgkill, sigqueue) and for SIGCHLD (the child), 0 for those
 * the kernel raised itself (timers, faults, SI_KERNEL); addr the faulting
 * address of SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGTRAP; status
 * SIGCHLD's si_status. A fatal signal's default action ends the process
 * by a group exit, which the kernel delivers as SIGKILL: that delivered
 * record carries the real signal, with fatal set. */
struct ktr_psig {
	struct ktr_rec h;
	int32_t sig;
	int32_t code;		/* si_code */
	uint8_t kind;		/* KTR_SIG_GENERATED or KTR_SIG_DELIVERED */
	uint8_t fatal;		/* delivered: the group exit of a fatal signal
				 * (sig is that signal, SIGKILL for an
				 * exit_group() of another thread) */
	uint8_t reserved[2];
	int32_t result;		/* generated: 0 delivered, 1 ignored, 2 already
				 * pending, 3 overflow, 4 lose info */
	uint32_t sender_pid;	/* the sending process, 0 the kernel */
	uint32_t sa_flags;	/* delivered: sa_flags */
	uint64_t handler;	/* delivered */
	/* Version 2 from here on (80 bytes before). */
	uint64_t addr;		/* si_addr of a fault */
	int32_t status;		/* SIGCHLD: si_status */
	uint32_t reserved2;
};

#define KTR_CSW_OUT 0
#define KTR_CSW_IN 1

struct ktr_csw {
	struct ktr_rec h;
	uint8_t dir;		/* KTR_CSW_OUT (off CPU) or KTR_CSW_IN */
	uint8_t voluntary;	/* out: 1 it slept, 0 it was preempted */
	uint8_t reserved[6];
};

#define KTR_FORK_THREAD 0x1	/* the child shares the parent's process */

/* FORK: written by the parent. */
struct ktr_fork {
	struct ktr_rec h;
	uint32_t child_pid;
	uint32_t child_tid;
	uint32_t flags;
	uint32_t reserved;
};

/* EXEC: path_len bytes of path (NUL included), then argv_len bytes of the
 * new argv as the process sees it (NUL-separated), cut to what the
 * recorder copies: argc says how many strings there were (0 unknown) and
 * argv_total how many bytes (version 2; 0 in version 1 files), so a cut
 * is seen. Its environment follows in a STRU ENVP record. */
struct ktr_exec {
	struct ktr_rec h;
	uint32_t old_tid;	/* the thread that called exec (a non-leader
				 * thread's exec takes over the leader's id) */
	uint16_t path_len;
	uint16_t argv_len;
	uint32_t argc;
	uint32_t argv_total;
	char data[];
};

/* EXIT: code is the kernel's exit code (wait status: exit status << 8, or
 * the terminating signal); group_dead says the process ended. */
struct ktr_exit {
	struct ktr_rec h;
	int32_t code;
	uint8_t group_dead;
	uint8_t reserved[3];
};

/* DROP: count records of this process (or of the whole trace when pid is
 * 0) were lost because the ring buffer was full. */
struct ktr_drop {
	struct ktr_rec h;
	uint64_t count;
};

/* STRU: the bytes of a structure a syscall read (at entry) or wrote (at
 * its successful return), in the layout of the record's ABI (pers), for
 * the decoder to read as kind says; data_len bytes follow, of the total
 * bytes the structure (or array) had: data_len < total says it was cut at
 * the recorder's bound. Written after the call's CALL (inputs) or before
 * its RET (outputs). */
enum ktr_stru_kind {
	KTR_STRU_SOCKADDR = 1,	/* struct sockaddr_*, total its length */
	KTR_STRU_STAT = 2,	/* the ABI's struct stat (x86_64: 144 bytes,
				 * i386's old one: 64) */
	KTR_STRU_STATX = 3,	/* struct statx */
	KTR_STRU_FDPAIR = 4,	/* int[2]: pipe, pipe2, socketpair */
	KTR_STRU_WSTATUS = 5,	/* int: wait4's status */
	KTR_STRU_SIGINFO = 6,	/* siginfo_t (128 bytes): waitid */
	KTR_STRU_POLLFD = 7,	/* struct pollfd[], events and revents */
	KTR_STRU_SIGACTION = 8,	/* the kernel's struct sigaction (the ABI's) */
	KTR_STRU_SIGSET = 9,	/* the kernel's sigset_t (8 bytes) */
	KTR_STRU_TIMESPEC = 10,	/* the ABI's timespec (i386: 32-bit fields) */
	KTR_STRU_TIMEVAL = 11,	/* the ABI's timeval */
	KTR_STRU_ITIMERSPEC = 12,
	KTR_STRU_ITIMERVAL = 13,
	KTR_STRU_RLIMIT = 14,	/* the ABI's rlimit (i386: 32-bit fields) */
	KTR_STRU_UTSNAME = 15,	/* struct new_utsname (6 x 65 bytes) */
	KTR_STRU_EPOLL_EVENT = 16,	/* struct epoll_event[] (12 bytes each on
					 * x86, 16 on aarch64) */
	KTR_STRU_IOVEC = 17,	/* struct iovec[] (the ABI's: 16 or 8 bytes) */
	KTR_STRU_ENVP = 18,	/* exec's environment, NUL-separated */
	KTR_STRU_DIRENT64 = 19,	/* getdents64's linux_dirent64 entries */
	KTR_STRU_STAT64 = 20,	/* i386's struct stat64 (96 bytes) */
	KTR_STRU_TIMESPEC64 = 21,	/* __kernel_timespec (16 bytes) whatever
					 * the ABI: i386's *_time64 calls */
	KTR_STRU_ITIMERSPEC64 = 22,	/* __kernel_itimerspec (32 bytes) */
	KTR_STRU_RLIMIT64 = 23,	/* struct rlimit64 (16 bytes): prlimit64 */
	KTR_STRU_BYTES = 24,	/* bytes as they are: setsockopt's value (the
				 * next argument's length), getrandom's (the
				 * return value's) */
	KTR_STRU_INT = 25,	/* an int (4 bytes): what a successful
				 * ioctl's argument points to, when it is a
				 * pointer */
	KTR_STRU_NKINDS
};

#define KTR_STRU_IN 0		/* read by the call, at entry */
#define KTR_STRU_OUT 1		/* written by the call, at its return */
#define KTR_STRU_NOARG 255	/* arg: not an argument's (exec's ENVP) */

struct ktr_stru {
	struct ktr_rec h;
	uint32_t nr;		/* the syscall */
	uint16_t kind;		/* enum ktr_stru_kind */
	uint8_t arg;		/* the argument it came from (0-5), or
				 * KTR_STRU_NOARG */
	uint8_t dir;		/* KTR_STRU_IN or KTR_STRU_OUT */
	uint32_t data_len;
	uint32_t total;		/* bytes */
	char data[];
};

/* END: the last record of a recording, written by the recorder when it
 * stops (a file with -a holds one per recording). Its absence says the
 * recording was cut short (the recorder was killed, or the disk filled
 * before it could be written). Counts are of this recording: records and
 * bytes written before this one, records lost because the ring buffer
 * was full (the sum of its DROP records) and because they could not be
 * written (a full disk: lost_write). pid and tid are 0, comm the
 * recorder's. */
#define KTR_END_EXIT 1		/* every traced process exited (code: the
				 * command's wait status, or 0 with -p/-g) */
#define KTR_END_SIGNAL 2	/* SIGTERM or SIGHUP (code: the signal) */
#define KTR_END_INTERRUPT 3	/* SIGINT, Ctrl-C (code: the signal) */
#define KTR_END_WRITE_ERROR 4	/* writing failed (code: the errno); the
				 * recorder detached then, the command ran on */

struct ktr_end {
	struct ktr_rec h;
	uint64_t records;
	uint64_t bytes;
	uint64_t lost_ring;
	uint64_t lost_write;
	uint32_t how;		/* KTR_END_* */
	int32_t code;
};

/*
 * SUM: a checksum (the header's sum_algo: CRC-32C where the CPU computes it,
 * else CRC-32) of the bytes that precede it in the file, written by the
 * recorder each time it writes a buffer out. bytes counts them, back to
 * the previous SUM record (or to the start of the file: the first SUM
 * covers the header too); a recording appended with -a begins with a SUM
 * of 0 bytes, so that the bytes of an earlier recording cut short are
 * not counted in its first check. pid and tid are 0, comm "sonde". SUM
 * records are framing: the reader checks and consumes them, the records
 * and bytes of END do not count them.
 */
#define KTR_SUM_NONE 0
#define KTR_SUM_CRC32 1		/* zlib's crc32 (ISO-HDLC, as gzip's) */
#define KTR_SUM_CRC32C 2	/* CRC-32C (Castagnoli, as iSCSI's) */

struct ktr_sum {
	struct ktr_rec h;
	uint32_t algo;		/* KTR_SUM_*, the header's sum_algo */
	uint32_t crc;
	uint64_t bytes;		/* how many bytes before this record it covers */
	uint64_t reserved;
};

/* FD: one per fd of each process the recorder attached to, written by it
 * (from /proc/PID/fd and fdinfo) before the process's first record, then
 * one of fd AT_FDCWD (-100) for its working directory (/proc/PID/cwd); ts
 * the time just before it attached; pid and tid are the process's. */
struct ktr_fd {
	struct ktr_rec h;
	int32_t fd;
	uint32_t flags;		/* the file's status flags (fdinfo's flags:
				 * O_ACCMODE, O_APPEND, O_CLOEXEC...) */
	char path[];		/* what /proc/PID/fd/N links to (a path,
				 * "socket:[123]", "pipe:[45]",
				 * "anon_inode:[eventfd]"), NUL-terminated,
				 * padded with NULs */
};

/* The sizes docs/trace-format.md gives: a change here is a format change. */
#define KTR_SIZE(type, n) \
	_Static_assert(sizeof(struct type) == (n), #type " is " #n " bytes")
KTR_SIZE(ktr_file_header, 168);
KTR_SIZE(ktr_rec, 48);
KTR_SIZE(ktr_sum, 72);
KTR_SIZE(ktr_call, 104);
KTR_SIZE(ktr_ret, 64);
KTR_SIZE(ktr_nami, 48);
KTR_SIZE(ktr_gio, 72);
KTR_SIZE(ktr_retgio, 72);
KTR_SIZE(ktr_callret, 128);
KTR_SIZE(ktr_psig, 96);
KTR_SIZE(ktr_csw, 56);
KTR_SIZE(ktr_fork, 64);
KTR_SIZE(ktr_exec, 64);
KTR_SIZE(ktr_exit, 56);
KTR_SIZE(ktr_drop, 56);
KTR_SIZE(ktr_stru, 64);
KTR_SIZE(ktr_end, 88);
KTR_SIZE(ktr_fd, 56);
#undef KTR_SIZE

#endif
