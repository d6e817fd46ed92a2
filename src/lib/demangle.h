// SPDX-License-Identifier: GPL-2.0-only
/* demangle — C++ and Rust symbol names made readable, through libiberty
 * (the demangler of c++filt and GDB): C++ as c++filt prints it
 * (`_ZN2ns1SIlE4spinEl` reads `ns::S<long>::spin(long)`), Rust v0
 * (`_R...`) and legacy (`_ZN...17h<hash>E`) with crate disambiguators
 * and the hash left out, as llvm-cxxfilt prints v0 and as syzkaller's
 * titles do: `_RNvMs3_NtCshgDM7dBCdno_11rust_binder7processNtB5_7Process
 * 10update_ref` reads `<rust_binder::process::Process>::update_ref`.
 * Anything else — C names, malformed or truncated symbols — is refused,
 * never guessed at. No allocation but libiberty's for punycode; the work
 * and the output are bounded. */
#ifndef SONDE_DEMANGLE_H
#define SONDE_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* Room for the readable names sonde shows: generic Rust code and C++
 * templates have names of thousands of bytes. */
#define DEMANGLE_MAX 4096

/* Which symbols to make readable (demangle_name's kinds). */
enum {
	DEMANGLE_RUST = 1 << 0,
	DEMANGLE_CXX = 1 << 1,
	DEMANGLE_ALL = DEMANGLE_RUST | DEMANGLE_CXX,
};

/* Whether name starts like a Rust symbol (v0 or legacy with its hash). */
bool demangle_is_rust(const char *name);
/* Whether name starts like a C++ symbol (_Z, and no legacy Rust one). */
bool demangle_is_cxx(const char *name);

/* The length of a Rust symbol without a vendor suffix (".llvm.1234"), or
 * 0 when name is none. */
size_t demangle_rust_len(const char *name);

/* Demangle a Rust (or a C++) symbol into out (len bytes, NUL-terminated).
 * Returns the length written, -EINVAL when name is no well-formed symbol
 * of the kind, or -ENOSPC when the readable form does not fit. out is
 * left empty on error. A vendor suffix is kept as written (Rust
 * "foo::bar.llvm.1234", C++ "f() [clone .cold]"). */
int demangle_rust(const char *name, char *out, size_t len);
int demangle_cxx(const char *name, char *out, size_t len);

/* name as a reader sees it: a symbol of the kinds asked for (also behind
 * the kernel's __cfi_/__pfx_ prefixes, which stay in front) demangled
 * into buf; any other name, or one that does not demangle or fit in len
 * bytes, is returned as it is; kinds 0 returns name. Lookups and matching
 * keep using name. */
const char *demangle_name(const char *name, unsigned kinds, char *buf,
			  size_t len);

/* demangle_name for Rust symbols alone: the kernel's names (Rust for
 * Linux; a kernel has no C++). */
const char *demangle_display(const char *name, char *buf, size_t len);

#endif
