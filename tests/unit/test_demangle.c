// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/demangle: Rust v0 and legacy symbols against what an
 * independent demangler makes of them — LLVM's llvm-cxxfilt for v0 (it
 * leaves crate disambiguators out, as we do) and binutils' c++filt for the
 * legacy scheme (its "::h<hash>" dropped) — both over the pairs below and,
 * at run time, over every Rust symbol of the kernel reports in
 * ../shared/corpus; C++ symbols against c++filt. Then garbage:
 * truncations, deep nesting, backref chains, tiny buffers, random bytes;
 * never a crash, always an error. */
#include "test.h"
#include "lib/demangle.h"
#include "lib/util.h"

#include <ctype.h>

#include <dirent.h>
#include <errno.h>
#include <unistd.h>

#ifndef CORPUS_DIR
#define CORPUS_DIR "../shared/corpus"
#endif

/* Expected forms as llvm-cxxfilt 14 and c++filt 2.40 print them. */
static const struct {
	const char *sym, *want;
} pairs[] = {
	/* the kernel's, from syzkaller reports */
	{ "_RNvMs3_NtCshgDM7dBCdno_11rust_binder7processNtB5_7Process10update_ref",
	  "<rust_binder::process::Process>::update_ref" },
	{ "_RNvXs1_CscPPBqWtAqum_11ashmem_rustNtB5_6AshmemNtNtCs43vyB533jt3_6kernel10miscdevice10MiscDevice4mmap",
	  "<ashmem_rust::Ashmem as kernel::miscdevice::MiscDevice>::mmap" },
	{ "_RNvCscSpY9Juk0HT_7___rustc17rust_begin_unwind",
	  "__rustc::rust_begin_unwind" },
	{ "_RNvNtNtCs9jEwPDbx20M_4core9panicking11panic_const24panic_const_sub_overflow",
	  "core::panicking::panic_const::panic_const_sub_overflow" },
	{ "_RNvMNtNtCs43vyB533jt3_6kernel5alloc9allocatorNtB2_11ReallocFunc4call",
	  "<kernel::alloc::allocator::ReallocFunc>::call" },
	{ "_RNvXCsktjF9JQNZ8U_5rnullNtB2_13NullBlkModuleNtCs43vyB533jt3_6kernel13InPlaceModule4init",
	  "<rnull::NullBlkModule as kernel::InPlaceModule>::init" },
	/* an instantiating crate after the path */
	{ "_RNvXs1b_NtCs9jEwPDbx20M_4core3fmtRNtNtNtB8_5panic10panic_info9PanicInfoNtB6_7Display3fmtCs43vyB533jt3_6kernel",
	  "<&core::panic::panic_info::PanicInfo as core::fmt::Display>::fmt" },
	/* generic user-space instances (rustls, from an LLVM IR dump) */
	{ "_RNvXNtNtCs4wP2HXfJTCR_5alloc3vec14spec_from_iterINtB4_3VecRShEINtB2_12SpecFromIterBU_INtNtNtNtCsj6eKBz9Db1c_4core4iter8adapters3map3MapINtNtNtB1u_5slice4iter4IterNtNtNtB1u_2io8io_slice7IoSliceENCNvXs6_NtNtCs7ZUl82OSlxp_6rustls4conn10connectionINtB3f_16ConnectionCommonNtNtNtB3h_6client11client_conn20ClientConnectionDataENtB3d_13PlaintextSink14write_vectored0EE9from_iterCskaDheoimX9_18simple_0rtt_client",
	  "<alloc::vec::Vec<&[u8]> as alloc::vec::spec_from_iter::SpecFromIter<&[u8], core::iter::adapters::map::Map<core::slice::iter::Iter<core::io::io_slice::IoSlice>, <rustls::conn::ConnectionCommon<rustls::client::client_conn::ClientConnectionData> as rustls::conn::connection::PlaintextSink>::write_vectored::{closure#0}>>>::from_iter" },
	{ "_RINvXs0_NtNtNtCsj6eKBz9Db1c_4core4iter8adapters3mapINtB6_3MapINtNtNtBc_5slice4iter4IterNtNtNtBc_2io8io_slice7IoSliceENCNvXs6_NtNtCs7ZUl82OSlxp_6rustls4conn10connectionINtB21_16ConnectionCommonNtNtNtB23_6client11client_conn20ClientConnectionDataENtB1Z_13PlaintextSink14write_vectored0ENtNtNtBa_6traits8iterator8Iterator4folduNCINvNvB4y_8for_each4callRShNCINvMsk_NtCs4wP2HXfJTCR_5alloc3vecINtB5N_3VecB5B_E14extend_trustedBN_E0E0ECskaDheoimX9_18simple_0rtt_client",
	  "<core::iter::adapters::map::Map<core::slice::iter::Iter<core::io::io_slice::IoSlice>, <rustls::conn::ConnectionCommon<rustls::client::client_conn::ClientConnectionData> as rustls::conn::connection::PlaintextSink>::write_vectored::{closure#0}> as core::iter::traits::iterator::Iterator>::fold::<(), core::iter::traits::iterator::Iterator::for_each::call<&[u8], <alloc::vec::Vec<&[u8]>>::extend_trusted<core::iter::adapters::map::Map<core::slice::iter::Iter<core::io::io_slice::IoSlice>, <rustls::conn::ConnectionCommon<rustls::client::client_conn::ClientConnectionData> as rustls::conn::connection::PlaintextSink>::write_vectored::{closure#0}>>::{closure#0}>::{closure#0}>" },
	{ "_RNvXs1g_NtCsj6eKBz9Db1c_4core3fmtRINtNtCs4wP2HXfJTCR_5alloc3vec3VecNtNtBB_6string6StringENtB6_5Debug3fmtCskaDheoimX9_18simple_0rtt_client",
	  "<&alloc::vec::Vec<alloc::string::String> as core::fmt::Debug>::fmt" },
	{ "_RNvXsr_NtCsj6eKBz9Db1c_4core3fmtShNtB5_5Debug3fmtCskaDheoimX9_18simple_0rtt_client",
	  "<[u8] as core::fmt::Debug>::fmt" },
	{ "_RINvNtCsj6eKBz9Db1c_4core3ptr9drop_glueINtNtCs4wP2HXfJTCR_5alloc3vec3VecRShEECskaDheoimX9_18simple_0rtt_client",
	  "core::ptr::drop_glue::<alloc::vec::Vec<&[u8]>>" },
	/* crafted: consts, tuples, arrays, fn pointers, dyn, pointers,
	 * closures, shims, punycode, Y paths */
	{ "_RINvCs1234_3foo3barKj2a_Kh0_Kb1_Kc61_Ka7_Kan7_KpEB2_",
	  "foo::bar::<42, 0, true, 'a', 7, -7, _>" },
	{ "_RINvCs1234_3foo3barKc2764_Ko123456789abcdef0123_E",
	  "foo::bar::<'\\u{2764}', 0x123456789abcdef0123>" },
	{ "_RINvCs1234_3foo3barTlmhEAjj10_SaE",
	  "foo::bar::<(i32, u32, u8), [usize; 16], [i8]>" },
	{ "_RINvCs1234_3foo3barFUKCmhEuFG_K6sysv64RL0_hEhE",
	  "foo::bar::<unsafe extern \"C\" fn(u32, u8), for<'a> extern \"sysv64\" fn(&'a u8) -> u8>" },
	{ "_RINvCs1234_3foo3barDNtNtC4core3fmt5DebugEL_DG_INtNtC4core3ops2FnTRL0_hEEp6OutputlEL_E",
	  "foo::bar::<dyn core::fmt::Debug, dyn for<'a> core::ops::Fn<(&'a u8,), Output = i32>>" },
	{ "_RINvCs1234_3foo3barPaOxRhQL_tRL_uzvE",
	  "foo::bar::<*const i8, *mut i64, &u8, &mut u16, &(), !, ...>" },
	{ "_RNCNvCs1234_3foo4main0B4_", "foo::main::{closure#0}" },
	{ "_RNCNvCs1234_3foo4mains_0B4_", "foo::main::{closure#1}" },
	{ "_RNSNvCs1234_3foo4main10reify_shimB4_",
	  "foo::main::{shim:reify_shim#0}" },
	{ "_RNvCs1234_3foou10Mnchen_3ya", "foo::München" },
	{ "_RYNtCs1234_3foo3BarNtCs1234_3foo5Trait", "<foo::Bar as foo::Trait>" },
	/* legacy */
	{ "_ZN4core9panicking5panic17h0123456789abcdefE",
	  "core::panicking::panic" },
	{ "_ZN71_$LT$rust_binder..process..Process$u20$as$u20$kernel..Foo$LT$u8$GT$$GT$3bar17h0123456789abcdefE",
	  "<rust_binder::process::Process as kernel::Foo<u8>>::bar" },
	{ "_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$17h2bce4c3b1c6d8e0fE",
	  "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>" },
};

static void known_pairs(void **state)
{
	char out[2048];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++) {
		int n = demangle_rust(pairs[i].sym, out, sizeof(out));

		if (n < 0)
			fail_msg("%s: %s", pairs[i].sym, strerror(-n));
		assert_string_equal(out, pairs[i].want);
		assert_int_equal(n, strlen(pairs[i].want));
		assert_true(demangle_is_rust(pairs[i].sym));
	}
}

/* The name shown to people: Rust demangled, the kernel's __cfi_/__pfx_
 * kept in front, anything else (or what does not fit) as it is. */
static void display(void **state)
{
	const char *v0 = "_RNvMs3_NtCshgDM7dBCdno_11rust_binder7processNtB5_7Process10update_ref";
	const char *c = "vfs_read", *cxx = "_ZN8outer_ns3box4workEi";
	char pfx[128], buf[64];

	(void)state;
	assert_string_equal(demangle_display(v0, buf, sizeof(buf)),
			    "<rust_binder::process::Process>::update_ref");
	snprintf(pfx, sizeof(pfx), "__cfi_%s", v0);
	assert_string_equal(demangle_display(pfx, buf, sizeof(buf)),
			    "__cfi_<rust_binder::process::Process>::update_ref");
	snprintf(pfx, sizeof(pfx), "__pfx_%s", v0);
	assert_string_equal(demangle_display(pfx, buf, sizeof(buf)),
			    "__pfx_<rust_binder::process::Process>::update_ref");
	assert_ptr_equal(demangle_display(c, buf, sizeof(buf)), c);
	assert_ptr_equal(demangle_display(cxx, buf, sizeof(buf)), cxx);
	assert_ptr_equal(demangle_display(v0, buf, 40), v0);
	assert_ptr_equal(demangle_display(v0, buf, 8), v0);
	assert_null(demangle_display(NULL, buf, sizeof(buf)));
}

/* A vendor suffix is kept as written, as kptrace shows C names' .isra.0. */
static void suffixes(void **state)
{
	char out[256];

	(void)state;
	assert_true(demangle_rust("_RNvCs1234_3foo3bar.llvm.123456", out,
				  sizeof(out)) > 0);
	assert_string_equal(out, "foo::bar.llvm.123456");
	assert_true(demangle_rust("_ZN6kernel5print11call_printk17h5bd4ab1c2d3e4f50E.llvm.42",
				  out, sizeof(out)) > 0);
	assert_string_equal(out, "kernel::print::call_printk.llvm.42");
}

/* What is no Rust symbol is refused: C, C++, a legacy name without its
 * hash, a bad hash, trailing junk. */
static void refuses(void **state)
{
	static const char *const no[] = {
		"", "_R", "_Z", "update_ref", "rust_helper_BUG", "_RAND_bytes",
		"_ZN3foo3barE", "_Z8fakeNameiii",
		"_ZN3foo3bar17h0123456789abcdeE",	/* 15 hex digits */
		"_ZN3foo3bar17h0123456789abcdegE",
		"_ZN3foo3bar17h0123456789abcdefEx",
		"_RNvCs1234_3foo3barX", "_RNvCs1234_3foo3ba",
		"_RB_", "_RNvB_3foo", "_RC3foo9999999999999999999999",
		"_RINvCs1234_3foo3barKeE",	/* structured const */
		"_RNvCs1234_3foou5xxx_y",	/* no punycode */
		"_ZN3foo3$LT17h0123456789abcdefE",
	};
	char out[256];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(no); i++) {
		int n = demangle_rust(no[i], out, sizeof(out));

		if (n >= 0 && strcmp(no[i], "_RNvCs1234_3foou5xxx_y"))
			fail_msg("%s: accepted as \"%s\"", no[i], out);
		if (n < 0)
			assert_string_equal(out, "");
	}
	assert_false(demangle_is_rust("update_ref"));
	assert_false(demangle_is_rust("_ZN3foo3barE"));
	assert_false(demangle_is_rust(NULL));
	assert_int_equal(demangle_rust(NULL, out, sizeof(out)), -EINVAL);
}

/* Undecodable punycode is shown raw, marked. */
static void punycode_raw(void **state)
{
	char out[256];

	(void)state;
	assert_true(demangle_rust("_RNvCs1234_3foou5xxx_y", out,
				  sizeof(out)) > 0);
	assert_string_equal(out, "foo::punycode{xxx_y}");
}

/* Every prefix of every known symbol, every buffer size: an error or a
 * result that fits, never a crash (ASan/UBSan builds check the rest). */
static void truncations_and_small_buffers(void **state)
{
	char sym[1024], out[2048];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++) {
		size_t len = strlen(pairs[i].sym);

		for (size_t n = 0; n < len; n++) {
			snprintf(sym, sizeof(sym), "%.*s", (int)n, pairs[i].sym);
			demangle_rust(sym, out, sizeof(out));
			assert_true(strlen(out) < sizeof(out));
		}
		for (size_t cap = 1; cap <= strlen(pairs[i].want); cap++) {
			char *small = malloc(cap);

			assert_int_equal(demangle_rust(pairs[i].sym, small, cap),
					 -ENOSPC);
			assert_string_equal(small, "");
			free(small);
		}
	}
}

/* Deep nesting and backrefs that multiply the output stop at the limits,
 * quickly. */
static void hostile(void **state)
{
	static char sym[200000];
	char out[4096];
	size_t o;

	(void)state;
	/* &&&&...u, far deeper than the recursion limit */
	memcpy(sym, "_RINvC3foo3bar", 14);
	o = 14;
	for (int i = 0; i < 50000; i++)
		sym[o++] = 'R';
	memcpy(sym + o, "uE", 3);
	assert_int_equal(demangle_rust(sym, out, sizeof(out)), -EINVAL);
	/* each tuple holds two backrefs to the one before: 2^n output */
	o = (size_t)snprintf(sym, sizeof(sym), "_RINvC3foo3barTuuE");
	{
		size_t prev = 12;	/* offset of the first tuple after _R */

		for (int i = 0; i < 60; i++) {
			size_t at = o - 2;
			char b62[16];
			int k = 0;
			uint64_t v = prev - 1;

			do {
				int dg = (int)(v % 62);

				b62[k++] = (char)(dg < 10 ? '0' + dg : dg < 36 ?
						  'a' + dg - 10 : 'A' + dg - 36);
				v /= 62;
			} while (v);
			sym[o++] = 'T';
			for (int r = 0; r < 2; r++) {
				sym[o++] = 'B';
				for (int j = k - 1; j >= 0; j--)
					sym[o++] = b62[j];
				sym[o++] = '_';
			}
			sym[o++] = 'E';
			prev = at;
		}
		sym[o++] = 'E';
		sym[o] = '\0';
	}
	assert_true(demangle_rust(sym, out, sizeof(out)) < 0);
	/* random bytes */
	srand(1);
	for (int i = 0; i < 20000; i++) {
		size_t n = 2 + (size_t)(rand() % 60);
		static const char al[] = "_RNCMXYIBKLGDFTARQPOSEUuvs0123456789"
					 "abcdefhijklmnopxyz$.";

		sym[0] = '_';
		sym[1] = 'R';
		for (size_t j = 2; j < n; j++)
			sym[j] = al[rand() % (int)(sizeof(al) - 1)];
		sym[n] = '\0';
		demangle_rust(sym, out, sizeof(out));
		sym[1] = 'Z';
		demangle_rust(sym, out, sizeof(out));
	}
}

/* Run a demangler over lines, one output line each. */
static bool oracle(const char *cmd, char **syms, size_t n, char **outs)
{
	char tmp[] = "/tmp/sonde-demangle-XXXXXX", line[8192];
	char full[512];
	int fd = mkstemp(tmp);
	FILE *f, *p;
	size_t i = 0;

	if (fd < 0)
		return false;
	f = fdopen(fd, "w");
	for (size_t j = 0; j < n; j++)
		fprintf(f, "%s\n", syms[j]);
	fclose(f);
	snprintf(full, sizeof(full), "%s < %s 2>/dev/null", cmd, tmp);
	p = popen(full, "r");
	while (p && i < n && fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		outs[i++] = strdup(line);
	}
	if (p)
		pclose(p);
	unlink(tmp);
	return i == n;
}

static bool have(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

/* The pairs above agree with the oracles as installed (the table must not
 * drift from them): v0 with llvm-cxxfilt, legacy with c++filt. */
static void pairs_match_oracles(void **state)
{
	char *syms[ARRAY_SIZE(pairs)], *outs[ARRAY_SIZE(pairs)] = { 0 };
	bool llvm = have("llvm-cxxfilt"), gnu = have("c++filt");

	(void)state;
	if (!llvm || !gnu)
		skip();
	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++)
		syms[i] = (char *)pairs[i].sym;
	assert_true(oracle("llvm-cxxfilt", syms, ARRAY_SIZE(pairs), outs));
	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++) {
		if (pairs[i].sym[1] == 'R' &&
		    strcmp(pairs[i].sym, "_RNvCs1234_3foo3bar.llvm.123456"))
			assert_string_equal(outs[i], pairs[i].want);
		free(outs[i]);
		outs[i] = NULL;
	}
	assert_true(oracle("c++filt", syms, ARRAY_SIZE(pairs), outs));
	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++) {
		if (pairs[i].sym[1] == 'Z') {
			char want[1024];

			/* c++filt keeps the hash: "...::h0123456789abcdef" */
			snprintf(want, sizeof(want), "%s::h%.16s",
				 pairs[i].want, strstr(pairs[i].sym, "17h") + 3);
			assert_string_equal(outs[i], want);
		}
		free(outs[i]);
	}
}

/* Every Rust symbol in the corpus's kernel reports, against llvm-cxxfilt
 * (legacy ones against c++filt minus the hash). */
static void corpus_matches_oracle(void **state)
{
	const char *env = getenv("SONDE_CORPUS");
	const char *cands[] = { env, CORPUS_DIR, "../shared/corpus",
				"/work/shared/corpus" };
	char dir[4096] = "", *syms[4096];
	size_t n = 0;
	DIR *d = NULL;
	struct dirent *e;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cands) && !d; i++)
		if (cands[i]) {
			snprintf(dir, sizeof(dir), "%s/linux-reports/syzkaller",
				 cands[i]);
			d = opendir(dir);
		}
	if (!d || !have("llvm-cxxfilt"))
		skip();
	while ((e = readdir(d)) && n < ARRAY_SIZE(syms)) {
		char path[8192];
		char *buf, *p;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		buf = slurp(path);
		for (p = buf; p && (p = strstr(p, "_R")); p += 2) {
			size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyz"
					    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					    "0123456789_");
			bool dup = false;

			if ((p > buf && (isalnum((unsigned char)p[-1]) ||
					 (p[-1] == '_' && p - 1 > buf &&
					  p[-2] != '_'))) ||
			    len < 8 || !strchr("NCMXYI", p[2]) ||
			    n >= ARRAY_SIZE(syms))
				continue;
			for (size_t i = 0; i < n && !dup; i++)
				dup = strlen(syms[i]) == len &&
				      !strncmp(syms[i], p, len);
			if (!dup)
				syms[n++] = strndup(p, len);
		}
		free(buf);
	}
	closedir(d);
	assert_true(n >= 10);	/* the Rust reports are there */
	{
		char **outs = calloc(n, sizeof(*outs)), out[4096];

		assert_true(oracle("llvm-cxxfilt", syms, n, outs));
		for (size_t i = 0; i < n; i++) {
			if (demangle_rust(syms[i], out, sizeof(out)) < 0)
				fail_msg("%s: refused", syms[i]);
			assert_string_equal(out, outs[i]);
			free(outs[i]);
			free(syms[i]);
		}
		free(outs);
	}
	printf("# %zu Rust symbols of the corpus agree with llvm-cxxfilt\n", n);
}

/* C++ as c++filt prints it: templates, std:: in full, const methods,
 * clones, lambdas, constructors and destructors, special names, thunks,
 * operators. */
static const struct {
	const char *sym, *want;
} cxx_pairs[] = {
	{ "_ZN2ns1SIlE4spinEl", "ns::S<long>::spin(long)" },
	{ "_ZNSt6vectorIiSaIiEE9push_backERKi",
	  "std::vector<int, std::allocator<int> >::push_back(int const&)" },
	{ "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE4sizeEv",
	  "std::__cxx11::basic_string<char, std::char_traits<char>, "
	  "std::allocator<char> >::size() const" },
	{ "_ZN3foo3barEv.cold", "foo::bar() [clone .cold]" },
	{ "_ZN3foo3barEi.constprop.0", "foo::bar(int) [clone .constprop.0]" },
	{ "_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()() const" },
	{ "_ZN1AC2Ev", "A::A()" },
	{ "_ZN1AD0Ev", "A::~A()" },
	{ "_ZTV1A", "vtable for A" },
	{ "_ZGVZ4mainE1x", "guard variable for main::x" },
	{ "_ZplRK1XS1_", "operator+(X const&, X const&)" },
	{ "_Z1fIiEvT_", "void f<int>(int)" },
	{ "_ZN5Outer5InnerIPKcE6methodEPFvvE",
	  "Outer::Inner<char const*>::method(void (*)())" },
	{ "_Z8fakeNameiii", "fakeName(int, int, int)" },
	{ "_ZThn8_N1B1fEv", "non-virtual thunk to B::f()" },
};

static void cxx_known_pairs(void **state)
{
	char out[1024];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cxx_pairs); i++) {
		int n = demangle_cxx(cxx_pairs[i].sym, out, sizeof(out));

		if (n < 0)
			fail_msg("%s: %s", cxx_pairs[i].sym, strerror(-n));
		assert_string_equal(out, cxx_pairs[i].want);
		assert_int_equal(n, strlen(cxx_pairs[i].want));
		assert_true(demangle_is_cxx(cxx_pairs[i].sym));
		assert_false(demangle_is_rust(cxx_pairs[i].sym));
	}
	/* a legacy Rust symbol is Rust's, not C++'s */
	assert_false(demangle_is_cxx("_ZN4core9panicking5panic17h0123456789abcdefE"));
	assert_false(demangle_is_cxx("main"));
	assert_int_equal(demangle_cxx("main", out, sizeof(out)), -EINVAL);
	assert_string_equal(out, "");
	assert_int_equal(demangle_cxx("_ZN3foo", out, sizeof(out)), -EINVAL);
	assert_int_equal(demangle_cxx("_Z", out, sizeof(out)), -EINVAL);
	/* every buffer too small: -ENOSPC and nothing */
	for (size_t cap = 1; cap <= strlen(cxx_pairs[1].want); cap++) {
		char *small = malloc(cap);

		assert_int_equal(demangle_cxx(cxx_pairs[1].sym, small, cap),
				 -ENOSPC);
		assert_string_equal(small, "");
		free(small);
	}
}

/* The pairs agree with c++filt as installed. */
static void cxx_pairs_match_cxxfilt(void **state)
{
	char *syms[ARRAY_SIZE(cxx_pairs)], *outs[ARRAY_SIZE(cxx_pairs)] = { 0 };

	(void)state;
	if (!have("c++filt"))
		skip();
	for (size_t i = 0; i < ARRAY_SIZE(cxx_pairs); i++)
		syms[i] = (char *)cxx_pairs[i].sym;
	assert_true(oracle("c++filt", syms, ARRAY_SIZE(cxx_pairs), outs));
	for (size_t i = 0; i < ARRAY_SIZE(cxx_pairs); i++) {
		assert_string_equal(outs[i], cxx_pairs[i].want);
		free(outs[i]);
	}
}

/* Which kinds demangle_name makes readable; the kernel's prefixes. */
static void name_kinds(void **state)
{
	const char *cxx = "_ZN2ns1SIlE4spinEl";
	const char *rust = "_ZN4core9panicking5panic17h0123456789abcdefE";
	const char *c = "vfs_read";
	char buf[256];

	(void)state;
	assert_string_equal(demangle_name(cxx, DEMANGLE_ALL, buf, sizeof(buf)),
			    "ns::S<long>::spin(long)");
	assert_string_equal(demangle_name(rust, DEMANGLE_ALL, buf, sizeof(buf)),
			    "core::panicking::panic");
	assert_ptr_equal(demangle_name(cxx, DEMANGLE_RUST, buf, sizeof(buf)),
			 cxx);
	assert_ptr_equal(demangle_name(rust, DEMANGLE_CXX, buf, sizeof(buf)),
			 rust);
	assert_ptr_equal(demangle_name(cxx, 0, buf, sizeof(buf)), cxx);
	assert_ptr_equal(demangle_name(c, DEMANGLE_ALL, buf, sizeof(buf)), c);
	assert_string_equal(demangle_name("__pfx__ZN2ns1SIlE4spinEl",
					  DEMANGLE_ALL, buf, sizeof(buf)),
			    "__pfx_ns::S<long>::spin(long)");
	assert_ptr_equal(demangle_name(cxx, DEMANGLE_ALL, buf, 10), cxx);
}

/* C++ garbage: every prefix, random bytes, a symbol longer than the
 * output could hold, deep template nesting: an error or a name, fast. */
static void cxx_hostile(void **state)
{
	static char sym[100000];
	char out[DEMANGLE_MAX];
	size_t o;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cxx_pairs); i++)
		for (size_t n = 0; n < strlen(cxx_pairs[i].sym); n++) {
			snprintf(sym, sizeof(sym), "%.*s", (int)n,
				 cxx_pairs[i].sym);
			demangle_cxx(sym, out, sizeof(out));
			assert_true(strlen(out) < sizeof(out));
		}
	/* f<f<f<...>>>: libiberty's recursion limit or our bounds */
	o = (size_t)snprintf(sym, sizeof(sym), "_Z1f");
	for (int i = 0; i < 20000 && o + 8 < sizeof(sym); i++)
		o += (size_t)snprintf(sym + o, sizeof(sym) - o, "I1f");
	sym[o] = '\0';
	assert_true(demangle_cxx(sym, out, sizeof(out)) < 0);
	/* each template argument two of the one before: f<a, pair<a, a>,
	 * pair<pair<a, a>, pair<a, a>>, ...>, past 2^40 bytes printed */
	o = (size_t)snprintf(sym, sizeof(sym), "_Z1fI1a4pairIS_S_E");
	for (int i = 1; i < 64; i++) {
		char sub[8];

		snprintf(sub, sizeof(sub), "S%c_",
			 "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[(i - 1) % 36]);
		if (i - 1 >= 36)
			snprintf(sub, sizeof(sub), "S1%c_",
				 "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[i - 1 - 36]);
		o += (size_t)snprintf(sym + o, sizeof(sym) - o, "S0_I%s%sE",
				      sub, sub);
	}
	snprintf(sym + o, sizeof(sym) - o, "EvT_");
	assert_true(demangle_cxx(sym, out, sizeof(out)) < 0);
	srand(2);
	for (int i = 0; i < 20000; i++) {
		size_t n = 2 + (size_t)(rand() % 60);
		static const char al[] = "_ZNKESIT0123456789abcdefilmnopvxyz"
					 "CDLSt";

		sym[0] = '_';
		sym[1] = 'Z';
		for (size_t j = 2; j < n; j++)
			sym[j] = al[rand() % (int)(sizeof(al) - 1)];
		sym[n] = '\0';
		demangle_cxx(sym, out, sizeof(out));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_pairs),
		cmocka_unit_test(suffixes),
		cmocka_unit_test(display),
		cmocka_unit_test(refuses),
		cmocka_unit_test(punycode_raw),
		cmocka_unit_test(truncations_and_small_buffers),
		cmocka_unit_test(hostile),
		cmocka_unit_test(pairs_match_oracles),
		cmocka_unit_test(corpus_matches_oracle),
		cmocka_unit_test(cxx_known_pairs),
		cmocka_unit_test(cxx_pairs_match_cxxfilt),
		cmocka_unit_test(name_kinds),
		cmocka_unit_test(cxx_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
