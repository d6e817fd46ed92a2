// SPDX-License-Identifier: GPL-2.0-only
/* proc provider — process and thread life cycle, from the scheduler's,
 * the signal code's and the system-call tracepoints (raw tracepoint
 * programs, one per tracepoint some enabled probe needs):
 *
 *   create, lwp-create   sched_process_fork (a new process, a new thread)
 *   start, lwp-start     sys_exit of clone/clone3/fork/vfork returning 0:
 *                        the first thing the new task does, in its context
 *                        (start in a new process, then lwp-start in every
 *                        new task, as dtrace-utils)
 *   exec                 sys_enter of execve/execveat
 *   exec-success         sched_process_exec
 *   exec-failure         sys_exit of execve/execveat with an error
 *                        (args[0] = the return value, -errno)
 *   exit, lwp-exit       sched_process_exit (lwp-exit in every thread,
 *                        then exit in the last)
 *   signal-send          signal_generate, in the sender
 *   signal-discard       signal_generate of a signal the target ignores
 *                        (result TRACE_SIGNAL_IGNORED), in the sender
 *   signal-handle        signal_deliver, in the receiver
 *   signal-clear         sys_exit of rt_sigtimedwait returning a signal
 *
 * args[] are DTrace's: psinfo_t and lwpsinfo_t pointers are the kernel's
 * task_struct, read through the translators in xlate.c; exit's args[0] is
 * CLD_EXITED, CLD_KILLED or CLD_DUMPED from the task's exit code. */
#include "kit.h"
#include "../btf.h"
#include "../emit.h"
#include "../../lib/bpf.h"
#include "../../lib/syscalls.h"
#include "../../lib/util.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>


enum {
	P_CREATE, P_LWP_CREATE, P_START, P_LWP_START, P_EXEC, P_EXEC_SUCCESS,
	P_EXEC_FAILURE, P_EXIT, P_LWP_EXIT, P_SIGNAL_SEND, P_SIGNAL_HANDLE,
	P_SIGNAL_CLEAR, P_SIGNAL_DISCARD, P_N
};

enum tp { TP_FORK, TP_ENTER, TP_EXIT, TP_EXEC, TP_PEXIT, TP_SIGGEN,
	  TP_SIGDELIVER };

/* A unit's arg: its tracepoint, and which of the two units of one
 * tracepoint it is: lwp-start, lwp-exit and signal-discard have units of
 * their own, so that one event fires two probes as in dtrace-utils (start
 * then lwp-start in a new process, lwp-exit then exit in its last thread,
 * signal-send then signal-discard); units of a tracepoint run in the
 * order of their arg. */
enum { UNIT_TP = 0xff, UNIT_LWP = 0x100, UNIT_LAST = 0x200 };

static const char *const tp_names[] = {
	[TP_FORK] = "sched_process_fork", [TP_ENTER] = "sys_enter",
	[TP_EXIT] = "sys_exit", [TP_EXEC] = "sched_process_exec",
	[TP_PEXIT] = "sched_process_exit", [TP_SIGGEN] = "signal_generate",
	[TP_SIGDELIVER] = "signal_deliver",
};

#define PSINFO { DT_TPTR, 8, false, 0, 8, false, DT_XL_PSINFO }
#define LWPSINFO { DT_TPTR, 8, false, 0, 8, false, DT_XL_LWPSINFO }
#define SIGINFO { DT_TPTR, 8, false, 0, 8, false, DT_XL_SIGINFO }
#define INT { DT_TINT, 4, true, 0, 0, false, 0 }
#define UPTR { DT_TINT, 8, false, 0, 0, false, 0 }
#define STRING { DT_TSTR, 0, false, 256, 0, false, 0 }

static const struct {
	const char *name;
	enum tp tp;
	int nargs;
	struct dt_type args[3];
} table[P_N] = {
	[P_CREATE] = { "create", TP_FORK, 1, { PSINFO } },
	[P_LWP_CREATE] = { "lwp-create", TP_FORK, 2, { LWPSINFO, PSINFO } },
	[P_START] = { "start", TP_EXIT, 0, { { 0 } } },
	[P_LWP_START] = { "lwp-start", TP_EXIT, 0, { { 0 } } },
	[P_EXEC] = { "exec", TP_ENTER, 1, { STRING } },
	[P_EXEC_SUCCESS] = { "exec-success", TP_EXEC, 0, { { 0 } } },
	[P_EXEC_FAILURE] = { "exec-failure", TP_EXIT, 1, { INT } },
	[P_EXIT] = { "exit", TP_PEXIT, 1, { INT } },
	[P_LWP_EXIT] = { "lwp-exit", TP_PEXIT, 0, { { 0 } } },
	[P_SIGNAL_SEND] = { "signal-send", TP_SIGGEN, 3,
			    { LWPSINFO, PSINFO, INT } },
	[P_SIGNAL_HANDLE] = { "signal-handle", TP_SIGDELIVER, 3,
			      { INT, SIGINFO, UPTR } },
	[P_SIGNAL_CLEAR] = { "signal-clear", TP_EXIT, 1, { INT } },
	[P_SIGNAL_DISCARD] = { "signal-discard", TP_SIGGEN, 3,
			       { LWPSINFO, PSINFO, INT } },
};

static struct dt_ptable *probes(struct dt_provs *ps)
{
	struct dt_ptable *t = dt_provs_state(ps, &dt_prov_proc);

	dt_ptable_init(t, &dt_prov_proc, DT_ID_PROC, "vmlinux",
		       &table[0].name, sizeof(table[0]), P_N);
	return t;
}

static void state_free(void *st)
{
	dt_ptable_free(st);
}

static int match(struct dt_provs *ps, const struct dt_pdesc *pd,
		 dt_probe_fn fn, void *arg)
{
	return dt_ptable_match(probes(ps), pd, fn, arg);
}

static struct dt_probe *by_id(struct dt_provs *ps, uint32_t id)
{
	return dt_ptable_by_id(probes(ps), id);
}

static void unit_of(const struct dt_probe *p, char *key, size_t len,
		    uint64_t *arg)
{
	bool lwp = p->arg == P_LWP_START || p->arg == P_LWP_EXIT;
	bool last = p->arg == P_EXIT || p->arg == P_SIGNAL_DISCARD;

	snprintf(key, len, "%s%s", tp_names[table[p->arg].tp],
		 lwp ? "+lwp" : p->arg == P_SIGNAL_DISCARD ? "+discard" : "");
	*arg = table[p->arg].tp | (lwp ? UNIT_LWP : 0) |
	       (last ? UNIT_LAST : 0);
}

static bool enabled(struct dt_cg *g, int probe)
{
	for (int i = 0; i < g->u->nprobes; i++)
		if (g->u->probes[i]->arg == (uint64_t)probe)
			return true;
	return false;
}

/* r1 = 4 bytes of kernel memory at r3 + off (via STASH2); r3 survives in
 * r6's care: the caller keeps it in r7. */
static void read4(struct dt_cg *g, int dst, int base, int off)
{
	dt_emit(g, I_ST(BPF_DW, BPF_REG_10, DT_FP_STASH2, 0));
	dt_emit(g, I_MOV(BPF_REG_1, BPF_REG_10));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_1, DT_FP_STASH2));
	dt_emit(g, I_MOV_IMM(BPF_REG_2, 4));
	dt_emit(g, I_MOV(BPF_REG_3, base));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_3, off));
	dt_call(g, BPF_FUNC_probe_read_kernel);
	dt_emit(g, I_LDX(BPF_W, dst, BPF_REG_10, DT_FP_STASH2));
}

static int btf_off(struct dt_cg *g, const char *type, const char *member)
{
	int off = dt_btf_member_offset(type, member);

	if (off < 0)
		dt_error(g->cc, NULL, "the proc provider needs the kernel's BTF "
			 "for %s.%s: %s", type, member,
			 sbpf_feature_missing(SBPF_BTF));
	return off;
}

/* id = probe if enabled: STASH1 = its id, then on to go (true). No
 * instruction may follow that unreachable (the verifier refuses). */
static bool fire(struct dt_cg *g, int probe, int go)
{
	if (!enabled(g, probe))
		return false;
	dt_emit(g, I_ST(BPF_DW, BPF_REG_10, DT_FP_STASH1,
			DT_ID_PROC + probe));
	dt_jmp(g, go);
	return true;
}

static bool jmp_nr(struct dt_cg *g, int reg, const char *name, int label)
{
	long nr = sc_number(sc_native(), name);

	if (nr >= 0)
		dt_jmp_imm(g, BPF_JEQ, reg, (int32_t)nr, label);
	return nr >= 0;
}

/* sys_exit: which of exec-failure, start, lwp-start and signal-clear it
 * is, from the number (r7) and the return value (r8). */
static void sys_exit_probes(struct dt_cg *g, int leave, int go)
{
	int ex = dt_label(g), clone = dt_label(g), wait = dt_label(g);
	bool fail = enabled(g, P_EXEC_FAILURE), clear = enabled(g,
								P_SIGNAL_CLEAR);
	bool start = enabled(g, P_START), lwp = enabled(g, P_LWP_START);

	if (fail) {
		jmp_nr(g, BPF_REG_7, "execve", ex);
		jmp_nr(g, BPF_REG_7, "execveat", ex);
	}
	if (start || lwp) {
		jmp_nr(g, BPF_REG_7, "clone", clone);
		jmp_nr(g, BPF_REG_7, "clone3", clone);
		jmp_nr(g, BPF_REG_7, "fork", clone);
		jmp_nr(g, BPF_REG_7, "vfork", clone);
	}
	if (clear)
		clear = jmp_nr(g, BPF_REG_7, "rt_sigtimedwait", wait);
	dt_jmp(g, leave);
	if (fail) {
		dt_place(g, ex);
		/* args[0] is the return value, -errno (dtrace-utils) */
		dt_jmp_imm(g, BPF_JSGE, BPF_REG_8, 0, leave);
		fire(g, P_EXEC_FAILURE, go);
	}
	if (lwp) {
		/* the child's first return: 0 in every new task (lwp-start's
		 * own unit, after start's) */
		dt_place(g, clone);
		dt_jmp_imm(g, BPF_JNE, BPF_REG_8, 0, leave);
		fire(g, P_LWP_START, go);
	} else if (start) {
		/* ... and start in a new process's first thread */
		dt_place(g, clone);
		dt_jmp_imm(g, BPF_JNE, BPF_REG_8, 0, leave);
		dt_call(g, BPF_FUNC_get_current_pid_tgid);
		dt_emit(g, I_MOV(BPF_REG_1, BPF_REG_0));
		dt_emit(g, I_ALU64_IMM(BPF_RSH, BPF_REG_1, 32));
		dt_emit(g, I_MOV32(BPF_REG_0, BPF_REG_0));
		dt_jmp_reg(g, BPF_JNE, BPF_REG_0, BPF_REG_1, leave);
		fire(g, P_START, go);
	}
	if (clear) {
		dt_place(g, wait);
		dt_jmp_imm(g, BPF_JSLE, BPF_REG_8, 0, leave);
		fire(g, P_SIGNAL_CLEAR, go);
	}
}

/* Which probe fired (to STASH1), its value argument (STASH2); leave when
 * none of the unit's probes did. r6 = context, r7, r8 scratch. */
static void prologue(struct dt_cg *g)
{
	int leave = dt_label(g), go = dt_label(g);

	dt_emit(g, I_LDX(BPF_DW, BPF_REG_6, BPF_REG_10, DT_FP_CTX));
	switch ((enum tp)(g->u->arg & UNIT_TP)) {
	case TP_FORK: {
		int thread = dt_label(g);

		dt_emit(g, I_LDX(BPF_DW, BPF_REG_7, BPF_REG_6, 8));
		read4(g, BPF_REG_8, BPF_REG_7, btf_off(g, "task_struct", "pid"));
		read4(g, BPF_REG_7, BPF_REG_7,
		      btf_off(g, "task_struct", "tgid"));
		dt_jmp_reg(g, BPF_JNE, BPF_REG_7, BPF_REG_8, thread);
		if (!fire(g, P_CREATE, go))
			dt_jmp(g, leave);
		dt_place(g, thread);
		fire(g, P_LWP_CREATE, go);
		break;
	}
	case TP_ENTER: {
		int at = dt_label(g);

		dt_emit(g, I_LDX(BPF_DW, BPF_REG_7, BPF_REG_6, 8));
		dt_emit(g, I_ST(BPF_DW, BPF_REG_10, DT_FP_STASH1,
				DT_ID_PROC + P_EXEC));
		dt_emit(g, I_ST(BPF_DW, BPF_REG_10, DT_FP_STASH2, 0));
		jmp_nr(g, BPF_REG_7, "execve", go);
		if (jmp_nr(g, BPF_REG_7, "execveat", at)) {
			dt_jmp(g, leave);
			dt_place(g, at);
			dt_emit(g, I_ST(BPF_DW, BPF_REG_10, DT_FP_STASH2, 1));
			dt_jmp(g, go);
		}
		break;
	}
	case TP_EXIT:
		dt_kit_sys_exit_nr(g, BPF_REG_6, BPF_REG_7);
		dt_emit(g, I_LDX(BPF_DW, BPF_REG_8, BPF_REG_6, 8));
		dt_emit(g, I_STX(BPF_DW, BPF_REG_10, BPF_REG_8, DT_FP_STASH2));
		sys_exit_probes(g, leave, go);
		break;
	case TP_PEXIT:
		/* lwp-exit in every thread (its own unit, first); exit in
		 * the last one (group_dead) */
		if (fire(g, P_LWP_EXIT, go))
			break;
		dt_emit(g, I_LDX(BPF_DW, BPF_REG_7, BPF_REG_6, 8));
		dt_emit(g, I_ALU64_IMM(BPF_AND, BPF_REG_7, 0xff));
		dt_jmp_imm(g, BPF_JEQ, BPF_REG_7, 0, leave);
		fire(g, P_EXIT, go);
		break;
	case TP_SIGGEN:
		if (fire(g, P_SIGNAL_SEND, go))
			break;
		/* signal-discard: result (arg4) is TRACE_SIGNAL_IGNORED */
		dt_emit(g, I_LDX(BPF_DW, BPF_REG_7, BPF_REG_6, 32));
		dt_jmp_imm(g, BPF_JNE, BPF_REG_7, 1, leave);
		fire(g, P_SIGNAL_DISCARD, go);
		break;
	case TP_EXEC: case TP_SIGDELIVER:
		/* one probe each: nothing to tell apart */
		dt_emit(g, I_ST(BPF_DW, BPF_REG_10, DT_FP_STASH1,
				(int32_t)g->u->probes[0]->id));
		dt_place(g, go);
		return;
	}
	if (dt_label_used(g, leave)) {
		dt_place(g, leave);
		dt_emit(g, I_MOV_IMM(BPF_REG_0, 0));
		dt_emit(g, I_EXIT());
	}
	dt_place(g, go);
}

static int probe_id(struct dt_cg *g)
{
	int r = dt_reg(g);

	dt_emit(g, I_LDX(BPF_DW, r, BPF_REG_10, DT_FP_STASH1));
	return r;
}

/* A clause that enables only some of the unit's probes tests the id. */
static void guard(struct dt_cg *g, struct dt_clause *cl, int skip)
{
	int ok = dt_label(g), r, n = 0;

	for (int i = 0; i < g->u->nprobes; i++)
		for (int j = 0; j < cl->nprobes; j++)
			n += cl->probes[j] == g->u->probes[i];
	if (n == g->u->nprobes)
		return;
	r = dt_reg(g);
	dt_emit(g, I_LDX(BPF_DW, r, BPF_REG_10, DT_FP_STASH1));
	for (int j = 0; j < cl->nprobes; j++)
		if (cl->probes[j]->prov == &dt_prov_proc)
			dt_jmp_imm(g, BPF_JEQ, r, (int32_t)cl->probes[j]->id,
				   ok);
	dt_jmp(g, skip);
	dt_place(g, ok);
	dt_reg_free(g, r);
}

static bool args_type(const struct dt_probe *p, int i, struct dt_type *t)
{
	if (i < 0 || i >= table[p->arg].nargs)
		return false;
	*t = table[p->arg].args[i];
	return true;
}

static int cg_args(struct dt_cg *g, int i)
{
	int r;

	switch ((enum tp)(g->u->arg & UNIT_TP)) {
	case TP_FORK:		/* (parent, child) */
		return dt_kit_tp_arg(g, 1);
	case TP_ENTER: {	/* the path: execve's arg0, execveat's arg1 */
		int buf = dt_cg_temp(g, 256), at = dt_label(g);

		r = dt_reg(g);
		dt_emit(g, I_LDX(BPF_DW, r, BPF_REG_10, DT_FP_STASH2));
		dt_call_begin(g);
		dt_emit(g, I_LDX(BPF_DW, BPF_REG_3, BPF_REG_10, DT_FP_CTX));
		dt_emit(g, I_LDX(BPF_DW, BPF_REG_3, BPF_REG_3, 0));
		dt_call_arg(g, BPF_REG_4, r);
		dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_3,
				       dt_ptregs.sys_arg[0]));
		dt_jmp_imm(g, BPF_JEQ, BPF_REG_4, 0, at);
		dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_3,
				       dt_ptregs.sys_arg[1] -
				       dt_ptregs.sys_arg[0]));
		dt_place(g, at);
		dt_emit(g, I_MOV(BPF_REG_1, DT_SCRATCH_REG));
		dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_1, buf));
		dt_emit(g, I_MOV_IMM(BPF_REG_2, 8));
		dt_call(g, BPF_FUNC_probe_read_kernel);
		/* the user pointer, then the string */
		for (int k = 0; k < 256; k += 8)
			if (k)
				dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, buf + k,
						0));
		dt_emit(g, I_LDX(BPF_DW, BPF_REG_3, DT_SCRATCH_REG, buf));
		dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, buf, 0));
		dt_emit(g, I_MOV(BPF_REG_1, DT_SCRATCH_REG));
		dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_1, buf));
		dt_emit(g, I_MOV_IMM(BPF_REG_2, 256));
		dt_call(g, BPF_FUNC_probe_read_user_str);
		dt_call_end_void(g);
		dt_cg_scratch_ptr(g, r, buf);
		return r;
	}
	case TP_EXIT:		/* exec-failure: -errno; signal-clear: sig */
		r = dt_reg(g);
		dt_emit(g, I_LDX(BPF_DW, r, BPF_REG_10, DT_FP_STASH2));
		return r;
	case TP_PEXIT: {	/* exit: CLD_* from task->exit_code */
		int off = btf_off(g, "task_struct", "exit_code");
		int done = dt_label(g), killed = dt_label(g);

		r = dt_cg_read(g, dt_kit_tp_arg(g, 0), off, 4,
			       BPF_FUNC_probe_read_kernel);
		/* (code & 0x7f) == 0: exited; 0x80: dumped; else killed */
		dt_emit(g, I_ALU64_IMM(BPF_AND, r, 0xff));
		dt_jmp_imm(g, BPF_JSET, r, 0x7f, killed);
		dt_emit(g, I_MOV_IMM(r, 1));		/* CLD_EXITED */
		dt_jmp(g, done);
		dt_place(g, killed);
		dt_emit(g, I_ALU64_IMM(BPF_RSH, r, 7));
		dt_emit(g, I_ALU64_IMM(BPF_ADD, r, 2));	/* CLD_KILLED, DUMPED */
		dt_place(g, done);
		return r;
	}
	case TP_SIGGEN:		/* (sig, info, task, group, result) */
		if (i == 2) {
			r = dt_kit_tp_arg(g, 0);
			dt_emit(g, I_MOV32(r, r));
			return r;
		}
		return dt_kit_tp_arg(g, 2);
	case TP_SIGDELIVER:	/* (sig, info, ka) */
		if (i == 0) {
			/* A fatal signal arrives as SIGKILL, the signal that
			 * kills in current->signal->group_exit_code: that
			 * one when set (dtrace-utils) */
			int keep = dt_label(g), t;

			r = dt_kit_tp_arg(g, 0);
			dt_emit(g, I_MOV32(r, r));
			dt_jmp_imm(g, BPF_JNE, r, 9 /* SIGKILL */, keep);
			dt_call_begin(g);
			dt_call(g, BPF_FUNC_get_current_task);
			t = dt_call_end(g);
			t = dt_cg_read(g, t, btf_off(g, "task_struct", "signal"),
				       8, BPF_FUNC_probe_read_kernel);
			t = dt_cg_read(g, t, btf_off(g, "signal_struct",
						     "group_exit_code"),
				       4, BPF_FUNC_probe_read_kernel);
			dt_emit(g, I_MOV32(t, t));
			dt_jmp_imm(g, BPF_JEQ, t, 0, keep);
			dt_emit(g, I_MOV(r, t));
			dt_place(g, keep);
			dt_reg_free(g, t);
			return r;
		}
		if (i == 1)
			return dt_kit_tp_arg(g, 1);
		/* k_sigaction.sa.sa_handler is its first word */
		return dt_cg_read(g, dt_kit_tp_arg(g, 2), 0, 8,
				  BPF_FUNC_probe_read_kernel);
	default:
		return dt_cg_const(g, 0);
	}
}

/* arg0..: the same values as args[] (pointers as integers). */
static int arg(struct dt_cg *g, int i)
{
	for (int j = 0; j < g->u->nprobes; j++)
		if (i >= table[g->u->probes[j]->arg].nargs)
			return dt_cg_const(g, 0);
	return cg_args(g, i);
}

static int probestr(struct dt_cg *g, int which)
{
	int r, t, done = dt_label(g);

	if (which != 3 || g->u->nprobes == 1)
		return dt_cg_probestr_const(g, which);
	/* the name: one of the unit's probes, by id */
	r = dt_reg(g);
	t = dt_reg(g);

	dt_emit(g, I_LDX(BPF_DW, t, BPF_REG_10, DT_FP_STASH1));
	for (int i = 0; i < g->u->nprobes; i++) {
		int next = dt_label(g);

		dt_jmp_imm(g, BPF_JNE, t, (int32_t)g->u->probes[i]->id, next);
		dt_ld_map_value(g, r, DT_MAP_RODATA,
				dt_literal(g->p, g->u->probes[i]->name,
					   DT_PROBESTR_SIZE));
		dt_jmp(g, done);
		dt_place(g, next);
	}
	dt_ld_map_value(g, r, DT_MAP_RODATA, g->p->empty_off);
	dt_place(g, done);
	dt_reg_free(g, t);
	return r;
}

static int attach(struct dt_unit *u, char *err, size_t len)
{
	return dt_kit_attach_raw_tp(u, tp_names[u->arg & UNIT_TP], err, len);
}

const struct dt_provider dt_prov_proc = {
	.name = "proc",
	.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT,
	.state_size = sizeof(struct dt_ptable),
	.state_free = state_free,
	.match = match,
	.by_id = by_id,
	.unit_of = unit_of,
	.ordered_units = true,
	.cg_prologue = prologue,
	.cg_guard = guard,
	.cg_probe_id = probe_id,
	.cg_arg = arg,
	.args_type = args_type,
	.cg_args = cg_args,
	.cg_probestr = probestr,
	.attach = attach,
	.needs = { 1 + SBPF_TRACEPOINTS, 1 + SBPF_BTF },
};
