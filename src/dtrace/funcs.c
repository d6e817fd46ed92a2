// SPDX-License-Identifier: GPL-2.0-only
/* funcs — D's functions and actions, each a row with its own type check
 * and code generator (as ply's built-ins supply their own hooks): adding
 * one touches this file only. Aggregating functions share the code in
 * cg.c; data actions reserve room in their clause's record, which the
 * consumer decodes with the layout kept in struct dt_action. */
#include "cg.h"
#include "cg_net.h"
#include "cg_str.h"
#include "fmt.h"
#include "btf.h"
#include "../lib/util.h"

#include <string.h>

static void check_agg_dummy(struct dt_ck *k, struct dt_node *n)
{
	(void)k;
	(void)n;
}

/* ---- printf ---- */

static struct dt_type strsize_type(struct dt_ck *k);

/* stringof(e), for an e already checked. */
static struct dt_node *stringof_node(struct dt_ck *k, struct dt_node *e)
{
	struct dt_node *c = dt_alloc(&dt_ck_cc(k)->arena, sizeof(*c));

	c->kind = N_CAST;
	c->loc = e->loc;
	c->a = e;
	c->cast.kind = DT_TSTR;
	c->type = strsize_type(k);
	return c;
}

/* The type of an argument where DTrace wants a value, named as DTrace
 * names it: an aggregation, an action's or aggregating function's void,
 * else the expression's type. */
static const char *value_type_name(struct dt_ck *k, struct dt_node *e,
				   char *b, size_t len)
{
	const struct dt_func *f = e->kind == N_CALL ?
				  dt_func_lookup(e->name) : NULL;
	struct dt_type t;

	if (e->kind == N_AGG)
		return "aggregation";
	if (f && (f->is_action || f->is_agg))
		return "void";
	t = dt_ck_expr(k, e);
	return dt_type_name(&t, b, len);
}

/* What a conversion takes, as dtrace-utils' prototype strings say. */
static const char *conv_proto(const struct dt_conv *c)
{
	static const struct { const char *name, *proto; } named[] = {
		{ "hd", "short" }, { "hi", "short" }, { "ho", "unsigned short" },
		{ "hu", "unsigned short" }, { "hx", "short" }, { "hX", "short" },
		{ "lc", "int" }, { "wc", "int" }, { "ld", "long" },
		{ "li", "long" }, { "lo", "unsigned long" },
		{ "lu", "unsigned long" }, { "lx", "long" }, { "lX", "long" },
		{ "lld", "long long" }, { "lli", "long long" },
		{ "llo", "unsigned long long" }, { "llu", "unsigned long long" },
		{ "llx", "long long" }, { "llX", "long long" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(named); i++)
		if (!strcmp(named[i].name, c->name))
			return named[i].proto;
	switch (c->conv) {
	case 'c': case 'C': return "char, short, or int";
	case 'a': case 'p': return "pointer or integer";
	case 'A': return "pointer or integer (with -p/-c) or _usymaddr "
			 "(without -p/-c)";
	case 's': case 'S': return "char [] or string (or use stringof)";
	case 'k': return "stack";
	case 'Y': case 'T': return "int64_t";
	case 'e': case 'E': case 'f': case 'g': case 'G':
		return c->name[0] == 'L' ? "long double" :
		       "float, double, or long double";
	default: return "char, short, int, long, or long long";
	}
}

/* An argument's type as DTrace names it in a prototype error. */
static const char *arg_type_name(struct dt_node *e, const struct dt_type *t,
				 char *b, size_t len)
{
	if (e->kind == N_AGG)
		return "aggregation";
	return dt_type_name(t, b, len);
}

/* printf(fmt, ...), checked as dtrace-utils' dt_printf_validate: its
 * tags and words, the arguments counted from the format (#1). */
static void check_printf(struct dt_ck *k, struct dt_node *n)
{
	struct dt_cc *cc = dt_ck_cc(k);
	struct dt_fmt fmt;
	char err[256], b[32];
	struct dt_action *a;
	int argi = 1;
	const char *fn = n->name;

	if (n->args[0]->kind != N_STR) {
		struct dt_type t = dt_ck_expr(k, n->args[0]);

		dt_cerror(cc, &n->loc, D_PRINTF_ARG_FMT, "%s( ) argument #1 is "
			  "incompatible with prototype:\n\tprototype: string "
			  "constant\n\t argument: %s", fn,
			  dt_type_name(&t, b, sizeof(b)));
	}
	if (!n->args[0]->sval[0])
		dt_cerror(cc, &n->loc, D_PRINTF_FMT_EMPTY, "%s( ) format string "
			  "is empty", fn);
	if (dt_fmt_parse(n->args[0]->sval, &fmt, err, sizeof(err))) {
		/* DTrace cooks the arguments before it reads the format:
		 * their errors come first */
		for (int i = 1; i < n->nargs; i++)
			dt_ck_expr(k, n->args[i]);
		dt_cerror(cc, &n->loc, strncmp(err, "not supported", 13) ?
			  D_SYNTAX : D_UNKNOWN, "%s", err);
	}
	/* The conversions move to the arena: errors below unwind. */
	int nconv = fmt.n;
	struct dt_conv *convs = dt_alloc(&cc->arena, sizeof(*convs) * nconv);

	memcpy(convs, fmt.convs, sizeof(*convs) * nconv);
	dt_fmt_free(&fmt);
	a = dt_ck_action(k, !strcmp(fn, "system") ? ACT_SYSTEM :
			 !strcmp(fn, "freopen") ? ACT_FREOPEN : ACT_PRINTF, n);
	a->fmt = n->args[0]->sval;
	for (int i = 0; i < nconv; i++) {
		struct dt_conv *c = &convs[i];
		/* the '*' arguments: the width's, then the precision's */
		const char *dyns[2];
		int ndyn = 0;

		if (!c->conv)
			continue;
		if (c->width == -2)
			dyns[ndyn++] = "*";
		if (c->prec == -2)
			dyns[ndyn++] = ".*";
		for (int j = 0; j < ndyn; j++, argi++) {
			if (argi >= n->nargs)
				dt_cerror(cc, &n->loc, D_PRINTF_DYN_PROTO, "%s( ) "
					  "prototype mismatch: conversion #%d "
					  "(%%%s) is missing a corresponding "
					  "\"%s\" argument", fn, c->num,
					  c->name, dyns[j]);
			struct dt_node *e = n->args[argi];
			struct dt_type t = dt_ck_expr(k, e);

			if (!dt_type_is_int(&t))
				dt_cerror(cc, &n->loc, D_PRINTF_DYN_TYPE, "%s( ) "
					  "argument #%d is incompatible with "
					  "conversion #%d prototype:\n\t"
					  "conversion: %% %s %s\n\t prototype: "
					  "int\n\t  argument: %s", fn, argi + 1,
					  c->num, dyns[j], c->name,
					  arg_type_name(e, &t, b, sizeof(b)));
			dt_ck_recval(k, a, e);
		}
		if (c->agg)
			dt_cerror(cc, &n->loc, D_PRINTF_AGG_CONV, "%%@ conversion "
				  "requires an aggregation and is not for use "
				  "with %s( )", fn);
		if (argi >= n->nargs)
			dt_cerror(cc, &n->loc, D_PRINTF_ARG_PROTO, "%s( ) "
				  "prototype mismatch: conversion #%d (%%%s) is "
				  "missing a corresponding value argument", fn,
				  c->num, c->name);
		struct dt_node *e = n->args[argi];
		struct dt_type t = e->kind == N_AGG ? dt_void : dt_ck_expr(k, e);
		enum dt_fmt_arg want = dt_fmt_wants(c->conv);

		/* %s of a char *: the string there, as stringof() */
		if (want == FMT_STR && t.kind == DT_TPTR && t.pointee == 1 &&
		    !t.xlate) {
			e = stringof_node(k, e);
			n->args[argi] = e;
			t = e->type;
		}
		if (e->kind == N_AGG ||
		    (want == FMT_INT && !dt_type_is_int(&t)) ||
		    (want == FMT_STR && t.kind != DT_TSTR &&
		     t.kind != DT_TSYM) ||
		    (want == FMT_STACK && t.kind != DT_TSTACK) ||
		    (want == FMT_FLOAT && (t.kind != DT_TFLOAT ||
					   (c->name[0] == 'L' && t.size <= 8))))
			dt_cerror(cc, &n->loc, D_PRINTF_ARG_TYPE, "%s( ) argument "
				  "#%d is incompatible with conversion #%d "
				  "prototype:\n\tconversion: %%%s\n\t prototype: "
				  "%s\n\t  argument: %s", fn, argi + 1, c->num,
				  c->name, conv_proto(c),
				  arg_type_name(e, &t, b, sizeof(b)));
		if (want == FMT_FLOAT && t.size > 8)
			dt_error(cc, &e->loc, "not supported: printing a long "
				 "double in this version");
		dt_ck_recval(k, a, e);
		/* %a, %A: the address, named by the consumer */
		if (c->conv == 'a' || c->conv == 'A') {
			struct dt_recval *v = &a->vals[a->nvals - 1];

			v->kind = KEY_SYM;
			v->which = c->conv == 'a' ? DT_SYM_ADDR : DT_SYM_UADDR;
			dt_ck_fix_recval(k, a, a->nvals - 1, 16);
		}
		argi++;
	}
	if (argi < n->nargs)
		dt_cerror(cc, &n->loc, D_PRINTF_ARG_EXTRA, "%s( ) prototype "
			  "mismatch: only %d arguments required by this format "
			  "string", fn, argi - 1);
}

/* Store the arguments of a data action into the record. */
static void store_vals(struct dt_cg *g, struct dt_action *a,
		       struct dt_node **args, int nargs)
{
	for (int i = 0; i < nargs && i < a->nvals; i++) {
		struct dt_recval *v = &a->vals[i];
		struct dt_key k = { .kind = v->kind, .size = v->size,
				    .sign = v->sign, .ssize = v->ssize,
				    .which = v->which };

		if (v->kind == KEY_PROBESTR)
			continue;	/* the header's probe id says it */
		dt_cg_store_val(g, args[i], DT_SCRATCH_REG,
				g->rec_base + v->off, &k);
	}
}

static struct dt_action *act_of(struct dt_cg *g, struct dt_node *n)
{
	return &g->cl->acts[n->act];
}

static int cg_printf(struct dt_cg *g, struct dt_node *n)
{
	store_vals(g, act_of(g, n), n->args + 1, n->nargs - 1);
	return -1;
}

/* ---- trace, exit ---- */

static void check_trace(struct dt_ck *k, struct dt_node *n)
{
	struct dt_type t;
	struct dt_action *a;

	if (n->args[0]->kind == N_AGG)
		dt_cerror(dt_ck_cc(k), &n->args[0]->loc, D_TRACE_DYN, "trace( ) "
			  "may not be applied to a dynamic expression");
	/* a struct, union or array is traced whole: its bytes, printed as
	 * tracemem() prints them (dtrace-utils' dt_print_trace) */
	t = dt_ck_expr_whole(k, n->args[0]);
	if (t.kind == DT_TVOID)
		dt_cerror(dt_ck_cc(k), &n->args[0]->loc, D_TRACE_VOID, "trace( ) "
			  "may not be applied to a void expression");
	a = dt_ck_action(k, ACT_TRACE, n);
	dt_ck_recval(k, a, n->args[0]);
}

static int cg_trace(struct dt_cg *g, struct dt_node *n)
{
	store_vals(g, act_of(g, n), n->args, 1);
	return -1;
}

static void check_exit(struct dt_ck *k, struct dt_node *n)
{
	struct dt_type t = dt_ck_expr(k, n->args[0]);
	struct dt_action *a;

	if (!dt_type_is_int(&t))
		dt_error(dt_ck_cc(k), &n->args[0]->loc, "exit() needs an "
			 "integer status");
	a = dt_ck_action(k, ACT_EXIT, n);
	dt_ck_recval(k, a, n->args[0]);
	a->vals[0].size = 4;
	a->vals[0].sign = true;
}

static int cg_exit(struct dt_cg *g, struct dt_node *n)
{
	struct dt_action *a = act_of(g, n);
	int r, v;

	store_vals(g, a, n->args, 1);
	/* No new probe firings after this one (END still runs); the flag
	 * and the status also reach the consumer when the record cannot. */
	r = dt_reg(g);
	dt_ld_map_value(g, r, DT_MAP_GLOBALS, 0);
	v = dt_reg(g);
	dt_emit(g, I_LDX(BPF_DW, v, DT_SCRATCH_REG, g->rec_base +
			 a->vals[0].off));
	dt_emit(g, I_STX(BPF_DW, r, v, offsetof(struct dt_globals, status)));
	dt_reg_free(g, v);
	dt_emit(g, I_ST(BPF_DW, r, offsetof(struct dt_globals, exited), 1));
	dt_reg_free(g, r);
	return -1;
}

/* ---- printa ---- */

/* A key's type, named for printa()'s errors. */
static const char *key_type_name(const struct dt_key *key)
{
	switch (key->kind) {
	case KEY_INT:
		switch (key->size) {
		case 1: return key->sign ? "char" : "uint8_t";
		case 2: return key->sign ? "short" : "uint16_t";
		case 4: return key->sign ? "int" : "uint32_t";
		default: return key->sign ? "int64_t" : "uint64_t";
		}
	case KEY_STACK: return "stack";
	case KEY_SYM: return "_symaddr";
	default: return "string";
	}
}

static bool key_printable(const struct dt_key *key, char conv)
{
	enum dt_fmt_arg want = dt_fmt_wants(conv);

	/* %s prints a stack's frames too, %k only a stack */
	if (want == FMT_STACK)
		return key->kind == KEY_STACK;
	return (want == FMT_STR) == (key->kind != KEY_INT);
}

/* printa([fmt,] @a[, @b...]), checked as dtrace-utils' dt_cg_act_printa
 * and dt_printf_validate (the keys are the format's arguments, from #2),
 * with their tags and words. */
static void check_printa(struct dt_ck *k, struct dt_node *n)
{
	struct dt_cc *cc = dt_ck_cc(k);
	bool has_fmt = n->nargs > 0 && n->args[0]->kind == N_STR;
	int argr = has_fmt ? 2 : 1;
	struct dt_var *v = NULL;
	struct dt_action *a;
	char b[32];

	if (n->nargs < argr)
		dt_cerror(cc, &n->loc, D_PRINTA_PROTO, "%s( ) prototype "
			  "mismatch: %d args passed, %d expected", n->name,
			  n->nargs, argr);
	for (int i = argr - 1; i < n->nargs; i++) {
		struct dt_node *agg = n->args[i];
		struct dt_var *w;

		if (agg->kind != N_AGG || agg->nargs > 0)
			dt_cerror(cc, &n->loc, D_PRINTA_AGGARG, "%s( ) argument "
				  "#%d is incompatible with prototype:\n\t"
				  "prototype: aggregation\n\t argument: %s",
				  n->name, i + 1, value_type_name(k, agg, b,
								  sizeof(b)));
		w = dt_ck_find(k, agg->name, DT_AGGVAR);
		if (!w)
			dt_cerror(cc, &n->loc, D_PRINTA_AGGBAD, "undefined "
				  "aggregation: %s", agg->name);
		agg->var = w;
		if (!v) {
			v = w;
			continue;
		}
		/* several aggregations: their keys must match */
		if (w->nkeys != v->nkeys)
			dt_cerror(cc, &n->loc, D_PRINTA_AGGKEY, "printa( ): %s "
				  "and %s do not have matching key signatures: "
				  "%s has %d key%s, %s has %d key%s", v->name,
				  w->name, v->name, v->nkeys, v->nkeys == 1 ?
				  "" : "s", w->name, w->nkeys, w->nkeys == 1 ?
				  "" : "s");
		for (int j = 0; j < v->nkeys; j++)
			if ((v->keys[j].kind == KEY_INT) !=
			    (w->keys[j].kind == KEY_INT) ||
			    (v->keys[j].kind == KEY_STACK) !=
			    (w->keys[j].kind == KEY_STACK))
				dt_cerror(cc, &n->loc, D_PRINTA_AGGPROTO,
					  "printa( ): %s[ ] key #%d is "
					  "incompatible with %s:\n%9s key #%d: "
					  "%s\n%9s key #%d: %s", w->name, j + 1,
					  v->name, v->name + (v->name[0] == '@'),
					  j + 1, key_type_name(&v->keys[j]),
					  w->name + (w->name[0] == '@'), j + 1,
					  key_type_name(&w->keys[j]));
	}
	a = dt_ck_action(k, ACT_PRINTA, n);
	a->agg = v;
	a->naggs = n->nargs - argr + 1;
	a->aggs = dt_alloc(&cc->arena, sizeof(*a->aggs) * (size_t)a->naggs);
	for (int i = 0; i < a->naggs; i++)
		a->aggs[i] = n->args[argr - 1 + i]->var;
	if (!has_fmt)
		return;

	struct dt_fmt fmt;
	char err[256];
	int key = 0, aggs = 0;

	if (!n->args[0]->sval[0])
		dt_cerror(cc, &n->loc, D_PRINTF_FMT_EMPTY, "%s( ) format string "
			  "is empty", n->name);
	if (dt_fmt_parse(n->args[0]->sval, &fmt, err, sizeof(err)))
		dt_cerror(cc, &n->loc, strncmp(err, "not supported", 13) ?
			  D_SYNTAX : D_UNKNOWN, "%s", err);
	/* the conversions to the arena: the errors below unwind */
	int nconv = fmt.n;
	struct dt_conv *convs = dt_alloc(&cc->arena, sizeof(*convs) * nconv);

	memcpy(convs, fmt.convs, sizeof(*convs) * nconv);
	dt_fmt_free(&fmt);
	for (int i = 0; i < nconv; i++) {
		const struct dt_conv *c = &convs[i];

		if (!c->conv)
			continue;
		/* a '*' width or precision takes the next key */
		key += (c->width == -2) + (c->prec == -2);
		if (c->agg) {
			/* the nth %@ is the nth aggregation's (the last's
			 * once they run out) */
			const struct dt_var *av = a->aggs[aggs < a->naggs ?
							  aggs : a->naggs - 1];

			aggs++;
			if (dt_fmt_wants(c->conv) != FMT_INT)
				dt_cerror(cc, &n->loc, D_PRINTF_ARG_TYPE, "%s( ) "
					  "aggregating action is incompatible "
					  "with conversion #%d prototype:\n\t"
					  "conversion: %%%s\n\t prototype: %s\n"
					  "\t  argument: %s", n->name, c->num,
					  c->name, conv_proto(c),
					  av->fn == AGG_COUNT ? "uint64_t" :
					  "int64_t");
			continue;
		}
		if (key >= v->nkeys)
			dt_cerror(cc, &n->loc, D_PRINTF_ARG_PROTO, "%s( ) "
				  "prototype mismatch: conversion #%d (%%%s) is "
				  "missing a corresponding value argument",
				  n->name, c->num, c->name);
		if (!key_printable(&v->keys[key], c->conv))
			dt_cerror(cc, &n->loc, D_PRINTF_ARG_TYPE, "%s( ) argument "
				  "#%d is incompatible with conversion #%d "
				  "prototype:\n\tconversion: %%%s\n\t prototype: "
				  "%s\n\t  argument: %s", n->name, key + 2,
				  c->num, c->name, conv_proto(c),
				  key_type_name(&v->keys[key]));
		key++;
	}
	a->fmt = n->args[0]->sval;
}

static int cg_nothing(struct dt_cg *g, struct dt_node *n)
{
	(void)g;
	(void)n;
	return -1;
}

/* ---- trunc, clear, normalize, denormalize ---- */

/* The aggregation named by an action's first argument. */
static struct dt_var *agg_arg(struct dt_ck *k, struct dt_node *n)
{
	struct dt_cc *cc = dt_ck_cc(k);
	struct dt_node *agg = n->args[0];
	struct dt_var *v;

	if (agg->kind != N_AGG || agg->nargs > 0) {
		char b[32];

		dt_cerror(cc, &n->loc, !strcmp(n->name, "clear") ?
			  D_CLEAR_AGGARG : !strcmp(n->name, "trunc") ?
			  D_TRUNC_AGGARG : D_NORMALIZE_AGGARG, "%s( ) argument "
			  "#1 is incompatible with prototype:\n\tprototype: "
			  "aggregation\n\t argument: %s", n->name,
			  value_type_name(k, agg, b, sizeof(b)));
	}
	v = dt_ck_find(k, agg->name, DT_AGGVAR);
	if (!v)
		dt_cerror(cc, &n->loc, D_PRINTA_AGGBAD, "undefined "
			  "aggregation: %s", agg->name);
	agg->var = v;
	return v;
}

static void check_aggact(struct dt_ck *k, struct dt_node *n)
{
	struct dt_var *v = agg_arg(k, n);
	enum dt_actkind kind = !strcmp(n->name, "trunc") ? ACT_TRUNC :
			       !strcmp(n->name, "clear") ? ACT_CLEAR :
			       !strcmp(n->name, "normalize") ? ACT_NORMALIZE :
			       ACT_DENORMALIZE;
	struct dt_action *a;

	if (n->nargs == 2) {
		struct dt_type t = dt_ck_expr(k, n->args[1]);

		if (!dt_type_is_int(&t))
			dt_error(dt_ck_cc(k), &n->args[1]->loc, "%s() needs "
				 "an integer as its second argument", n->name);
	}
	a = dt_ck_action(k, kind, n);
	a->agg = v;
	if (n->nargs == 2)
		dt_ck_recval(k, a, n->args[1]);
}

static int cg_aggact(struct dt_cg *g, struct dt_node *n)
{
	if (n->nargs == 2)
		store_vals(g, act_of(g, n), n->args + 1, 1);
	return -1;
}

/* ---- destructive actions: raise, stop, system, chill ---- */

/* Refused when tracing is enabled, as dtrace(1) does (dtrace.c): a
 * "#pragma D option destructive" may come later in the program. */
static void need_destructive(struct dt_ck *k, struct dt_node *n)
{
	(void)n;
	dt_ck_prog(k)->uses_destructive = true;
}

static void check_signal_act(struct dt_ck *k, struct dt_node *n)
{
	need_destructive(k, n);
	/* a data-recording action for DTrace (dt_cg_clsflags): the clause
	 * writes its record, and the probe line prints without -q */
	dt_ck_clause(k)->emits = true;
	if (n->nargs) {
		struct dt_type t = dt_ck_expr(k, n->args[0]);

		if (!dt_type_is_int(&t))
			dt_error(dt_ck_cc(k), &n->args[0]->loc, "%s() needs an "
				 "integer", n->name);
	}
}

/* raise(sig) and stop() signal the process that fired the probe, there
 * and then (bpf_send_signal). */
static int cg_signal_act(struct dt_cg *g, struct dt_node *n)
{
	int sig = -1;

	if (n->nargs)
		sig = dt_cg_expr(g, n->args[0]);
	dt_call_begin(g);
	if (sig >= 0)
		dt_call_arg(g, BPF_REG_1, sig);
	else
		dt_emit(g, I_MOV_IMM(BPF_REG_1, 19));	/* SIGSTOP */
	dt_call(g, BPF_FUNC_send_signal);
	dt_reg_free(g, sig);
	dt_call_end_void(g);
	return -1;
}

static void check_system(struct dt_ck *k, struct dt_node *n)
{
	need_destructive(k, n);
	check_printf(k, n);
}

/* freopen(fmt, ...): the consumer sends the output to the file the
 * printf-formatted text names (appending), or back where it went first
 * for freopen(""); ftruncate() empties the output file. */
static void check_freopen(struct dt_ck *k, struct dt_node *n)
{
	struct dt_node *f = n->args[0];

	need_destructive(k, n);
	if (f->kind == N_STR && n->nargs == 1 && !strcmp(f->sval, "."))
		dt_cerror(dt_ck_cc(k), &n->loc, D_FREOPEN_INVALID, "freopen( ) "
			  "argument #1 cannot be \".\"");
	if (f->kind == N_STR && n->nargs == 1 && !f->sval[0]) {
		dt_ck_action(k, ACT_FREOPEN, n)->fmt = "";
		return;
	}
	check_printf(k, n);
}

static void check_ftruncate(struct dt_ck *k, struct dt_node *n)
{
	dt_ck_action(k, ACT_FTRUNCATE, n);
}

static void check_chill(struct dt_ck *k, struct dt_node *n)
{
	check_signal_act(k, n);
}

/* chill(ns): spin in probe context, at most half a second per call (as
 * DTrace's chill_max), through bpf_loop with a callback that watches the
 * clock. */
#define CHILL_MAX 500000000

static int cg_chill(struct dt_cg *g, struct dt_node *n)
{
	int v = dt_cg_expr(g, n->args[0]), slot = dt_stack_slot(g), now,
	    ok = dt_label(g);

	if (!g->chill_cb)
		g->chill_cb = dt_label(g) + 1;
	dt_jmp_imm(g, BPF_JLE, v, CHILL_MAX, ok);
	dt_emit(g, I_MOV_IMM(v, CHILL_MAX));
	dt_place(g, ok);
	dt_call_begin(g);
	dt_call(g, BPF_FUNC_ktime_get_ns);
	now = dt_call_end(g);
	dt_emit(g, I_ALU64_REG(BPF_ADD, now, v));
	dt_emit(g, I_STX(BPF_DW, BPF_REG_10, now, slot));
	dt_reg_free(g, now);
	dt_reg_free(g, v);
	dt_call_loop(g, 1 << 23, g->chill_cb, slot);
	dt_stack_release(g, slot);
	return -1;
}

void dt_cg_chill_callback(struct dt_cg *g, int label)
{
	int stop = dt_label(g);

	/* (index, ctx = &deadline): 1 ends the loop */
	dt_place(g, label);
	dt_emit(g, I_MOV(BPF_REG_6, BPF_REG_2));
	dt_call(g, BPF_FUNC_ktime_get_ns);
	dt_emit(g, I_LDX(BPF_DW, BPF_REG_1, BPF_REG_6, 0));
	dt_jmp_reg(g, BPF_JGE, BPF_REG_0, BPF_REG_1, stop);
	dt_emit(g, I_MOV_IMM(BPF_REG_0, 0));
	dt_emit(g, I_EXIT());
	dt_place(g, stop);
	dt_emit(g, I_MOV_IMM(BPF_REG_0, 1));
	dt_emit(g, I_EXIT());
}

/* ---- string functions (code in cg_str.c) ---- */

/* NULL, or the constant 0 */
static bool null_const(const struct dt_node *e)
{
	return dt_node_is_null(e) || (e->kind == N_INT && !e->ival);
}

/* A char * where a string is wanted: the string there, as stringof()
 * (D's prototypes take const char *). */
static struct dt_type char_ptr_str(struct dt_ck *k, struct dt_node *n, int i,
				   struct dt_type t)
{
	if (t.kind != DT_TPTR || t.pointee != 1 || t.xlate ||
	    (t.ref && t.ref->kind != DT_TINT))
		return t;
	n->args[i] = stringof_node(k, n->args[i]);
	return n->args[i]->type;
}

/* A string argument; NULL (the constant 0) passes, and faults when the
 * function runs (str_arg), as in DTrace. */
static void need_str(struct dt_ck *k, struct dt_node *n, int i)
{
	struct dt_type t = dt_ck_expr(k, n->args[i]);

	if (!null_const(n->args[i]))
		t = char_ptr_str(k, n, i, t);
	if (t.kind != DT_TSTR && !null_const(n->args[i]))
		dt_error(dt_ck_cc(k), &n->args[i]->loc, "%s() argument #%d "
			 "must be a string", n->name, i + 1);
}

static void need_intarg(struct dt_ck *k, struct dt_node *n, int i)
{
	struct dt_type t = dt_ck_expr(k, n->args[i]);

	if (!dt_type_is_int(&t))
		dt_error(dt_ck_cc(k), &n->args[i]->loc, "%s() argument #%d "
			 "must be an integer", n->name, i + 1);
}

static struct dt_type strsize_type(struct dt_ck *k)
{
	return (struct dt_type){ DT_TSTR, 0, false,
				 (uint16_t)dt_str_bytes(dt_ck_prog(k)) };
}

static void check_strfn(struct dt_ck *k, struct dt_node *n)
{
	const char *f = n->name;

	need_str(k, n, 0);
	if (!strcmp(f, "strlen")) {
		n->type = dt_ulong;
		return;
	}
	if (!strcmp(f, "index") || !strcmp(f, "rindex")) {
		need_str(k, n, 1);
		if (n->nargs == 3)
			need_intarg(k, n, 2);
		n->type = dt_int;
		return;
	}
	if (!strcmp(f, "strjoin") || !strcmp(f, "strstr"))
		need_str(k, n, 1);
	else if (!strcmp(f, "substr") || !strcmp(f, "strchr") ||
		 !strcmp(f, "strrchr"))
		for (int i = 1; i < n->nargs; i++)
			need_intarg(k, n, i);
	n->type = strsize_type(k);
}

static void check_lltostr(struct dt_ck *k, struct dt_node *n)
{
	need_intarg(k, n, 0);
	n->ival = 10;
	if (n->nargs == 2) {
		need_intarg(k, n, 1);
		if (n->args[1]->kind != N_INT || n->args[1]->ival < 2 ||
		    n->args[1]->ival > 36)
			dt_error(dt_ck_cc(k), &n->args[1]->loc, "lltostr() base "
				 "must be a constant from 2 to 36");
		n->ival = n->args[1]->ival;
	}
	n->type = strsize_type(k);
}

/* String argument e in a register: NULL (the constant, or a NULL string)
 * is an invalid address (0) fault here, and the verifier never follows
 * the code past it. */
static int str_arg(struct dt_cg *g, struct dt_node *e)
{
	int r = dt_cg_expr(g, e);

	if (e->type.kind != DT_TSTR && null_const(e))
		dt_cg_fault_if_zero(g, r, DTRACEFLT_BADADDR);
	else if (e->type.kind == DT_TSTR)
		dt_cg_str_fault_null(g, r);
	return r;
}

/* The scratch buffer at off as a string value in a new register. */
static int str_at(struct dt_cg *g, int off)
{
	int r = dt_reg(g);

	dt_cg_scratch_ptr(g, r, off);
	return r;
}

static int cg_strfn(struct dt_cg *g, struct dt_node *n)
{
	const char *f = n->name;
	int a[3] = { -1, -1, -1 }, off = -1, size = n->type.ssize, r;
	int sz0 = n->args[0]->type.ssize;

	/* the strings: the first argument (not lltostr's), and the second
	 * of these */
	bool one = strcmp(f, "lltostr"),
	     two = !strcmp(f, "strjoin") || !strcmp(f, "strstr") ||
		   !strcmp(f, "index") || !strcmp(f, "rindex");

	for (int i = 0; i < n->nargs; i++)
		a[i] = (i == 0 && one) || (i == 1 && two) ?
		       str_arg(g, n->args[i]) : dt_cg_expr(g, n->args[i]);
	if (!strcmp(f, "strlen")) {
		int len = dt_cg_strlen(g, a[0], sz0), tmp = dt_cg_temp(g, 8);

		dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, len, tmp));
		dt_reg_free(g, len);
		dt_reg_free(g, a[0]);
		r = dt_reg(g);
		dt_emit(g, I_LDX(BPF_DW, r, DT_SCRATCH_REG, tmp));
		return r;
	}
	if (!strcmp(f, "index") || !strcmp(f, "rindex") ||
	    !strcmp(f, "strstr")) {
		int at = dt_cg_index(g, a[0], sz0, a[1], n->args[1]->type.ssize,
				     a[2], f[0] == 'r');

		for (int i = 2; i >= 0; i--)
			dt_reg_free(g, a[i]);
		r = dt_reg(g);
		dt_emit(g, I_LDX(BPF_DW, r, DT_SCRATCH_REG, at));
		if (f[0] != 's') {
			dt_cg_normalize(g, r, &n->type);
			return r;
		}
		/* strstr: s from the match on, or NULL */
		int s2 = dt_cg_expr(g, n->args[0]), n2 = dt_reg(g),
		    found = dt_label(g), done = dt_label(g);

		dt_jmp_imm(g, BPF_JSGE, r, 0, found);
		dt_emit(g, I_MOV_IMM(r, sz0));	/* past the end: "" */
		dt_place(g, found);
		dt_emit(g, I_MOV_IMM(n2, sz0));
		off = dt_cg_substr(g, s2, sz0, r, n2, size);
		dt_emit(g, I_LDX(BPF_DW, n2, DT_SCRATCH_REG, at));
		dt_jmp_imm(g, BPF_JSGE, n2, 0, done);
		dt_emit(g, I_ST(BPF_H, DT_SCRATCH_REG, off, DT_NULL_STRING));
		dt_place(g, done);
		dt_reg_free(g, n2);
		dt_reg_free(g, s2);
		dt_reg_free(g, r);
		return str_at(g, off);
	}
	if (!strcmp(f, "strjoin")) {
		off = dt_cg_strjoin(g, a[0], sz0, a[1], n->args[1]->type.ssize,
				    size);
	} else if (!strcmp(f, "substr")) {
		if (a[2] < 0) {
			a[2] = dt_reg(g);
			dt_emit(g, I_MOV_IMM(a[2], size));	/* strsize, as DTrace */
		}
		off = dt_cg_substr(g, a[0], sz0, a[1], a[2], size);
	} else if (!strcmp(f, "strchr") || !strcmp(f, "strrchr")) {
		off = dt_cg_strchr(g, a[0], sz0, a[1], f[3] == 'r', size);
	} else if (!strcmp(f, "toupper") || !strcmp(f, "tolower")) {
		off = dt_cg_strcase(g, a[0], sz0, f[2] == 'u', size);
	} else if (!strcmp(f, "basename") || !strcmp(f, "dirname")) {
		off = dt_cg_pathpart(g, a[0], sz0, f[0] == 'd', size);
	} else if (!strcmp(f, "lltostr")) {
		off = dt_cg_lltostr(g, a[0], (int)n->ival, size);
	}
	for (int i = 2; i >= 0; i--)
		dt_reg_free(g, a[i]);
	return str_at(g, off);
}

/* strtok(s, delims) and strtok(NULL, delims) (cg_str.c) */
static void check_strtok(struct dt_ck *k, struct dt_node *n)
{
	struct dt_type t = dt_ck_expr(k, n->args[0]);

	if (!dt_node_is_null(n->args[0]))
		t = char_ptr_str(k, n, 0, t);
	if (t.kind != DT_TSTR && !dt_node_is_null(n->args[0]))
		dt_error(dt_ck_cc(k), &n->args[0]->loc, "strtok() argument #1 "
			 "must be a string, or NULL to go on with the last "
			 "one");
	need_str(k, n, 1);
	dt_ck_prog(k)->uses_strtok = true;
	n->type = strsize_type(k);
}

static int cg_strtok(struct dt_cg *g, struct dt_node *n)
{
	bool next = n->args[0]->type.kind != DT_TSTR;
	int s = next ? -1 : str_arg(g, n->args[0]);
	int d = str_arg(g, n->args[1]), off;

	off = dt_cg_strtok(g, s, n->args[0]->type.ssize, d,
			   n->args[1]->type.ssize, n->type.ssize);
	dt_reg_free(g, d);
	dt_reg_free(g, s);
	return str_at(g, off);
}

/* ---- speculations ---- */

/* What a clause has done so far, for the order rules of speculations
 * (dtrace-utils' dt_cg_clsflags): speculate() comes before any data,
 * commit() before any data, nothing records after commit(), and neither
 * aggregations, exit() nor destructive actions follow speculate(). */
enum { CLS_DATAREC = 1, CLS_AGG = 2, CLS_SPEC = 4, CLS_COMMIT = 8 };

static bool in_list(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

void dt_ck_clsflags(struct dt_ck *k, struct dt_node *n, const char *name)
{
	static const char *const destructive[] = { "stop", "raise", "system",
		"freopen", "breakpoint", "panic", "chill", "copyout",
		"copyoutstr", NULL };
	/* actions sonde does not have yet (not in funcs[] as actions) */
	static const char *const other_acts[] = { "setopt", "ftruncate",
		"printm", "pcap", NULL };
	int *cf = &dt_ck_clause(k)->clsflags;
	struct dt_cc *cc = dt_ck_cc(k);
	const struct dt_func *f = name ? dt_func_lookup(name) : NULL;
	bool destruct = name && in_list(name, destructive);

	if (!name) {
		if (*cf & CLS_COMMIT)
			dt_cerror(cc, &n->loc, D_AGG_COMM, "aggregating actions "
				  "may not follow commit( )");
		if (*cf & CLS_SPEC)
			dt_cerror(cc, &n->loc, D_AGG_SPEC, "aggregating actions "
				  "may not follow speculate( )");
		*cf |= CLS_AGG;
		return;
	}
	if (!destruct && !(f && f->is_action) && !in_list(name, other_acts))
		return;
	if (!strcmp(name, "commit")) {
		if (*cf & (CLS_DATAREC | CLS_AGG))
			dt_cerror(cc, &n->loc, D_COMM_DREC, "commit( ) may not "
				  "follow data-recording action(s)");
		*cf |= CLS_COMMIT;
		return;
	}
	if (!strcmp(name, "discard"))
		return;
	if (!strcmp(name, "speculate")) {
		if (*cf & CLS_SPEC)
			dt_cerror(cc, &n->loc, D_SPEC_SPEC, "speculate( ) may "
				  "not follow speculate( )");
		if (*cf & CLS_COMMIT)
			dt_cerror(cc, &n->loc, D_SPEC_COMM, "speculate( ) may "
				  "not follow commit( )");
		if (*cf & (CLS_DATAREC | CLS_AGG))
			dt_cerror(cc, &n->loc, D_SPEC_DREC, "speculate( ) may "
				  "not follow data-recording action(s)");
		*cf |= CLS_SPEC;
		return;
	}
	if (*cf & CLS_SPEC) {
		if (destruct)
			dt_cerror(cc, &n->loc, D_ACT_SPEC, "destructive actions "
				  "may not follow speculate( )");
		if (!strcmp(name, "exit"))
			dt_cerror(cc, &n->loc, D_EXIT_SPEC, "exit( ) may not "
				  "follow speculate( )");
	}
	/* chill(), raise() ... record no data (a speculation may follow
	 * them, as in DTrace, whose rule was the record's size) */
	if (destruct && strcmp(name, "system") && strcmp(name, "freopen"))
		return;
	if (*cf & CLS_COMMIT)
		dt_cerror(cc, &n->loc, D_DREC_COMM, "data-recording actions "
			  "may not follow commit( )");
	*cf |= CLS_DATAREC;
}

/* speculation(): a free buffer's id from 1 to nspec, taken with an
 * atomic compare-and-exchange on its "in use" word in the globals; 0
 * when every one is in use. */
static void check_speculation(struct dt_ck *k, struct dt_node *n)
{
	dt_ck_prog(k)->uses_spec = true;
	n->type = dt_int;
}

static int cg_speculation(struct dt_cg *g, struct dt_node *n)
{
	int done = dt_label(g), nspec = (int)g->p->opt.nspec, ok = dt_label(g);
	int r;

	(void)n;
	/* r0-r2 are used directly: set the busy ones aside as for a call */
	dt_call_begin(g);
	for (int i = 0; i < nspec; i++) {
		int next = dt_label(g);

		dt_ld_map_value(g, BPF_REG_2, DT_MAP_GLOBALS,
				g->p->spec_off + 8 * i);
		dt_emit(g, I_MOV_IMM(BPF_REG_0, 0));
		dt_emit(g, I_MOV_IMM(BPF_REG_1, 1));
		dt_emit(g, (struct bpf_insn){ .code = BPF_STX | BPF_DW |
					      BPF_ATOMIC,
					      .dst_reg = BPF_REG_2,
					      .src_reg = BPF_REG_1,
					      .imm = BPF_CMPXCHG });
		dt_jmp_imm(g, BPF_JNE, BPF_REG_0, 0, next);
		dt_emit(g, I_MOV_IMM(BPF_REG_0, i + 1));
		dt_jmp(g, done);
		dt_place(g, next);
	}
	dt_emit(g, I_MOV_IMM(BPF_REG_0, 0));
	dt_place(g, done);
	r = dt_call_end(g);
	dt_jmp_imm(g, BPF_JNE, r, 0, ok);
	dt_cg_count(g, DT_SCR(counters.specunavail));
	dt_place(g, ok);
	return r;
}

static void check_speculate(struct dt_ck *k, struct dt_node *n)
{
	struct dt_type t = dt_ck_expr(k, n->args[0]);
	struct dt_action *a;

	if (!dt_type_is_int(&t))
		dt_error(dt_ck_cc(k), &n->args[0]->loc, "%s() needs a "
			 "speculation id", n->name);
	dt_ck_prog(k)->uses_spec = true;
	if (strcmp(n->name, "speculate")) {
		a = dt_ck_action(k, n->name[0] == 'c' ? ACT_COMMIT :
				 ACT_DISCARD, n);
		dt_ck_recval(k, a, n->args[0]);
		return;
	}
	/* a clause that only speculates records the probe (DTrace's
	 * default action), into the speculation */
	dt_ck_clause(k)->emits = true;
}

/* A clause whose record is larger than specsize is a speculative drop
 * and ends at speculate(), as dtrace-utils ends it when a value it
 * stores passes specsize (what earlier clauses put in the buffer is
 * counted by the consumer, spec_keep: a record that does not fit there
 * is a drop too, the clause having run). */
static void spec_room(struct dt_cg *g, int id)
{
	if ((uint64_t)g->cl->rec_size <= g->p->opt.specsize)
		return;
	dt_cg_count(g, DT_SCR(counters.specdrops));
	/* id is not 0 here: a conditional jump, as the verifier refuses
	 * code no jump reaches */
	dt_jmp_imm(g, BPF_JNE, id, 0, g->skip);
}

static int cg_speculate(struct dt_cg *g, struct dt_node *n)
{
	int id;

	id = dt_cg_expr(g, n->args[0]);
	/* an id speculation() did not hand out (or one committed or
	 * discarded since) ends the clause there, as in DTrace */
	dt_emit(g, I_ALU64_IMM(BPF_LSH, id, 32));
	dt_emit(g, I_ALU64_IMM(BPF_RSH, id, 32));
	dt_jmp_imm(g, BPF_JEQ, id, 0, g->skip);
	dt_jmp_imm(g, BPF_JGT, id, (int32_t)g->p->opt.nspec, g->skip);
	{
		int p = dt_reg(g), w = dt_reg(g);

		for (int i = 0; i < (int)g->p->opt.nspec; i++) {
			int next = dt_label(g);

			dt_jmp_imm(g, BPF_JNE, id, i + 1, next);
			dt_ld_map_value(g, p, DT_MAP_GLOBALS,
					g->p->spec_off + 8 * i);
			dt_emit(g, I_LDX(BPF_DW, w, p, 0));
			dt_jmp_imm(g, BPF_JEQ, w, 0, g->skip);
			dt_place(g, next);
		}
		dt_reg_free(g, w);
		dt_reg_free(g, p);
	}
	spec_room(g, id);
	dt_emit(g, I_ALU64_IMM(BPF_AND, id, DT_REC_SPEC_MAX));
	dt_emit(g, I_ALU64_IMM(BPF_LSH, id, DT_REC_SPEC_SHIFT));
	dt_emit(g, I_ALU64_IMM(BPF_OR, id, (int32_t)(DT_REC_DATA |
						       DT_REC_SPEC)));
	dt_emit(g, I_STX(BPF_W, DT_SCRATCH_REG, id, g->rec_base +
			 offsetof(struct dt_rechdr, kind)));
	dt_reg_free(g, id);
	return -1;
}

/* commit(id), discard(id): the record tells the consumer what to do with
 * the buffer; the buffer is free again at once (the consumer reads the
 * ring in order, so a new speculation's records come after). */
static int cg_commit(struct dt_cg *g, struct dt_node *n)
{
	struct dt_action *a = act_of(g, n);
	int id = dt_reg(g), p = dt_reg(g);

	store_vals(g, a, n->args, 1);
	dt_emit(g, I_LDX(BPF_DW, id, DT_SCRATCH_REG, g->rec_base +
			 a->vals[0].off));
	/* ids are 32 bits; one past nspec is an illegal operation */
	dt_emit(g, I_ALU64_IMM(BPF_LSH, id, 32));
	dt_emit(g, I_ALU64_IMM(BPF_RSH, id, 32));
	{
		int ok = dt_label(g);

		dt_jmp_imm(g, BPF_JLE, id, (int32_t)g->p->opt.nspec, ok);
		dt_cg_fault(g, DTRACEFLT_ILLOP, -1);
		dt_place(g, ok);
	}
	for (int i = 0; i < (int)g->p->opt.nspec; i++) {
		int next = dt_label(g);

		dt_jmp_imm(g, BPF_JNE, id, i + 1, next);
		dt_ld_map_value(g, p, DT_MAP_GLOBALS, g->p->spec_off + 8 * i);
		dt_emit(g, I_ST(BPF_DW, p, 0, 0));
		dt_place(g, next);
	}
	dt_reg_free(g, p);
	dt_reg_free(g, id);
	return -1;
}

/* ---- copyin, tracemem ---- */

/* The constant size argument i of n (1 to max bytes). */
static int const_size(struct dt_ck *k, struct dt_node *n, int i, int max)
{
	struct dt_node *e = n->args[i];
	int64_t v;

	if (!dt_ck_const(k, e, &v) || v < 1 || v > max)
		dt_error(dt_ck_cc(k), &e->loc, "%s() needs a constant size "
			 "from 1 to %d bytes in this version", n->name, max);
	return (int)v;
}

/* copyin(addr, size): size bytes of user memory in a scratch buffer;
 * its address is a char * (for casts, * and stringof()). */
static void check_copyin(struct dt_ck *k, struct dt_node *n)
{
	struct dt_node *e = n->args[1];
	uint64_t max = dt_alloca_max(&dt_ck_prog(k)->opt);

	int64_t v;

	need_intarg(k, n, 0);
	/* the buffer is scratch memory, as alloca()'s (dtrace-utils) */
	if (dt_ck_const(k, e, &v) && (uint64_t)v > max)
		dt_cerror(dt_ck_cc(k), &n->loc, D_ALLOCA_SIZE, "copyin(%llu) "
			  "size larger than scratchsize %llu",
			  (unsigned long long)v,
			  (unsigned long long)max);
	n->ival = (uint64_t)const_size(k, n, 1, 4096);
	n->type = (struct dt_type){ DT_TPTR, 8, false, 0, 1 };
}

static int cg_copyin(struct dt_cg *g, struct dt_node *n)
{
	int size = (int)n->ival, tmp = dt_cg_temp(g, size + 1);
	int addr, r;

	/* the buffer lasts for the clause, as DTrace's scratch memory: a
	 * variable may keep its address for later statements */
	g->temp_floor = g->temp_top;
	addr = dt_cg_expr(g, n->args[0]);

	/* one zero byte past the data: stringof() of it ends there */
	dt_emit(g, I_ST(BPF_B, DT_SCRATCH_REG, tmp + size, 0));
	dt_cg_read_scratch(g, BPF_FUNC_probe_read_user, addr, tmp, size);
	dt_reg_free(g, addr);
	r = dt_reg(g);
	dt_cg_scratch_ptr(g, r, tmp);
	return r;
}

/* tracemem(addr, size): size bytes of kernel memory into the record,
 * printed as dtrace(1)'s hex dump. */
static void check_tracemem(struct dt_ck *k, struct dt_node *n)
{
	struct dt_action *a;
	struct dt_type t = dt_ck_expr_whole(k, n->args[0]);
	char b[80];
	int size;

	if (t.kind == DT_TARRAY)	/* its address, as in C */
		t = dt_ck_expr(k, n->args[0]);
	if (!dt_type_is_int(&t))
		dt_cerror(dt_ck_cc(k), &n->loc, D_TRACEMEM_ADDR, "tracemem( ) "
			  "argument #1 is incompatible with prototype:\n"
			  "\tprototype: pointer or integer\n\t argument: %s",
			  dt_type_name(&t, b, sizeof(b)));
	dt_ck_expr(k, n->args[1]);
	if (n->args[1]->kind != N_INT || (int64_t)n->args[1]->ival < 1)
		dt_cerror(dt_ck_cc(k), &n->loc, D_TRACEMEM_SIZE, "tracemem( ) "
			  "argument #2 must be a non-zero positive integral "
			  "constant expression");
	size = const_size(k, n, 1, 8192);
	a = dt_ck_action(k, ACT_TRACEMEM, n);
	/* room for the bytes: a string-sized record value */
	dt_ck_recval(k, a, n->args[1]);
	a->vals[0].kind = KEY_STR;
	a->vals[0].ssize = (uint16_t)size;
	dt_ck_fix_recval(k, a, 0, (size + 7) & ~7);
}

static int cg_tracemem(struct dt_cg *g, struct dt_node *n)
{
	struct dt_action *a = act_of(g, n);
	int addr = dt_cg_expr(g, n->args[0]);

	dt_cg_read_scratch(g, BPF_FUNC_probe_read_kernel, addr, g->rec_base + a->vals[0].off,
			   a->vals[0].ssize);
	dt_reg_free(g, addr);
	return -1;
}

/* ---- print ---- */

/* print(p): the address and the bytes of what p points to, which the
 * consumer shows member by member (consume.c print_type), as
 * dtrace-utils' dt_cg_act_print and dt_print_type do. */
static void check_print(struct dt_ck *k, struct dt_node *n)
{
	struct dt_cc *cc = dt_ck_cc(k);
	struct dt_type t = dt_ck_expr(k, n->args[0]), ref;
	struct dt_action *a;
	uint64_t size;
	char b[96];

	if (t.kind != DT_TPTR || t.xlate)
		dt_cerror(cc, &n->loc, D_PROTO_ARG, "print( ) argument #1 is "
			  "incompatible with prototype:\n\tprototype: void *"
			  "\n\t argument: %s", dt_type_name(&t, b, sizeof(b)));
	ref = dt_ptr_ref(&t);
	if (ref.kind == DT_TSOU && !ref.ct->complete && ref.ct->btf_id)
		dt_btf_complete(cc, (struct dt_ctype *)ref.ct);
	size = ref.kind == DT_TVOID ? 0 : dt_type_size(&ref);
	if (!size)
		dt_cerror(cc, &n->loc, D_PRINT_SIZE, "print( ) argument #1 "
			  "reference has type '%s' with size 0; cannot print( ) "
			  "it.", dt_type_name(&ref, b, sizeof(b)));
	if (size > 8192)
		dt_error(cc, &n->loc, "not supported: print() of %llu bytes "
			 "in this version (at most 8192)",
			 (unsigned long long)size);
	a = dt_ck_action(k, ACT_PRINT, n);
	dt_ck_recval(k, a, n->args[0]);		/* the address */
	dt_ck_recval(k, a, n->args[0]);		/* the bytes */
	a->vals[1].kind = KEY_BYTES;
	a->vals[1].ssize = (uint16_t)size;
	dt_ck_fix_recval(k, a, 1, (int)((size + 7) & ~7ull));
	a->ptype = ref;
	if (t.alloca)
		dt_ck_prog(k)->uses_alloca = true;
}

static int cg_print(struct dt_cg *g, struct dt_node *n)
{
	struct dt_action *a = act_of(g, n);
	int addr = dt_cg_expr(g, n->args[0]), size = a->vals[1].ssize;

	dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, addr, g->rec_base +
			 a->vals[0].off));
	/* alloca()'s memory: its bytes checked first, as dtrace-utils */
	if (n->args[0]->type.alloca)
		dt_reg_free(g, dt_cg_alloca_check(g, addr, -1, size));
	dt_cg_read_scratch(g, BPF_FUNC_probe_read_kernel, addr, g->rec_base + a->vals[1].off,
			   size);
	dt_reg_free(g, addr);
	return -1;
}

/* ---- alloca, bcopy, copyinto ---- */

/* alloca()'s memory is scratchsize bytes of the scratch area (alloca_off:
 * the bytes in use, then the memory), given out 8-byte aligned and taken
 * back at the start of every clause. Its pointers are plain addresses, so
 * that variables can keep them and stringof() and tracemem() read them as
 * any kernel memory; loads and stores through them (*p, p->m, p[i]) and
 * bcopy() and copyinto() first check that the bytes lie in the memory
 * handed out in this clause (dt_cg_alloca_check), as dtrace-utils does. */

/* The address of alloca()'s memory as a number (the scratch pointer
 * passed through the scratch map, which the verifier then forgets). */
static int alloca_base(struct dt_cg *g)
{
	int tmp = dt_cg_temp(g, 8), r = dt_reg(g);

	dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, DT_SCRATCH_REG, tmp));
	dt_emit(g, I_LDX(BPF_DW, r, DT_SCRATCH_REG, tmp));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, r, g->p->alloca_off +
			       offsetof(struct dt_alloca, mem)));
	return r;
}

/* A fault whose address was kept in the scratch temporary at off: the
 * registers do not matter past it (the clause ends). */
static void fault_at(struct dt_cg *g, int fault, int off)
{
	if (off >= 0)
		dt_emit(g, I_LDX(BPF_DW, BPF_REG_1, DT_SCRATCH_REG, off));
	dt_cg_fault(g, fault, off >= 0 ? BPF_REG_1 : -1);
}

static void check_alloca(struct dt_ck *k, struct dt_node *n)
{
	struct dt_prog *p = dt_ck_prog(k);
	struct dt_node *e = n->args[0];
	uint64_t max = dt_alloca_max(&p->opt);

	need_intarg(k, n, 0);
	if (e->kind == N_INT && e->ival > max)
		dt_cerror(dt_ck_cc(k), &n->loc, D_ALLOCA_SIZE, "alloca(%llu) "
			  "size larger than scratchsize %llu",
			  (unsigned long long)e->ival,
			  (unsigned long long)max);
	p->uses_alloca = true;
	n->type = (struct dt_type){ DT_TPTR, 8, false, 0, 1 };
	n->type.alloca = true;
}

static int cg_alloca(struct dt_cg *g, struct dt_node *n)
{
	int max = (int)dt_alloca_max(&g->p->opt);
	int area = g->p->alloca_off + (int)offsetof(struct dt_alloca, used);
	int size = dt_cg_expr(g, n->args[0]), used = dt_reg(g), end = dt_reg(g),
	    base, bad = dt_label(g), ok = dt_label(g);

	/* unsigned: a negative size is too large too */
	dt_jmp_imm(g, BPF_JGT, size, max, bad);
	dt_emit(g, I_LDX(BPF_DW, used, DT_SCRATCH_REG, area));
	dt_emit(g, I_MOV(end, size));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, end, 7));
	dt_emit(g, I_ALU64_IMM(BPF_AND, end, -8));
	dt_emit(g, I_ALU64_REG(BPF_ADD, end, used));
	dt_jmp_imm(g, BPF_JGT, end, max, bad);
	dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, end, area));
	base = alloca_base(g);
	dt_emit(g, I_ALU64_REG(BPF_ADD, base, used));
	dt_emit(g, I_MOV(size, base));
	dt_jmp(g, ok);
	dt_place(g, bad);
	fault_at(g, DTRACEFLT_NOSCRATCH, -1);
	dt_place(g, ok);
	dt_reg_free(g, base);
	dt_reg_free(g, end);
	dt_reg_free(g, used);
	return size;
}

/* bcopy(src, dest, size): kernel memory (or a string) to alloca()'s;
 * copyinto(addr, size, dest): user memory to alloca()'s. */
static void check_bcopy(struct dt_ck *k, struct dt_node *n)
{
	struct dt_cc *cc = dt_ck_cc(k);
	struct dt_prog *p = dt_ck_prog(k);
	bool into = n->name[0] == 'c';
	int di = into ? 2 : 1, si = into ? 1 : 2;
	struct dt_type t = dt_ck_expr(k, n->args[0]);

	if (!dt_type_is_int(&t) && (into || t.kind != DT_TSTR))
		dt_error(cc, &n->args[0]->loc, "%s() argument #1 must be an "
			 "address%s", n->name, into ? "" : " or a string");
	need_intarg(k, n, si);
	t = dt_ck_expr(k, n->args[di]);
	if (t.kind != DT_TPTR || !t.alloca)
		dt_cerror(cc, &n->args[di]->loc, D_PROTO_ARG, "%s( ) argument "
			  "#%d is incompatible with prototype:\n\tprototype: "
			  "alloca pointer\n\t argument: non-alloca pointer",
			  n->name, di + 1);
	p->uses_alloca = true;
	n->type = dt_void;
}

int dt_cg_alloca_check(struct dt_cg *g, int addr, int size, int isize)
{
	int max = (int)dt_alloca_max(&g->p->opt);
	int off = alloca_base(g), end = dt_reg(g);
	int badaddr = dt_label(g), base_ok = dt_label(g), badsize = dt_label(g),
	    ok = dt_label(g), null = dt_label(g);

	/* off = addr - the memory's start */
	dt_emit(g, I_ALU64_REG(BPF_SUB, off, addr));
	dt_emit(g, I_ALU64_IMM(BPF_NEG, off, 0));
	dt_emit(g, I_LDX(BPF_DW, end, DT_SCRATCH_REG, g->p->alloca_off +
			 offsetof(struct dt_alloca, used)));
	dt_jmp_imm(g, BPF_JSLT, off, 0, badaddr);
	dt_jmp_reg(g, BPF_JLT, off, end, base_ok);
	dt_place(g, badaddr);
	/* the address as DTrace's program sees it (dt_cg_alloca_user) */
	dt_jmp_imm(g, BPF_JEQ, addr, 0, null);
	dt_emit(g, I_ALU64_IMM(BPF_ADD, off, 8));
	dt_cg_fault(g, DTRACEFLT_BADADDR, off);
	dt_place(g, null);
	dt_cg_fault(g, DTRACEFLT_BADADDR, addr);
	dt_place(g, base_ok);
	if (size >= 0)
		dt_emit(g, I_ALU64_REG(BPF_SUB, end, size));
	else
		dt_emit(g, I_ALU64_IMM(BPF_SUB, end, isize));
	dt_jmp_reg(g, BPF_JSGT, off, end, badsize);
	/* the bound the verifier sees (the compares above imply it: the
	 * memory handed out is at most max bytes; a size in a register is
	 * at most max too, and the scratch area has room past the memory
	 * for it) */
	dt_jmp_imm(g, BPF_JGT, off, size >= 0 ? max : max - isize, badsize);
	dt_jmp(g, ok);
	dt_place(g, badsize);
	if (size < 0)
		dt_emit(g, I_MOV_IMM(end, isize));
	dt_cg_fault(g, DTRACEFLT_BADSIZE, size >= 0 ? size : end);
	dt_place(g, ok);
	dt_reg_free(g, end);
	return off;
}

void dt_cg_alloca_user(struct dt_cg *g, int r)
{
	int base = alloca_base(g), null = dt_label(g);

	dt_jmp_imm(g, BPF_JEQ, r, 0, null);
	dt_emit(g, I_ALU64_REG(BPF_SUB, r, base));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, r, 8));
	dt_place(g, null);
	dt_reg_free(g, base);
}

int dt_cg_alloca_ptr(struct dt_cg *g, int off)
{
	dt_emit(g, I_ALU64_REG(BPF_ADD, off, DT_SCRATCH_REG));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, off, g->p->alloca_off +
			       offsetof(struct dt_alloca, mem)));
	return off;
}

/* As dtrace-utils: a size outside 0..the memory's size is a bad size; a
 * source in alloca()'s memory is checked as the destination is; a bad
 * source address faults once the copy fails. */
static int cg_bcopy(struct dt_cg *g, struct dt_node *n)
{
	bool into = n->name[0] == 'c';
	int max = (int)dt_alloca_max(&g->p->opt);
	struct dt_node *srcn = n->args[0];
	int a[3], src_off = dt_cg_temp(g, 8);
	int badsize = dt_label(g), ok = dt_label(g), size_ok = dt_label(g);
	int src, dest, size, off, rc;

	for (int i = 0; i < 3; i++)
		a[i] = dt_cg_expr(g, n->args[i]);
	src = a[0];
	dest = a[into ? 2 : 1];
	size = a[into ? 1 : 2];
	dt_jmp_imm(g, BPF_JSLT, size, 0, badsize);
	dt_jmp_imm(g, BPF_JLE, size, max, size_ok);
	dt_place(g, badsize);
	dt_cg_fault(g, DTRACEFLT_BADSIZE, size);
	dt_place(g, size_ok);
	if (srcn->type.alloca && srcn->type.kind != DT_TSTR)
		dt_reg_free(g, dt_cg_alloca_check(g, src, size, 0));
	dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, src, src_off));
	off = dt_cg_alloca_check(g, dest, size, 0);
	dt_call_begin(g);
	dt_call_arg(g, BPF_REG_2, off);
	dt_emit(g, I_MOV(BPF_REG_1, DT_SCRATCH_REG));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_1, g->p->alloca_off +
			       offsetof(struct dt_alloca, mem)));
	dt_emit(g, I_ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_2));
	dt_call_arg(g, BPF_REG_2, size);
	dt_call_arg(g, BPF_REG_3, src);
	dt_call(g, into ? BPF_FUNC_probe_read_user :
		BPF_FUNC_probe_read_kernel);
	rc = dt_call_end(g);
	dt_jmp_imm(g, BPF_JSGE, rc, 0, ok);
	fault_at(g, DTRACEFLT_BADADDR, src_off);
	dt_place(g, ok);
	dt_reg_free(g, rc);
	dt_reg_free(g, off);
	for (int i = 2; i >= 0; i--)
		dt_reg_free(g, a[i]);
	return -1;
}

/* ---- copyout, copyoutstr ---- */

/* copyout(buf, addr, size), copyoutstr(str, addr, maxlen): write D memory
 * (alloca()'d or a string) into the current process at addr with
 * bpf_probe_write_user, as DTrace's destructive subroutines (-w). */
static void check_copyout(struct dt_ck *k, struct dt_node *n)
{
	struct dt_cc *cc = dt_ck_cc(k);
	bool str = !strcmp(n->name, "copyoutstr");
	struct dt_type t = dt_ck_expr(k, n->args[0]);

	need_destructive(k, n);
	if (str ? t.kind != DT_TSTR :
	    !(t.kind == DT_TSTR || (t.kind == DT_TPTR && t.alloca)))
		dt_cerror(cc, &n->args[0]->loc, D_PROTO_ARG, "%s( ) argument "
			  "#1 is incompatible with prototype:\n\tprototype: "
			  "%s\n\t argument: %s", n->name,
			  str ? "char *" : "void *",
			  t.kind == DT_TPTR ? "non-alloca pointer" : "integer");
	need_intarg(k, n, 1);
	need_intarg(k, n, 2);
	if (!str && t.kind == DT_TPTR)
		dt_ck_prog(k)->uses_alloca = true;
	n->type = dt_void;
}

static int cg_copyout(struct dt_cg *g, struct dt_node *n)
{
	bool str = !strcmp(n->name, "copyoutstr");
	struct dt_node *srcn = n->args[0];
	bool is_str = srcn->type.kind == DT_TSTR;
	int max = is_str ? (int)srcn->type.ssize ?
		  (int)srcn->type.ssize : (int)g->p->opt.strsize :
		  (int)dt_alloca_max(&g->p->opt);
	int src = dt_cg_expr(g, srcn), addr = dt_cg_expr(g, n->args[1]);
	int size = dt_cg_expr(g, n->args[2]), addr_off = dt_cg_temp(g, 8);
	int buf = dt_cg_temp(g, max), badsize = dt_label(g), ok = dt_label(g),
	    done = dt_label(g), rc;

	dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, addr, addr_off));
	if (str) {
		/* the string and its NUL, at most maxlen bytes */
		int len = dt_cg_strlen(g, src, max), fit = dt_label(g);

		dt_emit(g, I_ALU64_IMM(BPF_ADD, len, 1));
		dt_jmp_reg(g, BPF_JLE, size, len, fit);
		dt_emit(g, I_MOV(size, len));
		dt_place(g, fit);
		dt_reg_free(g, len);
	}
	dt_jmp_imm(g, BPF_JSLT, size, 0, badsize);
	dt_jmp_imm(g, BPF_JLE, size, max, ok);
	dt_place(g, badsize);
	dt_cg_fault(g, DTRACEFLT_BADSIZE, size);
	dt_place(g, ok);
	dt_jmp_imm(g, BPF_JEQ, size, 0, done);
	if (!is_str)
		dt_reg_free(g, dt_cg_alloca_check(g, src, size, 0));
	/* through a scratch buffer: the verifier then knows the bytes */
	dt_call_begin(g);
	dt_emit(g, I_MOV(BPF_REG_1, DT_SCRATCH_REG));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_1, buf));
	dt_call_arg(g, BPF_REG_2, size);
	dt_call_arg(g, BPF_REG_3, src);
	dt_call(g, BPF_FUNC_probe_read_kernel);
	dt_call_end_void(g);
	dt_call_begin(g);
	dt_call_arg(g, BPF_REG_1, addr);
	dt_emit(g, I_MOV(BPF_REG_2, DT_SCRATCH_REG));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_2, buf));
	dt_call_arg(g, BPF_REG_3, size);
	dt_call(g, BPF_FUNC_probe_write_user);
	rc = dt_call_end(g);
	dt_jmp_imm(g, BPF_JSGE, rc, 0, done);
	fault_at(g, DTRACEFLT_BADADDR, addr_off);
	dt_place(g, done);
	dt_reg_free(g, rc);
	dt_reg_free(g, size);
	dt_reg_free(g, addr);
	dt_reg_free(g, src);
	return -1;
}

/* ---- copyinstr ---- */

static void check_copyinstr(struct dt_ck *k, struct dt_node *n)
{
	struct dt_cc *cc = dt_ck_cc(k);
	struct dt_type t = dt_ck_expr(k, n->args[0]);
	uint64_t strsize = dt_ck_prog(k)->opt.strsize;

	if (!dt_type_is_int(&t))
		dt_error(cc, &n->args[0]->loc, "copyinstr() needs an address");
	/* as dtrace-utils reads it: maxsize (strsize when absent or
	 * larger) bytes, the NUL included */
	n->type = (struct dt_type){ DT_TSTR, 0, false, (uint16_t)strsize };
	if (n->nargs == 2) {
		dt_ck_expr(k, n->args[1]);
		if (n->args[1]->kind != N_INT)
			dt_error(cc, &n->args[1]->loc, "not supported: a "
				 "copyinstr() length that is not a constant");
		if (n->args[1]->ival < strsize)
			n->type.ssize = (uint16_t)(n->args[1]->ival > 1 ?
						   n->args[1]->ival : 1);
	}
}

static int cg_copyinstr(struct dt_cg *g, struct dt_node *n)
{
	int size = (n->type.ssize + 7) & ~7;
	int tmp = dt_cg_temp(g, size), addr, r;

	addr = dt_cg_expr(g, n->args[0]);
	r = dt_reg(g);
	dt_cg_scratch_ptr(g, r, tmp);
	dt_cg_zero(g, r, size);
	dt_reg_free(g, r);
	dt_call_begin(g);
	dt_call_arg(g, BPF_REG_3, addr);
	dt_emit(g, I_MOV(BPF_REG_1, DT_SCRATCH_REG));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_1, tmp));
	/* n->type.ssize bytes, NUL included */
	dt_emit(g, I_MOV_IMM(BPF_REG_2, n->type.ssize));
	dt_call(g, BPF_FUNC_probe_read_user_str);
	r = dt_call_end(g);
	/* A bad address is DTrace's "invalid address" fault. */
	dt_cg_fault_if_neg(g, r, addr);
	dt_reg_free(g, r);
	dt_reg_free(g, addr);
	r = dt_reg(g);
	dt_cg_scratch_ptr(g, r, tmp);
	return r;
}

/* ---- stack(), ustack() ---- */

/* stack([n]), ustack([n]): a stack trace, kept by the kernel in a
 * stack-trace map; the key holds its id (and for ustack the process,
 * whose mappings name the frames) and the consumer prints the frames. */
static void check_stack(struct dt_ck *k, struct dt_node *n)
{
	if (n->nargs) {
		struct dt_node *a = n->args[0];

		dt_ck_expr(k, a);
		if (a->kind != N_INT || (int64_t)a->ival < 1)
			dt_cerror(dt_ck_cc(k), &n->loc, n->name[0] == 'u' ?
				  D_USTACK_FRAMES : D_STACK_SIZE, "%s( ) "
				  "argument #1 must be a non-zero positive "
				  "integer constant", n->name);
		if (a->ival > 127)
			dt_error(dt_ck_cc(k), &a->loc, "%s() takes a number of "
				 "frames from 1 to 127", n->name);
	}
	if (n->nargs > 1) {
		struct dt_node *a = n->args[1];

		dt_ck_expr(k, a);
		if (a->kind != N_INT || (int64_t)a->ival < 0)
			dt_cerror(dt_ck_cc(k), &n->loc, D_USTACK_STRSIZE,
				  "%s( ) argument #2 must be a positive "
				  "integer constant", n->name);
	}
	n->type = (struct dt_type){ DT_TSTACK, 8, false, 0, 0, false, 0 };
}

static int cg_stack(struct dt_cg *g, struct dt_node *n)
{
	bool user = n->name[0] == 'u';
	int r, t, ok = dt_label(g);

	/* BEGIN, END and ERROR run in the consumer's bpf() call: no kernel
	 * stack of the traced system, empty as in DTrace */
	if (!user && !strcmp(g->u->prov->name, "dtrace")) {
		r = dt_reg(g);
		dt_emit(g, I_MOV_IMM(r, -1));
		dt_emit(g, I_MOV32(r, r));
		return r;
	}
	g->need_stacks = true;
	dt_call_begin(g);
	dt_emit(g, I_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, DT_FP_CTX));
	dt_ld_map(g, BPF_REG_2, DT_MAP_STACKS);
	dt_emit(g, I_MOV_IMM(BPF_REG_3, user ? BPF_F_USER_STACK : 0));
	dt_call(g, BPF_FUNC_get_stackid);
	r = dt_call_end(g);
	/* no stack (an error): id -1 */
	dt_jmp_imm(g, BPF_JSGE, r, 0, ok);
	dt_emit(g, I_MOV_IMM(r, -1));
	dt_place(g, ok);
	dt_emit(g, I_MOV32(r, r));
	if (user) {
		dt_call_begin(g);
		dt_call(g, BPF_FUNC_get_current_pid_tgid);
		t = dt_call_end(g);
		dt_emit(g, I_ALU64_IMM(BPF_RSH, t, 32));
		dt_emit(g, I_ALU64_IMM(BPF_LSH, t, DT_STACKKEY_PID_SHIFT));
		dt_emit(g, I_ALU64_REG(BPF_OR, r, t));
		dt_reg_free(g, t);
	}
	return r;
}

/* ---- sym(), usym(), mod(), umod(), uaddr() ---- */

/* The value is the address; the record or key keeps it (and for the user
 * ones the process) and the consumer names it when it prints. */
static void check_sym(struct dt_ck *k, struct dt_node *n)
{
	static const struct { const char *name; uint8_t kind; } kinds[] = {
		{ "sym", DT_SYM_SYM }, { "mod", DT_SYM_MOD },
		{ "usym", DT_SYM_USYM }, { "umod", DT_SYM_UMOD },
		{ "uaddr", DT_SYM_UADDR },
		/* DTrace's other names for sym() and usym() */
		{ "func", DT_SYM_SYM }, { "ufunc", DT_SYM_USYM },
	};
	struct dt_type t = dt_ck_expr(k, n->args[0]);

	if (!dt_type_is_int(&t))
		dt_error(dt_ck_cc(k), &n->args[0]->loc, "%s() needs an "
			 "address", n->name);
	n->type = (struct dt_type){ DT_TSYM, 8, false, 0, 0, false, 0, 0 };
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!strcmp(n->name, kinds[i].name))
			n->type.symkind = kinds[i].kind;
}

static int cg_sym(struct dt_cg *g, struct dt_node *n)
{
	return dt_cg_expr(g, n->args[0]);
}

/* ---- integer subroutines: rand, hton*, ntoh*, getmajor, getminor,
 * progenyof ---- */

static void check_intfn(struct dt_ck *k, struct dt_node *n)
{
	static const struct { const char *name; struct dt_type t; } ret[] = {
		{ "rand", { DT_TINT, 4, true } },
		{ "progenyof", { DT_TINT, 4, true } },
		{ "htons", { DT_TINT, 2, false } },
		{ "ntohs", { DT_TINT, 2, false } },
		{ "htonl", { DT_TINT, 4, false } },
		{ "ntohl", { DT_TINT, 4, false } },
		{ "htonll", { DT_TINT, 8, false } },
		{ "ntohll", { DT_TINT, 8, false } },
		/* the kernel's dev_t: 32 bits */
		{ "getmajor", { DT_TINT, 4, false } },
		{ "getminor", { DT_TINT, 4, false } },
	};

	for (int i = 0; i < n->nargs; i++)
		need_intarg(k, n, i);
	for (size_t i = 0; i < ARRAY_SIZE(ret); i++)
		if (!strcmp(n->name, ret[i].name))
			n->type = ret[i].t;
}

/* The byte order of the network (big-endian) from the host's. */
static int cg_hton(struct dt_cg *g, struct dt_node *n)
{
	int r = dt_cg_expr(g, n->args[0]);
	char c = n->name[strlen(n->name) - 1];

	dt_emit(g, (struct bpf_insn){ .code = BPF_ALU | BPF_END | BPF_TO_BE,
				      .dst_reg = r,
				      .imm = c == 's' ? 16 : c == 'l' &&
				      n->name[strlen(n->name) - 2] == 'l' ?
				      64 : 32 });
	return r;
}

/* rand(): a pseudo-random int, as dtrace-utils (bpf_get_prandom_u32,
 * sign-extended). */
static int cg_rand(struct dt_cg *g, struct dt_node *n)
{
	int r;

	(void)n;
	dt_call_begin(g);
	dt_call(g, BPF_FUNC_get_prandom_u32);
	r = dt_call_end(g);
	dt_emit(g, I_ALU64_IMM(BPF_LSH, r, 32));
	dt_emit(g, I_ALU64_IMM(BPF_ARSH, r, 32));
	return r;
}

/* getmajor(), getminor(): Linux's dev_t, 12 bits of major and 20 of
 * minor (MAJOR(), MINOR()). */
static int cg_devpart(struct dt_cg *g, struct dt_node *n)
{
	int r = dt_cg_expr(g, n->args[0]);

	dt_emit(g, I_MOV32(r, r));
	if (!strcmp(n->name, "getmajor"))
		dt_emit(g, I_ALU64_IMM(BPF_RSH, r, 20));
	else
		dt_emit(g, I_ALU64_IMM(BPF_AND, r, 0xfffff));
	return r;
}

/* progenyof(pid): 1 when the current task or one of its ancestors (by
 * real_parent, at most PROGENY_MAX of them) is of process pid, as
 * dtrace-utils' dt_progenyof; by the task's tgid, not its thread id
 * (dtrace-utils compares task->pid: a process forked by a thread other
 * than its parent's main one was nobody's progeny there). */
#define PROGENY_MAX 64

static int cg_progenyof(struct dt_cg *g, struct dt_node *n)
{
	int want = dt_cg_expr(g, n->args[0]), ptr, res = dt_reg(g);
	int off_pid = dt_btf_member_offset("task_struct", "tgid");
	int off_parent = dt_btf_member_offset("task_struct", "real_parent");
	int done = dt_label(g), yes = dt_label(g);

	if (off_pid < 0 || off_parent < 0)
		dt_error(g->cc, &n->loc, "progenyof() needs the kernel's BTF "
			 "to find task_struct's tgid and real_parent");
	dt_emit(g, I_MOV32(want, want));
	dt_emit(g, I_MOV_IMM(res, 0));
	dt_call_begin(g);
	dt_call(g, BPF_FUNC_get_current_task);
	ptr = dt_call_end(g);
	for (int i = 0; i < PROGENY_MAX; i++) {
		int p = dt_reg(g), v;

		dt_jmp_imm(g, BPF_JEQ, ptr, 0, done);
		dt_emit(g, I_MOV(p, ptr));
		v = dt_cg_read(g, p, off_pid, 4, BPF_FUNC_probe_read_kernel);
		dt_jmp_reg(g, BPF_JEQ, v, want, yes);
		dt_reg_free(g, v);
		p = dt_reg(g);
		dt_emit(g, I_MOV(p, ptr));
		v = dt_cg_read(g, p, off_parent, 8,
			       BPF_FUNC_probe_read_kernel);
		dt_jmp_reg(g, BPF_JEQ, v, ptr, done);
		dt_emit(g, I_MOV(ptr, v));
		dt_reg_free(g, v);
	}
	dt_jmp(g, done);
	dt_place(g, yes);
	dt_emit(g, I_MOV_IMM(res, 1));
	dt_place(g, done);
	dt_reg_free(g, ptr);
	dt_reg_free(g, want);
	return res;
}

/* ---- inet_ntoa ---- */

static void check_inet_ntoa(struct dt_ck *k, struct dt_node *n)
{
	struct dt_type t = dt_ck_expr(k, n->args[0]);

	if (t.kind != DT_TPTR && !dt_type_is_int(&t))
		dt_error(dt_ck_cc(k), &n->args[0]->loc, "inet_ntoa() needs "
			 "the address of an IPv4 address");
	n->type = strsize_type(k);
}

/* One byte of the address in decimal at d + pos (pos a constant on each
 * path the verifier follows: no loop, at most three digits). */
static void put_octet(struct dt_cg *g, int d, int pos, int b, bool dot)
{
	int c = dt_reg(g), p = dt_reg(g), two = dt_label(g), one = dt_label(g);

#define PUT(reg) do { \
		dt_emit(g, I_MOV(p, d)); \
		dt_emit(g, I_ALU64_REG(BPF_ADD, p, pos)); \
		dt_emit(g, I_STX(BPF_B, p, reg, 0)); \
		dt_emit(g, I_ALU64_IMM(BPF_ADD, pos, 1)); \
	} while (0)
	dt_jmp_imm(g, BPF_JLT, b, 100, two);
	dt_emit(g, I_MOV(c, b));
	dt_emit(g, I_ALU64_IMM(BPF_DIV, c, 100));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, c, '0'));
	PUT(c);
	dt_emit(g, I_MOV(c, b));
	dt_emit(g, I_ALU64_IMM(BPF_DIV, c, 10));
	dt_emit(g, I_ALU64_IMM(BPF_MOD, c, 10));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, c, '0'));
	PUT(c);
	dt_jmp(g, one);
	dt_place(g, two);
	dt_jmp_imm(g, BPF_JLT, b, 10, one);
	dt_emit(g, I_MOV(c, b));
	dt_emit(g, I_ALU64_IMM(BPF_DIV, c, 10));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, c, '0'));
	PUT(c);
	dt_place(g, one);
	dt_emit(g, I_MOV(c, b));
	dt_emit(g, I_ALU64_IMM(BPF_MOD, c, 10));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, c, '0'));
	PUT(c);
	if (dot) {
		dt_emit(g, I_MOV_IMM(c, '.'));
		PUT(c);
	}
#undef PUT
	dt_reg_free(g, p);
	dt_reg_free(g, c);
}

/* inet_ntoa(ipaddr_t *): the 4 bytes there (network order) as a dotted
 * quad; a bad address faults. Built in 16 bytes, then cut to strsize. */
static int cg_inet_ntoa(struct dt_cg *g, struct dt_node *n)
{
	int size = n->type.ssize, room = size > 16 ? size : 16;
	int off = dt_cg_temp(g, (room + 7) & ~7), tmp = dt_cg_temp(g, 8);
	int a = dt_cg_expr(g, n->args[0]), v, d, pos, b;

	dt_cg_read_scratch(g, BPF_FUNC_probe_read_kernel, a, tmp, 4);
	dt_reg_free(g, a);
	v = dt_reg(g);
	d = dt_reg(g);
	pos = dt_reg(g);
	b = dt_reg(g);
	dt_emit(g, I_LDX(BPF_W, v, DT_SCRATCH_REG, tmp));
	dt_cg_scratch_ptr(g, d, off);
	dt_cg_zero(g, d, (room + 7) & ~7);
	dt_emit(g, I_MOV_IMM(pos, 0));
	for (int i = 0; i < 4; i++) {
		dt_emit(g, I_MOV(b, v));
		if (i)
			dt_emit(g, I_ALU64_IMM(BPF_RSH, b, 8 * i));
		dt_emit(g, I_ALU64_IMM(BPF_AND, b, 0xff));
		put_octet(g, d, pos, b, i < 3);
	}
	if (size < 16)
		dt_emit(g, I_ST(BPF_B, d, size - 1, 0));
	dt_reg_free(g, b);
	dt_reg_free(g, pos);
	dt_reg_free(g, v);
	return d;
}

/* inet_ntoa6(struct in6_addr *[, int strict]) (cg_net.c) */
static void check_inet_ntoa6(struct dt_ck *k, struct dt_node *n)
{
	struct dt_cc *cc = dt_ck_cc(k);
	struct dt_type t = dt_ck_expr(k, n->args[0]);
	char b[80];

	dt_type_name(&t, b, sizeof(b));
	if (!null_const(n->args[0]) && strcmp(b, "struct in6_addr *") &&
	    strcmp(b, "in6_addr_t *"))
		dt_cerror(cc, &n->loc, D_PROTO_ARG, "inet_ntoa6( ) argument "
			  "#1 is incompatible with prototype:\n\tprototype: "
			  "struct in6_addr *\n\t argument: %s", b);
	if (n->nargs == 2) {
		struct dt_node *e = n->args[1];

		t = dt_ck_expr(k, e);
		if (e->kind != N_INT || !dt_type_is_int(&t))
			dt_cerror(cc, &n->loc, D_PROTO_ARG, "inet_ntoa6( ) "
				  "argument #2 must be an integer constant");
	}
	n->type = strsize_type(k);
}


/* link_ntop(int type, void *addr) (cg_net.c) */
static void check_link_ntop(struct dt_ck *k, struct dt_node *n)
{
	struct dt_type t;

	need_intarg(k, n, 0);
	t = dt_ck_expr(k, n->args[1]);
	if (t.kind != DT_TPTR && !dt_type_is_int(&t))
		dt_cerror(dt_ck_cc(k), &n->loc, D_PROTO_ARG, "link_ntop( ) "
			  "argument #2 must be an address");
	n->type = strsize_type(k);
}

/* The text at scratch offset text (64 bytes) as a string of the call's
 * size, in a new register. */
static int net_result(struct dt_cg *g, struct dt_node *n, int text)
{
	int size = n->type.ssize, off = dt_cg_temp(g, (size + 7) & ~7), d, s;

	d = dt_reg(g);
	s = dt_reg(g);
	dt_cg_scratch_ptr(g, d, off);
	dt_cg_scratch_ptr(g, s, text);
	dt_cg_strcpy(g, d, size, s, 64);
	dt_reg_free(g, s);
	return d;
}

static int cg_inet_ntoa6(struct dt_cg *g, struct dt_node *n)
{
	int a = dt_cg_expr(g, n->args[0]), text;

	text = dt_cg_inet_ntoa6(g, a, n->nargs == 2 && n->args[1]->ival);
	dt_reg_free(g, a);
	return net_result(g, n, text);
}

/* inet_ntop(int af, void *addr) */
static void check_inet_ntop(struct dt_ck *k, struct dt_node *n)
{
	struct dt_type t;

	need_intarg(k, n, 0);
	t = dt_ck_expr(k, n->args[1]);
	if (t.kind != DT_TPTR && !dt_type_is_int(&t))
		dt_cerror(dt_ck_cc(k), &n->loc, D_PROTO_ARG, "inet_ntop( ) "
			  "argument #2 must be an address");
	n->type = strsize_type(k);
}

/* As dtrace-utils' dt_cg_subr_inet_ntop: af == AF_INET6 ?
 * inet_ntoa6(addr, 1) : inet_ntoa(addr), af known when it runs. */
static int cg_inet_ntop(struct dt_cg *g, struct dt_node *n)
{
	struct dt_node v4 = *n;
	int af = dt_cg_expr(g, n->args[0]), res = dt_reg(g), a, r;
	int four = dt_label(g), done = dt_label(g);

	dt_jmp_imm(g, BPF_JNE, af, 10 /* AF_INET6 */, four);
	dt_reg_free(g, af);
	a = dt_cg_expr(g, n->args[1]);
	r = dt_cg_inet_ntoa6(g, a, true);
	dt_reg_free(g, a);
	r = net_result(g, n, r);
	dt_emit(g, I_MOV(res, r));
	dt_reg_free(g, r);
	dt_jmp(g, done);
	dt_place(g, four);
	v4.args = &n->args[1];
	v4.nargs = 1;
	r = cg_inet_ntoa(g, &v4);
	dt_emit(g, I_MOV(res, r));
	dt_reg_free(g, r);
	dt_place(g, done);
	return res;
}

static int cg_link_ntop(struct dt_cg *g, struct dt_node *n)
{
	int type = dt_cg_expr(g, n->args[0]), a = dt_cg_expr(g, n->args[1]);
	int text = dt_cg_link_ntop(g, type, a);

	dt_reg_free(g, a);
	dt_reg_free(g, type);
	return net_result(g, n, text);
}

/* ---- setopt ---- */

/* setopt(name[, value]): the consumer sets the option when it reads the
 * record (dtrace-utils' dt_setopt). */
static void check_setopt(struct dt_ck *k, struct dt_node *n)
{
	struct dt_action *a = dt_ck_action(k, ACT_SETOPT, n);

	for (int i = 0; i < n->nargs; i++) {
		struct dt_type t = dt_ck_expr(k, n->args[i]);

		if (t.kind != DT_TSTR)
			dt_cerror(dt_ck_cc(k), &n->loc, D_PROTO_ARG, "setopt( ) "
				  "argument #%d is incompatible with prototype:"
				  "\n\tprototype: char *\n\t argument: %s",
				  i + 1, "int");
		dt_ck_recval(k, a, n->args[i]);
	}
}

static int cg_setopt(struct dt_cg *g, struct dt_node *n)
{
	store_vals(g, act_of(g, n), n->args, n->nargs);
	return -1;
}

/* ---- the table ---- */

#define AGG(nm, fn, na) { nm, na, na, true, false, fn, check_agg_dummy, \
			  cg_nothing }
#define AGGN(nm, fn, lo, hi) { nm, lo, hi, true, false, fn, check_agg_dummy, \
			       cg_nothing }
#define LATER(nm) { nm, 0, 99, false, false, AGG_NONE, NULL, NULL }

static const struct dt_func funcs[] = {
	AGG("count", AGG_COUNT, 0),
	AGG("sum", AGG_SUM, 1),
	AGG("avg", AGG_AVG, 1),
	AGG("min", AGG_MIN, 1),
	AGG("max", AGG_MAX, 1),
	AGG("stddev", AGG_STDDEV, 1),
	AGGN("quantize", AGG_QUANTIZE, 1, 2),
	AGGN("lquantize", AGG_LQUANTIZE, 3, 5),
	AGGN("llquantize", AGG_LLQUANTIZE, 5, 6),
	{ "printf", 1, 64, false, true, AGG_NONE, check_printf, cg_printf },
	{ "trace", 1, 1, false, true, AGG_NONE, check_trace, cg_trace },
	{ "exit", 1, 1, false, true, AGG_NONE, check_exit, cg_exit },
	{ "printa", 1, 64, false, true, AGG_NONE, check_printa, cg_nothing },
	{ "copyinstr", 1, 2, false, false, AGG_NONE, check_copyinstr,
	  cg_copyinstr },
	{ "trunc", 1, 2, false, true, AGG_NONE, check_aggact, cg_aggact },
	{ "copyin", 2, 2, false, false, AGG_NONE, check_copyin, cg_copyin },
	{ "print", 1, 1, false, true, AGG_NONE, check_print, cg_print },
	{ "tracemem", 2, 2, false, true, AGG_NONE, check_tracemem,
	  cg_tracemem },
	{ "speculation", 0, 0, false, false, AGG_NONE, check_speculation,
	  cg_speculation },
	{ "speculate", 1, 1, false, true, AGG_NONE, check_speculate,
	  cg_speculate },
	{ "commit", 1, 1, false, true, AGG_NONE, check_speculate, cg_commit },
	{ "discard", 1, 1, false, true, AGG_NONE, check_speculate, cg_commit },
	{ "strlen", 1, 1, false, false, AGG_NONE, check_strfn, cg_strfn },
	{ "index", 2, 3, false, false, AGG_NONE, check_strfn, cg_strfn },
	{ "rindex", 2, 3, false, false, AGG_NONE, check_strfn, cg_strfn },
	{ "strstr", 2, 2, false, false, AGG_NONE, check_strfn, cg_strfn },
	{ "strjoin", 2, 2, false, false, AGG_NONE, check_strfn, cg_strfn },
	{ "substr", 2, 3, false, false, AGG_NONE, check_strfn, cg_strfn },
	{ "strchr", 2, 2, false, false, AGG_NONE, check_strfn, cg_strfn },
	{ "strrchr", 2, 2, false, false, AGG_NONE, check_strfn, cg_strfn },
	{ "toupper", 1, 1, false, false, AGG_NONE, check_strfn, cg_strfn },
	{ "tolower", 1, 1, false, false, AGG_NONE, check_strfn, cg_strfn },
	{ "basename", 1, 1, false, false, AGG_NONE, check_strfn, cg_strfn },
	{ "dirname", 1, 1, false, false, AGG_NONE, check_strfn, cg_strfn },
	{ "lltostr", 1, 2, false, false, AGG_NONE, check_lltostr, cg_strfn },
	{ "raise", 1, 1, false, true, AGG_NONE, check_signal_act,
	  cg_signal_act },
	{ "stop", 0, 0, false, true, AGG_NONE, check_signal_act,
	  cg_signal_act },
	{ "system", 1, 64, false, true, AGG_NONE, check_system, cg_printf },
	{ "freopen", 1, 64, false, true, AGG_NONE, check_freopen, cg_printf },
	{ "ftruncate", 0, 0, false, true, AGG_NONE, check_ftruncate,
	  cg_nothing },
	{ "chill", 1, 1, false, true, AGG_NONE, check_chill, cg_chill },
	{ "clear", 1, 1, false, true, AGG_NONE, check_aggact, cg_aggact },
	{ "normalize", 2, 2, false, true, AGG_NONE, check_aggact, cg_aggact },
	{ "denormalize", 1, 1, false, true, AGG_NONE, check_aggact,
	  cg_aggact },
	{ "stack", 0, 1, false, false, AGG_NONE, check_stack, cg_stack },
	{ "ustack", 0, 2, false, false, AGG_NONE, check_stack, cg_stack },
	{ "strtok", 2, 2, false, false, AGG_NONE, check_strtok, cg_strtok },
	/* D functions that come with the rest of the language */
	{ "alloca", 1, 1, false, false, AGG_NONE, check_alloca, cg_alloca },
	{ "bcopy", 3, 3, false, false, AGG_NONE, check_bcopy, cg_bcopy },
	{ "copyout", 3, 3, false, false, AGG_NONE, check_copyout, cg_copyout },
	{ "copyoutstr", 3, 3, false, false, AGG_NONE, check_copyout,
	  cg_copyout },
	{ "copyinto", 3, 3, false, false, AGG_NONE, check_bcopy, cg_bcopy },
	LATER("jstack"),
	{ "sym", 1, 1, false, false, AGG_NONE, check_sym, cg_sym },
	{ "usym", 1, 1, false, false, AGG_NONE, check_sym, cg_sym },
	{ "mod", 1, 1, false, false, AGG_NONE, check_sym, cg_sym },
	{ "umod", 1, 1, false, false, AGG_NONE, check_sym, cg_sym },
	{ "uaddr", 1, 1, false, false, AGG_NONE, check_sym, cg_sym },
	{ "func", 1, 1, false, false, AGG_NONE, check_sym, cg_sym },
	{ "ufunc", 1, 1, false, false, AGG_NONE, check_sym, cg_sym },
	LATER("printm"),
	{ "setopt", 1, 2, false, true, AGG_NONE, check_setopt, cg_setopt },
	{ "progenyof", 1, 1, false, false, AGG_NONE, check_intfn,
	  cg_progenyof },
	{ "rand", 0, 0, false, false, AGG_NONE, check_intfn, cg_rand },
	{ "htons", 1, 1, false, false, AGG_NONE, check_intfn, cg_hton },
	{ "ntohs", 1, 1, false, false, AGG_NONE, check_intfn, cg_hton },
	{ "htonl", 1, 1, false, false, AGG_NONE, check_intfn, cg_hton },
	{ "ntohl", 1, 1, false, false, AGG_NONE, check_intfn, cg_hton },
	{ "htonll", 1, 1, false, false, AGG_NONE, check_intfn, cg_hton },
	{ "ntohll", 1, 1, false, false, AGG_NONE, check_intfn, cg_hton },
	{ "getmajor", 1, 1, false, false, AGG_NONE, check_intfn, cg_devpart },
	{ "getminor", 1, 1, false, false, AGG_NONE, check_intfn, cg_devpart },
	LATER("mutex_owned"),
	{ "inet_ntoa", 1, 1, false, false, AGG_NONE, check_inet_ntoa,
	  cg_inet_ntoa },
	{ "inet_ntoa6", 1, 2, false, false, AGG_NONE, check_inet_ntoa6,
	  cg_inet_ntoa6 },
	{ "link_ntop", 2, 2, false, false, AGG_NONE, check_link_ntop,
	  cg_link_ntop },
	{ "inet_ntop", 2, 2, false, false, AGG_NONE, check_inet_ntop,
	  cg_inet_ntop },
	LATER("ddi_pathname"), LATER("msgsize"),
	LATER("breakpoint"), LATER("panic"), LATER("strtoll"),
	LATER("d_path"),
};

const struct dt_func *dt_func_lookup(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(funcs); i++)
		if (!strcmp(funcs[i].name, name))
			return &funcs[i];
	return NULL;
}
