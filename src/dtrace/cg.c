// SPDX-License-Identifier: GPL-2.0-only
/* cg — the code generator: a checked program becomes one BPF program per
 * unit (the probes that share a kernel event). Each program saves its
 * context, finds the per-CPU scratch area, leaves when exit() has been
 * called, lets the provider say which probe fired, then runs the clauses
 * enabled on the unit in program order: the provider's guard (for units of
 * many probes), the predicate, the statements, and the record written to
 * the ring buffer. Instructions are appended to a list with labels that
 * are resolved at the end; every instruction remembers the D source it
 * came from, so that a verifier rejection names a line. */
#include "btf.h"
#include "cg.h"
#include "cg_agg.h"
#include "cg_str.h"
#include "xlate.h"
#include "../lib/util.h"

#include <stdlib.h>
#include <string.h>

/* ---- integers ---- */

static struct dt_type promote(struct dt_type t)
{
	if (t.kind == DT_TINT && t.size < 4)
		return dt_int;
	if (t.kind == DT_TPTR)
		return dt_ulong;
	return t;
}

static struct dt_type common(struct dt_type a, struct dt_type b)
{
	a = promote(a);
	b = promote(b);
	if (a.size == b.size)
		return a.sign && b.sign ? a : (a.sign ? b : a);
	return a.size > b.size ? a : b;
}

/* ---- maps ---- */

/* r = lookup(map, key at fp_or_scratch); returns the result register. */
static int cg_lookup(struct dt_cg *g, int map, int key_base, int key_off)
{
	dt_call_begin(g);
	dt_ld_map(g, BPF_REG_1, map);
	dt_emit(g, I_MOV(BPF_REG_2, key_base));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_2, key_off));
	dt_call(g, BPF_FUNC_map_lookup_elem);
	return dt_call_end(g);
}

/* Dereference a possibly-NULL lookup result in r: an integer (0 when
 * absent) or a string pointer (to DTrace's NULL string when absent). */
static void cg_deref(struct dt_cg *g, int r, bool is_str)
{
	int absent = dt_label(g), done = dt_label(g);

	dt_jmp_imm(g, BPF_JEQ, r, 0, absent);
	if (!is_str)
		dt_emit(g, I_LDX(BPF_DW, r, r, 0));
	dt_jmp(g, done);
	dt_place(g, absent);
	if (is_str)
		dt_ld_map_value(g, r, DT_MAP_RODATA, g->p->null_off);
	else
		dt_emit(g, I_MOV_IMM(r, 0));
	dt_place(g, done);
}

/* Pack a tuple key into a new scratch temporary; returns its offset. */
static int cg_key(struct dt_cg *g, struct dt_var *v, struct dt_node **args,
		  int nargs)
{
	int off = dt_cg_temp(g, v->key_size);

	if (v->tls) {
		/* self->a[k]: the thread's id, then the keys */
		int t = dt_reg(g);

		dt_emit(g, I_LDX(BPF_DW, t, BPF_REG_10, DT_FP_TID));
		dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, t, off));
		dt_reg_free(g, t);
	}
	if (!nargs) {
		dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, off, 0));
		return off;
	}
	for (int i = 0; i < nargs; i++)
		dt_cg_store_val(g, args[i], DT_SCRATCH_REG,
				off + v->keys[i].off, &v->keys[i]);
	return off;
}

void dt_cg_store_val(struct dt_cg *g, struct dt_node *e, int ptr, int off,
		     const struct dt_key *k)
{
	int r, d;

	switch (k->kind) {
	case KEY_PROBESTR:
		if (ptr < 0)
			return;
		r = dt_reg(g);
		dt_emit(g, I_LDX(BPF_DW, r, BPF_REG_10, DT_FP_PROBE));
		dt_emit(g, I_STX(BPF_DW, ptr, r, off));
		dt_reg_free(g, r);
		return;
	case KEY_SYM:
		r = dt_cg_expr(g, e);
		dt_emit(g, I_STX(BPF_DW, ptr, r, off));
		dt_reg_free(g, r);
		if (!DT_SYM_USER(k->which)) {
			dt_emit(g, I_ST(BPF_DW, ptr, off +
					offsetof(struct dt_symkey, pid), 0));
			return;
		}
		dt_call_begin(g);
		dt_call(g, BPF_FUNC_get_current_pid_tgid);
		r = dt_call_end(g);
		dt_emit(g, I_ALU64_IMM(BPF_RSH, r, 32));
		dt_emit(g, I_STX(BPF_DW, ptr, r, off +
				 offsetof(struct dt_symkey, pid)));
		dt_reg_free(g, r);
		return;
	case KEY_BYTES: {
		/* a struct's bytes, from wherever it is, padding zeroed */
		int rc;

		d = dt_reg(g);
		dt_emit(g, I_MOV(d, ptr));
		dt_emit(g, I_ALU64_IMM(BPF_ADD, d, off));
		dt_cg_zero(g, d, (k->ssize + 7) & ~7);
		r = dt_cg_addr(g, e);
		dt_call_begin(g);
		dt_call_arg(g, BPF_REG_3, r);
		dt_call_arg(g, BPF_REG_1, d);
		dt_emit(g, I_MOV_IMM(BPF_REG_2, k->ssize));
		dt_call(g, BPF_FUNC_probe_read_kernel);
		rc = dt_call_end(g);
		dt_cg_fault_if_neg(g, rc, r);
		dt_reg_free(g, rc);
		dt_reg_free(g, r);
		dt_reg_free(g, d);
		return;
	}
	case KEY_STR:
		r = dt_cg_expr(g, e);
		dt_cg_str_fault_null(g, r);
		d = dt_reg(g);
		dt_emit(g, I_MOV(d, ptr));
		dt_emit(g, I_ALU64_IMM(BPF_ADD, d, off));
		dt_cg_strcpy(g, d, k->ssize, r, e->type.ssize);
		dt_reg_free(g, d);
		dt_reg_free(g, r);
		return;
	default:
		/* a value is cut to its type where it is kept (cg_binary) */
		r = dt_cg_expr(g, e);
		if (e->type.alloca && dt_type_is_int(&e->type))
			dt_cg_alloca_user(g, r);
		dt_cg_normalize(g, r, &e->type);
		dt_emit(g, I_STX(BPF_DW, ptr, r, off));
		dt_reg_free(g, r);
	}
}

/* ---- variables ---- */

static int var_map(struct dt_var *v)
{
	return DT_MAP_FIRST_VAR + v->map;
}

/* Where an lvalue lives, computed once for read-modify-write. */
struct lval {
	struct dt_node *n;
	struct dt_var *v;	/* NULL: *p, p->m, in alloca()'s memory */
	int key_off;		/* N_INDEX: the packed key in scratch; *p: the
				 * checked offset in alloca()'s memory */
};

static int cg_mem_addr(struct dt_cg *g, struct dt_node *n);

/* The bytes a load or store through a pointer moves. */
static int mem_size(const struct dt_type *t)
{
	return t->kind == DT_TSTR ? t->ssize : t->size;
}

static struct lval lval_of(struct dt_cg *g, struct dt_node *n)
{
	struct lval lv = { n, n->var, -1 };
	int addr, off;

	if (n->kind == N_INDEX && n->var->type.kind == DT_TARRAY) {
		/* an element of an array global: its index */
		int i = dt_cg_expr(g, n->args[0]);

		lv.key_off = dt_cg_temp(g, 8);
		dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, i, lv.key_off));
		dt_reg_free(g, i);
	} else if (n->kind == N_INDEX) {
		lv.key_off = cg_key(g, n->var, n->args, n->nargs);
	}
	if (n->in_mem) {
		/* *p, p->m: the checker let only alloca()'s memory through */
		lv.v = NULL;
		lv.key_off = dt_cg_temp(g, 8);
		addr = cg_mem_addr(g, n);
		off = dt_cg_alloca_check(g, addr, -1, mem_size(&n->type));
		dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, off, lv.key_off));
		dt_reg_free(g, off);
		dt_reg_free(g, addr);
	}
	return lv;
}

/* *p's bytes: the checked offset in alloca()'s memory, compared with the
 * memory's size again where the verifier sees it (never taken). */
static int lval_ptr(struct dt_cg *g, struct lval *lv)
{
	int max = (int)dt_alloca_max(&g->p->opt) - mem_size(&lv->n->type);
	int d = dt_reg(g), ok = dt_label(g);

	dt_emit(g, I_LDX(BPF_DW, d, DT_SCRATCH_REG, lv->key_off));
	dt_jmp_imm(g, BPF_JLE, d, max, ok);
	dt_cg_fault(g, DTRACEFLT_BADADDR, -1);
	dt_place(g, ok);
	return dt_cg_alloca_ptr(g, d);
}

/* a[i] of an array global: the element's address in the globals; an
 * index outside the array faults as DTrace's "index out of bounds". */
static int elem_ptr(struct dt_cg *g, struct lval *lv)
{
	const struct dt_ctype *ct = lv->v->type.ct;
	int d = dt_reg(g), i = dt_reg(g), ok = dt_label(g);

	dt_emit(g, I_LDX(BPF_DW, i, DT_SCRATCH_REG, lv->key_off));
	dt_jmp_imm(g, BPF_JLT, i, (int32_t)ct->nelems, ok);
	dt_cg_fault(g, DTRACEFLT_BADINDEX, i);
	dt_place(g, ok);
	dt_emit(g, I_ALU64_IMM(BPF_MUL, i, (int32_t)dt_type_size(&ct->elem)));
	dt_ld_map_value(g, d, DT_MAP_GLOBALS, lv->v->off);
	dt_emit(g, I_ALU64_REG(BPF_ADD, d, i));
	dt_reg_free(g, i);
	return d;
}

/* Load an lvalue's value (integer) or address (string). */
static int lval_load(struct dt_cg *g, struct lval *lv)
{
	struct dt_var *v = lv->v;
	bool is_str;
	int r;

	if (!v) {
		r = lval_ptr(g, lv);
		dt_emit(g, I_LDX(dt_bpf_size(lv->n->type.size), r, r, 0));
		dt_cg_normalize(g, r, &lv->n->type);
		return r;
	}
	if (v->type.kind == DT_TARRAY) {
		r = elem_ptr(g, lv);
		dt_emit(g, I_LDX(dt_bpf_size(lv->n->type.size), r, r, 0));
		dt_cg_normalize(g, r, &lv->n->type);
		return r;
	}
	is_str = v->type.kind == DT_TSTR;
	switch (v->scope) {
	case DT_GLOBAL:
		r = dt_reg(g);
		dt_ld_map_value(g, r, DT_MAP_GLOBALS, v->off);
		if (!is_str && v->base) {
			/* a struct member or array element: its own size */
			dt_emit(g, I_LDX(dt_bpf_size((int)dt_type_size(&v->type)), r, r, 0));
			dt_cg_normalize(g, r, &v->type);
		} else if (!is_str) {
			dt_emit(g, I_LDX(BPF_DW, r, r, 0));
		}
		return r;
	case DT_THIS:
		r = dt_reg(g);
		if (is_str) {
			dt_cg_scratch_ptr(g, r, g->p->this_off + v->off);
		} else if (v->base) {
			dt_emit(g, I_LDX(dt_bpf_size((int)dt_type_size(&v->type)), r,
					 DT_SCRATCH_REG,
					 g->p->this_off + v->off));
			dt_cg_normalize(g, r, &v->type);
		} else {
			dt_emit(g, I_LDX(BPF_DW, r, DT_SCRATCH_REG,
					 g->p->this_off + v->off));
		}
		return r;
	case DT_SELF:
		r = cg_lookup(g, var_map(v), BPF_REG_10, DT_FP_TID);
		cg_deref(g, r, is_str);
		return r;
	case DT_ARRAY:
		r = cg_lookup(g, var_map(v), DT_SCRATCH_REG, lv->key_off);
		cg_deref(g, r, is_str);
		return r;
	default:
		dt_error(g->cc, &lv->n->loc, "internal error: bad lvalue");
	}
}

/* Store a map element: value bytes at scratch val_off; key at base+off.
 * An integer zero deletes the element, as in DTrace. */
static void map_store(struct dt_cg *g, struct dt_var *v, int key_base,
		      int key_off, int val_off, int zero_test)
{
	int del = dt_label(g), done = dt_label(g);

	dt_call_begin(g);
	if (zero_test >= 0) {
		dt_call_arg(g, BPF_REG_1, zero_test);
		dt_jmp_imm(g, BPF_JEQ, BPF_REG_1, 0, del);
	}
	dt_ld_map(g, BPF_REG_1, var_map(v));
	dt_emit(g, I_MOV(BPF_REG_2, key_base));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_2, key_off));
	dt_emit(g, I_MOV(BPF_REG_3, DT_SCRATCH_REG));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_3, val_off));
	dt_emit(g, I_MOV_IMM(BPF_REG_4, BPF_ANY));
	dt_call(g, BPF_FUNC_map_update_elem);
	dt_jmp_imm(g, BPF_JEQ, BPF_REG_0, 0, done);
	/* A full map drops the value, counted as DTrace's dynamic variable
	 * drops. */
	dt_cg_count(g, DT_SCR(counters.dyndrops));
	dt_jmp(g, done);
	dt_place(g, del);
	if (zero_test >= 0) {
		dt_ld_map(g, BPF_REG_1, var_map(v));
		dt_emit(g, I_MOV(BPF_REG_2, key_base));
		dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_2, key_off));
		dt_call(g, BPF_FUNC_map_delete_elem);
	}
	dt_place(g, done);
	dt_call_end_void(g);
}

/* Store value register r (integer, or string pointer of src_size). */
static void lval_store(struct dt_cg *g, struct lval *lv, int r, int src_size)
{
	struct dt_var *v = lv->v;
	bool is_str;
	int d, tmp;

	if (!v) {
		d = lval_ptr(g, lv);
		if (lv->n->type.kind == DT_TSTR)
			dt_cg_strcpy(g, d, lv->n->type.ssize, r, src_size);
		else
			dt_emit(g, I_STX(dt_bpf_size(lv->n->type.size), d, r,
					 0));
		dt_reg_free(g, d);
		return;
	}
	if (v->type.kind == DT_TARRAY) {
		d = elem_ptr(g, lv);
		dt_emit(g, I_STX(dt_bpf_size(lv->n->type.size), d, r, 0));
		dt_reg_free(g, d);
		return;
	}
	is_str = v->type.kind == DT_TSTR;
	switch (v->scope) {
	case DT_GLOBAL:
		d = dt_reg(g);
		dt_ld_map_value(g, d, DT_MAP_GLOBALS, v->off);
		if (is_str)
			dt_cg_strcpy(g, d, v->type.ssize, r, src_size);
		else
			dt_emit(g, I_STX(v->base ? dt_bpf_size((int)dt_type_size(&v->type)) :
					 BPF_DW, d, r, 0));
		dt_reg_free(g, d);
		return;
	case DT_THIS:
		if (!is_str) {
			dt_emit(g, I_STX(v->base ? dt_bpf_size((int)dt_type_size(&v->type)) :
					 BPF_DW, DT_SCRATCH_REG, r,
					 g->p->this_off + v->off));
			return;
		}
		d = dt_reg(g);
		dt_cg_scratch_ptr(g, d, g->p->this_off + v->off);
		dt_cg_strcpy(g, d, v->type.ssize, r, src_size);
		dt_reg_free(g, d);
		return;
	case DT_SELF:
	case DT_ARRAY:
		tmp = dt_cg_temp(g, v->val_size);
		if (is_str) {
			d = dt_reg(g);
			dt_cg_scratch_ptr(g, d, tmp);
			dt_cg_strcpy(g, d, v->val_size, r, src_size);
			dt_reg_free(g, d);
		} else {
			dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, r, tmp));
		}
		if (v->scope == DT_SELF)
			map_store(g, v, BPF_REG_10, DT_FP_TID, tmp,
				  is_str ? -1 : r);
		else
			map_store(g, v, DT_SCRATCH_REG, lv->key_off, tmp,
				  is_str ? -1 : r);
		return;
	default:
		dt_error(g->cc, &lv->n->loc, "internal error: bad lvalue");
	}
}

/* ---- built-in variables ---- */

static int cg_helper0(struct dt_cg *g, int helper)
{
	dt_call_begin(g);
	dt_call(g, helper);
	return dt_call_end(g);
}

/* stackdepth, ustackdepth: the frames bpf_get_stack() finds; caller,
 * ucaller: the second frame's address (dtrace-utils' get_bvar). BEGIN,
 * END and ERROR run in sonde's own process, not in a traced context:
 * 0, as in DTrace. */
static int cg_stackvar(struct dt_cg *g, int bi)
{
	bool depth = bi == BI_STACKDEPTH || bi == BI_USTACKDEPTH;
	bool user = bi == BI_USTACKDEPTH || bi == BI_UCALLER;
	uint64_t frames = g->p->opt.maxframes;
	int size, off, r, ok = dt_label(g);

	if (!frames || frames > 127)	/* perf_event_max_stack */
		frames = 127;
	size = depth ? (int)frames * 8 : 16;

	if (g->u->prov == &dt_prov_dtrace)
		return dt_cg_const(g, 0);
	off = dt_cg_temp(g, size);
	if (!depth) {
		dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, off, 0));
		dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, off + 8, 0));
	}
	dt_call_begin(g);
	dt_emit(g, I_LDX(BPF_DW, BPF_REG_1, BPF_REG_10, DT_FP_CTX));
	dt_emit(g, I_MOV(BPF_REG_2, DT_SCRATCH_REG));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_2, off));
	dt_emit(g, I_MOV_IMM(BPF_REG_3, size));
	dt_emit(g, I_MOV_IMM(BPF_REG_4, user ? BPF_F_USER_STACK : 0));
	dt_call(g, BPF_FUNC_get_stack);
	r = dt_call_end(g);
	if (!depth) {
		dt_emit(g, I_LDX(BPF_DW, r, DT_SCRATCH_REG, off + 8));
		return r;
	}
	dt_jmp_imm(g, BPF_JSGE, r, 0, ok);
	dt_emit(g, I_MOV_IMM(r, 0));
	dt_place(g, ok);
	dt_emit(g, I_ALU64_IMM(BPF_RSH, r, 3));
	return r;
}

/* uregs[i]: the current task's user registers, pt_regs[i] (through
 * bpf_task_pt_regs()), or for 21..25 its thread's ds, es, fsbase,
 * gsbase and trap_nr (x86_64, as dtrace-utils). */
static int cg_uregs(struct dt_cg *g, int i)
{
	static const char *const thread[] = { "ds", "es", "fsbase", "gsbase",
					      "trap_nr" };
	static const int size[] = { 2, 2, 8, 8, 8 };
	int r;

	if (i >= 21) {
		int off = dt_btf_member_offset("task_struct", "thread"), m;

		m = dt_btf_member_offset("thread_struct", thread[i - 21]);
		if (off < 0 || m < 0)
			dt_error(g->cc, &g->loc, "uregs[%d] needs the kernel's "
				 "BTF for task_struct.thread.%s", i,
				 thread[i - 21]);
		r = cg_helper0(g, BPF_FUNC_get_current_task);
		return dt_cg_read(g, r, off + m, size[i - 21],
				  BPF_FUNC_probe_read_kernel);
	}
	dt_call_begin(g);
	dt_call(g, BPF_FUNC_get_current_task_btf);
	dt_emit(g, I_MOV(BPF_REG_1, BPF_REG_0));
	dt_call(g, BPF_FUNC_task_pt_regs);
	r = dt_call_end(g);
	return dt_cg_read(g, r, i * 8, 8, BPF_FUNC_probe_read_kernel);
}

static int cg_builtin(struct dt_cg *g, struct dt_node *n)
{
	const struct dt_provider *pv = g->u->prov;
	int r, t, off;

	/* sched:::on-cpu: the task coming on is "current" */
	if (pv->cg_builtin && (r = pv->cg_builtin(g, n->bi)) >= 0)
		return r;
	switch (n->bi) {
	case BI_PID:
		r = cg_helper0(g, BPF_FUNC_get_current_pid_tgid);
		dt_emit(g, I_ALU64_IMM(BPF_RSH, r, 32));
		return r;
	case BI_TID:
		r = cg_helper0(g, BPF_FUNC_get_current_pid_tgid);
		dt_cg_normalize(g, r, &n->type);
		return r;
	case BI_UID:
		r = cg_helper0(g, BPF_FUNC_get_current_uid_gid);
		dt_emit(g, I_MOV32(r, r));
		return r;
	case BI_GID:
		r = cg_helper0(g, BPF_FUNC_get_current_uid_gid);
		dt_emit(g, I_ALU64_IMM(BPF_RSH, r, 32));
		return r;
	case BI_TIMESTAMP: {
		/* one value per probe firing, as in DTrace */
		int have = dt_label(g);

		r = dt_reg(g);
		dt_emit(g, I_LDX(BPF_DW, r, BPF_REG_10, DT_FP_TS));
		dt_jmp_imm(g, BPF_JNE, r, 0, have);
		t = cg_helper0(g, BPF_FUNC_ktime_get_ns);
		dt_emit(g, I_STX(BPF_DW, BPF_REG_10, t, DT_FP_TS));
		dt_emit(g, I_MOV(r, t));
		dt_reg_free(g, t);
		dt_place(g, have);
		return r;
	}
	case BI_WALLTIMESTAMP:
		r = cg_helper0(g, BPF_FUNC_ktime_get_ns);
		t = dt_reg(g);
		dt_ld_imm64(g, t, (uint64_t)g->wall_offset);
		dt_emit(g, I_ALU64_REG(BPF_ADD, r, t));
		dt_reg_free(g, t);
		return r;
	case BI_CPU:
		return cg_helper0(g, BPF_FUNC_get_smp_processor_id);
	case BI_PPID:
	case BI_VTIMESTAMP:
		t = cg_helper0(g, BPF_FUNC_get_current_task);
		if (n->bi == BI_VTIMESTAMP)
			return dt_cg_read(g, t, g->off_sum_exec, 8,
					  BPF_FUNC_probe_read_kernel);
		r = dt_cg_read(g, t, g->off_real_parent, 8,
			       BPF_FUNC_probe_read_kernel);
		t = dt_cg_read(g, r, g->off_tgid, 4,
			       BPF_FUNC_probe_read_kernel);
		dt_cg_normalize(g, t, &n->type);
		return t;
	case BI_EXECNAME: {
		off = dt_cg_temp(g, 16);

		dt_call_begin(g);
		dt_emit(g, I_MOV(BPF_REG_1, DT_SCRATCH_REG));
		dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_1, off));
		dt_emit(g, I_MOV_IMM(BPF_REG_2, 16));
		dt_call(g, BPF_FUNC_get_current_comm);
		dt_call_end_void(g);
		r = dt_reg(g);
		dt_cg_scratch_ptr(g, r, off);
		return r;
	}
	case BI_PROBEPROV: case BI_PROBEMOD: case BI_PROBEFUNC:
	case BI_PROBENAME:
		return pv->cg_probestr(g, n->bi - BI_PROBEPROV);
	case BI_ERRNO:
		if (pv->cg_errno)
			return pv->cg_errno(g);
		r = dt_reg(g);
		dt_emit(g, I_MOV_IMM(r, 0));
		return r;
	case BI_EPID:
		r = dt_reg(g);
		dt_emit(g, I_MOV_IMM(r, g->cl->index + 1));
		return r;
	case BI_ID:
		r = dt_reg(g);
		dt_emit(g, I_LDX(BPF_DW, r, BPF_REG_10, DT_FP_PROBE));
		return r;
	case BI_CURPSINFO: case BI_CURLWPSINFO: case BI_CURTHREAD:
		return cg_helper0(g, BPF_FUNC_get_current_task);
	case BI_PSET: case BI_CHIP: case BI_LGRP: {
		static const char *const m[] = { "cpu_pset", "cpu_chip",
						 "cpu_lgrp" };
		struct dt_type mt;
		int idx;

		dt_xlate_member(DT_XL_CPUINFO, m[n->bi - BI_PSET], &mt, &idx);
		return dt_xlate_cg(g, DT_XL_CPUINFO, idx, dt_cg_const(g, 0));
	}
	case BI_CURCPU:
		/* an address that is this CPU's: its scratch area */
		off = dt_cg_temp(g, 8);
		r = dt_reg(g);
		/* through memory: a number, not a pointer, to the verifier */
		dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, DT_SCRATCH_REG, off));
		dt_emit(g, I_LDX(BPF_DW, r, DT_SCRATCH_REG, off));
		return r;
	case BI_STACKDEPTH: case BI_USTACKDEPTH:
	case BI_CALLER: case BI_UCALLER:
		return cg_stackvar(g, n->bi);
	default:
		if (n->bi >= BI_ARG0 && n->bi <= BI_ARG9) {
			if (pv->cg_arg)
				return pv->cg_arg(g, n->bi - BI_ARG0);
			r = dt_reg(g);
			dt_emit(g, I_MOV_IMM(r, 0));
			return r;
		}
		dt_error(g->cc, &n->loc, "internal error: built-in %s",
			 n->name);
	}
}

/* The address of an object in memory: *p is at p, p->m and s.m at the
 * struct's address plus m's offset. */
static int cg_mem_addr(struct dt_cg *g, struct dt_node *n)
{
	int r;

	if (n->kind == N_UNARY && n->op == T_STAR)
		return dt_cg_expr(g, n->a);
	if (n->kind == N_MEMBER && n->in_mem) {
		r = n->op == T_ARROW ? dt_cg_expr(g, n->a) :
		    dt_cg_addr(g, n->a);
		/* p->m of a NULL p faults at address 0, not at m's offset
		 * (dtrace-utils checks the pointer first) */
		if (n->op == T_ARROW && n->ival)
			dt_cg_fault_if_zero(g, r, DTRACEFLT_BADADDR);
		if (n->ival)
			dt_emit(g, I_ALU64_IMM(BPF_ADD, r, (int32_t)n->ival));
		return r;
	}
	dt_error(g->cc, &n->loc, "internal error: not an object in memory");
}

/* An object in memory (*p, p->m): its bytes read with
 * bpf_probe_read_kernel (the globals map and kernel memory alike); a bad
 * address faults. */
static int cg_mem_load(struct dt_cg *g, struct dt_node *n)
{
	int tmp = dt_cg_temp(g, 8), addr = cg_mem_addr(g, n), r;
	int size = (int)dt_type_size(&n->type);

	/* a kernel bit-field: the bytes its bits span */
	if (n->type.kbits) {
		int nb = (n->type.bit_off + n->type.bits + 7) / 8;

		size = nb <= 1 ? 1 : nb <= 2 ? 2 : nb <= 4 ? 4 : 8;
	}

	if (n->type.kind == DT_TSTR) {
		/* *(string *)p: the string there, its bytes in alloca()'s
		 * memory checked first */
		int ssize = n->type.ssize, st = dt_cg_temp(g, (ssize + 8) & ~7);

		if (n->in_alloca)
			dt_reg_free(g, dt_cg_alloca_check(g, addr, -1, ssize));
		r = dt_reg(g);
		dt_cg_scratch_ptr(g, r, st);
		dt_cg_zero(g, r, (ssize + 8) & ~7);
		dt_reg_free(g, r);
		dt_cg_read_scratch(g, BPF_FUNC_probe_read_kernel_str, addr, st,
				   ssize);
		dt_reg_free(g, addr);
		r = dt_reg(g);
		dt_cg_scratch_ptr(g, r, st);
		return r;
	}
	if (n->type.kind != DT_TINT && n->type.kind != DT_TPTR)
		dt_error(g->cc, &n->loc, "internal error: reading a %s from "
			 "memory", n->type.kind == DT_TSOU ? "struct" :
			 "non-integer");
	if (n->in_alloca) {
		/* alloca()'s memory: its bytes checked, then read */
		int off = dt_cg_alloca_check(g, addr, -1, size);

		dt_reg_free(g, addr);
		r = dt_cg_alloca_ptr(g, off);
		dt_emit(g, I_LDX(dt_bpf_size(size), r, r, 0));
		dt_cg_normalize(g, r, &n->type);
		return r;
	}
	dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, tmp, 0));
	dt_cg_read_scratch(g, BPF_FUNC_probe_read_kernel, addr, tmp, size);
	dt_reg_free(g, addr);
	r = dt_reg(g);
	dt_emit(g, I_LDX(size == 1 ? BPF_B : size == 2 ? BPF_H : size == 4 ?
			 BPF_W : BPF_DW, r, DT_SCRATCH_REG, tmp));
	if (n->type.kbits && n->type.bit_off)
		dt_emit(g, I_ALU64_IMM(BPF_RSH, r, n->type.bit_off));
	dt_cg_normalize(g, r, &n->type);
	return r;
}

int dt_cg_addr(struct dt_cg *g, struct dt_node *n)
{
	struct dt_var *v = n->var;
	int r;

	if (n->kind == N_ADDR)
		return dt_cg_addr(g, n->a);
	if (n->in_mem)
		return cg_mem_addr(g, n);
	if (n->kind == N_INDEX && v && v->type.kind == DT_TARRAY) {
		struct lval lv = lval_of(g, n);

		return elem_ptr(g, &lv);
	}
	if ((n->kind == N_VAR || n->kind == N_THIS) && v &&
	    (v->scope == DT_GLOBAL || v->scope == DT_THIS)) {
		r = dt_reg(g);
		if (v->scope == DT_THIS)
			dt_cg_scratch_ptr(g, r, g->p->this_off + v->off);
		else
			dt_ld_map_value(g, r, DT_MAP_GLOBALS, v->off);
		return r;
	}
	if ((n->kind == N_SELF && v && v->scope == DT_SELF) ||
	    (n->kind == N_INDEX && v && v->scope == DT_ARRAY)) {
		/* a dynamic variable's value (a struct): where the map
		 * keeps it, 0 when it has none, as a number (read with
		 * bpf_probe_read_kernel, as memory is) */
		int tmp = dt_cg_temp(g, 8);

		if (n->kind == N_SELF) {
			r = cg_lookup(g, var_map(v), BPF_REG_10, DT_FP_TID);
		} else {
			struct lval lv = lval_of(g, n);

			r = cg_lookup(g, var_map(v), DT_SCRATCH_REG,
				      lv.key_off);
		}
		dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, r, tmp));
		dt_emit(g, I_LDX(BPF_DW, r, DT_SCRATCH_REG, tmp));
		return r;
	}
	dt_error(g->cc, &n->loc, "internal error: no address");
}

/* stringof(ptr): the string at ptr in kernel memory (a copyin() buffer
 * is kernel memory too); a bad address faults. */
static int cg_stringof(struct dt_cg *g, struct dt_node *n)
{
	int size = (n->type.ssize + 7) & ~7, tmp = dt_cg_temp(g, size);
	int addr = dt_cg_expr(g, n->a), r = dt_reg(g);

	dt_cg_scratch_ptr(g, r, tmp);
	dt_cg_zero(g, r, size);
	dt_reg_free(g, r);
	dt_cg_read_scratch(g, BPF_FUNC_probe_read_kernel_str, addr, tmp,
			   n->type.ssize);
	dt_reg_free(g, addr);
	r = dt_reg(g);
	dt_cg_scratch_ptr(g, r, tmp);
	return r;
}

/* ---- expressions ---- */

static void cg_cond(struct dt_cg *g, struct dt_node *n, int false_label);

static int jmp_op(int op, bool sign, bool negate)
{
	static const int ops[][4] = {
		/* op: unsigned, signed, negated unsigned, negated signed */
		[0] = { BPF_JEQ, BPF_JEQ, BPF_JNE, BPF_JNE },
		[1] = { BPF_JNE, BPF_JNE, BPF_JEQ, BPF_JEQ },
		[2] = { BPF_JLT, BPF_JSLT, BPF_JGE, BPF_JSGE },
		[3] = { BPF_JGT, BPF_JSGT, BPF_JLE, BPF_JSLE },
		[4] = { BPF_JLE, BPF_JSLE, BPF_JGT, BPF_JSGT },
		[5] = { BPF_JGE, BPF_JSGE, BPF_JLT, BPF_JSLT },
	};
	int i;

	switch (op) {
	case T_EQ: i = 0; break;
	case T_NE: i = 1; break;
	case T_LT: i = 2; break;
	case T_GT: i = 3; break;
	case T_LE: i = 4; break;
	default: i = 5; break;
	}
	return ops[i][(negate ? 2 : 0) + (sign ? 1 : 0)];
}

/* s (a string pointer) becomes 0 when it is NULL, 1 else. */
static void str_nonnull(struct dt_cg *g, int s)
{
	int null = dt_label(g), done = dt_label(g);

	dt_cg_str_if_null(g, s, true, null);
	dt_emit(g, I_MOV_IMM(s, 1));
	dt_jmp(g, done);
	dt_place(g, null);
	dt_emit(g, I_MOV_IMM(s, 0));
	dt_place(g, done);
}

static bool is_compare(int op)
{
	return op == T_EQ || op == T_NE || op == T_LT || op == T_GT ||
	       op == T_LE || op == T_GE;
}

/* Evaluate both sides of a comparison; leaves registers and the
 * signedness. For strings: a = strcmp result, b = -1 (compare with 0). */
static void cg_compare_operands(struct dt_cg *g, struct dt_node *n, int *ra,
				int *rb, bool *sign)
{
	if ((n->a->type.kind == DT_TSTR) != (n->b->type.kind == DT_TSTR)) {
		/* s == NULL: a NULL string is 0, any other 1 */
		bool left = n->a->type.kind == DT_TSTR;
		int s = dt_cg_expr(g, left ? n->a : n->b), z = dt_reg(g);

		str_nonnull(g, s);
		dt_emit(g, I_MOV_IMM(z, 0));
		*ra = left ? s : z;
		*rb = left ? z : s;
		*sign = false;
		return;
	}
	if (n->a->type.kind == DT_TSTR) {
		/* NULL is below every other string and equal to NULL (the
		 * difference of their non-NULL flags), as DTrace compares
		 * the pointers when one is NULL */
		int a = dt_cg_expr(g, n->a), b = dt_cg_expr(g, n->b);
		int na = dt_reg(g), nb = dt_reg(g), cmp = dt_label(g),
		    done = dt_label(g), r;

		dt_emit(g, I_MOV(na, a));
		str_nonnull(g, na);
		dt_emit(g, I_MOV(nb, b));
		str_nonnull(g, nb);
		r = dt_reg(g);
		dt_emit(g, I_MOV(r, na));
		dt_emit(g, I_ALU64_REG(BPF_AND, r, nb));
		dt_jmp_imm(g, BPF_JNE, r, 0, cmp);
		dt_reg_free(g, r);
		dt_emit(g, I_ALU64_REG(BPF_SUB, na, nb));
		dt_jmp(g, done);
		dt_place(g, cmp);
		r = dt_cg_strcmp(g, a, n->a->type.ssize, b, n->b->type.ssize);
		dt_emit(g, I_MOV(na, r));
		dt_reg_free(g, r);
		dt_place(g, done);
		dt_reg_free(g, nb);
		dt_reg_free(g, b);
		dt_reg_free(g, a);
		*ra = na;
		*rb = -1;
		*sign = true;
		return;
	}
	struct dt_type c = common(n->a->type, n->b->type);

	*ra = dt_cg_expr(g, n->a);
	dt_cg_normalize(g, *ra, &c);
	*rb = dt_cg_expr(g, n->b);
	dt_cg_normalize(g, *rb, &c);
	*sign = c.sign;
}

static void cg_cond(struct dt_cg *g, struct dt_node *n, int false_label)
{
	if (n->kind == N_BINARY && is_compare(n->op)) {
		int ra, rb;
		bool sign;

		cg_compare_operands(g, n, &ra, &rb, &sign);
		if (rb < 0)
			dt_jmp_imm(g, jmp_op(n->op, true, true), ra, 0,
				   false_label);
		else
			dt_jmp_reg(g, jmp_op(n->op, sign, true), ra, rb,
				   false_label);
		dt_reg_free(g, rb);
		dt_reg_free(g, ra);
		return;
	}
	if (n->kind == N_LOGICAL && n->op == T_LAND) {
		cg_cond(g, n->a, false_label);
		cg_cond(g, n->b, false_label);
		return;
	}
	if (n->kind == N_LOGICAL && n->op == T_LOR) {
		int second = dt_label(g), yes = dt_label(g);

		cg_cond(g, n->a, second);
		dt_jmp(g, yes);
		dt_place(g, second);
		cg_cond(g, n->b, false_label);
		dt_place(g, yes);
		return;
	}
	int r = dt_cg_expr(g, n);

	if (n->type.kind == DT_TSTR) {
		/* A string is true when it is not empty. */
		dt_emit(g, I_LDX(BPF_B, r, r, 0));
	}
	dt_jmp_imm(g, BPF_JEQ, r, 0, false_label);
	dt_reg_free(g, r);
}

/* 0 or 1 in a register from a condition. */
static int cg_bool(struct dt_cg *g, struct dt_node *n)
{
	int no = dt_label(g), done = dt_label(g), r;

	cg_cond(g, n, no);
	r = dt_reg(g);
	dt_emit(g, I_MOV_IMM(r, 1));
	dt_jmp(g, done);
	dt_place(g, no);
	dt_emit(g, I_MOV_IMM(r, 0));
	dt_place(g, done);
	return r;
}

/* a = a op b for integers of type t (b is freed). */
static void cg_arith(struct dt_cg *g, int op, int a, int b,
		     const struct dt_type *t)
{
	int alu = BPF_ADD;

	switch (op) {
	case T_PLUS: case T_ADD_ASSIGN: alu = BPF_ADD; break;
	case T_MINUS: case T_SUB_ASSIGN: alu = BPF_SUB; break;
	case T_STAR: case T_MUL_ASSIGN: alu = BPF_MUL; break;
	case T_AMP: case T_AND_ASSIGN: alu = BPF_AND; break;
	case T_PIPE: case T_OR_ASSIGN: alu = BPF_OR; break;
	case T_CARET: case T_XOR_ASSIGN: alu = BPF_XOR; break;
	case T_SHL: case T_SHL_ASSIGN: alu = BPF_LSH; break;
	case T_SHR: case T_SHR_ASSIGN:
		alu = t->sign ? BPF_ARSH : BPF_RSH;
		break;
	case T_SLASH: case T_DIV_ASSIGN:
	case T_PERCENT: case T_MOD_ASSIGN: {
		bool mod = op == T_PERCENT || op == T_MOD_ASSIGN;

		dt_cg_fault_if_zero(g, b, DTRACEFLT_DIVZERO);
		if (!t->sign) {
			alu = mod ? BPF_MOD : BPF_DIV;
			dt_emit(g, I_ALU64_REG(alu, a, b));
			break;
		}
		/* Signed: divide magnitudes, then negate when the signs
		 * differ, the remainder too (dtrace-utils'
		 * dt_cg_arithmetic_op: 19 % -5 is -4, -19 % -5 is 4). */
		int neg = dt_reg(g), l1 = dt_label(g), l2 = dt_label(g),
		    l3 = dt_label(g);

		dt_emit(g, I_MOV_IMM(neg, 0));
		dt_jmp_imm(g, BPF_JSGE, a, 0, l1);
		dt_emit(g, I_ALU64_IMM(BPF_NEG, a, 0));
		dt_emit(g, I_MOV_IMM(neg, 1));
		dt_place(g, l1);
		dt_jmp_imm(g, BPF_JSGE, b, 0, l2);
		dt_emit(g, I_ALU64_IMM(BPF_NEG, b, 0));
		dt_emit(g, I_ALU64_IMM(BPF_XOR, neg, 1));
		dt_place(g, l2);
		dt_emit(g, I_ALU64_REG(mod ? BPF_MOD : BPF_DIV, a, b));
		dt_jmp_imm(g, BPF_JEQ, neg, 0, l3);
		dt_emit(g, I_ALU64_IMM(BPF_NEG, a, 0));
		dt_place(g, l3);
		dt_reg_free(g, neg);
		dt_reg_free(g, b);
		return;
	}
	default:
		dt_error(g->cc, &g->loc, "internal error: operator %s",
			 dt_tok_name(op));
	}
	if (alu == BPF_LSH || alu == BPF_RSH || alu == BPF_ARSH) {
		/* Shift counts wrap at the width, as on the hardware. */
		dt_emit(g, I_ALU64_IMM(BPF_AND, b, 63));
	}
	if (alu != BPF_DIV && alu != BPF_MOD)
		dt_emit(g, I_ALU64_REG(alu, a, b));
	dt_reg_free(g, b);
}

/* An integer constant (a literal, perhaps negated). */
static bool const_int(const struct dt_node *n, int64_t *v)
{
	int64_t x;

	if (n->kind == N_INT) {
		*v = (int64_t)n->ival;
		return true;
	}
	if (n->kind != N_UNARY || !const_int(n->a, &x))
		return false;
	switch (n->op) {
	case T_MINUS: *v = (int64_t)-(uint64_t)x; return true;
	case T_PLUS: *v = x; return true;
	case T_TILDE: *v = ~x; return true;
	default: return false;
	}
}

static int cg_binary(struct dt_cg *g, struct dt_node *n)
{
	struct dt_type c;
	int a, b;
	int64_t x, y;

	if (is_compare(n->op))
		return cg_bool(g, n);
	/* Constants divide as DTrace folds them, by C's rules (7 % -3 is
	 * 1); at run time a remainder takes the quotient's sign (cg_arith) */
	if ((n->op == T_SLASH || n->op == T_PERCENT) &&
	    n->type.kind == DT_TINT && const_int(n->a, &x) &&
	    const_int(n->b, &y) && y != 0 &&
	    !(n->type.sign && x == INT64_MIN && y == -1)) {
		uint64_t r;

		if (n->type.sign)
			r = (uint64_t)(n->op == T_SLASH ? x / y : x % y);
		else
			r = n->op == T_SLASH ? (uint64_t)x / (uint64_t)y :
			    (uint64_t)x % (uint64_t)y;
		a = dt_reg(g);
		dt_ld_imm64(g, a, r);
		c = n->type;
		dt_cg_normalize(g, a, &c);
		return a;
	}
	a = dt_cg_expr(g, n->a);
	b = dt_cg_expr(g, n->b);
	/* Pointer arithmetic scales by the size pointed to. */
	if (n->type.kind == DT_TPTR && (n->op == T_PLUS || n->op == T_MINUS)) {
		bool a_ptr = n->a->type.kind == DT_TPTR;
		int idx = a_ptr ? b : a, scale = (int)dt_ptr_step(&n->type);

		if (scale > 1)
			dt_emit(g, I_ALU64_IMM(BPF_MUL, idx, scale));
		if (!a_ptr) {
			dt_emit(g, I_ALU64_REG(BPF_ADD, b, a));
			dt_reg_free(g, a);
			return b;
		}
		dt_emit(g, I_ALU64_REG(n->op == T_PLUS ? BPF_ADD : BPF_SUB,
				       a, b));
		dt_reg_free(g, b);
		return a;
	}
	if (n->op == T_MINUS && n->a->type.kind == DT_TPTR &&
	    n->b->type.kind == DT_TPTR) {
		dt_emit(g, I_ALU64_REG(BPF_SUB, a, b));
		dt_reg_free(g, b);
		if (dt_ptr_step(&n->a->type) > 1)
			dt_emit(g, I_ALU64_IMM(BPF_DIV, a, (int32_t)
					       dt_ptr_step(&n->a->type)));
		return a;
	}
	/* As dtrace-utils: the operation is done on the 64-bit registers,
	 * and the result is cut to its type only where it is stored or
	 * traced ((i * j) / j is i even when i * j overflows an int). A
	 * right shift of a narrow unsigned value must not see sign bits. */
	c = n->type;
	if (n->op == T_SHR && !c.sign)
		dt_cg_normalize(g, a, &c);
	cg_arith(g, n->op, a, b, &c);
	return a;
}

static int cg_logical(struct dt_cg *g, struct dt_node *n)
{
	if (n->op != T_LXOR)
		return cg_bool(g, n);
	int a = dt_cg_expr(g, n->a), b = dt_cg_expr(g, n->b);
	int l1 = dt_label(g), l2 = dt_label(g);

	/* a = (a != 0) ^ (b != 0) */
	dt_jmp_imm(g, BPF_JEQ, a, 0, l1);
	dt_emit(g, I_MOV_IMM(a, 1));
	dt_place(g, l1);
	dt_jmp_imm(g, BPF_JEQ, b, 0, l2);
	dt_emit(g, I_MOV_IMM(b, 1));
	dt_place(g, l2);
	dt_emit(g, I_ALU64_REG(BPF_XOR, a, b));
	dt_reg_free(g, b);
	return a;
}

static int cg_ternary(struct dt_cg *g, struct dt_node *n)
{
	int no = dt_label(g), done = dt_label(g), r, v;
	bool is_str = n->type.kind == DT_TSTR;
	int tmp = is_str ? dt_cg_temp(g, n->type.ssize) : -1;

	cg_cond(g, n->a, no);
	r = dt_reg(g);
	for (int side = 0; side < 2; side++) {
		struct dt_node *e = side ? n->c : n->b;

		if (side) {
			dt_place(g, no);
		}
		v = dt_cg_expr(g, e);
		if (is_str) {
			dt_cg_scratch_ptr(g, r, tmp);
			dt_cg_strcpy(g, r, n->type.ssize, v, e->type.ssize);
		} else {
			dt_cg_normalize(g, v, &n->type);
			dt_emit(g, I_MOV(r, v));
		}
		dt_reg_free(g, v);
		if (!side)
			dt_jmp(g, done);
	}
	dt_place(g, done);
	return r;
}

/* The address of a struct or union variable's bytes (global or this->). */
static void map_store(struct dt_cg *g, struct dt_var *v, int key_base,
		      int key_off, int val_off, int zero_test);
static int sou_ptr(struct dt_cg *g, const struct dt_var *v);

static int cg_sou_store(struct dt_cg *g, struct dt_node *n, uint64_t size)
{
	struct dt_var *v = n->a->var;
	int tmp, src, d, t;
	struct lval lv;

	if (n->b->kind == N_INT) {
		/* = 0: the element deleted */
		lv = lval_of(g, n->a);
		t = dt_cg_const(g, 0);
		if (v->scope == DT_SELF)
			map_store(g, v, BPF_REG_10, DT_FP_TID, -1, t);
		else
			map_store(g, v, DT_SCRATCH_REG, lv.key_off, -1, t);
		return t;
	}
	tmp = dt_cg_temp(g, (int)((size + 7) & ~7ull));
	src = dt_cg_addr(g, n->b);
	dt_cg_read_scratch(g, BPF_FUNC_probe_read_kernel, src, tmp,
			   (int32_t)size);
	dt_reg_free(g, src);
	if (v->scope == DT_SELF || v->scope == DT_ARRAY) {
		lv = lval_of(g, n->a);
		if (v->scope == DT_SELF)
			map_store(g, v, BPF_REG_10, DT_FP_TID, tmp, -1);
		else
			map_store(g, v, DT_SCRATCH_REG, lv.key_off, tmp, -1);
		return dt_cg_const(g, 0);
	}
	if (tmp + size > INT16_MAX)
		dt_error(g->cc, &n->loc, "not supported: copying %llu bytes "
			 "into a global or this-> variable in this version",
			 (unsigned long long)size);
	d = sou_ptr(g, v);
	t = dt_reg(g);
	for (uint64_t off = 0; off < size;) {
		int w = size - off >= 8 ? 8 : size - off >= 4 ? 4 :
			size - off >= 2 ? 2 : 1;

		dt_emit(g, I_LDX(dt_bpf_size(w), t, DT_SCRATCH_REG,
				 (int16_t)(tmp + (int)off)));
		dt_emit(g, I_STX(dt_bpf_size(w), d, t, (int16_t)off));
		off += (uint64_t)w;
	}
	dt_reg_free(g, d);
	dt_emit(g, I_MOV_IMM(t, 0));
	return t;
}

static int sou_ptr(struct dt_cg *g, const struct dt_var *v)
{
	int r = dt_reg(g);

	if (v->scope == DT_THIS)
		dt_cg_scratch_ptr(g, r, g->p->this_off + v->off);
	else
		dt_ld_map_value(g, r, DT_MAP_GLOBALS, v->off);
	return r;
}

/* a = b of structs or unions: b's bytes copied into a. Between global
 * and this-> variables word by word; otherwise b's bytes are read (from
 * memory, or where a map keeps them) into a scratch temporary, which is
 * copied into a global or this-> variable or stored as a self-> or an
 * associative array's element; a = 0 of such an element deletes it. */
static int cg_sou_copy(struct dt_cg *g, struct dt_node *n)
{
	struct dt_var *lv_var = n->a->var;
	uint64_t size = dt_type_size(&n->a->type), off = 0;
	bool dyn = lv_var->scope == DT_SELF || lv_var->scope == DT_ARRAY;

	if (dyn || !n->b->var ||
	    (n->b->var->scope != DT_GLOBAL && n->b->var->scope != DT_THIS) ||
	    n->b->in_mem)
		return cg_sou_store(g, n, size);

	int d = sou_ptr(g, n->a->var), s = sou_ptr(g, n->b->var);
	int t = dt_reg(g);

	while (off < size) {
		int w = size - off >= 8 ? 8 : size - off >= 4 ? 4 :
			size - off >= 2 ? 2 : 1;

		dt_emit(g, I_LDX(dt_bpf_size(w), t, s, (int16_t)off));
		dt_emit(g, I_STX(dt_bpf_size(w), d, t, (int16_t)off));
		off += (uint64_t)w;
	}
	dt_reg_free(g, s);
	dt_reg_free(g, d);
	dt_emit(g, I_MOV_IMM(t, 0));
	return t;
}

static int cg_assign(struct dt_cg *g, struct dt_node *n)
{
	if (n->a->type.kind == DT_TSOU &&
	    (n->b->type.kind == DT_TSOU || n->b->kind == N_INT))
		return cg_sou_copy(g, n);

	struct lval lv = lval_of(g, n->a);
	struct dt_type lt = n->a->type;
	int v;

	if (n->op == T_ASSIGN) {
		v = dt_cg_expr(g, n->b);
		if (lt.kind == DT_TSTR) {
			lval_store(g, &lv, v, n->b->type.ssize);
			return v;
		}
		dt_cg_normalize(g, v, &lt);
		lval_store(g, &lv, v, 0);
		return v;
	}
	/* Compound: a op= b is a = (type of a)(a op b). */
	struct dt_type c = n->op == T_SHL_ASSIGN || n->op == T_SHR_ASSIGN ?
			   promote(lt) : common(lt, n->b->type);
	int cur = lval_load(g, &lv);

	v = dt_cg_expr(g, n->b);
	dt_cg_normalize(g, cur, &c);
	if (n->op != T_SHL_ASSIGN && n->op != T_SHR_ASSIGN)
		dt_cg_normalize(g, v, &c);
	cg_arith(g, n->op, cur, v, &c);
	dt_cg_normalize(g, cur, &lt);
	lval_store(g, &lv, cur, 0);
	return cur;
}

static int cg_incdec(struct dt_cg *g, struct dt_node *n)
{
	struct lval lv = lval_of(g, n->a);
	int cur = lval_load(g, &lv), r;
	int step = n->op == T_INC ? 1 : -1;

	if (n->a->type.kind == DT_TPTR && dt_ptr_step(&n->a->type) > 1)
		step *= (int)dt_ptr_step(&n->a->type);
	if (n->kind == N_POSTINC) {
		r = dt_reg(g);
		dt_emit(g, I_MOV(r, cur));
		dt_emit(g, I_ALU64_IMM(BPF_ADD, cur, step));
		dt_cg_normalize(g, cur, &n->a->type);
		lval_store(g, &lv, cur, 0);
		dt_reg_free(g, cur);
		/* r was allocated after cur: move the result into cur's
		 * place by returning r and letting cur go first. */
		return r;
	}
	dt_emit(g, I_ALU64_IMM(BPF_ADD, cur, step));
	dt_cg_normalize(g, cur, &n->a->type);
	lval_store(g, &lv, cur, 0);
	return cur;
}

int dt_cg_expr(struct dt_cg *g, struct dt_node *n)
{
	struct dt_loc save = g->loc;
	int r;

	if (n->loc.line)
		g->loc = n->loc;
	switch (n->kind) {
	case N_INT:
		r = dt_reg(g);
		if (n->type.kind == DT_TSTR) {	/* NULL as a string (types.c) */
			dt_ld_map_value(g, r, DT_MAP_RODATA, g->p->null_off);
			break;
		}
		dt_ld_imm64(g, r, n->ival);
		dt_cg_normalize(g, r, &n->type);
		break;
	case N_SIZEOF:
		r = dt_reg(g);
		dt_ld_imm64(g, r, n->ival);
		break;
	case N_STR:
		r = dt_reg(g);
		dt_ld_map_value(g, r, DT_MAP_RODATA, n->lit_off);
		break;
	case N_VAR:
		if (n->bi) {
			r = cg_builtin(g, n);
			break;
		}
		/* fall through */
	case N_SELF: case N_THIS: case N_INDEX: {
		if (n->kind == N_INDEX && n->bi == BI_ARGS) {
			r = g->u->prov->cg_args(g, (int)n->ival);
			break;
		}
		if (n->kind == N_INDEX && n->bi == BI_UREGS) {
			r = cg_uregs(g, (int)n->ival);
			break;
		}
		struct lval lv = lval_of(g, n);

		r = lval_load(g, &lv);
		break;
	}
	case N_UNARY:
		if (n->op == T_STAR) {
			r = cg_mem_load(g, n);
			break;
		}
		if (n->op == T_AMP) {
			r = dt_cg_addr(g, n->a);
			break;
		}
		if (n->op == T_BANG) {
			int no = dt_label(g), done = dt_label(g);

			r = dt_cg_expr(g, n->a);
			dt_jmp_imm(g, BPF_JEQ, r, 0, no);
			dt_emit(g, I_MOV_IMM(r, 0));
			dt_jmp(g, done);
			dt_place(g, no);
			dt_emit(g, I_MOV_IMM(r, 1));
			dt_place(g, done);
			break;
		}
		r = dt_cg_expr(g, n->a);
		if (n->op == T_MINUS)
			dt_emit(g, I_ALU64_IMM(BPF_NEG, r, 0));
		else if (n->op == T_TILDE)
			dt_emit(g, I_ALU64_IMM(BPF_XOR, r, -1));
		dt_cg_normalize(g, r, &n->type);
		break;
	case N_BINARY:
		if (n->op == T_COMMA) {
			r = dt_cg_expr(g, n->a);
			if (r >= 0)
				dt_reg_free(g, r);
			r = dt_cg_expr(g, n->b);
			break;
		}
		r = cg_binary(g, n);
		break;
	case N_LOGICAL:
		r = cg_logical(g, n);
		break;
	case N_TERNARY:
		r = cg_ternary(g, n);
		break;
	case N_ASSIGN:
		r = cg_assign(g, n);
		break;
	case N_PREINC: case N_POSTINC:
		r = cg_incdec(g, n);
		break;
	case N_CAST:
		if (n->type.kind == DT_TSTR && n->a->type.kind == DT_TPTR) {
			r = cg_stringof(g, n);
			break;
		}
		r = dt_cg_expr(g, n->a);
		if (n->type.kind == DT_TVOID) {
			dt_reg_free(g, r);
			r = -1;
			break;
		}
		if (n->a->type.kind == DT_TSTR && n->type.kind == DT_TPTR) {
			/* a string's address: 0 for NULL, as DTrace's */
			int ok = dt_label(g);

			dt_cg_str_if_null(g, r, false, ok);
			dt_emit(g, I_MOV_IMM(r, 0));
			dt_place(g, ok);
		}
		dt_cg_normalize(g, r, &n->type);
		break;
	case N_CALL:
		r = n->fn->cg(g, n);
		break;
	case N_ADDR:
		r = dt_cg_addr(g, n->a);
		break;
	case N_MEMBER:
		if (n->in_mem) {
			r = cg_mem_load(g, n);
			break;
		}
		r = dt_cg_expr(g, n->a);
		r = dt_xlate_cg(g, n->a->type.xlate, (int)n->ival, r);
		break;
	default:
		dt_error(g->cc, &n->loc, "internal error: cannot generate "
			 "code for this expression");
	}
	g->loc = save;
	return r;
}

/* ---- aggregations ---- */

void dt_cg_agg(struct dt_cg *g, struct dt_node *s)
{
	struct dt_node *lhs = s->a, *call = s->b;
	struct dt_var *v = lhs->var;
	int val = -1, incr = -1, key, p, q, have = dt_label(g),
	    drop = dt_label(g), done = dt_label(g);
	/* the histograms' optional increment comes last */
	int incr_arg = v->fn == AGG_QUANTIZE ? 1 : v->fn == AGG_LQUANTIZE ? 4 :
		       v->fn == AGG_LLQUANTIZE ? 5 : -1;

	if (call->nargs) {
		val = dt_cg_expr(g, call->args[0]);
	}
	if (incr_arg > 0 && call->nargs > incr_arg)
		incr = dt_cg_expr(g, call->args[incr_arg]);
	key = cg_key(g, v, lhs->args, lhs->nargs < 0 ? 0 : lhs->nargs);
	p = cg_lookup(g, var_map(v), DT_SCRATCH_REG, key);
	dt_jmp_imm(g, BPF_JNE, p, 0, have);
	/* First time for this key on this CPU: insert zeros. */
	dt_call_begin(g);
	dt_ld_map(g, BPF_REG_1, var_map(v));
	dt_emit(g, I_MOV(BPF_REG_2, DT_SCRATCH_REG));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_2, key));
	if (v->val_size > 16) {
		dt_ld_map_value(g, BPF_REG_3, DT_MAP_RODATA, g->p->zero_off);
	} else {
		dt_emit(g, I_MOV(BPF_REG_3, DT_SCRATCH_REG));
		dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_3, DT_SCR(zero)));
	}
	dt_emit(g, I_MOV_IMM(BPF_REG_4, BPF_NOEXIST));
	dt_call(g, BPF_FUNC_map_update_elem);
	dt_call_end_void(g);
	q = cg_lookup(g, var_map(v), DT_SCRATCH_REG, key);
	dt_emit(g, I_MOV(p, q));
	dt_reg_free(g, q);
	dt_jmp_imm(g, BPF_JEQ, p, 0, drop);
	dt_place(g, have);

	dt_cg_agg_update(g, v, p, val, incr);
	dt_jmp(g, done);
	dt_place(g, drop);
	dt_cg_count(g, DT_SCR(counters.aggdrops));
	dt_place(g, done);
	dt_reg_free(g, p);
	dt_reg_free(g, incr);
	dt_reg_free(g, val);
}

/* ---- statements and clauses ---- */

static void cg_stmts(struct dt_cg *g, struct dt_node *s);

static void cg_stmt(struct dt_cg *g, struct dt_node *s)
{
	int r;

	g->stmt = s;
	g->loc = s->loc;
	g->temp_top = g->temp_floor;
	if (g->p->opt.testreject && s->loc.line == (int)g->p->opt.testreject) {
		/* Test hook: an instruction the verifier refuses (a read
		 * above the frame), to check rejections name the line. */
		dt_emit(g, I_LDX(BPF_DW, BPF_REG_0, BPF_REG_10, 8));
	}
	switch (s->kind) {
	case S_EXPR:
		r = dt_cg_expr(g, s->a);
		dt_reg_free(g, r);
		break;
	case S_AGG:
		dt_cg_agg(g, s);
		break;
	case S_IF: {
		int no = dt_label(g), done = dt_label(g);

		cg_cond(g, s->a, no);
		cg_stmt(g, s->b);
		if (s->c)
			dt_jmp(g, done);
		dt_place(g, no);
		if (s->c)
			cg_stmt(g, s->c);
		dt_place(g, done);
		break;
	}
	case S_BLOCK:
		cg_stmts(g, s->a);
		break;
	default:
		break;
	}
	if (g->regs.busy)
		dt_error(g->cc, &s->loc, "internal error: registers leaked "
			 "(0x%x)", g->regs.busy);
}

static void cg_stmts(struct dt_cg *g, struct dt_node *s)
{
	for (; s; s = s->next)
		cg_stmt(g, s);
}

static bool uses_self(struct dt_node *n)
{
	for (; n; n = n->next) {
		if (n->kind == N_SELF ||
		    (n->kind == N_INDEX && n->op == T_SELF))
			return true;
		if (uses_self(n->a) || uses_self(n->b) || uses_self(n->c))
			return true;
		for (int i = 0; i < n->nargs; i++)
			if (uses_self(n->args[i]))
				return true;
	}
	return false;
}

static void cg_clause(struct dt_cg *g, struct dt_clause *cl)
{
	int r;

	g->cl = cl;
	g->stmt = NULL;
	g->skip = dt_label(g);
	g->loc = cl->loc;
	g->temp_top = g->temp_floor = g->temp_base;
	dt_regs_reset(g);
	/* alloca()'s memory lasts for the clause */
	if (g->p->uses_alloca)
		dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, g->p->alloca_off +
				offsetof(struct dt_alloca, used), 0));
	/* A unit of many probes, or a kernel event shared with probes no
	 * clause enables: the provider tells them apart. */
	if (g->u->prov->cg_guard)
		g->u->prov->cg_guard(g, cl, g->skip);
	if (cl->pred) {
		g->loc = cl->pred->loc;
		cg_cond(g, cl->pred, g->skip);
		g->loc = cl->loc;
	}
	if (cl->emits) {
		int h = g->rec_base;

		dt_emit(g, I_ST(BPF_W, DT_SCRATCH_REG,
				h + offsetof(struct dt_rechdr, kind), DT_REC_DATA));
		dt_emit(g, I_ST(BPF_W, DT_SCRATCH_REG,
				h + offsetof(struct dt_rechdr, clause),
				cl->index));
		r = dt_reg(g);
		dt_emit(g, I_LDX(BPF_DW, r, BPF_REG_10, DT_FP_PROBE));
		dt_emit(g, I_STX(BPF_W, DT_SCRATCH_REG, r,
				 h + offsetof(struct dt_rechdr, probe)));
		dt_reg_free(g, r);
		r = cg_helper0(g, BPF_FUNC_get_smp_processor_id);
		dt_emit(g, I_STX(BPF_W, DT_SCRATCH_REG, r,
				 h + offsetof(struct dt_rechdr, cpu)));
		dt_reg_free(g, r);
	}
	cg_stmts(g, cl->body);
	g->stmt = NULL;
	g->loc = cl->loc;
	if (cl->emits) {
		int ok = dt_label(g);

		dt_call_begin(g);
		dt_ld_map(g, BPF_REG_1, DT_MAP_OUT);
		dt_emit(g, I_MOV(BPF_REG_2, DT_SCRATCH_REG));
		dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_2, g->rec_base));
		dt_emit(g, I_MOV_IMM(BPF_REG_3, cl->rec_size));
		dt_emit(g, I_MOV_IMM(BPF_REG_4, 0));
		dt_call(g, BPF_FUNC_ringbuf_output);
		dt_jmp_imm(g, BPF_JEQ, BPF_REG_0, 0, ok);
		dt_call_end_void(g);
		dt_cg_count(g, DT_SCR(counters.drops));
		dt_place(g, ok);
	}
	dt_place(g, g->skip);
}

void dt_cg_unit(struct dt_cg *g, struct dt_unit *u)
{
	int out, r;
	bool self = false;

	g->u = u;
	dt_emit_begin(g);
	g->loc = u->nclauses ? u->clauses[0]->loc : (struct dt_loc){ 0 };
	out = dt_label(g);
	/* The context, the scratch area, the exit flag. */
	dt_emit(g, I_STX(BPF_DW, BPF_REG_10, BPF_REG_1, DT_FP_CTX));
	/* The provider first: it may leave at once (a syscall no clause
	 * names) before any map is looked at. */
	if (u->prov->cg_prologue)
		u->prov->cg_prologue(g);
	dt_emit(g, I_ST(BPF_W, BPF_REG_10, DT_FP_KEY, 0));
	dt_ld_map(g, BPF_REG_1, DT_MAP_SCRATCH);
	dt_emit(g, I_MOV(BPF_REG_2, BPF_REG_10));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_2, DT_FP_KEY));
	dt_call(g, BPF_FUNC_map_lookup_elem);
	dt_jmp_imm(g, BPF_JEQ, BPF_REG_0, 0, out);
	dt_emit(g, I_MOV(DT_SCRATCH_REG, BPF_REG_0));
	/* -x cpu=N: only what fires on CPU N (dtrace-utils'
	 * dt_cg_tramp_prologue) */
	if (g->p->opt.cpu >= 0) {
		dt_call(g, BPF_FUNC_get_smp_processor_id);
		dt_jmp_imm(g, BPF_JNE, BPF_REG_0, (int32_t)g->p->opt.cpu, out);
	}
	if (!u->prov->after_exit || !u->prov->after_exit(u)) {
		dt_ld_map_value(g, BPF_REG_1, DT_MAP_GLOBALS,
				offsetof(struct dt_globals, exited));
		dt_emit(g, I_LDX(BPF_DW, BPF_REG_1, BPF_REG_1, 0));
		dt_jmp_imm(g, BPF_JNE, BPF_REG_1, 0, out);
	}
	r = u->prov->cg_probe_id(g);
	dt_emit(g, I_STX(BPF_DW, BPF_REG_10, r, DT_FP_PROBE));
	dt_reg_free(g, r);
	dt_emit(g, I_ST(BPF_DW, BPF_REG_10, DT_FP_TS, 0));
	for (int i = 0; i < u->nclauses; i++)
		self |= uses_self(u->clauses[i]->pred) ||
			uses_self(u->clauses[i]->body);
	g->temp_top = g->temp_base;	/* the provider's tid may need some */
	if (self && u->prov->cg_builtin &&
	    (r = u->prov->cg_builtin(g, BI_TID)) >= 0) {
		dt_emit(g, I_STX(BPF_DW, BPF_REG_10, r, DT_FP_TID));
		dt_reg_free(g, r);
	} else if (self) {
		dt_call(g, BPF_FUNC_get_current_pid_tgid);
		dt_emit(g, I_MOV32(BPF_REG_0, BPF_REG_0));
		dt_emit(g, I_STX(BPF_DW, BPF_REG_10, BPF_REG_0, DT_FP_TID));
	}
	/* Clause-locals start at zero in every firing. */
	for (int off = 0; off < g->p->this_size; off += 8)
		dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, g->p->this_off + off, 0));
	/* strtok(NULL, ...) before any strtok(s, ...) of the firing: none */
	if (g->p->uses_strtok)
		dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, g->p->strtok_off +
				offsetof(struct dt_strtok, pos), -1));
	for (int i = 0; i < u->nclauses; i++) {
		const struct dt_clause *cl = u->clauses[i];
		bool exits = false;

		cg_clause(g, u->clauses[i]);
		/* exit() ends the firing: the clauses after one that may
		 * have called it run only while no exit() was (DTrace) */
		for (int a = 0; a < cl->nacts; a++)
			exits |= cl->acts[a].kind == ACT_EXIT;
		if (exits && i + 1 < u->nclauses &&
		    (!u->prov->after_exit || !u->prov->after_exit(u))) {
			dt_ld_map_value(g, BPF_REG_1, DT_MAP_GLOBALS,
					offsetof(struct dt_globals, exited));
			dt_emit(g, I_LDX(BPF_DW, BPF_REG_1, BPF_REG_1, 0));
			dt_jmp_imm(g, BPF_JNE, BPF_REG_1, 0, out);
		}
	}
	dt_place(g, out);
	dt_emit(g, I_MOV_IMM(BPF_REG_0, 0));
	dt_emit(g, I_EXIT());
	if (g->chill_cb)
		dt_cg_chill_callback(g, g->chill_cb - 1);
	g->chill_cb = 0;
	dt_cg_str_callbacks(g);
	dt_emit_finish(g);
	u->insns = sd_malloc(sizeof(*u->insns) * g->n);
	memcpy(u->insns, g->insns, sizeof(*u->insns) * g->n);
	u->locs = sd_malloc(sizeof(*u->locs) * g->n);
	memcpy(u->locs, g->locs, sizeof(*u->locs) * g->n);
	u->ninsns = g->n;
}
