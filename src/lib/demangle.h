// SPDX-License-Identifier: GPL-2.0-only
/* demangle — Rust symbol names made readable: the v0 scheme (`_R...`,
 * RFC 2603) and the legacy scheme (`_ZN...17h<hash>E`, its `$LT$`-style
 * escapes decoded and the hash dropped). Crate disambiguators are left
 * out, as in `rustfilt`'s alternate form and syzkaller's titles:
 * `_RNvMs3_NtCshgDM7dBCdno_11rust_binder7processNtB5_7Process10update_ref`
 * reads `<rust_binder::process::Process>::update_ref`. Anything else —
 * C names, C++ names, malformed or truncated symbols — is refused, never
 * guessed at. No allocation; recursion and output are bounded. */
#ifndef SONDE_DEMANGLE_H
#define SONDE_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* Room for the readable names sonde shows: generic Rust code has names of
 * thousands of bytes (a backreference may repeat a long type). */
#define DEMANGLE_MAX 4096

/* Whether name starts like a Rust symbol (v0 or legacy with its hash). */
bool demangle_is_rust(const char *name);

/* The length of a Rust symbol without a vendor suffix (".llvm.1234"), or
 * 0 when name is none. */
size_t demangle_rust_len(const char *name);

/* Demangle a Rust symbol into out (len bytes, NUL-terminated). Returns the
 * length written, -EINVAL when name is no well-formed Rust symbol, or
 * -ENOSPC when the readable form does not fit. out is left empty on
 * error. */
int demangle_rust(const char *name, char *out, size_t len);

/* name as a reader sees it: a Rust symbol (also behind the kernel's
 * __cfi_/__pfx_ prefixes, which stay in front) demangled into buf; any
 * other name, or one that does not demangle or fit in len bytes, is
 * returned as it is. Lookups and matching keep using name. */
const char *demangle_display(const char *name, char *buf, size_t len);

#endif
