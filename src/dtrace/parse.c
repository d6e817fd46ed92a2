// SPDX-License-Identifier: GPL-2.0-only
/* parse — a recursive-descent parser for D: the outer level (probe
 * clauses, declarations, #pragma D option), predicates, statements, and
 * expressions with C's operators and precedence plus D's ^^, casts,
 * @aggregations, self-> and this-> variables and $macro arguments. The
 * result is a tree of struct dt_node; names are resolved later by
 * types.c. */
#include "ast.h"
#include "btf.h"
#include "dlib.h"
#include "providers/provider.h"
#include "../lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct parser {
	struct dt_cc *cc;
	struct dt_prog *prog;
	struct dt_lexer lx;
	struct dt_token tok;
	bool have;
	bool in_predicate;
	bool tagged;		/* parse_type read a struct/union/enum */
	bool is_extern;		/* an extern declaration: int a[] allowed */
	/* #pragma D attributes on names not yet defined */
	struct pending_attr {
		const char *name;
		struct dt_loc loc;
	} pending[16];
	int npending;
	int depth;		/* nesting of the recursive rules below */
};

/* How deep expressions and statements may nest: the parser, the type
 * checker and the code generator recurse once per level, and a script
 * nested deeper than this is no script a person wrote (a 10,000-deep one
 * overflowed the stack). */
#define DT_NEST_MAX 200
/* The longest string literal (its size with the NUL is a uint16_t). */
#define DT_STR_LITERAL_MAX 65534

/* A growing string in the arena: an error may unwind at any point. */
struct abuf {
	char *b;
	size_t n, cap;
};

static void abuf_put(struct dt_arena *ar, struct abuf *a, const char *s,
		     size_t n)
{
	if (a->n + n + 1 > a->cap) {
		size_t cap = (a->n + n + 1) * 2;
		char *nb = dt_alloc(ar, cap);

		if (a->n)
			memcpy(nb, a->b, a->n);
		a->b = nb;
		a->cap = cap;
	}
	memcpy(a->b + a->n, s, n);
	a->n += n;
	a->b[a->n] = '\0';
}

static struct dt_token *peek(struct parser *p)
{
	if (!p->have) {
		dt_lex_next(&p->lx, &p->tok);
		p->have = true;
	}
	return &p->tok;
}

static struct dt_token next(struct parser *p)
{
	peek(p);
	p->have = false;
	return p->tok;
}

static bool accept(struct parser *p, enum dt_tok t)
{
	if (peek(p)->t != t)
		return false;
	next(p);
	return true;
}

/* A syntax error at the next token, in dtrace(1)'s words; what (sonde's
 * hint) goes with the caret display only. */
/* Whether DTrace's lexer knows name as a global identifier (built-in,
 * function, D library constant, declared variable, inline): it then does
 * not look past it. */
static bool known_global(struct parser *p, const char *name)
{
	int64_t v;
	int size;

	if (dt_builtin_var(name) || dt_func_lookup(name) ||
	    dt_dlib_const(name, &v, &size))
		return true;
	for (const struct dt_var *var = p->prog->vars; var; var = var->next)
		if (var->scope == DT_GLOBAL && !strcmp(var->name, name))
			return true;
	for (const struct dt_inline *in = p->prog->inlines; in; in = in->next)
		if (!strcmp(in->name, name))
			return true;
	return false;
}

static _Noreturn void syntax(struct parser *p, const char *what)
{
	struct dt_token *t = peek(p);

	p->cc->hint = what;
	if (t->t == T_EOF)
		dt_cerror(p->cc, &t->loc, D_SYNTAX,
			  "syntax error near end of input");
	if (t->t == T_IDENT && t->peeked && !known_global(p, t->sval)) {
		/* what dtrace(1) quotes after its lexer looked past the
		 * name: the rest of the line */
		const char *e = t->start,
			   *end = p->lx.src->text + p->lx.src->len;

		while (e < end && *e != '\n')
			e++;
		dt_cerror(p->cc, &t->loc, D_SYNTAX, "syntax error near "
			  "\"%.*s\"", (int)(e - t->start), t->start);
	}
	dt_cerror(p->cc, &t->loc, D_SYNTAX, "syntax error near \"%.*s\"",
		  (int)(t->len ? t->len : 1), t->start);
}

/* One level deeper into a recursive rule: an error past DT_NEST_MAX. */
static void nest(struct parser *p)
{
	if (++p->depth > DT_NEST_MAX)
		dt_error(p->cc, &peek(p)->loc, "expression or statement nested "
			 "deeper than %d levels", DT_NEST_MAX);
}

static struct dt_token expect(struct parser *p, enum dt_tok t)
{
	char what[64];

	if (peek(p)->t != t) {
		snprintf(what, sizeof(what), "expected '%s'", dt_tok_name(t));
		syntax(p, what);
	}
	return next(p);
}

static struct dt_node *node(struct parser *p, enum dt_nkind k,
			    const struct dt_loc *loc)
{
	struct dt_node *n = dt_alloc(&p->cc->arena, sizeof(*n));

	n->kind = k;
	n->loc = *loc;
	return n;
}

/* ---- types ---- */

static const struct {
	const char *name;
	uint8_t size;
	bool sign;
} typedefs[] = {
	{ "int8_t", 1, true }, { "int16_t", 2, true }, { "int32_t", 4, true },
	{ "int64_t", 8, true }, { "uint8_t", 1, false },
	{ "uint16_t", 2, false }, { "uint32_t", 4, false },
	{ "uint64_t", 8, false }, { "intptr_t", 8, true },
	{ "uintptr_t", 8, false }, { "size_t", 8, false },
	{ "ssize_t", 8, true }, { "off_t", 8, true }, { "pid_t", 4, true },
	{ "id_t", 4, true }, { "uid_t", 4, false }, { "gid_t", 4, false },
	{ "processorid_t", 4, true }, { "dtrace_epid_t", 4, false },
	{ "hrtime_t", 8, true }, { "time_t", 8, true }, { "caddr_t", 8, false },
	/* dtrace-utils' D typedefs (dt_open.c) */
	{ "uchar_t", 1, false }, { "ushort_t", 2, false }, { "uint_t", 4, false },
	{ "ulong_t", 8, false }, { "u_longlong_t", 8, false },
	{ "ptrdiff_t", 8, true },
	/* the kernel's (BTF) short names scripts use */
	{ "uint", 4, false }, { "ushort", 2, false }, { "ulong", 8, false },
	{ "u_int", 4, false }, { "u_char", 1, false }, { "u_short", 2, false },
	{ "u_long", 8, false }, { "u8", 1, false }, { "u16", 2, false },
	{ "u32", 4, false }, { "u64", 8, false }, { "s8", 1, true },
	{ "s16", 2, true }, { "s32", 4, true }, { "s64", 8, true },
	{ "__u8", 1, false }, { "__u16", 2, false }, { "__u32", 4, false },
	{ "__u64", 8, false }, { "__s8", 1, true }, { "__s16", 2, true },
	{ "__s32", 4, true }, { "__s64", 8, true }, { "dev_t", 4, false },
	{ "ipaddr_t", 4, false }, { "zoneid_t", 4, true },
	{ "taskid_t", 4, true }, { "projid_t", 4, true },
	{ "mode_t", 4, false }, { "loff_t", 8, true },
	{ "bool", 1, false },	/* the kernel's */
};

/* psinfo_t, lwpsinfo_t, siginfo_t, cpuinfo_t: the structs D's own
 * translators make (xlate.c), as types for xlate <psinfo_t *>(t) and
 * declarations; members are known only through their pointers. */
static bool xlate_type(struct parser *p, const char *s, struct dt_type *t)
{
	for (int xl = DT_XL_PSINFO; xl <= DT_XL_CPUINFO; xl++)
		if (!strcmp(dt_xlate_name(xl), s)) {
			struct dt_ctype *ct = dt_ctype_new(p->cc, false, s);

			dt_ctype_end(ct);
			*t = (struct dt_type){ .kind = DT_TSOU, .ct = ct,
					       .xlate = (uint8_t)xl };
			return true;
		}
	return false;
}

static int typedef_index(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(typedefs); i++)
		if (!strcmp(typedefs[i].name, s))
			return (int)i;
	return -1;
}

/* A typedef the program declared. */
static struct dt_cname *user_typedef(struct parser *p, const char *s)
{
	struct dt_cname *c = dt_cname_find(p->prog, DT_CN_TYPEDEF,
					   !strncmp(s, "D`", 2) ? s + 2 : s);

	return c && c->kind == DT_CN_TYPEDEF ? c : NULL;
}

static struct dt_type parse_type(struct parser *p);
static struct dt_node *ternary(struct parser *p);
static struct dt_type sou_spec(struct parser *p);
static void param_list(struct parser *p, bool array, const char *name);
static struct dt_token member_name(struct parser *p);
static struct dt_type enum_spec(struct parser *p);

static bool is_word(const struct dt_token *t, const char *w)
{
	return t->t == T_RESERVED && t->len == strlen(w) &&
	       !strncmp(t->start, w, t->len);
}

/* float and double: lexed as reserved words */
static int float_word(const struct dt_token *t)
{
	if (t->t != T_RESERVED)
		return 0;
	if (t->len == 5 && !strncmp(t->start, "float", 5))
		return 4;
	if (t->len == 6 && !strncmp(t->start, "double", 6))
		return 8;
	return 0;
}

static bool starts_type(struct parser *p)
{
	struct dt_token *t = peek(p);

	if (float_word(t))
		return true;
	switch (t->t) {
	case T_SIGNED: case T_UNSIGNED: case T_CHAR_KW: case T_SHORT:
	case T_INT_KW: case T_LONG: case T_VOID: case T_STRING_KW:
	case T_CONST: case T_VOLATILE: case T_STRUCT: case T_UNION:
	case T_ENUM:
		return true;
	case T_IDENT: {
		struct dt_type xt;

		return typedef_index(t->sval) >= 0 ||
		       user_typedef(p, t->sval) ||
		       (!user_typedef(p, t->sval) &&
			xlate_type(p, t->sval, &xt));
	}
	default:
		return false;
	}
}

/* C's name of an integer type (libctf's, for print()). */
static const char *int_name(int base, int sign, int nlong)
{
	static const char *const names[2][5] = {
		{ "char", "short", "int", "long", "long long" },
		{ "unsigned char", "unsigned short", "unsigned int",
		  "unsigned long", "unsigned long long" },
	};
	int i = base == T_CHAR_KW ? 0 : base == T_SHORT ? 1 : 2 + nlong;

	if (base == T_CHAR_KW && sign > 0)
		return "signed char";
	return names[sign < 0][i];
}

/* A type name: C's integer specifiers, D's string, the usual typedefs,
 * and pointers to them. */
static struct dt_type parse_type(struct parser *p)
{
	struct dt_loc loc = peek(p)->loc;
	int sign = 0, nlong = 0, base = 0;	/* base: token or typedef */
	struct dt_type t = { 0 }, named = { 0 };
	bool have_named = false;	/* struct, union, enum, user typedef */
	struct dt_cname *c;
	int td = -1;

	p->tagged = false;

	for (;;) {
		struct dt_token *k = peek(p);

		if (k->t == T_CONST || k->t == T_VOLATILE) {
			next(p);
		} else if (k->t == T_SIGNED || k->t == T_UNSIGNED) {
			if (sign)
				dt_error(p->cc, &k->loc, "duplicate signed or "
					 "unsigned in a type");
			sign = k->t == T_SIGNED ? 1 : -1;
			next(p);
		} else if (k->t == T_LONG) {
			if (++nlong > 2)
				dt_error(p->cc, &k->loc, "'long long long' is "
					 "too long");
			next(p);
		} else if ((k->t == T_INT_KW && base == T_SHORT) ||
			   (k->t == T_SHORT && base == T_INT_KW)) {
			base = T_SHORT;		/* short int */
			next(p);
		} else if (k->t == T_VOID && (base == T_SHORT || sign ||
					      nlong)) {
			dt_cerror(p->cc, &k->loc, D_DECL_VOIDATTR, "invalid type "
				  "declaration: attributes may not be used with "
				  "void type");
		} else if ((k->t == T_CHAR_KW || k->t == T_SHORT ||
			    k->t == T_INT_KW || k->t == T_VOID ||
			    k->t == T_STRING_KW || float_word(k)) &&
			   (base || td >= 0 || have_named)) {
			dt_cerror(p->cc, &k->loc, D_DECL_COMBO,
				  "invalid type combination");
		} else if ((k->t == T_CHAR_KW || k->t == T_SHORT ||
			    k->t == T_INT_KW || k->t == T_VOID ||
			    k->t == T_STRING_KW) && !base && td < 0 &&
			   !have_named) {
			base = k->t;
			next(p);
		} else if (float_word(k) && !base && td < 0 && !have_named) {
			base = -float_word(k);	/* -4 float, -8 double */
			next(p);
		} else if (k->t == T_IDENT && !base && td < 0 && !sign &&
			   !nlong && !have_named &&
			   typedef_index(k->sval) >= 0) {
			td = typedef_index(k->sval);
			next(p);
		} else if (k->t == T_STRUCT || k->t == T_UNION ||
			   k->t == T_ENUM) {
			if ((sign || nlong) && !base && td < 0 &&
			    !have_named) {
				/* dtrace(1) sees it after the tag */
				struct dt_loc at;

				next(p);
				if (peek(p)->t == T_IDENT)
					next(p);
				at = peek(p)->loc;
				if (sign)
					dt_cerror(p->cc, &at, D_DECL_SIGNINT,
						  "invalid type declaration: "
						  "signed and unsigned may only "
						  "be used with integer type");
				dt_cerror(p->cc, &at, D_DECL_LONGINT, "invalid "
					  "type declaration: long and long long "
					  "may only be used with integer or "
					  "floating-point type");
			}
			if (base || td >= 0 || sign || nlong || have_named)
				dt_cerror(p->cc, &k->loc, D_DECL_COMBO,
					  "invalid type combination");
			named = k->t == T_ENUM ? enum_spec(p) : sou_spec(p);
			have_named = true;
			p->tagged = true;
		} else if (k->t == T_IDENT && !base && td < 0 && !sign &&
			   !nlong && !have_named &&
			   (c = user_typedef(p, k->sval))) {
			named = c->type;
			named.name = c->name;
			have_named = true;
			next(p);
		} else if (k->t == T_IDENT && !base && td < 0 && !sign &&
			   !nlong && !have_named && xlate_type(p, k->sval,
							      &named)) {
			have_named = true;
			next(p);
		} else {
			break;
		}
	}
	if (have_named) {
		if (base || td >= 0 || sign || nlong)
			dt_cerror(p->cc, &loc, D_DECL_COMBO,
				  "invalid type combination");
		t = named;
	} else if (td >= 0) {
		t.kind = DT_TINT;
		t.size = typedefs[td].size;
		t.sign = typedefs[td].sign;
		t.name = typedefs[td].name;
	} else if (base < 0) {
		if (sign)
			dt_cerror(p->cc, &loc, D_DECL_SIGNINT, "invalid type "
				  "declaration: signed and unsigned may only be "
				  "used with integer type");
		if (nlong && base == -4)
			dt_cerror(p->cc, &loc, D_DECL_COMBO,
				  "invalid type combination");
		t.kind = DT_TFLOAT;
		t.size = nlong ? 16 : (uint8_t)-base;
		t.sign = true;
	} else if (base == T_VOID || base == T_STRING_KW) {
		if (sign || nlong)
			dt_error(p->cc, &loc, "invalid type specifiers");
		t.kind = base == T_VOID ? DT_TVOID : DT_TSTR;
	} else {
		t.kind = DT_TINT;
		t.sign = sign >= 0;
		if (base == T_CHAR_KW)
			t.size = 1;
		else if (base == T_SHORT)
			t.size = 2;
		else
			t.size = nlong ? 8 : 4;
		t.name = int_name(base, sign, nlong);
		if (base == T_CHAR_KW && nlong)
			dt_cerror(p->cc, &loc, D_DECL_CHARATTR, "invalid type "
				  "declaration: short and long may not be used "
				  "with char type");
		if (base == T_SHORT && nlong)
			dt_cerror(p->cc, &loc, D_UNKNOWN_CTF, "failed to "
				  "resolve type short long : Unknown type name");
		if (!base && !sign && !nlong && peek(p)->t == T_IDENT) {
			/* DTrace's lexer makes a name that is no type an
			 * identifier: "typedef pint new_int;" is wrong at
			 * new_int */
			struct dt_lexer save = p->lx;
			struct dt_token tsave = p->tok;

			next(p);
			if (peek(p)->t == T_IDENT)
				syntax(p, "expected a type");
			p->lx = save;
			p->tok = tsave;
			p->have = true;
		}
		if (!base && !sign && !nlong)
			syntax(p, "expected a type");
	}
	while (peek(p)->t == T_STAR) {
		next(p);
		t = dt_ptr_type(p->cc, &t);
	}
	return t;
}

/* An integer constant expression (enumerator values, array sizes). */
static bool const_value(const struct dt_node *n, int64_t *v)
{
	int64_t a, b;

	switch (n->kind) {
	case N_INT:
		*v = (int64_t)n->ival;
		return true;
	case N_UNARY:
		if (!const_value(n->a, &a))
			return false;
		switch (n->op) {
		case T_MINUS: *v = -a; return true;
		case T_PLUS: *v = a; return true;
		case T_TILDE: *v = ~a; return true;
		case T_BANG: *v = !a; return true;
		default: return false;
		}
	case N_BINARY:
		if (!const_value(n->a, &a) || !const_value(n->b, &b))
			return false;
		switch (n->op) {
		case T_PLUS: *v = a + b; return true;
		case T_MINUS: *v = a - b; return true;
		case T_STAR: *v = a * b; return true;
		case T_SLASH: case T_PERCENT:
			if (!b)
				return false;
			*v = n->op == T_SLASH ? a / b : a % b;
			return true;
		case T_SHL: *v = (int64_t)((uint64_t)a << (b & 63)); return true;
		case T_SHR: *v = a >> (b & 63); return true;
		case T_AMP: *v = a & b; return true;
		case T_PIPE: *v = a | b; return true;
		case T_CARET: *v = a ^ b; return true;
		case T_LT: *v = a < b; return true;
		case T_GT: *v = a > b; return true;
		case T_LE: *v = a <= b; return true;
		case T_GE: *v = a >= b; return true;
		case T_EQ: *v = a == b; return true;
		case T_NE: *v = a != b; return true;
		default: return false;
		}
	default:
		return false;
	}
}

static const char *tag_kind(int kind)
{
	return kind == DT_CN_UNION ? "union" : kind == DT_CN_ENUM ? "enum" :
	       "struct";
}

/* D`name: a type of the program's own ("D" module). */
static const char *own_name(const char *s)
{
	return !strncmp(s, "D`", 2) ? s + 2 : s;
}

/* "struct foo" for messages. */
static const char *sou_name(struct parser *p, const struct dt_type *t)
{
	const struct dt_ctype *ct = t->ct;
	/* dtrace-utils names a union only declared ahead "struct" (a CTF
	 * forward), one whose definition is being read "union"
	 * (test/unittest/union/err.D_DECL_INCOMPLETE.*) */
	const char *kw = ct->is_union && ct->open ? "union" : "struct";

	if (!ct->tag)
		return kw;
	char *b = dt_alloc(&p->cc->arena, strlen(ct->tag) + 8);

	sprintf(b, "%s %s", kw, ct->tag);
	return b;
}

/* [N] after a declarator's name: an array of N (each [ ] in turn). */
static struct dt_type array_suffix(struct parser *p, struct dt_type t,
				   const char *name)
{
	uint64_t dims[8];
	int nd = 0;

	while (peek(p)->t == T_LBRACK) {
		struct dt_lexer save = p->lx;
		struct dt_token tsave = p->tok;
		struct dt_token open = next(p);

		if (peek(p)->t == T_RBRACK && p->is_extern) {
			next(p);	/* a kernel array of unknown size */
			continue;
		}
		if (peek(p)->t == T_RBRACK)
			dt_cerror(p->cc, &open.loc, D_DECL_ARRNULL, "array "
				  "declaration requires array dimension or "
				  "tuple signature: %s", name);
		if (peek(p)->t == T_MINUS)
			dt_cerror(p->cc, &open.loc, D_DECL_ARRSUB, "positive "
				  "integral constant expression or tuple "
				  "signature expected as array declaration "
				  "subscript");
		if (peek(p)->t != T_INT) {
			p->lx = save;
			p->tok = tsave;
			p->have = true;
			break;
		}
		struct dt_token n = next(p);

		expect(p, T_RBRACK);
		if (nd == (int)ARRAY_SIZE(dims))
			dt_error(p->cc, &open.loc, "too many array dimensions");
		if (n.ival > UINT32_MAX)
			dt_cerror(p->cc, &n.loc, D_DECL_ARRBIG, "array "
				  "dimension too big");
		if (!n.ival)
			dt_cerror(p->cc, &n.loc, D_DECL_ARRSUB, "positive "
				  "integral constant expression or tuple "
				  "signature expected as array declaration "
				  "subscript");
		dims[nd++] = n.ival;
	}
	if (nd && (t.kind == DT_TSTR || t.kind == DT_TVOID))
		dt_error(p->cc, &peek(p)->loc, "not supported: arrays of %s",
			 t.kind == DT_TSTR ? "string" : "void");
	/* int a[2][3]: two arrays of three */
	while (nd > 0) {
		t = dt_array_type(p->cc, &t, dims[--nd]);
		if (t.ct->size > (1u << 20) && !p->is_extern)
			dt_error(p->cc, &peek(p)->loc, "not supported: arrays "
				 "over 1 MiB (%s)", name);
	}
	return t;
}

/* NAME : WIDTH (name NULL: unnamed), as DTrace declares a bit-field: an
 * integer type of WIDTH bits; an unnamed one of width 0 is dropped. */
static void bitfield(struct parser *p, struct dt_ctype *ct,
		     const struct dt_type *base, const char *name)
{
	struct dt_token colon = next(p);
	struct dt_node *w = ternary(p);
	struct dt_type t = *base;
	int64_t v = 0;

	(void)colon;
	if (!const_value(w, &v) || v < 0 || (v == 0 && name))
		dt_cerror(p->cc, &w->loc, D_DECL_BFCONST, "positive integral "
			  "constant expression expected as bit-field size");
	if (!name && v == 0)
		return;
	if (base->kind != DT_TINT || base->bits)
		dt_cerror(p->cc, &w->loc, D_DECL_BFTYPE, "invalid type for "
			  "bit-field: %s", name ? name : "(anon)");
	if (v > base->size * 8)
		dt_cerror(p->cc, &w->loc, D_DECL_BFSIZE, "bit-field too big "
			  "for type: %s", name ? name : "(anon)");
	t.bits = (uint8_t)v;
	if (!dt_ctype_add(p->cc, ct, name, &t))
		dt_cerror(p->cc, &w->loc, D_UNKNOWN_CTF, "failed to define "
			  "member '%s': Duplicate member or variable name",
			  name);
}

/* struct/union [tag] [{ members }] */
static struct dt_type sou_spec(struct parser *p)
{
	struct dt_token kw = next(p);
	bool is_union = kw.t == T_UNION;
	int kind = is_union ? DT_CN_UNION : DT_CN_STRUCT;
	struct dt_cname *c = NULL;
	const char *tag = NULL;
	struct dt_ctype *ct;
	struct dt_type t = { 0 };

	if (peek(p)->t == T_IDENT) {
		struct dt_token id = next(p);

		tag = own_name(id.sval);
		c = dt_cname_find(p->prog, kind, tag);
		if (c && c->kind != kind)
			dt_cerror(p->cc, &id.loc, D_DECL_TYPERED, "%s %s "
				  "redeclared as %s", tag_kind(c->kind), tag,
				  tag_kind(kind));
	}
	if (peek(p)->t != T_LBRACE) {
		if (!tag)
			syntax(p, "expected a tag or '{'");
		if (!c && dt_btf_sou(p->cc, is_union, tag, &t)) {
			/* the kernel's (BTF), when the program has none */
			dt_btf_complete(p->cc, (struct dt_ctype *)t.ct);
			return t;
		}
		if (!c) {
			/* a forward reference: incomplete until defined */
			c = dt_cname_add(p->cc, p->prog, kind, tag, &kw.loc);
			c->type.kind = DT_TSOU;
			c->type.ct = dt_ctype_new(p->cc, is_union, tag);
		}
		return c->type;
	}
	struct dt_token brace = next(p);

	/* DTrace defines the type at its '{' (dt_decl_sou) */
	if (c && c->type.ct->complete)
		dt_cerror(p->cc, &brace.loc, D_DECL_TYPERED, "type redeclared: "
			  "%s %s", tag_kind(kind), tag);
	ct = c ? (struct dt_ctype *)c->type.ct :
	     dt_ctype_new(p->cc, is_union, tag);
	t.kind = DT_TSOU;
	t.ct = ct;
	ct->open = true;
	if (tag && !c) {
		c = dt_cname_add(p->cc, p->prog, kind, tag, &kw.loc);
		c->type = t;
	}
	if (peek(p)->t == T_RBRACE)
		syntax(p, "a struct or union needs members");
	while (!accept(p, T_RBRACE)) {
		struct dt_type mt = parse_type(p);
		bool tagged = p->tagged;

		if (tagged && mt.kind == DT_TSOU && accept(p, T_SEMI)) {
			/* an unnamed struct or union member */
			if (!mt.ct->tag)
				dt_ctype_add(p->cc, ct, NULL, &mt);
			continue;
		}
		do {
			struct dt_token id = { 0 };
			struct dt_type vt;

			if (peek(p)->t == T_COLON) {
				/* an unnamed bit-field: padding */
				bitfield(p, ct, &mt, NULL);
				continue;
			}
			if (peek(p)->t == T_LPAREN) {
				/* int (*fp)(); int (*afp[2])(): pointers to
				 * functions, 8 bytes each */
				struct dt_type fp = dt_ptr_type(p->cc, &dt_void);

				next(p);
				if (!accept(p, T_STAR))
					syntax(p, "a member in ( ) must be a "
					       "pointer to a function");
				while (accept(p, T_STAR))
					;
				id = expect(p, T_IDENT);
				vt = array_suffix(p, fp, id.sval);
				expect(p, T_RPAREN);
				if (peek(p)->t == T_LPAREN)
					param_list(p, false, id.sval);
				if (!dt_ctype_add(p->cc, ct, id.sval, &vt))
					dt_cerror(p->cc, &id.loc, D_UNKNOWN_CTF,
						  "failed to define member "
						  "'%s': Duplicate member or "
						  "variable name", id.sval);
				continue;
			}
			id = expect(p, T_IDENT);
			if (peek(p)->t == T_LPAREN ||
			    (mt.kind == DT_TVOID))
				dt_cerror(p->cc, &id.loc, D_DECL_VOIDOBJ,
					  "cannot have void member: %s",
					  id.sval);
			if (peek(p)->t == T_COLON) {
				bitfield(p, ct, &mt, id.sval);
				continue;
			}
			vt = array_suffix(p, mt, id.sval);
			if (mt.kind == DT_TSOU && !mt.ct->complete)
				dt_cerror(p->cc, &id.loc, D_DECL_INCOMPLETE,
					  "incomplete struct/union/enum %s: "
					  "%s", sou_name(p, &mt), id.sval);
			if (mt.kind == DT_TSTR)
				dt_error(p->cc, &id.loc, "not supported: "
					 "string members in this version");
			if (!dt_ctype_add(p->cc, ct, id.sval, &vt))
				dt_cerror(p->cc, &id.loc, D_UNKNOWN_CTF,
					  "failed to define member '%s': "
					  "Duplicate member or variable name",
					  id.sval);
		} while (accept(p, T_COMMA));
		expect(p, T_SEMI);
	}
	dt_ctype_end(ct);
	ct->open = false;
	return t;
}

/* enum [tag] [{ NAME [= constant], ... }]: its values are ints. */
static struct dt_type enum_spec(struct parser *p)
{
	struct dt_token kw = next(p);
	struct dt_type t = { DT_TINT, 4, true };
	struct dt_cname *c = NULL, *first;
	const char *tag = NULL;
	int64_t v = 0;

	t.name = "enum";
	if (peek(p)->t == T_IDENT) {
		struct dt_token id = next(p);
		char *nm;

		tag = own_name(id.sval);
		c = dt_cname_find(p->prog, DT_CN_ENUM, tag);
		if (c && c->kind != DT_CN_ENUM)
			dt_cerror(p->cc, &id.loc, D_DECL_TYPERED, "%s %s "
				  "redeclared as enum", tag_kind(c->kind), tag);
		nm = dt_alloc(&p->cc->arena, strlen(tag) + 6);
		sprintf(nm, "enum %s", tag);
		t.name = c && c->type.name ? c->type.name : nm;
	}
	struct dt_loc brace = peek(p)->loc;

	if (!accept(p, T_LBRACE)) {
		if (!tag)
			syntax(p, "expected a tag or '{'");
		return t;
	}
	if (!tag)	/* its own string: its enumerators say whose they are */
		t.name = dt_strdup(&p->cc->arena, "enum");
	/* DTrace defines the type at its '{' (dt_decl_enum) */
	if (c)
		dt_cerror(p->cc, &brace, D_DECL_TYPERED, "type redeclared: "
			  "enum %s", tag);
	if (tag) {
		c = dt_cname_add(p->cc, p->prog, DT_CN_ENUM, tag, &kw.loc);
		c->type = t;
	}
	first = p->prog->cnames;
	do {
		if (peek(p)->t == T_RBRACE && first != p->prog->cnames)
			break;	/* a trailing comma */
		struct dt_token id = expect(p, T_IDENT);
		struct dt_cname *e = dt_cname_find(p->prog, DT_CN_ENUMERATOR,
						   id.sval);

		if (accept(p, T_ASSIGN)) {
			struct dt_node *x = ternary(p);

			/* dtrace(1) names the line where the enumerator
			 * ends */
			if (!const_value(x, &v))
				dt_cerror(p->cc, &peek(p)->loc, D_DECL_ENCONST,
					  "enumerator '%s' must be assigned to "
					  "an integral constant expression",
					  id.sval);
		}
		if (v > INT32_MAX || v < INT32_MIN)
			dt_cerror(p->cc, &peek(p)->loc, D_DECL_ENOFLOW,
				  "enumerator '%s' value overflows INT_MAX "
				  "(2147483647)", id.sval);
		if (e) {
			bool mine = false;

			for (struct dt_cname *o = p->prog->cnames; o != first;
			     o = o->next)
				mine |= o == e;
			/* the line where the enumerator ends, as dtrace(1)
			 * says */
			if (mine)
				dt_cerror(p->cc, &peek(p)->loc, D_UNKNOWN_CTF,
					  "failed to "
					  "define enumerator '%s': Duplicate "
					  "member or variable name", id.sval);
			dt_cerror(p->cc, &peek(p)->loc, D_DECL_IDRED,
				  "identifier redeclared: %s", id.sval);
		}
		e = dt_cname_add(p->cc, p->prog, DT_CN_ENUMERATOR, id.sval,
				 &id.loc);
		e->type = t;
		e->val = v++;
	} while (accept(p, T_COMMA));
	expect(p, T_RBRACE);
	return t;
}

/* ---- macro arguments ---- */

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* The text of $name; NULL when it has none. $N marks argument N used
 * (an argument no program uses is refused, as dtrace(1) does). */
static const char *macro_text(struct parser *p, const char *name, char *buf,
			      size_t len)
{
	struct dt_macros *m = p->prog->macros;

	if (all_digits(name)) {
		long i = strtol(name, NULL, 10);

		if (!m || i >= m->argc) {
			if (p->prog->opt.defaultargs)
				return NULL;
			return NULL;
		}
		if (m->used && i < m->argc)
			m->used[i] = true;
		return m->argv[i];
	}
	if (!strcmp(name, "target"))
		snprintf(buf, len, "%ld", m && m->target > 0 ? m->target : 0);
	else if (!strcmp(name, "pid"))
		snprintf(buf, len, "%d", (int)getpid());
	else if (!strcmp(name, "ppid"))
		snprintf(buf, len, "%d", (int)getppid());
	else if (!strcmp(name, "pgid"))
		snprintf(buf, len, "%d", (int)getpgid(0));
	else if (!strcmp(name, "sid"))
		snprintf(buf, len, "%d", (int)getsid(0));
	else if (!strcmp(name, "uid"))
		snprintf(buf, len, "%u", (unsigned)getuid());
	else if (!strcmp(name, "euid"))
		snprintf(buf, len, "%u", (unsigned)geteuid());
	else if (!strcmp(name, "gid"))
		snprintf(buf, len, "%u", (unsigned)getgid());
	else if (!strcmp(name, "egid"))
		snprintf(buf, len, "%u", (unsigned)getegid());
	else
		return NULL;
	return buf;
}

static _Noreturn void no_macro(struct parser *p, const struct dt_loc *loc,
			       const char *name, bool str)
{
	if (all_digits(name))
		dt_cerror(p->cc, loc, D_MACRO_UNDEF, "macro argument $%s%s is "
			  "not defined", str ? "$" : "", name);
	dt_cerror(p->cc, loc, D_MACRO_UNDEF, "macro variable $%s%s is not "
		  "defined", str ? "$" : "", name);
}

/* ---- expressions ---- */

static struct dt_node *expr(struct parser *p);
static struct dt_node *assign_expr(struct parser *p);
static struct dt_node *unary(struct parser *p);
static struct dt_node *ternary(struct parser *p);

static struct dt_node *int_node(struct parser *p, const struct dt_loc *loc,
				uint64_t v, bool is_unsigned, bool is_long)
{
	struct dt_node *n = node(p, N_INT, loc);

	n->ival = v;
	n->type.kind = DT_TINT;
	if (!is_long && v <= INT32_MAX) {
		n->type.size = 4;
		n->type.sign = !is_unsigned;
	} else if (!is_long && !is_unsigned && v <= UINT32_MAX) {
		n->type.size = 4;
		n->type.sign = false;
	} else {
		n->type.size = 8;
		n->type.sign = !is_unsigned && v <= INT64_MAX;
	}
	return n;
}

static struct dt_node *str_node(struct parser *p, const struct dt_loc *loc,
				const char *s, size_t len)
{
	struct dt_node *n;

	if (len > DT_STR_LITERAL_MAX)
		dt_error(p->cc, loc, "string literal longer than %d bytes",
			 DT_STR_LITERAL_MAX);
	n = node(p, N_STR, loc);
	n->sval = dt_strndup(&p->cc->arena, s, len);
	n->type.kind = DT_TSTR;
	n->type.ssize = (uint16_t)(len + 1);
	return n;
}

/* Not an integer as strtoull reads one, nor an identifier: the text of a
 * macro argument stands for a string (DTrace's strbadidnum). */
static bool bad_ident_num(const char *s)
{
	char *end;

	if (!*s)
		return true;
	errno = 0;
	strtoull(s, &end, 0);
	if (!errno && !*end)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '`')
			return true;
	return false;
}

/* $N, $$N, $name, $$name: the argument's text read as DTrace's lexer
 * reads it (an integer, an identifier, or else a string), or for $$ a
 * string. */
static struct dt_node *macro(struct parser *p, const struct dt_token *t)
{
	char buf[32];
	const char *text = macro_text(p, t->sval, buf, sizeof(buf));
	bool digits = all_digits(t->sval);
	char *end;

	if (!text) {
		if (!digits || !p->prog->opt.defaultargs)
			no_macro(p, &t->loc, t->sval, t->ival);
		text = t->ival ? "" : "0";
	}
	if (t->ival)	/* $$N */
		return str_node(p, &t->loc, text, strlen(text));
	if (!digits)	/* $pid ...: an integer */
		return int_node(p, &t->loc, strtoull(text, NULL, 10), false,
				false);
	if (bad_ident_num(text)) {
		size_t n = strlen(text);

		if (n > 1 && text[0] == '"' && text[n - 1] == '"')
			return str_node(p, &t->loc, text + 1, n - 2);
		return str_node(p, &t->loc, text, n);
	}
	if (isdigit((unsigned char)*text) || *text == '-' || *text == '+') {
		const char *v = isdigit((unsigned char)*text) ? text : text + 1;
		uint64_t x;

		errno = 0;
		x = strtoull(v, &end, 0);
		if (errno == ERANGE)
			dt_cerror(p->cc, &t->loc, D_MACRO_OFLOW, "macro argument "
				  "$%s constant %s results in integer overflow",
				  t->sval, v);
		struct dt_node *n = int_node(p, &t->loc, x, false, false);

		if (*text != '-')
			return n;
		struct dt_node *u = node(p, N_UNARY, &t->loc);

		u->op = T_MINUS;
		u->a = n;
		return u;
	}
	struct dt_node *n = node(p, N_VAR, &t->loc);

	n->name = dt_strdup(&p->cc->arena, text);
	return n;
}

/* Arguments up to ')' or ']'. */
static void arg_list(struct parser *p, struct dt_node *n, enum dt_tok close)
{
	struct dt_node *args[64];
	int na = 0;

	/* D's [ ] take at least one key */
	if (peek(p)->t != close || close == T_RBRACK) {
		do {
			if (na == (int)ARRAY_SIZE(args))
				syntax(p, "too many arguments");
			args[na++] = assign_expr(p);
		} while (accept(p, T_COMMA));
	}
	expect(p, close);
	n->nargs = na;
	n->args = dt_alloc(&p->cc->arena, sizeof(*args) * (na ? na : 1));
	memcpy(n->args, args, sizeof(*args) * na);
}

/* A copy of an expression (an inline's definition, wherever it is used),
 * placed at loc. */
static struct dt_node *clone_expr(struct parser *p, const struct dt_node *e,
				  const struct dt_loc *loc)
{
	struct dt_node *n;

	if (!e)
		return NULL;
	n = dt_alloc(&p->cc->arena, sizeof(*n));
	*n = *e;
	n->loc = *loc;
	n->a = clone_expr(p, e->a, loc);
	n->b = clone_expr(p, e->b, loc);
	n->c = clone_expr(p, e->c, loc);
	if (e->nargs > 0) {
		n->args = dt_alloc(&p->cc->arena, sizeof(*n->args) * e->nargs);
		for (int i = 0; i < e->nargs; i++)
			n->args[i] = clone_expr(p, e->args[i], loc);
	}
	return n;
}

static struct dt_node *primary(struct parser *p)
{
	struct dt_token t = next(p);
	struct dt_node *n;

	switch (t.t) {
	case T_INT:
		return int_node(p, &t.loc, t.ival, t.is_unsigned, t.is_long);
	case T_CHAR:
		n = node(p, N_INT, &t.loc);
		n->ival = t.ival;
		/* an int, as in C and DTrace (its lexer makes it DT_TOK_INT) */
		n->type = (struct dt_type){ DT_TINT, 4, true, 0, 0, false };
		return n;
	case T_STR: {
		/* Adjacent literals concatenate, as in C. */
		struct abuf ab = { 0 };

		abuf_put(&p->cc->arena, &ab, t.sval, t.len);
		while (peek(p)->t == T_STR) {
			struct dt_token u = next(p);

			abuf_put(&p->cc->arena, &ab, u.sval, u.len);
		}
		return str_node(p, &t.loc, ab.b, ab.n);
	}
	case T_MACRO:
		return macro(p, &t);
	case T_IDENT:
		if (peek(p)->t == T_LPAREN) {
			next(p);
			n = node(p, N_CALL, &t.loc);
			n->name = t.sval;
			arg_list(p, n, T_RPAREN);
			return n;
		}
		if (peek(p)->t == T_LBRACK) {
			next(p);
			n = node(p, N_INDEX, &t.loc);
			n->name = t.sval;
			arg_list(p, n, T_RBRACK);
			return n;
		}
		/* an inline: its definition, as its declared type */
		for (struct dt_inline *in = p->prog->inlines; in; in = in->next)
			if (!strcmp(in->name, t.sval)) {
				n = node(p, N_CAST, &t.loc);
				n->cast = in->type;
				n->a = clone_expr(p, in->expr, &t.loc);
				return n;
			}
		struct dt_cname *e = dt_cname_find(p->prog, DT_CN_ENUMERATOR,
						   t.sval);

		if (e && e->kind == DT_CN_ENUMERATOR) {
			n = node(p, N_INT, &t.loc);
			n->ival = (uint64_t)e->val;
			n->type = e->type;
			return n;
		}
		n = node(p, N_VAR, &t.loc);
		n->name = t.sval;
		return n;
	case T_AGG:
		n = node(p, N_AGG, &t.loc);
		n->name = t.sval;
		if (accept(p, T_LBRACK)) {
			arg_list(p, n, T_RBRACK);
		} else {
			n->nargs = -1;	/* no brackets */
		}
		return n;
	case T_SELF:
	case T_THIS: {
		struct dt_token m;

		if (peek(p)->t != T_ARROW)
			syntax(p, t.t == T_SELF ? "expected '->' after self" :
			       "expected '->' after this");
		next(p);
		m = member_name(p);
		n = node(p, t.t == T_SELF ? N_SELF : N_THIS, &t.loc);
		n->name = m.sval;
		if (peek(p)->t == T_LBRACK) {
			/* self->a[k]: a thread-local associative array, an
			 * array named "self->a" keyed by thread too; or an
			 * element of a string or through a pointer (types.c
			 * tells them apart, and refuses this->a[k]) */
			char *nm = dt_alloc(&p->cc->arena, strlen(m.sval) + 7);

			sprintf(nm, "%s->%s", t.t == T_SELF ? "self" : "this",
				m.sval);
			next(p);
			n->kind = N_INDEX;
			n->name = nm;
			n->op = t.t;
			arg_list(p, n, T_RBRACK);
			return n;
		}
		return n;
	}
	case T_LPAREN:
		n = expr(p);
		expect(p, T_RPAREN);
		return n;
	case T_RESERVED:
		if (is_word(&t, "xlate")) {
			/* xlate <type> (expr): translated by a translator */
			n = node(p, N_XLATE, &t.loc);
			expect(p, T_LT);
			n->cast = parse_type(p);
			expect(p, T_GT);
			expect(p, T_LPAREN);
			n->a = expr(p);
			expect(p, T_RPAREN);
			return n;
		}
		p->tok = t;
		p->have = true;
		syntax(p, "a D keyword sonde does not support here");
	default:
		p->tok = t;
		p->have = true;
		syntax(p, "expected an expression");
	}
}

/* The name after '.' or '->': DTrace's lexer reads any word there as an
 * identifier (its SIDENT state), a keyword too (cgroup->self). */
static struct dt_token member_name(struct parser *p)
{
	struct dt_token *t = peek(p);

	if (t->t >= T_KW_FIRST && t->t < T_NTOKENS) {
		t->sval = dt_strndup(&p->cc->arena, t->start, t->len);
		t->t = T_IDENT;
	}
	return expect(p, T_IDENT);
}

static struct dt_node *postfix(struct parser *p)
{
	struct dt_node *n = primary(p);

	for (;;) {
		struct dt_token *t = peek(p);

		if (t->t == T_INC || t->t == T_DEC) {
			struct dt_node *u = node(p, N_POSTINC, &t->loc);

			u->op = t->t;
			u->a = n;
			next(p);
			n = u;
		} else if (t->t == T_ARROW || t->t == T_DOT) {
			struct dt_node *m = node(p, N_MEMBER, &t->loc);
			int op = t->t;

			next(p);
			m->op = op;
			m->name = member_name(p).sval;
			m->a = n;
			n = m;
		} else if (t->t == T_LBRACK) {
			/* e[i] is *(e + i), as in C */
			struct dt_node *d = node(p, N_UNARY, &t->loc);
			struct dt_node *add = node(p, N_BINARY, &t->loc);

			next(p);
			add->op = T_PLUS;
			add->subscript = true;
			add->a = n;
			add->b = expr(p);
			expect(p, T_RBRACK);
			d->op = T_STAR;
			d->a = add;
			n = d;
		} else if (t->t == T_LPAREN) {
			dt_cerror(p->cc, &t->loc, D_FUNC_IDENT, "function "
				  "designator is not of function type");
		} else {
			return n;
		}
	}
}

static struct dt_node *unary_rule(struct parser *p)
{
	struct dt_token *t = peek(p);
	struct dt_loc loc = t->loc;
	struct dt_node *n;

	switch (t->t) {
	case T_BANG: case T_TILDE: case T_MINUS: case T_PLUS: {
		int op = t->t;

		next(p);
		n = node(p, N_UNARY, &loc);
		n->op = op;
		n->a = unary(p);
		return n;
	}
	case T_INC: case T_DEC: {
		int op = t->t;

		next(p);
		n = node(p, N_PREINC, &loc);
		n->op = op;
		n->a = unary(p);
		return n;
	}
	case T_STAR:
		/* *ptr: reads kernel memory (types.c, cg.c) */
		next(p);
		n = node(p, N_UNARY, &loc);
		n->op = T_STAR;
		n->a = unary(p);
		return n;
	case T_AMP:
		/* &x: the address of an object in memory (types.c) */
		next(p);
		n = node(p, N_UNARY, &loc);
		n->op = T_AMP;
		n->a = unary(p);
		return n;
	case T_OFFSETOF: {
		struct dt_type st;
		struct dt_token m;
		uint64_t off;

		next(p);
		expect(p, T_LPAREN);
		if (!starts_type(p))
			syntax(p, "offsetof needs a type");
		st = parse_type(p);
		expect(p, T_COMMA);
		m = expect(p, T_IDENT);
		expect(p, T_RPAREN);
		if (st.kind != DT_TSOU || !st.ct->complete)
			dt_cerror(p->cc, &loc, D_OFFSETOF_TYPE, "offsetof operand "
				  "must be a struct or union type");
		struct dt_type mt;

		if (!dt_ctype_member(st.ct, m.sval, &off, &mt))
			dt_cerror(p->cc, &m.loc, D_UNKNOWN_CTF, "failed to "
				  "determine offset of %s: Member name not "
				  "found", m.sval);
		if (mt.bits)
			dt_cerror(p->cc, &m.loc, D_OFFSETOF_BITFIELD, "cannot "
				  "take offset of a bit-field: %s", m.sval);
		return int_node(p, &loc, off, true, true);
	}
	case T_SIZEOF:
		next(p);
		n = node(p, N_SIZEOF, &loc);
		if (peek(p)->t == T_LPAREN) {
			struct dt_lexer save = p->lx;
			struct dt_token tsave = p->tok;

			next(p);
			if (starts_type(p)) {
				n->cast = parse_type(p);
				expect(p, T_RPAREN);
				return n;
			}
			p->lx = save;
			p->tok = tsave;
			p->have = true;
		}
		n->a = unary(p);
		return n;
	case T_STRINGOF:
		next(p);
		n = node(p, N_CAST, &loc);
		n->cast.kind = DT_TSTR;
		n->op = T_STRINGOF;
		n->a = unary(p);
		return n;
	case T_LPAREN: {
		/* A cast, or a parenthesised expression. */
		struct dt_lexer save = p->lx;
		struct dt_token tsave = p->tok;

		next(p);
		if (starts_type(p)) {
			n = node(p, N_CAST, &loc);
			n->cast = parse_type(p);
			expect(p, T_RPAREN);
			n->a = unary(p);
			return n;
		}
		p->lx = save;
		p->tok = tsave;
		p->have = true;
		return postfix(p);
	}
	default:
		return postfix(p);
	}
}

static struct dt_node *unary(struct parser *p)
{
	struct dt_node *n;

	nest(p);
	n = unary_rule(p);
	p->depth--;
	return n;
}

/* Binary operators by precedence, lowest first. */
static const struct level {
	enum dt_tok ops[4];
} levels[] = {
	{ { T_LOR } }, { { T_LXOR } }, { { T_LAND } }, { { T_PIPE } },
	{ { T_CARET } }, { { T_AMP } }, { { T_EQ, T_NE } },
	{ { T_LT, T_GT, T_LE, T_GE } }, { { T_SHL, T_SHR } },
	{ { T_PLUS, T_MINUS } }, { { T_STAR, T_SLASH, T_PERCENT } },
};

/* In a predicate, the '/' that ends it: the lexer marks it (ival 1). */
static bool pred_ends(struct parser *p)
{
	return p->tok.ival == 1;
}

/* The line dtrace(1) gives a node its parser builds now, with the next
 * token read: its lexer's line past that token (yylineno). */
static void reduced(struct parser *p, struct dt_node *n)
{
	const struct dt_token *t = peek(p);

	n->loc.dline = t->loc.dline ? t->loc.dline : t->loc.line;
}

static struct dt_node *binary(struct parser *p, int level)
{
	struct dt_node *l;

	if (level == (int)ARRAY_SIZE(levels))
		return unary(p);
	l = binary(p, level + 1);
	for (;;) {
		struct dt_token *t = peek(p);
		bool found = false;

		for (int i = 0; i < 4 && levels[level].ops[i]; i++)
			found |= levels[level].ops[i] == t->t;
		if (!found)
			return l;
		if (t->t == T_SLASH && p->in_predicate && pred_ends(p))
			return l;
		struct dt_node *n = node(p, t->t == T_LAND || t->t == T_LOR ||
					 t->t == T_LXOR ? N_LOGICAL : N_BINARY,
					 &t->loc);

		n->op = t->t;
		next(p);
		n->a = l;
		n->b = binary(p, level + 1);
		reduced(p, n);
		l = n;
	}
}

static struct dt_node *ternary_rule(struct parser *p)
{
	struct dt_node *c = binary(p, 0), *n;

	if (peek(p)->t != T_QUESTION)
		return c;
	n = node(p, N_TERNARY, &peek(p)->loc);
	next(p);
	n->a = c;
	n->b = assign_expr(p);
	expect(p, T_COLON);
	n->c = ternary(p);
	reduced(p, n);
	return n;
}

static struct dt_node *ternary(struct parser *p)
{
	struct dt_node *n;

	nest(p);
	n = ternary_rule(p);
	p->depth--;
	return n;
}

static bool is_assign_op(enum dt_tok t)
{
	return t >= T_ASSIGN && t <= T_SHR_ASSIGN;
}

static struct dt_node *assign_expr_rule(struct parser *p)
{
	struct dt_node *l = ternary(p), *n;
	struct dt_token *t = peek(p);

	if (!is_assign_op(t->t))
		return l;
	n = node(p, N_ASSIGN, &t->loc);
	n->op = t->t;
	next(p);
	n->a = l;
	n->b = assign_expr(p);
	reduced(p, n);
	return n;
}

static struct dt_node *assign_expr(struct parser *p)
{
	struct dt_node *n;

	nest(p);
	n = assign_expr_rule(p);
	p->depth--;
	return n;
}

/* a, b: C's comma operator (N_BINARY with op T_COMMA): a for its
 * effects, then b's value */
static struct dt_node *expr(struct parser *p)
{
	struct dt_node *n = assign_expr(p);

	while (peek(p)->t == T_COMMA) {
		struct dt_node *c = node(p, N_BINARY, &peek(p)->loc);

		next(p);
		c->op = T_COMMA;
		c->a = n;
		c->b = assign_expr(p);
		n = c;
	}
	return n;
}

/* ---- statements ---- */

static struct dt_node *statement(struct parser *p);

/* Statements up to '}' (consumed). */
static struct dt_node *statements(struct parser *p)
{
	struct dt_node *head = NULL, **tail = &head;

	for (;;) {
		if (accept(p, T_RBRACE))
			return head;
		if (accept(p, T_SEMI))
			continue;
		struct dt_node *s = statement(p);

		*tail = s;
		tail = &s->next;
		if (s->kind == S_IF || s->kind == S_BLOCK)
			continue;
		if (peek(p)->t != T_RBRACE)
			expect(p, T_SEMI);
	}
}

static struct dt_node *statement_rule(struct parser *p)
{
	struct dt_token *t = peek(p);
	struct dt_loc loc = t->loc;
	struct dt_node *n;

	if (t->t == T_LBRACE) {
		next(p);
		n = node(p, S_BLOCK, &loc);
		n->a = statements(p);
		return n;
	}
	if (t->t == T_IF) {
		next(p);
		n = node(p, S_IF, &loc);
		expect(p, T_LPAREN);
		n->a = expr(p);
		expect(p, T_RPAREN);
		n->b = statement(p);
		if (n->b->kind != S_IF && n->b->kind != S_BLOCK)
			accept(p, T_SEMI);
		if (accept(p, T_ELSE)) {
			n->c = statement(p);
			if (n->c->kind != S_IF && n->c->kind != S_BLOCK)
				accept(p, T_SEMI);
		}
		return n;
	}
	if (t->t == T_RESERVED && !is_word(t, "xlate") && !float_word(t))
		syntax(p, "a D keyword sonde does not support here");
	if (starts_type(p) || t->t == T_SELF || t->t == T_THIS) {
		if (t->t == T_SELF || t->t == T_THIS) {
			/* self->x is an expression; "self int x" is not. */
			struct dt_lexer save = p->lx;
			struct dt_token tsave = p->tok;

			next(p);
			bool decl = starts_type(p);

			p->lx = save;
			p->tok = tsave;
			p->have = true;
			if (!decl)
				goto expression;
		}
		syntax(p, "declarations belong outside clauses");
	}
expression:
	if (t->t == T_AGG) {
		struct dt_node *lhs = primary(p);

		if (peek(p)->t == T_LBRACK)
			dt_cerror(p->cc, &lhs->loc, D_AGG_MDIM, "improper "
				  "attempt to reference %s as a "
				  "multi-dimensional array", lhs->name);
		if (peek(p)->t != T_ASSIGN && peek(p)->t != T_SEMI &&
		    peek(p)->t != T_RBRACE)
			dt_error(p->cc, &lhs->loc, "an aggregation is set with "
				 "'%s = func(...)'", lhs->name);
		if (peek(p)->t != T_ASSIGN) {
			/* "@a;": the checker says what DTrace says */
			n = node(p, S_EXPR, &loc);
			n->a = lhs;
			return n;
		}
		next(p);
		n = node(p, S_AGG, &loc);
		n->a = lhs;
		n->b = assign_expr(p);	/* as DTrace: "@ = tick-1();" is
					 * a call of 1 (D_FUNC_IDENT) */
		if (n->b->kind != N_CALL)
			dt_error(p->cc, &n->b->loc, "%s must be assigned an "
				 "aggregating function such as count()",
				 lhs->name);
		return n;
	}
	n = node(p, S_EXPR, &loc);
	n->a = expr(p);
	return n;
}

static struct dt_node *statement(struct parser *p)
{
	struct dt_node *n;

	nest(p);
	n = statement_rule(p);
	p->depth--;
	return n;
}

/* ---- the outer level ---- */

/* "Stable/Evolving/Common": a stability/stability/class triple, as
 * #pragma D attributes takes (dtrace_str2attr). */
static bool attr_valid(const char *s)
{
	static const char *const stab[] = { "Internal", "Private", "Obsolete",
		"External", "Unstable", "Evolving", "Stable", "Standard" };
	static const char *const cls[] = { "Unknown", "CPU", "Platform",
		"Group", "ISA", "Common" };
	char buf[128], *save = NULL, *part[3];
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (char *w = strtok_r(buf, "/", &save); w && n < 4;
	     w = strtok_r(NULL, "/", &save))
		part[n < 3 ? n : 2] = w, n++;
	if (n != 3)
		return false;
	for (int i = 0; i < 3; i++) {
		bool ok = false;

		for (size_t j = 0; i < 2 && j < ARRAY_SIZE(stab); j++)
			ok |= !strcasecmp(part[i], stab[j]);
		for (size_t j = 0; i == 2 && j < ARRAY_SIZE(cls); j++)
			ok |= !strcasecmp(part[i], cls[j]);
		if (!ok)
			return false;
	}
	return true;
}

static int count_probe(struct dt_probe *pr, void *arg)
{
	(void)pr;
	(void)arg;
	return 1;
}

/* #pragma D depends_on provider|module|library NAME. */
static void depends_on(struct parser *p, const struct dt_loc *loc,
		       const char *cls, const char *name)
{
	bool found = false;

	if (!strcmp(cls, "provider")) {
		struct dt_pdesc pd = { .text = (char *)name, .prov = (char *)name,
				       .mod = "", .func = "", .name = "" };

		found = dt_probes_match(p->cc->provs, &pd, count_probe,
					NULL) > 0;
	} else if (!strcmp(cls, "module")) {
		char path[256];

		snprintf(path, sizeof(path), "/sys/module/%s", name);
		found = !strcmp(name, "vmlinux") || access(path, F_OK) == 0;
	} else if (!strcmp(cls, "library")) {
		const char *dir = p->lx.src->name,
			   *slash = strrchr(dir, '/');
		char *path;

		if (!p->lx.src->is_library)
			dt_cerror(p->cc, loc, D_PRAGMA_DEPEND, "main program may "
				  "not explicitly depend on a library");
		/* in the library's directory, loaded before it (libdir.c
		 * orders them) */
		path = dt_alloc(&p->cc->arena, strlen(dir) + strlen(name) + 2);
		sprintf(path, "%.*s%s", slash ? (int)(slash - dir + 1) : 0, dir,
			name);
		for (int i = 0; i < p->prog->ndlibs && !found; i++)
			found = !strcmp(p->prog->dlibs[i], path);
		if (!found)
			dt_cerror(p->cc, loc, D_PRAGMA_DEPEND, "program requires "
				  "library \"%s\" which failed to load", path);
	} else {
		dt_cerror(p->cc, loc, D_PRAGMA_INVAL, "invalid class %s "
			  "specified by #pragma depends_on", cls);
	}
	if (!found)
		dt_cerror(p->cc, loc, D_PRAGMA_DEPEND, "program requires %s %s",
			  cls, name);
}

/* A control line: # N "file" (from cpp), #line, #pragma D option,
 * #pragma D error/attributes/binding/depends_on, #error, #ident, as
 * dtrace-utils' dt_pragma.c reads them; other #pragma lines are ignored
 * as in C. */
static void control(struct dt_lexer *lx, struct dt_ctlword *w, int n,
		    const struct dt_loc *loc)
{
	struct parser *p = lx->ctl_arg;
	struct dt_cc *cc = p->cc;
	int kind = 0;	/* 0: after #, 1: after #pragma, 2: after #pragma D */
	int i = 0;
	char err[256];

	if (!n)
		return;	/* a null directive */
	for (; i < n; i++) {
		const char *name = w[i].s;

		if (w[i].is_int) {
			/* # N ["file" [flags]] */
			if (i + 1 < n && !w[i + 1].is_str)
				dt_cerror(cc, loc, D_PRAGMA_MALFORM, "malformed "
					  "#line <line> [ [\"file\"] state ]");
			if (i + 1 < n)
				lx->file = strcmp(w[i + 1].s, "/dev/stdin") ?
					   w[i + 1].s : NULL;
			lx->line = (int)w[i].v;
			lx->col = 1;
			return;
		}
		if (w[i].is_str)
			dt_cerror(cc, loc, D_PRAGCTL_INVAL, "invalid control "
				  "directive");
		if (kind == 0 && !strcmp(name, "pragma")) {
			kind = 1;
			continue;
		}
		if (kind == 1 && !strcmp(name, "D")) {
			kind = 2;
			continue;
		}
		break;
	}
	if (i == n)
		return;
	const char *name = w[i].s;
	struct dt_ctlword *args = &w[i + 1];
	int nargs = n - i - 1;

	if (!strcmp(name, "line")) {
		if (!nargs || !args[0].is_int || (nargs > 1 && !args[1].is_str))
			dt_cerror(cc, loc, D_PRAGMA_MALFORM, "malformed #line "
				  "<line> [ [\"file\"] state ]");
		if (nargs > 1)
			lx->file = strcmp(args[1].s, "/dev/stdin") ?
				   args[1].s : NULL;
		lx->line = (int)args[0].v;
		lx->col = 1;
		return;
	}
	if (!strcmp(name, "ident"))
		return;
	if (!strcmp(name, "error")) {
		struct abuf ab = { 0 };

		abuf_put(&cc->arena, &ab, "", 0);
		for (int j = 0; j < nargs; j++) {
			abuf_put(&cc->arena, &ab, args[j].s, strlen(args[j].s));
			abuf_put(&cc->arena, &ab, " ", 1);
		}
		dt_cerror(cc, loc, D_PRAGERR, "#%s: %s", name, ab.b);
	}
	if (kind == 2 && !strcmp(name, "option")) {
		if (!nargs || args[0].is_str || args[0].is_int)
			dt_cerror(cc, loc, D_PRAGMA_MALFORM, "malformed #pragma "
				  "%s <option>=<val>", name);
		if (nargs > 1)
			dt_cerror(cc, loc, D_PRAGMA_MALFORM, "superfluous "
				  "arguments specified for #pragma %s", name);
		char *opt = dt_strdup(&cc->arena, args[0].s);
		char *eq = strchr(opt, '=');

		if (eq)
			*eq++ = '\0';
		if (dt_option_cmdline_only(opt))
			snprintf(err, sizeof(err), "Option cannot be used "
				 "from within a D program");
		if (dt_option_cmdline_only(opt) ||
		    dt_set_option(&p->prog->opt, opt, eq, err, sizeof(err))) {
			if (!eq)
				dt_cerror(cc, loc, D_PRAGMA_OPTSET, "failed to set "
					  "option '%s': %s", opt, err);
			dt_cerror(cc, loc, D_PRAGMA_OPTSET, "failed to set "
				  "option '%s' to '%s': %s", opt, eq, err);
		}
		return;
	}
	if (kind == 2 && !strcmp(name, "attributes")) {
		if (nargs < 2 || args[0].is_str || args[1].is_str)
			dt_cerror(cc, loc, D_PRAGMA_MALFORM, "malformed #pragma "
				  "%s <attributes> <ident>", name);
		if (!attr_valid(args[0].s))
			dt_cerror(cc, loc, D_PRAGMA_INVAL, "invalid attributes "
				  "specified by #pragma %s", name);
		if (p->npending < (int)ARRAY_SIZE(p->pending)) {
			p->pending[p->npending].name = args[1].s;
			p->pending[p->npending++].loc = *loc;
		}
		return;
	}
	if (kind == 2 && !strcmp(name, "binding")) {
		if (nargs < 2 || !args[0].is_str || args[1].is_str)
			dt_cerror(cc, loc, D_PRAGMA_MALFORM, "malformed #pragma "
				  "%s \"version\" <ident>", name);
		if (dt_set_option(&(struct dt_options){ 0 }, "version",
				  args[0].s, err, sizeof(err)))
			dt_cerror(cc, loc, D_PRAGMA_INVAL, "invalid version "
				  "string specified by #pragma %s", name);
		return;
	}
	if (kind == 2 && !strcmp(name, "depends_on")) {
		if (nargs < 2 || args[0].is_str || args[1].is_str)
			dt_cerror(cc, loc, D_PRAGMA_MALFORM, "malformed #pragma "
				  "%s <class> <name>", name);
		depends_on(p, loc, args[0].s, args[1].s);
		return;
	}
	if (kind == 0)
		dt_cerror(cc, loc, D_PRAGCTL_INVAL, "invalid control directive: "
			  "#%s", name);
	if (kind == 2)
		dt_cerror(cc, loc, D_PRAGMA_INVAL, "invalid D pragma: %s", name);
	/* #pragma other: ignored, as C ignores unknown pragmas */
}

/* A probe description as dtrace(1) reads one (dtrace_xstr2desc): fields
 * from the right, the last one being the field the source's spec names
 * (the name for scripts and -n, the function for -f, the module for -m,
 * the provider for -P), missing ones on the left empty; more fields
 * than that leaves room for is "Overspecified". $N and $name are
 * expanded in each field. */
static struct dt_pdesc split_pdesc(struct parser *p, const struct dt_token *t)
{
	struct dt_arena *ar = &p->cc->arena;
	struct dt_pdesc pd = { 0 };
	char *field[4] = { "", "", "", "" };
	char spec = p->lx.src->spec;
	int at = spec == 'P' ? 0 : spec == 'm' ? 1 : spec == 'f' ? 2 : 3;
	const char *s = t->sval, *end = s + strlen(s);

	pd.text = t->sval;
	pd.loc = t->loc;
	for (;;) {
		const char *q = end;
		struct abuf ab = { 0 };

		while (q > s && q[-1] != ':')
			q--;
		if (at < 0)
			dt_cerror(p->cc, &t->loc, D_PDESC_INVAL, "invalid probe "
				  "description \"%s\": Overspecified probe "
				  "description", t->sval);
		abuf_put(ar, &ab, "", 0);
		for (const char *c = q; c < end;) {
			if (*c != '$') {
				abuf_put(ar, &ab, c++, 1);
				continue;
			}
			const char *ns = ++c;
			char name[64], buf[32];
			const char *v;

			if (*c == '$')	/* $$N is $N here */
				ns = ++c;
			while (c < end && (isalnum((unsigned char)*c) ||
					   *c == '_'))
				c++;
			snprintf(name, sizeof(name), "%.*s", (int)(c - ns), ns);
			v = c > ns ? macro_text(p, name, buf, sizeof(buf)) :
			    NULL;
			if (!v && c > ns && all_digits(name) &&
			    p->prog->opt.defaultargs)
				v = "";
			if (!v)
				dt_cerror(p->cc, &t->loc, D_PDESC_INVAL,
					  "invalid probe description \"%s\": "
					  "Undefined macro variable in probe "
					  "description", t->sval);
			abuf_put(ar, &ab, v, strlen(v));
		}
		field[at--] = ab.b;
		/* a ':' in the first place ends it: no empty field before
		 * it (":a:b:c" is a:b:c under -n, as dtrace_xstr2desc) */
		if (q == s || q - 1 == s)
			break;
		end = q - 1;
	}
	pd.prov = field[0];
	pd.mod = field[1];
	pd.func = field[2];
	pd.name = field[3];
	/* the text as written, macros expanded */
	struct abuf ab = { 0 };
	int last = spec == 'P' ? 0 : spec == 'm' ? 1 : spec == 'f' ? 2 : 3;

	abuf_put(ar, &ab, "", 0);
	for (int i = at + 1; i <= last; i++) {
		abuf_put(ar, &ab, field[i], strlen(field[i]));
		if (i < last)
			abuf_put(ar, &ab, ":", 1);
	}
	pd.text = ab.b;
	return pd;
}

/* A probe given by its ID (a description that starts with a digit). */
static struct dt_pdesc pdesc_by_id(struct parser *p, const struct dt_token *t)
{
	static const char *const what[] = { "providers", "modules",
					    "functions" };
	char spec = p->lx.src->spec;
	struct dt_pdesc pd = { 0 };
	unsigned long long id;
	struct dt_probe *pr;
	char *end;

	errno = 0;
	id = strtoull(t->sval, &end, 10);
	if (errno || id > UINT32_MAX)
		dt_cerror(p->cc, &t->loc, D_PDESC_INVAL, "identifier %s exceeds "
			  "maximum probe id", t->sval);
	if (spec == 'P' || spec == 'm' || spec == 'f')
		dt_cerror(p->cc, &t->loc, D_PDESC_INVAL, "probe identifier %llu "
			  "not permitted when specifying %s", id,
			  what[spec == 'P' ? 0 : spec == 'm' ? 1 : 2]);
	pr = id ? dt_probe_by_id(p->cc->provs, (uint32_t)id) : NULL;
	if (!pr)
		dt_cerror(p->cc, &t->loc, D_PDESC_INVAL, "invalid probe "
			  "identifier %llu: Unknown probe identifier", id);
	pd.text = t->sval;
	pd.loc = t->loc;
	pd.prov = (char *)dt_probe_field(pr, 0);
	pd.mod = (char *)pr->mod;
	pd.func = (char *)pr->func;
	pd.name = (char *)pr->name;
	return pd;
}

/* inline TYPE NAME = EXPR; — NAME stands for EXPR (as TYPE) wherever it
 * is used after this. */
static void inline_def(struct parser *p)
{
	struct dt_cc *cc = p->cc;
	struct dt_token kw = next(p), id;
	struct dt_type t = parse_type(p);
	struct dt_inline *in, **tail;
	const char *prev = NULL;

	id = expect(p, T_IDENT);
	if (peek(p)->t == T_LBRACK)
		dt_error(cc, &peek(p)->loc, "not supported: inline arrays "
			 "(inline %s[...]) in this version", id.sval);
	for (in = p->prog->inlines; in && !prev; in = in->next)
		if (!strcmp(in->name, id.sval))
			prev = "scalar inline";
	for (struct dt_var *v = p->prog->vars; v && !prev; v = v->next)
		if (v->scope == DT_GLOBAL && !strcmp(v->name, id.sval))
			prev = "scalar ";
	if (!prev && dt_proto(id.sval))
		prev = "function ";
	if (prev)
		dt_cerror(cc, &id.loc, D_DECL_IDRED, "identifier redefined: %s\n"
			  "\t current: inline definition\n\tprevious: %s",
			  id.sval, prev);
	if (t.kind == DT_TVOID)
		dt_cerror(cc, &id.loc, D_DECL_VOIDOBJ, "cannot declare void "
			  "inline: %s", id.sval);
	expect(p, T_ASSIGN);
	in = dt_alloc(&cc->arena, sizeof(*in));
	in->name = id.sval;
	in->type = t;
	in->loc = kw.loc;
	in->expr = assign_expr(p);
	expect(p, T_SEMI);
	for (tail = &p->prog->inlines; *tail; tail = &(*tail)->next)
		;
	*tail = in;
}

/* translator OUT < IN name > { member = expression; ... }; checked as
 * dtrace(1) checks it once the definition ends (its ';'); the members'
 * expressions are typed by types.c. */
static void xlator_decl(struct parser *p)
{
	struct dt_cc *cc = p->cc;
	struct dt_xlator *x = dt_alloc(&cc->arena, sizeof(*x)), **tail;
	struct dt_token kw = next(p), id;
	char b1[80], b2[80];
	int cap = 0;

	x->loc = kw.loc;
	x->out = parse_type(p);
	/* a type name may end in an abstract function declarator, as in
	 * DTrace's grammar: "struct s (int)" is read, then '<' wanted */
	if (peek(p)->t == T_LPAREN)
		param_list(p, false, NULL);
	expect(p, T_LT);
	x->in = parse_type(p);
	id = expect(p, T_IDENT);
	x->in_name = id.sval;
	expect(p, T_GT);
	expect(p, T_LBRACE);
	while (!accept(p, T_RBRACE)) {
		struct dt_token m = expect(p, T_IDENT);
		struct dt_xlmember *xm;

		expect(p, T_ASSIGN);
		if (x->nmembers == cap) {
			struct dt_xlmember *nm;

			cap = cap ? 2 * cap : 8;
			nm = dt_alloc(&cc->arena, sizeof(*nm) * (size_t)cap);
			if (x->nmembers)
				memcpy(nm, x->members, sizeof(*nm) *
				       (size_t)x->nmembers);
			x->members = nm;
		}
		xm = &x->members[x->nmembers++];
		xm->name = m.sval;
		xm->loc = m.loc;
		xm->expr = assign_expr(p);
		expect(p, T_SEMI);
	}
	struct dt_loc end = peek(p)->loc;

	expect(p, T_SEMI);
	x->loc = end;	/* where dtrace(1) reports what is wrong with it */
	if (x->out.kind == DT_TSOU && x->out.xlate) {
		/* D's own: procfs.d translates a task_struct * to each */
		const struct dt_type *r = x->in.kind == DT_TPTR ? x->in.ref :
					  NULL;

		if (r && r->kind == DT_TSOU && r->ct && r->ct->tag &&
		    !strcmp(r->ct->tag, "task_struct"))
			dt_cerror(cc, &end, D_XLATE_REDECL, "translator from "
				  "%s to %s has already been declared",
				  dt_type_name(&x->in, b1, sizeof(b1)),
				  dt_xlate_name(x->out.xlate));
		dt_error(cc, &end, "not supported: translators to %s from "
			 "other types in this version",
			 dt_xlate_name(x->out.xlate));
	}
	if (x->out.kind != DT_TSOU)
		dt_cerror(cc, &end, D_XLATE_SOU, "translator output type must "
			  "be a struct or union");
	if (!x->out.ct->complete)
		dt_cerror(cc, &end, D_XLATE_SOU, "incomplete struct/union/enum "
			  "%s", dt_type_name(&x->out, b1, sizeof(b1)));
	for (struct dt_xlator *o = p->prog->xlators; o; o = o->next)
		if (o->out.ct == x->out.ct && o->in.kind == x->in.kind &&
		    !strcmp(dt_type_name(&o->in, b1, sizeof(b1)),
			    dt_type_name(&x->in, b2, sizeof(b2))))
			dt_cerror(cc, &end, D_XLATE_REDECL, "translator from %s "
				  "to %s has already been declared", b2,
				  dt_type_name(&x->out, b1, sizeof(b1)));
	for (int i = 0; i < x->nmembers; i++)
		if (!dt_ctype_member(x->out.ct, x->members[i].name, NULL,
				     NULL))
			dt_cerror(cc, &end, D_XLATE_MEMB, "translator member "
				  "%s is not a member of %s",
				  x->members[i].name,
				  dt_type_name(&x->out, b1, sizeof(b1)));
	for (tail = &p->prog->xlators; *tail; tail = &(*tail)->next)
		;
	*tail = x;
}

/* C's storage classes: extern declares what the kernel defines; the
 * others mean nothing in D. */
static const char *storage_class(const struct dt_token *t)
{
	static const char *const words[] = { "extern", "register", "static",
					     "auto" };

	if (t->t != T_RESERVED)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (t->len == strlen(words[i]) &&
		    !strncmp(t->start, words[i], t->len))
			return words[i];
	return NULL;
}

static bool decl_start(struct parser *p)
{
	struct dt_lexer save = p->lx;
	struct dt_token t;
	bool r;

	/* a probe ID ("4.56" under -f is ID 4 first) starts no declaration */
	if (isdigit((unsigned char)p->lx.src->text[p->lx.pos]))
		return false;
	dt_lex_next(&p->lx, &t);
	if (t.t == T_SELF || t.t == T_THIS || t.t == T_TYPEDEF ||
	    storage_class(&t)) {
		r = true;
	} else {
		p->tok = t;
		p->have = true;
		r = starts_type(p);
		p->have = false;
	}
	p->lx = save;
	return r;
}

/* The parameters of a function prototype, "( ... )", or the tuple
 * signature of an associative array, "[ ... ]", checked with DTrace's
 * words (dt_decl.c's prototype checks); nothing is kept: sonde types
 * array keys by their first use and calls by its own prototypes. */
static void param_list(struct parser *p, bool array, const char *name)
{
	enum dt_tok close = array ? T_RBRACK : T_RPAREN;
	int i = 0;
	bool had_void = false;

	next(p);	/* ( or [ */
	if (!array && accept(p, T_RPAREN))
		return;	/* int f(): no parameters said */
	do {
		struct dt_token *t = peek(p);
		struct dt_loc loc = t->loc;
		struct dt_type pt;

		i++;
		if (t->t == T_DOT) {
			/* ... */
			expect(p, T_DOT);
			expect(p, T_DOT);
			expect(p, T_DOT);
			if (array)
				dt_cerror(p->cc, &loc, D_DECL_PROTO_VARARGS,
					  "array prototype may not use a "
					  "variable-length argument list");
			break;
		}
		if (storage_class(t) || t->t == T_SELF || t->t == T_THIS)
			dt_cerror(p->cc, &loc, D_DECL_PARMCLASS, "inappropriate "
				  "storage class for function or associative "
				  "array parameter");
		pt = parse_type(p);
		if (pt.kind == DT_TVOID && array)
			dt_cerror(p->cc, &loc, D_DECL_PROTO_TYPE, "array "
				  "prototype may not use parameter of type void: "
				  "(anonymous), parameter #%d", i);
		if (had_void || (pt.kind == DT_TVOID && i > 1))
			dt_cerror(p->cc, &loc, D_DECL_PROTO_VOID, "void must be "
				  "sole parameter");
		had_void |= pt.kind == DT_TVOID;
		if (peek(p)->t == T_IDENT) {
			struct dt_token id = next(p);

			if (pt.kind == DT_TVOID)
				dt_cerror(p->cc, &id.loc, D_DECL_PROTO_NAME,
					  "void parameter may not have a name: "
					  "%s", id.sval);
			if (peek(p)->t == T_LBRACK) {
				struct dt_lexer save = p->lx;
				struct dt_token tsave = p->tok;

				next(p);
				if (peek(p)->t != T_INT && peek(p)->t !=
				    T_RBRACK)
					dt_cerror(p->cc, &id.loc,
						  D_DECL_PROTO_TYPE, "function "
						  "prototype may not use "
						  "parameter of type dynamic "
						  "variable: %s, parameter #%d",
						  id.sval, i);
				p->lx = save;
				p->tok = tsave;
				p->have = true;
				array_suffix(p, pt, id.sval);
			}
		}
	} while (accept(p, T_COMMA));
	(void)name;
	expect(p, close);
}

/* type name[sig]; declares an associative array of values of type t
 * (its keys are typed by their first use). */
static void assoc_decl(struct parser *p, struct dt_token id, struct dt_type t)
{
	struct dt_var *v, **tail;

	if (t.kind == DT_TSOU || t.kind == DT_TARRAY || t.kind == DT_TVOID ||
	    t.kind == DT_TFLOAT)
		dt_error(p->cc, &id.loc, "not supported: associative arrays of "
			 "this type in this version (%s)", id.sval);
	for (v = p->prog->vars; v; v = v->next)
		if (!strcmp(v->name, id.sval) && (v->scope == DT_ARRAY ||
						   v->scope == DT_GLOBAL))
			dt_cerror(p->cc, &id.loc, D_DECL_IDRED, "identifier "
				  "redeclared: %s", id.sval);
	v = dt_alloc(&p->cc->arena, sizeof(*v));
	v->name = id.sval;
	v->scope = DT_ARRAY;
	v->type = t;
	v->typed = true;
	v->assigned = true;	/* it has a map even if only read */
	v->loc = id.loc;
	v->nkeys = -1;
	for (tail = &p->prog->vars; *tail; tail = &(*tail)->next)
		;
	*tail = v;
}

/* (*name)(params), the declarator of a pointer to a function: its name */
static struct dt_token funcptr_declarator(struct parser *p)
{
	struct dt_token id;

	expect(p, T_LPAREN);
	while (accept(p, T_STAR))
		;
	id = expect(p, T_IDENT);
	expect(p, T_RPAREN);
	if (peek(p)->t == T_LPAREN)
		param_list(p, false, id.sval);
	return id;
}

/* Whether name is one of D's functions in D version vers: those after
 * 1.0 from dtrace-utils' identifier table (dt_open.c), the others 1.0. */
static bool builtin_func(const char *name, uint32_t vers)
{
	static const struct { const char *name; uint32_t since; } later[] = {
		{ "freopen", DT_VERSION(1, 1, 0) },
		{ "index", DT_VERSION(1, 1, 0) },
		{ "rindex", DT_VERSION(1, 1, 0) },
		{ "strchr", DT_VERSION(1, 1, 0) },
		{ "strrchr", DT_VERSION(1, 1, 0) },
		{ "strstr", DT_VERSION(1, 1, 0) },
		{ "strtok", DT_VERSION(1, 1, 0) },
		{ "substr", DT_VERSION(1, 1, 0) },
		{ "func", DT_VERSION(1, 2, 0) }, { "mod", DT_VERSION(1, 2, 0) },
		{ "setopt", DT_VERSION(1, 2, 0) },
		{ "sym", DT_VERSION(1, 2, 0) }, { "uaddr", DT_VERSION(1, 2, 0) },
		{ "ufunc", DT_VERSION(1, 2, 0) },
		{ "umod", DT_VERSION(1, 2, 0) }, { "usym", DT_VERSION(1, 2, 0) },
		{ "htonl", DT_VERSION(1, 3, 0) },
		{ "htonll", DT_VERSION(1, 3, 0) },
		{ "htons", DT_VERSION(1, 3, 0) },
		{ "ntohl", DT_VERSION(1, 3, 0) },
		{ "ntohll", DT_VERSION(1, 3, 0) },
		{ "ntohs", DT_VERSION(1, 3, 0) },
		{ "inet_ntoa", DT_VERSION(1, 5, 0) },
		{ "inet_ntoa6", DT_VERSION(1, 5, 0) },
		{ "inet_ntop", DT_VERSION(1, 5, 0) },
		{ "link_ntop", DT_VERSION(1, 5, 0) },
		{ "stddev", DT_VERSION(1, 6, 0) },
		{ "llquantize", DT_VERSION(1, 6, 4) },
		{ "pcap", DT_VERSION(1, 6, 4) },
	};

	if (!dt_func_lookup(name) && !dt_proto(name))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(later); i++)
		if (!strcmp(later[i].name, name))
			return vers >= later[i].since;
	return true;
}

static void declaration(struct parser *p)
{
	enum dt_scope scope = DT_GLOBAL;
	struct dt_loc loc = peek(p)->loc;
	const char *sc = storage_class(peek(p));
	bool is_typedef;

	if (sc && strcmp(sc, "extern"))
		dt_cerror(p->cc, &loc, D_DECL_BADCLASS, "specified storage "
			  "class not appropriate in D");
	if (sc)
		next(p);
	p->is_extern = sc != NULL;
	is_typedef = accept(p, T_TYPEDEF);
	p->lx.in_typedef = is_typedef;
	if (!is_typedef && accept(p, T_SELF))
		scope = DT_SELF;
	else if (!is_typedef && accept(p, T_THIS))
		scope = DT_THIS;
	if ((scope != DT_GLOBAL || is_typedef || sc) &&
	    (peek(p)->t == T_SELF || peek(p)->t == T_THIS ||
	     peek(p)->t == T_TYPEDEF || storage_class(peek(p))))
		dt_cerror(p->cc, &peek(p)->loc, D_DECL_CLASS, "only one "
			  "storage class allowed in a declaration");
	struct dt_type base = dt_int;

	/* "extern x;", "self x;": an int, as in C */
	if ((sc || scope != DT_GLOBAL) && peek(p)->t == T_IDENT &&
	    !starts_type(p))
		p->tagged = false;
	else
		base = parse_type(p);

	if (peek(p)->t == T_SEMI && !is_typedef && scope == DT_GLOBAL) {
		/* struct s { ... }; enum e { ... }; */
		if (!p->tagged)
			dt_cerror(p->cc, &loc, D_DECL_USELESS,
				  "useless declaration");
		next(p);
		return;
	}
	do {
		struct dt_type dt = base;
		struct dt_token id;

		while (accept(p, T_STAR))	/* int a, *b, **c; */
			dt = dt_ptr_type(p->cc, &dt);
		if (peek(p)->t == T_LPAREN)
			id = funcptr_declarator(p);
		else
			id = expect(p, T_IDENT);
		if (peek(p)->t == T_LPAREN) {
			/* a function's prototype: nothing to keep */
			param_list(p, false, id.sval);
			continue;
		}
		if (peek(p)->t == T_LBRACK) {
			struct dt_lexer save = p->lx;
			struct dt_token tsave = p->tok;

			next(p);
			bool sig = peek(p)->t != T_INT &&
				   peek(p)->t != T_RBRACK &&
				   peek(p)->t != T_MINUS;

			p->lx = save;
			p->tok = tsave;
			p->have = true;
			if (sig) {
				/* an associative array's tuple signature */
				if (scope == DT_THIS)
					dt_cerror(p->cc, &id.loc,
						  D_DECL_LOCASSC, "associative "
						  "arrays may not be declared as "
						  "local variables: %s", id.sval);
				param_list(p, true, id.sval);
				if (!p->is_extern && scope == DT_GLOBAL &&
				    !is_typedef)
					assoc_decl(p, id, dt);
				continue;
			}
		}
		struct dt_type t = array_suffix(p, dt, id.sval);
		struct dt_cname *c;
		struct dt_var *v;

		if (strchr(id.sval, '`'))
			dt_cerror(p->cc, &id.loc, D_DECL_SCOPE, "D scoping "
				  "operator may not be used in a declaration "
				  "name (%s)", id.sval);
		if (p->is_extern)
			continue;	/* the kernel's: nothing to keep */

		if (is_typedef) {
			c = dt_cname_find(p->prog, DT_CN_TYPEDEF, id.sval);
			if (c || typedef_index(id.sval) >= 0)
				dt_cerror(p->cc, &id.loc, D_DECL_IDRED, "%s "
					  "redeclared: %s", c && c->kind ==
					  DT_CN_ENUMERATOR ? "identifier" :
					  "typedef", id.sval);
			c = dt_cname_add(p->cc, p->prog, DT_CN_TYPEDEF, id.sval,
					 &id.loc);
			c->type = t;
			continue;
		}
		if (scope == DT_GLOBAL && !p->is_extern &&
		    builtin_func(id.sval, p->prog->opt.version))
			dt_cerror(p->cc, &id.loc, D_DECL_IDRED, "built-in "
				  "identifier redeclared: %s", id.sval);
		if (t.kind == DT_TSOU && !t.ct->complete)
			dt_cerror(p->cc, &id.loc, D_DECL_INCOMPLETE,
				  "incomplete struct/union/enum %s: %s",
				  sou_name(p, &t), id.sval);
		if (t.kind == DT_TARRAY && scope != DT_GLOBAL)
			dt_error(p->cc, &id.loc, "not supported: array types "
				 "for %s variables in this version",
				 scope == DT_SELF ? "self->" : "this->");
		if (t.kind == DT_TVOID)
			dt_error(p->cc, &id.loc, "variable %s cannot be void",
				 id.sval);
		if (peek(p)->t == T_LBRACK)
			dt_error(p->cc, &peek(p)->loc, "not supported: "
				 "declaring associative arrays (assign them "
				 "instead)");
		bool again = false;

		for (v = p->prog->vars; v; v = v->next) {
			char b1[80], b2[80];

			if (strcmp(v->name, id.sval) || v->scope != scope)
				continue;
			/* the same declaration again is fine (DTrace) */
			if (v->type.kind == t.kind &&
			    !strcmp(dt_type_name(&v->type, b1, sizeof(b1)),
				    dt_type_name(&t, b2, sizeof(b2)))) {
				again = true;
				break;
			}
			dt_cerror(p->cc, &id.loc, D_DECL_IDRED, "identifier "
				  "redeclared: %s\n\t current: scalar %s\n\t"
				  "previous: scalar %s", id.sval, b2, b1);
		}
		if (again)
			continue;
		v = dt_alloc(&p->cc->arena, sizeof(*v));
		v->name = id.sval;
		v->scope = scope;
		v->type = t;
		v->typed = true;
		v->loc = id.loc;
		v->nkeys = -1;
		struct dt_var **tail = &p->prog->vars;

		while (*tail)
			tail = &(*tail)->next;
		*tail = v;
	} while (accept(p, T_COMMA));
	p->is_extern = false;
	/* dtrace-utils' lexer reports a declaration cut by the end of the
	 * program itself, in its own words */
	if (peek(p)->t == T_EOF)
		dt_cerror(p->cc, &peek(p)->loc, D_SYNTAX, "syntax error near "
			  "end-of-input");
	p->lx.in_typedef = false;
	expect(p, T_SEMI);
}

static void clause(struct parser *p)
{
	struct dt_arena *ar = &p->cc->arena;
	struct dt_clause *cl = dt_alloc(ar, sizeof(*cl));
	struct dt_pdesc pds[256];
	struct dt_token t;
	int n = 0;

	for (;;) {
		if (!dt_lex_probedesc(&p->lx, &t)) {
			p->tok = t;
			p->have = true;
			syntax(p, "expected a probe description");
		}
		if (!t.len) {
			int c = dt_lex_skip(&p->lx);
			struct dt_loc at = t.loc;

			if (c == '}')
				dt_cerror(p->cc, &at, D_SYNTAX, "syntax error "
					  "near \"}\"");
			dt_cerror(p->cc, &at, D_SYNTAX, "syntax error near "
				  "\"%c\"", c);
		}
		if (n == (int)ARRAY_SIZE(pds))
			dt_error(p->cc, &t.loc, "too many probe descriptions "
				 "in one clause");
		if (isdigit((unsigned char)t.sval[0])) {
			size_t d = strspn(t.sval, "0123456789");

			if (t.sval[d]) {
				/* "4-2": the ID, then a description */
				t.sval[d] = '\0';
				pds[n++] = pdesc_by_id(p, &t);
				t.sval += d;
				t.sval[0] = t.start[d];
				t.loc.col += (int)d;
			} else {
				pds[n++] = pdesc_by_id(p, &t);
				goto next_desc;
			}
		}
		pds[n++] = split_pdesc(p, &t);
next_desc:
		if (dt_lex_skip(&p->lx) != ',')
			break;
		dt_lex_next(&p->lx, &t);	/* the comma */
	}
	cl->loc = pds[0].loc;
	cl->npds = n;
	cl->pds = dt_alloc(ar, sizeof(*pds) * n);
	memcpy(cl->pds, pds, sizeof(*pds) * n);
	/* The outer level is read character by character: no token may be
	 * looked ahead past the clause, or the next probe description
	 * would be lexed as D. */
	int c = dt_lex_skip(&p->lx);

	if (c == '/') {
		next(p);
		p->in_predicate = true;
		p->lx.in_predicate = true;
		cl->pred = expr(p);
		p->in_predicate = false;
		p->lx.in_predicate = false;
		expect(p, T_SLASH);
		c = dt_lex_skip(&p->lx);
		if (c != '{')
			dt_cerror(p->cc, &cl->pred->loc, D_SYNTAX, "expected "
				  "actions { } following probe description and "
				  "predicate");
	} else if (c != '{' && p->lx.src->is_file) {
		dt_cerror(p->cc, &pds[n - 1].loc, D_SYNTAX, "expected "
			  "predicate and/or actions following probe "
			  "description");
	}
	if (c == '{') {
		next(p);
		cl->has_body = true;
		cl->body = statements(p);
		cl->end = p->tok.loc;	/* the '}' */
		c = dt_lex_skip(&p->lx);
	}
	if (c == ';')
		next(p);
	p->have = false;

	struct dt_prog *pg = p->prog;

	cl->index = pg->nclauses;
	pg->clauses = sd_realloc(pg->clauses, sizeof(*pg->clauses) *
				 (pg->nclauses + 1));
	pg->clauses[pg->nclauses++] = cl;
}

struct lib_deps {
	struct dt_cc *cc;
	char **names;
	int n;
};

static void control_deps(struct dt_lexer *lx, struct dt_ctlword *w, int n,
			 const struct dt_loc *loc)
{
	struct lib_deps *d = lx->ctl_arg;
	int i = 0;

	(void)loc;
	if (i < n && !w[i].is_str && !strcmp(w[i].s, "pragma"))
		i++;
	else
		return;
	if (n - i == 4 && !strcmp(w[i].s, "D") &&
	    !strcmp(w[i + 1].s, "depends_on") &&
	    !strcmp(w[i + 2].s, "library") && !w[i + 3].is_str &&
	    !w[i + 3].is_int) {
		char **nn = dt_alloc(&d->cc->arena, sizeof(*nn) *
				     (size_t)(d->n + 1));

		if (d->n)
			memcpy(nn, d->names, sizeof(*nn) * (size_t)d->n);
		nn[d->n++] = dt_strdup(&d->cc->arena, w[i + 3].s);
		d->names = nn;
	}
}

void dt_parse_lib_deps(struct dt_cc *cc, const struct dt_src *src,
		       char ***names, int *n)
{
	struct lib_deps d = { cc, NULL, 0 };
	struct dt_lexer lx;
	struct dt_token t;

	dt_lex_init(&lx, cc, src);
	lx.ctl = control_deps;
	lx.ctl_arg = &d;
	do
		dt_lex_next(&lx, &t);
	while (t.t != T_EOF);
	*names = d.names;
	*n = d.n;
}

void dt_parse(struct dt_cc *cc, struct dt_prog *prog, const struct dt_src *src)
{
	struct parser p = { .cc = cc, .prog = prog };

	dt_lex_init(&p.lx, cc, src);
	p.lx.ctl = control;
	p.lx.ctl_arg = &p;
	for (;;) {
		int c;

		p.have = false;
		c = dt_lex_skip(&p.lx);
		if (!c)
			break;
		if (c == ';') {
			dt_lex_next(&p.lx, &p.tok);
			continue;
		}
		if (c == 'i' && !strncmp(p.lx.src->text + p.lx.pos, "inline", 6) &&
		    !isalnum((unsigned char)p.lx.src->text[p.lx.pos + 6]) &&
		    p.lx.src->text[p.lx.pos + 6] != '_') {
			inline_def(&p);
			p.have = false;
			continue;
		}
		if (c == 't' &&
		    !strncmp(p.lx.src->text + p.lx.pos, "translator", 10) &&
		    !isalnum((unsigned char)p.lx.src->text[p.lx.pos + 10]) &&
		    p.lx.src->text[p.lx.pos + 10] != '_') {
			xlator_decl(&p);
			p.have = false;
			continue;
		}
		/* -x pspec: no declarations, "int*x" is a probe glob */
		if (!prog->opt.pspec && decl_start(&p)) {
			declaration(&p);
			continue;
		}
		clause(&p);
	}
	/* #pragma D attributes must name something the program defines */
	for (int i = 0; i < p.npending; i++) {
		bool found = dt_func_lookup(p.pending[i].name) != NULL;

		for (struct dt_var *v = prog->vars; v && !found; v = v->next)
			found = v->scope == DT_GLOBAL &&
				!strcmp(v->name, p.pending[i].name);
		for (struct dt_inline *in = prog->inlines; in && !found;
		     in = in->next)
			found = !strcmp(in->name, p.pending[i].name);
		if (!found)
			dt_cerror(cc, &p.pending[i].loc, D_PRAGMA_UNUSED,
				  "unused #pragma attributes");
	}
}
