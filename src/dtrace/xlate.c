// SPDX-License-Identifier: GPL-2.0-only
/* xlate — the translated structures of D's process providers: psinfo_t,
 * lwpsinfo_t and siginfo_t, whose members DTrace scripts read through
 * args[] and curpsinfo. The pointer a script holds is the kernel's own (a
 * task_struct, a kernel_siginfo); each member is computed from it with
 * probe_read_kernel at offsets found in the kernel's BTF when a script
 * uses the member, as dtrace-utils' translators do in D. */
#include "btf.h"
#include "emit.h"
#include "xlate.h"
#include "../lib/util.h"

#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRFNSZ 16	/* pr_fname */
#define PRARGSZ 80	/* pr_psargs */

enum how { PLAIN, STR, PSARGS, CPUID,
	CHIP,		/* the CPU's physical package (sysfs, a table) */
	NUMA,		/* the CPU's NUMA node */
	CONST,		/* size: the value */
	SELF,		/* the pointer itself (pr_addr) */
	STATE, SNAME, FLAG,	/* from task_struct.__state */
};

struct step {
	const char *type, *member;	/* BTF; type NULL: fixed offset */
	int off;			/* added to the member's */
	const char *type2, *member2;	/* a member of that member */
};

struct member {
	const char *name;
	struct dt_type type;
	enum how how;
	int size;		/* bytes read by the last step */
	struct step steps[3];
	int nsteps;
};

#define INT_T(sz, sg) { DT_TINT, sz, sg, 0, 0, false, 0 }
#define STR_T(n) { DT_TSTR, 0, false, n, 0, false, 0 }

static const struct member psinfo[] = {
	{ "pr_pid", INT_T(4, true), PLAIN, 4,
	  { { "task_struct", "tgid", 0 } }, 1 },
	{ "pr_ppid", INT_T(4, true), PLAIN, 4,
	  { { "task_struct", "real_parent", 0 }, { "task_struct", "tgid", 0 } },
	  2 },
	{ "pr_uid", INT_T(4, false), PLAIN, 4,
	  { { "task_struct", "real_cred", 0 }, { "cred", "uid", 0 } }, 2 },
	{ "pr_gid", INT_T(4, false), PLAIN, 4,
	  { { "task_struct", "real_cred", 0 }, { "cred", "gid", 0 } }, 2 },
	{ "pr_euid", INT_T(4, false), PLAIN, 4,
	  { { "task_struct", "real_cred", 0 }, { "cred", "euid", 0 } }, 2 },
	{ "pr_fname", STR_T(PRFNSZ), STR, PRFNSZ,
	  { { "task_struct", "comm", 0 } }, 1 },
	{ "pr_psargs", STR_T(PRARGSZ), PSARGS, PRARGSZ, { { 0 } }, 0 },
	/* as dtrace-utils' procfs.d translator */
	{ "pr_nlwp", INT_T(4, true), CONST, 1, { { 0 } }, 0 },
	{ "pr_pgid", INT_T(4, true), PLAIN, 4,
	  { { "task_struct", "signal", 0 }, { "signal_struct", "pids", 2 * 8 },
	    { "pid", "numbers", 0 } }, 3 },	/* PIDTYPE_PGID */
	{ "pr_sid", INT_T(4, true), PLAIN, 4,
	  { { "task_struct", "signal", 0 }, { "signal_struct", "pids", 3 * 8 },
	    { "pid", "numbers", 0 } }, 3 },	/* PIDTYPE_SID */
	{ "pr_egid", INT_T(4, false), PLAIN, 4,
	  { { "task_struct", "real_cred", 0 }, { "cred", "egid", 0 } }, 2 },
	{ "pr_addr", INT_T(8, false), SELF, 8, { { 0 } }, 0 },
	{ "pr_wstat", INT_T(4, true), CONST, 0, { { 0 } }, 0 },
	{ "pr_dmodel", INT_T(1, true), CONST, 2, { { 0 } }, 0 },	/* LP64 */
	{ "pr_taskid", INT_T(4, true), CONST, 0, { { 0 } }, 0 },
	{ "pr_projid", INT_T(4, true), CONST, 0, { { 0 } }, 0 },
	{ "pr_nzomb", INT_T(4, true), CONST, 0, { { 0 } }, 0 },
	{ "pr_poolid", INT_T(4, true), CONST, 0, { { 0 } }, 0 },
	{ "pr_zoneid", INT_T(4, true), CONST, 0, { { 0 } }, 0 },
	{ "pr_contract", INT_T(4, true), CONST, 0, { { 0 } }, 0 },
};

/* psinfo_t's members DTrace's translator leaves out */
static const char *const psinfo_noconv[] = {
	"pr_flag", "pr_size", "pr_rssize", "pr_pad", "pr_ttydev",
	"pr_pctcpu", "pr_pctmem", "pr_start", "pr_time", "pr_ctime",
	"pr_filler", "pr_lwp",
};

static const struct member lwpsinfo[] = {
	{ "pr_lwpid", INT_T(4, true), PLAIN, 4,
	  { { "task_struct", "pid", 0 } }, 1 },
	{ "pr_pri", INT_T(4, true), PLAIN, 4,
	  { { "task_struct", "prio", 0 } }, 1 },
	{ "pr_name", STR_T(PRFNSZ), STR, PRFNSZ,
	  { { "task_struct", "comm", 0 } }, 1 },
	{ "pr_flag", INT_T(4, true), FLAG, 4,
	  { { "task_struct", "__state", 0 } }, 1 },
	{ "pr_addr", INT_T(8, false), SELF, 8, { { 0 } }, 0 },
	{ "pr_wchan", INT_T(8, false), CONST, 0, { { 0 } }, 0 },
	{ "pr_stype", INT_T(1, true), CONST, 0, { { 0 } }, 0 },
	{ "pr_state", INT_T(1, true), STATE, 4,
	  { { "task_struct", "__state", 0 } }, 1 },
	{ "pr_sname", INT_T(1, true), SNAME, 4,
	  { { "task_struct", "__state", 0 } }, 1 },
	{ "pr_onpro", INT_T(4, true), PLAIN, 4,
	  { { "task_struct", "thread_info", 0, "thread_info", "cpu" } }, 1 },
};

static const char *const lwpsinfo_noconv[] = {
	"pr_nice", "pr_syscall", "pr_oldpri", "pr_cpu", "pr_pctcpu",
	"pr_pad", "pr_start", "pr_time", "pr_clname", "pr_bindpro",
	"pr_bindpset", "pr_lgrp", "pr_filler",
};

/* siginfo's layout is user ABI: fixed offsets. */
static const struct member siginfo[] = {
	{ "si_signo", INT_T(4, true), PLAIN, 4, { { NULL, NULL, 0 } }, 1 },
	{ "si_errno", INT_T(4, true), PLAIN, 4, { { NULL, NULL, 4 } }, 1 },
	{ "si_code", INT_T(4, true), PLAIN, 4, { { NULL, NULL, 8 } }, 1 },
	{ "si_pid", INT_T(4, true), PLAIN, 4, { { NULL, NULL, 16 } }, 1 },
	{ "si_uid", INT_T(4, false), PLAIN, 4, { { NULL, NULL, 20 } }, 1 },
	{ "si_status", INT_T(4, true), PLAIN, 4, { { NULL, NULL, 24 } }, 1 },
};

/* cpuinfo_t (curcpu): the CPU's number, processor set (Linux has none:
 * 0, as dtrace-utils), chip (its physical package id, which dtrace-utils
 * reads from sysfs) and locality group (its NUMA node); the pointer is
 * opaque. */
static const struct member cpuinfo[] = {
	{ "cpu_id", INT_T(4, true), CPUID, 4, { { 0 } }, 0 },
	{ "cpu_pset", INT_T(4, true), CONST, 0, { { 0 } }, 0 },
	{ "cpu_chip", INT_T(4, true), CHIP, 4, { { 0 } }, 0 },
	{ "cpu_lgrp", INT_T(4, true), NUMA, 4, { { 0 } }, 0 },
};

static const struct {
	const char *name;
	const struct member *m;
	int n;
	const char *const *noconv;
	int nnoconv;
} structs[] = {
	[DT_XL_PSINFO] = { "psinfo_t", psinfo, ARRAY_SIZE(psinfo),
			   psinfo_noconv, ARRAY_SIZE(psinfo_noconv) },
	[DT_XL_LWPSINFO] = { "lwpsinfo_t", lwpsinfo, ARRAY_SIZE(lwpsinfo),
			     lwpsinfo_noconv, ARRAY_SIZE(lwpsinfo_noconv) },
	[DT_XL_SIGINFO] = { "siginfo_t", siginfo, ARRAY_SIZE(siginfo) },
	[DT_XL_CPUINFO] = { "cpuinfo_t", cpuinfo, ARRAY_SIZE(cpuinfo) },
};

const char *dt_xlate_name(int xl)
{
	return xl > 0 && xl < (int)ARRAY_SIZE(structs) ? structs[xl].name :
	       "?";
}

bool dt_xlate_member(int xl, const char *name, struct dt_type *t, int *idx)
{
	if (xl <= 0 || xl >= (int)ARRAY_SIZE(structs))
		return false;
	for (int i = 0; i < structs[xl].n; i++)
		if (!strcmp(structs[xl].m[i].name, name)) {
			*t = structs[xl].m[i].type;
			*idx = i;
			return true;
		}
	return false;
}

bool dt_xlate_noconv(int xl, const char *name)
{
	if (xl <= 0 || xl >= (int)ARRAY_SIZE(structs))
		return false;
	for (int i = 0; i < structs[xl].nnoconv; i++)
		if (!strcmp(structs[xl].noconv[i], name))
			return true;
	return false;
}

static int btf_off(struct dt_cg *g, const char *type, const char *member)
{
	int off = dt_btf_member_offset(type, member);

	if (off < 0)
		dt_error(g->cc, &g->loc, "the kernel's BTF has no %s.%s (needed "
			 "by a translated member)", type, member);
	return off;
}

/* A string of size bytes (zero-padded) read from kernel ptr + off into
 * the scratch buffer at buf; frees ptr. */
static void read_str(struct dt_cg *g, int ptr, int off, int size, int buf)
{
	for (int i = 0; i < size; i += 8)
		dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, buf + i, 0));
	dt_call_begin(g);
	dt_call_arg(g, BPF_REG_3, ptr);
	if (off)
		dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_3, off));
	dt_emit(g, I_MOV(BPF_REG_1, DT_SCRATCH_REG));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_1, buf));
	dt_emit(g, I_MOV_IMM(BPF_REG_2, size));
	dt_call(g, BPF_FUNC_probe_read_kernel_str);
	dt_call_end_void(g);
	dt_reg_free(g, ptr);
}

static int load_slot(struct dt_cg *g, int slot)
{
	int r = dt_reg(g);

	dt_emit(g, I_LDX(BPF_DW, r, DT_SCRATCH_REG, slot));
	return r;
}

/* pr_psargs: the process's arguments (mm->arg_start .. arg_end, NULs made
 * spaces, at most 79 bytes). They are read from the current address
 * space, which holds the task's when the task shares the current mm
 * (itself, a thread of it) or has the same argument area in a copy of it
 * (a child just forked, as in proc:::create); for other tasks pr_psargs
 * is the command name, as for kernel threads. */
static int psargs(struct dt_cg *g, int task)
{
	/* 128 bytes: the read's length is masked to 127 for the verifier */
	int buf = dt_cg_temp(g, 128), slot = dt_cg_temp(g, 8);
	int st = dt_cg_temp(g, 8), len = dt_cg_temp(g, 8);
	int end = dt_cg_temp(g, 8);
	int off_mm = btf_off(g, "task_struct", "mm");
	int off_as = btf_off(g, "mm_struct", "arg_start");
	int off_ae = btf_off(g, "mm_struct", "arg_end");
	int off_comm = btf_off(g, "task_struct", "comm");
	int comm = dt_label(g), done = dt_label(g), clamp = dt_label(g);
	int r, m, c;

	for (int i = 0; i < 128; i += 8)
		dt_emit(g, I_ST(BPF_DW, DT_SCRATCH_REG, buf + i, 0));
	dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, task, slot));
	dt_reg_free(g, task);
	/* the task's mm against the current one */
	m = dt_cg_read(g, load_slot(g, slot), off_mm, 8,
			BPF_FUNC_probe_read_kernel);
	dt_call_begin(g);
	dt_call(g, BPF_FUNC_get_current_task);
	c = dt_call_end(g);
	c = dt_cg_read(g, c, off_mm, 8, BPF_FUNC_probe_read_kernel);
	dt_jmp_imm(g, BPF_JEQ, m, 0, comm);
	dt_jmp_imm(g, BPF_JEQ, c, 0, comm);
	/* the task's arguments: st, then the end in r */
	dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, c, len));
	dt_reg_free(g, c);
	dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, m, end));
	r = dt_cg_read(g, m, off_as, 8, BPF_FUNC_probe_read_kernel);
	dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, r, st));
	dt_reg_free(g, r);
	m = load_slot(g, end);
	r = dt_cg_read(g, m, off_ae, 8, BPF_FUNC_probe_read_kernel);
	dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, r, end));
	dt_reg_free(g, r);
	/* the same area in the current mm? */
	m = load_slot(g, len);
	r = dt_cg_read(g, m, off_as, 8, BPF_FUNC_probe_read_kernel);
	m = load_slot(g, st);
	dt_jmp_reg(g, BPF_JNE, r, m, comm);
	dt_reg_free(g, m);
	dt_reg_free(g, r);
	m = load_slot(g, len);
	r = dt_cg_read(g, m, off_ae, 8, BPF_FUNC_probe_read_kernel);
	m = load_slot(g, end);
	dt_jmp_reg(g, BPF_JNE, r, m, comm);
	dt_reg_free(g, r);
	r = m;
	m = load_slot(g, st);
	dt_emit(g, I_ALU64_REG(BPF_SUB, r, m));
	dt_reg_free(g, m);
	dt_jmp_imm(g, BPF_JSLE, r, 0, comm);
	dt_jmp_imm(g, BPF_JSLE, r, PRARGSZ - 1, clamp);
	dt_emit(g, I_MOV_IMM(r, PRARGSZ - 1));
	dt_place(g, clamp);
	dt_emit(g, I_STX(BPF_DW, DT_SCRATCH_REG, r, len));
	dt_reg_free(g, r);
	dt_call_begin(g);
	dt_emit(g, I_MOV(BPF_REG_1, DT_SCRATCH_REG));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_1, buf));
	dt_emit(g, I_LDX(BPF_DW, BPF_REG_2, DT_SCRATCH_REG, len));
	dt_emit(g, I_LDX(BPF_DW, BPF_REG_3, DT_SCRATCH_REG, st));
	/* bounds the verifier can see (the value is 1..79) */
	dt_emit(g, I_ALU64_IMM(BPF_AND, BPF_REG_2, 127));
	dt_call(g, BPF_FUNC_probe_read_user);
	dt_call_end_void(g);
	/* NULs between the arguments become spaces; the last stays */
	r = load_slot(g, len);
	c = dt_reg(g);
	dt_emit(g, I_ALU64_IMM(BPF_SUB, r, 1));
	for (int i = 0; i < PRARGSZ - 1; i++) {
		int next = dt_label(g);

		dt_jmp_imm(g, BPF_JLE, r, i, done);
		dt_emit(g, I_LDX(BPF_B, c, DT_SCRATCH_REG, buf + i));
		dt_jmp_imm(g, BPF_JNE, c, 0, next);
		dt_emit(g, I_ST(BPF_B, DT_SCRATCH_REG, buf + i, ' '));
		dt_place(g, next);
	}
	dt_reg_free(g, c);
	dt_reg_free(g, r);
	dt_jmp(g, done);
	dt_place(g, comm);
	read_str(g, load_slot(g, slot), off_comm, PRFNSZ, buf);
	dt_place(g, done);
	r = dt_reg(g);
	dt_cg_scratch_ptr(g, r, buf);
	return r;
}

/* pr_state, pr_sname and pr_flag from a task's __state, as
 * dtrace-utils' lwpsinfo_t translator: the first bit set decides. */
static int task_state(struct dt_cg *g, int st, enum how how)
{
	static const struct { uint32_t mask; char state, sname; } map[] = {
		{ 0x0001, 1, 'S' },	/* TASK_INTERRUPTIBLE: SSLEEP */
		{ 0x0002, 1, 'S' },	/* TASK_UNINTERRUPTIBLE */
		{ 0x0004, 4, 'T' },	/* __TASK_STOPPED: SSTOP */
		{ 0x0008, 4, 'T' },	/* __TASK_TRACED */
		{ 0x0020, 3, 'Z' },	/* EXIT_ZOMBIE: SZOMB */
		{ 0x0010, 3, 'Z' },	/* EXIT_DEAD */
		{ 0x0080, 3, 'Z' },	/* TASK_DEAD */
		{ 0x0100, 7, 'W' },	/* TASK_WAKEKILL: SWAIT */
		{ 0x0200, 7, 'W' },	/* TASK_WAKING */
	};
	int r = dt_reg(g), done = dt_label(g);

	if (how == FLAG) {	/* PR_STOPPED */
		dt_emit(g, I_MOV(r, st));
		dt_emit(g, I_ALU64_IMM(BPF_RSH, r, 2));
		dt_emit(g, I_ALU64_IMM(BPF_AND, r, 1));
		dt_reg_free(g, st);
		return r;
	}
	for (size_t i = 0; i < ARRAY_SIZE(map); i++) {
		int next = dt_label(g);

		dt_emit(g, I_MOV(r, st));
		dt_emit(g, I_ALU64_IMM(BPF_AND, r, (int32_t)map[i].mask));
		dt_jmp_imm(g, BPF_JEQ, r, 0, next);
		dt_emit(g, I_MOV_IMM(r, how == STATE ? map[i].state :
				     map[i].sname));
		dt_jmp(g, done);
		dt_place(g, next);
	}
	dt_emit(g, I_MOV_IMM(r, how == STATE ? 2 : 'R'));	/* SRUN */
	dt_place(g, done);
	dt_reg_free(g, st);
	return r;
}

/* The physical package of each possible CPU (sysfs topology), in the
 * read-only data; the current CPU's, 0 past the table. */
static int cpu_chip(struct dt_cg *g)
{
	int n = libbpf_num_possible_cpus(), off, r, t, out = dt_label(g);
	int32_t *chip;

	if (n < 1)
		n = 1;
	chip = sd_calloc((size_t)n, sizeof(*chip));
	for (int i = 0; i < n; i++) {
		char path[96];
		FILE *f;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/"
			 "topology/physical_package_id", i);
		f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%d", &chip[i]) != 1)
				chip[i] = 0;
			fclose(f);
		}
	}
	off = dt_rodata_add(g->p, chip, sizeof(*chip) * (size_t)n);
	free(chip);
	dt_call_begin(g);
	dt_call(g, BPF_FUNC_get_smp_processor_id);
	r = dt_call_end(g);
	t = dt_reg(g);
	dt_emit(g, I_MOV_IMM(t, 0));
	dt_jmp_imm(g, BPF_JGE, r, n, out);
	dt_emit(g, I_ALU64_IMM(BPF_LSH, r, 2));
	dt_ld_map_value(g, t, DT_MAP_RODATA, off);
	dt_emit(g, I_ALU64_REG(BPF_ADD, t, r));
	dt_emit(g, I_LDX(BPF_W, t, t, 0));
	dt_place(g, out);
	dt_reg_free(g, r);
	return t;
}

int dt_xlate_cg(struct dt_cg *g, int xl, int idx, int ptr)
{
	const struct member *m = &structs[xl].m[idx];
	int r = ptr;

	if (m->how == PSARGS)
		return psargs(g, ptr);
	if (m->how == CONST || m->how == SELF) {
		if (m->how == SELF)
			return ptr;
		dt_reg_free(g, ptr);
		return dt_cg_const(g, m->size);
	}
	if (m->how == CPUID || m->how == NUMA) {
		dt_reg_free(g, ptr);
		dt_call_begin(g);
		dt_call(g, m->how == CPUID ? BPF_FUNC_get_smp_processor_id :
			BPF_FUNC_get_numa_node_id);
		return dt_call_end(g);
	}
	if (m->how == CHIP) {
		dt_reg_free(g, ptr);
		return cpu_chip(g);
	}
	for (int i = 0; i < m->nsteps; i++) {
		const struct step *s = &m->steps[i];
		int off = s->type ? btf_off(g, s->type, s->member) + s->off :
			  s->off;
		bool last = i == m->nsteps - 1;

		if (s->type2)
			off += btf_off(g, s->type2, s->member2);

		if (last && m->how == STR) {
			int buf = dt_cg_temp(g, m->size);

			read_str(g, r, off, m->size, buf);
			r = dt_reg(g);
			dt_cg_scratch_ptr(g, r, buf);
			return r;
		}
		r = dt_cg_read(g, r, off, last ? m->size : 8,
				BPF_FUNC_probe_read_kernel);
	}
	if (m->how == STATE || m->how == SNAME || m->how == FLAG)
		r = task_state(g, r, m->how);
	dt_cg_normalize(g, r, &m->type);
	return r;
}
