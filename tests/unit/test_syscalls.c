// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/syscalls: the generated tables against numbers every
 * reader of the ABIs knows, and against this machine's own syscall(2). */
#include "test.h"
#include "lib/syscalls.h"

#include <sys/syscall.h>

static void x86_64_numbers(void **state)
{
	(void)state;
	assert_string_equal(sc_name(SC_X86_64, 0), "read");
	assert_string_equal(sc_name(SC_X86_64, 1), "write");
	assert_string_equal(sc_name(SC_X86_64, 59), "execve");
	assert_string_equal(sc_name(SC_X86_64, 257), "openat");
	assert_string_equal(sc_name(SC_X86_64, 231), "exit_group");
	assert_int_equal(sc_number(SC_X86_64, "getppid"), 110);
	assert_int_equal(sc_number(SC_X86_64, "clone3"), 435);
	assert_int_equal(sc_number(SC_X86_64, "no_such_call"), -1);
	assert_null(sc_name(SC_X86_64, -1));
	assert_null(sc_name(SC_X86_64, 100000));
	assert_true(sc_limit(SC_X86_64) > 400);
}

static void aarch64_numbers(void **state)
{
	(void)state;
	/* asm-generic numbering, including the __NR3264 indirections. */
	assert_string_equal(sc_name(SC_AARCH64, 63), "read");
	assert_string_equal(sc_name(SC_AARCH64, 64), "write");
	assert_string_equal(sc_name(SC_AARCH64, 56), "openat");
	assert_string_equal(sc_name(SC_AARCH64, 221), "execve");
	assert_string_equal(sc_name(SC_AARCH64, 25), "fcntl");
	assert_string_equal(sc_name(SC_AARCH64, 79), "newfstatat");
	assert_string_equal(sc_name(SC_AARCH64, 62), "lseek");
	assert_int_equal(sc_number(SC_AARCH64, "renameat"), 38);
	assert_int_equal(sc_number(SC_AARCH64, "open"), -1);	/* none */
	assert_null(sc_name(SC_AARCH64, 1000));
}

static void i386_and_x32_numbers(void **state)
{
	(void)state;
	/* arch/x86/entry/syscalls/syscall_32.tbl */
	assert_string_equal(sc_name(SC_I386, 3), "read");
	assert_string_equal(sc_name(SC_I386, 45), "brk");
	assert_string_equal(sc_name(SC_I386, 102), "socketcall");
	assert_string_equal(sc_name(SC_I386, 140), "_llseek");
	assert_string_equal(sc_name(SC_I386, 192), "mmap2");
	assert_string_equal(sc_name(SC_I386, 197), "fstat64");
	assert_string_equal(sc_name(SC_I386, 252), "exit_group");
	assert_int_equal(sc_number(SC_I386, "execve"), 11);
	assert_int_equal(sc_number(SC_I386, "openat"), 295);
	/* syscall_64.tbl's x32 and common rows, without the x32 bit. */
	assert_string_equal(sc_name(SC_X32, 0), "read");
	assert_string_equal(sc_name(SC_X32, 515), "readv");
	assert_string_equal(sc_name(SC_X32, 520), "execve");
	assert_int_equal(sc_number(SC_X32, "openat"), 257);
	assert_null(sc_name(SC_X32, 19));	/* x86_64's readv */
	assert_int_equal(sc_abi_by_name("i386"), SC_I386);
	assert_int_equal(sc_abi_by_name("x32"), SC_X32);
}

static void native_matches_libc(void **state)
{
	enum sc_abi abi = sc_native();

	(void)state;
	assert_int_equal(sc_number(abi, "getpid"), SYS_getpid);
	assert_int_equal(sc_number(abi, "openat"), SYS_openat);
	assert_int_equal(sc_number(abi, "exit_group"), SYS_exit_group);
	assert_int_equal(sc_abi_by_name(sc_abi_name(abi)), abi);
	assert_int_equal(sc_abi_by_name("sparc"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(x86_64_numbers),
		cmocka_unit_test(aarch64_numbers),
		cmocka_unit_test(i386_and_x32_numbers),
		cmocka_unit_test(native_matches_libc),
	};
	return RUN(tests);
}
