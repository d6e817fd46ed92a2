// SPDX-License-Identifier: GPL-2.0-only
/* xlat — kdump's decoding tables and the printer that walks them. */
#include "xlat.h"

#include <stdio.h>
#include <string.h>

/* ---- errno ---- */

static const struct xlat_errno restart_errnos[] = {
	/* The kernel's own codes: a syscall interrupted by a signal returns
	 * them to the exit tracepoint, before the restart is decided. */
	{ 512, "ERESTARTSYS", "To be restarted if SA_RESTART is set" },
	{ 513, "ERESTARTNOINTR", "To be restarted" },
	{ 514, "ERESTARTNOHAND", "To be restarted if no handler" },
	{ 515, "ENOIOCTLCMD", "No ioctl command" },
	{ 516, "ERESTART_RESTARTBLOCK", "Interrupted by signal" },
	{ 517, "EPROBE_DEFER", "Driver requests probe retry" },
};

static const struct xlat_errno *find_errno(int nr)
{
	for (unsigned i = 0; i < xlat_nerrnos; i++)
		if (xlat_errnos[i].nr == nr)
			return &xlat_errnos[i];
	for (unsigned i = 0; i < ARRAY_SIZE(restart_errnos); i++)
		if (restart_errnos[i].nr == nr)
			return &restart_errnos[i];
	return NULL;
}

const char *xlat_errno_name(int nr)
{
	const struct xlat_errno *e = find_errno(nr);

	return e ? e->name : NULL;
}

const char *xlat_errno_msg(int nr)
{
	const struct xlat_errno *e = find_errno(nr);

	return e ? e->msg : NULL;
}

/* ---- signals: x86_64 and aarch64 share the numbers ---- */

static const char *const signames[] = {
	NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT",
	"SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2",
	"SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT",
	"SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
	"SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR",
	"SIGSYS",
};

#define SIGRTMIN_K 32
#define NSIG_K 64

const char *xlat_signal_name(enum sc_abi abi, int sig, char *buf, unsigned len)
{
	(void)abi;
	if (sig > 0 && sig < (int)ARRAY_SIZE(signames))
		return signames[sig];
	if (sig >= SIGRTMIN_K && sig <= NSIG_K) {
		if (sig == SIGRTMIN_K)
			snprintf(buf, len, "SIGRTMIN");
		else
			snprintf(buf, len, "SIGRT%d", sig - SIGRTMIN_K);
		return buf;
	}
	return NULL;
}

/* ---- flag sets ---- */

#define F(v, n) { v, n }
#define END { 0, NULL }

/* Open flags: x86_64 and asm-generic differ in four bits. Composite
 * values come first, so that O_TMPFILE is not also O_DIRECTORY. */
static const struct xlat_flag open_x86_64[] = {
	F(01, "O_WRONLY"), F(02, "O_RDWR"),
	F(020200000, "O_TMPFILE"), F(04010000, "O_SYNC"), F(0100, "O_CREAT"),
	F(0200, "O_EXCL"), F(0400, "O_NOCTTY"), F(01000, "O_TRUNC"),
	F(02000, "O_APPEND"), F(04000, "O_NONBLOCK"), F(010000, "O_DSYNC"),
	F(020000, "O_ASYNC"), F(040000, "O_DIRECT"), F(0100000, "O_LARGEFILE"),
	F(0200000, "O_DIRECTORY"), F(0400000, "O_NOFOLLOW"),
	F(01000000, "O_NOATIME"), F(02000000, "O_CLOEXEC"),
	F(010000000, "O_PATH"), END,
};

static const struct xlat_flag open_aarch64[] = {
	F(01, "O_WRONLY"), F(02, "O_RDWR"),
	F(020040000, "O_TMPFILE"), F(04010000, "O_SYNC"), F(0100, "O_CREAT"),
	F(0200, "O_EXCL"), F(0400, "O_NOCTTY"), F(01000, "O_TRUNC"),
	F(02000, "O_APPEND"), F(04000, "O_NONBLOCK"), F(010000, "O_DSYNC"),
	F(020000, "O_ASYNC"), F(040000, "O_DIRECTORY"),
	F(0100000, "O_NOFOLLOW"), F(0200000, "O_DIRECT"),
	F(0400000, "O_LARGEFILE"), F(01000000, "O_NOATIME"),
	F(02000000, "O_CLOEXEC"), F(010000000, "O_PATH"), END,
};

static const struct xlat_flag prot_x86_64[] = {
	F(1, "PROT_READ"), F(2, "PROT_WRITE"), F(4, "PROT_EXEC"),
	F(8, "PROT_SEM"), F(0x01000000, "PROT_GROWSDOWN"),
	F(0x02000000, "PROT_GROWSUP"), END,
};

static const struct xlat_flag prot_aarch64[] = {
	F(1, "PROT_READ"), F(2, "PROT_WRITE"), F(4, "PROT_EXEC"),
	F(8, "PROT_SEM"), F(0x10, "PROT_BTI"), F(0x20, "PROT_MTE"),
	F(0x01000000, "PROT_GROWSDOWN"), F(0x02000000, "PROT_GROWSUP"), END,
};

static const struct xlat_flag mmap_x86_64[] = {
	F(3, "MAP_SHARED_VALIDATE"), F(1, "MAP_SHARED"), F(2, "MAP_PRIVATE"),
	F(0x10, "MAP_FIXED"), F(0x20, "MAP_ANONYMOUS"), F(0x40, "MAP_32BIT"),
	F(0x100, "MAP_GROWSDOWN"), F(0x800, "MAP_DENYWRITE"),
	F(0x1000, "MAP_EXECUTABLE"), F(0x2000, "MAP_LOCKED"),
	F(0x4000, "MAP_NORESERVE"), F(0x8000, "MAP_POPULATE"),
	F(0x10000, "MAP_NONBLOCK"), F(0x20000, "MAP_STACK"),
	F(0x40000, "MAP_HUGETLB"), F(0x80000, "MAP_SYNC"),
	F(0x100000, "MAP_FIXED_NOREPLACE"), F(0x4000000, "MAP_UNINITIALIZED"),
	END,
};

static const struct xlat_flag mmap_aarch64[] = {
	F(3, "MAP_SHARED_VALIDATE"), F(1, "MAP_SHARED"), F(2, "MAP_PRIVATE"),
	F(0x10, "MAP_FIXED"), F(0x20, "MAP_ANONYMOUS"),
	F(0x100, "MAP_GROWSDOWN"), F(0x800, "MAP_DENYWRITE"),
	F(0x1000, "MAP_EXECUTABLE"), F(0x2000, "MAP_LOCKED"),
	F(0x4000, "MAP_NORESERVE"), F(0x8000, "MAP_POPULATE"),
	F(0x10000, "MAP_NONBLOCK"), F(0x20000, "MAP_STACK"),
	F(0x40000, "MAP_HUGETLB"), F(0x80000, "MAP_SYNC"),
	F(0x100000, "MAP_FIXED_NOREPLACE"), F(0x4000000, "MAP_UNINITIALIZED"),
	END,
};

/* The low byte of clone's flags is the exit signal, printed apart. */
static const struct xlat_flag clone_flags[] = {
	F(0x100, "CLONE_VM"), F(0x200, "CLONE_FS"), F(0x400, "CLONE_FILES"),
	F(0x800, "CLONE_SIGHAND"), F(0x1000, "CLONE_PIDFD"),
	F(0x2000, "CLONE_PTRACE"), F(0x4000, "CLONE_VFORK"),
	F(0x8000, "CLONE_PARENT"), F(0x10000, "CLONE_THREAD"),
	F(0x20000, "CLONE_NEWNS"), F(0x40000, "CLONE_SYSVSEM"),
	F(0x80000, "CLONE_SETTLS"), F(0x100000, "CLONE_PARENT_SETTID"),
	F(0x200000, "CLONE_CHILD_CLEARTID"), F(0x400000, "CLONE_DETACHED"),
	F(0x800000, "CLONE_UNTRACED"), F(0x1000000, "CLONE_CHILD_SETTID"),
	F(0x2000000, "CLONE_NEWCGROUP"), F(0x4000000, "CLONE_NEWUTS"),
	F(0x8000000, "CLONE_NEWIPC"), F(0x10000000, "CLONE_NEWUSER"),
	F(0x20000000, "CLONE_NEWPID"), F(0x40000000, "CLONE_NEWNET"),
	F(0x80000000ull, "CLONE_IO"), END,
};

static const struct xlat_flag at_flags[] = {
	F(0x100, "AT_SYMLINK_NOFOLLOW"), F(0x200, "AT_REMOVEDIR"),
	F(0x400, "AT_SYMLINK_FOLLOW"), F(0x800, "AT_NO_AUTOMOUNT"),
	F(0x1000, "AT_EMPTY_PATH"), F(0x2000, "AT_STATX_FORCE_SYNC"),
	F(0x4000, "AT_STATX_DONT_SYNC"), F(0x8000, "AT_RECURSIVE"), END,
};

static const struct xlat_flag access_flags[] = {
	F(4, "R_OK"), F(2, "W_OK"), F(1, "X_OK"), END,
};

static const struct xlat_flag *set_table(enum sc_abi abi, enum xlat_set set)
{
	bool arm = abi == SC_AARCH64;

	switch (set) {
	case XLAT_OPEN: return arm ? open_aarch64 : open_x86_64;
	case XLAT_PROT: return arm ? prot_aarch64 : prot_x86_64;
	case XLAT_MMAP: return arm ? mmap_aarch64 : mmap_x86_64;
	case XLAT_CLONE: return clone_flags;
	case XLAT_AT: return at_flags;
	case XLAT_ACCESS: return access_flags;
	default: return NULL;
	}
}

void xlat_flags(struct sbuf *sb, enum sc_abi abi, enum xlat_set set, uint64_t v)
{
	const struct xlat_flag *t = set_table(abi, set);
	bool first = true;

	if (set == XLAT_OPEN && !(v & 3)) {
		sbuf_puts(sb, "O_RDONLY");
		first = false;
	} else if (v == 0) {
		sbuf_puts(sb, set == XLAT_PROT ? "PROT_NONE" :
			      set == XLAT_ACCESS ? "F_OK" : "0");
		return;
	}
	if (set == XLAT_CLONE && (v & 0xff)) {
		char b[32];
		const char *s = xlat_signal_name(abi, v & 0xff, b, sizeof(b));

		if (s)
			sbuf_puts(sb, s);
		else
			sbuf_printf(sb, "%#llx", (unsigned long long)(v & 0xff));
		v &= ~0xffull;
		first = false;
	}
	for (; t && t->name; t++) {
		if ((v & t->val) != t->val)
			continue;
		/* Access modes are values in the low two bits. */
		if (set == XLAT_OPEN && t->val < 4 && (v & 3) != t->val)
			continue;
		sbuf_printf(sb, "%s%s", first ? "" : "|", t->name);
		first = false;
		v &= ~t->val;
	}
	if (v)
		sbuf_printf(sb, "%s%#llx", first ? "" : "|", (unsigned long long)v);
}

/* ---- syscall signatures ----
 * One character per argument:
 *   x  a number: hex, or decimal with -d     p  a pointer, always hex
 *   D  a directory fd (AT_FDCWD)             o  open flags
 *   C  a mode, present only when the open flags before it create a file
 *   m  a mode, in octal                      P  mmap/mprotect protection
 *   M  mmap flags      c  clone flags        s  a signal
 *   a  AT_* flags      A  access mode        h  sigprocmask's how
 *   w  lseek's whence  F  fcntl's command */
static const struct {
	const char *name, *sig;
} sigs[] = {
	{ "read", "xpx" }, { "write", "xpx" }, { "open", "poC" },
	{ "close", "x" }, { "stat", "pp" }, { "fstat", "xp" },
	{ "lstat", "pp" }, { "poll", "pxx" }, { "lseek", "xxw" },
	{ "mmap", "pxPMxx" }, { "mprotect", "pxP" }, { "munmap", "px" },
	{ "brk", "p" }, { "rt_sigaction", "sppx" }, { "rt_sigprocmask", "hppx" },
	{ "rt_sigreturn", "" }, { "ioctl", "xxp" }, { "pread64", "xpxx" },
	{ "pwrite64", "xpxx" }, { "readv", "xpx" }, { "writev", "xpx" },
	{ "access", "pA" }, { "pipe", "p" }, { "select", "xpppp" },
	{ "sched_yield", "" }, { "mremap", "pxxxp" }, { "msync", "pxx" },
	{ "madvise", "pxx" }, { "dup", "x" }, { "dup2", "xx" }, { "dup3", "xxx" },
	{ "pause", "" }, { "nanosleep", "pp" }, { "getitimer", "xp" },
	{ "alarm", "x" }, { "setitimer", "xpp" }, { "getpid", "" },
	{ "sendfile", "xxpx" }, { "socket", "xxx" }, { "connect", "xpx" },
	{ "accept", "xpp" }, { "accept4", "xppx" }, { "sendto", "xpxxpx" },
	{ "recvfrom", "xpxxpp" }, { "sendmsg", "xpx" }, { "recvmsg", "xpx" },
	{ "shutdown", "xx" }, { "bind", "xpx" }, { "listen", "xx" },
	{ "getsockname", "xpp" }, { "getpeername", "xpp" },
	{ "socketpair", "xxxp" }, { "setsockopt", "xxxpx" },
	{ "getsockopt", "xxxpp" }, { "clone", "cpppp" }, { "clone3", "px" },
	{ "fork", "" }, { "vfork", "" }, { "execve", "ppp" },
	{ "execveat", "Dpppa" }, { "exit", "x" }, { "exit_group", "x" },
	{ "wait4", "xppp" }, { "waitid", "xxpxp" }, { "kill", "xs" },
	{ "tkill", "xs" }, { "tgkill", "xxs" }, { "uname", "p" },
	{ "fcntl", "xFx" }, { "flock", "xx" }, { "fsync", "x" },
	{ "fdatasync", "x" }, { "truncate", "px" }, { "ftruncate", "xx" },
	{ "getdents", "xpx" }, { "getdents64", "xpx" }, { "getcwd", "px" },
	{ "chdir", "p" }, { "fchdir", "x" }, { "rename", "pp" },
	{ "mkdir", "pm" }, { "rmdir", "p" }, { "creat", "pm" },
	{ "link", "pp" }, { "unlink", "p" }, { "symlink", "pp" },
	{ "readlink", "ppx" }, { "chmod", "pm" }, { "fchmod", "xm" },
	{ "chown", "pxx" }, { "fchown", "xxx" }, { "lchown", "pxx" },
	{ "umask", "m" }, { "gettimeofday", "pp" }, { "getrlimit", "xp" },
	{ "setrlimit", "xp" }, { "prlimit64", "xxpp" }, { "getrusage", "xp" },
	{ "sysinfo", "p" }, { "times", "p" }, { "getuid", "" }, { "getgid", "" },
	{ "geteuid", "" }, { "getegid", "" }, { "setuid", "x" },
	{ "setgid", "x" }, { "setpgid", "xx" }, { "getppid", "" },
	{ "getpgrp", "" }, { "getpgid", "x" }, { "setsid", "" },
	{ "getsid", "x" }, { "setresuid", "xxx" }, { "setresgid", "xxx" },
	{ "getresuid", "ppp" }, { "getresgid", "ppp" },
	{ "sigaltstack", "pp" }, { "statfs", "pp" }, { "fstatfs", "xp" },
	{ "prctl", "xxxxx" }, { "arch_prctl", "xp" }, { "gettid", "" },
	{ "futex", "pxxppx" }, { "sched_getaffinity", "xxp" },
	{ "sched_setaffinity", "xxp" }, { "set_tid_address", "p" },
	{ "clock_gettime", "xp" }, { "clock_getres", "xp" },
	{ "clock_nanosleep", "xxpp" }, { "openat", "DpoC" },
	{ "openat2", "Dppx" }, { "mkdirat", "Dpm" }, { "mknodat", "Dpmx" },
	{ "newfstatat", "Dppa" }, { "unlinkat", "Dpa" },
	{ "renameat", "DpDp" }, { "renameat2", "DpDpx" },
	{ "linkat", "DpDpa" }, { "symlinkat", "pDp" },
	{ "readlinkat", "Dppx" }, { "fchmodat", "Dpm" },
	{ "fchownat", "Dpxxa" }, { "faccessat", "DpA" },
	{ "faccessat2", "DpAa" }, { "utimensat", "Dppa" },
	{ "statx", "Dpaxp" }, { "pselect6", "xppppp" }, { "ppoll", "pxppx" },
	{ "set_robust_list", "px" }, { "get_robust_list", "xpp" },
	{ "epoll_create1", "x" }, { "epoll_ctl", "xxxp" },
	{ "epoll_wait", "xpxx" }, { "epoll_pwait", "xpxxpx" },
	{ "eventfd2", "xx" }, { "pipe2", "px" }, { "getrandom", "pxx" },
	{ "memfd_create", "px" }, { "close_range", "xxx" },
	{ "rseq", "pxxx" }, { "rt_sigtimedwait", "pppx" },
	{ "rt_sigqueueinfo", "xsp" }, { "rt_sigsuspend", "px" },
	{ "inotify_init1", "x" }, { "inotify_add_watch", "xpx" },
	{ "fadvise64", "xxxx" }, { "sync", "" }, { "syncfs", "x" },
	{ "mlock", "px" }, { "munlock", "px" }, { "pidfd_open", "xx" },
	{ "capget", "pp" }, { "capset", "pp" }, { "chroot", "p" },
	{ "mount", "pppxp" }, { "umount2", "px" }, { "sethostname", "px" },
	{ "timer_create", "xpp" }, { "timer_settime", "xxpp" },
	{ "timerfd_create", "xx" }, { "timerfd_settime", "xxpp" },
	{ "sched_getparam", "xp" }, { "sched_setscheduler", "xxp" },
	{ "sched_getscheduler", "x" }, { "membarrier", "xxx" },
	{ "copy_file_range", "xpxpxx" }, { "splice", "xpxpxx" },
	{ "preadv", "xpxxx" }, { "pwritev", "xpxxx" },
	{ "preadv2", "xpxxxx" }, { "pwritev2", "xpxxxx" },
	{ "fallocate", "xxxx" }, { "io_uring_setup", "xp" },
	{ "io_uring_enter", "xxxxpx" },
	{ "getxattr", "pppx" }, { "lgetxattr", "pppx" },
	{ "listxattr", "ppx" }, { "llistxattr", "ppx" },
	{ "setxattr", "pppxx" }, { "lsetxattr", "pppxx" },
	{ "fgetxattr", "xppx" }, { "flistxattr", "xpx" },
};

const char *xlat_signature(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		if (!strcmp(sigs[i].name, name))
			return sigs[i].sig;
	return NULL;
}

const char *xlat_signature_at(unsigned i)
{
	return i < ARRAY_SIZE(sigs) ? sigs[i].name : NULL;
}

const char *xlat_sysname(enum sc_abi abi, uint32_t nr, char *buf, unsigned len)
{
	const char *n = sc_name(abi, nr);

	if (n)
		return n;
	snprintf(buf, len, "#%u", nr);
	return buf;
}

static void put_num(struct sbuf *sb, uint64_t v, const struct xlat_opts *o)
{
	if (o->decimal)
		sbuf_printf(sb, "%lld", (long long)v);
	else
		sbuf_printf(sb, "%#llx", (unsigned long long)v);
}

static void put_flags(struct sbuf *sb, enum sc_abi abi, enum xlat_set set,
		      uint64_t v, const struct xlat_opts *o)
{
	put_num(sb, v, o);
	if (o->raw)
		return;
	sbuf_putc(sb, '<');
	xlat_flags(sb, abi, set, v);
	sbuf_putc(sb, '>');
}

static const char *const sigprocmask_how[] = {
	"SIG_BLOCK", "SIG_UNBLOCK", "SIG_SETMASK",
};
static const char *const whence[] = {
	"SEEK_SET", "SEEK_CUR", "SEEK_END", "SEEK_DATA", "SEEK_HOLE",
};
static const char *const fcntl_cmds[] = {
	"F_DUPFD", "F_GETFD", "F_SETFD", "F_GETFL", "F_SETFL", "F_GETLK",
	"F_SETLK", "F_SETLKW", "F_SETOWN", "F_GETOWN", "F_SETSIG", "F_GETSIG",
};

static void put_name(struct sbuf *sb, const char *const *names, size_t n,
		     uint64_t v, const struct xlat_opts *o)
{
	if (!o->raw && v < n)
		sbuf_puts(sb, names[v]);
	else
		put_num(sb, v, o);
}

void xlat_call(struct sbuf *sb, enum sc_abi abi, uint32_t nr,
	       const uint64_t args[6], const struct xlat_opts *o)
{
	char nb[32];
	const char *name = xlat_sysname(abi, nr, nb, sizeof(nb));
	const char *sig = sc_name(abi, nr) ? xlat_signature(name) : NULL;
	uint64_t open_flags = 0;

	sbuf_puts(sb, name);
	sbuf_putc(sb, '(');
	if (!sig)
		sig = "xxxxxx";
	for (int i = 0; sig[i] && i < 6; i++) {
		uint64_t v = args[i];
		char b[32];
		const char *s;

		if (sig[i] == 'o')
			open_flags = v;
		if (sig[i] == 'C' && !(open_flags & (0100 | 020000000)))
			break;
		if (i)
			sbuf_putc(sb, ',');
		switch (o->raw ? 'x' : sig[i]) {
		case 'p':
			sbuf_printf(sb, "%#llx", (unsigned long long)v);
			break;
		case 'D':
			if ((int)v == -100)
				sbuf_puts(sb, "AT_FDCWD");
			else
				put_num(sb, (int)v, o);
			break;
		case 'o':
			put_flags(sb, abi, XLAT_OPEN, v, o);
			break;
		case 'C':
		case 'm':
			sbuf_printf(sb, "%#llo", (unsigned long long)v);
			break;
		case 'P':
			put_flags(sb, abi, XLAT_PROT, v, o);
			break;
		case 'M':
			put_flags(sb, abi, XLAT_MMAP, v, o);
			break;
		case 'c':
			put_flags(sb, abi, XLAT_CLONE, v, o);
			break;
		case 'a':
			put_flags(sb, abi, XLAT_AT, v, o);
			break;
		case 'A':
			put_flags(sb, abi, XLAT_ACCESS, v, o);
			break;
		case 's':
			s = xlat_signal_name(abi, (int)v, b, sizeof(b));
			if (s)
				sbuf_puts(sb, s);
			else
				put_num(sb, v, o);
			break;
		case 'h':
			put_name(sb, sigprocmask_how, ARRAY_SIZE(sigprocmask_how),
				 v, o);
			break;
		case 'w':
			put_name(sb, whence, ARRAY_SIZE(whence), v, o);
			break;
		case 'F':
			if (!o->raw && v == 1030)
				sbuf_puts(sb, "F_DUPFD_CLOEXEC");
			else
				put_name(sb, fcntl_cmds, ARRAY_SIZE(fcntl_cmds),
					 v, o);
			break;
		default:
			put_num(sb, v, o);
		}
	}
	sbuf_putc(sb, ')');
}

void xlat_ret(struct sbuf *sb, enum sc_abi abi, uint32_t nr, int64_t ret,
	      const struct xlat_opts *o)
{
	char nb[32];

	sbuf_printf(sb, "%s ", xlat_sysname(abi, nr, nb, sizeof(nb)));
	if (ret < 0 && ret >= -4095) {
		const char *name = xlat_errno_name(-ret);
		const char *msg = xlat_errno_msg(-ret);

		sbuf_printf(sb, "-1 errno %lld", (long long)-ret);
		if (!o->raw && name)
			sbuf_printf(sb, " %s", msg && *msg ? msg : name);
		return;
	}
	sbuf_printf(sb, "%lld", (long long)ret);
	if (!o->decimal && (ret >= 0x10000 || ret < 0))
		sbuf_printf(sb, "/%#llx", (unsigned long long)ret);
}
