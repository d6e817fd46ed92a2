// SPDX-License-Identifier: GPL-2.0-only
/* demangle — Rust symbol demangling (see demangle.h). The v0 grammar is
 * the one of rustc's "symbol-mangling-version=v0" documentation:
 *
 *   symbol  = "_R" [decimal] path [instantiating-crate] [suffix]
 *   path    = "C" ident | "M" impl-path type | "X" impl-path type path
 *           | "Y" type path | "N" ns path ident | "I" path {arg} "E"
 *           | backref
 *   type    = basic | path | "A" type const | "S" type | "T" {type} "E"
 *           | "R" [lifetime] type | "Q" [lifetime] type | "P" type
 *           | "O" type | "F" fn-sig | "D" dyn-bounds lifetime | backref
 *   backref = "B" base-62-number   (an offset after "_R", always earlier)
 *
 * A recursive-descent printer walks it once; backrefs re-read an earlier
 * part of the string. Every read is bounds-checked, a backref must point
 * before itself, recursion is capped at DM_MAX_DEPTH, and the whole walk
 * at DM_MAX_STEPS, so garbage ends in -EINVAL, never in a crash or a
 * loop, and the output can never outgrow the caller's buffer (-ENOSPC).
 * Const generics: integers, bool, char and `_`; the newer structured
 * consts (references, arrays, tuples, enum variants, &str) are refused.
 * Punycode identifiers (`u` prefix) are decoded to UTF-8. */
#include "demangle.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#define DM_MAX_DEPTH 128
#define DM_MAX_STEPS 100000

struct dm {
	const char *s;		/* the symbol after "_R" */
	size_t n, pos;
	char *out;
	size_t len, o;
	int err;
	int depth;
	unsigned int steps;
	unsigned int quiet;	/* > 0: parse only, print nothing */
	uint64_t bound;		/* lifetimes bound by enclosing binders */
};

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool is_lower(int c)
{
	return c >= 'a' && c <= 'z';
}

static bool is_upper(int c)
{
	return c >= 'A' && c <= 'Z';
}

static void fail(struct dm *d)
{
	if (!d->err)
		d->err = -EINVAL;
}

static int peek(const struct dm *d)
{
	return d->pos < d->n ? (unsigned char)d->s[d->pos] : 0;
}

static int next(struct dm *d)
{
	if (d->pos >= d->n) {
		fail(d);
		return 0;
	}
	return (unsigned char)d->s[d->pos++];
}

static bool eat(struct dm *d, int c)
{
	if (d->pos < d->n && d->s[d->pos] == c) {
		d->pos++;
		return true;
	}
	return false;
}

static void put_n(struct dm *d, const char *s, size_t n)
{
	if (d->err || d->quiet)
		return;
	if (n >= d->len - d->o) {
		d->err = -ENOSPC;
		return;
	}
	memcpy(d->out + d->o, s, n);
	d->o += n;
	d->out[d->o] = '\0';
}

static void put(struct dm *d, const char *s)
{
	put_n(d, s, strlen(s));
}

static void put_u64(struct dm *d, uint64_t v)
{
	char buf[24];
	int i = sizeof(buf);

	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put_n(d, buf + i, sizeof(buf) - i);
}

/* One Unicode scalar value as UTF-8; false for surrogates and values past
 * U+10FFFF. */
static bool put_utf8(struct dm *d, uint32_t c)
{
	char b[4];

	if (c < 0x80) {
		b[0] = (char)c;
		put_n(d, b, 1);
	} else if (c < 0x800) {
		b[0] = (char)(0xc0 | c >> 6);
		b[1] = (char)(0x80 | (c & 0x3f));
		put_n(d, b, 2);
	} else if (c < 0x10000) {
		if (c >= 0xd800 && c < 0xe000)
			return false;
		b[0] = (char)(0xe0 | c >> 12);
		b[1] = (char)(0x80 | (c >> 6 & 0x3f));
		b[2] = (char)(0x80 | (c & 0x3f));
		put_n(d, b, 3);
	} else if (c < 0x110000) {
		b[0] = (char)(0xf0 | c >> 18);
		b[1] = (char)(0x80 | (c >> 12 & 0x3f));
		b[2] = (char)(0x80 | (c >> 6 & 0x3f));
		b[3] = (char)(0x80 | (c & 0x3f));
		put_n(d, b, 4);
	} else {
		return false;
	}
	return true;
}

/* Entering a production: counts the walk and the depth. */
static bool enter(struct dm *d)
{
	if (d->err)
		return false;
	if (++d->steps > DM_MAX_STEPS || d->depth >= DM_MAX_DEPTH) {
		fail(d);
		return false;
	}
	d->depth++;
	return true;
}

static void leave(struct dm *d)
{
	d->depth--;
}

/* base-62-number = {0-9a-zA-Z} "_": "_" is 0, "x_" is x + 1. */
static uint64_t base62(struct dm *d)
{
	uint64_t v = 0;
	int c;

	if (eat(d, '_'))
		return 0;
	while ((c = next(d)) != '_') {
		int digit;

		if (is_digit(c))
			digit = c - '0';
		else if (is_lower(c))
			digit = 10 + c - 'a';
		else if (is_upper(c))
			digit = 36 + c - 'A';
		else {
			fail(d);
			return 0;
		}
		if (v > (UINT64_MAX - (uint64_t)digit) / 62) {
			fail(d);
			return 0;
		}
		v = v * 62 + (uint64_t)digit;
	}
	if (v == UINT64_MAX) {
		fail(d);
		return 0;
	}
	return v + 1;
}

/* decimal-number = "0" | [1-9] {0-9} */
static uint64_t decimal(struct dm *d)
{
	uint64_t v = 0;

	if (!is_digit(peek(d))) {
		fail(d);
		return 0;
	}
	if (eat(d, '0'))
		return 0;
	while (is_digit(peek(d))) {
		int c = next(d);

		if (v > (UINT64_MAX - 9) / 10) {
			fail(d);
			return 0;
		}
		v = v * 10 + (uint64_t)(c - '0');
	}
	return v;
}

/* disambiguator = "s" base-62-number; absent is 0. */
static uint64_t disambiguator(struct dm *d)
{
	return eat(d, 's') ? base62(d) + 1 : 0;
}

struct ident {
	const char *p;
	size_t n;
	bool puny;
};

/* undisambiguated-identifier = ["u"] decimal ["_"] bytes */
static struct ident ident_raw(struct dm *d)
{
	struct ident id = { 0 };
	uint64_t n;

	id.puny = eat(d, 'u');
	n = decimal(d);
	eat(d, '_');
	if (d->err || n > d->n - d->pos) {
		fail(d);
		return id;
	}
	id.p = d->s + d->pos;
	id.n = (size_t)n;
	d->pos += (size_t)n;
	return id;
}

/* RFC 3492 punycode with Rust's "_" for the "-" delimiter, printed as
 * UTF-8. False (and nothing printed) when it does not decode. */
static bool put_punycode(struct dm *d, struct ident id)
{
	enum { BASE = 36, TMIN = 1, TMAX = 26, SKEW = 38, DAMP = 700 };
	uint32_t cp[128];
	size_t ncp = 0, basic = 0, i;
	uint32_t n = 128, bias = 72;
	uint64_t idx = 0;
	bool delim = false;

	/* the basic code points, up to the last "_" */
	for (i = id.n; i > 0 && !delim; i--)
		if (id.p[i - 1] == '_') {
			basic = i - 1;
			delim = true;
		}
	if (basic > sizeof(cp) / sizeof(cp[0]))
		return false;
	for (i = 0; i < basic; i++)
		cp[ncp++] = (unsigned char)id.p[i];
	i = delim ? basic + 1 : 0;
	while (i < id.n) {
		uint64_t old = idx, w = 1;
		uint32_t delta;

		for (uint32_t k = BASE;; k += BASE) {
			int c = (unsigned char)id.p[i++];
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
			if (i >= id.n || w > 0x10ffff * 64ull)
				return false;
		}
		if (ncp >= sizeof(cp) / sizeof(cp[0]))
			return false;
		/* bias adaptation */
		delta = (uint32_t)(idx - old);
		delta = old == 0 ? delta / DAMP : delta / 2;
		delta += delta / (uint32_t)(ncp + 1);
		bias = 0;
		while (delta > ((BASE - TMIN) * TMAX) / 2) {
			delta /= BASE - TMIN;
			bias += BASE;
		}
		bias += (BASE - TMIN + 1) * delta / (delta + SKEW);
		n += (uint32_t)(idx / (ncp + 1));
		idx %= ncp + 1;
		if (n > 0x10ffff)
			return false;
		memmove(cp + idx + 1, cp + idx, (ncp - idx) * sizeof(cp[0]));
		cp[idx++] = n;
		ncp++;
	}
	for (i = 0; i < ncp; i++)
		if (cp[i] == 0 || (cp[i] >= 0xd800 && cp[i] < 0xe000))
			return false;
	for (i = 0; i < ncp; i++)
		put_utf8(d, cp[i]);
	return true;
}

static void put_ident(struct dm *d, struct ident id)
{
	if (!id.puny) {
		put_n(d, id.p, id.n);
	} else if (!put_punycode(d, id)) {
		put(d, "punycode{");
		put_n(d, id.p, id.n);
		put(d, "}");
	}
}

static void path(struct dm *d, bool in_value);
static void type(struct dm *d);
static void generic_arg(struct dm *d);

/* backref: the offset it names, checked to lie before the "B". */
static size_t backref(struct dm *d)
{
	size_t at = d->pos - 1;
	uint64_t i = base62(d);

	if (d->err || i >= at) {
		fail(d);
		return 0;
	}
	return (size_t)i;
}

/* Parse and print at an earlier offset, then come back. When printing
 * nothing, the backref is only checked, not followed. */
static void follow(struct dm *d, void (*fn)(struct dm *, bool), bool arg)
{
	size_t to = backref(d), back;

	if (d->err || d->quiet)
		return;
	back = d->pos;
	d->pos = to;
	fn(d, arg);
	d->pos = back;
}

static void type_b(struct dm *d, bool unused)
{
	(void)unused;
	type(d);
}

static void lifetime(struct dm *d, uint64_t lt)
{
	uint64_t depth;

	if (lt == 0) {
		put(d, "'_");
		return;
	}
	if (lt > d->bound) {
		fail(d);
		return;
	}
	depth = d->bound - lt;
	if (depth < 26) {
		char b[3] = { '\'', (char)('a' + depth), 0 };

		put(d, b);
	} else {
		put(d, "'z");
		put_u64(d, depth - 25);
	}
}

/* binder = "G" base-62-number: "for<'a, 'b> " and the lifetimes bound. */
static void binder(struct dm *d)
{
	uint64_t count;

	if (!eat(d, 'G'))
		return;
	count = base62(d) + 1;
	if (d->err || count > 64 || d->bound > 1024) {
		fail(d);
		return;
	}
	put(d, "for<");
	for (uint64_t i = 0; i < count; i++) {
		if (i)
			put(d, ", ");
		d->bound++;
		lifetime(d, 1);
	}
	put(d, "> ");
}

static void path_b(struct dm *d, bool in_value)
{
	path(d, in_value);
}

static void path(struct dm *d, bool in_value)
{
	int tag;

	if (!enter(d))
		return;
	tag = next(d);
	switch (tag) {
	case 'C': {
		struct ident id;

		disambiguator(d);
		id = ident_raw(d);
		if (!d->err)
			put_ident(d, id);
		break;
	}
	case 'N': {
		int ns = next(d);
		struct ident id;
		uint64_t dis;

		if (!is_lower(ns) && !is_upper(ns)) {
			fail(d);
			break;
		}
		path(d, in_value);
		dis = disambiguator(d);
		id = ident_raw(d);
		if (d->err)
			break;
		if (is_upper(ns)) {
			char c[2] = { (char)ns, 0 };

			put(d, "::{");
			put(d, ns == 'C' ? "closure" : ns == 'S' ? "shim" : c);
			if (id.n) {
				put(d, ":");
				put_ident(d, id);
			}
			put(d, "#");
			put_u64(d, dis);
			put(d, "}");
		} else if (id.n) {
			put(d, "::");
			put_ident(d, id);
		}
		break;
	}
	case 'M':
	case 'X':
	case 'Y':
		if (tag != 'Y') {	/* the impl's own path is not shown */
			disambiguator(d);
			d->quiet++;
			path(d, false);
			d->quiet--;
		}
		put(d, "<");
		type(d);
		if (tag != 'M') {
			put(d, " as ");
			path(d, false);
		}
		put(d, ">");
		break;
	case 'I':
		path(d, in_value);
		if (in_value)
			put(d, "::");
		put(d, "<");
		for (int i = 0; !d->err && !eat(d, 'E'); i++) {
			if (i)
				put(d, ", ");
			generic_arg(d);
		}
		put(d, ">");
		break;
	case 'B':
		follow(d, path_b, in_value);
		break;
	default:
		fail(d);
	}
	leave(d);
}

static const char *basic_type(int c)
{
	switch (c) {
	case 'a': return "i8";
	case 'b': return "bool";
	case 'c': return "char";
	case 'd': return "f64";
	case 'e': return "str";
	case 'f': return "f32";
	case 'h': return "u8";
	case 'i': return "isize";
	case 'j': return "usize";
	case 'l': return "i32";
	case 'm': return "u32";
	case 'n': return "i128";
	case 'o': return "u128";
	case 's': return "i16";
	case 't': return "u16";
	case 'u': return "()";
	case 'v': return "...";
	case 'x': return "i64";
	case 'y': return "u64";
	case 'z': return "!";
	case 'p': return "_";
	default: return NULL;
	}
}

/* const = type const-data | "p" | backref; const-data = ["n"] {hex} "_".
 * Integers print in decimal (hex past 64 bits), bool and char as
 * literals. */
static void constant(struct dm *d, bool unused)
{
	int tag;
	const char *hex;
	size_t nhex = 0;
	uint64_t v = 0;
	bool neg = false;

	(void)unused;
	if (!enter(d))
		return;
	tag = next(d);
	if (tag == 'B') {
		follow(d, constant, false);
		leave(d);
		return;
	}
	if (tag == 'p') {
		put(d, "_");
		leave(d);
		return;
	}
	if (!tag || !strchr("htmyojaslxnibc", tag)) {
		fail(d);	/* also the structured consts: R Q A T V e */
		leave(d);
		return;
	}
	if (strchr("aslxni", tag))
		neg = eat(d, 'n');
	hex = d->s + d->pos;
	for (int c; (c = next(d)) != '_' && !d->err; nhex++)
		if (!is_digit(c) && !(c >= 'a' && c <= 'f'))
			fail(d);
	if (d->err) {
		leave(d);
		return;
	}
	while (nhex > 1 && hex[0] == '0') {
		hex++;
		nhex--;
	}
	for (size_t i = 0; i < nhex && nhex <= 16; i++)
		v = v << 4 | (uint64_t)(is_digit(hex[i]) ? hex[i] - '0' :
					hex[i] - 'a' + 10);
	if (tag == 'b') {
		if (nhex != 1 || v > 1)
			fail(d);
		else
			put(d, v ? "true" : "false");
	} else if (tag == 'c') {
		if (nhex > 8 || v > 0x10ffff || (v >= 0xd800 && v < 0xe000)) {
			fail(d);
		} else if (v >= 0x20 && v < 0x7f && v != '\'' && v != '\\') {
			char b[4] = { '\'', (char)v, '\'', 0 };

			put(d, b);
		} else {
			static const char x[] = "0123456789abcdef";
			char b[16];
			int i = 0;

			put(d, "'\\u{");
			do {
				b[i++] = x[v & 15];
				v >>= 4;
			} while (v);
			while (i)
				put_n(d, &b[--i], 1);
			put(d, "}'");
		}
	} else {
		if (neg)
			put(d, "-");
		if (nhex <= 16) {
			put_u64(d, v);
		} else {
			put(d, "0x");
			put_n(d, hex, nhex);
		}
	}
	leave(d);
}

static void generic_arg(struct dm *d)
{
	if (eat(d, 'L')) {
		uint64_t lt = base62(d);

		if (!d->err)
			lifetime(d, lt);
	} else if (eat(d, 'K')) {
		constant(d, false);
	} else {
		type(d);
	}
}

/* A dyn trait's path: its generic args are left open ("Fn<(u8,)") so the
 * associated-type bindings that follow join them. Returns whether a "<" is
 * open. */
static bool dyn_path(struct dm *d)
{
	bool open = false;

	if (!enter(d))
		return false;
	if (eat(d, 'I')) {
		path(d, false);
		put(d, "<");
		for (int i = 0; !d->err && !eat(d, 'E'); i++) {
			if (i)
				put(d, ", ");
			generic_arg(d);
		}
		open = true;
	} else if (eat(d, 'B')) {
		size_t to = backref(d), back = d->pos;

		if (!d->err) {
			d->pos = to;
			open = dyn_path(d);
			d->pos = back;
		}
	} else {
		path(d, false);
	}
	leave(d);
	return open;
}

static void dyn_bounds(struct dm *d)
{
	uint64_t saved = d->bound;

	put(d, "dyn ");
	binder(d);
	for (int i = 0; !d->err && !eat(d, 'E'); i++) {
		bool open;

		if (i)
			put(d, " + ");
		open = dyn_path(d);
		while (!d->err && eat(d, 'p')) {
			struct ident id = ident_raw(d);

			put(d, open ? ", " : "<");
			open = true;
			if (d->err)
				break;
			put_ident(d, id);
			put(d, " = ");
			type(d);
		}
		if (open)
			put(d, ">");
	}
	d->bound = saved;
}

static void fn_sig(struct dm *d)
{
	uint64_t saved = d->bound;

	binder(d);
	if (eat(d, 'U'))
		put(d, "unsafe ");
	if (eat(d, 'K')) {
		put(d, "extern \"");
		if (eat(d, 'C')) {
			put(d, "C");
		} else {
			struct ident id = ident_raw(d);

			for (size_t i = 0; i < id.n && !d->err; i++)
				put_n(d, id.p[i] == '_' ? "-" : &id.p[i], 1);
		}
		put(d, "\" ");
	}
	put(d, "fn(");
	for (int i = 0; !d->err && !eat(d, 'E'); i++) {
		if (i)
			put(d, ", ");
		type(d);
	}
	put(d, ")");
	if (!eat(d, 'u')) {
		put(d, " -> ");
		type(d);
	}
	d->bound = saved;
}

static void type(struct dm *d)
{
	int tag;
	const char *basic;

	if (!enter(d))
		return;
	tag = next(d);
	basic = basic_type(tag);
	if (basic) {
		put(d, basic);
		leave(d);
		return;
	}
	switch (tag) {
	case 'A':
	case 'S':
		put(d, "[");
		type(d);
		if (tag == 'A') {
			put(d, "; ");
			constant(d, false);
		}
		put(d, "]");
		break;
	case 'T': {
		int i;

		put(d, "(");
		for (i = 0; !d->err && !eat(d, 'E'); i++) {
			if (i)
				put(d, ", ");
			type(d);
		}
		put(d, i == 1 ? ",)" : ")");
		break;
	}
	case 'R':
	case 'Q':
		put(d, "&");
		if (eat(d, 'L')) {
			uint64_t lt = base62(d);

			if (lt && !d->err) {
				lifetime(d, lt);
				put(d, " ");
			}
		}
		if (tag == 'Q')
			put(d, "mut ");
		type(d);
		break;
	case 'P':
	case 'O':
		put(d, tag == 'P' ? "*const " : "*mut ");
		type(d);
		break;
	case 'F':
		fn_sig(d);
		break;
	case 'D':
		dyn_bounds(d);
		if (!d->err && eat(d, 'L')) {
			uint64_t lt = base62(d);

			if (lt && !d->err) {
				put(d, " + ");
				lifetime(d, lt);
			}
		} else {
			fail(d);
		}
		break;
	case 'B':
		follow(d, type_b, false);
		break;
	default:
		d->pos--;
		path(d, false);
	}
	leave(d);
}

static int demangle_v0(const char *sym, char *out, size_t len)
{
	struct dm d = { .s = sym, .n = strlen(sym), .out = out, .len = len };

	if (is_digit(peek(&d)) && decimal(&d) != 0)
		return -EINVAL;		/* an encoding version after v0 */
	path(&d, true);
	/* the instantiating crate, when the symbol names one */
	if (!d.err && is_upper(peek(&d))) {
		d.quiet++;
		path(&d, false);
		d.quiet--;
	}
	/* a vendor suffix (".llvm.1234") is kept as written */
	if (!d.err && d.pos < d.n) {
		if (d.s[d.pos] != '.' && d.s[d.pos] != '$')
			fail(&d);
		else
			put(&d, d.s + d.pos);
	}
	if (d.err) {
		out[0] = '\0';
		return d.err;
	}
	return (int)d.o;
}

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
		if (!is_digit(last[3 + i]) &&
		    !(last[3 + i] >= 'a' && last[3 + i] <= 'f'))
			return NULL;
	if (last + 19 != p || (p[1] && p[1] != '.'))
		return NULL;
	return last;
}

/* One legacy element with its escapes: $LT$ <, $GT$ >, $RF$ &, $BP$ *,
 * $SP$ @, $LP$ (, $RP$ ), $C$ ',', $u7e$ a code point, ".." "::". */
static void legacy_elem(struct dm *d, const char *p, size_t n)
{
	static const struct { const char *esc, *s; } esc[] = {
		{ "SP", "@" }, { "BP", "*" }, { "RF", "&" }, { "LT", "<" },
		{ "GT", ">" }, { "LP", "(" }, { "RP", ")" }, { "C", "," },
	};
	size_t i = 0;

	if (n > 1 && p[0] == '_' && p[1] == '$')
		i = 1;
	while (i < n && !d->err) {
		if (p[i] == '.') {
			bool two = i + 1 < n && p[i + 1] == '.';

			put(d, two ? "::" : ".");
			i += two ? 2 : 1;
		} else if (p[i] == '$') {
			const char *e = memchr(p + i + 1, '$', n - i - 1);
			size_t k, el;
			bool done = false;

			if (!e) {
				fail(d);
				return;
			}
			el = (size_t)(e - (p + i + 1));
			for (k = 0; k < sizeof(esc) / sizeof(esc[0]); k++)
				if (strlen(esc[k].esc) == el &&
				    !memcmp(p + i + 1, esc[k].esc, el)) {
					put(d, esc[k].s);
					done = true;
				}
			if (!done && el >= 2 && el <= 7 && p[i + 1] == 'u') {
				uint32_t c = 0;

				for (k = 2; k <= el; k++) {
					char h = p[i + k];

					if (!is_digit(h) && !(h >= 'a' && h <= 'f'))
						break;
					c = c << 4 | (uint32_t)(is_digit(h) ?
						h - '0' : h - 'a' + 10);
				}
				done = k > el && c >= 0x20 && put_utf8(d, c);
			}
			if (!done) {
				fail(d);
				return;
			}
			i += el + 2;
		} else {
			put_n(d, p + i, 1);
			i++;
		}
	}
}

static int demangle_legacy(const char *sym, char *out, size_t len)
{
	struct dm d = { .out = out, .len = len };
	const char *end = legacy_end(sym), *p = sym + 3;

	if (!end)
		return -EINVAL;
	for (int i = 0; p < end && !d.err; i++) {
		size_t n = 0;

		while (is_digit(*p))
			n = n * 10 + (size_t)(*p++ - '0');
		if (i)
			put(&d, "::");
		legacy_elem(&d, p, n);
		p += n;
	}
	/* the suffix after "E" (".llvm.1234") */
	if (end[20])
		put(&d, end + 20);
	if (d.err) {
		out[0] = '\0';
		return d.err;
	}
	return (int)d.o;
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

int demangle_rust(const char *name, char *out, size_t len)
{
	if (!name || !out || !len)
		return -EINVAL;
	out[0] = '\0';
	if (name[0] == '_' && name[1] == 'R')
		return demangle_v0(name + 2, out, len);
	return demangle_legacy(name, out, len);
}

const char *demangle_display(const char *name, char *buf, size_t len)
{
	static const char *const pre[] = { "__cfi_", "__pfx_" };
	size_t p = 0;

	if (!name || !buf || len < 16)
		return name;
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(name, pre[i], strlen(pre[i])) &&
		    demangle_is_rust(name + strlen(pre[i])))
			p = strlen(pre[i]);
	if (!demangle_is_rust(name + p))
		return name;
	memcpy(buf, name, p);
	if (demangle_rust(name + p, buf + p, len - p) < 0)
		return name;
	return buf;
}
