// SPDX-License-Identifier: GPL-2.0-only
/* systab — the one syscall table (systab.h): argument kinds, path names
 * and data per syscall, and the lookups and recorder hints built from it. */
#include "systab.h"
#include "record.h"

#include "../lib/util.h"

#include <stdlib.h>
#include <string.h>

static const struct ktrace_syscall table[] = {
	{ "read", { KA_FD, KA_BUF, KA_NUM }, KTR_IO_READ },
	{ "write", { KA_FD, KA_BUF, KA_NUM }, KTR_IO_WRITE },
	{ "open", { KA_PATH, KA_SET(XLAT_OPEN), KA_CREATE_MODE } },
	{ "close", { KA_FD } },
	{ "stat", { KA_PATH, KA_OUT(STAT) } },
	{ "fstat", { KA_FD, KA_OUT(STAT) } },
	{ "lstat", { KA_PATH, KA_OUT(STAT) } },
	{ "poll", { KA_OUT(POLLFD), KA_NUM, KA_NUM } },
	{ "lseek", { KA_FD, KA_NUM, KA_SET(XLAT_SEEK) } },
	{ "mmap", { KA_PTR, KA_NUM, KA_SET(XLAT_PROT), KA_SET(XLAT_MMAP),
		    KA_FD, KA_NUM } },
	{ "mprotect", { KA_PTR, KA_NUM, KA_SET(XLAT_PROT) } },
	{ "munmap", { KA_PTR, KA_NUM } },
	{ "brk", { KA_PTR } },
	{ "rt_sigaction", { KA_SIGNAL, KA_IN(SIGACTION), KA_OUT(SIGACTION),
			    KA_NUM } },
	{ "rt_sigprocmask", { KA_SET(XLAT_SIGHOW), KA_IN(SIGSET),
			      KA_OUT(SIGSET), KA_NUM } },
	{ "rt_sigreturn" },
	/* What the argument points to, when it is an int (FIONREAD's count,
	 * FIONBIO's flag): the request says; the first 4 bytes, read at a
	 * successful return. */
	{ "ioctl", { KA_FD, KA_SET(XLAT_IOCTL), KA_OUT(INT) } },
	{ "pread64", { KA_FD, KA_BUF, KA_NUM, KA_NUM }, KTR_IO_READ },
	{ "pwrite64", { KA_FD, KA_BUF, KA_NUM, KA_NUM }, KTR_IO_WRITE },
	{ "readv", { KA_FD, KA_IOV, KA_NUM }, KTR_IO_READV },
	{ "writev", { KA_FD, KA_IOV, KA_NUM }, KTR_IO_WRITEV },
	{ "access", { KA_PATH, KA_SET(XLAT_ACCESS) } },
	{ "pipe", { KA_OUT(FDPAIR) } },
	{ "select", { KA_NUM, KA_PTR, KA_PTR, KA_PTR, KA_PTR } },
	{ "sched_yield" },
	{ "mremap", { KA_PTR, KA_NUM, KA_NUM, KA_NUM, KA_PTR } },
	{ "msync", { KA_PTR, KA_NUM, KA_NUM } },
	{ "madvise", { KA_PTR, KA_NUM, KA_SET(XLAT_MADV) } },
	{ "dup", { KA_FD } },
	{ "dup2", { KA_FD, KA_FD } },
	{ "dup3", { KA_FD, KA_FD, KA_SET(XLAT_CLOEXEC) } },
	{ "pause" },
	{ "nanosleep", { KA_IN(TIMESPEC), KA_PTR } },
	{ "getitimer", { KA_NUM, KA_OUT(ITIMERVAL) } },
	{ "alarm", { KA_NUM } },
	{ "setitimer", { KA_NUM, KA_IN(ITIMERVAL), KA_OUT(ITIMERVAL) } },
	{ "getpid" },
	{ "sendfile", { KA_FD, KA_FD, KA_PTR, KA_NUM } },
	{ "socket", { KA_SET(XLAT_AF), KA_SOCKTYPE, KA_SOCKPROTO } },
	{ "connect", { KA_FD, KA_IN(SOCKADDR), KA_NUM } },
	{ "accept", { KA_FD, KA_OUT(SOCKADDR), KA_PTR } },
	{ "accept4", { KA_FD, KA_OUT(SOCKADDR), KA_PTR,
			KA_SET(XLAT_SOCKFLAGS) } },
	{ "sendto", { KA_FD, KA_BUF, KA_NUM, KA_SET(XLAT_MSG), KA_IN(SOCKADDR),
		      KA_NUM },
	  KTR_IO_WRITE },
	{ "recvfrom", { KA_FD, KA_BUF, KA_NUM, KA_SET(XLAT_MSG),
			KA_OUT(SOCKADDR), KA_PTR },
	  KTR_IO_READ },
	{ "sendmsg", { KA_FD, KA_MSGHDR, KA_SET(XLAT_MSG) }, KTR_IO_SENDMSG },
	{ "recvmsg", { KA_FD, KA_MSGHDR, KA_SET(XLAT_MSG) }, KTR_IO_RECVMSG },
	{ "shutdown", { KA_FD, KA_SET(XLAT_SHUT) } },
	{ "bind", { KA_FD, KA_IN(SOCKADDR), KA_NUM } },
	{ "listen", { KA_FD, KA_NUM } },
	{ "getsockname", { KA_FD, KA_OUT(SOCKADDR), KA_PTR } },
	{ "getpeername", { KA_FD, KA_OUT(SOCKADDR), KA_PTR } },
	{ "socketpair", { KA_SET(XLAT_AF), KA_SOCKTYPE, KA_SOCKPROTO,
			  KA_OUT(FDPAIR) } },
	{ "setsockopt", { KA_FD, KA_SET(XLAT_SOL), KA_SOCKOPT, KA_IN(BYTES),
			  KA_NUM } },
	{ "getsockopt", { KA_FD, KA_SET(XLAT_SOL), KA_SOCKOPT, KA_PTR, KA_PTR } },
	{ "clone", { KA_CLONE_FLAGS, KA_PTR, KA_PTR, KA_PTR, KA_PTR } },
	{ "clone3", { KA_PTR, KA_NUM } },
	{ "fork" },
	{ "vfork" },
	{ "execve", { KA_PATH, KA_PTR, KA_PTR } },
	{ "execveat", { KA_DIRFD, KA_PATH, KA_PTR, KA_PTR, KA_SET(XLAT_AT) } },
	{ "exit", { KA_NUM } },
	{ "exit_group", { KA_NUM } },
	{ "wait4", { KA_PID, KA_OUT(WSTATUS), KA_SET(XLAT_WAIT), KA_PTR } },
	{ "waitid", { KA_NUM, KA_PID, KA_OUT(SIGINFO), KA_SET(XLAT_WAIT),
		      KA_PTR } },
	{ "kill", { KA_PID, KA_SIGNAL } },
	{ "tkill", { KA_NUM, KA_SIGNAL } },
	{ "tgkill", { KA_NUM, KA_NUM, KA_SIGNAL } },
	{ "uname", { KA_OUT(UTSNAME) } },
	{ "fcntl", { KA_FD, KA_SET(XLAT_FCNTL), KA_FCNTL_ARG } },
	{ "flock", { KA_FD, KA_SET(XLAT_FLOCK) } },
	{ "fsync", { KA_FD } },
	{ "fdatasync", { KA_FD } },
	{ "truncate", { KA_PATH, KA_NUM } },
	{ "ftruncate", { KA_FD, KA_NUM } },
	{ "getdents", { KA_FD, KA_PTR, KA_NUM } },
	{ "getdents64", { KA_FD, KA_OUT(DIRENT64), KA_NUM } },
	{ "getcwd", { KA_PTR, KA_NUM } },
	{ "chdir", { KA_PATH } },
	{ "fchdir", { KA_FD } },
	{ "rename", { KA_PATH, KA_PATH } },
	{ "mkdir", { KA_PATH, KA_MODE } },
	{ "rmdir", { KA_PATH } },
	{ "creat", { KA_PATH, KA_MODE } },
	{ "link", { KA_PATH, KA_PATH } },
	{ "unlink", { KA_PATH } },
	{ "symlink", { KA_PATH, KA_PATH } },
	{ "readlink", { KA_PATH, KA_PTR, KA_NUM } },
	{ "chmod", { KA_PATH, KA_MODE } },
	{ "fchmod", { KA_FD, KA_MODE } },
	{ "chown", { KA_PATH, KA_NUM, KA_NUM } },
	{ "fchown", { KA_FD, KA_NUM, KA_NUM } },
	{ "lchown", { KA_PATH, KA_NUM, KA_NUM } },
	{ "umask", { KA_MODE } },
	{ "gettimeofday", { KA_OUT(TIMEVAL), KA_PTR } },
	{ "getrlimit", { KA_SET(XLAT_RLIMIT), KA_OUT(RLIMIT) } },
	{ "setrlimit", { KA_SET(XLAT_RLIMIT), KA_IN(RLIMIT) } },
	{ "prlimit64", { KA_PID, KA_SET(XLAT_RLIMIT), KA_IN(RLIMIT64),
			 KA_OUT(RLIMIT64) } },
	{ "getrusage", { KA_NUM, KA_PTR } },
	{ "sysinfo", { KA_PTR } },
	{ "times", { KA_PTR } },
	{ "getuid" },
	{ "getgid" },
	{ "geteuid" },
	{ "getegid" },
	{ "setuid", { KA_NUM } },
	{ "setgid", { KA_NUM } },
	{ "setpgid", { KA_NUM, KA_NUM } },
	{ "getppid" },
	{ "getpgrp" },
	{ "getpgid", { KA_NUM } },
	{ "setsid" },
	{ "getsid", { KA_NUM } },
	{ "setresuid", { KA_NUM, KA_NUM, KA_NUM } },
	{ "setresgid", { KA_NUM, KA_NUM, KA_NUM } },
	{ "getresuid", { KA_PTR, KA_PTR, KA_PTR } },
	{ "getresgid", { KA_PTR, KA_PTR, KA_PTR } },
	{ "sigaltstack", { KA_PTR, KA_PTR } },
	{ "statfs", { KA_PATH, KA_PTR } },
	{ "fstatfs", { KA_FD, KA_PTR } },
	{ "prctl", { KA_SET(XLAT_PRCTL), KA_NUM, KA_NUM, KA_NUM, KA_NUM } },
	{ "arch_prctl", { KA_SET(XLAT_ARCHPRCTL), KA_PTR } },
	{ "gettid" },
	/* The timeout (FUTEX_WAIT...; other operations' val2 reads as
	 * nothing), then val3 (FUTEX_BITSET_MATCH_ANY). */
	{ "futex", { KA_PTR, KA_FUTEX_OP, KA_NUM, KA_IN(TIMESPEC), KA_PTR,
		     KA_SET(XLAT_FUTEXBITSET) } },
	{ "sched_getaffinity", { KA_NUM, KA_NUM, KA_PTR } },
	{ "sched_setaffinity", { KA_NUM, KA_NUM, KA_PTR } },
	{ "set_tid_address", { KA_PTR } },
	{ "clock_gettime", { KA_SET(XLAT_CLOCK), KA_OUT(TIMESPEC) } },
	{ "clock_getres", { KA_SET(XLAT_CLOCK), KA_OUT(TIMESPEC) } },
	{ "clock_nanosleep", { KA_SET(XLAT_CLOCK), KA_SET(XLAT_TIMER),
			       KA_IN(TIMESPEC), KA_PTR } },
	{ "openat", { KA_DIRFD, KA_PATH, KA_SET(XLAT_OPEN), KA_CREATE_MODE } },
	{ "openat2", { KA_DIRFD, KA_PATH, KA_PTR, KA_NUM } },
	{ "mkdirat", { KA_DIRFD, KA_PATH, KA_MODE } },
	{ "mknodat", { KA_DIRFD, KA_PATH, KA_MODE, KA_NUM } },
	{ "newfstatat", { KA_DIRFD, KA_PATH, KA_OUT(STAT), KA_SET(XLAT_AT) } },
	{ "unlinkat", { KA_DIRFD, KA_PATH, KA_SET(XLAT_AT) } },
	{ "renameat", { KA_DIRFD, KA_PATH, KA_DIRFD, KA_PATH } },
	{ "renameat2", { KA_DIRFD, KA_PATH, KA_DIRFD, KA_PATH,
			 KA_SET(XLAT_RENAME) } },
	{ "linkat", { KA_DIRFD, KA_PATH, KA_DIRFD, KA_PATH, KA_SET(XLAT_AT) } },
	{ "symlinkat", { KA_PATH, KA_DIRFD, KA_PATH } },
	{ "readlinkat", { KA_DIRFD, KA_PATH, KA_PTR, KA_NUM } },
	{ "fchmodat", { KA_DIRFD, KA_PATH, KA_MODE } },
	{ "fchownat", { KA_DIRFD, KA_PATH, KA_NUM, KA_NUM, KA_SET(XLAT_AT) } },
	{ "faccessat", { KA_DIRFD, KA_PATH, KA_SET(XLAT_ACCESS) } },
	{ "faccessat2", { KA_DIRFD, KA_PATH, KA_SET(XLAT_ACCESS),
			  KA_SET(XLAT_AT) } },
	{ "utimensat", { KA_DIRFD, KA_PATH, KA_PTR, KA_SET(XLAT_AT) } },
	{ "statx", { KA_DIRFD, KA_PATH, KA_SET(XLAT_STATXAT), KA_SET(XLAT_STATX),
		    KA_OUT(STATX) } },
	{ "pselect6", { KA_NUM, KA_PTR, KA_PTR, KA_PTR, KA_PTR, KA_PTR } },
	{ "ppoll", { KA_OUT(POLLFD), KA_NUM, KA_IN(TIMESPEC), KA_PTR,
		     KA_NUM } },
	{ "set_robust_list", { KA_PTR, KA_NUM } },
	{ "get_robust_list", { KA_NUM, KA_PTR, KA_PTR } },
	{ "epoll_create1", { KA_SET(XLAT_EPOLLFLAGS) } },
	{ "epoll_ctl", { KA_FD, KA_SET(XLAT_EPOLLCTL), KA_FD,
			 KA_IN(EPOLL_EVENT) } },
	{ "epoll_wait", { KA_FD, KA_OUT(EPOLL_EVENT), KA_NUM, KA_NUM } },
	{ "epoll_pwait", { KA_FD, KA_OUT(EPOLL_EVENT), KA_NUM, KA_NUM, KA_PTR,
			  KA_NUM } },
	{ "eventfd2", { KA_UINT, KA_SET(XLAT_EFD) } },
	{ "pipe2", { KA_OUT(FDPAIR), KA_SET(XLAT_PIPE2) } },
	{ "getrandom", { KA_OUT(BYTES), KA_UINT, KA_SET(XLAT_GRND) } },
	{ "memfd_create", { KA_PATH, KA_SET(XLAT_MFD) } },
	{ "close_range", { KA_NUM, KA_NUM, KA_NUM } },
	{ "rseq", { KA_PTR, KA_NUM, KA_NUM, KA_NUM } },
	{ "rt_sigtimedwait", { KA_PTR, KA_PTR, KA_PTR, KA_NUM } },
	{ "rt_sigqueueinfo", { KA_NUM, KA_SIGNAL, KA_PTR } },
	{ "rt_sigsuspend", { KA_PTR, KA_NUM } },
	{ "inotify_init1", { KA_SET(XLAT_INOTIFYINIT) } },
	{ "inotify_add_watch", { KA_FD, KA_PATH, KA_SET(XLAT_INOTIFY) } },
	{ "fadvise64", { KA_FD, KA_NUM, KA_NUM, KA_NUM } },
	{ "sync" },
	{ "syncfs", { KA_FD } },
	{ "mlock", { KA_PTR, KA_NUM } },
	{ "munlock", { KA_PTR, KA_NUM } },
	{ "pidfd_open", { KA_PID, KA_NUM } },
	{ "capget", { KA_PTR, KA_PTR } },
	{ "capset", { KA_PTR, KA_PTR } },
	{ "chroot", { KA_PATH } },
	{ "mount", { KA_PATH, KA_PATH, KA_PTR, KA_NUM, KA_PTR } },
	{ "umount2", { KA_PATH, KA_NUM } },
	{ "sethostname", { KA_PTR, KA_NUM } },
	{ "timer_create", { KA_SET(XLAT_CLOCK), KA_PTR, KA_PTR } },
	{ "timer_settime", { KA_NUM, KA_NUM, KA_IN(ITIMERSPEC),
			    KA_OUT(ITIMERSPEC) } },
	{ "timerfd_create", { KA_SET(XLAT_CLOCK), KA_SET(XLAT_TFD) } },
	{ "timerfd_settime", { KA_FD, KA_SET(XLAT_TFDTIMER), KA_IN(ITIMERSPEC),
			      KA_OUT(ITIMERSPEC) } },
	{ "sched_getparam", { KA_NUM, KA_PTR } },
	{ "sched_setscheduler", { KA_NUM, KA_NUM, KA_PTR } },
	{ "sched_getscheduler", { KA_NUM } },
	{ "membarrier", { KA_NUM, KA_NUM, KA_NUM } },
	{ "copy_file_range", { KA_FD, KA_PTR, KA_FD, KA_PTR, KA_NUM, KA_NUM } },
	{ "splice", { KA_FD, KA_PTR, KA_FD, KA_PTR, KA_NUM, KA_NUM } },
	{ "preadv", { KA_FD, KA_IOV, KA_NUM, KA_NUM, KA_NUM }, KTR_IO_READV },
	{ "pwritev", { KA_FD, KA_IOV, KA_NUM, KA_NUM, KA_NUM }, KTR_IO_WRITEV },
	{ "preadv2", { KA_FD, KA_IOV, KA_NUM,
		      KA_NUM, KA_NUM, KA_NUM }, KTR_IO_READV },
	{ "pwritev2", { KA_FD, KA_IOV, KA_NUM,
		       KA_NUM, KA_NUM, KA_NUM }, KTR_IO_WRITEV },
	{ "fallocate", { KA_FD, KA_NUM, KA_NUM, KA_NUM } },
	{ "io_uring_setup", { KA_NUM, KA_PTR } },
	{ "io_uring_enter", { KA_FD, KA_NUM, KA_NUM, KA_NUM, KA_PTR, KA_NUM } },
	{ "getxattr", { KA_PATH, KA_PTR, KA_PTR, KA_NUM } },
	{ "lgetxattr", { KA_PATH, KA_PTR, KA_PTR, KA_NUM } },
	{ "listxattr", { KA_PATH, KA_PTR, KA_NUM } },
	{ "llistxattr", { KA_PATH, KA_PTR, KA_NUM } },
	{ "setxattr", { KA_PATH, KA_PTR, KA_PTR, KA_NUM, KA_NUM } },
	{ "lsetxattr", { KA_PATH, KA_PTR, KA_PTR, KA_NUM, KA_NUM } },
	{ "fgetxattr", { KA_FD, KA_PTR, KA_PTR, KA_NUM } },
	{ "flistxattr", { KA_FD, KA_PTR, KA_NUM } },
	{ "fchmodat2", { KA_DIRFD, KA_PATH, KA_MODE, KA_SET(XLAT_AT) } },
	{ "signalfd", { KA_FD, KA_IN(SIGSET), KA_UINT } },
	{ "signalfd4", { KA_FD, KA_IN(SIGSET), KA_UINT, KA_SET(XLAT_SFD) } },
	{ "eventfd", { KA_UINT } },
	{ "epoll_create", { KA_INT } },
	{ "inotify_init", { KA_END } },
	{ "inotify_rm_watch", { KA_FD, KA_INT } },
	{ "sendmmsg", { KA_FD, KA_PTR, KA_UINT, KA_SET(XLAT_MSG) } },
	{ "recvmmsg", { KA_FD, KA_PTR, KA_UINT, KA_SET(XLAT_MSG), KA_PTR } },
	{ "clock_settime", { KA_SET(XLAT_CLOCK), KA_IN(TIMESPEC) } },
	{ "timerfd_gettime", { KA_FD, KA_OUT(ITIMERSPEC) } },
	{ "utime", { KA_PATH, KA_PTR } },
	{ "utimes", { KA_PATH, KA_PTR } },
	{ "futimesat", { KA_DIRFD, KA_PATH, KA_PTR } },
	{ "mknod", { KA_PATH, KA_MODE, KA_NUM } },
	{ "swapon", { KA_PATH, KA_NUM } },
	{ "swapoff", { KA_PATH } },
	{ "acct", { KA_PATH } },
	{ "pivot_root", { KA_PATH, KA_PATH } },
	{ "removexattr", { KA_PATH, KA_PTR } },
	{ "lremovexattr", { KA_PATH, KA_PTR } },
	{ "name_to_handle_at", { KA_DIRFD, KA_PATH, KA_PTR,
				KA_PTR, KA_SET(XLAT_AT) } },
	{ "fanotify_mark", { KA_FD, KA_NUM, KA_NUM, KA_DIRFD, KA_PATH } },
	{ "open_tree", { KA_DIRFD, KA_PATH, KA_NUM } },
	{ "move_mount", { KA_DIRFD, KA_PATH, KA_DIRFD, KA_PATH, KA_NUM } },
	{ "mount_setattr", { KA_DIRFD, KA_PATH, KA_NUM, KA_PTR, KA_NUM } },
	{ "uselib", { KA_PATH } },

	/* i386's own calls, and those whose arguments differ there: 64-bit
	 * values in two registers, old structure-taking forms. */
#define I386 .abis = 1u << SC_I386
	/* old_mmap(struct mmap_arg_struct *), old_select(struct
	 * sel_arg_struct *) */
	{ "mmap", { KA_PTR }, I386 },
	{ "mmap2", { KA_PTR, KA_NUM, KA_SET(XLAT_PROT), KA_SET(XLAT_MMAP),
		     KA_FD, KA_NUM }, I386 },
	{ "select", { KA_PTR }, I386 },
	{ "_newselect", { KA_INT, KA_PTR, KA_PTR, KA_PTR, KA_PTR }, I386 },
	{ "stat64", { KA_PATH, KA_OUT(STAT64) }, I386 },
	{ "lstat64", { KA_PATH, KA_OUT(STAT64) }, I386 },
	{ "fstat64", { KA_FD, KA_OUT(STAT64) }, I386 },
	{ "fstatat64", { KA_DIRFD, KA_PATH, KA_OUT(STAT64),
			 KA_SET(XLAT_AT) }, I386 },
	{ "_llseek", { KA_FD, KA_U64_HI, KA_NUM, KA_PTR, KA_SET(XLAT_SEEK) },
	  I386 },
	{ "fcntl64", { KA_FD, KA_SET(XLAT_FCNTL), KA_FCNTL_ARG }, I386 },
	{ "truncate64", { KA_PATH, KA_U64_LO, KA_NUM }, I386 },
	{ "ftruncate64", { KA_FD, KA_U64_LO, KA_NUM }, I386 },
	{ "pread64", { KA_FD, KA_BUF, KA_NUM, KA_U64_LO, KA_NUM },
	  KTR_IO_READ, I386 },
	{ "pwrite64", { KA_FD, KA_BUF, KA_NUM, KA_U64_LO, KA_NUM },
	  KTR_IO_WRITE, I386 },
	{ "statfs64", { KA_PATH, KA_NUM, KA_PTR }, I386 },
	{ "fstatfs64", { KA_FD, KA_NUM, KA_PTR }, I386 },
	{ "chown32", { KA_PATH, KA_UINT, KA_UINT }, I386 },
	{ "lchown32", { KA_PATH, KA_UINT, KA_UINT }, I386 },
	{ "fchown32", { KA_FD, KA_UINT, KA_UINT }, I386 },
	{ "socketcall", { KA_SET(XLAT_SOCKETCALL), KA_PTR }, I386 },
	{ "waitpid", { KA_INT, KA_PTR, KA_NUM }, I386 },
	{ "sigreturn", { KA_END }, I386 },
	{ "sigaction", { KA_SIGNAL, KA_PTR, KA_PTR }, I386 },
	{ "sigprocmask", { KA_SET(XLAT_SIGHOW), KA_PTR, KA_PTR }, I386 },
	{ "sendfile64", { KA_FD, KA_FD, KA_PTR, KA_NUM }, I386 },
	{ "fadvise64", { KA_FD, KA_U64_LO, KA_NUM, KA_NUM, KA_NUM }, I386 },
	{ "fadvise64_64", { KA_FD, KA_U64_LO, KA_NUM, KA_U64_LO, KA_NUM,
			    KA_NUM }, I386 },
	{ "fallocate", { KA_FD, KA_NUM, KA_U64_LO, KA_NUM, KA_U64_LO,
			 KA_NUM }, I386 },
	{ "readahead", { KA_FD, KA_U64_LO, KA_NUM, KA_NUM }, I386 },
	{ "fanotify_mark", { KA_FD, KA_NUM, KA_U64_LO, KA_NUM, KA_DIRFD,
			     KA_PATH }, I386 },
	{ "ugetrlimit", { KA_NUM, KA_OUT(RLIMIT) }, I386 },
	{ "clock_gettime64", { KA_SET(XLAT_CLOCK), KA_OUT(TIMESPEC64) }, I386 },
	{ "futex_time64", { KA_PTR, KA_FUTEX_OP, KA_NUM, KA_IN(TIMESPEC64),
			    KA_PTR, KA_SET(XLAT_FUTEXBITSET) }, I386 },
	{ "clock_getres_time64", { KA_SET(XLAT_CLOCK), KA_OUT(TIMESPEC64) },
	  I386 },
	{ "clock_nanosleep_time64", { KA_SET(XLAT_CLOCK), KA_SET(XLAT_TIMER),
				      KA_IN(TIMESPEC64),
				      KA_PTR }, I386 },
	{ "ppoll_time64", { KA_OUT(POLLFD), KA_NUM, KA_IN(TIMESPEC64), KA_PTR,
			    KA_NUM }, I386 },
	{ "timer_settime64", { KA_NUM, KA_NUM, KA_IN(ITIMERSPEC64),
			       KA_OUT(ITIMERSPEC64) }, I386 },
	{ "timerfd_settime64", { KA_FD, KA_SET(XLAT_TFDTIMER), KA_IN(ITIMERSPEC64),
				 KA_OUT(ITIMERSPEC64) }, I386 },
#undef I386
};

const struct ktrace_syscall *ktrace_syscall_table(size_t *n)
{
	*n = ARRAY_SIZE(table);
	return table;
}

const struct ktrace_syscall *ktrace_syscall_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (!table[i].abis && !strcmp(table[i].name, name))
			return &table[i];
	return NULL;
}

const struct ktrace_syscall *ktrace_syscall_abi(enum sc_abi abi,
						const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if ((table[i].abis & (1u << abi)) &&
		    !strcmp(table[i].name, name))
			return &table[i];
	return ktrace_syscall_find(name);
}

static uint32_t strus(const struct ktrace_syscall *sc);

/* Per ABI: the row of each number, found once. */
static const struct ktrace_syscall **by_nr[SC_NABIS];

/* An ABI's numbers sorted by name (then number): a row's number is found
 * by a binary search, not sc_number's walk of the whole table per row
 * (some 200,000 string compares per ABI, ~1 ms of the recorder's
 * start-up). */
struct name_nr {
	const char *name;
	long nr;
};

static int name_nr_cmp(const void *a, const void *b)
{
	const struct name_nr *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->nr > y->nr) - (x->nr < y->nr);
}

/* name's lowest number in the sorted v[0..n), as sc_number says. */
static long name_nr_find(const struct name_nr *v, size_t n, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(v[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(v[lo].name, name) ? v[lo].nr : -1;
}

const struct ktrace_syscall *ktrace_syscall_nr(enum sc_abi abi, long nr)
{
	long n = sc_limit(abi);

	if (abi >= SC_NABIS || nr < 0 || nr >= n)
		return NULL;
	if (!by_nr[abi]) {
		const struct ktrace_syscall **v = sd_calloc(n, sizeof(*v));
		struct name_nr *names = sd_calloc(n, sizeof(*names));
		size_t nn = 0;

		for (long k = 0; k < n; k++) {
			const char *name = sc_name(abi, k);

			if (name)
				names[nn++] = (struct name_nr){ name, k };
		}
		qsort(names, nn, sizeof(*names), name_nr_cmp);
		for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
			long k = name_nr_find(names, nn, table[i].name);

			if (k >= 0 && k < n && (!table[i].abis ||
						(table[i].abis & (1u << abi))))
				if (!v[k] || !v[k]->abis)
					v[k] = &table[i];
		}
		free(names);
		by_nr[abi] = v;
	}
	return by_nr[abi][nr];
}

int ktrace_syscall_nargs(const struct ktrace_syscall *sc)
{
	int n = 0;

	while (n < KTRACE_ARGS_MAX && sc->args[n] != KA_END)
		n++;
	return n;
}

uint32_t ktrace_syscall_hints(const struct ktrace_syscall *sc)
{
	uint32_t paths = 0;
	int fd = -1, buf = -1, n = ktrace_syscall_nargs(sc);

	for (int i = 0; i < n; i++) {
		switch (KA_KIND(sc->args[i])) {
		case KA_PATH:
			paths |= 1u << i;
			break;
		case KA_FD:
			if (fd < 0)
				fd = i;
			break;
		case KA_BUF: case KA_IOV: case KA_MSGHDR:
			if (buf < 0)
				buf = i;
			break;
		}
	}
	if (sc->io == KTR_IO_NONE || fd < 0 || buf < 0)
		return KTR_SI_MAKE(paths, KTR_IO_NONE, 0, 0) | strus(sc);
	return KTR_SI_MAKE(paths, sc->io, fd, buf) | strus(sc);
}

/* ---- structures ---- */

/* A structure's bytes in an ABI (0: its length comes from elsewhere):
 * [0] 64-bit (x86_64, x32's 64-bit calls, aarch64), [1] i386. */
static const uint16_t stru_size[KTR_STRU_NKINDS][2] = {
	[KTR_STRU_STAT] = { 144, 64 },
	[KTR_STRU_STATX] = { 256, 256 },
	[KTR_STRU_FDPAIR] = { 8, 8 },
	[KTR_STRU_WSTATUS] = { 4, 4 },
	[KTR_STRU_SIGINFO] = { 128, 128 },
	[KTR_STRU_POLLFD] = { 8, 8 },		/* an element */
	[KTR_STRU_SIGACTION] = { 32, 20 },
	[KTR_STRU_SIGSET] = { 8, 8 },
	[KTR_STRU_TIMESPEC] = { 16, 8 },
	[KTR_STRU_TIMEVAL] = { 16, 8 },
	[KTR_STRU_ITIMERSPEC] = { 32, 16 },
	[KTR_STRU_ITIMERVAL] = { 32, 16 },
	[KTR_STRU_RLIMIT] = { 16, 8 },
	[KTR_STRU_UTSNAME] = { 390, 390 },
	[KTR_STRU_EPOLL_EVENT] = { 12, 12 },	/* an element (packed on x86) */
	[KTR_STRU_IOVEC] = { 16, 8 },		/* an element */
	[KTR_STRU_STAT64] = { 96, 96 },
	[KTR_STRU_TIMESPEC64] = { 16, 16 },
	[KTR_STRU_ITIMERSPEC64] = { 32, 32 },
	[KTR_STRU_RLIMIT64] = { 16, 16 },
	[KTR_STRU_INT] = { 4, 4 },
};

/* Whether the row reads structures at entry or writes some. */
static uint32_t strus(const struct ktrace_syscall *sc)
{
	uint32_t v = 0;

	for (int i = 0; i < KTRACE_ARGS_MAX; i++) {
		switch (KA_KIND(sc->args[i])) {
		case KA_STRU_IN: case KA_IOV:
			v |= KTR_SI_STRU_IN;
			break;
		case KA_STRU_OUT:
			v |= KTR_SI_STRU_OUT;
			break;
		case KA_MSGHDR:
			v |= sc->io == KTR_IO_RECVMSG ? KTR_SI_STRU_OUT
						      : KTR_SI_STRU_IN;
			break;
		}
	}
	return v;
}

int ktrace_syscall_captures(const struct ktrace_syscall *sc, enum sc_abi abi,
			    struct ktr_captures *caps)
{
	int n = 0, c32 = abi == SC_I386;

	memset(caps, 0, sizeof(*caps));
	for (int i = 0; i < KTRACE_ARGS_MAX && n < KTR_CAPS; i++) {
		unsigned kind = KA_KIND(sc->args[i]), t = KA_STRU_OF(sc->args[i]);
		struct ktr_capture *c = &caps->c[n];

		c->arg = i;
		c->max = KTR_STRU_MAX;
		if (kind == KA_IOV) {
			t = KTR_STRU_IOVEC;
			kind = KA_STRU_IN;
		} else if (kind == KA_MSGHDR) {
			c->kind = KTR_STRU_SOCKADDR;
			c->dir = sc->io == KTR_IO_RECVMSG ? KTR_STRU_OUT
							  : KTR_STRU_IN;
			c->rule = KTR_CAP_MSGNAME;
			c->size = c32 ? 28 : 56;	/* the msghdr's */
			c->max = 128;
			n++;
			continue;
		} else if (kind != KA_STRU_IN && kind != KA_STRU_OUT) {
			continue;
		}
		if (t == 0 || t >= KTR_STRU_NKINDS)
			continue;
		c->kind = t;
		c->dir = kind == KA_STRU_IN ? KTR_STRU_IN : KTR_STRU_OUT;
		c->size = stru_size[t][c32];
		if (abi == SC_AARCH64 && t == KTR_STRU_STAT)
			c->size = 128;
		if (abi == SC_AARCH64 && t == KTR_STRU_EPOLL_EVENT)
			c->size = 16;
		switch (t) {
		case KTR_STRU_SOCKADDR:
			c->rule = c->dir == KTR_STRU_IN ? KTR_CAP_LEN_ARG
							: KTR_CAP_LEN_PTR;
			c->max = 128;
			break;
		case KTR_STRU_POLLFD:
		case KTR_STRU_IOVEC:
			c->rule = KTR_CAP_COUNT_ARG;
			c->max = 64 * c->size;
			break;
		case KTR_STRU_EPOLL_EVENT:
			c->rule = c->dir == KTR_STRU_IN ? KTR_CAP_FIXED
							: KTR_CAP_COUNT_RET;
			c->max = 64 * c->size;
			break;
		case KTR_STRU_DIRENT64:
			c->rule = KTR_CAP_BYTES_RET;
			break;
		case KTR_STRU_BYTES:
			c->rule = c->dir == KTR_STRU_IN ? KTR_CAP_LEN_ARG
							: KTR_CAP_BYTES_RET;
			break;
		default:
			c->rule = KTR_CAP_FIXED;
		}
		n++;
	}
	return n;
}
