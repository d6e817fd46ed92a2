// SPDX-License-Identifier: GPL-2.0-only
/* lex — the D lexer, written by hand: tokens with their line and column,
 * integer literals with C's bases and suffixes, character and string
 * literals with C's escapes, @aggregations, $macro variables, and at the
 * outer level of a program the probe descriptions, which have their own
 * lexical rules (provider:module:function:name with globs). */
#include "ast.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *word;
	enum dt_tok t;
} keywords[] = {
	{ "if", T_IF }, { "else", T_ELSE }, { "sizeof", T_SIZEOF },
	{ "self", T_SELF }, { "this", T_THIS }, { "stringof", T_STRINGOF },
	{ "signed", T_SIGNED }, { "unsigned", T_UNSIGNED },
	{ "char", T_CHAR_KW }, { "short", T_SHORT }, { "int", T_INT_KW },
	{ "long", T_LONG }, { "void", T_VOID }, { "string", T_STRING_KW },
	{ "const", T_CONST }, { "volatile", T_VOLATILE },
	/* D's other reserved words: refused with a clear message */
	{ "auto", T_RESERVED }, { "break", T_RESERVED }, { "case", T_RESERVED },
	{ "continue", T_RESERVED }, { "counter", T_RESERVED },
	{ "default", T_RESERVED }, { "do", T_RESERVED }, { "double", T_RESERVED },
	{ "enum", T_ENUM }, { "extern", T_RESERVED }, { "float", T_RESERVED },
	{ "for", T_RESERVED }, { "goto", T_RESERVED }, { "import", T_RESERVED },
	{ "inline", T_RESERVED }, { "offsetof", T_OFFSETOF },
	{ "probe", T_RESERVED }, { "provider", T_RESERVED },
	{ "register", T_RESERVED }, { "restrict", T_RESERVED },
	{ "return", T_RESERVED }, { "static", T_RESERVED },
	{ "struct", T_STRUCT }, { "switch", T_RESERVED },
	{ "translator", T_RESERVED }, { "typedef", T_TYPEDEF },
	{ "union", T_UNION }, { "while", T_RESERVED }, { "xlate", T_RESERVED },
};

static const char *const tok_names[T_NTOKENS] = {
	[T_EOF] = "end of input", [T_INT] = "integer", [T_STR] = "string",
	[T_CHAR] = "character", [T_IDENT] = "identifier",
	[T_AGG] = "aggregation", [T_MACRO] = "macro variable",
	[T_PROBEDESC] = "probe description",
	[T_LBRACE] = "{", [T_RBRACE] = "}", [T_LPAREN] = "(", [T_RPAREN] = ")",
	[T_LBRACK] = "[", [T_RBRACK] = "]", [T_SEMI] = ";", [T_COMMA] = ",",
	[T_QUESTION] = "?", [T_COLON] = ":", [T_DOT] = ".", [T_ARROW] = "->",
	[T_PLUS] = "+", [T_MINUS] = "-", [T_STAR] = "*", [T_SLASH] = "/",
	[T_PERCENT] = "%", [T_AMP] = "&", [T_PIPE] = "|", [T_CARET] = "^",
	[T_TILDE] = "~", [T_BANG] = "!", [T_SHL] = "<<", [T_SHR] = ">>",
	[T_LT] = "<", [T_GT] = ">", [T_LE] = "<=", [T_GE] = ">=", [T_EQ] = "==",
	[T_NE] = "!=", [T_LAND] = "&&", [T_LOR] = "||", [T_LXOR] = "^^",
	[T_INC] = "++", [T_DEC] = "--", [T_ASSIGN] = "=", [T_ADD_ASSIGN] = "+=",
	[T_SUB_ASSIGN] = "-=", [T_MUL_ASSIGN] = "*=", [T_DIV_ASSIGN] = "/=",
	[T_MOD_ASSIGN] = "%=", [T_AND_ASSIGN] = "&=", [T_OR_ASSIGN] = "|=",
	[T_XOR_ASSIGN] = "^=", [T_SHL_ASSIGN] = "<<=", [T_SHR_ASSIGN] = ">>=",
	[T_IF] = "if", [T_ELSE] = "else", [T_SIZEOF] = "sizeof",
	[T_SELF] = "self", [T_THIS] = "this", [T_STRINGOF] = "stringof",
	[T_SIGNED] = "signed", [T_UNSIGNED] = "unsigned", [T_CHAR_KW] = "char",
	[T_SHORT] = "short", [T_INT_KW] = "int", [T_LONG] = "long",
	[T_VOID] = "void", [T_STRING_KW] = "string", [T_CONST] = "const",
	[T_VOLATILE] = "volatile", [T_STRUCT] = "struct", [T_UNION] = "union",
	[T_ENUM] = "enum", [T_TYPEDEF] = "typedef", [T_OFFSETOF] = "offsetof",
	[T_RESERVED] = "reserved word",
};

const char *dt_tok_name(enum dt_tok t)
{
	return t < T_NTOKENS && tok_names[t] ? tok_names[t] : "?";
}

void dt_lex_init(struct dt_lexer *lx, struct dt_cc *cc,
		 const struct dt_src *src)
{
	memset(lx, 0, sizeof(*lx));
	lx->cc = cc;
	lx->src = src;
	lx->line = 1;
	lx->col = 1;
}

static int peekc(const struct dt_lexer *lx, size_t ahead)
{
	size_t p = lx->pos + ahead;

	return p < lx->src->len ? (unsigned char)lx->src->text[p] : 0;
}

static int getc_(struct dt_lexer *lx)
{
	int c = peekc(lx, 0);

	if (!c)
		return 0;
	lx->pos++;
	if (c == '\n') {
		lx->line++;
		lx->col = 1;
	} else {
		lx->col++;
	}
	return c;
}

static struct dt_loc here(const struct dt_lexer *lx)
{
	return (struct dt_loc){ lx->src, lx->line, lx->col, lx->file };
}

/* Whether only blanks precede the current position on its line. */
static bool at_line_start(const struct dt_lexer *lx)
{
	for (size_t i = lx->pos; i > 0; i--) {
		char c = lx->src->text[i - 1];

		if (c == '\n')
			return true;
		if (!strchr("\f\t\v \r", c))
			return false;
	}
	return true;
}

/* A control line (#pragma, #line, # N "file", #error...): its words are
 * handed to the parser's handler; "#!" lines are skipped. */
static void control_line(struct dt_lexer *lx)
{
	struct dt_arena *ar = &lx->cc->arena;
	struct dt_loc at = here(lx);
	struct dt_ctlword w[64];
	int n = 0;

	getc_(lx);	/* '#' */
	if (peekc(lx, 0) == '!') {
		while (peekc(lx, 0) && peekc(lx, 0) != '\n')
			getc_(lx);
		return;
	}
	for (;;) {
		int c = peekc(lx, 0);

		if (!c) {
			struct dt_loc end = here(lx);

			dt_cerror(lx->cc, &end, D_SYNTAX, "end-of-file "
				  "encountered before end of control line");
		}
		if (c == '\n') {
			getc_(lx);
			break;
		}
		if (strchr("\f\t\v \r", c)) {
			getc_(lx);
			continue;
		}
		if (n == (int)(sizeof(w) / sizeof(w[0])))
			dt_cerror(lx->cc, &at, D_SYNTAX, "control line has too "
				  "many words");
		memset(&w[n], 0, sizeof(w[n]));
		if (c == '"') {
			size_t start;

			getc_(lx);
			start = lx->pos;
			while (peekc(lx, 0) != '"') {
				if (!peekc(lx, 0) || peekc(lx, 0) == '\n') {
					struct dt_loc e = here(lx);

					dt_cerror(lx->cc, &e, D_STR_NL,
						  "newline encountered in "
						  "string literal");
				}
				if (peekc(lx, 0) == '\\' && peekc(lx, 1) &&
				    peekc(lx, 1) != '\n')
					getc_(lx);
				getc_(lx);
			}
			w[n].s = dt_strndup(ar, lx->src->text + start,
					    lx->pos - start);
			w[n].is_str = true;
			getc_(lx);
		} else {
			size_t start = lx->pos;
			char *end;

			while (peekc(lx, 0) && !strchr("\f\n\t\v \r\"",
							peekc(lx, 0)))
				getc_(lx);
			w[n].s = dt_strndup(ar, lx->src->text + start,
					    lx->pos - start);
			if (isdigit((unsigned char)w[n].s[0])) {
				errno = 0;
				w[n].v = strtoull(w[n].s, &end, 0);
				w[n].is_int = !errno && !*end;
			}
		}
		n++;
	}
	if (lx->ctl)
		lx->ctl(lx, w, n, &at);
}

int dt_lex_skip(struct dt_lexer *lx)
{
	for (;;) {
		int c = peekc(lx, 0);

		if (c == '#' && at_line_start(lx)) {
			control_line(lx);
		} else if (c && isspace(c)) {
			getc_(lx);
		} else if (c == '/' && peekc(lx, 1) == '*') {
			getc_(lx);
			getc_(lx);
			while (!(peekc(lx, 0) == '*' && peekc(lx, 1) == '/')) {
				if (!peekc(lx, 0)) {
					struct dt_loc end = here(lx);

					dt_cerror(lx->cc, &end, D_SYNTAX,
						  "end-of-file encountered "
						  "before matching */");
				}
				if (peekc(lx, 0) == '/' && peekc(lx, 1) == '*') {
					struct dt_loc at = here(lx);

					dt_cerror(lx->cc, &at, D_SYNTAX,
						  "/* encountered inside a "
						  "comment");
				}
				getc_(lx);
			}
			getc_(lx);
			getc_(lx);
		} else if (c == '/' && peekc(lx, 1) == '/') {
			while (peekc(lx, 0) && peekc(lx, 0) != '\n')
				getc_(lx);
		} else {
			return c;
		}
	}
}


/* Characters of a probe description: names, globs, and the separators. */
static bool pdesc_char(int c)
{
	return c && (isalnum(c) || strchr("_-:*?[]!.$`+~", c));
}

bool dt_lex_probedesc(struct dt_lexer *lx, struct dt_token *tok)
{
	size_t start;

	memset(tok, 0, sizeof(*tok));
	if (!dt_lex_skip(lx))
		return false;
	tok->loc = here(lx);
	start = lx->pos;
	while (pdesc_char(peekc(lx, 0)))
		getc_(lx);
	tok->t = T_PROBEDESC;
	tok->start = lx->src->text + start;
	tok->len = lx->pos - start;
	tok->sval = dt_strndup(&lx->cc->arena, tok->start, tok->len);
	return true;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One character of a string or character literal, escapes decoded as
 * DTrace decodes them (stresc2chr): \x takes every hex digit that
 * follows, an unknown escape stays as written (*pending gets the second
 * character). */
static int lex_escape(struct dt_lexer *lx, int *pending)
{
	int c = getc_(lx), v, n;

	*pending = -1;
	if (c != '\\')
		return c;
	c = peekc(lx, 0);
	if (c == '\n' || !c)
		return '\\';	/* the caller reports the newline or the end */
	getc_(lx);
	switch (c) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case 'a': return '\a';
	case 'b': return '\b';
	case 'f': return '\f';
	case 'v': return '\v';
	case '\\': case '"': return c;
	case 'x':
		v = 0;
		while (hexval(peekc(lx, 0)) >= 0)
			v = v * 16 + hexval(getc_(lx));
		return v & 0xff;
	case '0': case '1': case '2': case '3':
	case '4': case '5': case '6': case '7':
		v = c - '0';
		for (n = 1; n < 3 && peekc(lx, 0) >= '0' && peekc(lx, 0) <= '7';
		     n++)
			v = v * 8 + getc_(lx) - '0';
		return v & 0xff;
	default:
		*pending = c;
		return '\\';
	}
}

/* "syntax error near "c"" at the current position, as DTrace's lexer
 * says it of a character no rule takes. */
static _Noreturn void lex_syntax(struct dt_lexer *lx, int c)
{
	struct dt_loc at = here(lx);

	if (!c)
		dt_cerror(lx->cc, &at, D_SYNTAX, "syntax error near end of "
			  "input");
	dt_cerror(lx->cc, &at, D_SYNTAX, "syntax error near \"%c\"", c);
}

/* An integer constant as DTrace's lexer takes one: decimal digits or 0x
 * and hex digits, then [uU]?[lL]?[lL]?; a floating-point constant is
 * refused; strtoull (base 0) must use every digit (0128 has an invalid
 * 8). */
static void lex_number(struct dt_lexer *lx, struct dt_token *tok)
{
	const char *s = lx->src->text + lx->pos;
	size_t n = 0, digits;
	char text[128], *end;
	uint64_t v;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
		   hexval(peekc(lx, 2)) >= 0;

	if (hex) {
		n = 2;
		while (hexval(peekc(lx, n)) >= 0)
			n++;
	} else {
		while (isdigit(peekc(lx, n)))
			n++;
		/* what DTrace's lexer matches as a floating-point constant */
		int c = peekc(lx, n);

		if (c == '.' || c == 'f' || c == 'F' ||
		    ((c == 'e' || c == 'E') &&
		     (isdigit(peekc(lx, n + 1)) ||
		      ((peekc(lx, n + 1) == '+' || peekc(lx, n + 1) == '-') &&
		       isdigit(peekc(lx, n + 2))))))
			dt_cerror(lx->cc, &tok->loc, D_SYNTAX, "floating-point "
				  "constants are not permitted");
	}
	digits = n;
	if (peekc(lx, n) == 'u' || peekc(lx, n) == 'U') {
		tok->is_unsigned = true;
		n++;
	}
	for (int i = 0; i < 2 && (peekc(lx, n) == 'l' || peekc(lx, n) == 'L');
	     i++) {
		tok->is_long = true;
		n++;
	}
	snprintf(text, sizeof(text), "%.*s", (int)n, s);
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno == ERANGE)
		dt_cerror(lx->cc, &tok->loc, D_INT_OFLOW, "constant %s results "
			  "in integer overflow", text);
	if ((size_t)(end - s) < digits)
		dt_cerror(lx->cc, &tok->loc, D_INT_DIGIT, "constant %s contains "
			  "invalid digit %c", text, *end);
	while (n--)
		getc_(lx);
	tok->t = T_INT;
	tok->ival = v;
}

static bool ident_char(int c)
{
	return c && (isalnum(c) || c == '_');
}

/* Identifiers may hold backquotes: `sym, vmlinux`sym (kernel symbols). */
static bool ident_char_bq(int c)
{
	return ident_char(c) || c == '`';
}

/* dt_lex.l's id_or_type: an identifier that is not known yet (nor right
 * after struct/union/enum, '.' or '->') makes DTrace's lexer look at the
 * characters after it; "x =", "x;", "x[", "x++", "x," (outside parens)
 * make it a variable from then on. Its looking leaves yytext running to
 * the end of the line (tok->peeked). */
static void id_peek(struct dt_lexer *lx, struct dt_token *tok)
{
	const char *text = lx->src->text;
	size_t i = lx->pos, len = lx->src->len;
	int c0, c1;

	if (lx->prev == T_STRUCT || lx->prev == T_UNION ||
	    lx->prev == T_ENUM || lx->prev == T_DOT || lx->prev == T_ARROW)
		return;
	for (const struct dt_lexid *id = lx->idents; id; id = id->next)
		if (!strcmp(id->name, tok->sval))
			return;
	tok->peeked = true;
	while (i < len && strchr("\f\n\r\t\v ", text[i]))
		i++;
	c0 = i < len ? (unsigned char)text[i] : 0;
	c1 = i + 1 < len ? (unsigned char)text[i + 1] : 0;
	if (!lx->in_typedef &&
	    (c0 == '[' || c0 == ';' || ((c0 == '+' || c0 == '-') && c1 == c0) ||
	     (c0 == '=' && c1 != '=') || (c0 == ',' && !lx->parens))) {
		struct dt_lexid *id = dt_alloc(&lx->cc->arena, sizeof(*id));

		id->name = tok->sval;
		id->next = lx->idents;
		lx->idents = id;
	}
}

void dt_lex_next(struct dt_lexer *lx, struct dt_token *tok)
{
	struct dt_arena *ar = &lx->cc->arena;
	size_t start;
	int c, c1;

	memset(tok, 0, sizeof(*tok));
	c = dt_lex_skip(lx);
	tok->loc = here(lx);
	start = lx->pos;
	tok->start = lx->src->text + start;
	if (!c) {
		tok->t = T_EOF;
		return;
	}
	if (isdigit(c)) {
		lex_number(lx, tok);
		goto done;
	}
	if (isalpha(c) || c == '_' || c == '`') {
		while (ident_char_bq(peekc(lx, 0)))
			getc_(lx);
		tok->sval = dt_strndup(ar, tok->start, lx->pos - start);
		tok->t = T_IDENT;
		for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]);
		     i++)
			if (!strcmp(keywords[i].word, tok->sval))
				tok->t = keywords[i].t;
		if (tok->t == T_IDENT && c != '`')
			id_peek(lx, tok);
		goto done;
	}
	if (c == '@') {
		getc_(lx);
		if (isalpha(peekc(lx, 0)) || peekc(lx, 0) == '_')
			while (ident_char(peekc(lx, 0)))
				getc_(lx);
		tok->t = T_AGG;
		/* a bare @ is the aggregation @_ */
		tok->sval = lx->pos - start == 1 ? dt_strdup(ar, "@_") :
			    dt_strndup(ar, tok->start, lx->pos - start);
		goto done;
	}
	if (c == '$') {
		getc_(lx);
		if (peekc(lx, 0) == '$') {
			getc_(lx);
			tok->ival = 1;	/* $$N: the argument as a string */
		}
		size_t ns = lx->pos;

		if (isdigit(peekc(lx, 0))) {
			while (isdigit(peekc(lx, 0)))
				getc_(lx);
		} else if (isalpha(peekc(lx, 0)) || peekc(lx, 0) == '_') {
			while (ident_char(peekc(lx, 0)))
				getc_(lx);
		}
		if (lx->pos == ns) {
			lx->pos = start;
			lx->col = tok->loc.col;
			lex_syntax(lx, '$');
		}
		tok->t = T_MACRO;
		tok->sval = dt_strndup(ar, lx->src->text + ns, lx->pos - ns);
		goto done;
	}
	if (c == '"') {
		struct sbuf_lite { char *b; size_t n, cap; } sb = { 0 };

		getc_(lx);
		for (;;) {
			int pending;

			c = peekc(lx, 0);
			if (c == '\n') {
				struct dt_loc at;

				getc_(lx);	/* DTrace counts it first */
				at = here(lx);
				dt_cerror(lx->cc, &at, D_STR_NL, "newline "
					  "encountered in string literal");
			}
			if (!c) {
				lx->pos = start;
				lx->line = tok->loc.line;
				lx->col = tok->loc.col;
				lex_syntax(lx, '"');
			}
			if (c == '"')
				break;
			c = lex_escape(lx, &pending);
			if (c == '\\' && (peekc(lx, 0) == '\n' || !peekc(lx, 0)))
				continue;	/* reported above */
			for (int k = 0; k < 2; k++) {
				if (sb.n + 1 >= sb.cap) {
					size_t ncap = sb.cap ? sb.cap * 2 : 64;
					char *nb = dt_alloc(ar, ncap);

					if (sb.n)
						memcpy(nb, sb.b, sb.n);
					sb.b = nb;
					sb.cap = ncap;
				}
				sb.b[sb.n++] = (char)c;
				if (pending < 0)
					break;
				c = pending;
			}
		}
		getc_(lx);
		tok->t = T_STR;
		tok->sval = sb.b ? sb.b : dt_strdup(ar, "");
		tok->len = sb.n;
		tok->ival = sb.n;
		lx->prev = T_STR;
		return;
	}
	if (c == '\'') {
		/* up to 8 characters, the first in the most significant
		 * byte, as DTrace (and C) read 'ab' */
		uint8_t bytes[64];
		size_t nb = 0;

		getc_(lx);
		for (;;) {
			int pending;

			c = peekc(lx, 0);
			if (c == '\n') {
				struct dt_loc at;

				getc_(lx);
				at = here(lx);
				dt_cerror(lx->cc, &at, D_CHR_NL, "newline "
					  "encountered in character constant");
			}
			if (!c) {
				lx->pos = start;
				lx->line = tok->loc.line;
				lx->col = tok->loc.col;
				lex_syntax(lx, '\'');
			}
			if (c == '\'')
				break;
			c = lex_escape(lx, &pending);
			if (c == '\\' && (peekc(lx, 0) == '\n' || !peekc(lx, 0)))
				continue;
			if (nb < sizeof(bytes))
				bytes[nb++] = (uint8_t)c;
			if (pending >= 0 && nb < sizeof(bytes))
				bytes[nb++] = (uint8_t)pending;
		}
		getc_(lx);
		if (!nb)
			dt_cerror(lx->cc, &tok->loc, D_CHR_NULL, "empty character "
				  "constant");
		if (nb > 8)
			dt_cerror(lx->cc, &tok->loc, D_CHR_OFLOW, "character "
				  "constant is too long");
		if (nb == 1) {
			tok->ival = (uint64_t)(int64_t)(signed char)bytes[0];
			tok->t = T_CHAR;
		} else {
			for (size_t i = 0; i < nb; i++)
				tok->ival = tok->ival << 8 | bytes[i];
			tok->t = T_INT;
		}
		goto done;
	}

	getc_(lx);
	c1 = peekc(lx, 0);
#define TWO(ch, tk) if (c1 == (ch)) { getc_(lx); tok->t = (tk); goto done; }
	switch (c) {
	case '{': tok->t = T_LBRACE; break;
	case '}': tok->t = T_RBRACE; break;
	case '(': tok->t = T_LPAREN; lx->parens++; break;
	case ')':
		if (--lx->parens < 0)
			dt_cerror(lx->cc, &tok->loc, D_SYNTAX, "extra ) in input "
				  "stream");
		tok->t = T_RPAREN;
		break;
	case '[': tok->t = T_LBRACK; lx->brackets++; break;
	case ']':
		if (--lx->brackets < 0)
			dt_cerror(lx->cc, &tok->loc, D_SYNTAX, "extra ] in input "
				  "stream");
		tok->t = T_RBRACK;
		break;
	case ';': tok->t = T_SEMI; break;
	case ',': tok->t = T_COMMA; break;
	case '?': tok->t = T_QUESTION; break;
	case ':': tok->t = T_COLON; break;
	case '.': tok->t = T_DOT; break;
	case '~': tok->t = T_TILDE; break;
	case '+':
		TWO('+', T_INC);
		TWO('=', T_ADD_ASSIGN);
		tok->t = T_PLUS;
		break;
	case '-':
		TWO('-', T_DEC);
		TWO('=', T_SUB_ASSIGN);
		TWO('>', T_ARROW);
		tok->t = T_MINUS;
		break;
	case '*': TWO('=', T_MUL_ASSIGN); tok->t = T_STAR; break;
	case '/':
		TWO('=', T_DIV_ASSIGN);
		tok->t = T_SLASH;
		if (lx->in_predicate) {
			/* DTrace's lookahead: the '/' that ends a predicate is
			 * followed by ';', '{', '/' or the end */
			size_t i = lx->pos;
			struct dt_loc at = tok->loc;

			while (i < lx->src->len &&
			       strchr("\f\n\r\t\v ", lx->src->text[i]))
				if (lx->src->text[i++] == '\n')
					at.line++;
			if (i < lx->src->len && !strchr(";{/", lx->src->text[i]))
				break;
			if (lx->parens)
				dt_cerror(lx->cc, &at, D_SYNTAX, "closing ) "
					  "expected in predicate before /");
			if (lx->brackets)
				dt_cerror(lx->cc, &at, D_SYNTAX, "closing ] "
					  "expected in predicate before /");
			tok->ival = 1;
			/* DTrace's lexer is past the blanks it looked at */
			tok->loc.dline = at.line;
		}
		break;
	case '%': TWO('=', T_MOD_ASSIGN); tok->t = T_PERCENT; break;
	case '&':
		TWO('&', T_LAND);
		TWO('=', T_AND_ASSIGN);
		tok->t = T_AMP;
		break;
	case '|':
		TWO('|', T_LOR);
		TWO('=', T_OR_ASSIGN);
		tok->t = T_PIPE;
		break;
	case '^':
		TWO('^', T_LXOR);
		TWO('=', T_XOR_ASSIGN);
		tok->t = T_CARET;
		break;
	case '!': TWO('=', T_NE); tok->t = T_BANG; break;
	case '=': TWO('=', T_EQ); tok->t = T_ASSIGN; break;
	case '<':
		if (c1 == '<') {
			getc_(lx);
			c1 = peekc(lx, 0);
			TWO('=', T_SHL_ASSIGN);
			tok->t = T_SHL;
			goto done;
		}
		TWO('=', T_LE);
		tok->t = T_LT;
		break;
	case '>':
		if (c1 == '>') {
			getc_(lx);
			c1 = peekc(lx, 0);
			TWO('=', T_SHR_ASSIGN);
			tok->t = T_SHR;
			goto done;
		}
		TWO('=', T_GE);
		tok->t = T_GT;
		break;
	default:
		lx->pos = start;
		lx->col = tok->loc.col;
		lex_syntax(lx, c);
	}
#undef TWO
done:
	tok->len = lx->pos - start;
	lx->prev = tok->t;
}
