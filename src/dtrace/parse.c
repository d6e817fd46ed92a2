// SPDX-License-Identifier: GPL-2.0-only
/* parse — a recursive-descent parser for D: the outer level (probe
 * clauses, declarations, #pragma D option), predicates, statements, and
 * expressions with C's operators and precedence plus D's ^^, casts,
 * @aggregations, self-> and this-> variables and $macro arguments. The
 * result is a tree of struct dt_node; names are resolved later by
 * types.c. */
#include "ast.h"
#include "../lib/util.h"

#include <ctype.h>
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
};

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

static _Noreturn void syntax(struct parser *p, const char *what)
{
	struct dt_token *t = peek(p);

	if (t->t == T_EOF)
		dt_error(p->cc, &t->loc, "syntax error at end of input: %s",
			 what);
	dt_error(p->cc, &t->loc, "syntax error near \"%.*s\": %s",
		 (int)(t->len ? t->len : 1), t->start, what);
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
};

static int typedef_index(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(typedefs); i++)
		if (!strcmp(typedefs[i].name, s))
			return (int)i;
	return -1;
}

static bool starts_type(struct parser *p)
{
	struct dt_token *t = peek(p);

	switch (t->t) {
	case T_SIGNED: case T_UNSIGNED: case T_CHAR_KW: case T_SHORT:
	case T_INT_KW: case T_LONG: case T_VOID: case T_STRING_KW:
	case T_CONST: case T_VOLATILE:
		return true;
	case T_IDENT:
		return typedef_index(t->sval) >= 0;
	default:
		return false;
	}
}

/* A type name: C's integer specifiers, D's string, the usual typedefs,
 * and pointers to them. */
static struct dt_type parse_type(struct parser *p)
{
	struct dt_loc loc = peek(p)->loc;
	int sign = 0, nlong = 0, base = 0;	/* base: token or typedef */
	struct dt_type t = { 0 };
	int td = -1;

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
		} else if ((k->t == T_CHAR_KW || k->t == T_SHORT ||
			    k->t == T_INT_KW || k->t == T_VOID ||
			    k->t == T_STRING_KW) && !base && td < 0) {
			base = k->t;
			next(p);
		} else if (k->t == T_IDENT && !base && td < 0 && !sign &&
			   !nlong && typedef_index(k->sval) >= 0) {
			td = typedef_index(k->sval);
			next(p);
		} else {
			break;
		}
	}
	if (td >= 0) {
		t.kind = DT_TINT;
		t.size = typedefs[td].size;
		t.sign = typedefs[td].sign;
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
		if ((base == T_CHAR_KW || base == T_SHORT) && nlong)
			dt_error(p->cc, &loc, "invalid type specifiers");
		if (!base && !sign && !nlong)
			syntax(p, "expected a type");
	}
	while (peek(p)->t == T_STAR) {
		next(p);
		if (t.kind == DT_TSTR)
			dt_error(p->cc, &loc, "pointers to string are not "
				 "supported");
		t.pointee = t.kind == DT_TVOID ? 1 : t.kind == DT_TPTR ? 8 :
			    t.size;
		t.pointee_unsigned = t.kind == DT_TINT && !t.sign;
		t.kind = DT_TPTR;
		t.size = 8;
		t.sign = false;
	}
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

/* The text of $name; NULL when it has none. */
static const char *macro_text(struct parser *p, const char *name, char *buf,
			      size_t len)
{
	struct dt_macros *m = p->prog->macros;

	if (all_digits(name)) {
		long i = strtol(name, NULL, 10);

		if (!m || i >= m->argc)
			return NULL;
		return m->argv[i];
	}
	if (!strcmp(name, "target")) {
		if (!m || m->target < 0)
			return NULL;
		snprintf(buf, len, "%ld", m->target);
	} else if (!strcmp(name, "pid")) {
		snprintf(buf, len, "%d", (int)getpid());
	} else if (!strcmp(name, "ppid")) {
		snprintf(buf, len, "%d", (int)getppid());
	} else if (!strcmp(name, "uid")) {
		snprintf(buf, len, "%u", (unsigned)getuid());
	} else if (!strcmp(name, "gid")) {
		snprintf(buf, len, "%u", (unsigned)getgid());
	} else {
		return NULL;
	}
	return buf;
}

static _Noreturn void no_macro(struct parser *p, const struct dt_loc *loc,
			       const char *name)
{
	if (!strcmp(name, "target"))
		dt_error(p->cc, loc, "macro variable $target needs -c CMD or "
			 "-p PID");
	if (all_digits(name))
		dt_error(p->cc, loc, "macro argument $%s is not defined", name);
	dt_error(p->cc, loc, "undefined macro variable $%s", name);
}

/* ---- expressions ---- */

static struct dt_node *expr(struct parser *p);
static struct dt_node *assign_expr(struct parser *p);
static struct dt_node *unary(struct parser *p);

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
	struct dt_node *n = node(p, N_STR, loc);

	n->sval = dt_strndup(&p->cc->arena, s, len);
	n->type.kind = DT_TSTR;
	n->type.ssize = (uint16_t)(len + 1);
	return n;
}

static struct dt_node *macro(struct parser *p, const struct dt_token *t)
{
	char buf[32];
	const char *text = macro_text(p, t->sval, buf, sizeof(buf));
	char *end;

	if (!text)
		no_macro(p, &t->loc, t->sval);
	if (t->ival)	/* $$N */
		return str_node(p, &t->loc, text, strlen(text));
	uint64_t v = strtoull(text, &end, 0);

	if (*text && !*end && (isdigit((unsigned char)*text)))
		return int_node(p, &t->loc, v, false, false);
	if (*text == '-' && text[1] && isdigit((unsigned char)text[1])) {
		long long sv = strtoll(text, &end, 0);

		if (!*end) {
			struct dt_node *n = int_node(p, &t->loc,
						     (uint64_t)-sv, false,
						     false);
			struct dt_node *u = node(p, N_UNARY, &t->loc);

			u->op = T_MINUS;
			u->a = n;
			return u;
		}
	}
	/* Anything else stands for an identifier, as in DTrace. */
	bool ident = isalpha((unsigned char)*text) || *text == '_';

	for (const char *s = text; *s && ident; s++)
		ident = isalnum((unsigned char)*s) || *s == '_';
	if (!ident)
		dt_error(p->cc, &t->loc, "macro argument $%s is not an integer "
			 "or identifier (\"%s\"; use $$%s for a string)",
			 t->sval, text, t->sval);
	struct dt_node *n = node(p, N_VAR, &t->loc);

	n->name = dt_strdup(&p->cc->arena, text);
	return n;
}

/* Arguments up to ')' or ']'. */
static void arg_list(struct parser *p, struct dt_node *n, enum dt_tok close)
{
	struct dt_node *args[64];
	int na = 0;

	if (peek(p)->t != close) {
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
		n->type = (struct dt_type){ DT_TINT, 1, true, 0, 0, false };
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
			if (!n->nargs)
				dt_error(p->cc, &t.loc, "array %s[] needs a "
					 "key", t.sval);
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
			if (!n->nargs)
				dt_error(p->cc, &t.loc, "%s[] needs a key "
					 "(write %s for no key)", t.sval,
					 t.sval);
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
		m = expect(p, T_IDENT);
		n = node(p, t.t == T_SELF ? N_SELF : N_THIS, &t.loc);
		n->name = m.sval;
		if (peek(p)->t == T_LBRACK)
			dt_error(p->cc, &peek(p)->loc, "not supported: "
				 "thread-local or clause-local associative "
				 "arrays");
		return n;
	}
	case T_LPAREN:
		n = expr(p);
		expect(p, T_RPAREN);
		return n;
	case T_RESERVED:
		dt_error(p->cc, &t.loc, "not supported: '%s' is reserved in D",
			 t.sval);
	default:
		p->tok = t;
		p->have = true;
		syntax(p, "expected an expression");
	}
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
			m->name = expect(p, T_IDENT).sval;
			m->a = n;
			n = m;
		} else if (t->t == T_LBRACK) {
			dt_error(p->cc, &t->loc, "not supported: indexing an "
				 "expression (only named associative arrays "
				 "take [keys])");
		} else if (t->t == T_LPAREN) {
			dt_error(p->cc, &t->loc, "calling an expression: only "
				 "named functions can be called");
		} else {
			return n;
		}
	}
}

static struct dt_node *unary(struct parser *p)
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
		dt_error(p->cc, &loc, "not supported: taking an address "
			 "with '&'");
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

/* Binary operators by precedence, lowest first. */
static const struct level {
	enum dt_tok ops[4];
} levels[] = {
	{ { T_LOR } }, { { T_LXOR } }, { { T_LAND } }, { { T_PIPE } },
	{ { T_CARET } }, { { T_AMP } }, { { T_EQ, T_NE } },
	{ { T_LT, T_GT, T_LE, T_GE } }, { { T_SHL, T_SHR } },
	{ { T_PLUS, T_MINUS } }, { { T_STAR, T_SLASH, T_PERCENT } },
};

/* In a predicate, the '/' that ends it is followed by '{', the end of
 * the input, or a new line. */
static bool pred_ends(struct parser *p)
{
	struct dt_lexer save = p->lx;
	int line = p->lx.line, c;

	c = dt_lex_skip(&p->lx);
	bool end = !c || c == '{' || p->lx.line != line;

	p->lx = save;
	return end;
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
		l = n;
	}
}

static struct dt_node *ternary(struct parser *p)
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
	return n;
}

static bool is_assign_op(enum dt_tok t)
{
	return t >= T_ASSIGN && t <= T_SHR_ASSIGN;
}

static struct dt_node *assign_expr(struct parser *p)
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
	return n;
}

static struct dt_node *expr(struct parser *p)
{
	struct dt_node *n = assign_expr(p);

	if (peek(p)->t == T_COMMA)
		dt_error(p->cc, &peek(p)->loc, "not supported: the comma "
			 "operator");
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

static struct dt_node *statement(struct parser *p)
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
	if (t->t == T_RESERVED)
		dt_error(p->cc, &loc, "not supported: '%s' is reserved in D",
			 t->sval);
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
		dt_error(p->cc, &loc, "declarations belong outside clauses");
	}
expression:
	if (t->t == T_AGG) {
		struct dt_node *lhs = primary(p);

		if (peek(p)->t != T_ASSIGN)
			dt_error(p->cc, &lhs->loc, "an aggregation is set with "
				 "'%s = func(...)'", lhs->name);
		next(p);
		n = node(p, S_AGG, &loc);
		n->a = lhs;
		n->b = unary(p);
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

/* ---- the outer level ---- */

static void pragma(struct parser *p)
{
	struct dt_loc loc = { p->lx.src, p->lx.line, p->lx.col };
	char *line = dt_lex_line(&p->lx), *save = NULL, err[256];
	char *w0 = strtok_r(line, " \t\r", &save);
	char *w1 = strtok_r(NULL, " \t\r", &save);
	char *w2 = strtok_r(NULL, " \t\r", &save);
	char *w3 = strtok_r(NULL, " \t\r", &save);

	if (!w0 || !strcmp(w0, "#"))
		return;
	if (strcmp(w0, "#pragma"))
		dt_error(p->cc, &loc, "not supported: preprocessor directive "
			 "%s (sonde dtrace has no -C)", w0);
	if (!w1 || strcmp(w1, "D"))
		return;	/* other pragmas are ignored, as in C */
	if (!w2 || strcmp(w2, "option"))
		dt_error(p->cc, &loc, "not supported: #pragma D %s",
			 w2 ? w2 : "");
	if (!w3)
		dt_error(p->cc, &loc, "#pragma D option needs an option name");
	char *eq = strchr(w3, '=');

	if (eq)
		*eq++ = '\0';
	if (dt_set_option(&p->prog->opt, w3, eq, err, sizeof(err)))
		dt_error(p->cc, &loc, "%s", err);
}

/* Split provider:module:function:name; missing fields on the left are
 * empty. $macros are expanded. */
static struct dt_pdesc split_pdesc(struct parser *p, const struct dt_token *t)
{
	struct dt_arena *ar = &p->cc->arena;
	struct dt_pdesc pd = { 0 };
	struct abuf ab = { 0 };
	char *f[4], *s;
	int n = 0;

	abuf_put(ar, &ab, "", 0);
	for (const char *c = t->sval; *c;) {
		if (*c != '$') {
			abuf_put(ar, &ab, c++, 1);
			continue;
		}
		const char *ns = ++c;

		while (isalnum((unsigned char)*c) || *c == '_')
			c++;
		char name[64], buf[32];
		const char *v;

		if (c == ns)
			dt_error(p->cc, &t->loc, "'$' must be followed by a "
				 "macro name or argument number");
		snprintf(name, sizeof(name), "%.*s", (int)(c - ns), ns);
		v = macro_text(p, name, buf, sizeof(buf));
		if (!v)
			no_macro(p, &t->loc, name);
		abuf_put(ar, &ab, v, strlen(v));
	}
	pd.text = ab.b;
	pd.loc = t->loc;
	s = dt_strdup(ar, pd.text);
	f[n++] = s;
	for (char *c = s; *c; c++) {
		if (*c != ':')
			continue;
		if (n == 4)
			dt_error(p->cc, &t->loc, "invalid probe description "
				 "\"%s\": too many ':' separators", pd.text);
		*c = '\0';
		f[n++] = c + 1;
	}
	const char *empty = "";
	char **dst[4] = { &pd.prov, &pd.mod, &pd.func, &pd.name };

	for (int i = 0; i < 4; i++)
		*dst[i] = (char *)empty;
	for (int i = 0; i < n; i++)
		*dst[4 - n + i] = f[i];
	return pd;
}

static bool decl_start(struct parser *p)
{
	struct dt_lexer save = p->lx;
	struct dt_token t;
	bool r;

	dt_lex_next(&p->lx, &t);
	if (t.t == T_SELF || t.t == T_THIS) {
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

static void declaration(struct parser *p)
{
	enum dt_scope scope = DT_GLOBAL;
	struct dt_loc loc = peek(p)->loc;

	if (accept(p, T_SELF))
		scope = DT_SELF;
	else if (accept(p, T_THIS))
		scope = DT_THIS;
	struct dt_type t = parse_type(p);

	do {
		struct dt_token id = expect(p, T_IDENT);
		struct dt_var *v;

		if (t.kind == DT_TVOID)
			dt_error(p->cc, &id.loc, "variable %s cannot be void",
				 id.sval);
		if (peek(p)->t == T_LBRACK)
			dt_error(p->cc, &peek(p)->loc, "not supported: "
				 "declaring associative arrays (assign them "
				 "instead)");
		for (v = p->prog->vars; v; v = v->next)
			if (!strcmp(v->name, id.sval) && v->scope == scope)
				dt_error(p->cc, &id.loc, "%s%s redeclared",
					 scope == DT_SELF ? "self->" :
					 scope == DT_THIS ? "this->" : "",
					 id.sval);
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
	(void)loc;
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
		if (!dt_lex_probedesc(&p->lx, &t) || !t.len)
			dt_error(p->cc, &t.loc, "syntax error: expected a probe "
				 "description");
		if (n == (int)ARRAY_SIZE(pds))
			dt_error(p->cc, &t.loc, "too many probe descriptions "
				 "in one clause");
		pds[n++] = split_pdesc(p, &t);
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
		cl->pred = expr(p);
		p->in_predicate = false;
		expect(p, T_SLASH);
		c = dt_lex_skip(&p->lx);
	}
	if (c == '{') {
		next(p);
		cl->has_body = true;
		cl->body = statements(p);
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

void dt_parse(struct dt_cc *cc, struct dt_prog *prog, const struct dt_src *src)
{
	struct parser p = { .cc = cc, .prog = prog };

	dt_lex_init(&p.lx, cc, src);
	for (;;) {
		int c;

		p.have = false;
		c = dt_lex_skip(&p.lx);
		if (!c)
			break;
		if (c == '#') {
			pragma(&p);
			continue;
		}
		if (c == ';') {
			dt_lex_next(&p.lx, &p.tok);
			continue;
		}
		if (decl_start(&p)) {
			declaration(&p);
			continue;
		}
		clause(&p);
	}
}
