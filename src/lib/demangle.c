// SPDX-License-Identifier: GPL-2.0-only
/* demangle — C++ and Rust symbols made readable by libiberty, the
 * demangler of c++filt and GDB (Debian's libiberty-dev, LGPL, linked
 * statically): cplus_demangle_v3_callback with c++filt's options for
 * C++, rust_demangle_callback without DMGL_VERBOSE for Rust (legacy hash
 * and v0 crate disambiguators left out, as llvm-cxxfilt prints v0). The
 * callback interfaces print into the caller's buffer and allocate nothing
 * (but for punycode identifiers).
 *
 * What is ours, each because libiberty 20230104 measured worse:
 *   - a bound on the work: libiberty follows v0 backrefs without one, and
 *     a 400-byte symbol whose tuples each repeat the one before twice
 *     makes 2^60 bytes of output (it ran past 20 s before being killed);
 *     the callback leaves by longjmp once DEMANGLE_WORK_MAX bytes came;
 *     a C++ symbol longer than DEMANGLE_MAX is not tried (libiberty's
 *     arrays for it live on the stack, 64 bytes per input byte);
 *   - a vendor suffix (".llvm.1234") is kept as written (libiberty drops
 *     it from Rust symbols and keeps it for C++);
 *   - v0 integer constants past 64 bits lose their first digit and gain
 *     the "_" terminator ("0x23...0123_" for 0x123...0123): repaired;
 *   - an undecodable punycode identifier prints as nothing ("foo::"): it
 *     is shown raw and marked, "foo::punycode{xxx_y}", or the symbol is
 *     refused when that cannot be told;
 *   - a legacy escape it does not know is printed as written ("foo::$LT"
 *     for a "$LT" without its closing '$'): such a symbol is refused. */
#include "demangle.h"

#include <errno.h>
#include <libiberty/demangle.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

/* Output libiberty may produce for one symbol before it is stopped. */
#define DEMANGLE_WORK_MAX (64u << 10)

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(int c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f');
}

static bool is_upper(int c)
{
	return c >= 'A' && c <= 'Z';
}

static bool is_lower(int c)
{
	return c >= 'a' && c <= 'z';
}

/* ---- libiberty's output ---- */

struct sink {
	char *out;
	size_t len, o;		/* out[0..o) written, NUL-terminated */
	size_t work;		/* bytes libiberty produced */
	bool full;
	jmp_buf stop;
};

static void sink_put(const char *s, size_t n, void *arg)
{
	struct sink *k = arg;

	if (!n)		/* libiberty passes (NULL, 0) at times */
		return;
	k->work += n;
	if (k->work > DEMANGLE_WORK_MAX)
		longjmp(k->stop, 1);
	if (k->full || n >= k->len - k->o) {
		k->full = true;
		return;
	}
	memcpy(k->out + k->o, s, n);
	k->o += n;
	k->out[k->o] = '\0';
}

typedef int (*demangler_fn)(const char *, int, demangle_callbackref, void *);

/* Run a libiberty demangler into out: its length, -EINVAL when refused or
 * stopped, -ENOSPC when it does not fit. */
static int run(demangler_fn fn, const char *sym, int options, char *out,
	       size_t len)
{
	struct sink k = { .out = out, .len = len };
	int ok;

	out[0] = '\0';
	if (setjmp(k.stop)) {
		out[0] = '\0';
		return -EINVAL;
	}
	ok = fn(sym, options, sink_put, &k);
	if (!ok || k.full) {
		out[0] = '\0';
		return ok ? -ENOSPC : -EINVAL;
	}
	return (int)k.o;
}

/* ---- Rust ---- */

/* Legacy: "_ZN" {decimal bytes} "E", the last element "h" and 16 hex
 * digits. Returns where the elements end (at the hash's length), or NULL. */
static const char *legacy_end(const char *s)
{
	const char *p = s + 3, *last = NULL;

	if (strncmp(s, "_ZN", 3))
		return NULL;
	while (is_digit(*p)) {
		size_t n = 0;

		if (*p == '0')
			return NULL;
		last = p;	/* the length of the last element */
		while (is_digit(*p)) {
			if (n > 100000)
				return NULL;
			n = n * 10 + (size_t)(*p++ - '0');
		}
		if (strnlen(p, n) < n)
			return NULL;
		p += n;
	}
	if (*p != 'E' || !last || strncmp(last, "17h", 3))
		return NULL;
	for (int i = 0; i < 16; i++)
		if (!is_hex(last[3 + i]))
			return NULL;
	if (last + 19 != p || (p[1] && p[1] != '.'))
		return NULL;
	return last;
}

bool demangle_is_rust(const char *name)
{
	return name && ((name[0] == '_' && name[1] == 'R' &&
			 (is_upper(name[2]) || is_digit(name[2]))) ||
			legacy_end(name));
}

size_t demangle_rust_len(const char *name)
{
	const char *end;

	if (!demangle_is_rust(name))
		return 0;
	if (name[1] == 'R')
		return strspn(name, "abcdefghijklmnopqrstuvwxyz"
			      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	end = legacy_end(name);
	return (size_t)(end - name) + 20;
}

/* Whether an RFC 3492 punycode string (Rust's "_" for the delimiter)
 * decodes to valid Unicode scalar values, as rustc writes them. */
static bool punycode_ok(const char *p, size_t n)
{
	enum { BASE = 36, TMIN = 1, TMAX = 26, SKEW = 38, DAMP = 700 };
	size_t i = n, ncp = 0;
	uint32_t cp = 128, bias = 72;
	uint64_t idx = 0;

	while (i > 0 && p[i - 1] != '_')
		i--;
	ncp = i ? i - 1 : 0;
	while (i < n) {
		uint64_t old = idx, w = 1;
		uint32_t delta;

		for (uint32_t k = BASE;; k += BASE) {
			int c = (unsigned char)p[i++];
			uint32_t digit, t;

			if (is_lower(c))
				digit = (uint32_t)(c - 'a');
			else if (is_digit(c))
				digit = (uint32_t)(c - '0' + 26);
			else
				return false;
			idx += digit * w;
			if (idx > 0x10ffff * 64ull)
				return false;
			t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
			if (digit < t)
				break;
			w *= BASE - t;
			if (i >= n || w > 0x10ffff * 64ull)
				return false;
		}
		delta = (uint32_t)(idx - old);
		delta = old == 0 ? delta / DAMP : delta / 2;
		delta += delta / (uint32_t)(ncp + 1);
		bias = 0;
		while (delta > ((BASE - TMIN) * TMAX) / 2) {
			delta /= BASE - TMIN;
			bias += BASE;
		}
		bias += (BASE - TMIN + 1) * delta / (delta + SKEW);
		cp += (uint32_t)(idx / (ncp + 1));
		idx = idx % (ncp + 1) + 1;
		if (cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000) || ++ncp > 128)
			return false;
	}
	return true;
}

/* The next punycode identifier (u DECIMAL [_] BYTES) at or after *pos in
 * a v0 symbol that does not decode; its bytes in *id, *n. */
static bool next_bad_punycode(const char *s, size_t *pos, const char **id,
			      size_t *n)
{
	for (; s[*pos]; (*pos)++) {
		const char *p = s + *pos + 1;
		size_t len = 0;

		if (s[*pos] != 'u' || !is_digit(*p) || *p == '0')
			continue;
		while (is_digit(*p) && len < 100000)
			len = len * 10 + (size_t)(*p++ - '0');
		if (*p == '_')
			p++;
		if (strnlen(p, len) < len || punycode_ok(p, len))
			continue;
		*id = p;
		*n = len;
		*pos = (size_t)(p + len - s);
		return true;
	}
	return false;
}

/* An empty path segment in libiberty's output: where it printed nothing
 * for an identifier it could not decode. */
static char *empty_segment(char *s)
{
	for (char *p = strstr(s, "::"); p; p = strstr(p + 1, "::"))
		if (!p[2] || strchr(":>,)]; ", p[2]))
			return p + 2;
	return NULL;
}

/* Write "punycode{BYTES}" where libiberty left each identifier it could
 * not decode out; -EINVAL when they cannot be matched up. */
static int mark_punycode(const char *sym, char *out, size_t len, int n)
{
	size_t pos = 0, idn;
	const char *id;
	char *at;

	while ((at = empty_segment(out))) {
		size_t add;

		if (!next_bad_punycode(sym, &pos, &id, &idn))
			return -EINVAL;
		add = idn + sizeof("punycode{}") - 1;
		if ((size_t)n + add >= len)
			return -ENOSPC;
		memmove(at + add, at, strlen(at) + 1);
		memcpy(at, "punycode{", 9);
		memcpy(at + 9, id, idn);
		at[add - 1] = '}';
		n += (int)add;
	}
	return n;
}

/* libiberty prints an integer constant wider than 64 bits from one
 * character too late: the hex digits but the first, then the "_" that
 * ends them. Put the first back (the length does not change). */
static void repair_wide_consts(const char *sym, char *out)
{
	for (char *p = strstr(out, "0x"); p; p = strstr(p + 2, "0x")) {
		size_t h = strspn(p + 2, "0123456789abcdef");
		const char *in;

		if (h < 16 || p[2 + h] != '_')
			continue;
		for (in = sym + 1; *in; in++)
			if (!strncmp(in, p + 2, h + 1) && is_hex(in[-1]))
				break;
		if (*in) {
			memmove(p + 3, p + 2, h);
			p[2] = in[-1];
		}
	}
}

int demangle_rust(const char *name, char *out, size_t len)
{
	size_t n = demangle_rust_len(name);
	char sym[DEMANGLE_MAX * 2];
	int ret;

	if (!name || !out || !len)
		return -EINVAL;
	out[0] = '\0';
	if (!n || n >= sizeof(sym))
		return -EINVAL;
	/* the symbol without its vendor suffix, which is kept as written */
	memcpy(sym, name, n);
	sym[n] = '\0';
	ret = run(rust_demangle_callback, sym, DMGL_RUST, out, len);
	/* an escape libiberty does not know is printed as it is ("$LT"):
	 * no decoded legacy name holds a '$' */
	if (ret > 0 && name[1] == 'Z' && strchr(out, '$'))
		ret = -EINVAL;
	if (ret > 0 && name[1] == 'R') {
		repair_wide_consts(sym, out);
		ret = mark_punycode(sym, out, len, ret);
	}
	if (ret > 0 && name[n]) {
		size_t s = strlen(name + n);

		if ((size_t)ret + s >= len)
			ret = -ENOSPC;
		else
			memcpy(out + ret, name + n, s + 1), ret += (int)s;
	}
	if (ret <= 0) {
		out[0] = '\0';
		return ret ? ret : -EINVAL;
	}
	return ret;
}

/* ---- C++ ---- */

bool demangle_is_cxx(const char *name)
{
	return name && name[0] == '_' && name[1] == 'Z' && !legacy_end(name);
}

int demangle_cxx(const char *name, char *out, size_t len)
{
	int ret;

	if (!name || !out || !len)
		return -EINVAL;
	out[0] = '\0';
	if (!demangle_is_cxx(name) || strlen(name) > DEMANGLE_MAX)
		return -EINVAL;
	/* c++filt's options: parameters, const and volatile, std:: names
	 * in full */
	ret = run(cplus_demangle_v3_callback, name,
		  DMGL_PARAMS | DMGL_ANSI | DMGL_VERBOSE, out, len);
	return ret ? ret : -EINVAL;
}

/* ---- as people read names ---- */

const char *demangle_name(const char *name, unsigned kinds, char *buf,
			  size_t len)
{
	static const char *const pre[] = { "__cfi_", "__pfx_" };
	size_t p = 0;
	int ret = -EINVAL;

	if (!name || !buf || len < 16 || !kinds)
		return name;
	/* the kernel's CFI and padding prefixes stay in front */
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(name, pre[i], strlen(pre[i])) &&
		    name[strlen(pre[i])] == '_')
			p = strlen(pre[i]);
	if ((kinds & DEMANGLE_RUST) && demangle_is_rust(name + p))
		ret = demangle_rust(name + p, buf + p, len - p);
	else if ((kinds & DEMANGLE_CXX) && demangle_is_cxx(name + p))
		ret = demangle_cxx(name + p, buf + p, len - p);
	if (ret < 0)
		return name;
	memcpy(buf, name, p);
	return buf;
}

const char *demangle_display(const char *name, char *buf, size_t len)
{
	return demangle_name(name, DEMANGLE_RUST, buf, len);
}
