// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the D lexer: tokens and their positions, literals,
 * operators by longest match, probe descriptions, and errors. */
#include "test.h"
#include "dtrace/ast.h"
#include "lib/util.h"

struct lexfix {
	struct dt_cc cc;
	struct dt_src src;
	struct dt_lexer lx;
};

static void lex_open(struct lexfix *f, const char *text)
{
	memset(f, 0, sizeof(*f));
	f->src.name = "t.d";
	f->src.text = text;
	f->src.len = strlen(text);
	dt_lex_init(&f->lx, &f->cc, &f->src);
}

static void lex_close(struct lexfix *f)
{
	free(f->cc.msg);
	dt_arena_free(&f->cc.arena);
}

/* The token kinds of text, up to T_EOF; -1 when lexing fails. */
static int kinds(const char *text, enum dt_tok *out, int max, char **msg)
{
	struct lexfix f;
	struct dt_token t;
	int n = 0;

	lex_open(&f, text);
	if (setjmp(f.cc.jmp)) {
		*msg = strdup(f.cc.msg);
		lex_close(&f);
		return -1;
	}
	do {
		dt_lex_next(&f.lx, &t);
		if (n < max)
			out[n++] = t.t;
	} while (t.t != T_EOF);
	lex_close(&f);
	return n;
}

static void test_operators_longest_match(void **state)
{
	enum dt_tok k[32];
	char *msg = NULL;
	enum dt_tok want[] = { T_SHL_ASSIGN, T_SHR, T_GE, T_ARROW, T_DEC,
			       T_MINUS, T_LXOR, T_LAND, T_AMP, T_NE, T_BANG,
			       T_EQ, T_ASSIGN, T_INC, T_PLUS, T_EOF };
	(void)state;

	assert_int_equal(kinds("<<= >> >= -> -- - ^^ && & != ! == = ++ +",
			       k, 32, &msg), ARRAY_SIZE(want));
	assert_memory_equal(k, want, sizeof(want));
}

static void test_literals(void **state)
{
	struct lexfix f;
	struct dt_token t;
	(void)state;

	lex_open(&f, "0x1F 017 42u 7L 'a' '\\n' \"a\\tb\\x41\\101\\\"\" "
		 "@count $1 $$target self->x /* c */ // line\n_x9");
	if (setjmp(f.cc.jmp))
		fail_msg("%s", f.cc.msg);
	dt_lex_next(&f.lx, &t);
	assert_int_equal(t.t, T_INT);
	assert_int_equal(t.ival, 31);
	dt_lex_next(&f.lx, &t);
	assert_int_equal(t.ival, 15);
	dt_lex_next(&f.lx, &t);
	assert_int_equal(t.ival, 42);
	assert_true(t.is_unsigned);
	dt_lex_next(&f.lx, &t);
	assert_true(t.is_long);
	dt_lex_next(&f.lx, &t);
	assert_int_equal(t.t, T_CHAR);
	assert_int_equal(t.ival, 'a');
	dt_lex_next(&f.lx, &t);
	assert_int_equal(t.ival, '\n');
	dt_lex_next(&f.lx, &t);
	assert_int_equal(t.t, T_STR);
	assert_string_equal(t.sval, "a\tbAA\"");
	dt_lex_next(&f.lx, &t);
	assert_int_equal(t.t, T_AGG);
	assert_string_equal(t.sval, "@count");
	dt_lex_next(&f.lx, &t);
	assert_int_equal(t.t, T_MACRO);
	assert_string_equal(t.sval, "1");
	assert_int_equal(t.ival, 0);
	dt_lex_next(&f.lx, &t);
	assert_string_equal(t.sval, "target");
	assert_int_equal(t.ival, 1);	/* $$: as a string */
	dt_lex_next(&f.lx, &t);
	assert_int_equal(t.t, T_SELF);
	dt_lex_next(&f.lx, &t);
	assert_int_equal(t.t, T_ARROW);
	dt_lex_next(&f.lx, &t);
	assert_int_equal(t.t, T_IDENT);
	dt_lex_next(&f.lx, &t);
	assert_int_equal(t.t, T_IDENT);
	assert_string_equal(t.sval, "_x9");
	assert_int_equal(t.loc.line, 2);
	assert_int_equal(t.loc.col, 1);
	dt_lex_next(&f.lx, &t);
	assert_int_equal(t.t, T_EOF);
	lex_close(&f);
}

static void test_positions(void **state)
{
	struct lexfix f;
	struct dt_token t;
	(void)state;

	lex_open(&f, "#!/usr/bin/env -S sonde dtrace -s\nBEGIN\n{\n\tx = 1;");
	if (setjmp(f.cc.jmp))
		fail_msg("%s", f.cc.msg);
	assert_true(dt_lex_probedesc(&f.lx, &t));
	assert_string_equal(t.sval, "BEGIN");
	assert_int_equal(t.loc.line, 2);
	dt_lex_next(&f.lx, &t);
	assert_int_equal(t.t, T_LBRACE);
	dt_lex_next(&f.lx, &t);
	assert_int_equal(t.loc.line, 4);
	assert_int_equal(t.loc.col, 2);
	dt_lex_next(&f.lx, &t);
	assert_int_equal(t.loc.col, 4);
	lex_close(&f);
}

static void test_probedesc(void **state)
{
	struct lexfix f;
	struct dt_token t;
	(void)state;

	lex_open(&f, "  syscall::read*:entry,profile-997/arg0/ tick-1s{");
	if (setjmp(f.cc.jmp))
		fail_msg("%s", f.cc.msg);
	assert_true(dt_lex_probedesc(&f.lx, &t));
	assert_string_equal(t.sval, "syscall::read*:entry");
	assert_int_equal(t.loc.col, 3);
	assert_int_equal(dt_lex_skip(&f.lx), ',');
	dt_lex_next(&f.lx, &t);
	assert_true(dt_lex_probedesc(&f.lx, &t));
	assert_string_equal(t.sval, "profile-997");
	assert_int_equal(dt_lex_skip(&f.lx), '/');
	lex_close(&f);
}

static void check_error(const char *text, const char *want)
{
	enum dt_tok k[64];
	char *msg = NULL;

	assert_int_equal(kinds(text, k, 64, &msg), -1);
	if (!strstr(msg, want))
		fail_msg("'%s': got \"%s\", want \"%s\"", text, msg, want);
	free(msg);
}

static void test_errors(void **state)
{
	(void)state;
	/* dtrace(1)'s words (dtrace-utils' lexer) */
	check_error("x = \"open", "t.d:1:5: syntax error near \"\"\"");
	check_error("x = \"two\nlines\"", "t.d:2:1: newline encountered in "
		    "string literal");
	check_error("/* never closed", "t.d:1:16: end-of-file encountered "
		    "before matching */");
	check_error("/* a /* b */", "/* encountered inside a comment");
	check_error("a\n  @#", "t.d:2:4: syntax error near \"#\"");
	check_error("0128", "constant 0128 contains invalid digit 8");
	check_error("1.5", "floating-point constants are not permitted");
	check_error("''", "empty character constant");
	check_error("'abcdefghi'", "character constant is too long");
	check_error("99999999999999999999", "constant 99999999999999999999 "
		    "results in integer overflow");
	check_error("$", "syntax error near \"$\"");
	check_error("a)", "extra ) in input stream");
}

static void test_caret(void **state)
{
	struct dt_src src = { "f.d", "BEGIN\n{\n\tx = y;\n}\n", 18 };
	struct dt_loc loc = { &src, 3, 6 };
	char *d = dt_format_diag(&loc, "y is not defined");
	(void)state;

	assert_string_equal(d, "f.d:3:6: y is not defined\n"
			    "    \tx = y;\n"
			    "    \t    ^\n");
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_operators_longest_match),
		cmocka_unit_test(test_literals),
		cmocka_unit_test(test_positions),
		cmocka_unit_test(test_probedesc),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_caret),
	};
	return RUN(tests);
}
