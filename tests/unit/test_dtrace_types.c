// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the D type checker: the type of each expression (C's
 * promotions and conversions, D's built-ins), variables typed by
 * declaration or first use, tuple key and record layouts, and type errors
 * at their position. */
#include "test.h"
#include "dtrace/ast.h"
#include "lib/util.h"

#include <unistd.h>

struct tfix {
	struct dt_cc cc;
	struct dt_prog prog;
	struct dt_src src;
};

static char *check(struct tfix *f, const char *text)
{
	memset(f, 0, sizeof(*f));
	f->src.name = "t.d";
	f->src.text = text;
	f->src.len = strlen(text);
	dt_options_default(&f->prog.opt);
	if (setjmp(f->cc.jmp))
		return strdup(f->cc.msg);
	dt_parse(&f->cc, &f->prog, &f->src);
	dt_check(&f->cc, &f->prog);
	return NULL;
}

static void tfree(struct tfix *f)
{
	free(f->prog.clauses);
	free(f->prog.rodata);
	free(f->cc.msg);
	dt_arena_free(&f->cc.arena);
}

/* The type name of the value assigned by "BEGIN { pre; v = EXPR; }". */
static char *type_of(const char *pre, const char *expr)
{
	struct tfix f;
	char text[512], b[32], *err;
	struct dt_node *s;

	snprintf(text, sizeof(text), "BEGIN { %s v = %s; }", pre, expr);
	err = check(&f, text);
	if (err)
		fail_msg("%s: %s", expr, err);
	for (s = f.prog.clauses[0]->body; s->next; s = s->next)
		;
	char *r = strdup(dt_type_name(&s->a->b->type, b, sizeof(b)));

	tfree(&f);
	return r;
}

#define TYPE(pre, expr, want) do {					\
		char *got_ = type_of(pre, expr);			\
		if (strcmp(got_, want))					\
			fail_msg("%s: %s, want %s", expr, got_, want);	\
		free(got_);						\
	} while (0)

static void test_expression_types(void **state)
{
	(void)state;
	TYPE("", "1", "int");
	TYPE("", "4294967295", "unsigned int");
	TYPE("", "4294967296", "int64_t");
	TYPE("", "1u", "unsigned int");
	TYPE("", "1l", "int64_t");
	/* a character constant is an int: dtrace-utils' lexer returns it
	 * as DT_TOK_INT and dt_node_int() types it */
	TYPE("", "'c'", "int");
	TYPE("", "(char)'c' + (char)'d'", "char");	/* no promotion:
							 * dtrace-utils'
							 * dt_type_promote */
	TYPE("", "(short)1 * (char)2", "short");
	TYPE("", "1 + 1u", "unsigned int");
	TYPE("", "1u + 1l", "int64_t");
	TYPE("", "1ul + -1l", "uint64_t");
	TYPE("", "(char)1 << 40", "char");
	TYPE("", "1 < 2u", "int");
	TYPE("", "!timestamp", "int");
	TYPE("", "~(unsigned char)1", "unsigned char");
	TYPE("", "NULL", "char *");
	TYPE("", "alloca(8)", "char *");
	TYPE("", "(int *)alloca(8) + 1", "int *");
	TYPE("", "strtok(\"a b\", \" \")", "string");
	TYPE("", "strtok(NULL, \" \") == NULL", "int");
	TYPE("", "NULL != \"x\"", "int");
	TYPE("", "timestamp", "uint64_t");
	TYPE("", "walltimestamp", "int64_t");
	TYPE("", "pid", "int");
	TYPE("", "uid", "unsigned int");
	TYPE("", "arg3", "int64_t");
	TYPE("", "execname", "string");
	TYPE("", "probefunc == \"read\"", "int");
	TYPE("", "1 ? \"a\" : \"bb\"", "string");
	TYPE("", "1 ? 1 : 2l", "int64_t");
	TYPE("", "(uint16_t)70000", "unsigned short");
	TYPE("", "(int *)0 + 1", "int *");
	TYPE("", "sizeof(long)", "uint64_t");
	TYPE("", "copyinstr(arg0)", "string");
	TYPE("x = 1;", "x += 2", "int");
	TYPE("", "self->n++", "int64_t");	/* implicit, as dtrace-utils: int64_t */
	TYPE("a[\"k\"] = 5l;", "a[\"k\"]", "int64_t");
}

static void test_variables_and_layout(void **state)
{
	struct tfix f;
	char *err;
	(void)state;

	err = check(&f, "#pragma D option strsize=100\n"
		    "int d; string s;\n"
		    "BEGIN { x = 1; s = \"hi\"; this->t = 2; this->u = "
		    "execname; self->k = 3; a[1, \"k\"] = \"v\"; "
		    "@c[execname, pid, probefunc] = count(); @m = max(1); "
		    "printf(\"%d %s %s\\n\", x, s, probename); exit(0); }\n"
		    "END { @c[\"x\", 1, probefunc] = count(); trace(1); }\n");
	if (err)
		fail_msg("%s", err);
	struct dt_var *v;
	int seen = 0;

	for (v = f.prog.vars; v; v = v->next) {
		if (!strcmp(v->name, "d")) {
			assert_int_equal(v->scope, DT_GLOBAL);
			assert_int_equal(v->off, 16);	/* after exit()'s */
			seen++;
		} else if (!strcmp(v->name, "s")) {
			assert_int_equal(v->type.ssize, 101);	/* strsize + NUL */
			assert_int_equal(v->off, 24);
			seen++;
		} else if (!strcmp(v->name, "x")) {
			assert_int_equal(v->off, 24 + 104);
			seen++;
		} else if (!strcmp(v->name, "u")) {
			assert_int_equal(v->scope, DT_THIS);
			assert_int_equal(v->off, 8);	/* after this->t */
			seen++;
		} else if (!strcmp(v->name, "a")) {
			assert_int_equal(v->scope, DT_ARRAY);
			assert_int_equal(v->nkeys, 2);
			assert_int_equal(v->keys[1].kind, KEY_STR);
			assert_int_equal(v->keys[1].off, 8);
			assert_int_equal(v->key_size, 16);
			assert_int_equal(v->val_size, 104);
			seen++;
		} else if (!strcmp(v->name, "@c")) {
			assert_int_equal(v->fn, AGG_COUNT);
			assert_int_equal(v->id, 1);
			assert_int_equal(v->keys[0].kind, KEY_STR);
			/* execname (16) widened for the literal "x" */
			assert_int_equal(v->keys[0].ssize, 16);
			assert_int_equal(v->keys[1].kind, KEY_INT);
			assert_int_equal(v->keys[1].size, 4);
			assert_int_equal(v->keys[2].kind, KEY_PROBESTR);
			assert_int_equal(v->key_size, 16 + 8 + 8);
			assert_int_equal(v->val_size, 8);
			seen++;
		} else if (!strcmp(v->name, "@m")) {
			assert_int_equal(v->id, 2);
			assert_int_equal(v->key_size, 8);	/* no key */
			assert_int_equal(v->val_size, 16);	/* value, set */
			seen++;
		}
	}
	assert_int_equal(seen, 7);
	/* BEGIN's record: header, x (8), s (104), probename (0), exit (8) */
	struct dt_clause *c = f.prog.clauses[0];

	assert_true(c->emits);
	assert_int_equal(c->nacts, 2);
	assert_int_equal(c->acts[0].kind, ACT_PRINTF);
	assert_int_equal(c->acts[0].vals[0].off, 16);
	assert_int_equal(c->acts[0].vals[1].off, 24);
	assert_int_equal(c->acts[0].vals[2].kind, KEY_PROBESTR);
	assert_int_equal(c->acts[1].kind, ACT_EXIT);
	assert_int_equal(c->acts[1].vals[0].off, 24 + 104);
	assert_int_equal(c->rec_size, 24 + 104 + 8);
	/* the literals, zero-padded, in the read-only data */
	assert_string_equal(f.prog.rodata + f.prog.empty_off, "");
	tfree(&f);
}

static void check_error(const char *text, const char *want)
{
	struct tfix f;
	char *err = check(&f, text);

	if (!err)
		fail_msg("'%s' checked", text);
	if (!strstr(err, want))
		fail_msg("'%s': got \"%s\", want \"%s\"", text, err, want);
	free(err);
	tfree(&f);
}

static void test_errors(void **state)
{
	(void)state;
	check_error("BEGIN { trace(y); }", "t.d:1:15: failed to resolve y: Unknown variable name");
	check_error("BEGIN { x = *arg0; }", "cannot dereference non-pointer "
		    "type");
	check_error("BEGIN { x = 1; x = \"s\"; }", "t.d:1:18: operands have "
		    "incompatible types: \"int\" = \"string\"");
	check_error("BEGIN { x = \"a\" - \"b\"; }", "operands have "
		    "incompatible types: \"string\" - \"string\"");
	/* s[i]: a char of the string (codegen/tst.deref_string-*) */
	TYPE("s = \"abc\";", "s[1]", "char");
	TYPE("self->s = \"abc\";", "self->s[1]", "char");
	/* associative array signatures (dt_idcook_sign's words) */
	check_error("BEGIN { x[1, 2] = 1; x[1] = 2; }", "x[ ] prototype "
		    "mismatch: 1 key passed, 2 expected");
	check_error("BEGIN { x[1, \"a\"] = 1; x[1, 2] = 2; }", "x[ ] key #2 "
		    "is incompatible with prototype:\n\tprototype: string\n\t"
		    "      key: int");
	check_error("struct r { int a; } r; struct p { int a; } p;\n"
		    "BEGIN { x[r] = 1; x[p] = 2; }", "x[ ] key #1 is "
		    "incompatible with prototype:\n\tprototype: struct r\n\t"
		    "      key: struct p");
	/* DTrace's words for operators (the types/err.D_OP_* tests) */
	check_error("BEGIN { x = \"c\" << 2; }", "operator << requires "
		    "operands of integral type");
	check_error("BEGIN { x = \"c\" * 2; }", "operator * requires "
		    "operands of arithmetic type");
	check_error("BEGIN { a = 3; a += \"s\"; }", "operands have "
		    "incompatible types: \"int\" += \"string\"");
	check_error("BEGIN { a = \"b\"; c = a++; }", "operator ++ requires "
		    "operand of scalar type");
	check_error("BEGIN { c = \"b\" ? 1 : 2; }", "operator ?: expression "
		    "must be of scalar type");
	check_error("BEGIN { c = 1 ? trace(0) : trace(1); }", "action cannot "
		    "be used in a conditional context");
	check_error("BEGIN { p = 123 + -trace(0); }", "operator - requires an "
		    "operand of arithmetic type");
	check_error("BEGIN { c = 1 ? printf(\"x\") : trace(); }", "trace( ) "
		    "prototype mismatch: 0 args passed, 1 expected");
	check_error("BEGIN { x = 1 + trace(1); }", "operands have "
		    "incompatible types: \"int\" + \"void\"");
	check_error("BEGIN { x = \"a\" == 1; }", "cannot compare string with");
	check_error("BEGIN { pid = 1; }", "operator = can only be applied "
		    "to a writable variable");	/* DTrace's D_OP_WRITE */
	/* found by fuzzing: op= and ++ on a built-in */
	check_error("BEGIN { pid *= 2; }", "operator *= can only be applied "
		    "to a writable variable");
	check_error("BEGIN { timestamp++; }", "operator ++ can only be applied "
		    "to a writable variable");
	check_error("BEGIN { printf(\"%d\\n\"); }", "conversion #1 (%d) is "
		    "missing a corresponding value argument");
	check_error("BEGIN { printf(\"%s\\n\", 1); }", "argument #2 is "
		    "incompatible with conversion #1 prototype:\n\tconversion: "
		    "%s\n\t prototype: char [] or string (or use stringof)\n"
		    "\t  argument: int");
	check_error("BEGIN { printf(\"%d\\n\", 1, 2); }", "only 1 arguments "
		    "required by this format string");
	check_error("BEGIN { printf(\"%C\\n\", 1); }", "not supported: %C");
	check_error("BEGIN { printf(\"%f\\n\", 1); }", "prototype: float, "
		    "double, or long double");
	check_error("BEGIN { x = 1; printf(x); }", "printf( ) argument #1 is incompatible with prototype:\n\tprototype: string\n\t argument: int");
	check_error("BEGIN { @a = count(); @a = sum(1); }", "aggregation redefined: @a\n\t current: @a = sum( )\n\tprevious: @a = count( ) : line 1");
	check_error("BEGIN { @a[1] = count(); @a[\"s\"] = count(); }",
		    "key 1 of @a is a string here but an integer before");
	check_error("BEGIN { @a[1] = count(); @a[1, 2] = count(); }",
		    "@a is used with 2 keys here but 1 before");
	check_error("BEGIN { x = count(); }", "aggregating function");
	check_error("BEGIN { x = printf(\"\"); }", "tracing function printf( ) may not be called from a D expression");
	check_error("BEGIN { printa(@nope); }", "undefined aggregation: @nope");
	check_error("BEGIN { @a = count(); printa(\"%d %d\", @a); }",
		    "conversion #1 (%d) is missing a corresponding value argument");
	check_error("BEGIN { @a[1] = count(); printa(\"%s %@d\", @a); }",
		    "argument #2 is incompatible with conversion #1 prototype:\n\t"
		    "conversion: %s\n\t prototype: char [] or string (or use "
		    "stringof)\n\t  argument: int");
	check_error("BEGIN { @a = count(); printa(\"%@s\", @a); }",
		    "aggregating action is incompatible with conversion #1");
	check_error("BEGIN { @k[copyinstr(0), copyinstr(1), 1] = count(); }",
		    "the key of "
		    "@k takes 520 bytes; BPF hash maps take at most 512");
	check_error("BEGIN { x = args[0]; }", "args[0] needs probes that "
		    "define it");
	check_error("BEGIN { x = 1; y = x->pr_pid; }", "operator -> must be "
		    "applied to a pointer");
	check_error("BEGIN { y = curpsinfo.pr_pid; }", "operator . cannot be "
		    "applied to type \"psinfo_t *\"; must be applied to a "
		    "struct or union");
	check_error("BEGIN { y = curpsinfo->pr_nope; }", "psinfo_t has no "
		    "member pr_nope");
	check_error("BEGIN { y = args[timestamp]; }", "args[ ] argument #1 is "
		    "incompatible with prototype");
	check_error("BEGIN { x = stack(); }", "not supported: a stack in a "
		    "variable");
	check_error("BEGIN { a[ustack()] = 1; }", "not supported: a stack "
		    "as the key of an associative array");
	check_error("BEGIN { printf(\"%d\", stack()); }", "conversion: %d\n\t "
		    "prototype: char, short, int, long, or long long\n\t  "
		    "argument: stack");
	check_error("BEGIN { x = usym(0); }", "not supported: a symbol in "
		    "a variable");
	check_error("BEGIN { a[mod(0)] = 1; }", "not supported: a symbol as "
		    "the key of an associative array");
	check_error("BEGIN { trace(sym(\"a\")); }", "sym( ) argument #1 is incompatible with prototype:\n\tprototype: uintptr_t");
	check_error("BEGIN { @[sym(0)] = count(); @[usym(0)] = count(); }",
		    "key 1 of @_ is not the same kind of symbol");
	check_error("BEGIN { printf(\"%a\", \"x\"); }", "conversion: %a\n\t "
		    "prototype: pointer or integer\n\t  argument: string");
	check_error("BEGIN { stack(200); }", "stack() takes a number of "
		    "frames from 1 to 127");
	/* DTrace's words (suite: stack/err.D_STACK_SIZE.zero.r) */
	check_error("BEGIN { @[stack(0)] = count(); }", "stack( ) argument #1 "
		    "must be a non-zero positive integer constant");
	check_error("BEGIN { @[stack()] = count(); @[1] = count(); }",
		    "key 1 of ");
	check_error("BEGIN { @[stack()] = count(); @[ustack()] = count(); }",
		    "key 1 of @_ is a user stack here but a kernel stack");
	check_error("BEGIN { frob(); }", "undefined function name: frob");
	check_error("BEGIN { exit(); }", "exit( ) prototype mismatch: 0 args passed, 1 expected");
	check_error("BEGIN { a[1] = 2; x = a; }", "associative array 'a' may "
		    "not be referenced as scalar");
	check_error("BEGIN { x = 2; x[1] = 3; }", "scalar 'x' may not be "
		    "referenced as associative array");
	check_error("BEGIN { trace(self->never); }", "self->never is used "
		    "before it is assigned");
	check_error("BEGIN { x = (string)1; }", "converting int to a string");
	/* alloca(), bcopy(), copyinto(), strtok(), NULL */
	/* DTrace's words (suite: funcs/err.D_ALLOCA_SIZE.big_alloca.r) */
	check_error("BEGIN { p = alloca(257); }", "alloca(257) size larger "
		    "than scratchsize 256");
	check_error("BEGIN { p = alloca(\"a\"); }", "alloca( ) argument #1 is incompatible with prototype:\n\tprototype: size_t");
	/* a destination not from alloca(): DTrace's D_PROTO_ARG words */
#define NOT_ALLOCA(f, i) f "( ) argument #" #i " is incompatible with " \
	"prototype:\n\tprototype: alloca pointer\n\t argument: non-alloca " \
	"pointer"
	check_error("BEGIN { bcopy(\"ab\", arg0, 2); }", NOT_ALLOCA("bcopy", 2));
	check_error("BEGIN { bcopy(\"ab\", copyin(arg0, 4), 2); }",
		    NOT_ALLOCA("bcopy", 2));
	check_error("BEGIN { p = (char *)arg0; bcopy(\"ab\", p + 1, 2); }",
		    NOT_ALLOCA("bcopy", 2));
	check_error("BEGIN { p = alloca(8); q = (uint64_t)p; "
		    "bcopy(\"a\", q, 1); }", NOT_ALLOCA("bcopy", 2));
	/* (a size past scratchsize - 8 faults when it runs, as in DTrace:
	 * test_dtrace.py test_bcopy_outside_alloca_memory_faults) */
	check_error("BEGIN { p = alloca(8); bcopy(p, \"a\", 1); }",
		    NOT_ALLOCA("bcopy", 2));
	check_error("BEGIN { p = alloca(8); copyinto(\"a\", 1, p); }",
		    "copyinto( ) argument #1 is incompatible with prototype:\n\tprototype: uintptr_t");
	check_error("BEGIN { copyinto(arg0, 1, arg1); }",
		    NOT_ALLOCA("copyinto", 3));
	check_error("BEGIN { x = bcopy(\"a\", alloca(1), 1); }",
		    "the right side of '=' has no value");
	check_error("BEGIN { x = strtok(1, \",\"); }", "strtok( ) argument #1 is incompatible with prototype:\n\tprototype: char *");
	check_error("BEGIN { x = strtok(\"a\", 1); }", "strtok( ) argument #2 is incompatible with prototype:\n\tprototype: char *");
	check_error("BEGIN { NULL = 1; }", "operator = requires modifiable "
		    "lvalue as an operand");	/* D_OP_LVAL */
	/* stores through pointers: alloca()'s memory only, integers only */
	check_error("BEGIN { p = (int *)arg0; *p = 1; }", "assignment through "
		    "a pointer: only to alloca()'s memory, not a pointer to "
		    "other memory: int *");
	check_error("BEGIN { *(int *)copyin(arg0, 4) = 1; }", "only to "
		    "alloca()'s memory, not a pointer to other memory");
	check_error("BEGIN { p = (char *)alloca(8); *p = \"ab\"; }", "cannot "
		    "assign a string through a pointer (copy it with bcopy())");
	check_error("BEGIN { p = (int *)arg0; (*p)++; }", "++ through a "
		    "pointer: only to alloca()'s memory");
	check_error("BEGIN { -x = 1; }", "operator = requires modifiable "
		    "lvalue as an operand");
	/* %k */
	check_error("BEGIN { printf(\"%k\", 1); }", "conversion: %k\n\t "
		    "prototype: stack\n\t  argument: int");
	check_error("BEGIN { @[1] = count(); printa(\"%k %@d\", @); }",
		    "conversion: %k\n\t prototype: stack\n\t  argument: int");
	check_error("BEGIN { @[\"a\"] = count(); printa(\"%k %@d\", @); }",
		    "conversion: %k\n\t prototype: stack\n\t  argument: string");
	check_error("BEGIN { @[stack()] = count(); printa(\"%d %@d\", @); }",
		    "conversion: %d\n\t prototype: char, short, int, long, or long "
		    "long\n\t  argument: stack");
	check_error("BEGIN { x = \"a\" < NULL; }", "operator < cannot "
		    "compare string with char *");
}

/* The constant "DECLS BEGIN { v = EXPR; }" assigns (sizeof, offsetof,
 * an enumerator). */
static uint64_t const_of(const char *decls, const char *expr)
{
	struct tfix f;
	char text[1024], *err;
	struct dt_node *s;
	uint64_t v;

	snprintf(text, sizeof(text), "%s\nBEGIN { v = %s; }", decls, expr);
	err = check(&f, text);
	if (err)
		fail_msg("%s: %s", expr, err);
	for (s = f.prog.clauses[0]->body; s->next; s = s->next)
		;
	v = s->a->b->ival;
	if (s->a->b->kind == N_UNARY && s->a->b->op == T_MINUS)
		v = -s->a->b->a->ival;
	tfree(&f);
	return v;
}

/* Sizes and offsets as the C ABI (x86_64) lays out structs, which is how
 * DTrace computes them; the figures are dtrace-utils' test expectations
 * (test/unittest/sizeof, offsetof, enum). */
/* The type of global v after checking text. */
static char *var_type(const char *text)
{
	struct tfix f;
	char b[80], *err = check(&f, text), *r = NULL;

	if (err)
		fail_msg("%s: %s", text, err);
	for (struct dt_var *v = f.prog.vars; v; v = v->next)
		if (!strcmp(v->name, "v") && v->scope == DT_GLOBAL)
			r = strdup(dt_type_name(&v->type, b, sizeof(b)));
	tfree(&f);
	if (!r)
		fail_msg("%s: no v", text);
	return r;
}

#define VTYPE(text, want) do {						\
		char *got_ = var_type(text);				\
		if (strcmp(got_, want))					\
			fail_msg("%s: %s, want %s", text, got_, want);	\
		free(got_);						\
	} while (0)

static void test_pointer_types(void **state)
{
	static const char *const errs[][2] = {
		/* dtrace-utils' words (the pointers/err.* tests) */
		{ "int a[3]; BEGIN { v = &a; }",
		  "cannot take address of dynamic variable" },
		{ "BEGIN { @a = count(); trace(&@a); }",
		  "cannot take address of dynamic variable" },
		{ "BEGIN { v = &1; }", "unacceptable operand for unary & "
		  "operator" },
		{ "int x; BEGIN { v = *x; }", "cannot dereference non-pointer "
		  "type" },
		{ "void *p; BEGIN { v = *p; }", "cannot dereference pointer to "
		  "void" },
		{ "void *p; BEGIN { v = p + 1; }", "operands have incompatible "
		  "types: \"void *\" + \"int\"" },
		{ "int a[3], b[3]; BEGIN { a = b; }", "operator = may not be "
		  "applied to operand of type \"int [3]\"" },
		{ "struct s { int i; } f; BEGIN { v = f->i; }",
		  "operator -> must be applied to a pointer" },
		{ "int *p; BEGIN { v = p->a; }", "operator -> cannot be applied "
		  "to pointer to type \"int\"; must be applied to a struct or "
		  "union pointer" },
		{ "struct s { int i; } *p; BEGIN { v = p.i; }", "operator . "
		  "cannot be applied to type \"struct s *\"; must be applied "
		  "to a struct or union" },
		{ "struct s { int i; } *p; BEGIN { v = p->j; }", "j is not a "
		  "member of struct s" },
		{ "struct f *p; BEGIN { v = p->j; }", "operator -> cannot be "
		  "applied to a forward declaration: no struct f definition "
		  "is available" },
	};

	(void)state;
	VTYPE("int a[4]; BEGIN { v = &a[1]; }", "int *");
	VTYPE("int a[4]; BEGIN { v = a; }", "int *");
	VTYPE("struct s { char c; long l; } g; BEGIN { v = &g.l; }", "int64_t *");
	VTYPE("struct s { char c; long l; } *p; BEGIN { v = &p->l; }",
	      "int64_t *");
	VTYPE("struct s { char c; short h[3]; } *p; BEGIN { v = p->h; }",
	      "short *");
	VTYPE("struct s { char c; short h[3]; } *p; BEGIN { v = p->h[1]; }",
	      "short");
	VTYPE("struct s { char c; struct t { int i; } in; } *p;"
	      "BEGIN { v = (*p).in.i; }", "int");
	VTYPE("struct s { int i; } *p; BEGIN { v = &p[2]; }", "struct s *");
	VTYPE("BEGIN { v = sizeof(double); }", "uint64_t");
	assert_int_equal(const_of("", "sizeof(long double)"), 16);
	assert_int_equal(const_of("", "sizeof(float)"), 4);
	for (size_t i = 0; i < ARRAY_SIZE(errs); i++)
		check_error(errs[i][0], errs[i][1]);
}

static void test_bitfields(void **state)
{
	static const char rec[] =
		"struct b6 { int a : 20; int b : 3; int c : 12; } v6;\n"
		"struct b7 { long c : 32; long long d : 9; int e : 1; } v7;\n"
		"struct b8 { char a : 2; short b : 12; long c : 32; } v8;\n"
		"struct m { int a; char : 0; int b : 4; long l; } vm;\n";

	(void)state;
	/* laid out as libctf lays out DTrace's: each bit-field in bytes of
	 * its own, no tail padding (the bitfields/tst.SizeofBitField.d
	 * figures) */
	assert_int_equal(const_of(rec, "sizeof(v6)"), 6);
	assert_int_equal(const_of(rec, "sizeof(v7)"), 7);
	assert_int_equal(const_of(rec, "sizeof(v8)"), 8);
	assert_int_equal(const_of(rec, "offsetof(struct m, l)"), 8);
	VTYPE("struct s { int a : 3; } g; BEGIN { v = g.a; }", "int");
	check_error("struct s { int a : 1; int b : -3; };", "positive integral "
		    "constant expression expected as bit-field size");
	check_error("struct s { int a : 0; };", "positive integral constant "
		    "expression expected as bit-field size");
	check_error("struct s { int a : 33; };", "bit-field too big for type: "
		    "a");
	check_error("struct s { string s : 3; };", "invalid type for "
		    "bit-field: s");
	check_error("struct s { int a : 3; } g; BEGIN { v = sizeof(g.a); }",
		    "cannot apply sizeof to a bit-field");
	check_error("struct s { int a : 3; } g; BEGIN { v = &g.a; }",
		    "cannot take address of bit-field");
	check_error("struct s { int a : 3; }; BEGIN { v = offsetof(struct s, "
		    "a); }", "cannot take offset of a bit-field: a");
}

static void test_translators(void **state)
{
	static const char decl[] =
		"struct in { int i; char c; };\n"
		"struct out { long l; char c; };\n";
	char text[1024];

	(void)state;
	snprintf(text, sizeof(text), "%stranslator struct out < struct in *p >"
		 " { l = p->i; c = p->c; };\nstruct in *q;\n"
		 "BEGIN { v = xlate <struct out *>(q)->l; }", decl);
	VTYPE(text, "int64_t");
	snprintf(text, sizeof(text), "%stranslator struct out < struct in s >"
		 " { l = ((struct in)s).i; };\nstruct in g;\n"
		 "BEGIN { v = xlate <struct out>(g).l; }", decl);
	VTYPE(text, "int64_t");
	/* dtrace-utils' words (translators/err.*) */
	check_error("translator int < int i > { };", "translator output type "
		    "must be a struct or union");
	check_error("struct o;\ntranslator struct o < int i > { };",
		    "incomplete struct/union/enum struct o");
	snprintf(text, sizeof(text), "%stranslator struct out < int i > "
		 "{ x = i; };", decl);
	check_error(text, "translator member x is not a member of struct out");
	snprintf(text, sizeof(text), "%stranslator struct out < int i > "
		 "{ l = i; };\ntranslator struct out < int j > { c = j; };",
		 decl);
	check_error(text, "translator from int to struct out has already been "
		    "declared");
	snprintf(text, sizeof(text), "%stranslator struct out < int i > "
		 "{ l = \"s\"; };", decl);
	check_error(text, "translator member l definition uses incompatible "
		    "types: \"int64_t\" = \"string\"");
	snprintf(text, sizeof(text), "%stranslator struct out < int i > "
		 "{ l = i; };\nstruct in g;\nBEGIN { v = xlate <struct out>(g)."
		 "l; }", decl);
	check_error(text, "cannot translate from \"struct in\" to \"struct "
		    "out\"");
	/* self->a[k]: thread-local associative arrays; this->a[k] is not D */
	VTYPE("BEGIN { self->a[\"k\", 1] = 5; v = self->a[\"k\", 1]; }",
	      "int");
	check_error("BEGIN { this->a[1] = 1; }", "local variables may not be "
		    "used as associative arrays: a");
}

static void test_declarations(void **state)
{
	static const char *const errs[][2] = {
		/* dtrace-utils' words (decls/err.*, arrays/err.*) */
		{ "int foo(static int);", "inappropriate storage class for "
		  "function or associative array parameter" },
		{ "int a(void v);", "void parameter may not have a name: v" },
		{ "int a(int a[int]);", "function prototype may not use "
		  "parameter of type dynamic variable: a, parameter #1" },
		{ "int a[...];", "array prototype may not use a variable-length "
		  "argument list" },
		{ "int foo(int, void);", "void must be sole parameter" },
		{ "this int a[int];", "associative arrays may not be declared "
		  "as local variables: a" },
		{ "int x[void, char];", "array prototype may not use parameter "
		  "of type void: (anonymous), parameter #1" },
		{ "int a[-7];", "positive integral constant expression or tuple "
		  "signature expected as array declaration subscript" },
		{ "BEGIN { a[1] = 1; x = a; }", "associative array 'a' may not "
		  "be referenced as scalar" },
		{ "BEGIN { a = 1; a[1] = 1; }", "scalar 'a' may not be "
		  "referenced as associative array" },
		{ "int x;\nchar x;", "identifier redeclared: x\n\t current: "
		  "scalar char\n\tprevious: scalar int" },
		{ "self this int x;", "only one storage class allowed in a "
		  "declaration" },
	};

	(void)state;
	/* prototypes and declarators are accepted (decls/tst.funcs.d...) */
	VTYPE("extern int *(*fp)(void); extern int f(int, ...);\n"
	      "extern int e0, *e1, **e2; int g(void);\n"
	      "BEGIN { v = 1; }", "int");
	/* a declared associative array keeps its value type */
	VTYPE("long a[int];\nBEGIN { a[1] = 2; v = a[1]; }", "int64_t");
	VTYPE("int v; int v;\nBEGIN { v = 1; }", "int");
	VTYPE("self x; extern y;\nBEGIN { self->x = 1; v = self->x; }",
	      "int");
	for (size_t i = 0; i < ARRAY_SIZE(errs); i++)
		check_error(errs[i][0], errs[i][1]);
}

static void test_kernel_types(void **state)
{
	(void)state;
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		skip();
		return;
	}
	/* curthread and kernel struct tags from BTF; char arrays in memory
	 * are strings */
	VTYPE("BEGIN { v = curthread; }", "struct task_struct *");
	VTYPE("BEGIN { v = curthread->real_parent; }", "struct task_struct *");
	VTYPE("BEGIN { v = curthread->pid; }", "int");
	VTYPE("BEGIN { v = curthread->comm; }", "string");
	VTYPE("struct file *f; BEGIN { v = f->f_flags; }", "unsigned int");
	check_error("BEGIN { v = curthread->nosuch; }", "nosuch is not a member "
		    "of struct task_struct");
}

static void test_declared_types(void **state)
{
	static const char rec[] =
		"typedef struct record { char c; int x; int y; } record_t;\n"
		"struct outer { struct record r; long l;\n"
		"  union { char ch; int in; long lg; } u; } o;\n"
		"union un { char ch; int in; } un;\n"
		"struct anon { struct { int a; int b; }; long c; };\n"
		"int a[5]; long m[2][3];\n"
		"enum colors { RED, ORANGE = 5 + 5, YELLOW = 2, GREEN,\n"
		"  BLUE = GREEN + ORANGE, PINK = 5/4, INDIGO = -2, VIOLET };\n"
		"typedef record_t rec2_t;\n";

	(void)state;
	assert_int_equal(const_of(rec, "sizeof(record_t)"), 12);
	assert_int_equal(const_of(rec, "sizeof(rec2_t)"), 12);
	assert_int_equal(const_of(rec, "offsetof(record_t, c)"), 0);
	assert_int_equal(const_of(rec, "offsetof(record_t, x)"), 4);
	assert_int_equal(const_of(rec, "offsetof(struct record, y)"), 8);
	assert_int_equal(const_of(rec, "sizeof(struct outer)"), 32);
	assert_int_equal(const_of(rec, "offsetof(struct outer, l)"), 16);
	assert_int_equal(const_of(rec, "offsetof(struct outer, u)"), 24);
	assert_int_equal(const_of(rec, "sizeof(o)"), 32);
	assert_int_equal(const_of(rec, "sizeof(un)"), 4);
	assert_int_equal(const_of(rec, "offsetof(struct anon, b)"), 4);
	assert_int_equal(const_of(rec, "offsetof(struct anon, c)"), 8);
	assert_int_equal(const_of(rec, "sizeof(a)"), 20);
	assert_int_equal(const_of(rec, "sizeof(a[0])"), 4);
	assert_int_equal(const_of(rec, "sizeof(m)"), 48);
	assert_int_equal(const_of(rec, "RED"), 0);
	assert_int_equal(const_of(rec, "ORANGE"), 10);
	assert_int_equal(const_of(rec, "GREEN"), 3);
	assert_int_equal(const_of(rec, "BLUE"), 13);
	assert_int_equal(const_of(rec, "PINK"), 1);
	assert_int_equal((int64_t)const_of(rec, "VIOLET"), -1);

	/* DTrace's tags and words (dtrace-utils' err.* tests) */
	struct tfix f;
	char *err = check(&f, "struct s { struct p q; int r; };");

	assert_non_null(err);
	assert_int_equal(f.cc.tag, D_DECL_INCOMPLETE);
	free(err);
	tfree(&f);
	check_error("struct s { struct p q; int r; };", "incomplete "
		    "struct/union/enum struct p: q");
	/* a union being defined is named "union", one only declared ahead
	 * "struct" (a CTF forward), as dtrace-utils names them */
	check_error("union r { union r rec; int p; };", "incomplete "
		    "struct/union/enum union r: rec");
	check_error("union f;\nstruct s { union f x; };", "incomplete "
		    "struct/union/enum struct f: x");
	check_error("struct foo { int x; char x; };", "failed to define "
		    "member 'x': Duplicate member or variable name");
	check_error("struct a { int x; }\nstruct b { int y; };",
		    "t.d:2:1: invalid type combination");
	check_error("typedef int t;\ntypedef char t;", "typedef "
		    "redeclared: t");
	check_error("enum c { RED }; enum s { RED };", "identifier "
		    "redeclared: RED");
	check_error("enum e { toobig = 2147483648 };", "enumerator 'toobig' "
		    "value overflows INT_MAX (2147483647)");
	check_error("enum e { T = \"s\" };", "enumerator 'T' must be "
		    "assigned to an integral constant expression");
	check_error("BEGIN { trace(offsetof(int, x)); }", "offsetof operand "
		    "must be a struct or union type");
	check_error("struct r { int a; };\nBEGIN { trace(offsetof(struct r, "
		    "b)); }", "failed to determine offset of b: Member name "
		    "not found");
	check_error("int a[5];\nBEGIN { trace(a[5]); }", "index outside "
		    "array bounds: 5, max is 5");
	check_error("int a[];", "array declaration requires array dimension "
		    "or tuple signature: a");
	check_error("int a[5];\nBEGIN { a[1, 2] = 1; }", "cannot access "
		    "scalar a as an associative array");
	check_error("BEGIN { typedef int t; }", "syntax error near "
		    "\"typedef\"");
	check_error("struct r { int a; } g; struct q { int a; } h;\n"
		    "BEGIN { g = h; }", "operands have incompatible types: "
		    "\"struct r\" = \"struct q\"");
	check_error("BEGIN { i = (char int)0; }", "invalid type combination");
	check_error("BEGIN { i = (char long)0; }", "invalid type "
		    "declaration: short and long may not be used with char "
		    "type");
	assert_int_equal(const_of("", "sizeof(short int)"), 2);
	/* constants as DTrace sizes them (test/unittest/sizeof) */
	assert_int_equal(const_of("", "sizeof('c')"), 4);
	assert_int_equal(const_of("", "sizeof(\"hi\")"), 3);
	assert_int_equal(const_of("", "sizeof(NULL)"), 4);
	assert_int_equal(const_of("", "sizeof(1234567890123)"), 8);
	check_error("register x;", "specified storage class not appropriate "
		    "in D");
	check_error("int `xyz;", "D scoping operator may not be used in a "
		    "declaration name (`xyz)");
	check_error("extern int;", "useless declaration");
	assert_int_equal(const_of("extern int a1[]; extern int a2[9][9];",
				  "1"), 1);
	check_error("BEGIN { trace(sizeof(void)); }", "cannot apply sizeof to "
		    "an operand of unknown size");
	check_error("struct r { int a; } g;\nBEGIN { trace(g + 1); }",
		    "not supported: a struct or union as a whole value");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expression_types),
		cmocka_unit_test(test_variables_and_layout),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_declared_types),
		cmocka_unit_test(test_pointer_types),
		cmocka_unit_test(test_bitfields),
		cmocka_unit_test(test_translators),
		cmocka_unit_test(test_declarations),
		cmocka_unit_test(test_kernel_types),
	};
	return RUN(tests);
}
