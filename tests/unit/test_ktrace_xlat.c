// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for ktrace's xlat tables: errno and signal names against
 * glibc's own tables, flag values against the system headers, and the
 * CALL / RET lines kdump prints. */
#include "test.h"
#include "ktrace/ktrace.h"
#include "ktrace/record.h"
#include "ktrace/systab.h"
#include "ktrace/reader.h"
#include "ktrace/xlat.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sched.h>
#include <linux/futex.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static char *flags(enum sc_abi abi, enum xlat_set set, uint64_t v)
{
	static char out[256];
	struct sbuf sb;

	sbuf_init(&sb);
	xlat_flags(&sb, abi, set, v);
	snprintf(out, sizeof(out), "%s", sb.buf ? sb.buf : "");
	sbuf_free(&sb);
	return out;
}

static void errno_names_match_glibc(void **state)
{
	int n = 0;

	(void)state;
	for (int e = 1; e < 134; e++) {
		const char *g = strerrorname_np(e);
		const char *mine = xlat_errno_name(e);

		if (!g)
			continue;
		/* glibc names aliases by their first spelling: EAGAIN, not
		 * EWOULDBLOCK; EDEADLK, not EDEADLOCK. */
		assert_non_null(mine);
		assert_string_equal(mine, g);
		assert_non_null(xlat_errno_msg(e));
		n++;
	}
	assert_true(n > 120);
	assert_string_equal(xlat_errno_msg(ENOENT), "No such file or directory");
	assert_string_equal(xlat_errno_name(512), "ERESTARTSYS");
	assert_null(xlat_errno_name(4000));
}

static void signal_names_match_glibc(void **state)
{
	char b[32], want[32];

	(void)state;
	for (int s = 1; s < 32; s++) {
		const char *abbrev = sigabbrev_np(s);

		if (!abbrev)
			continue;
		/* glibc calls 29 SIGPOLL; strace and kdump say SIGIO. */
		snprintf(want, sizeof(want), "SIG%s", s == SIGIO ? "IO" : abbrev);
		assert_string_equal(xlat_signal_name(SC_X86_64, s, b, sizeof(b)),
				    want);
		assert_string_equal(xlat_signal_name(SC_AARCH64, s, b, sizeof(b)),
				    want);
	}
	assert_string_equal(xlat_signal_name(SC_X86_64, 35, b, sizeof(b)),
			    "SIGRT3");
	assert_null(xlat_signal_name(SC_X86_64, 0, b, sizeof(b)));
	assert_null(xlat_signal_name(SC_X86_64, 65, b, sizeof(b)));
}

static void open_flags_native(void **state)
{
	enum sc_abi abi = sc_native();

	(void)state;
	assert_string_equal(flags(abi, XLAT_OPEN, O_RDONLY | O_CLOEXEC),
			    "O_RDONLY|O_CLOEXEC");
	assert_string_equal(flags(abi, XLAT_OPEN, O_WRONLY | O_CREAT | O_TRUNC),
			    "O_WRONLY|O_CREAT|O_TRUNC");
	assert_string_equal(flags(abi, XLAT_OPEN, O_RDONLY | O_DIRECTORY |
				  O_NOFOLLOW), "O_RDONLY|O_DIRECTORY|O_NOFOLLOW");
	assert_string_equal(flags(abi, XLAT_OPEN, O_RDWR | O_TMPFILE),
			    "O_RDWR|O_TMPFILE");
	assert_string_equal(flags(abi, XLAT_OPEN, O_WRONLY | O_SYNC),
			    "O_WRONLY|O_SYNC");
	assert_string_equal(flags(abi, XLAT_OPEN, O_RDONLY | O_DSYNC),
			    "O_RDONLY|O_DSYNC");
	assert_string_equal(flags(abi, XLAT_OPEN, O_RDONLY | 0x40000000),
			    "O_RDONLY|0x40000000");
}

static void open_flags_aarch64(void **state)
{
	(void)state;
	/* arm64's own bits: O_DIRECTORY 040000, O_NOFOLLOW 0100000. */
	assert_string_equal(flags(SC_AARCH64, XLAT_OPEN, 040000 | 0100000),
			    "O_RDONLY|O_DIRECTORY|O_NOFOLLOW");
	assert_string_equal(flags(SC_X86_64, XLAT_OPEN, 040000),
			    "O_RDONLY|O_DIRECT");
}

static void mmap_and_clone(void **state)
{
	enum sc_abi abi = sc_native();

	(void)state;
	assert_string_equal(flags(abi, XLAT_PROT, PROT_READ | PROT_WRITE),
			    "PROT_READ|PROT_WRITE");
	assert_string_equal(flags(abi, XLAT_PROT, PROT_NONE), "PROT_NONE");
	assert_string_equal(flags(abi, XLAT_MMAP, MAP_PRIVATE | MAP_ANONYMOUS |
				  MAP_FIXED), "MAP_PRIVATE|MAP_FIXED|MAP_ANONYMOUS");
	assert_string_equal(flags(abi, XLAT_MMAP, MAP_SHARED_VALIDATE),
			    "MAP_SHARED_VALIDATE");
	assert_string_equal(flags(abi, XLAT_CLONE, CLONE_VM | CLONE_VFORK |
				  SIGCHLD), "SIGCHLD|CLONE_VM|CLONE_VFORK");
	assert_string_equal(flags(abi, XLAT_AT, AT_SYMLINK_NOFOLLOW),
			    "AT_SYMLINK_NOFOLLOW");
	assert_string_equal(flags(abi, XLAT_ACCESS, R_OK | X_OK), "R_OK|X_OK");
	assert_string_equal(flags(abi, XLAT_ACCESS, F_OK), "F_OK");
}

static char *call(enum sc_abi abi, const char *name, uint64_t a0, uint64_t a1,
		  uint64_t a2, uint64_t a3, const struct xlat_opts *o)
{
	static char out[512];
	uint64_t args[6] = { a0, a1, a2, a3, 0, 0 };
	struct sbuf sb;

	sbuf_init(&sb);
	xlat_call(&sb, abi, sc_number(abi, name), args, o);
	snprintf(out, sizeof(out), "%s", sb.buf);
	sbuf_free(&sb);
	return out;
}

static char *ret(enum sc_abi abi, const char *name, int64_t r,
		 const struct xlat_opts *o)
{
	static char out[512];
	struct sbuf sb;

	sbuf_init(&sb);
	xlat_ret(&sb, abi, sc_number(abi, name), r, o);
	snprintf(out, sizeof(out), "%s", sb.buf);
	sbuf_free(&sb);
	return out;
}

static void call_lines(void **state)
{
	struct xlat_opts def = { 0 }, dec = { .decimal = true },
			 raw = { .raw = true };

	(void)state;
	/* The lines of the example. */
	assert_string_equal(call(SC_X86_64, "openat", (uint64_t)-100,
				 0x7ffd5c2e1a10, 0x80000, 0, &def),
			    "openat(AT_FDCWD,0x7ffd5c2e1a10,0x80000<O_RDONLY|O_CLOEXEC>)");
	assert_string_equal(call(SC_X86_64, "read", 3, 0x7f1c2a9e3000, 0x20000,
				 0, &def), "read(0x3,0x7f1c2a9e3000,0x20000)");
	assert_string_equal(ret(SC_X86_64, "openat", 3, &def), "openat 3");
	assert_string_equal(ret(SC_X86_64, "read", 6, &def), "read 6");
	assert_string_equal(ret(SC_X86_64, "openat", -2, &def),
			    "openat -1 errno 2 No such file or directory");
	/* The mode shows only when the flags create a file. */
	assert_string_equal(call(SC_X86_64, "openat", 3, 0x1000, 0101, 0644,
				 &def),
			    "openat(0x3,0x1000,0x41<O_WRONLY|O_CREAT>,0644)");
	/* aarch64 numbers, same names. */
	assert_string_equal(call(SC_AARCH64, "openat", (uint64_t)-100, 0x10,
				 040000, 0, &def),
			    "openat(AT_FDCWD,0x10,0x4000<O_RDONLY|O_DIRECTORY>)");
	/* -d and -n. */
	assert_string_equal(call(SC_X86_64, "read", 3, 0x10, 100, 0, &dec),
			    "read(3,0x10,100)");
	assert_string_equal(call(SC_X86_64, "openat", (uint64_t)-100, 0x10,
				 0x80000, 0, &raw),
			    "openat(0xffffffffffffff9c,0x10,0x80000)");
	assert_string_equal(ret(SC_X86_64, "openat", -2, &raw),
			    "openat -1 errno 2");
	assert_string_equal(call(SC_X86_64, "kill", 42, SIGUSR1, 0, 0, &def),
			    "kill(0x2a,SIGUSR1)");
	assert_string_equal(ret(SC_X86_64, "mmap", 0x7f0000000000, &def),
			    "mmap 139637976727552/0x7f0000000000");
	/* The kernel's restart codes are restarts, not errors. */
	assert_string_equal(ret(SC_X86_64, "read", -512, &def),
			    "read RESTART ERESTARTSYS (To be restarted if "
			    "SA_RESTART is set)");
	assert_string_equal(ret(SC_X86_64, "nanosleep", -516, &def),
			    "nanosleep RESTART ERESTART_RESTARTBLOCK "
			    "(Interrupted by signal)");
	assert_string_equal(ret(SC_X86_64, "read", -512, &raw),
			    "read -1 errno 512");
	/* Numbers without a name, and calls without a signature. */
	assert_string_equal(ret(SC_X86_64, "no_such", 0, &def), "#4294967295 0");
}

/* Every table row names a real syscall (a typo would silently decode
 * nothing), in one ABI at least; x86_64 has every one but a few. */
static void tables_name_real_syscalls(void **state)
{
	size_t n;
	const struct ktrace_syscall *t = ktrace_syscall_table(&n);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		/* Newer than the UAPI headers the tables are built from
		 * (Debian 12's are Linux 6.1's): decoded once they are. */
		if (!strcmp(t[i].name, "fchmodat2"))
			continue;
		bool known = false;

		for (int abi = 0; abi < SC_NABIS; abi++)
			if (!t[i].abis || (t[i].abis & (1u << abi)))
				known |= sc_number(abi, t[i].name) >= 0;
		if (!known)
			fail_msg("sysinfo row '%s' is no syscall", t[i].name);
		assert_true(sc_number(SC_X86_64, t[i].name) < KTR_NR_MAX);
	}
	/* Argument kinds are known ones, the last followed by KA_END only. */
	for (size_t i = 0; i < n; i++) {
		int k = ktrace_syscall_nargs(&t[i]);

		assert_true(k <= 6);
		for (int a = 0; a < KTRACE_ARGS_MAX; a++) {
			assert_true(KA_KIND(t[i].args[a]) < KA_NKINDS);
			if (KA_KIND(t[i].args[a]) == KA_SETVAL)
				assert_true(KA_SET_OF(t[i].args[a]) < XLAT_NSETS);
			if (a >= k)
				assert_int_equal(t[i].args[a], KA_END);
		}
	}
	assert_true(n > 60);
}

/* The generated sets name what the C library's headers define. */
static void generated_sets_match_headers(void **state)
{
	enum sc_abi abi = sc_native();
	char b[32];

	(void)state;
	assert_string_equal(xlat_value(abi, XLAT_FCNTL, F_DUPFD_CLOEXEC),
			    "F_DUPFD_CLOEXEC");
	assert_string_equal(xlat_value(abi, XLAT_FCNTL, F_SETPIPE_SZ),
			    "F_SETPIPE_SZ");
	assert_string_equal(xlat_value(abi, XLAT_FCNTL, F_GETFL), "F_GETFL");
	assert_string_equal(xlat_value(abi, XLAT_DIRFD, (uint64_t)AT_FDCWD),
			    "AT_FDCWD");
	assert_null(xlat_value(abi, XLAT_DIRFD, 3));
	assert_string_equal(xlat_value(abi, XLAT_SEEK, SEEK_HOLE), "SEEK_HOLE");
	assert_string_equal(xlat_value(abi, XLAT_SIGHOW, SIG_SETMASK),
			    "SIG_SETMASK");
	assert_string_equal(xlat_signal_name(abi, SIGCHLD, b, sizeof(b)),
			    "SIGCHLD");
	assert_string_equal(flags(abi, XLAT_OPEN, O_WRONLY | O_CREAT |
				  (O_TMPFILE & ~O_DIRECTORY)),
			    "O_WRONLY|O_CREAT|__O_TMPFILE");
	assert_string_equal(flags(abi, XLAT_OPEN, O_RDONLY | O_NONBLOCK |
				  O_ASYNC | O_PATH),
			    "O_RDONLY|O_NONBLOCK|O_ASYNC|O_PATH");
	assert_string_equal(flags(abi, XLAT_MMAP, MAP_SHARED | MAP_POPULATE |
				  MAP_FIXED_NOREPLACE),
			    "MAP_SHARED|MAP_POPULATE|MAP_FIXED_NOREPLACE");
	assert_string_equal(flags(abi, XLAT_MMAP, MAP_ANONYMOUS),
			    "MAP_ANONYMOUS");
	assert_string_equal(flags(abi, XLAT_CLONE, CLONE_THREAD | CLONE_SETTLS |
				  0x100000000ull /* CLONE_CLEAR_SIGHAND: not in glibc 2.36 */),
			    "CLONE_THREAD|CLONE_SETTLS|CLONE_CLEAR_SIGHAND");
	assert_string_equal(flags(abi, XLAT_AT, AT_EMPTY_PATH | AT_RECURSIVE |
				  0x10000000),
			    "AT_EMPTY_PATH|AT_RECURSIVE|0x10000000");
	assert_string_equal(flags(abi, XLAT_AT, 0), "0");
	assert_string_equal(flags(abi, XLAT_PROT, PROT_EXEC | 0x100),
			    "PROT_EXEC|0x100");
	/* arm64's own values, from its additions to the generic headers. */
	assert_string_equal(flags(SC_AARCH64, XLAT_PROT, 0x10 | PROT_READ),
			    "PROT_READ|PROT_BTI");
	assert_string_equal(flags(SC_AARCH64, XLAT_OPEN, 0200000 | 0400000),
			    "O_RDONLY|O_DIRECT|O_LARGEFILE");
	assert_string_equal(flags(SC_X86_64, XLAT_MMAP, 0x40), "MAP_32BIT");
	assert_string_equal(flags(SC_AARCH64, XLAT_MMAP, 0x40), "0x40");
}

/* Named constants in whole lines. */
static void call_lines_constants(void **state)
{
	struct xlat_opts def = { 0 };

	(void)state;
	assert_string_equal(call(SC_X86_64, "fcntl", 3, F_DUPFD_CLOEXEC, 10, 0,
				 &def), "fcntl(0x3,F_DUPFD_CLOEXEC,0xa)");
	assert_string_equal(call(SC_X86_64, "fcntl", 3, 0x7777, 0, 0, &def),
			    "fcntl(0x3,0x7777,0)");
	assert_string_equal(call(SC_X86_64, "openat", (uint32_t)AT_FDCWD, 0x10,
				 020000101, 0600, &def),
			    "openat(AT_FDCWD,0x10,0x400041<O_WRONLY|O_CREAT|"
			    "__O_TMPFILE>,0600)");
	assert_string_equal(call(SC_X86_64, "lseek", 3, 0, SEEK_END, 0, &def),
			    "lseek(0x3,0,SEEK_END)");
	assert_string_equal(call(SC_X86_64, "rt_sigprocmask", SIG_UNBLOCK, 0x10,
				 0, 8, &def),
			    "rt_sigprocmask(SIG_UNBLOCK,0x10,0,0x8)");
	assert_string_equal(call(SC_AARCH64, "unlinkat", (uint64_t)AT_FDCWD,
				 0x10, AT_REMOVEDIR, 0, &def),
			    "unlinkat(AT_FDCWD,0x10,0x200<AT_REMOVEDIR>)");
}

/* strace's spelling (--strace): flags in strace's table order, the
 * arguments strace picks per operation, sign-extended ints named by their
 * low half, prctl's named return. */
static void strace_spelling(void **state)
{
	struct xlat_opts st = { .strace = true };
	uint64_t a[6] = { 0x10, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME,
			  1, 0, 0, (uint64_t)(int64_t)(int)FUTEX_BITSET_MATCH_ANY };
	uint64_t pr[3] = { 3 /* PR_GET_DUMPABLE */, 0, 0 };
	struct sbuf sb;

	(void)state;
	sbuf_init(&sb);
	xlat_call(&sb, SC_X86_64, sc_number(SC_X86_64, "futex"), a, &st);
	assert_string_equal(sb.buf, "futex(0x10, FUTEX_WAIT_BITSET_PRIVATE|"
			    "FUTEX_CLOCK_REALTIME, 1, NULL, "
			    "FUTEX_BITSET_MATCH_ANY)");
	sbuf_reset(&sb);
	a[1] = FUTEX_WAKE_PRIVATE;
	xlat_call(&sb, SC_X86_64, sc_number(SC_X86_64, "futex"), a, &st);
	assert_string_equal(sb.buf, "futex(0x10, FUTEX_WAKE_PRIVATE, 1)");
	sbuf_free(&sb);
	assert_string_equal(call(SC_X86_64, "eventfd2", 0,
				 EFD_CLOEXEC | EFD_NONBLOCK, 0, 0, &st),
			    "eventfd2(0, EFD_CLOEXEC|EFD_NONBLOCK)");
	assert_string_equal(call(SC_X86_64, "statx", (uint64_t)AT_FDCWD, 0,
				 AT_SYMLINK_NOFOLLOW, 0xfff, &st),
			    "statx(AT_FDCWD, NULL, AT_STATX_SYNC_AS_STAT|"
			    "AT_SYMLINK_NOFOLLOW, STATX_ALL, NULL)");
	assert_string_equal(call(SC_X86_64, "fcntl", 3, F_GETFL, 0, 0, &st),
			    "fcntl(3, F_GETFL)");
	sbuf_init(&sb);
	xlat_ret_args(&sb, SC_X86_64, sc_number(SC_X86_64, "prctl"), 1, pr,
		      &(struct xlat_opts){ 0 });
	assert_string_equal(sb.buf, "prctl 1<SUID_DUMP_USER>");
	sbuf_free(&sb);
}

/* kdump's decoders (issue 17): arguments whose meaning depends on another
 * (socket's protocol on its domain, an option on its level, fcntl's
 * argument and result on its command), ioctl numbers whose sizes differ
 * per ABI, fds and pids signed, empty masks 0. Values from the system's
 * headers, as the program making the call would pass them. */
static void kdump_decoders(void **state)
{
	struct xlat_opts def = { 0 };
	uint64_t fargs[3] = { 3, F_GETFL, 0 };
	struct sbuf sb;

	(void)state;
	assert_string_equal(call(SC_X86_64, "socket", AF_INET,
				 SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP, 0,
				 &def),
			    "socket(AF_INET,SOCK_STREAM|SOCK_CLOEXEC,IPPROTO_TCP)");
	assert_string_equal(call(SC_X86_64, "socket", AF_NETLINK, SOCK_RAW,
				 NETLINK_ROUTE, 0, &def),
			    "socket(AF_NETLINK,SOCK_RAW,NETLINK_ROUTE)");
	assert_string_equal(call(SC_X86_64, "setsockopt", 3, SOL_SOCKET,
				 SO_REUSEADDR, 0x10, &def),
			    "setsockopt(0x3,SOL_SOCKET,SO_REUSEADDR,0x10,0)");
	assert_string_equal(call(SC_X86_64, "getsockopt", 3, IPPROTO_TCP,
				 TCP_NODELAY, 0x10, &def),
			    "getsockopt(0x3,SOL_TCP,TCP_NODELAY,0x10,0)");
	assert_string_equal(call(SC_X86_64, "futex", 0x10,
				 FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME,
				 1, 0, &def),
			    "futex(0x10,FUTEX_WAIT_BITSET_PRIVATE|"
			    "FUTEX_CLOCK_REALTIME,0x1,0,0,0)");
	assert_string_equal(call(SC_X86_64, "fcntl", 3, F_SETFD, FD_CLOEXEC, 0,
				 &def), "fcntl(0x3,F_SETFD,0x1<FD_CLOEXEC>)");
	assert_string_equal(call(SC_X86_64, "fcntl", 3, F_SETFL, O_NONBLOCK, 0,
				 &def),
			    "fcntl(0x3,F_SETFL,0x800<O_RDONLY|O_NONBLOCK>)");
	sbuf_init(&sb);
	xlat_ret_args(&sb, SC_X86_64, sc_number(SC_X86_64, "fcntl"), 0x8002,
		      fargs, &def);
	assert_string_equal(sb.buf, "fcntl 0x8002<O_RDWR|O_LARGEFILE>");
	sbuf_free(&sb);
	assert_string_equal(call(SC_X86_64, "ioctl", 1, TCGETS, 0x10, 0, &def),
			    "ioctl(0x1,TCGETS,0x10)");
	/* FS_IOC_GETFLAGS is _IOR('f', 1, long): 8 bytes, or i386's 4. */
	assert_string_equal(call(SC_X86_64, "ioctl", 3, 0x80086601, 0, 0, &def),
			    "ioctl(0x3,FS_IOC_GETFLAGS,0)");
	assert_string_equal(call(SC_I386, "ioctl", 3, 0x80046601, 0, 0, &def),
			    "ioctl(0x3,FS_IOC_GETFLAGS,0)");
	assert_string_equal(call(SC_X86_64, "clock_gettime", CLOCK_BOOTTIME,
				 0x10, 0, 0, &def),
			    "clock_gettime(CLOCK_BOOTTIME,0x10)");
	assert_string_equal(call(SC_X86_64, "epoll_ctl", 5, EPOLL_CTL_MOD, 6,
				 0x10, &def),
			    "epoll_ctl(0x5,EPOLL_CTL_MOD,0x6,0x10)");
	assert_string_equal(call(SC_X86_64, "pipe2", 0x10,
				 O_CLOEXEC | O_NONBLOCK, 0, 0, &def),
			    "pipe2(0x10,0x80800<O_NONBLOCK|O_CLOEXEC>)");
	assert_string_equal(call(SC_X86_64, "prlimit64", 0, RLIMIT_NOFILE, 0,
				 0x10, &def),
			    "prlimit64(0,RLIMIT_NOFILE,0,0x10)");
	assert_string_equal(call(SC_X86_64, "kill", (uint64_t)-1, SIGTERM, 0, 0,
				 &def), "kill(-1,SIGTERM)");
	assert_string_equal(call(SC_X86_64, "mmap", 0, 0x1000, PROT_READ,
				 MAP_PRIVATE | MAP_ANONYMOUS, &def),
			    "mmap(0,0x1000,0x1<PROT_READ>,0x22<MAP_PRIVATE|"
			    "MAP_ANONYMOUS>,0,0)");
	assert_string_equal(call(SC_X86_64, "newfstatat", (uint64_t)AT_FDCWD,
				 0x10, 0x20, 0, &def),
			    "newfstatat(AT_FDCWD,0x10,0x20,0)");
	assert_string_equal(call(SC_X86_64, "dup3", 3, 4, 0, 0, &def),
			    "dup3(0x3,0x4,0)");
}

/* i386's own rows: its numbers, 64-bit values in two registers printed
 * as one, its fcntl commands; x32 decodes with x86_64's rows. */
static void i386_lines(void **state)
{
	struct xlat_opts def = { 0 }, dec = { .decimal = true };
	const struct ktrace_syscall *sc;

	(void)state;
	uint64_t a5[6] = { 3, 0x1000, 0x10, 0x5, 0x1, 0 };
	struct sbuf sb;

	sbuf_init(&sb);
	xlat_call(&sb, SC_I386, sc_number(SC_I386, "pread64"), a5, &def);
	assert_string_equal(sb.buf, "pread64(0x3,0x1000,0x10,0x100000005)");
	sbuf_free(&sb);
	assert_string_equal(call(SC_X86_64, "pread64", 3, 0x1000, 0x10, 0x5,
				 &def), "pread64(0x3,0x1000,0x10,0x5)");
	assert_string_equal(call(SC_I386, "_llseek", 3, 1, 2, 0xffd0, &dec),
			    "_llseek(3,4294967298,0xffd0,SEEK_SET)");
	assert_string_equal(call(SC_I386, "fcntl64", 3, 12, 0, 0, &def),
			    "fcntl64(0x3,F_GETLK64,0)");
	assert_string_equal(call(SC_X86_64, "fcntl", 3, 12, 0, 0, &def),
			    "fcntl(0x3,0xc,0)");
	assert_string_equal(call(SC_I386, "socketcall", 1, 0xffd0, 0, 0, &def),
			    "socketcall(SYS_SOCKET,0xffd0)");
	assert_string_equal(call(SC_I386, "openat", 0xffffff9c, 0x10, 0, 0,
				 &def), "openat(AT_FDCWD,0x10,0<O_RDONLY>)");
	assert_string_equal(call(SC_X32, "readv", 3, 0x10, 2, 0, &def),
			    "readv(0x3,0x10,0x2)");
	/* The data hints follow the ABI's row. */
	sc = ktrace_syscall_nr(SC_I386, sc_number(SC_I386, "pread64"));
	assert_int_equal(ktrace_syscall_hints(sc),
			 KTR_SI_MAKE(0, KTR_IO_READ, 0, 1));
	sc = ktrace_syscall_nr(SC_I386, sc_number(SC_I386, "fanotify_mark"));
	assert_int_equal(KTR_SI_PATHMASK(ktrace_syscall_hints(sc)), 1 << 5);
	sc = ktrace_syscall_nr(SC_X86_64, sc_number(SC_X86_64, "fanotify_mark"));
	assert_int_equal(KTR_SI_PATHMASK(ktrace_syscall_hints(sc)), 1 << 4);
	assert_null(ktrace_syscall_nr(SC_I386, sc_number(SC_I386, "brk"))
		    ->args[1]);
	/* Records' ABIs: a pers names the machine's compat ABIs. */
	assert_int_equal(ktr_pers_abi(SC_X86_64, KTR_PERS_NATIVE), SC_X86_64);
	assert_int_equal(ktr_pers_abi(SC_X86_64, KTR_PERS_COMPAT), SC_I386);
	assert_int_equal(ktr_pers_abi(SC_X86_64, KTR_PERS_X32), SC_X32);
	assert_int_equal(ktr_pers_abi(SC_AARCH64, KTR_PERS_COMPAT), -1);
}

/* The recorder's hints come from the table's argument kinds: the same
 * words the hand-written hint table had, with the structure bits. */
static void hints_from_the_table(void **state)
{
	static const struct {
		const char *name;
		uint32_t info;
	} want[] = {
		{ "read", KTR_SI_MAKE(0, KTR_IO_READ, 0, 1) },
		{ "pwrite64", KTR_SI_MAKE(0, KTR_IO_WRITE, 0, 1) },
		{ "writev", KTR_SI_MAKE(0, KTR_IO_WRITEV, 0, 1) |
			    KTR_SI_STRU_IN },
		{ "recvmsg", KTR_SI_MAKE(0, KTR_IO_RECVMSG, 0, 1) |
			     KTR_SI_STRU_OUT },
		{ "sendto", KTR_SI_MAKE(0, KTR_IO_WRITE, 0, 1) | KTR_SI_STRU_IN },
		{ "openat", KTR_SI_MAKE(1 << 1, 0, 0, 0) },
		{ "renameat2", KTR_SI_MAKE(1 << 1 | 1 << 3, 0, 0, 0) },
		{ "symlinkat", KTR_SI_MAKE(1 << 0 | 1 << 2, 0, 0, 0) },
		{ "mount", KTR_SI_MAKE(1 << 0 | 1 << 1, 0, 0, 0) },
		{ "fanotify_mark", KTR_SI_MAKE(1 << 4, 0, 0, 0) },
		{ "getxattr", KTR_SI_MAKE(1 << 0, 0, 0, 0) },
		{ "execve", KTR_SI_MAKE(1 << 0, 0, 0, 0) },
		{ "close", 0 }, { "mmap", 0 }, { "getpid", 0 },
	};
	size_t n, io = 0;
	const struct ktrace_syscall *t = ktrace_syscall_table(&n);

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const struct ktrace_syscall *sc = ktrace_syscall_find(want[i].name);

		assert_non_null(sc);
		assert_int_equal(ktrace_syscall_hints(sc), want[i].info);
	}
	assert_int_equal(KTR_SI_IO(ktrace_syscall_hints(
		ktrace_syscall_find("readv"))), KTR_IO_READV);
	assert_int_equal(KTR_SI_BUF(ktrace_syscall_hints(
		ktrace_syscall_find("sendmsg"))), 1);
	/* Every row that moves data says where: an fd and a buffer. */
	for (size_t i = 0; i < n; i++) {
		if (t[i].io == KTR_IO_NONE)
			continue;
		io += !t[i].abis;
		if (!KTR_SI_IO(ktrace_syscall_hints(&t[i])))
			fail_msg("'%s' moves data but has no fd or buffer",
				 t[i].name);
	}
	assert_int_equal(io, 14);
	/* The index by number agrees with the names. */
	assert_ptr_equal(ktrace_syscall_nr(SC_X86_64, 257),
			 ktrace_syscall_find("openat"));
	assert_ptr_equal(ktrace_syscall_nr(SC_AARCH64, 56),
			 ktrace_syscall_find("openat"));
	assert_null(ktrace_syscall_nr(SC_X86_64, 100000));
	assert_null(ktrace_syscall_nr(SC_X86_64, -1));
	/* Every ABI, every row: its number (sc_number's, the lowest of its
	 * name) finds it or its ABI's own row of that name; a number finds
	 * only a row of its name. */
	for (int abi = 0; abi < SC_NABIS; abi++) {
		for (size_t i = 0; i < n; i++) {
			long k = sc_number(abi, t[i].name);
			const struct ktrace_syscall *r;

			if (k < 0 || (t[i].abis && !(t[i].abis & (1u << abi))))
				continue;
			r = ktrace_syscall_nr(abi, k);
			assert_non_null(r);
			assert_string_equal(r->name, t[i].name);
			if (!t[i].abis)
				assert_ptr_equal(r, ktrace_syscall_abi(abi,
								       t[i].name));
		}
		for (long k = 0; k < sc_limit(abi); k++) {
			const struct ktrace_syscall *r = ktrace_syscall_nr(abi, k);

			if (r)
				assert_int_equal(sc_number(abi, r->name), k);
		}
	}
}

/* How each ABI's structures are captured: kind, direction, the rule for
 * their length and its bound, the ABI's sizes. */
static void captures(void **state)
{
	struct ktr_captures c;
	const struct ktr_capture *k = c.c;

	(void)state;
	assert_int_equal(ktrace_syscall_captures(ktrace_syscall_find("connect"),
						 SC_X86_64, &c), 1);
	assert_int_equal(k->arg, 1);
	assert_int_equal(k->kind, KTR_STRU_SOCKADDR);
	assert_int_equal(k->dir, KTR_STRU_IN);
	assert_int_equal(k->rule, KTR_CAP_LEN_ARG);
	assert_int_equal(k->max, 128);
	assert_int_equal(ktrace_syscall_captures(ktrace_syscall_find("accept4"),
						 SC_X86_64, &c), 1);
	assert_int_equal(k->dir, KTR_STRU_OUT);
	assert_int_equal(k->rule, KTR_CAP_LEN_PTR);
	/* rt_sigaction: the new action in, the old one out; i386's is the
	 * 20-byte compat struct. */
	assert_int_equal(ktrace_syscall_captures(
		ktrace_syscall_find("rt_sigaction"), SC_X86_64, &c), 2);
	assert_int_equal(k[0].dir, KTR_STRU_IN);
	assert_int_equal(k[0].size, 32);
	assert_int_equal(k[1].dir, KTR_STRU_OUT);
	assert_int_equal(k[1].arg, 2);
	ktrace_syscall_captures(ktrace_syscall_find("rt_sigaction"), SC_I386,
				&c);
	assert_int_equal(k[0].size, 20);
	ktrace_syscall_captures(ktrace_syscall_find("newfstatat"), SC_X86_64,
				&c);
	assert_int_equal(k->kind, KTR_STRU_STAT);
	assert_int_equal(k->rule, KTR_CAP_FIXED);
	assert_int_equal(k->size, 144);
	ktrace_syscall_captures(ktrace_syscall_find("fstat"), SC_AARCH64, &c);
	assert_int_equal(k->size, 128);
	ktrace_syscall_captures(ktrace_syscall_abi(SC_I386, "fstat64"),
				SC_I386, &c);
	assert_int_equal(k->kind, KTR_STRU_STAT64);
	assert_int_equal(k->size, 96);
	ktrace_syscall_captures(ktrace_syscall_find("epoll_wait"), SC_X86_64,
				&c);
	assert_int_equal(k->rule, KTR_CAP_COUNT_RET);
	assert_int_equal(k->size, 12);
	ktrace_syscall_captures(ktrace_syscall_find("poll"), SC_X86_64, &c);
	assert_int_equal(k->rule, KTR_CAP_COUNT_ARG);
	assert_int_equal(k->max, 64 * 8);
	ktrace_syscall_captures(ktrace_syscall_find("getdents64"), SC_X86_64,
				&c);
	assert_int_equal(k->rule, KTR_CAP_BYTES_RET);
	/* readv's iovec array goes in, recvmsg's address out. */
	ktrace_syscall_captures(ktrace_syscall_find("readv"), SC_I386, &c);
	assert_int_equal(k->kind, KTR_STRU_IOVEC);
	assert_int_equal(k->size, 8);
	ktrace_syscall_captures(ktrace_syscall_find("recvmsg"), SC_X86_64, &c);
	assert_int_equal(k->rule, KTR_CAP_MSGNAME);
	assert_int_equal(k->dir, KTR_STRU_OUT);
	assert_int_equal(k->size, 56);
	ktrace_syscall_captures(ktrace_syscall_find("sendmsg"), SC_I386, &c);
	assert_int_equal(k->dir, KTR_STRU_IN);
	assert_int_equal(k->size, 28);
	assert_int_equal(ktrace_syscall_captures(ktrace_syscall_find("read"),
						 SC_X86_64, &c), 0);
}

static void trace_points(void **state)
{
	uint32_t p;

	(void)state;
	assert_int_equal(ktrace_parse_points("c", &p), 0);
	assert_int_equal(p, KTR_PT_SYSCALL);
	assert_int_equal(ktrace_parse_points("cnistw", &p), 0);
	assert_int_equal(p, KTR_PT_ALL & ~KTR_PT_PROC);
	assert_int_equal(ktrace_parse_points("t", &p), 0);
	assert_int_equal(p, KTR_PT_STRU);
	assert_int_equal(ktrace_parse_points("+", &p), 0);
	assert_int_equal(p, KTR_PT_DEFAULT);
	assert_int_equal(ktrace_parse_points("+w", &p), 0);
	assert_int_equal(p, KTR_PT_ALL);
	assert_int_equal(ktrace_parse_points("", &p), -EINVAL);
	assert_int_equal(ktrace_parse_points("cx", &p), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(errno_names_match_glibc),
		cmocka_unit_test(signal_names_match_glibc),
		cmocka_unit_test(open_flags_native),
		cmocka_unit_test(open_flags_aarch64),
		cmocka_unit_test(mmap_and_clone),
		cmocka_unit_test(call_lines),
		cmocka_unit_test(tables_name_real_syscalls),
		cmocka_unit_test(generated_sets_match_headers),
		cmocka_unit_test(call_lines_constants),
		cmocka_unit_test(kdump_decoders),
		cmocka_unit_test(strace_spelling),
		cmocka_unit_test(hints_from_the_table),
		cmocka_unit_test(i386_lines),
		cmocka_unit_test(captures),
		cmocka_unit_test(trace_points),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
