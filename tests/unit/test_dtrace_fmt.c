// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for D's printf formats: parsing (conversions, flags, '*',
 * length modifiers, errors) and printing with values of each size and
 * signedness, %@ for printa; symbols as stacks and usym() print them
 * (module`function+0xoff, Rust names demangled only when asked). */
#include "test.h"
#include "dtrace/fmt.h"
#include "lib/util.h"

static char *print(const char *fmt, const struct dt_fmt_val *vals, int n,
		   const struct dt_fmt_val *agg)
{
	struct dt_fmt f;
	char err[128], *buf = NULL;
	size_t len = 0;
	FILE *m;

	if (dt_fmt_parse(fmt, &f, err, sizeof(err)))
		fail_msg("%s: %s", fmt, err);
	m = open_memstream(&buf, &len);
	dt_fmt_print(m, &f, vals, n, agg, agg ? 1 : 0);
	fclose(m);
	dt_fmt_free(&f);
	return buf;
}

#define I(v, sz, sg) { false, NULL, (uint64_t)(v), sz, sg }
#define S(s) { true, s, 0, 0, false }

static void check(const char *fmt, const struct dt_fmt_val *vals, int n,
		  const char *want)
{
	char *got = print(fmt, vals, n, NULL);

	if (strcmp(got, want))
		fail_msg("%s: \"%s\", want \"%s\"", fmt, got, want);
	free(got);
}

static void test_conversions(void **state)
{
	(void)state;
	struct dt_fmt_val a[] = { I(-1, 4, true), I(-1, 4, false),
				  I(255, 1, false), I(-1, 8, true) };
	check("%d %d %d %d", a, 4, "-1 4294967295 255 -1");
	check("%u %x %X %o", (struct dt_fmt_val[]){ I(-1, 4, true),
		I(255, 8, false), I(255, 8, false), I(8, 4, true) }, 4,
	      "4294967295 ff FF 10");
	check("%i|%5d|%-5d|%05d|%+d|% d", (struct dt_fmt_val[]){
		I(1, 4, true), I(2, 4, true), I(3, 4, true), I(4, 4, true),
		I(5, 4, true), I(6, 4, true) }, 6,
	      "1|    2|3    |00004|+5| 6");
	check("%ld %lld %hd %hhu %zu", (struct dt_fmt_val[]){ I(1, 8, true),
		I(2, 8, true), I(3, 2, true), I(4, 1, false), I(5, 8, false) },
	      5, "1 2 3 4 5");
	check("%c%c|%s|%8s|%-4s|%.2s", (struct dt_fmt_val[]){ I('o', 1, true),
		I('k', 4, true), S("str"), S("right"), S("l"), S("trunc") }, 6,
	      "ok|str|   right|l   |tr");
	check("%*d|%-*d|%.*s", (struct dt_fmt_val[]){ I(4, 4, true),
		I(7, 4, true), I(3, 4, true), I(8, 4, true), I(1, 4, true),
		S("xyz") }, 6, "   7|8  |x");
	check("%p %#x %#o", (struct dt_fmt_val[]){ I(4096, 8, false),
		I(16, 4, false), I(8, 4, false) }, 3, "0x1000 0x10 010");
	check("100%% %S", (struct dt_fmt_val[]){ S("a\tb\"\x01") }, 1,
	      "100% a\\tb\\\"\\001");
	check("no conversions\n", NULL, 0, "no conversions\n");
	/* %k: a stack's frames (as the consumer names them, indented by
	 * 14) after a newline; %-Nk indents by N, %Nk right-aligns */
	struct dt_fmt_val st[] = { S("              m`f+0x1\n"
				     "              m`main\n") };
	check("<%k>", st, 1, "<\n              m`f+0x1\n"
	      "              m`main\n>");
	check("<%-2k>", st, 1, "<\n  m`f+0x1\n  m`main\n>");
	check("<%9k>", st, 1, "<\n                m`f+0x1\n"
	      "                 m`main\n>");
	check("<%k>", (struct dt_fmt_val[]){ S("") }, 1, "<\n>");
	/* a float (4 bytes) or double (8): its bits, by its size */
	check("%e|%.1f|%g|%E|%G|%8.3f", (struct dt_fmt_val[]){
		I(0x3fc00000, 4, true), I(0x3ff8000000000000ull, 8, true),
		I(0xbfc00000, 4, true), I(0x40c3880000000000ull, 8, true),
		I(0, 4, true), I(0x3fc00000, 4, true) }, 6,
	      "1.500000e+00|1.5|-1.5|1.000000E+04|0|   1.500");
}

static void test_printa_value(void **state)
{
	struct dt_fmt_val keys[] = { S("read"), I(3, 4, true) };
	struct dt_fmt_val agg = I(12, 8, true);
	char *got;
	(void)state;

	got = print("%-6s fd %d: %@d calls\n", keys, 2, &agg);
	assert_string_equal(got, "read   fd 3: 12 calls\n");
	free(got);
	got = print("%@8u|", NULL, 0, &agg);
	assert_string_equal(got, "      12|");
	free(got);
}

static void test_parse_counts_and_errors(void **state)
{
	struct dt_fmt f;
	char err[128];
	(void)state;

	assert_int_equal(dt_fmt_parse("%d %*.*s %@d %%", &f, err,
				      sizeof(err)), 0);
	assert_int_equal(f.nargs, 4);	/* d, *, *, s; not %@ */
	assert_int_equal(f.n, 4);	/* three conversions and a tail */
	assert_int_equal(f.convs[1].width, -2);
	assert_int_equal(f.convs[1].prec, -2);
	assert_true(f.convs[2].agg);
	dt_fmt_free(&f);
	assert_int_equal(dt_fmt_parse("%y", &f, err, sizeof(err)), -1);
	assert_string_equal(err, "format conversion #1 is undefined: %y");
	assert_int_equal(dt_fmt_parse("%5", &f, err, sizeof(err)), -1);
	assert_string_equal(err, "format conversion #1 name expected before "
			    "end of format string");
	/* %T is supported now (RFC 822 time); %C is not yet */
	assert_int_equal(dt_fmt_parse("%C", &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not supported: %C"));
	/* numbered as DTrace numbers them, "%%" included */
	assert_int_equal(dt_fmt_parse("%% %d %-%", &f, err, sizeof(err)), -1);
	assert_string_equal(err, "format conversion #3 cannot be combined "
			    "with other format flags: %%");
	assert_int_equal(dt_fmt_parse("%**d", &f, err, sizeof(err)), -1);
	assert_string_equal(err, "format conversion #1 has more than one "
			    "'*' specified for the output width");
	assert_int_equal(dt_fmt_parse("%1$d", &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "positional format (%n$)"));
	assert_int_equal(dt_fmt_parse("%zd %hhu %lld", &f, err, sizeof(err)),
			 0);
	assert_string_equal(f.convs[2].name, "lld");
	assert_int_equal(f.convs[2].num, 3);
	dt_fmt_free(&f);
	assert_int_equal(dt_fmt_wants('s'), FMT_STR);
	assert_int_equal(dt_fmt_wants('x'), FMT_INT);
	assert_int_equal(dt_fmt_wants('k'), FMT_STACK);
}

static void check_sym(const char *mod, const char *fn, uint64_t off,
		      bool readable, const char *want)
{
	struct sbuf sb;

	sbuf_init(&sb);
	dt_fmt_symbol(&sb, mod, fn, off, readable);
	assert_non_null(sb.buf);
	assert_string_equal(sb.buf, want);
	sbuf_free(&sb);
}

static void test_symbols(void **state)
{
	const char *v0 = "_RNvMs3_NtCshgDM7dBCdno_11rust_binder7processNtB5_"
			 "7Process10update_ref";
	const char *legacy = "_ZN4core9panicking5panic17h0123456789abcdefE";

	(void)state;

	/* v0 and legacy (hash dropped), with and without an offset */
	check_sym("vmlinux", v0, 0x1c, true,
		  "vmlinux`<rust_binder::process::Process>::update_ref+0x1c");
	check_sym("spin", legacy, 0, true, "spin`core::panicking::panic");
	/* the merge key: the symbol as it is */
	check_sym("vmlinux", v0, 0x1c, false,
		  "vmlinux`_RNvMs3_NtCshgDM7dBCdno_11rust_binder7processNtB5_"
		  "7Process10update_ref+0x1c");
	/* the kernel's CFI prefix stays in front; an ELF version is cut */
	check_sym("vmlinux", "__cfi__ZN4core9panicking5panic17h0123456789"
		  "abcdefE", 0, true, "vmlinux`__cfi_core::panicking::panic");
	check_sym("libc.so.6", "memcpy@GLIBC_2.14", 0x10, true,
		  "libc.so.6`memcpy+0x10");
	check_sym("spin", "_ZN4core9panicking5panic17h0123456789abcdefE@V1",
		  0, true, "spin`core::panicking::panic");
	/* C and C++ names are left as they are; no module */
	check_sym(NULL, "vfs_read", 0, true, "vfs_read");
	check_sym("a.out", "_ZN8outer_ns3box4workEi", 4, true,
		  "a.out`_ZN8outer_ns3box4workEi+0x4");
	/* malformed Rust: the symbol itself */
	check_sym("spin", "_RNvC", 0, true, "spin`_RNvC");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conversions),
		cmocka_unit_test(test_printa_value),
		cmocka_unit_test(test_parse_counts_and_errors),
		cmocka_unit_test(test_symbols),
	};
	return RUN(tests);
}
