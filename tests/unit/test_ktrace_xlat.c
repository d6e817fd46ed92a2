// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for ktrace's xlat tables: errno and signal names against
 * glibc's own tables, flag values against the system headers, and the
 * CALL / RET lines kdump prints. */
#include "test.h"
#include "ktrace/ktrace.h"
#include "ktrace/record.h"
#include "ktrace/xlat.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sched.h>

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
	/* Numbers without a name, and calls without a signature. */
	assert_string_equal(ret(SC_X86_64, "no_such", 0, &def), "#4294967295 0");
}

/* Every table row names a real syscall (a typo would silently decode
 * nothing), in one ABI at least; x86_64 has every one but a few. */
static void tables_name_real_syscalls(void **state)
{
	size_t n;
	const struct ktrace_sysinfo *t = ktrace_sysinfo_table(&n);
	const char *name;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		/* Newer than the UAPI headers the tables are built from
		 * (Debian 12's are Linux 6.1's): decoded once they are. */
		if (!strcmp(t[i].name, "fchmodat2"))
			continue;
		if (sc_number(SC_X86_64, t[i].name) < 0 &&
		    sc_number(SC_AARCH64, t[i].name) < 0)
			fail_msg("sysinfo row '%s' is no syscall", t[i].name);
		assert_true(sc_number(SC_X86_64, t[i].name) < KTR_NR_MAX);
	}
	for (unsigned i = 0; (name = xlat_signature_at(i)); i++) {
		const char *sig = xlat_signature(name);

		if (sc_number(SC_X86_64, name) < 0 &&
		    sc_number(SC_AARCH64, name) < 0)
			fail_msg("signature '%s' is no syscall", name);
		assert_true(strlen(sig) <= 6);
		assert_string_equal(xlat_signature(name), sig);
	}
	assert_true(n > 60);
}

static void trace_points(void **state)
{
	uint32_t p;

	(void)state;
	assert_int_equal(ktrace_parse_points("c", &p), 0);
	assert_int_equal(p, KTR_PT_SYSCALL);
	assert_int_equal(ktrace_parse_points("cnisw", &p), 0);
	assert_int_equal(p, KTR_PT_ALL & ~KTR_PT_PROC);
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
		cmocka_unit_test(trace_points),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
