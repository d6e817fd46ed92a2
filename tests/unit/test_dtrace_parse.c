// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the D parser: precedence and associativity (as
 * S-expressions of the tree), statements, clauses, probe descriptions,
 * declarations, pragmas, macros, and syntax errors with their position. */
#include "test.h"
#include "dtrace/ast.h"
#include "lib/util.h"

static void sx(struct sbuf *sb, struct dt_node *n)
{
	if (!n) {
		sbuf_puts(sb, "nil");
		return;
	}
	switch (n->kind) {
	case N_INT: sbuf_printf(sb, "%llu", (unsigned long long)n->ival); break;
	case N_STR: sbuf_printf(sb, "\"%s\"", n->sval); break;
	case N_VAR: sbuf_puts(sb, n->name); break;
	case N_SELF: sbuf_printf(sb, "self->%s", n->name); break;
	case N_THIS: sbuf_printf(sb, "this->%s", n->name); break;
	case N_UNARY:
		sbuf_printf(sb, "(u%s ", dt_tok_name(n->op));
		sx(sb, n->a);
		sbuf_putc(sb, ')');
		break;
	case N_BINARY: case N_LOGICAL: case N_ASSIGN:
		sbuf_printf(sb, "(%s ", dt_tok_name(n->op));
		sx(sb, n->a);
		sbuf_putc(sb, ' ');
		sx(sb, n->b);
		sbuf_putc(sb, ')');
		break;
	case N_TERNARY:
		sbuf_puts(sb, "(? ");
		sx(sb, n->a);
		sbuf_putc(sb, ' ');
		sx(sb, n->b);
		sbuf_putc(sb, ' ');
		sx(sb, n->c);
		sbuf_putc(sb, ')');
		break;
	case N_PREINC: case N_POSTINC:
		sbuf_printf(sb, "(%s%s ", n->kind == N_PREINC ? "pre" : "post",
			    dt_tok_name(n->op));
		sx(sb, n->a);
		sbuf_putc(sb, ')');
		break;
	case N_CAST: {
		char b[32];

		sbuf_printf(sb, "(cast %s ", dt_type_name(&n->cast, b,
							   sizeof(b)));
		sx(sb, n->a);
		sbuf_putc(sb, ')');
		break;
	}
	case N_SIZEOF:
		sbuf_puts(sb, "(sizeof ");
		if (n->a)
			sx(sb, n->a);
		else
			sbuf_printf(sb, "type%d", n->cast.size);
		sbuf_putc(sb, ')');
		break;
	case N_CALL: case N_INDEX: case N_AGG:
		sbuf_printf(sb, "(%s%s", n->kind == N_CALL ? "call " :
			    n->kind == N_INDEX ? "[] " : "", n->name);
		for (int i = 0; i < n->nargs; i++) {
			sbuf_putc(sb, ' ');
			sx(sb, n->args[i]);
		}
		sbuf_putc(sb, ')');
		break;
	case S_EXPR: sx(sb, n->a); break;
	case S_AGG:
		sbuf_puts(sb, "(agg ");
		sx(sb, n->a);
		sbuf_putc(sb, ' ');
		sx(sb, n->b);
		sbuf_putc(sb, ')');
		break;
	case S_IF:
		sbuf_puts(sb, "(if ");
		sx(sb, n->a);
		sbuf_putc(sb, ' ');
		sx(sb, n->b);
		sbuf_putc(sb, ' ');
		sx(sb, n->c);
		sbuf_putc(sb, ')');
		break;
	case S_BLOCK:
		sbuf_puts(sb, "{");
		for (struct dt_node *s = n->a; s; s = s->next) {
			sbuf_putc(sb, ' ');
			sx(sb, s);
		}
		sbuf_puts(sb, " }");
		break;
	default:
		sbuf_puts(sb, "?");
	}
}

struct pfix {
	struct dt_cc cc;
	struct dt_prog prog;
	struct dt_src src;
	struct dt_macros macros;
	char *argv[4];
};

/* Parse text; NULL on success, else the error (free it). */
static char *parse(struct pfix *f, const char *text)
{
	memset(f, 0, sizeof(*f));
	f->src.name = "t.d";
	f->src.text = text;
	f->src.len = strlen(text);
	f->argv[0] = "t.d";
	f->argv[1] = "42";
	f->argv[2] = "word";
	f->macros.argv = f->argv;
	f->macros.argc = 3;
	f->macros.target = 1234;
	dt_options_default(&f->prog.opt);
	f->prog.macros = &f->macros;
	if (setjmp(f->cc.jmp))
		return strdup(f->cc.msg);
	dt_parse(&f->cc, &f->prog, &f->src);
	return NULL;
}

static void pfree(struct pfix *f)
{
	free(f->prog.clauses);
	free(f->cc.msg);
	dt_arena_free(&f->cc.arena);
}

/* The body of "BEGIN { text }" as S-expressions, "; "-separated. */
static char *body(const char *stmts)
{
	struct pfix f;
	struct sbuf sb;
	char text[1024], *err;

	snprintf(text, sizeof(text), "BEGIN { %s }", stmts);
	err = parse(&f, text);
	if (err)
		fail_msg("%s: %s", stmts, err);
	sbuf_init(&sb);
	for (struct dt_node *s = f.prog.clauses[0]->body; s; s = s->next) {
		sx(&sb, s);
		if (s->next)
			sbuf_puts(&sb, "; ");
	}
	pfree(&f);
	return sbuf_steal(&sb);
}

#define BODY(src, want) do {						\
		char *got_ = body(src);					\
		assert_string_equal(got_, want);			\
		free(got_);						\
	} while (0)

static void test_precedence(void **state)
{
	(void)state;
	BODY("x = 1 + 2 * 3 - 4;", "(= x (- (+ 1 (* 2 3)) 4))");
	BODY("x = a || b ^^ c && d | e ^ f & g == h < i << j + k * l;",
	     "(= x (|| a (^^ b (&& c (| d (^ e (& f (== g (< h (<< i (+ j "
	     "(* k l))))))))))))");
	BODY("x = y = 3;", "(= x (= y 3))");
	BODY("x += y -= 2;", "(+= x (-= y 2))");
	BODY("x = a ? b : c ? d : e;", "(= x (? a b (? c d e)))");
	BODY("x = -a * !b - ~c;", "(= x (- (* (u- a) (u! b)) (u~ c)))");
	BODY("x = a - b - c;", "(= x (- (- a b) c))");
	BODY("x = (a + b) * c;", "(= x (* (+ a b) c))");
	BODY("x = a < b == c > d;", "(= x (== (< a b) (> c d)))");
}

static void test_unary_postfix_casts(void **state)
{
	(void)state;
	BODY("x++; --y; z = -x++;", "(post++ x); (pre-- y); (= z (u- (post++ x)))");
	BODY("x = (int)y + (unsigned long long)z;",
	     "(= x (+ (cast int y) (cast uint64_t z)))");
	BODY("x = (uint8_t)(char *)y;", "(= x (cast unsigned char (cast char * y)))");
	BODY("x = sizeof(int) + sizeof x + sizeof(y);",
	     "(= x (+ (+ (sizeof type4) (sizeof x)) (sizeof y)))");
	BODY("x = (y);", "(= x y)");
	BODY("self->a = this->b;", "(= self->a this->b)");
	/* after -> and . any word is a name, a keyword too (DTrace's
	 * SIDENT state: lexer/tst.keyword-member reads cgroup->self) */
	BODY("self->if = this->self;", "(= self->if this->self)");
	BODY("printf(\"%d %s\", a[1, \"k\"], f(g(1)));",
	     "(call printf \"%d %s\" ([] a 1 \"k\") (call f (call g 1)))");
	BODY("x = 'a' + \"b\" \"c\";", "(= x (+ 97 \"bc\"))");
}

static void test_statements(void **state)
{
	(void)state;
	BODY("@c[execname, pid] = count(); @t = sum(arg0)",
	     "(agg (@c execname pid) (call count)); (agg (@t) (call sum arg0))");
	BODY("if (a) x = 1; else if (b) { y = 2; z = 3; } w = 4;",
	     "(if a (= x 1) (if b { (= y 2) (= z 3) } nil)); (= w 4)");
	BODY(";; x = 1;;", "(= x 1)");
	BODY("x = $1 + $$2 == \"word\";", "(= x (== (+ 42 \"word\") \"word\"))");
	BODY("x = $target;", "(= x 1234)");
}

static void test_clauses(void **state)
{
	struct pfix f;
	struct dt_clause *c;
	char *err;
	(void)state;

	err = parse(&f, "#pragma D option quiet\n"
			"#pragma D option bufsize=8m\n"
			"int a, b;\nself string s;\n"
			"syscall::read:entry, syscall::write:return\n"
			"/x / 2 > 1/\n{ y = 1 / 2; }\n"
			"profile-997 /arg0/ { }\n"
			"BEGIN\n"
			"pid$target:libc:malloc:entry { }\n");
	if (err)
		fail_msg("%s", err);
	assert_true(f.prog.opt.quiet);
	assert_int_equal(f.prog.opt.bufsize, 8 << 20);
	assert_int_equal(f.prog.nclauses, 4);
	c = f.prog.clauses[0];
	assert_int_equal(c->npds, 2);
	assert_string_equal(c->pds[0].prov, "syscall");
	assert_string_equal(c->pds[0].mod, "");
	assert_string_equal(c->pds[0].func, "read");
	assert_string_equal(c->pds[1].name, "return");
	assert_int_equal(c->pds[1].loc.line, 5);
	assert_int_equal(c->pds[1].loc.col, 22);
	assert_non_null(c->pred);
	assert_int_equal(c->pred->op, T_GT);	/* (x / 2) > 1 */
	assert_int_equal(c->pred->a->op, T_SLASH);
	assert_true(c->has_body);
	c = f.prog.clauses[1];
	assert_string_equal(c->pds[0].prov, "");
	assert_string_equal(c->pds[0].name, "profile-997");
	assert_null(c->body);
	c = f.prog.clauses[2];
	assert_string_equal(c->pds[0].name, "BEGIN");
	assert_false(c->has_body);
	c = f.prog.clauses[3];
	assert_string_equal(c->pds[0].text, "pid1234:libc:malloc:entry");
	assert_string_equal(c->pds[0].prov, "pid1234");
	/* declarations */
	struct dt_var *v = f.prog.vars;

	assert_string_equal(v->name, "a");
	assert_int_equal(v->type.size, 4);
	assert_string_equal(v->next->name, "b");
	assert_int_equal(v->next->next->scope, DT_SELF);
	assert_int_equal(v->next->next->type.kind, DT_TSTR);
	pfree(&f);
}

static void check_error(const char *text, const char *want)
{
	struct pfix f;
	char *err = parse(&f, text);

	if (!err)
		fail_msg("'%s' parsed", text);
	if (!strstr(err, want))
		fail_msg("'%s': got \"%s\", want \"%s\"", text, err, want);
	free(err);
	pfree(&f);
}

static void test_errors(void **state)
{
	(void)state;
	/* dtrace(1)'s words (dtrace-utils' grammar and lexer) */
	check_error("BEGIN { x = ; }", "t.d:1:13: syntax error near \";\"");
	check_error("BEGIN { x = (1; }", "t.d:1:15: syntax error near \";\"");
	/* a name DTrace's lexer looked past (a new variable) is quoted
	 * to the end of its line, as in DTrace's own tests
	 * offsetof/err.D_SYNTAX.badmemb and typedef/err.D_SYNTAX.
	 * BadExistingTypedef; a known one alone */
	check_error("BEGIN { x = 1 y = 2; }", "syntax error near \"y = 2; }\"");
	check_error("BEGIN { x = 1 pid = 2; }", "syntax error near \"pid\"");
	check_error("BEGIN { y = 0; x = 1 y = 2; }", "syntax error near \"y\"");
	check_error("BEGIN { x = 1;", "syntax error near end of input");
	check_error("BEGIN { x = &; }", "syntax error near \";\"");
	check_error("BEGIN { x = a->; }", "syntax error near \";\"");
	check_error("BEGIN { while (1) x++; }", "syntax error near \"while\"");
	check_error("BEGIN { @a[] = count(); }", "syntax error near \"]\"");
	check_error("BEGIN { @a = 1; }", "aggregating function");
	check_error("BEGIN { x = $3; }", "macro argument $3 is not defined");
	check_error("a:b:c:d:e { }", "invalid probe description \"a:b:c:d:e\": "
		    "Overspecified probe description");
	check_error("#include <x.h>\n", "invalid control directive: "
		    "#include");
	check_error("#pragma D option nosuch\n", "failed to set option "
		    "'nosuch': Invalid option name");
	check_error("#pragma D attributes x\n", "malformed #pragma "
		    "attributes <attributes> <ident>");
	check_error("int x;\nchar x;\n", "t.d:2:6: identifier redeclared: "
		    "x");
	check_error("BEGIN { int x; }", "syntax error near \"int\"");
}

static void test_no_lookahead_past_clause(void **state)
{
	struct pfix f;
	char *err;
	(void)state;

	/* tick-1s must stay one probe description after a body */
	err = parse(&f, "BEGIN { x = 1; } tick-1s { exit(0); } ;"
			"END/x/{}");
	if (err)
		fail_msg("%s", err);
	assert_int_equal(f.prog.nclauses, 3);
	assert_string_equal(f.prog.clauses[1]->pds[0].name, "tick-1s");
	assert_string_equal(f.prog.clauses[2]->pds[0].name, "END");
	pfree(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_unary_postfix_casts),
		cmocka_unit_test(test_statements),
		cmocka_unit_test(test_clauses),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_no_lookahead_past_clause),
	};
	return RUN(tests);
}
