// SPDX-License-Identifier: GPL-2.0-only
/* types — the D type checker: resolves every name (built-in variables,
 * globals typed by declaration or first assignment, self-> and this->
 * variables, associative arrays, aggregations, macro-free identifiers),
 * gives every expression a type with C's integer promotions and usual
 * arithmetic conversions, checks each function and action through its own
 * hook (funcs.c), and lays out what the code generator and the consumer
 * share: clause records, tuple keys, map values, globals and literals. */
#include "agg.h"
#include "btf.h"
#include "dlib.h"
#include "ast.h"
#include "fmt.h"
#include "providers/provider.h"
#include "../lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct dt_type dt_void = { DT_TVOID, 0, false, 0, 0, false };
const struct dt_type dt_int = { DT_TINT, 4, true, 0, 0, false };
const struct dt_type dt_uint = { DT_TINT, 4, false, 0, 0, false };
const struct dt_type dt_long = { DT_TINT, 8, true, 0, 0, false };
const struct dt_type dt_ulong = { DT_TINT, 8, false, 0, 0, false };


bool dt_type_is_int(const struct dt_type *t)
{
	return t->kind == DT_TINT || t->kind == DT_TPTR;
}

const char *dt_type_name(const struct dt_type *t, char *buf, size_t len)
{
	char in[96];

	switch (t->kind) {
	case DT_TVOID:
		snprintf(buf, len, "void");
		break;
	case DT_TSTR:
		snprintf(buf, len, "string");
		break;
	case DT_TSTACK:
		snprintf(buf, len, "stack");
		break;
	case DT_TSYM:
		snprintf(buf, len, "symbol");
		break;
	case DT_TFLOAT:
		snprintf(buf, len, "%s", t->size == 4 ? "float" : t->size == 8 ?
			 "double" : "long double");
		break;
	case DT_TSOU:
		snprintf(buf, len, "%s %s", t->ct->is_union ? "union" :
			 "struct", t->ct->tag ? t->ct->tag : "(anon)");
		break;
	case DT_TARRAY:
		/* as DTrace names it: "int [3]" */
		snprintf(buf, len, "%s [%llu]",
			 dt_type_name(&t->ct->elem, in, sizeof(in)),
			 (unsigned long long)t->ct->nelems);
		break;
	case DT_TPTR:
		if (t->xlate) {
			snprintf(buf, len, "%s *", dt_xlate_name(t->xlate));
			break;
		}
		if (t->ref) {
			snprintf(buf, len, "%s *",
				 dt_type_name(t->ref, in, sizeof(in)));
			break;
		}
		snprintf(buf, len, "%s%s *", t->pointee_unsigned ?
			 "unsigned " : "", t->pointee == 1 ? "char" :
			 t->pointee == 2 ? "short" : t->pointee == 4 ? "int" :
			 "long");
		break;
	default:
		switch (t->size) {
		case 1: snprintf(buf, len, "%schar", t->sign ? "" : "unsigned ");
			break;
		case 2: snprintf(buf, len, "%sshort", t->sign ? "" :
				 "unsigned ");
			break;
		case 4: snprintf(buf, len, "%sint", t->sign ? "" : "unsigned ");
			break;
		default: snprintf(buf, len, "%s", t->sign ? "int64_t" :
				  "uint64_t");
		}
	}
	return buf;
}

static const struct {
	const char *name;
	enum dt_builtin bi;
	struct dt_type type;
} builtins[] = {
	{ "pid", BI_PID, { DT_TINT, 4, true } },
	{ "tid", BI_TID, { DT_TINT, 4, true } },
	{ "ppid", BI_PPID, { DT_TINT, 4, true } },
	{ "uid", BI_UID, { DT_TINT, 4, false } },
	{ "gid", BI_GID, { DT_TINT, 4, false } },
	{ "execname", BI_EXECNAME, { DT_TSTR, 0, false, 16 } },
	{ "timestamp", BI_TIMESTAMP, { DT_TINT, 8, false } },
	{ "vtimestamp", BI_VTIMESTAMP, { DT_TINT, 8, false } },
	{ "walltimestamp", BI_WALLTIMESTAMP, { DT_TINT, 8, true } },
	{ "cpu", BI_CPU, { DT_TINT, 4, true } },
	{ "probeprov", BI_PROBEPROV, { DT_TSTR, 0, false, DT_PROBESTR_SIZE, 0,
				       true } },
	{ "probemod", BI_PROBEMOD, { DT_TSTR, 0, false, DT_PROBESTR_SIZE, 0,
				     true } },
	{ "probefunc", BI_PROBEFUNC, { DT_TSTR, 0, false, DT_PROBESTR_SIZE, 0,
				       true } },
	{ "probename", BI_PROBENAME, { DT_TSTR, 0, false, DT_PROBESTR_SIZE, 0,
				       true } },
	{ "arg0", BI_ARG0 + 0, { DT_TINT, 8, true } },
	{ "arg1", BI_ARG0 + 1, { DT_TINT, 8, true } },
	{ "arg2", BI_ARG0 + 2, { DT_TINT, 8, true } },
	{ "arg3", BI_ARG0 + 3, { DT_TINT, 8, true } },
	{ "arg4", BI_ARG0 + 4, { DT_TINT, 8, true } },
	{ "arg5", BI_ARG0 + 5, { DT_TINT, 8, true } },
	{ "arg6", BI_ARG0 + 6, { DT_TINT, 8, true } },
	{ "arg7", BI_ARG0 + 7, { DT_TINT, 8, true } },
	{ "arg8", BI_ARG0 + 8, { DT_TINT, 8, true } },
	{ "arg9", BI_ARG0 + 9, { DT_TINT, 8, true } },
	{ "errno", BI_ERRNO, { DT_TINT, 4, true } },
	{ "epid", BI_EPID, { DT_TINT, 4, false } },
	{ "id", BI_ID, { DT_TINT, 4, false } },
	{ "curpsinfo", BI_CURPSINFO, { DT_TPTR, 8, false, 0, 8, false,
				       DT_XL_PSINFO } },
	{ "curlwpsinfo", BI_CURLWPSINFO, { DT_TPTR, 8, false, 0, 8, false,
					   DT_XL_LWPSINFO } },
	{ "stackdepth", BI_STACKDEPTH, { DT_TINT, 4, false } },
	{ "ustackdepth", BI_USTACKDEPTH, { DT_TINT, 4, false } },
	{ "caller", BI_CALLER, { DT_TINT, 8, false } },
	{ "ucaller", BI_UCALLER, { DT_TINT, 8, false } },
	{ "curcpu", BI_CURCPU, { DT_TPTR, 8, false, 0, 8, false,
				 DT_XL_CPUINFO } },
	{ "pset", BI_PSET, { DT_TINT, 4, true } },
	{ "chip", BI_CHIP, { DT_TINT, 4, true } },
	{ "lgrp", BI_LGRP, { DT_TINT, 4, true } },
};

/* Names D defines that this version does not provide. */
static const char *const later_vars[] = {
	"args", "cwd", "root", "ipl", "zonename", "arg10",
};

struct dt_ck {
	struct dt_cc *cc;
	struct dt_prog *p;
	struct dt_clause *cl;
	int action;
	struct dt_node *action_node;	/* the statement's action call */
	int rec_off;
	struct dt_action *acts;
	size_t acts_cap;
	bool whole_ok;		/* sizeof: a struct or array as a whole */
	struct dt_node *stray;	/* an action called as a value */
};

static struct dt_type check_expr(struct dt_ck *k, struct dt_node *n);
static struct dt_type xlate_member(struct dt_ck *k, struct dt_node *n);
static bool builtin_xlate(struct dt_ck *k, struct dt_node *x);

bool dt_builtin_var(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
		if (!strcmp(builtins[i].name, name))
			return true;
	return false;
}
static struct dt_type check_top(struct dt_ck *k, struct dt_node *n);

static struct dt_type str_type(struct dt_ck *k)
{
	struct dt_type t = { DT_TSTR, 0, false, 0, 0, false };

	t.ssize = (uint16_t)dt_str_bytes(k->p);
	return t;
}

static const char *tname(const struct dt_type *t, char *buf)
{
	return dt_type_name(t, buf, 80);
}

/* ---- variables ---- */

static struct dt_var *find_var(struct dt_prog *p, const char *name,
			       enum dt_scope scope)
{
	for (struct dt_var *v = p->vars; v; v = v->next)
		if (v->scope == scope && !strcmp(v->name, name))
			return v;
	return NULL;
}

static struct dt_var *new_var(struct dt_ck *k, const char *name,
			      enum dt_scope scope, const struct dt_loc *loc)
{
	struct dt_var *v = dt_alloc(&k->cc->arena, sizeof(*v)), **tail;

	v->name = dt_strdup(&k->cc->arena, name);
	v->scope = scope;
	v->tls = scope == DT_ARRAY && !strncmp(name, "self->", 6);
	v->loc = *loc;
	v->nkeys = -1;
	v->map = -1;
	for (tail = &k->p->vars; *tail; tail = &(*tail)->next)
		;
	*tail = v;
	return v;
}

static const char *scope_prefix(enum dt_scope s)
{
	return s == DT_SELF ? "self->" : s == DT_THIS ? "this->" : "";
}

/* ---- integer conversions ---- */

/* The type of a binary arithmetic result as DTrace gives it
 * (dt_type_promote): no promotion to int; the operand of higher rank
 * (bits, plus one for unsigned) wins, the left one on a tie. Pointers
 * count as uint64_t. */
static struct dt_type arith(struct dt_type a, struct dt_type b)
{
	if (a.kind == DT_TPTR)
		a = dt_ulong;
	if (b.kind == DT_TPTR)
		b = dt_ulong;
	a.bits = b.bits = 0;
	int ra = a.size * 8 + !a.sign, rb = b.size * 8 + !b.sign;

	return rb > ra ? b : a;
}

static void need_int(struct dt_ck *k, struct dt_node *n, const struct dt_type *t,
		     const char *what)
{
	char b[80];

	if (!dt_type_is_int(t))
		dt_error(k->cc, &n->loc, "%s needs an integer operand, not %s",
			 what, tname(t, b));
}

static bool const_eval(struct dt_node *n, int64_t *out);

/* name[i] becomes *(name + i): an element through a pointer, or of an
 * array whose elements are not scalars. */
static void to_deref(struct dt_ck *k, struct dt_node *n)
{
	struct dt_node *v = dt_alloc(&k->cc->arena, sizeof(*v));
	struct dt_node *add = dt_alloc(&k->cc->arena, sizeof(*add));

	v->kind = N_VAR;
	v->loc = n->loc;
	v->name = n->name;
	add->kind = N_BINARY;
	add->op = T_PLUS;
	add->loc = n->loc;
	add->a = v;
	add->b = n->args[0];
	n->kind = N_UNARY;
	n->op = T_STAR;
	n->a = add;
	n->name = NULL;
	n->args = NULL;
	n->nargs = 0;
}

/* rec.m, a[2]: a member of a struct or union global, or an element of an
 * array global, becomes a variable of its own, kept in the global's bytes
 * (a "part": dt_var.base, off_in). */
static void resolve_part(struct dt_ck *k, struct dt_node *n)
{
	enum dt_scope scope = DT_GLOBAL;
	struct dt_var *base, *v;
	struct dt_type t;
	uint64_t off;
	char *name;

	if (n->kind == N_MEMBER && n->op == T_DOT) {
		resolve_part(k, n->a);
		if (n->a->kind != N_VAR && n->a->kind != N_THIS)
			return;
		scope = n->a->kind == N_THIS ? DT_THIS : DT_GLOBAL;
		base = find_var(k->p, n->a->name, scope);
		if (!base || base->type.kind != DT_TSOU)
			return;
		if (!dt_ctype_member(base->type.ct, n->name, &off, &t))
			dt_cerror(k->cc, &n->loc, D_TYPE_MEMBER, "%s is not a "
				  "member of %s %s", n->name,
				  base->type.ct->is_union ? "union" : "struct",
				  base->type.ct->tag ? base->type.ct->tag :
				  "(anon)");
		if (t.kbits)
			dt_error(k->cc, &n->loc, "not supported: a kernel "
				 "bit-field of a D variable (%s.%s) in this "
				 "version (only through a pointer)", base->name,
				 n->name);
		name = dt_alloc(&k->cc->arena, strlen(base->name) +
				strlen(n->name) + 2);
		sprintf(name, "%s.%s", base->name, n->name);
	} else if (n->kind == N_INDEX) {
		int64_t i;

		base = find_var(k->p, n->name, DT_GLOBAL);
		if (base && (base->type.kind == DT_TPTR ||
			     base->type.kind == DT_TSTR) && n->nargs == 1 &&
		    !find_var(k->p, n->name, DT_ARRAY)) {
			to_deref(k, n);		/* p[i]: *(p + i) */
			return;
		}
		if (!base || base->type.kind != DT_TARRAY)
			return;
		if (n->nargs != 1)
			dt_cerror(k->cc, &n->loc, D_ARR_BADREF, "cannot access "
				  "scalar %s as an associative array", n->name);
		if (!const_eval(n->args[0], &i)) {
			/* checked when it runs */
			struct dt_type it = check_expr(k, n->args[0]);

			need_int(k, n->args[0], &it, "an array index");
			if (base->type.ct->elem.kind != DT_TINT &&
			    base->type.ct->elem.kind != DT_TPTR) {
				/* a[i] of structs or arrays: *(a + i) */
				to_deref(k, n);
				return;
			}
			n->var = base;
			return;
		}
		if (i < 0 || (uint64_t)i >= base->type.ct->nelems)
			dt_cerror(k->cc, &n->args[0]->loc, D_ARR_BOUNDS,
				  "index outside array bounds: %lld, max is "
				  "%llu", (long long)i, (unsigned long long)
				  base->type.ct->nelems);
		t = base->type.ct->elem;
		off = (uint64_t)i * dt_type_size(&t);
		name = dt_alloc(&k->cc->arena, strlen(base->name) + 24);
		sprintf(name, "%s[%lld]", base->name, (long long)i);
	} else {
		return;
	}
	v = find_var(k->p, name, scope);
	if (!v) {
		v = new_var(k, name, scope, &n->loc);
		v->type = t;
		v->typed = true;
		v->assigned = true;
		v->base = base;
		v->off_in = off;
	}
	n->kind = scope == DT_THIS ? N_THIS : N_VAR;
	n->name = v->name;
	n->nargs = 0;
}

/* a[i]: an element of an array global at an index known when it runs */
static bool is_elem(const struct dt_node *n)
{
	return n->kind == N_INDEX && n->var && n->var->scope == DT_GLOBAL &&
	       n->var->type.kind == DT_TARRAY;
}

/* A struct, union or array is used through its members or elements (and
 * sizeof). */
static void no_whole(struct dt_ck *k, const struct dt_node *n,
		     const struct dt_type *t)
{
	if (t->kind == DT_TSOU || t->kind == DT_TARRAY)
		dt_error(k->cc, &n->loc, "not supported: %s as a whole value "
			 "in this version (use its %s)", t->kind == DT_TSOU ?
			 "a struct or union" : "an array", t->kind == DT_TSOU ?
			 "members" : "elements");
}

/* n is assigned with operator op (=, +=, ++...): DTrace's D_OP_LVAL
 * and D_OP_WRITE errors, in its words, and sonde's own limits. */
static void need_lvalue(struct dt_ck *k, struct dt_node *n, int op)
{
	const char *what = op == T_ASSIGN ? "assignment" : dt_tok_name(op);

	resolve_part(k, n);
	switch (n->kind) {
	case N_VAR:
		if (!strcmp(n->name, "NULL"))
			break;
		for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
			if (!strcmp(builtins[i].name, n->name))
				dt_cerror(k->cc, &n->loc, D_OP_WRITE, "operator "
					  "%s can only be applied to a writable "
					  "variable", dt_tok_name(op));
		/* fall through */
	case N_SELF: case N_THIS: case N_INDEX:
		return;
	case N_UNARY:
		if (n->op == T_STAR) {
			struct dt_type t = check_expr(k, n->a);
			char b[80];

			/* *p = x: only into alloca()'s memory, where the
			 * program checks that the bytes were handed out */
			if (t.kind == DT_TPTR && t.alloca) {
				k->p->uses_alloca = true;
				return;
			}
			dt_error(k->cc, &n->loc, "%s through a pointer: only "
				 "to alloca()'s memory, not %s%s", what,
				 t.kind == DT_TPTR ? "a pointer to other "
				 "memory: " : "", tname(&t, b));
		}
		/* fall through */
	default:
		if (n->kind == N_MEMBER) {
			/* DTrace's errors about the member first */
			struct dt_type t = check_expr(k, n);
			char b[80];

			/* p->m = x: a member in alloca()'s memory */
			if (n->kind == N_MEMBER && n->in_alloca &&
			    !t.kbits && !t.bits) {
				k->p->uses_alloca = true;
				return;
			}
			if (n->in_mem)
				dt_error(k->cc, &n->loc, "%s through a pointer: "
					 "only to alloca()'s memory, not %s "
					 "(a member of memory elsewhere)", what,
					 tname(&t, b));
		}
		break;
	}
	dt_cerror(k->cc, &n->loc, D_OP_LVAL, "operator %s requires "
		  "modifiable lvalue as an operand", dt_tok_name(op));
}

static bool is_deref(const struct dt_node *n)
{
	return n->kind == N_UNARY && n->op == T_STAR;
}

/* ---- tuple keys ---- */

static struct dt_key key_of(struct dt_node *e)
{
	struct dt_key key = { 0 };

	if (e->type.kind == DT_TSYM) {
		key.kind = KEY_SYM;
		key.size = 16;
		key.which = e->type.symkind;
	} else if (e->type.kind == DT_TSTACK) {
		key.kind = KEY_STACK;
		key.size = 8;
		key.which = (uint8_t)(e->name[0] == 'u');
		key.ssize = e->nargs ? (uint16_t)e->args[0]->ival : 0;
	} else if (e->type.kind == DT_TSTR && e->type.probe_str &&
		   e->kind == N_VAR) {
		key.kind = KEY_PROBESTR;
		key.which = (uint8_t)(e->bi - BI_PROBEPROV);
	} else if (e->type.kind == DT_TSTR) {
		key.kind = KEY_STR;
		key.ssize = e->type.ssize;
	} else if (e->type.kind == DT_TSOU || e->type.kind == DT_TARRAY) {
		/* a struct, union or (traced) array: its bytes */
		key.kind = KEY_BYTES;
		key.ssize = (uint16_t)dt_type_size(&e->type);
	} else {
		key.kind = KEY_INT;
		key.size = e->type.size;
		key.sign = e->type.sign;
	}
	key.type = e->type;
	return key;
}

/* s + i, s - i, i + s: as DTrace, the string from the i-th byte of s on
 * (the bytes after its end are zeros): n becomes the string at the char
 * pointer s + i, which faults as a bad address when s is NULL. */
static struct dt_type str_offset(struct dt_ck *k, struct dt_node *n,
				 bool left)
{
	struct dt_node *c = dt_alloc(&k->cc->arena, sizeof(*c));
	struct dt_node *sum = dt_alloc(&k->cc->arena, sizeof(*sum));
	struct dt_node **s = left ? &sum->a : &sum->b;
	struct dt_type ch = { DT_TINT, 1, true };
	struct dt_type t = left ? n->a->type : n->b->type;

	*sum = *n;
	sum->next = NULL;
	c->kind = N_CAST;
	c->loc = (*s)->loc;
	c->a = *s;
	c->cast = dt_ptr_type(k->cc, &ch);
	c->cast.alloca = t.alloca;
	c->type = c->cast;
	*s = c;
	sum->type = c->cast;
	n->kind = N_CAST;
	n->op = 0;
	n->a = sum;
	n->b = NULL;
	n->cast = t;
	n->cast.probe_str = false;
	n->type = n->cast;
	return n->type;
}

static void check_keys(struct dt_ck *k, struct dt_var *v, struct dt_node **args,
		       int nargs, const struct dt_loc *loc)
{
	char what[80], b1[80], b2[80];

	snprintf(what, sizeof(what), "%s%s", v->scope == DT_AGGVAR ? "" : "",
		 v->name);
	/* -x tregs=N (8): dtrace-utils' dt_cg_arglist stops at the key
	 * past the N+1st */
	if ((uint64_t)nargs > k->p->opt.tregs + 1) {
		k->cc->region = NULL;	/* the code generator's error */
		dt_error(k->cc, NULL, "Insufficient tuple registers to "
			 "generate code");
	}
	for (int i = 0; i < nargs; i++) {
		const struct dt_func *f = args[i]->kind == N_CALL ?
			dt_func_lookup(args[i]->name) : NULL;

		/* what DTrace refuses as a key (D_KEY_TYPE) */
		if (args[i]->kind == N_AGG || (f && (f->is_action || f->is_agg)))
			dt_cerror(k->cc, &args[i]->loc, D_KEY_TYPE, "%s "
				  "expression may not be used as %s index: key "
				  "#%d", args[i]->kind == N_AGG ? "aggregation" :
				  "void", v->scope == DT_AGGVAR ? "aggregation" :
				  "associative array", i + 1);
		bool w = k->whole_ok;

		/* a struct or union key is its bytes */
		k->whole_ok = v->scope != DT_AGGVAR;
		struct dt_type t = check_expr(k, args[i]);

		k->whole_ok = w;
		if (t.kind == DT_TARRAY)
			dt_error(k->cc, &args[i]->loc, "not supported: an array "
				 "as a key in this version");
		if (t.kind == DT_TSOU && t.ct->size > 256)
			dt_error(k->cc, &args[i]->loc, "not supported: a key of "
				 "more than 256 bytes (%s)", tname(&t, b1));
		if (t.kind == DT_TPTR && t.xlate)
			dt_cerror(k->cc, &args[i]->loc, D_KEY_TYPE, "dynamic "
				  "expression may not be used as %s index: key "
				  "#%d", v->scope == DT_AGGVAR ? "aggregation" :
				  "associative array", i + 1);
		if (t.kind == DT_TVOID)
			dt_error(k->cc, &args[i]->loc, "key %d of %s has no "
				 "value", i + 1, what);
		if (t.kind == DT_TSYM && v->scope != DT_AGGVAR)
			dt_error(k->cc, &args[i]->loc, "not supported: a "
				 "symbol as the key of an associative array in "
				 "this version (symbols are aggregation keys)");
		if (t.kind == DT_TSTACK && v->scope != DT_AGGVAR)
			dt_error(k->cc, &args[i]->loc, "not supported: a stack "
				 "as the key of an associative array in this "
				 "version (stacks are aggregation keys)");
	}
	if (v->nkeys < 0) {
		v->nkeys = nargs;
		v->keys = dt_alloc(&k->cc->arena, sizeof(*v->keys) *
				   (nargs ? nargs : 1));
		for (int i = 0; i < nargs; i++)
			v->keys[i] = key_of(args[i]);
		return;
	}
	if (v->nkeys != nargs && v->scope != DT_AGGVAR)
		dt_cerror(k->cc, loc, D_PROTO_LEN, "%s[ ] prototype mismatch: "
			  "%d key%spassed, %d expected", v->name, nargs,
			  nargs == 1 ? " " : "s ", v->nkeys);
	if (v->nkeys != nargs)
		dt_error(k->cc, loc, "%s is used with %d key%s here but %d "
			 "before", what, nargs, nargs == 1 ? "" : "s",
			 v->nkeys);
	for (int i = 0; i < nargs; i++) {
		struct dt_key a = v->keys[i], b = key_of(args[i]);

		/* DTrace's signature check (dt_idcook_sign): integers
		 * match integers, strings strings, a struct itself */
		if (v->scope != DT_AGGVAR &&
		    ((a.kind == KEY_INT) != (b.kind == KEY_INT) ||
		     (a.kind == KEY_BYTES) != (b.kind == KEY_BYTES) ||
		     (a.kind == KEY_BYTES && a.type.ct != b.type.ct)))
			dt_cerror(k->cc, loc, D_PROTO_ARG, "%s[ ] key #%d is "
				  "incompatible with prototype:\n\tprototype: "
				  "%s\n\t      key: %s", v->name, i + 1,
				  tname(&a.type, b1), tname(&b.type, b2));
		if (a.kind == KEY_BYTES)
			continue;

		if ((a.kind == KEY_INT) != (b.kind == KEY_INT))
			dt_error(k->cc, &args[i]->loc, "key %d of %s is %s "
				 "here but %s before", i + 1, what,
				 b.kind == KEY_INT ? "an integer" : "a string",
				 a.kind == KEY_INT ? "an integer" :
				 "a string");
		if (a.kind == KEY_INT)
			continue;
		if (a.kind == KEY_SYM || b.kind == KEY_SYM) {
			if (a.kind != b.kind || a.which != b.which)
				dt_error(k->cc, &args[i]->loc, "key %d of %s is "
					 "not the same kind of symbol as before",
					 i + 1, what);
			continue;
		}
		if (a.kind == KEY_STACK || b.kind == KEY_STACK) {
			if (a.kind != b.kind || a.which != b.which)
				dt_error(k->cc, &args[i]->loc, "key %d of %s is "
					 "a %s here but %s before", i + 1,
					 what, b.kind != KEY_STACK ? "string" :
					 b.which ? "user stack" :
					 "kernel stack", a.kind != KEY_STACK ?
					 "a string" : a.which ?
					 "a user stack" : "a kernel stack");
			if (b.ssize != a.ssize)	/* frames: the most asked */
				v->keys[i].ssize = !a.ssize || !b.ssize ? 0 :
					a.ssize > b.ssize ? a.ssize : b.ssize;
			continue;
		}
		if (a.kind == KEY_PROBESTR && b.kind == KEY_PROBESTR &&
		    a.which == b.which)
			continue;
		/* Different kinds of string: store the bytes. */
		uint16_t sa = a.kind == KEY_STR ? a.ssize : DT_PROBESTR_SIZE;
		uint16_t sb = b.kind == KEY_STR ? b.ssize : DT_PROBESTR_SIZE;

		v->keys[i].kind = KEY_STR;
		v->keys[i].ssize = sa > sb ? sa : sb;
	}
}

/* ---- expressions ---- */

bool dt_node_is_null(const struct dt_node *n)
{
	return n->kind == N_INT && n->type.kind == DT_TPTR && n->name &&
	       !strcmp(n->name, "NULL");
}

/* Whether /proc/kallsyms lists kernel data (CONFIG_KALLSYMS_ALL): a
 * kernel without it lists a few dozen data symbols among its functions;
 * read only to explain a `name that is not found. */
static bool kallsyms_has_data(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256];
	long data = 0;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f) && data < 1000) {
		char *t = strchr(line, ' ');

		if (t && strchr("dDbB", t[1]))
			data++;
	}
	fclose(f);
	return data >= 1000;
}

static struct dt_type check_var(struct dt_ck *k, struct dt_node *n)
{
	/* NULL: a pointer constant (to strtok(), and == NULL on the strings
	 * functions return, which are empty where DTrace's are NULL) */
	if (!strcmp(n->name, "NULL")) {
		n->kind = N_INT;
		n->ival = 0;
		n->type = (struct dt_type){ DT_TPTR, 8, false, 0, 1 };
		return n->type;
	}
	if (!strcmp(n->name, "curthread")) {
		/* the current task, typed by the kernel's BTF */
		struct dt_type st;

		if (!dt_btf_sou(k->cc, false, "task_struct", &st))
			dt_error(k->cc, &n->loc, "curthread needs the kernel's "
				 "BTF (/sys/kernel/btf/vmlinux)");
		n->bi = BI_CURTHREAD;
		return dt_ptr_type(k->cc, &st);
	}
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++) {
		if (strcmp(builtins[i].name, n->name))
			continue;
		n->bi = builtins[i].bi;
		if (n->bi == BI_PPID)
			k->p->uses_ppid = true;
		if (n->bi == BI_VTIMESTAMP)
			k->p->uses_vtimestamp = true;
		return builtins[i].type;
	}
	struct dt_var *v = find_var(k->p, n->name, DT_GLOBAL);

	if (!v) {
		int64_t value;
		int size;

		if (find_var(k->p, n->name, DT_ARRAY))
			dt_cerror(k->cc, &n->loc, D_IDENT_BADREF, "associative "
				 "array '%s' may not be referenced as scalar", n->name);
		if (!strcmp(n->name, "args") || !strcmp(n->name, "uregs"))
			dt_cerror(k->cc, &n->loc, D_IDENT_BADREF, "array "
				  "'%s' may not be referenced as scalar",
				  n->name);	/* DTrace's words */
		for (size_t i = 0; i < ARRAY_SIZE(later_vars); i++)
			if (!strcmp(later_vars[i], n->name))
				dt_error(k->cc, &n->loc, "not supported: "
					 "built-in variable %s in this "
					 "version", n->name);
		/* a constant of the D library (SIGINT, ENOENT, R_PC...) */
		if (dt_dlib_const(n->name, &value, &size)) {
			n->kind = N_INT;
			n->ival = (uint64_t)value;
			n->type = (struct dt_type){ DT_TINT, (uint8_t)size, true };
			return n->type;
		}
		if (strchr(n->name, '`')) {
			/* a kernel symbol (`max_pfn): DTrace's words */
			if (n->name[strlen(n->name) - 1] != '`' &&
			    !kallsyms_has_data())
				k->cc->why = "kernel variables are found in "
					"/proc/kallsyms, which lists no data "
					"symbols on this kernel (it was built "
					"without CONFIG_KALLSYMS_ALL)";
			dt_cerror(k->cc, &n->loc, D_IDENT_UNDEF, "failed to "
				  "resolve %s: Unknown symbol name", n->name);
		}
		k->cc->hint = "a variable must be declared or assigned before "
			      "it is used";
		dt_cerror(k->cc, &n->loc, D_IDENT_UNDEF, "failed to resolve %s: "
			  "Unknown variable name", n->name);
	}
	if (!v->typed)
		dt_error(k->cc, &n->loc, "%s is used before it has a type",
			 n->name);
	n->var = v;
	return v->type;
}

static struct dt_type check_scoped(struct dt_ck *k, struct dt_node *n)
{
	enum dt_scope s = n->kind == N_SELF ? DT_SELF : DT_THIS;
	struct dt_var *v = find_var(k->p, n->name, s);

	if (!v || !v->typed)
		dt_error(k->cc, &n->loc, "%s%s is used before it is assigned",
			 scope_prefix(s), n->name);
	n->var = v;
	return v->type;
}

/* args[N]: typed by the providers of the clause's probes, which must
 * agree. */
static struct dt_type check_args(struct dt_ck *k, struct dt_node *n)
{
	struct dt_clause *cl = k->cl;
	struct dt_type t = dt_void, pt;
	char b1[80], b2[80];
	bool have = false;
	int i;

	int64_t v;

	/* dtrace-utils' dt_idcook_args, in its words */
	if (n->nargs != 1)
		dt_cerror(k->cc, &n->loc, D_PROTO_LEN, "args[ ] prototype "
			  "mismatch: %d arg%spassed, 1 expected", n->nargs,
			  n->nargs == 1 ? " " : "s ");
	if (!const_eval(n->args[0], &v)) {
		struct dt_type at = check_expr(k, n->args[0]);

		dt_cerror(k->cc, &n->loc, D_PROTO_ARG, "args[ ] argument #1 "
			  "is incompatible with prototype:\n\tprototype: "
			  "integer constant\n\t argument: %s",
			  tname(&at, b1));
	}
	i = (int)v;
	for (int j = 0; cl && j < cl->nprobes; j++) {
		const struct dt_probe *p = cl->probes[j];

		if (!p->prov->args_type || !p->prov->args_type(p, i, &pt))
			dt_cerror(k->cc, &n->loc, D_ARGS_IDX, "index %d is "
				  "out of range for %s:%s:%s:%s args[ ]", i,
				  dt_probe_field(p, 0), p->mod, p->func,
				  p->name);
		if (have && (pt.kind != t.kind || pt.xlate != t.xlate ||
			     (pt.kind == DT_TINT && pt.size != t.size)))
			dt_error(k->cc, &n->loc, "args[%d] is %s for some of "
				 "the clause's probes and %s for others", i,
				 tname(&t, b1), tname(&pt, b2));
		if (!have || (pt.kind == DT_TSTR && pt.ssize > t.ssize))
			t = pt;
		have = true;
	}
	if (!have)
		dt_error(k->cc, &n->loc, "args[%d] needs probes that define "
			 "it", i);
	n->bi = BI_ARGS;
	n->ival = (uint64_t)i;
	return t;
}

/* uregs[N]: the interrupted user registers, N one of regs.d's R_*
 * (an index into pt_regs; 21..25 are task->thread's ds, es, fsbase,
 * gsbase, trap_nr, as dtrace-utils' dt_cg_uregs on x86_64). */
static struct dt_type check_uregs(struct dt_ck *k, struct dt_node *n)
{
	struct dt_type at;
	char b[80];
	int64_t v;

	if (n->nargs != 1)
		dt_cerror(k->cc, &n->loc, D_PROTO_LEN, "uregs[ ] prototype "
			  "mismatch: %d arg%spassed, 1 expected", n->nargs,
			  n->nargs == 1 ? " " : "s ");
	at = check_expr(k, n->args[0]);
	if (!const_eval(n->args[0], &v))
		dt_cerror(k->cc, &n->loc, D_PROTO_ARG, "uregs[ ] argument #1 "
			  "is incompatible with prototype:\n\tprototype: "
			  "integer constant\n\t argument: %s", tname(&at, b));
	if (v < 0 || v > 25)
		dt_cerror(k->cc, &n->loc, D_UNKNOWN_CTF, "uregs[]: index out "
			  "of bounds (%d)", (int)v);
	n->bi = BI_UREGS;
	n->ival = (uint64_t)v;
	return dt_ulong;
}

/* An array used as a value is the address of its first element (C's
 * decay): n becomes N_ADDR of what it was. */
static struct dt_type decay(struct dt_ck *k, struct dt_node *n,
			    struct dt_type t)
{
	struct dt_node *c;

	if (t.kind != DT_TARRAY || k->whole_ok)
		return t;
	c = dt_alloc(&k->cc->arena, sizeof(*c));
	*c = *n;
	c->type = t;
	memset(n, 0, sizeof(*n));
	n->kind = N_ADDR;
	n->loc = c->loc;
	n->a = c;
	n->type = dt_ptr_type(k->cc, &t.ct->elem);
	n->type.alloca = c->in_alloca;
	if (c->in_mem && !c->in_alloca && t.ct->elem.kind == DT_TINT &&
	    t.ct->elem.size == 1 && t.ct->nelems && t.ct->nelems < 65535) {
		/* a char array in memory is a string, as in DTrace
		 * (curthread->comm); one in alloca()'s memory stays an
		 * address there, which stores go through */
		struct dt_node *a = dt_alloc(&k->cc->arena, sizeof(*a));

		*a = *n;
		n->kind = N_CAST;
		n->a = a;
		n->type = str_type(k);
		n->type.ssize = (uint16_t)(t.ct->nelems + 1);
		n->cast = n->type;
	}
	return n->type;
}

/* p->m, (*p).m: a member of a struct or union in memory, read at its
 * offset from the struct's address. */
static struct dt_type mem_member(struct dt_ck *k, struct dt_node *n,
				 struct dt_type a)
{
	struct dt_type st = n->op == T_ARROW ? dt_ptr_ref(&a) : a, t;
	char b[80];
	uint64_t off;

	if (st.kind == DT_TSOU && !st.ct->complete && st.ct->btf_id)
		dt_btf_complete(k->cc, (struct dt_ctype *)st.ct);

	if (st.kind != DT_TSOU && n->op == T_ARROW)
		dt_cerror(k->cc, &n->loc, D_OP_SOU, "operator -> cannot be "
			  "applied to pointer to type \"%s\"; must be applied "
			  "to a struct or union pointer", tname(&st, b));
	if (!st.ct->complete)
		dt_cerror(k->cc, &n->loc, D_OP_INCOMPLETE, "operator %s cannot "
			  "be applied to a forward declaration: no %s "
			  "definition is available", dt_tok_name(n->op),
			  tname(&st, b));
	if (!dt_ctype_member(st.ct, n->name, &off, &t))
		dt_cerror(k->cc, &n->loc, D_TYPE_MEMBER, "%s is not a member "
			  "of %s", n->name, tname(&st, b));
	n->in_mem = true;
	n->in_alloca = n->op == T_ARROW ? a.alloca : n->a->in_alloca;
	n->ival = off;
	n->type = t;
	if (t.kind == DT_TSOU && !k->whole_ok)
		no_whole(k, n, &t);
	return decay(k, n, t);
}

/* *p: what p points to, in memory. */
static struct dt_type check_deref(struct dt_ck *k, struct dt_node *n)
{
	bool w = k->whole_ok;
	struct dt_type a, t;

	k->whole_ok = false;
	a = check_expr(k, n->a);
	k->whole_ok = w;
	if (a.kind == DT_TSTR && n->a->kind == N_CAST &&
	    n->a->a->kind == N_BINARY) {
		/* s[i], *(s + i): the char at the pointer str_offset made */
		n->a = n->a->a;
		a = n->a->type;
	}
	if (a.kind != DT_TPTR)
		dt_cerror(k->cc, &n->loc, D_DEREF_NONPTR, "cannot dereference "
			  "non-pointer type");
	if (a.xlate)
		dt_error(k->cc, &n->loc, "not supported: a translated "
			 "structure as a whole value in this version (use its "
			 "members)");
	t = dt_ptr_ref(&a);
	if (t.kind == DT_TVOID)
		dt_cerror(k->cc, &n->loc, D_DEREF_VOID, "cannot dereference "
			  "pointer to void");
	if (t.kind == DT_TFLOAT)
		dt_error(k->cc, &n->loc, "not supported: reading a "
			 "floating-point value through a pointer in this "
			 "version");
	if (t.kind == DT_TSTR)	/* *(string *)p: strsize bytes there */
		t = str_type(k);
	n->in_mem = true;
	n->in_alloca = a.alloca;
	n->type = t;
	if (t.kind == DT_TSOU && !k->whole_ok)
		no_whole(k, n, &t);
	return decay(k, n, t);
}

/* &x: the address of an object in memory, a member or element of a
 * global or clause-local struct or array; never of a dynamic variable. */
static struct dt_type check_addrof(struct dt_ck *k, struct dt_node *n)
{
	struct dt_node *c = n->a;
	bool w = k->whole_ok;
	struct dt_type t;

	if (c->kind == N_AGG)
		dt_cerror(k->cc, &n->loc, D_ADDROF_VAR, "cannot take address "
			  "of dynamic variable");
	k->whole_ok = true;
	t = check_expr(k, c);
	k->whole_ok = w;
	if (t.bits)
		dt_cerror(k->cc, &n->loc, D_ADDROF_BITFIELD, "cannot take "
			  "address of bit-field");
	if (c->in_mem || is_elem(c) ||
	    ((c->kind == N_VAR || c->kind == N_THIS) && c->var &&
	     c->var->base)) {
		struct dt_type pt = dt_ptr_type(k->cc, &t);

		pt.alloca = c->in_alloca;
		return pt;
	}
	if (c->kind == N_VAR || c->kind == N_SELF || c->kind == N_THIS ||
	    c->kind == N_INDEX)
		dt_cerror(k->cc, &n->loc, D_ADDROF_VAR, "cannot take address "
			  "of dynamic variable");
	dt_cerror(k->cc, &n->loc, D_ADDROF_LVAL, "unacceptable operand for "
		  "unary & operator");
}

static struct dt_type check_member(struct dt_ck *k, struct dt_node *n)
{
	struct dt_type a, t;
	char b[80];
	int idx;

	if (n->a->kind == N_XLATE)
		return xlate_member(k, n);
	resolve_part(k, n);
	if (n->kind == N_VAR || n->kind == N_THIS)
		return check_expr(k, n);
	bool w = k->whole_ok;

	k->whole_ok = true;	/* a struct (.) or, for ->, an error below */
	a = check_expr(k, n->a);
	k->whole_ok = w;
	/* self->s.m, a[k].m: a member of a dynamic variable's struct, read
	 * through its address */
	if (n->op == T_DOT && a.kind == DT_TSOU &&
	    (n->a->kind == N_SELF || (n->a->kind == N_INDEX && n->a->var &&
				      n->a->var->scope == DT_ARRAY)))
		return mem_member(k, n, a);
	if (n->op == T_DOT && a.kind == DT_TSOU &&
	    (n->a->kind == N_VAR || n->a->kind == N_THIS)) {
		/* (struct s)v.m: v.m, now that the cast is gone */
		resolve_part(k, n);
		if (n->kind == N_VAR || n->kind == N_THIS)
			return check_expr(k, n);
	}
	if (n->op == T_ARROW && a.kind != DT_TPTR)
		dt_cerror(k->cc, &n->loc, D_OP_PTR, "operator -> must be "
			  "applied to a pointer");
	if ((n->op == T_ARROW && !a.xlate) ||
	    (n->op == T_DOT && a.kind == DT_TSOU && n->a->in_mem))
		return mem_member(k, n, a);
	if (n->op == T_DOT && a.kind == DT_TSOU)
		dt_error(k->cc, &n->loc, "not supported: members of this "
			 "struct (only of global struct and union variables) "
			 "in this version");
	if (n->op == T_DOT)
		dt_cerror(k->cc, &n->loc, D_OP_SOU, "operator . cannot be "
			  "applied to type \"%s\"; must be applied to a struct "
			  "or union", tname(&a, b));

	if (a.kind != DT_TPTR || !a.xlate)
		dt_error(k->cc, &n->loc, "not supported: member access on %s "
			 "(only the translated kernel structures: psinfo_t, "
			 "lwpsinfo_t, siginfo_t)", tname(&a, b));
	if (n->op != T_ARROW)
		dt_error(k->cc, &n->loc, "%s is a pointer: use -> for its "
			 "members", tname(&a, b));
	if (!dt_xlate_member(a.xlate, n->name, &t, &idx) &&
	    dt_xlate_noconv(a.xlate, n->name))
		dt_cerror(k->cc, &n->loc, D_XLATE_NOCONV, "translator does "
			  "not define conversion for member: %s", n->name);
	if (!dt_xlate_member(a.xlate, n->name, &t, &idx))
		dt_error(k->cc, &n->loc, "%s has no member %s in this version",
			 dt_xlate_name(a.xlate), n->name);
	n->ival = (uint64_t)idx;
	return t;
}

static struct dt_type check_index(struct dt_ck *k, struct dt_node *n)
{
	struct dt_var *v = find_var(k->p, n->name, DT_ARRAY);

	if (n->op == T_SELF || n->op == T_THIS) {
		/* self->s[i], this->p[i]: an element of a string or
		 * through a pointer, when the variable is one */
		enum dt_scope sc = n->op == T_SELF ? DT_SELF : DT_THIS;
		const char *vn = n->name + (n->op == T_SELF ? 6 : 6);
		struct dt_var *sv = find_var(k->p, vn, sc);

		if (!v && sv && n->nargs == 1 &&
		    (sv->type.kind == DT_TSTR || sv->type.kind == DT_TPTR)) {
			to_deref(k, n);
			n->a->a->kind = sc == DT_SELF ? N_SELF : N_THIS;
			n->a->a->name = (char *)vn;
			return check_expr(k, n);
		}
		if (n->op == T_THIS)
			dt_cerror(k->cc, &n->loc, D_ARR_LOCAL, "local variables "
				  "may not be used as associative arrays: %s",
				  vn);
	}

	if (!v && !strcmp(n->name, "args"))
		return check_args(k, n);
	/* execname[0]: a char of a built-in string, as s[i] of a string
	 * variable */
	for (size_t i = 0; !v && n->nargs == 1 && i < ARRAY_SIZE(builtins);
	     i++)
		if (!strcmp(builtins[i].name, n->name) &&
		    builtins[i].type.kind == DT_TSTR) {
			to_deref(k, n);
			return check_expr(k, n);
		}
	if (!v && !strcmp(n->name, "uregs"))
		return check_uregs(k, n);
	if (!v) {
		if (find_var(k->p, n->name, DT_GLOBAL))
			dt_cerror(k->cc, &n->loc, D_IDENT_BADREF, "scalar '%s' may "
				 "not be referenced as associative array", n->name);
		for (size_t i = 0; i < ARRAY_SIZE(later_vars); i++)
			if (!strcmp(later_vars[i], n->name))
				dt_error(k->cc, &n->loc, "not supported: "
					 "built-in variable %s in this "
					 "version", n->name);
		dt_error(k->cc, &n->loc, "associative array %s is used before "
			 "it is assigned", n->name);
	}
	check_keys(k, v, n->args, n->nargs, &n->loc);
	n->var = v;
	return v->type;
}

static bool is_action_call(const struct dt_node *n)
{
	return n->kind == N_CALL && n->fn && n->fn->is_action;
}

/* Operands op refuses, in DTrace's words (dt_cook_op2): integers for the
 * bitwise operators, shifts and %, arithmetic types for * and /,
 * compatible types for the others. */
static _Noreturn void op2_error(struct dt_ck *k, struct dt_node *n, int op,
				const struct dt_type *a, const struct dt_type *b)
{
	char b1[80], b2[80];

	switch (op) {
	case T_AMP: case T_PIPE: case T_CARET: case T_SHL: case T_SHR:
	case T_PERCENT: case T_AND_ASSIGN: case T_OR_ASSIGN:
	case T_XOR_ASSIGN: case T_SHL_ASSIGN: case T_SHR_ASSIGN:
	case T_MOD_ASSIGN:
		dt_cerror(k->cc, &n->loc, D_OP_INT, "operator %s requires "
			  "operands of integral type", dt_tok_name(op));
	case T_STAR: case T_SLASH: case T_MUL_ASSIGN: case T_DIV_ASSIGN:
		dt_cerror(k->cc, &n->loc, D_OP_ARITH, "operator %s requires "
			  "operands of arithmetic type", dt_tok_name(op));
	default:
		dt_cerror(k->cc, &n->loc, D_OP_INCOMPAT, "operands have "
			  "incompatible types: \"%s\" %s \"%s\"", tname(a, b1),
			  dt_tok_name(op), tname(b, b2));
	}
}

/* The type an assignment gives a new variable. */
static struct dt_type stored_type(struct dt_ck *k, struct dt_type t)
{
	if (t.kind == DT_TSTR)
		return str_type(k);
	t.bits = 0;	/* a bit-field's value: its integer type */
	return t;
}

/* x++, self->n += 2 on a variable never seen: starting at zero, an
 * int64_t for ++ and -- (as dtrace-utils' dt_cook_op1 makes it), an int
 * for an operator-assignment. */
static void implicit_int(struct dt_ck *k, struct dt_node *l, bool wide)
{
	enum dt_scope s = l->kind == N_SELF ? DT_SELF : l->kind == N_THIS ?
			  DT_THIS : l->kind == N_INDEX ? DT_ARRAY : DT_GLOBAL;
	struct dt_var *v;

	if (is_deref(l) || is_elem(l))
		return;
	if (l->kind == N_VAR) {
		for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
			if (!strcmp(builtins[i].name, l->name))
				return;
		if (find_var(k->p, l->name, DT_ARRAY))
			return;
	}
	v = find_var(k->p, l->name, s);
	if (!v)
		v = new_var(k, l->name, s, &l->loc);
	if (!v->typed) {
		v->type = dt_int;
		if (wide)
			v->type.size = 8;
		v->typed = true;
	}
	v->assigned = true;
}

/* x op= y reads x first: a variable never declared nor assigned before
 * is DTrace's D_VAR_UNDEF (dt_cook_var). */
static void need_assigned(struct dt_ck *k, struct dt_node *l)
{
	enum dt_scope s = l->kind == N_SELF ? DT_SELF : DT_THIS;

	if (l->kind == N_VAR) {
		s = DT_GLOBAL;
		for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
			if (!strcmp(builtins[i].name, l->name))
				return;
		if (find_var(k->p, l->name, DT_ARRAY))
			return;
	} else if (l->kind != N_SELF && l->kind != N_THIS) {
		return;
	}
	if (!find_var(k->p, l->name, s))
		dt_cerror(k->cc, &l->loc, D_VAR_UNDEF, "%s%s has not yet been "
			  "declared or assigned", s == DT_SELF ? "self->" :
			  s == DT_THIS ? "this->" : "", l->name);
}

/* A whole struct or union a = b can copy: a variable's (global, this->,
 * self->, an associative array's element) or one in memory (*p). */
static bool sou_source(const struct dt_node *r)
{
	return ((r->kind == N_VAR || r->kind == N_THIS || r->kind == N_SELF) &&
		r->var) || (r->kind == N_INDEX && r->var &&
			    r->var->scope == DT_ARRAY) ||
	       (r->in_mem && !r->in_alloca);
}

/* self->s = 0, a[k] = 0 of a struct or union element: deleted, as
 * any dynamic variable (DTrace's store of zero). */
static bool sou_delete(struct dt_ck *k, struct dt_node *n)
{
	struct dt_node *l = n->a;
	enum dt_scope s = l->kind == N_SELF ? DT_SELF : DT_ARRAY;
	struct dt_var *v;

	if ((l->kind != N_SELF && l->kind != N_INDEX) ||
	    n->b->kind != N_INT || n->b->ival)
		return false;
	v = find_var(k->p, l->name, s);
	if (!v || v->type.kind != DT_TSOU)
		return false;
	bool w = k->whole_ok;

	k->whole_ok = true;
	n->type = check_expr(k, l);
	k->whole_ok = w;
	return true;
}

/* a = b of whole structs or unions (into a global, this->, self-> or an
 * associative array's element, a variable first assigned here taking b's
 * type): true when it is one. */
static bool sou_assign(struct dt_ck *k, struct dt_node *n)
{
	struct dt_node *l = n->a, *r = n->b;
	struct dt_type rt, lt;
	bool w = k->whole_ok;
	char b1[80], b2[80];

	if (sou_delete(k, n))
		return true;
	/* only names and objects in memory can be structs: other
	 * expressions are checked once, by check_assign */
	if (r->kind != N_VAR && r->kind != N_THIS && r->kind != N_SELF &&
	    r->kind != N_INDEX && !(r->kind == N_UNARY && r->op == T_STAR) &&
	    r->kind != N_MEMBER)
		return false;
	if (r->kind == N_INDEX && !find_var(k->p, r->name, DT_ARRAY))
		return false;
	k->whole_ok = true;
	resolve_part(k, r);
	rt = check_expr(k, r);
	k->whole_ok = w;
	if (rt.kind != DT_TSOU)
		return false;
	if (!sou_source(r) ||
	    (l->kind != N_VAR && l->kind != N_THIS && l->kind != N_SELF &&
	     l->kind != N_INDEX))
		dt_error(k->cc, &n->loc, "not supported: copying a struct "
			 "or union other than into a variable, from a "
			 "variable or memory, in this version");
	enum dt_scope s = l->kind == N_THIS ? DT_THIS : l->kind == N_SELF ?
			  DT_SELF : l->kind == N_INDEX ? DT_ARRAY : DT_GLOBAL;
	struct dt_var *v = find_var(k->p, l->name, s);

	if (!v) {
		v = new_var(k, l->name, s, &l->loc);
		v->type = rt;
		v->typed = true;
	}
	v->assigned = true;
	k->whole_ok = true;
	lt = check_expr(k, l);
	k->whole_ok = w;
	if (lt.kind != DT_TSOU || lt.ct != rt.ct)
		dt_cerror(k->cc, &n->loc, D_OP_INCOMPAT, "operands have "
			  "incompatible types: \"%s\" = \"%s\"",
			  tname(&lt, b1), tname(&rt, b2));
	l->var = v;
	l->type = lt;
	r->type = rt;
	n->type = lt;
	return true;
}

/* e, through casts: a ?: whose branches are one alloca()'s memory and one
 * not, which no variable may keep (dtrace-utils' DT_NF_NONASSIGN) */
static bool mixed_alloca(const struct dt_node *e)
{
	while (e->kind == N_CAST)
		e = e->a;
	return e->kind == N_TERNARY &&
	       (e->b->type.alloca != e->c->type.alloca ||
		mixed_alloca(e->b) || mixed_alloca(e->c));
}

/* v = value of type rt (assignment n): a variable that keeps an address in
 * alloca()'s memory keeps only such addresses (or a literal 0), as in
 * DTrace, where the program reads them as offsets in that memory. */
static void alloca_store(struct dt_ck *k, struct dt_node *n, struct dt_var *v,
			 struct dt_type rt)
{
	if (mixed_alloca(n->b))
		dt_cerror(k->cc, &n->loc, D_ALLOCA_INCOMPAT, "ternary "
			  "conditional with alloca and non-alloca branches "
			  "cannot be assigned to a variable");
	if (rt.alloca && rt.kind != DT_TSTR) {
		if (v->nonalloca)
			goto clash;
		/* a pointer variable ever given alloca()'s memory may be a
		 * bcopy() destination (checked when it runs) */
		if (v->type.kind == DT_TPTR || v->type.kind == DT_TINT)
			v->type.alloca = true;
		return;
	}
	if ((n->b->kind == N_INT && n->b->ival == 0) || dt_node_is_null(n->b))
		return;
	if (v->type.alloca)
		goto clash;
	v->nonalloca = true;
	return;
clash:
	dt_cerror(k->cc, &n->loc, D_ALLOCA_INCOMPAT, "%s: cannot reuse the "
		  "same identifier for both alloca and non-alloca allocations",
		  v->name);
}

static struct dt_type check_assign(struct dt_ck *k, struct dt_node *n)
{
	struct dt_node *l = n->a;
	struct dt_type rt, lt;
	char b1[80], b2[80];

	if (l->kind == N_VAR) {
		struct dt_var *av = find_var(k->p, l->name, DT_GLOBAL);

		if (av && av->type.kind == DT_TARRAY)
			dt_cerror(k->cc, &n->loc, D_OP_ARRFUN, "operator %s may "
				  "not be applied to operand of type \"%s\"",
				  dt_tok_name(n->op), tname(&av->type, b1));
	}
	need_lvalue(k, l, n->op);
	if (n->op != T_ASSIGN)
		need_assigned(k, l);
	if (n->op == T_ASSIGN && sou_assign(k, n))
		return n->a->type;
	rt = check_expr(k, n->b);
	if (rt.kind == DT_TSTACK)
		dt_error(k->cc, &n->b->loc, "not supported: a stack in a "
			 "variable in this version (stacks are aggregation "
			 "keys)");
	if (rt.kind == DT_TSYM)
		dt_error(k->cc, &n->b->loc, "not supported: a symbol in a "
			 "variable in this version (print it, or use it as an "
			 "aggregation key)");
	if (n->op != T_ASSIGN)
		implicit_int(k, l, false);
	if (rt.kind == DT_TVOID && is_action_call(n->b))
		dt_cerror(k->cc, &n->b->loc, D_CG_EXPR, "tracing function %s( ) "
			  "may not be called from a D expression (D program "
			  "context required)", n->b->name);
	if (rt.kind == DT_TVOID)
		dt_error(k->cc, &n->b->loc, "the right side of '=' has no "
			 "value");
	if (is_deref(l) && rt.kind == DT_TSTR &&
	    dt_ptr_ref(&l->a->type).kind != DT_TSTR)
		dt_error(k->cc, &n->loc, "cannot assign a string through a "
			 "pointer (copy it with bcopy())");
	/* Create the variable at its first assignment. */
	if (n->op == T_ASSIGN && !is_deref(l) && !is_elem(l)) {
		enum dt_scope s = l->kind == N_SELF ? DT_SELF :
				  l->kind == N_THIS ? DT_THIS :
				  l->kind == N_INDEX ? DT_ARRAY : DT_GLOBAL;
		struct dt_var *v = NULL;

		if (l->kind == N_VAR) {
			for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
				if (!strcmp(builtins[i].name, l->name))
					dt_error(k->cc, &l->loc, "built-in "
						 "variable %s cannot be "
						 "modified", l->name);
			if (find_var(k->p, l->name, DT_ARRAY))
				dt_cerror(k->cc, &l->loc, D_IDENT_BADREF, "associative "
					 "array '%s' may not be referenced as scalar", l->name);
		}
		if (l->kind == N_INDEX && find_var(k->p, l->name, DT_GLOBAL))
			dt_cerror(k->cc, &l->loc, D_IDENT_BADREF, "scalar '%s' may "
				 "not be referenced as associative array", l->name);
		v = find_var(k->p, l->name, s);
		if (!v)
			v = new_var(k, l->name, s, &l->loc);
		if (!v->typed) {
			v->type = stored_type(k, rt);
			v->typed = true;
		}
		v->assigned = true;
		alloca_store(k, n, v, rt);
	}
	lt = check_expr(k, l);
	if (n->op == T_ASSIGN) {
		/* an integer into a pointer (but 0) or a pointer into an
		 * integer: DTrace's dt_node_is_argcompat refuses both */
		bool zero = n->b->kind == N_INT && n->b->ival == 0;

		if (!is_deref(l) && !zero && !lt.alloca && !rt.alloca &&
		    ((lt.kind == DT_TPTR && rt.kind == DT_TINT) ||
		     (lt.kind == DT_TINT && rt.kind == DT_TPTR && !lt.bits)))
			dt_cerror(k->cc, &n->loc, D_OP_INCOMPAT, "operands have "
				  "incompatible types: \"%s\" = \"%s\"",
				  tname(&lt, b1), tname(&rt, b2));
		/* char *p = s: the address of the string's bytes (a D string
		 * is a char array to DTrace) */
		if (lt.kind == DT_TPTR && rt.kind == DT_TSTR && lt.ref &&
		    lt.ref->kind == DT_TINT && lt.ref->size == 1) {
			struct dt_node *c = dt_alloc(&k->cc->arena,
						     sizeof(*c));

			c->kind = N_CAST;
			c->loc = n->b->loc;
			c->a = n->b;
			c->cast = lt;
			c->cast.alloca = false;
			n->b = c;
			rt = check_expr(k, c);
		}
		if (lt.kind == DT_TSTR && rt.kind != DT_TSTR && !is_deref(l) &&
		    (dt_node_is_null(n->b) || zero)) {
			/* string = NULL: DTrace's NULL string (cg.c) */
			n->b->type = str_type(k);
			n->b->type.ssize = 2;
			rt = n->b->type;
		}
		if (!is_deref(l) && (lt.kind == DT_TSTR) != (rt.kind == DT_TSTR))
			dt_cerror(k->cc, &n->loc, D_OP_INCOMPAT, "operands have "
				  "incompatible types: \"%s\" = \"%s\"",
				  tname(&lt, b1), tname(&rt, b2));
	} else {
		/* p += i moves a pointer of known pointee size; anything
		 * else with a pointer in it is DTrace's D_OP_VFPTR */
		if ((n->op == T_ADD_ASSIGN || n->op == T_SUB_ASSIGN) &&
		    (lt.kind == DT_TPTR || rt.kind == DT_TPTR) &&
		    (lt.kind != DT_TPTR ||
		     (lt.ref && lt.ref->kind == DT_TVOID)))
			dt_cerror(k->cc, &n->loc, D_OP_VFPTR, "operator %s "
				  "requires left-hand scalar operand of known "
				  "size", dt_tok_name(n->op));
		if (!dt_type_is_int(&lt) || !dt_type_is_int(&rt))
			op2_error(k, n, n->op, &lt, &rt);
	}
	return lt;
}

/* e[i] of an array of known size (a kernel array, a char array member of
 * a translated struct) with a constant index: DTrace's D_ARR_BOUNDS. */
static void check_bounds(struct dt_ck *k, struct dt_node *n)
{
	const struct dt_node *e = n->a;
	uint64_t nelems = 0;
	int64_t i;

	if (!const_eval(n->b, &i))
		return;
	if (e->kind == N_CAST && e->type.kind == DT_TSTR && e->a &&
	    e->a->kind == N_ADDR)
		e = e->a;	/* a char array read as a string (decay) */
	if (e->kind == N_ADDR && e->a && e->a->type.kind == DT_TARRAY)
		nelems = e->a->type.ct->nelems;
	else if (e->kind == N_MEMBER && e->type.kind == DT_TSTR && e->a &&
		 e->a->type.xlate)
		nelems = e->type.ssize;
	if (nelems && (i < 0 || (uint64_t)i >= nelems))
		dt_cerror(k->cc, &n->b->loc, D_ARR_BOUNDS, "index outside "
			  "array bounds: %lld, max is %llu", (long long)i,
			  (unsigned long long)nelems);
}

static struct dt_type check_binary(struct dt_ck *k, struct dt_node *n)
{
	char b1[80], b2[80];

	/* an aggregation has no value (DTrace: incompatible operands) */
	if (n->a->kind == N_AGG || n->b->kind == N_AGG) {
		struct dt_node *o = n->a->kind == N_AGG ? n->b : n->a;
		struct dt_type ot = o->kind == N_AGG ? dt_void :
				    check_expr(k, o);
		const char *on = o->kind == N_AGG ? "aggregation" :
				 tname(&ot, b2);

		dt_cerror(k->cc, &n->loc, D_OP_INCOMPAT, "operands have "
			  "incompatible types: \"%s\" %s \"%s\"",
			  n->a->kind == N_AGG ? "aggregation" : on,
			  dt_tok_name(n->op),
			  n->b->kind == N_AGG ? "aggregation" : on);
	}
	struct dt_type a = check_expr(k, n->a), b = check_expr(k, n->b);
	int64_t zero;

	if (n->subscript)
		check_bounds(k, n);

	/* DTrace folds the constant right operand first */
	if ((n->op == T_SLASH || n->op == T_PERCENT) &&
	    const_eval(n->b, &zero) && zero == 0)
		dt_cerror(k->cc, &n->loc, D_DIV_ZERO, "expression contains "
			  "division by zero");
	switch (n->op) {
	case T_EQ: case T_NE: case T_LT: case T_GT: case T_LE: case T_GE:
		if (a.kind == DT_TSTR && b.kind == DT_TSTR)
			return dt_int;
		if ((n->op == T_EQ || n->op == T_NE) &&
		    ((a.kind == DT_TSTR && dt_node_is_null(n->b)) ||
		     (b.kind == DT_TSTR && dt_node_is_null(n->a))))
			return dt_int;
		if (a.kind == DT_TSTR || b.kind == DT_TSTR)
			dt_error(k->cc, &n->loc, "operator %s cannot compare %s "
				 "with %s", dt_tok_name(n->op), tname(&a, b1),
				 tname(&b, b2));
		need_int(k, n, &a, dt_tok_name(n->op));
		need_int(k, n, &b, dt_tok_name(n->op));
		return dt_int;
	default:
		break;
	}
	bool str_a = a.kind == DT_TSTR && dt_type_is_int(&b) &&
		     b.kind != DT_TPTR && (n->op == T_PLUS || n->op == T_MINUS);
	bool str_b = b.kind == DT_TSTR && dt_type_is_int(&a) &&
		     a.kind != DT_TPTR && n->op == T_PLUS;

	if ((!dt_type_is_int(&a) || !dt_type_is_int(&b)) && !str_a && !str_b)
		op2_error(k, n, n->op, &a, &b);
	if (str_a || str_b)
		return str_offset(k, n, str_a);
	if ((n->op == T_PLUS || n->op == T_MINUS) &&
	    ((a.kind == DT_TPTR && a.ref && a.ref->kind == DT_TVOID) ||
	     (b.kind == DT_TPTR && b.ref && b.ref->kind == DT_TVOID)))
		dt_cerror(k->cc, &n->loc, D_OP_INCOMPAT, "operands have "
			  "incompatible types: \"%s\" %s \"%s\"", tname(&a, b1),
			  dt_tok_name(n->op), tname(&b, b2));
	if ((n->op == T_PLUS || n->op == T_MINUS) && a.kind == DT_TPTR &&
	    b.kind != DT_TPTR)
		return a;
	if (n->op == T_PLUS && b.kind == DT_TPTR && a.kind != DT_TPTR)
		return b;
	if (n->op == T_MINUS && a.kind == DT_TPTR && b.kind == DT_TPTR)
		return dt_long;
	if (n->op == T_SHL || n->op == T_SHR)
		return arith(a, a);	/* the left operand's type */
	struct dt_type t = arith(a, b);

	/* an address in alloca()'s memory moved by a number stays one */
	t.alloca = (n->op == T_PLUS || n->op == T_MINUS) &&
		   (a.alloca || b.alloca);
	return t;
}

static struct dt_type check_call(struct dt_ck *k, struct dt_node *n)
{
	const struct dt_func *f = dt_func_lookup(n->name);

	if (!f && !dt_proto(n->name))
		dt_cerror(k->cc, &n->loc, D_FUNC_UNDEF, "undefined function "
			  "name: %s", n->name);
	if (!f || !f->check) {
		/* the call is checked as DTrace checks it before refusing */
		dt_proto_check(k, n);
		dt_ck_clsflags(k, n, n->name);
		dt_error(k->cc, &n->loc, "not supported: %s() in this version",
			 n->name);
	}
	if (f->is_agg)
		dt_cerror(k->cc, &n->loc, D_CG_EXPR, "aggregating function "
			  "%s( ) may not be called from a D expression (D "
			  "program context required)", n->name);
	bool stray = f->is_action && n != k->action_node;
	if (!dt_proto_check(k, n) &&
	    (n->nargs < f->min_args || n->nargs > f->max_args)) {
		if (f->min_args == f->max_args)
			dt_cerror(k->cc, &n->loc, D_PROTO_LEN, "%s( ) prototype "
				  "mismatch: %d arg%spassed, %d expected",
				  n->name, n->nargs, n->nargs == 1 ? " " : "s ",
				  f->min_args);
		dt_cerror(k->cc, &n->loc, D_PROTO_LEN, "%s( ) prototype "
			  "mismatch: %d arg%spassed, %s%d expected", n->name,
			  n->nargs, n->nargs == 1 ? " " : "s ",
			  n->nargs < f->min_args ? "at least " : "at most ",
			  n->nargs < f->min_args ? f->min_args : f->max_args);
	}
	dt_ck_clsflags(k, n, n->name);
	n->fn = f;
	n->type = dt_void;
	if (stray) {
		/* an action as a value: refused once the statement is
		 * checked (DTrace's code generator refuses it), so that the
		 * operators' errors come first as in DTrace */
		if (!k->stray)
			k->stray = n;
		return dt_void;
	}
	f->check(k, n);
	return n->type;
}

/* An expression at the top of a statement or predicate. */
static struct dt_type check_top(struct dt_ck *k, struct dt_node *n)
{
	struct dt_type t;

	k->stray = NULL;
	t = check_expr(k, n);
	if (k->stray)
		dt_cerror(k->cc, &k->stray->loc, D_CG_EXPR, "tracing function "
			  "%s( ) may not be called from a D expression (D "
			  "program context required)", k->stray->name);
	return t;
}

static struct dt_type check_expr(struct dt_ck *k, struct dt_node *n)
{
	struct dt_type t, a, b;
	char b1[80], b2[80];

	switch (n->kind) {
	case N_INT:
		t = n->type;
		break;
	case N_STR:
		/* a constant holds strsize characters too, as DTrace cuts
		 * those in its string table */
		if (n->type.ssize > dt_str_bytes(k->p))
			n->type.ssize = (uint16_t)dt_str_bytes(k->p);
		t = n->type;
		break;
	case N_VAR:
		t = check_var(k, n);
		if (t.kind == DT_TARRAY && !k->whole_ok)
			return decay(k, n, t);
		if (!k->whole_ok)
			no_whole(k, n, &t);
		break;
	case N_SELF: case N_THIS:
		t = check_scoped(k, n);
		if (!k->whole_ok)
			no_whole(k, n, &t);
		break;
	case N_INDEX:
		resolve_part(k, n);
		if (n->kind != N_INDEX)
			return check_expr(k, n);
		t = is_elem(n) ? n->var->type.ct->elem : check_index(k, n);
		break;
	case N_MEMBER:
		t = check_member(k, n);
		if (n->kind == N_ADDR)
			return t;
		break;
	case N_ADDR:
		t = n->type;
		break;
	case N_XLATE:
		if (n->cast.kind == DT_TPTR && builtin_xlate(k, n))
			return check_expr(k, n);
		dt_error(k->cc, &n->loc, "not supported: a translated struct as "
			 "a whole value in this version (use its members: "
			 "xlate <T>(x).member)");
	case N_AGG:
		dt_error(k->cc, &n->loc, "aggregation %s has no value in an "
			 "expression (print it with printa())", n->name);
	case N_UNARY:
		if (n->op == T_STAR)
			return check_deref(k, n);
		if (n->op == T_AMP) {
			t = check_addrof(k, n);
			break;
		}
		a = check_expr(k, n->a);
		if (!dt_type_is_int(&a)) {
			/* DTrace's words (dt_cook_op1) */
			if (n->op == T_TILDE)
				dt_cerror(k->cc, &n->loc, D_OP_INT, "operator "
					  "%s requires an operand of integral "
					  "type", dt_tok_name(n->op));
			if (n->op == T_BANG)
				dt_cerror(k->cc, &n->loc, D_OP_SCALAR,
					  "operator %s requires an operand of "
					  "scalar type", dt_tok_name(n->op));
			dt_cerror(k->cc, &n->loc, D_OP_ARITH, "operator %s "
				  "requires an operand of arithmetic type",
				  dt_tok_name(n->op));
		}
		t = n->op == T_BANG ? dt_int : arith(a, a);
		if (t.kind == DT_TPTR && n->op != T_BANG)
			t = dt_ulong;
		break;
	case N_BINARY:
		if (n->op == T_COMMA) {
			check_expr(k, n->a);
			t = check_expr(k, n->b);
			break;
		}
		t = check_binary(k, n);
		break;
	case N_LOGICAL:
		a = check_expr(k, n->a);
		b = check_expr(k, n->b);
		if (!dt_type_is_int(&a) || !dt_type_is_int(&b))
			dt_cerror(k->cc, &n->loc, D_OP_SCALAR, "operator %s "
				  "requires operands of scalar type",
				  dt_tok_name(n->op));
		t = dt_int;
		break;
	case N_TERNARY:
		a = check_expr(k, n->a);
		if (!dt_type_is_int(&a))
			dt_cerror(k->cc, &n->loc, D_OP_SCALAR, "operator ?: "
				  "expression must be of scalar type");
		a = check_expr(k, n->b);
		b = check_expr(k, n->c);
		if (is_action_call(n->b) || is_action_call(n->c))
			dt_cerror(k->cc, &n->loc, D_OP_ACT, "action cannot be "
				  "used in a conditional context");
		if (a.kind == DT_TSTR && b.kind == DT_TSTR) {
			t = a;
			t.probe_str = false;
			if (b.ssize > t.ssize)
				t.ssize = b.ssize;
		} else if (dt_type_is_int(&a) && dt_type_is_int(&b)) {
			t = arith(a, b);
			t.alloca = a.alloca;	/* dtrace-utils' rule */
		} else {
			dt_error(k->cc, &n->loc, "the two sides of ?: differ: %s "
				 "and %s", tname(&a, b1), tname(&b, b2));
		}
		break;
	case N_ASSIGN:
		t = check_assign(k, n);
		break;
	case N_PREINC: case N_POSTINC:
		need_lvalue(k, n->a, n->op);
		implicit_int(k, n->a, true);
		a = check_expr(k, n->a);
		if (!dt_type_is_int(&a))
			dt_cerror(k->cc, &n->loc, D_OP_SCALAR, "operator %s "
				  "requires operand of scalar type",
				  dt_tok_name(n->op));
		t = a;
		break;
	case N_CAST:
		if (n->cast.kind == DT_TSOU) {
			/* (struct s)x of a struct s: x itself */
			bool w = k->whole_ok;

			k->whole_ok = true;
			a = check_expr(k, n->a);
			k->whole_ok = w;
			if (a.kind != DT_TSOU || a.ct != n->cast.ct)
				dt_cerror(k->cc, &n->loc, D_CAST_INVAL, "invalid "
					  "cast expression: \"%s\" to \"%s\"",
					  tname(&a, b1), tname(&n->cast, b2));
			*n = *n->a;
			return check_expr(k, n);
		}
		if (n->a->kind == N_XLATE && n->a->cast.kind == DT_TPTR &&
		    n->a->cast.xlate && n->cast.kind == DT_TPTR &&
		    n->cast.xlate == n->a->cast.xlate)
			builtin_xlate(k, n->a);	/* to its own type */
		if (n->a->kind == N_XLATE)
			dt_cerror(k->cc, &n->loc, D_CAST_INVAL, "invalid cast "
				  "expression: \"pointer to translated data\" to "
				  "\"%s\"", tname(&n->cast, b1));
		a = check_expr(k, n->a);
		t = n->cast;
		if (t.kind == DT_TSTR) {
			if (a.kind == DT_TPTR) {
				/* stringof(ptr): the string at ptr */
				t = str_type(k);
				break;
			}
			if (n->op == T_STRINGOF && (a.kind == DT_TVOID ||
						    a.kind == DT_TSOU))
				dt_cerror(k->cc, &n->loc, D_STRINGOF_TYPE,
					  "cannot apply stringof to a value of "
					  "type %s", tname(&a, b1));
			if (a.kind != DT_TSTR)
				dt_error(k->cc, &n->loc, "not supported: "
					 "converting %s to a string",
					 tname(&a, b1));
			t = a;
		} else if (t.kind == DT_TPTR && a.kind == DT_TSTR) {
			/* (char *)s: the address of the string's bytes */
		} else if (t.kind == DT_TVOID) {
			/* (void)expr: the value is dropped */
		} else if (!dt_type_is_int(&a)) {
			dt_error(k->cc, &n->loc, "cannot cast %s to %s",
				 tname(&a, b1), tname(&t, b2));
		}
		/* (char *)s, (long)p, (int *)(long)p: still alloca()'s
		 * memory */
		if (t.kind == DT_TPTR || t.kind == DT_TINT)
			t.alloca = a.alloca;
		break;
	case N_SIZEOF:
		if (n->a) {
			bool w = k->whole_ok;

			k->whole_ok = true;
			a = check_expr(k, n->a);
			k->whole_ok = w;
			if (a.bits)
				dt_cerror(k->cc, &n->loc, D_SIZEOF_BITFIELD,
					  "cannot apply sizeof to a bit-field");
			n->ival = a.kind == DT_TSTR ? k->p->opt.strsize :
				  dt_type_size(&a);
			/* as DTrace sizes constants: a string literal by its
			 * bytes, a character constant and NULL as ints */
			if (n->a->kind == N_STR)
				n->ival = strlen(n->a->sval) + 1;
			else if ((n->a->kind == N_INT && n->ival < 4) ||
				 dt_node_is_null(n->a))
				n->ival = 4;
		} else {
			n->ival = n->cast.kind == DT_TSTR ? k->p->opt.strsize :
				  dt_type_size(&n->cast);
		}
		if (!n->ival)
			dt_cerror(k->cc, &n->loc, D_SIZEOF_TYPE, "cannot apply "
				  "sizeof to an operand of unknown size");
		/* a constant from here on, as DTrace folds it (tracemem()'s
		 * size, array sizes) */
		n->kind = N_INT;
		n->a = NULL;
		t = dt_ulong;
		break;
	case N_CALL:
		t = check_call(k, n);
		break;
	default:
		dt_error(k->cc, &n->loc, "statement used as an expression");
	}
	n->type = t;
	return t;
}

/* ---- records ---- */

struct dt_action *dt_ck_action(struct dt_ck *k, enum dt_actkind kind,
			       struct dt_node *n)
{
	struct dt_clause *cl = k->cl;

	if ((size_t)cl->nacts + 1 > k->acts_cap) {
		size_t cap = k->acts_cap ? k->acts_cap * 2 : 8;
		struct dt_action *na = dt_alloc(&k->cc->arena,
						sizeof(*na) * cap);

		if (cl->nacts)
			memcpy(na, cl->acts, sizeof(*na) * cl->nacts);
		cl->acts = na;
		k->acts_cap = cap;
	}
	struct dt_action *a = &cl->acts[cl->nacts++];

	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->loc = n->loc;
	n->act = cl->nacts - 1;
	cl->emits = true;
	return a;
}

/* Reserve room in the record for e's value; returns its offset. */
int dt_ck_recval(struct dt_ck *k, struct dt_action *a, struct dt_node *e)
{
	struct dt_recval *nv = dt_alloc(&k->cc->arena, sizeof(*nv) *
					(a->nvals + 1));
	struct dt_key key = key_of(e);
	struct dt_recval *v;

	if (a->nvals)
		memcpy(nv, a->vals, sizeof(*nv) * a->nvals);
	a->vals = nv;
	v = &nv[a->nvals++];
	v->kind = key.kind;
	v->size = key.size;
	v->sign = key.sign;
	v->ssize = key.ssize;
	/* a string's record is strsize + 1 bytes whatever the string, as
	 * DTrace's (-x rawbytes shows them all) */
	if (key.kind == KEY_STR)
		v->ssize = (uint16_t)dt_str_bytes(k->p);
	v->which = key.which;
	v->off = k->rec_off;
	if (key.kind == KEY_INT || key.kind == KEY_STACK)
		k->rec_off += 8;
	else if (key.kind == KEY_SYM)
		k->rec_off += 16;
	else if (key.kind == KEY_STR || key.kind == KEY_BYTES)
		k->rec_off += (v->ssize + 7) & ~7;
	return v->off;
}

void dt_ck_fix_recval(struct dt_ck *k, struct dt_action *a, int i, int bytes)
{
	k->rec_off = a->vals[i].off + bytes;
}

/* ---- statements ---- */

/* An integer constant expression (negative numbers, simple arithmetic),
 * as aggregating functions' parameters need. */
static bool const_eval_in(struct dt_node *n, int64_t *out, bool checked)
{
	int64_t a, b;

	switch (n->kind) {
	case N_INT:
		*out = (int64_t)n->ival;
		return true;
	case N_SIZEOF:		/* its size is known once checked */
		*out = (int64_t)n->ival;
		return checked;
	case N_CAST:
		return const_eval_in(n->a, out, checked);
	case N_UNARY:
		if (!const_eval_in(n->a, &a, checked))
			return false;
		*out = n->op == T_MINUS ? -a : n->op == T_TILDE ? ~a :
		       n->op == T_BANG ? !a : a;
		return true;
	case N_BINARY:
		if (!const_eval_in(n->a, &a, checked) ||
		    !const_eval_in(n->b, &b, checked))
			return false;
		switch (n->op) {
		case T_PLUS: *out = a + b; return true;
		case T_MINUS: *out = a - b; return true;
		case T_STAR: *out = a * b; return true;
		case T_SHL: *out = (int64_t)((uint64_t)a << (b & 63));
			return true;
		case T_SLASH: if (!b) return false; *out = a / b; return true;
		default: return false;
		}
	default:
		return false;
	}
}

static bool const_eval(struct dt_node *n, int64_t *out)
{
	return const_eval_in(n, out, false);
}

bool dt_ck_const(struct dt_ck *k, struct dt_node *n, int64_t *out)
{
	check_expr(k, n);
	return const_eval_in(n, out, true);
}

/* lquantize(expr, lo, hi[, step[, incr]]), llquantize(expr, factor, low,
 * high, nsteps[, incr]): constant parameters, checked as DTrace does. */
/* lquantize(expr, base, limit[, step[, incr]]), llquantize(expr, factor,
 * lmag, hmag, steps[, incr]): constant parameters, checked as DTrace
 * checks them (dtrace-utils' dt_cg_agg_lquantize/llquantize), with its
 * tags and words. */
static void agg_params(struct dt_ck *k, struct dt_node *call,
		       const struct dt_func *f, int64_t q[4])
{
	struct dt_cc *cc = k->cc;
	int64_t a[4] = { 0, 0, 1, 0 };
	struct dt_node **arg = call->args;

	if (f->aggfn == AGG_LQUANTIZE) {
		int64_t lo, hi, step = 1, levels;

		if (!const_eval(arg[1], &lo))
			dt_cerror(cc, &arg[1]->loc, D_LQUANT_BASETYPE,
				  "lquantize( ) argument #1 must be an integer "
				  "constant");
		if (lo < INT32_MIN || lo > INT32_MAX)
			dt_cerror(cc, &arg[1]->loc, D_LQUANT_BASEVAL,
				  "lquantize( ) argument #1 must be a 32-bit "
				  "quantity");
		if (!const_eval(arg[2], &hi))
			dt_cerror(cc, &arg[2]->loc, D_LQUANT_LIMTYPE,
				  "lquantize( ) argument #2 must be an integer "
				  "constant");
		if (hi < INT32_MIN || hi > INT32_MAX)
			dt_cerror(cc, &arg[2]->loc, D_LQUANT_LIMVAL,
				  "lquantize( ) argument #2 must be a 32-bit "
				  "quantity");
		if (hi <= lo)
			dt_cerror(cc, &call->loc, D_LQUANT_MISMATCH,
				  "lquantize( ) base (argument #1) must be less "
				  "than limit (argument #2)");
		if (call->nargs >= 4) {
			if (!const_eval(arg[3], &step) || step <= 0)
				dt_cerror(cc, &arg[3]->loc, D_LQUANT_STEPTYPE,
					  "lquantize( ) argument #3 must be a "
					  "non-zero positive integer constant");
			if (step > UINT16_MAX)
				dt_cerror(cc, &arg[3]->loc, D_LQUANT_STEPVAL,
					  "lquantize( ) argument #3 must be a "
					  "16-bit quantity");
		}
		levels = (hi - lo) / step;
		if (levels == 0)
			dt_cerror(cc, &call->loc, D_LQUANT_STEPLARGE,
				  "lquantize( ) step (argument #3) too large: "
				  "must have at least one quantization level");
		if (levels > UINT16_MAX)
			dt_cerror(cc, &call->loc, D_LQUANT_STEPSMALL,
				  "lquantize( ) step (argument #3) too small: "
				  "number of quantization levels must be a "
				  "16-bit quantity");
		if (levels > 4000)
			dt_error(cc, &call->loc, "lquantize( ) has %lld levels; "
				 "a per-CPU BPF map value holds at most 4000 "
				 "(use a larger step)", (long long)levels);
		q[0] = lo;
		q[1] = hi;
		q[2] = step;
		q[3] = levels;
		return;
	}
	static const enum dt_errtag type_tag[] = { D_LLQUANT_FACTORTYPE,
		D_LLQUANT_LMAGTYPE, D_LLQUANT_HMAGTYPE, D_LLQUANT_STEPTYPE };

	for (int i = 0; i < 4; i++)
		if (!const_eval(arg[i + 1], &a[i]) || (i == 3 && a[i] <= 0))
			dt_cerror(cc, &arg[i + 1]->loc, type_tag[i],
				  "llquantize( ) argument #%d must be %s", i + 1,
				  i == 3 ? "a non-zero positive integer constant" :
				  "an integer constant");
	uint64_t factor = (uint64_t)a[0], lmag = (uint64_t)a[1],
		 hmag = (uint64_t)a[2], steps = (uint64_t)a[3];

	if (factor > UINT16_MAX || factor < 2)
		dt_cerror(cc, &arg[1]->loc, D_LLQUANT_FACTORVAL, "llquantize( ) "
			  "argument #1 must be an unsigned 16-bit quantity "
			  "greater than or equal to 2");
	if (lmag > UINT16_MAX)
		dt_cerror(cc, &arg[2]->loc, D_LLQUANT_LMAGVAL, "llquantize( ) "
			  "argument #2 must be an unsigned 16-bit quantity");
	if (hmag > UINT16_MAX)
		dt_cerror(cc, &arg[3]->loc, D_LLQUANT_HMAGVAL, "llquantize( ) "
			  "argument #3 must be an unsigned 16-bit quantity");
	if (hmag < lmag)
		dt_cerror(cc, &arg[3]->loc, D_LLQUANT_HMAGVAL, "llquantize( ) "
			  "argument #3 (high magnitude) must be at least "
			  "argument #2 (low magnitude)");
	unsigned __int128 pw = 1;

	for (uint64_t i = 0; i <= hmag && pw <= UINT64_MAX; i++)
		pw *= factor;
	if (pw > UINT64_MAX)
		dt_cerror(cc, &arg[3]->loc, D_LLQUANT_HMAGVAL, "llquantize( ) "
			  "argument #3 (high magnitude) will cause overflow of "
			  "64 bits");
	if (steps > UINT16_MAX)
		dt_cerror(cc, &arg[4]->loc, D_LLQUANT_STEPVAL, "llquantize( ) "
			  "argument #4 must be an unsigned 16-bit quantity");
	if (steps < factor && factor % steps)
		dt_cerror(cc, &arg[1]->loc, D_LLQUANT_STEPVAL, "llquantize() "
			  "argument #4 (steps) must evenly divide argument #1 "
			  "(factor) when steps<factor");
	if (steps > factor) {
		unsigned __int128 p1 = 1;

		if (steps % factor)
			dt_cerror(cc, &arg[1]->loc, D_LLQUANT_STEPVAL,
				  "llquantize() argument #4 (steps) must be a "
				  "multiple of argument #1 (factor) when "
				  "steps>factor");
		for (uint64_t i = 0; i <= lmag && p1 <= UINT64_MAX; i++)
			p1 *= factor;
		if (lmag == 0 && (factor * factor) % steps)
			dt_cerror(cc, &arg[1]->loc, D_LLQUANT_STEPVAL,
				  "llquantize() argument #4 (steps) must evenly "
				  "divide the square of argument #1 (factor) "
				  "when steps>factor and lmag==0");
		if (lmag > 0 && (uint64_t)(p1 % steps))
			dt_cerror(cc, &arg[1]->loc, D_LLQUANT_STEPVAL,
				  "llquantize() argument #4 (steps) must evenly "
				  "divide pow(argument #1 (factor), lmag "
				  "(argument #2) + 1) when steps>factor and "
				  "lmag>0");
	}
	const char *bad = dt_llquantize_check(a[0], a[1], a[2], a[3]);

	if (bad)
		dt_error(cc, &call->loc, "not supported: llquantize( ) %s in "
			 "this version", bad);
	if (dt_llquantize_nbuckets(a[0], a[1], a[2], a[3]) > 4000)
		dt_error(cc, &call->loc, "llquantize( ) has more than 4000 "
			 "buckets, more than a per-CPU BPF map value holds");
	memcpy(q, a, sizeof(a));
}

static void check_agg(struct dt_ck *k, struct dt_node *s)
{
	struct dt_node *lhs = s->a, *call = s->b;
	const struct dt_func *f = dt_func_lookup(call->name);
	struct dt_var *v;
	int64_t q[4] = { 0 };

	if (!f && !dt_proto(call->name))
		dt_cerror(k->cc, &call->loc, D_FUNC_UNDEF, "undefined function "
			  "name: %s", call->name);
	if (!f || !f->is_agg) {
		if (!f || f->check == NULL)
			dt_error(k->cc, &call->loc, "not supported: %s() in "
				 "this version", call->name);
		dt_cerror(k->cc, &call->loc, D_AGG_FUNC, "%s must be assigned "
			  "the result of an aggregating function", lhs->name);
	}
	if (!dt_proto_check(k, call) &&
	    (call->nargs < f->min_args || call->nargs > f->max_args))
		dt_cerror(k->cc, &call->loc, D_PROTO_LEN, "%s( ) prototype "
			  "mismatch: %d arg%spassed, %s%d expected", f->name,
			  call->nargs, call->nargs == 1 ? " " : "s ",
			  call->nargs < f->min_args ? "at least " : "at most ",
			  call->nargs < f->min_args ? f->min_args :
			  f->max_args);
	if (call->nargs > f->max_args)
		dt_cerror(k->cc, &call->loc, D_PROTO_LEN, "%s( ) prototype "
			  "mismatch: %d args passed, at most %d expected",
			  f->name, call->nargs, f->max_args);
	call->fn = f;
	for (int i = 0; i < call->nargs; i++) {
		struct dt_type t = check_expr(k, call->args[i]);

		if (!dt_type_is_int(&t) && i == 0)
			dt_cerror(k->cc, &call->loc, D_AGG_SCALAR, "%s( ) "
				  "argument #1 must be of scalar type",
				  f->name);
		if (!dt_type_is_int(&t))
			dt_cerror(k->cc, &call->loc, D_PROTO_ARG, "%s( ) "
				  "argument #%d is incompatible with "
				  "prototype:\n\tprototype: %s\n\t "
				  "argument: string", f->name, i + 1,
				  i + 1 == call->nargs && i > 0 ? "int64_t" :
				  "int32_t");
	}
	if (f->aggfn == AGG_LQUANTIZE || f->aggfn == AGG_LLQUANTIZE)
		agg_params(k, call, f, q);
	v = find_var(k->p, lhs->name, DT_AGGVAR);
	if (!v) {
		v = new_var(k, lhs->name, DT_AGGVAR, &lhs->loc);
		v->fn = f->aggfn;
		memcpy(v->qarg, q, sizeof(q));
		v->id = ++k->p->naggs;
		v->typed = true;
	} else if (v->fn != f->aggfn) {
		const struct dt_func *pf = NULL;

		for (const char *const *nm = (const char *const[]){
			     "count", "sum", "avg", "min", "max", "stddev",
			     "quantize", "lquantize", "llquantize", NULL }; *nm;
		     nm++)
			if (dt_func_lookup(*nm)->aggfn == v->fn)
				pf = dt_func_lookup(*nm);
		dt_cerror(k->cc, &call->loc, D_AGG_REDEF, "aggregation "
			  "redefined: %s\n\t current: %s = %s( )\n\tprevious: "
			  "%s = %s( ) : line %d", lhs->name, lhs->name, f->name,
			  lhs->name, pf ? pf->name : "?", v->loc.line);
	} else if (memcmp(v->qarg, q, sizeof(q))) {
		if (f->aggfn == AGG_LQUANTIZE && v->qarg[0] != q[0])
			dt_cerror(k->cc, &call->loc, D_LQUANT_MATCHBASE,
				  "lquantize( ) base (argument #1) doesn't match "
				  "previous declaration: expected %d, found %d",
				  (int)v->qarg[0], (int)q[0]);
		if (f->aggfn == AGG_LQUANTIZE &&
		    v->qarg[3] * v->qarg[2] != q[3] * q[2])
			dt_cerror(k->cc, &call->loc, D_LQUANT_MATCHLIM,
				  "lquantize( ) limit (argument #2) doesn't "
				  "match previous declaration: expected %d, "
				  "found %d", (int)(v->qarg[0] + v->qarg[3] *
						    v->qarg[2]),
				  (int)(q[0] + q[3] * q[2]));
		if (f->aggfn == AGG_LQUANTIZE)
			dt_cerror(k->cc, &call->loc, D_LQUANT_MATCHSTEP,
				  "lquantize( ) step (argument #3) doesn't "
				  "match previous declaration: expected %d, "
				  "found %d", (int)v->qarg[2], (int)q[2]);
		static const enum dt_errtag tag[] = { D_LLQUANT_MATCHFACTOR,
			D_LLQUANT_MATCHLMAG, D_LLQUANT_MATCHHMAG,
			D_LLQUANT_MATCHSTEPS };
		static const char *const what[] = { "factor (argument #1)",
			"lmag (argument #2)", "hmag (argument #3)",
			"steps (argument #4)" };

		for (int i = 0; i < 4; i++)
			if (v->qarg[i] != q[i])
				dt_cerror(k->cc, &call->loc, tag[i], "llquantize() "
					  "%s doesn't match previous declaration: "
					  "expected %d, found %d", what[i],
					  (int)v->qarg[i], (int)q[i]);
	}
	check_keys(k, v, lhs->args, lhs->nargs < 0 ? 0 : lhs->nargs,
		   &lhs->loc);
	lhs->var = v;
	dt_ck_clsflags(k, s, NULL);
}

static void check_stmts(struct dt_ck *k, struct dt_node *s);

/* The functions naming an address (sym(), ufunc(), uaddr() ...): DTrace
 * actions when they are a statement of their own. */
static bool is_symfn(const char *name)
{
	static const char *const fns[] = { "sym", "func", "mod", "usym",
					   "ufunc", "umod", "uaddr" };

	for (size_t i = 0; i < ARRAY_SIZE(fns); i++)
		if (!strcmp(name, fns[i]))
			return true;
	return false;
}

static void check_stmt(struct dt_ck *k, struct dt_node *s)
{
	struct dt_type t;

	s->action = ++k->action;
	switch (s->kind) {
	case S_EXPR:
		/* stack(); ustack(); ufunc(pc); ... alone: trace() them, as
		 * DTrace records them where the statement falls in the
		 * clause's output */
		if (s->a->kind == N_CALL && (!strcmp(s->a->name, "stack") ||
					     !strcmp(s->a->name, "ustack") ||
					     is_symfn(s->a->name))) {
			struct dt_node *tr = dt_alloc(&k->cc->arena,
						      sizeof(*tr));

			tr->kind = N_CALL;
			tr->loc = s->a->loc;
			tr->name = (char *)"trace";
			tr->args = dt_alloc(&k->cc->arena, sizeof(*tr->args));
			tr->args[0] = s->a;
			tr->nargs = 1;
			s->a = tr;
		}
		if (s->a->kind == N_CALL) {
			const struct dt_func *f = dt_func_lookup(s->a->name);

			if (f && f->is_action) {
				k->action_node = s->a;
				check_top(k, s->a);
				k->action_node = NULL;
				break;
			}
		}
		/* "@a;": DTrace's null effect, or an unknown name */
		if (s->a->kind == N_AGG) {
			if (find_var(k->p, s->a->name, DT_AGGVAR) ||
			    s->a->nargs > 0)
				dt_cerror(k->cc, &s->a->loc, D_AGG_NULL,
					  "expression has null effect: %s",
					  s->a->name);
			dt_cerror(k->cc, &s->a->loc, D_IDENT_UNDEF, "failed to "
				  "resolve %s: Unknown variable name",
				  s->a->name);
		}
		t = check_top(k, s->a);
		(void)t;
		break;
	case S_AGG:
		check_agg(k, s);
		break;
	case S_IF:
		t = check_top(k, s->a);
		if (!dt_type_is_int(&t))
			dt_error(k->cc, &s->a->loc, "if needs an integer "
				 "condition");
		check_stmt(k, s->b);
		if (s->c)
			check_stmt(k, s->c);
		break;
	case S_BLOCK:
		check_stmts(k, s->a);
		break;
	default:
		break;
	}
}

static void check_stmts(struct dt_ck *k, struct dt_node *s)
{
	for (; s; s = s->next)
		check_stmt(k, s);
}

/* Functions whose value is an action, called as expressions, are refused
 * in check_call through is_action; actions are fine as statements. */

static void layout_keys(struct dt_cc *cc, struct dt_prog *p)
{
	for (struct dt_var *v = p->vars; v; v = v->next) {
		if (v->scope != DT_ARRAY && v->scope != DT_AGGVAR)
			continue;
		int off = v->tls ? 8 : 0;	/* self->a[k]: the tid first */

		for (int i = 0; i < v->nkeys; i++) {
			struct dt_key *key = &v->keys[i];

			key->off = off;
			off += key->kind == KEY_STR || key->kind == KEY_BYTES ?
			       (key->ssize + 7) & ~7 :
			       key->kind == KEY_SYM ? 16 : 8;
		}
		v->key_size = off ? off : 8;
		if (v->key_size > 512)
			dt_error(cc, &v->loc, "the key of %s takes %d bytes; "
				 "BPF hash maps take at most 512 (lower "
				 "strsize, or use fewer strings in the key)",
				 v->name, v->key_size);
		if (v->scope == DT_ARRAY)
			v->val_size = v->type.kind == DT_TSTR ?
				      (int)((v->type.ssize + 7) & ~7) :
				      v->type.kind == DT_TSOU ?
				      (int)((dt_type_size(&v->type) + 7) &
					    ~7ull) : 8;
		else
			v->val_size = 8 * dt_agg_words(v);
	}
}

int dt_rodata_add(struct dt_prog *p, const void *data, size_t len)
{
	size_t n = (len + 7) & ~(size_t)7;
	int off = p->rodata_size;

	if ((size_t)off + n > (size_t)p->rodata_cap) {
		size_t cap = (size_t)p->rodata_cap;

		sd_grow(&p->rodata, &cap, off + n, 1);
		p->rodata_cap = (int)cap;
	}
	memset(p->rodata + off, 0, n);
	memcpy(p->rodata + off, data, len);
	p->rodata_size = off + (int)n;
	return off;
}

int dt_literal(struct dt_prog *p, const char *s, size_t ssize)
{
	size_t n = (ssize + 7) & ~(size_t)7, len = strnlen(s, ssize - 1);
	int off;

	/* Reuse an identical literal followed by enough zeros. */
	for (int o = 0; o + (int)n <= p->rodata_size; o += 8) {
		bool ok = !memcmp(p->rodata + o, s, len);

		for (size_t i = len; ok && i < n; i++)
			ok = p->rodata[o + i] == '\0';
		if (ok)
			return o;
	}
	off = p->rodata_size;
	if ((size_t)off + n > (size_t)p->rodata_cap) {
		size_t cap = (size_t)p->rodata_cap;

		sd_grow(&p->rodata, &cap, off + n, 1);
		p->rodata_cap = (int)cap;
	}
	memset(p->rodata + off, 0, n);
	memcpy(p->rodata + off, s, len);
	p->rodata_size = off + (int)n;
	return off;
}

static void literals(struct dt_prog *p, struct dt_node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_STR)
			n->lit_off = dt_literal(p, n->sval, n->type.ssize);
		literals(p, n->a);
		literals(p, n->b);
		literals(p, n->c);
		for (int i = 0; i < n->nargs; i++)
			literals(p, n->args[i]);
	}
}

/* ---- translators ---- */

/* What a translator's input stands for while its members are typed: an
 * object of its type (*(IN *)0 for a struct, so that its members can be
 * named). */
static struct dt_node *xl_placeholder(struct dt_ck *k, struct dt_xlator *x)
{
	struct dt_node *z = dt_alloc(&k->cc->arena, sizeof(*z));
	struct dt_node *c = dt_alloc(&k->cc->arena, sizeof(*c));

	z->kind = N_INT;
	z->loc = x->loc;
	z->type = dt_int;
	c->kind = N_CAST;
	c->loc = x->loc;
	c->a = z;
	c->cast = x->in;
	if (x->in.kind == DT_TSOU) {
		struct dt_node *d = dt_alloc(&k->cc->arena, sizeof(*d));

		c->cast = dt_ptr_type(k->cc, &x->in);
		d->kind = N_UNARY;
		d->op = T_STAR;
		d->loc = x->loc;
		d->a = c;
		return d;
	}
	return c;
}

static bool xl_compat(const struct dt_type *m, const struct dt_type *t)
{
	if (m->kind == DT_TINT || m->kind == DT_TFLOAT)
		return t->kind == DT_TINT;
	if (m->kind == DT_TPTR)
		return t->kind == DT_TPTR;
	if (m->kind == DT_TSTR)
		return t->kind == DT_TSTR ||
		       (t->kind == DT_TPTR && t->pointee == 1);
	if (m->kind == DT_TSOU)
		return t->kind == DT_TSOU && t->ct == m->ct;
	return false;
}

/* Each member's definition typed where the translator is defined. */
static void check_xlator(struct dt_ck *k, struct dt_xlator *x)
{
	char b1[80], b2[80];

	k->cl = NULL;
	k->cc->cur = x->loc.src;
	for (int i = 0; i < x->nmembers; i++) {
		struct dt_xlmember *m = &x->members[i];
		struct dt_node *e = dt_node_subst(k->cc, m->expr, x->in_name,
						  xl_placeholder(k, x));
		struct dt_type mt, t;

		dt_ctype_member(x->out.ct, m->name, NULL, &mt);
		t = check_top(k, e);
		if (!xl_compat(&mt, &t))
			dt_cerror(k->cc, &x->loc, D_XLATE_INCOMPAT, "translator "
				  "member %s definition uses incompatible types: "
				  "\"%s\" = \"%s\"", m->name, tname(&mt, b1),
				  tname(&t, b2));
	}
}

static bool xl_input_ok(const struct dt_type *in, const struct dt_type *t)
{
	if (in->kind == DT_TSOU)
		return t->kind == DT_TSOU && t->ct == in->ct;
	if (in->kind == DT_TPTR && in->ref && in->ref->kind == DT_TSOU)
		return t->kind == DT_TPTR && t->ref &&
		       t->ref->kind == DT_TSOU && t->ref->ct == in->ref->ct;
	if (in->kind == DT_TPTR)
		return t->kind == DT_TPTR;
	if (in->kind == DT_TINT)
		return t->kind == DT_TINT;
	return false;
}

/* xlate <T>(e).m, xlate <T *>(e)->m: member m's definition in the
 * translator from e's type to T, with e for its input, as T's member
 * type. n becomes that expression. */
/* xlate <psinfo_t *>(e), xlate <psinfo_t>(e): D's own translators take
 * a kernel pointer (a task_struct) and their members are computed from
 * it (xlate.c); x becomes the pointer cast to the translated type. */
static bool builtin_xlate(struct dt_ck *k, struct dt_node *x)
{
	struct dt_type out = x->cast, it;
	char b1[80];

	if (!out.xlate)
		return false;
	it = check_expr(k, x->a);
	if (it.kind != DT_TPTR && !dt_type_is_int(&it))
		dt_cerror(k->cc, &x->loc, D_XLATE_NONE, "cannot translate from "
			  "\"%s\" to \"%s\"", tname(&it, b1),
			  dt_xlate_name(out.xlate));
	x->kind = N_CAST;
	x->cast = (struct dt_type){ DT_TPTR, 8, false, 0, 8, false,
				    out.xlate };
	x->type = x->cast;
	return true;
}

static struct dt_type xlate_member(struct dt_ck *k, struct dt_node *n)
{
	if (builtin_xlate(k, n->a)) {
		n->op = T_ARROW;	/* .m of the struct is ->m */
		return check_expr(k, n);
	}

	struct dt_node *x = n->a, *in = dt_node_clone(k->cc, x->a), *e;
	struct dt_type out = x->cast, st = out, it, mt;
	struct dt_xlator *xl = NULL;
	bool w = k->whole_ok;
	char b1[80], b2[80];

	if (out.kind == DT_TPTR)
		st = dt_ptr_ref(&out);
	if (st.kind != DT_TSOU)
		dt_error(k->cc, &x->loc, "not supported: xlate to %s (only "
			 "to the structs and unions of the program's "
			 "translators)", tname(&out, b1));
	k->whole_ok = true;
	it = check_expr(k, x->a);
	k->whole_ok = w;
	for (struct dt_xlator *o = k->p->xlators; o && !xl; o = o->next)
		if (o->out.ct == st.ct && xl_input_ok(&o->in, &it))
			xl = o;
	if (!xl)
		dt_cerror(k->cc, &x->loc, D_XLATE_NONE, "cannot translate from "
			  "\"%s\" to \"%s\"", tname(&it, b1), tname(&st, b2));
	if (n->op == T_ARROW && out.kind != DT_TPTR)
		dt_cerror(k->cc, &n->loc, D_OP_PTR, "operator -> must be "
			  "applied to a pointer");
	if (n->op == T_DOT && out.kind == DT_TPTR)
		dt_cerror(k->cc, &n->loc, D_OP_SOU, "operator . cannot be "
			  "applied to type \"%s\"; must be applied to a struct "
			  "or union", tname(&out, b1));
	if (!dt_ctype_member(st.ct, n->name, NULL, &mt))
		dt_cerror(k->cc, &n->loc, D_TYPE_MEMBER, "%s is not a member "
			  "of %s", n->name, tname(&st, b1));
	for (int i = 0; i < xl->nmembers; i++) {
		if (strcmp(xl->members[i].name, n->name))
			continue;
		e = dt_node_subst(k->cc, xl->members[i].expr, xl->in_name, in);
		memset(n, 0, sizeof(*n));
		n->kind = N_CAST;
		n->loc = x->loc;
		n->cast = mt;
		n->a = e;
		return check_expr(k, n);
	}
	dt_cerror(k->cc, &n->loc, D_XLATE_NOCONV, "translator does not define "
		  "conversion for member: %s", n->name);
}

/* Each inline's definition, where it is defined. */
static void check_inlines(struct dt_ck *k)
{
	for (struct dt_inline *in = k->p->inlines; in; in = in->next) {
		struct dt_type t;
		char b1[80], b2[80];

		k->cl = NULL;
		k->cc->cur = in->loc.src;
		t = check_expr(k, in->expr);
		if ((in->type.kind == DT_TSTR) != (t.kind == DT_TSTR) ||
		    t.kind == DT_TVOID)
			dt_cerror(k->cc, &in->loc, D_OP_INCOMPAT, "inline %s "
				  "definition uses incompatible types: \"%s\" = "
				  "\"%s\"", in->name, tname(&in->type, b1),
				  tname(&t, b2));
	}
}

void dt_check_inlines(struct dt_cc *cc, struct dt_prog *p)
{
	struct dt_ck k = { .cc = cc, .p = p };

	check_inlines(&k);
}

/* Whether expression e assigns a variable (=, op=, ++, --). */
static bool assigns(const struct dt_node *e)
{
	if (!e)
		return false;
	if (e->kind == N_ASSIGN || e->kind == N_PREINC ||
	    e->kind == N_POSTINC)
		return true;
	if (assigns(e->a) || assigns(e->b) || assigns(e->c))
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (assigns(e->args[i]))
			return true;
	return false;
}

/* Whether statement list or expression s assigns the variable v (an
 * N_VAR, N_SELF, N_THIS or named N_INDEX). */
static bool assigns_var(const struct dt_node *s, const struct dt_node *v)
{
	for (; s; s = s->next) {
		if (s->kind == N_ASSIGN || s->kind == N_PREINC ||
		    s->kind == N_POSTINC) {
			const struct dt_node *t = s->a;

			if (t && t->name && t->kind == v->kind &&
			    !strcmp(t->name, v->name))
				return true;
		}
		if (assigns_var(s->a, v) || assigns_var(s->b, v) ||
		    assigns_var(s->c, v))
			return true;
		for (int i = 0; i < s->nargs; i++)
			if (assigns_var(s->args[i], v))
				return true;
	}
	return false;
}

/* Whether expression e reads a variable that statements body assign. */
static bool reads_assigned(const struct dt_node *e, const struct dt_node *body)
{
	if (!e)
		return false;
	if ((e->kind == N_VAR || e->kind == N_SELF || e->kind == N_THIS ||
	     e->kind == N_INDEX) && e->name && assigns_var(body, e))
		return true;
	if (reads_assigned(e->a, body) || reads_assigned(e->b, body) ||
	    reads_assigned(e->c, body))
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (reads_assigned(e->args[i], body))
			return true;
	return false;
}

static void check_pred(struct dt_ck *k, struct dt_clause *cl)
{
	struct dt_cc *cc = k->cc;

	if (!cl->pred)
		return;
	cc->region = "predicate";
	struct dt_type t = check_top(k, cl->pred);

	/* an array (which decayed to its address) is no scalar to DTrace */
	if ((!dt_type_is_int(&t) && t.kind != DT_TSTR &&
	     t.kind != DT_TSYM) ||
	    (cl->pred->kind == N_ADDR &&
	     cl->pred->a->type.kind == DT_TARRAY))
		dt_cerror(cc, cl->has_body ? &cl->end : &cl->pred->loc,
			  D_PRED_SCALAR, "predicate result must be of scalar "
			  "type");
}

void dt_check(struct dt_cc *cc, struct dt_prog *p)
{
	struct dt_ck k = { .cc = cc, .p = p };
	int goff = sizeof(struct dt_globals);	/* exit()'s flag and status */

	/* Declared variables keep their declared types. */
	for (struct dt_var *v = p->vars; v; v = v->next)
		if (v->typed && v->type.kind == DT_TSTR)
			v->type.ssize = (uint16_t)dt_str_bytes(p);
	check_inlines(&k);
	for (struct dt_xlator *x = p->xlators; x; x = x->next)
		check_xlator(&k, x);
	for (int i = 0; i < p->nclauses; i++) {
		struct dt_clause *cl = p->clauses[i];

		k.cl = cl;
		k.action = 0;
		k.acts_cap = 0;
		k.rec_off = sizeof(struct dt_rechdr);
		/* the actions first, then the predicate, as DTrace cooks a
		 * clause: a variable the actions assign types the predicate
		 * that reads it ("/x == 0/ { x++; }") */
		cc->cur = cl->loc.src;
		/* ... unless the predicate assigns: it runs first, so what
		 * it assigns types the actions ("/(this->a = epid) || 1/");
		 * and a predicate that reads nothing the actions assign is
		 * checked first, so its errors come first as in DTrace */
		bool pred_first = assigns(cl->pred) ||
				  !reads_assigned(cl->pred, cl->body);

		if (pred_first)
			check_pred(&k, cl);
		cc->region = "action list";
		check_stmts(&k, cl->body);
		if (!pred_first)
			check_pred(&k, cl);
		cc->region = NULL;
		if (!cl->body)
			cl->emits = true;	/* the default action */
		cl->rec_size = k.rec_off;
	}
	layout_keys(cc, p);
	for (struct dt_var *v = p->vars; v; v = v->next) {
		if (v->scope == DT_GLOBAL && v->base) {
			continue;	/* in its base's bytes (below) */
		} else if (v->scope == DT_GLOBAL) {
			int sz = v->type.kind == DT_TSTR ?
				 (v->type.ssize + 7) & ~7 :
				 v->type.kind == DT_TSOU ||
				 v->type.kind == DT_TARRAY ?
				 (int)((dt_type_size(&v->type) + 7) & ~7ull) : 8;

			v->off = goff;
			goff += sz;
		} else if (v->scope == DT_THIS && v->base) {
			continue;
		} else if (v->scope == DT_THIS) {
			int sz = v->type.kind == DT_TSTR ?
				 (v->type.ssize + 7) & ~7 :
				 v->type.kind == DT_TSOU ?
				 (int)((dt_type_size(&v->type) + 7) & ~7ull) : 8;

			v->off = p->this_size;
			p->this_size += sz;
		} else if (v->scope == DT_SELF) {
			v->val_size = v->type.kind == DT_TSTR ?
				      (v->type.ssize + 7) & ~7 :
				      v->type.kind == DT_TSOU ?
				      (int)((dt_type_size(&v->type) + 7) &
					    ~7ull) : 8;
		}
	}
	/* parts follow their bases in the list */
	for (struct dt_var *v = p->vars; v; v = v->next)
		if ((v->scope == DT_GLOBAL || v->scope == DT_THIS) && v->base)
			v->off = v->base->off + (int)v->off_in;
	if (p->uses_spec) {
		/* one "in use" word per speculation buffer */
		p->spec_off = goff;
		goff += 8 * (int)p->opt.nspec;
	}
	p->globals_size = goff;
	for (int i = 0; i < p->nclauses; i++) {
		literals(p, p->clauses[i]->pred);
		literals(p, p->clauses[i]->body);
	}
	p->empty_off = dt_literal(p, "", dt_str_bytes(p) > DT_PROBESTR_SIZE ?
				  dt_str_bytes(p) : DT_PROBESTR_SIZE);
	{
		size_t n = (size_t)(dt_str_bytes(p) > DT_PROBESTR_SIZE ?
				    dt_str_bytes(p) : DT_PROBESTR_SIZE);
		uint8_t *null = sd_calloc(1, n);

		null[0] = DT_NULL_STRING & 0xff;
		null[1] = DT_NULL_STRING >> 8;
		p->null_off = dt_rodata_add(p, null, n);
		free(null);
	}
	/* A new aggregation value larger than the scratch area's zeros
	 * starts as these. */
	int zeros = sizeof(((struct dt_scratch *)0)->zero);

	p->zero_off = -1;
	for (struct dt_var *v = p->vars; v; v = v->next)
		if (v->scope == DT_AGGVAR && v->val_size > zeros)
			zeros = v->val_size;
	if (zeros > (int)sizeof(((struct dt_scratch *)0)->zero)) {
		void *z = calloc(1, (size_t)zeros);

		p->zero_off = dt_rodata_add(p, z, (size_t)zeros);
		free(z);
	}
}

struct dt_type dt_ck_expr(struct dt_ck *k, struct dt_node *n)
{
	return check_expr(k, n);
}

struct dt_type dt_ck_expr_whole(struct dt_ck *k, struct dt_node *n)
{
	bool w = k->whole_ok;
	struct dt_type t;

	/* only a name, an element, a member or *p is an object kept
	 * whole: the operands of an operator decay as usual */
	k->whole_ok = n->kind == N_VAR || n->kind == N_SELF ||
		      n->kind == N_THIS || n->kind == N_INDEX ||
		      n->kind == N_MEMBER ||
		      (n->kind == N_UNARY && n->op == T_STAR);
	t = check_expr(k, n);
	k->whole_ok = w;
	return t;
}

struct dt_cc *dt_ck_cc(struct dt_ck *k)
{
	return k->cc;
}

struct dt_prog *dt_ck_prog(struct dt_ck *k)
{
	return k->p;
}

struct dt_clause *dt_ck_clause(struct dt_ck *k)
{
	return k->cl;
}

struct dt_var *dt_ck_find(struct dt_ck *k, const char *name,
			  enum dt_scope scope)
{
	return find_var(k->p, name, scope);
}
