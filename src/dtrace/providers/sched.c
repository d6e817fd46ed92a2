// SPDX-License-Identifier: GPL-2.0-only
/* sched provider — the scheduler's tracepoints as DTrace's sched probes
 * (raw tracepoint programs):
 *
 *   off-cpu   sched_switch, in the outgoing thread; args[0], args[1]: the
 *             lwpsinfo_t and psinfo_t of the incoming one
 *   on-cpu    sched_switch, for the incoming thread: pid, tid, execname,
 *             ppid, vtimestamp, curpsinfo, curlwpsinfo and self-> are the
 *             incoming thread's (the tracepoint runs before the switch,
 *             so the program reads them from the next task)
 *   sleep     sched_switch of a thread that blocks (not preempted, state
 *             not running), in that thread
 *   preempt   sched_switch of a thread that is preempted (in the kernel,
 *             or still runnable: a preemption on the way back to user
 *             space is a plain schedule() to the kernel), in that thread
 *   wakeup    sched_wakeup, in the waker; args[0], args[1]: the lwpsinfo_t
 *             and psinfo_t of the thread woken
 *
 * Each probe is its own program (on-cpu and off-cpu see different
 * threads as current), so the programs on sched_switch run in this order
 * for each switch: off-cpu, sleep, preempt, then on-cpu. enqueue, dequeue,
 * change-pri, remain-cpu and tick have no tracepoint on Linux. */
#include "kit.h"
#include "../emit.h"
#include "../xlate.h"
#include "../../lib/bpf.h"
#include "../../lib/util.h"

#include <string.h>

enum { S_OFF_CPU, S_SLEEP, S_PREEMPT, S_ON_CPU, S_WAKEUP, S_N };

#define PSINFO { DT_TPTR, 8, false, 0, 8, false, DT_XL_PSINFO }
#define LWPSINFO { DT_TPTR, 8, false, 0, 8, false, DT_XL_LWPSINFO }

static const struct {
	const char *name, *tp;
	int nargs;
	int task;		/* the context word of args[0..1]'s task */
} table[S_N] = {
	[S_OFF_CPU] = { "off-cpu", "sched_switch", 2, 2 },
	[S_SLEEP] = { "sleep", "sched_switch", 0, 0 },
	[S_PREEMPT] = { "preempt", "sched_switch", 0, 0 },
	[S_ON_CPU] = { "on-cpu", "sched_switch", 0, 2 },
	[S_WAKEUP] = { "wakeup", "sched_wakeup", 2, 0 },
};

static struct dt_ptable *probes(struct dt_provs *ps)
{
	struct dt_ptable *t = dt_provs_state(ps, &dt_prov_sched);

	dt_ptable_init(t, &dt_prov_sched, DT_ID_SCHED, "vmlinux",
		       &table[0].name, sizeof(table[0]), S_N);
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

/* sleep and preempt: leave for the other switches. sched_switch's raw
 * arguments: (preempt, prev, next, prev_state); r7 preempt, r8 state. */
static void prologue(struct dt_cg *g)
{
	int go = dt_label(g);

	if (g->u->arg != S_SLEEP && g->u->arg != S_PREEMPT)
		return;
	dt_emit(g, I_LDX(BPF_DW, BPF_REG_6, BPF_REG_10, DT_FP_CTX));
	dt_emit(g, I_LDX(BPF_DW, BPF_REG_7, BPF_REG_6, 0));
	dt_emit(g, I_ALU64_IMM(BPF_AND, BPF_REG_7, 0xff));
	dt_emit(g, I_LDX(BPF_DW, BPF_REG_8, BPF_REG_6, 24));
	dt_emit(g, I_MOV32(BPF_REG_8, BPF_REG_8));
	if (g->u->arg == S_PREEMPT) {
		dt_jmp_imm(g, BPF_JNE, BPF_REG_7, 0, go);
		dt_jmp_imm(g, BPF_JEQ, BPF_REG_8, 0, go);
	} else {
		int leave = dt_label(g);

		dt_jmp_imm(g, BPF_JNE, BPF_REG_7, 0, leave);
		dt_jmp_imm(g, BPF_JNE, BPF_REG_8, 0, go);
		dt_place(g, leave);
	}
	dt_emit(g, I_MOV_IMM(BPF_REG_0, 0));
	dt_emit(g, I_EXIT());
	dt_place(g, go);
}

static bool args_type(const struct dt_probe *p, int i, struct dt_type *t)
{
	static const struct dt_type psinfo = PSINFO, lwpsinfo = LWPSINFO;

	if (i < 0 || i >= table[p->arg].nargs)
		return false;
	*t = i == 0 ? lwpsinfo : psinfo;
	return true;
}

static int task(struct dt_cg *g)
{
	return dt_kit_tp_arg(g, table[g->u->arg].task);
}

static int cg_args(struct dt_cg *g, int i)
{
	(void)i;
	return task(g);
}

static int arg(struct dt_cg *g, int i)
{
	if (i < table[g->u->arg].nargs)
		return task(g);
	return dt_cg_const(g, 0);
}

/* on-cpu: the incoming task's pid, tid, ppid, execname, vtimestamp. */
static int builtin(struct dt_cg *g, int bi)
{
	static const struct { int bi, xl; const char *member; } map[] = {
		{ BI_PID, DT_XL_PSINFO, "pr_pid" },
		{ BI_PPID, DT_XL_PSINFO, "pr_ppid" },
		{ BI_EXECNAME, DT_XL_PSINFO, "pr_fname" },
		{ BI_TID, DT_XL_LWPSINFO, "pr_lwpid" },
	};
	struct dt_type t;
	int idx;

	if (g->u->arg != S_ON_CPU)
		return -1;
	if (bi == BI_CURPSINFO || bi == BI_CURLWPSINFO)
		return task(g);
	if (bi == BI_VTIMESTAMP)	/* its time on a CPU so far */
		return dt_cg_read(g, task(g), g->off_sum_exec, 8,
				  BPF_FUNC_probe_read_kernel);
	for (size_t i = 0; i < ARRAY_SIZE(map); i++) {
		if (map[i].bi != bi)
			continue;
		dt_xlate_member(map[i].xl, map[i].member, &t, &idx);
		return dt_xlate_cg(g, map[i].xl, idx, task(g));
	}
	return -1;
}

static int attach(struct dt_unit *u, char *err, size_t len)
{
	return dt_kit_attach_raw_tp(u, table[u->arg].tp, err, len);
}

const struct dt_provider dt_prov_sched = {
	.name = "sched",
	.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT,
	.state_size = sizeof(struct dt_ptable),
	.state_free = state_free,
	.match = match,
	.by_id = by_id,
	.unit_of = dt_kit_unit_by_name,
	.cg_prologue = prologue,
	.cg_probe_id = dt_kit_probe_id,
	.cg_arg = arg,
	.args_type = args_type,
	.cg_args = cg_args,
	.cg_builtin = builtin,
	.cg_probestr = dt_cg_probestr_const,
	.ordered_units = true,
	.attach = attach,
	.needs = { 1 + SBPF_TRACEPOINTS, 1 + SBPF_BTF },
};
