// SPDX-License-Identifier: GPL-2.0-only
/* lex — the D lexer, written by hand: tokens with their line and column,
 * integer literals with C's bases and suffixes, character and string
 * literals with C's escapes, @aggregations, $macro variables, and at the
 * outer level of a program the probe descriptions, which have their own
 * lexical rules (provider:module:function:name with globs). */
#include "ast.h"

#include <ctype.h>
#include <errno.h>
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
	{ "enum", T_RESERVED }, { "extern", T_RESERVED }, { "float", T_RESERVED },
	{ "for", T_RESERVED }, { "goto", T_RESERVED }, { "import", T_RESERVED },
	{ "inline", T_RESERVED }, { "offsetof", T_RESERVED },
	{ "probe", T_RESERVED }, { "provider", T_RESERVED },
	{ "register", T_RESERVED }, { "restrict", T_RESERVED },
	{ "return", T_RESERVED }, { "static", T_RESERVED },
	{ "struct", T_RESERVED }, { "switch", T_RESERVED },
	{ "translator", T_RESERVED }, { "typedef", T_RESERVED },
	{ "union", T_RESERVED }, { "while", T_RESERVED }, { "xlate", T_RESERVED },
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
	[T_VOLATILE] = "volatile", [T_RESERVED] = "reserved word",
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
	/* An interpreter line: #!/usr/bin/env -S sonde dtrace -s */
	if (src->len >= 2 && src->text[0] == '#' && src->text[1] == '!')
		while (lx->pos < src->len && src->text[lx->pos] != '\n')
			lx->pos++;
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
	return (struct dt_loc){ lx->src, lx->line, lx->col };
}

int dt_lex_skip(struct dt_lexer *lx)
{
	for (;;) {
		int c = peekc(lx, 0);

		if (c && isspace(c)) {
			getc_(lx);
		} else if (c == '/' && peekc(lx, 1) == '*') {
			struct dt_loc at = here(lx);

			getc_(lx);
			getc_(lx);
			while (!(peekc(lx, 0) == '*' && peekc(lx, 1) == '/')) {
				if (!peekc(lx, 0))
					dt_error(lx->cc, &at,
						 "unterminated comment");
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

char *dt_lex_line(struct dt_lexer *lx)
{
	size_t start = lx->pos;

	while (peekc(lx, 0) && peekc(lx, 0) != '\n')
		getc_(lx);
	return dt_strndup(&lx->cc->arena, lx->src->text + start,
			  lx->pos - start);
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

/* One character of a string or character literal, escapes decoded. */
static int lex_escape(struct dt_lexer *lx, struct dt_loc *at)
{
	int c = getc_(lx), v, n;

	if (c != '\\')
		return c;
	c = getc_(lx);
	switch (c) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case 'a': return '\a';
	case 'b': return '\b';
	case 'f': return '\f';
	case 'v': return '\v';
	case '\\': case '\'': case '"': case '?': return c;
	case 'x':
		v = 0;
		for (n = 0; n < 2 && hexval(peekc(lx, 0)) >= 0; n++)
			v = v * 16 + hexval(getc_(lx));
		if (!n)
			dt_error(lx->cc, at, "\\x used with no following hex "
				 "digits");
		return v;
	case '0': case '1': case '2': case '3':
	case '4': case '5': case '6': case '7':
		v = c - '0';
		for (n = 1; n < 3 && peekc(lx, 0) >= '0' && peekc(lx, 0) <= '7';
		     n++)
			v = v * 8 + getc_(lx) - '0';
		return v & 0xff;
	default:
		dt_error(lx->cc, at, "invalid escape sequence '\\%c'",
			 c ? c : '0');
	}
}

static void lex_number(struct dt_lexer *lx, struct dt_token *tok)
{
	const char *s = lx->src->text + lx->pos;
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && end == s + 1)
		dt_error(lx->cc, &tok->loc, "invalid hexadecimal constant");
	if (errno == ERANGE)
		dt_error(lx->cc, &tok->loc, "integer constant is too large");
	while (lx->src->text + lx->pos < end)
		getc_(lx);
	for (;;) {
		int c = peekc(lx, 0);

		if (c == 'u' || c == 'U') {
			tok->is_unsigned = true;
		} else if (c == 'l' || c == 'L') {
			tok->is_long = true;
		} else {
			break;
		}
		getc_(lx);
	}
	if (isalnum(peekc(lx, 0)) || peekc(lx, 0) == '_' || peekc(lx, 0) == '.')
		dt_error(lx->cc, &tok->loc, "invalid digit or suffix in "
			 "integer constant");
	tok->t = T_INT;
	tok->ival = v;
}

static bool ident_char(int c)
{
	return c && (isalnum(c) || c == '_');
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
	if (isalpha(c) || c == '_') {
		while (ident_char(peekc(lx, 0)))
			getc_(lx);
		tok->sval = dt_strndup(ar, tok->start, lx->pos - start);
		tok->t = T_IDENT;
		for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]);
		     i++)
			if (!strcmp(keywords[i].word, tok->sval))
				tok->t = keywords[i].t;
		goto done;
	}
	if (c == '@') {
		getc_(lx);
		while (ident_char(peekc(lx, 0)))
			getc_(lx);
		tok->t = T_AGG;
		tok->sval = dt_strndup(ar, tok->start, lx->pos - start);
		goto done;
	}
	if (c == '$') {
		getc_(lx);
		if (peekc(lx, 0) == '$') {
			getc_(lx);
			tok->ival = 1;	/* $$N: the argument as a string */
		}
		size_t ns = lx->pos;

		while (ident_char(peekc(lx, 0)))
			getc_(lx);
		if (lx->pos == ns)
			dt_error(lx->cc, &tok->loc, "'$' must be followed by "
				 "a macro name or argument number");
		tok->t = T_MACRO;
		tok->sval = dt_strndup(ar, lx->src->text + ns, lx->pos - ns);
		goto done;
	}
	if (c == '"') {
		struct sbuf_lite { char *b; size_t n, cap; } sb = { 0 };

		getc_(lx);
		for (;;) {
			c = peekc(lx, 0);
			if (!c || c == '\n')
				dt_error(lx->cc, &tok->loc,
					 "unterminated string constant");
			if (c == '"')
				break;
			c = lex_escape(lx, &tok->loc);
			if (sb.n + 1 >= sb.cap) {
				size_t ncap = sb.cap ? sb.cap * 2 : 64;
				char *nb = dt_alloc(ar, ncap);

				if (sb.n)
					memcpy(nb, sb.b, sb.n);
				sb.b = nb;
				sb.cap = ncap;
			}
			sb.b[sb.n++] = (char)c;
		}
		getc_(lx);
		tok->t = T_STR;
		tok->sval = sb.b ? sb.b : dt_strdup(ar, "");
		tok->len = sb.n;
		tok->ival = sb.n;
		return;
	}
	if (c == '\'') {
		getc_(lx);
		if (peekc(lx, 0) == '\'' || !peekc(lx, 0))
			dt_error(lx->cc, &tok->loc, "empty character constant");
		tok->ival = (uint64_t)(int64_t)(signed char)lex_escape(lx,
								    &tok->loc);
		if (getc_(lx) != '\'')
			dt_error(lx->cc, &tok->loc,
				 "unterminated or multi-character constant");
		tok->t = T_CHAR;
		goto done;
	}

	getc_(lx);
	c1 = peekc(lx, 0);
#define TWO(ch, tk) if (c1 == (ch)) { getc_(lx); tok->t = (tk); goto done; }
	switch (c) {
	case '{': tok->t = T_LBRACE; break;
	case '}': tok->t = T_RBRACE; break;
	case '(': tok->t = T_LPAREN; break;
	case ')': tok->t = T_RPAREN; break;
	case '[': tok->t = T_LBRACK; break;
	case ']': tok->t = T_RBRACK; break;
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
	case '/': TWO('=', T_DIV_ASSIGN); tok->t = T_SLASH; break;
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
		if (isprint(c))
			dt_error(lx->cc, &tok->loc, "invalid character '%c'", c);
		dt_error(lx->cc, &tok->loc, "invalid character 0x%02x", c);
	}
#undef TWO
done:
	tok->len = lx->pos - start;
}
