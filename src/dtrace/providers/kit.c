// SPDX-License-Identifier: GPL-2.0-only
/* kit — what providers share (see kit.h). */
#include "kit.h"
#include "../emit.h"
#include "../../lib/bpf.h"
#include "../../lib/util.h"

#include <asm/ptrace.h>
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- fixed tables ---- */

void dt_ptable_init(struct dt_ptable *t, const struct dt_provider *prov,
		    uint32_t first_id, const char *mod,
		    const char *const *name0, size_t stride, size_t n)
{
	if (t->probes)
		return;
	t->probes = sd_calloc(n, sizeof(*t->probes));
	t->n = n;
	for (size_t i = 0; i < n; i++) {
		const char *const *name = (const void *)((const char *)name0 +
							 i * stride);

		t->probes[i] = (struct dt_probe){ first_id + (uint32_t)i, prov,
						  mod, "", *name, i };
	}
}

void dt_ptable_free(struct dt_ptable *t)
{
	free(t->probes);
	t->probes = NULL;
	t->n = 0;
}

int dt_ptable_match(struct dt_ptable *t, const struct dt_pdesc *pd,
		    dt_probe_fn fn, void *arg)
{
	int n = 0;

	if (!t->n || !dt_glob(pd->mod, t->probes[0].mod) ||
	    !dt_glob(pd->func, ""))
		return 0;
	for (size_t i = 0; i < t->n; i++)
		if (dt_glob(pd->name, t->probes[i].name))
			n += fn(&t->probes[i], arg);
	return n;
}

struct dt_probe *dt_ptable_by_id(struct dt_ptable *t, uint32_t id)
{
	if (!t->n || id < t->probes[0].id || id - t->probes[0].id >= t->n)
		return NULL;
	return &t->probes[id - t->probes[0].id];
}

void dt_kit_unit_by_name(const struct dt_probe *p, char *key, size_t len,
			 uint64_t *arg)
{
	snprintf(key, len, "%s", p->name);
	*arg = p->arg;
}

/* ---- struct pt_regs ---- */

#if defined(__x86_64__)
#define R(f) ((int)offsetof(struct pt_regs, f))
const struct dt_ptregs dt_ptregs = {
	.call_arg = { R(rdi), R(rsi), R(rdx), R(rcx), R(r8), R(r9) },
	.ncall_args = 6,
	.stack_first = 8,	/* past the return address */
	.sys_arg = { R(rdi), R(rsi), R(rdx), R(r10), R(r8), R(r9) },
	.ret = R(rax),
	.sp = R(rsp),
	.pc = R(rip),
	.sys_nr = R(orig_rax),
	.sys_nr_size = 8,
	.mode = R(cs),		/* CPL 3 is user */
	.mode_mask = 3,
	.mode_user = 3,
};

static const struct { const char *names[4]; int off; } named[] = {
	{ { "rax", "eax", "ax", "al" }, R(rax) },
	{ { "rbx", "ebx", "bx", "bl" }, R(rbx) },
	{ { "rcx", "ecx", "cx", "cl" }, R(rcx) },
	{ { "rdx", "edx", "dx", "dl" }, R(rdx) },
	{ { "rsi", "esi", "si", "sil" }, R(rsi) },
	{ { "rdi", "edi", "di", "dil" }, R(rdi) },
	{ { "rbp", "ebp", "bp", "bpl" }, R(rbp) },
	{ { "rsp", "esp", "sp", "spl" }, R(rsp) },
	{ { "r8", "r8d", "r8w", "r8b" }, R(r8) },
	{ { "r9", "r9d", "r9w", "r9b" }, R(r9) },
	{ { "r10", "r10d", "r10w", "r10b" }, R(r10) },
	{ { "r11", "r11d", "r11w", "r11b" }, R(r11) },
	{ { "r12", "r12d", "r12w", "r12b" }, R(r12) },
	{ { "r13", "r13d", "r13w", "r13b" }, R(r13) },
	{ { "r14", "r14d", "r14w", "r14b" }, R(r14) },
	{ { "r15", "r15d", "r15w", "r15b" }, R(r15) },
	{ { "rip", "eip", "ip", "ip" }, R(rip) },
};

int dt_ptregs_by_name(const char *s, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(named); i++)
		for (int j = 0; j < 4; j++)
			if (strlen(named[i].names[j]) == n &&
			    !strncmp(named[i].names[j], s, n))
				return named[i].off;
	return -1;
}
#elif defined(__aarch64__)
#define R(f) ((int)offsetof(struct user_pt_regs, f))
const struct dt_ptregs dt_ptregs = {
	.call_arg = { R(regs[0]), R(regs[1]), R(regs[2]), R(regs[3]),
		      R(regs[4]), R(regs[5]), R(regs[6]), R(regs[7]) },
	.ncall_args = 8,
	.stack_first = 0,	/* stack arguments start at sp */
	.sys_arg = { R(regs[0]), R(regs[1]), R(regs[2]), R(regs[3]),
		     R(regs[4]), R(regs[5]) },
	.ret = R(regs[0]),
	.sp = R(sp),
	.pc = R(pc),
	/* the kernel's pt_regs: user_pt_regs, orig_x0, then syscallno */
	.sys_nr = (int)sizeof(struct user_pt_regs) + 8,
	.sys_nr_size = 4,
	.mode = R(pstate),	/* EL0 has mode bits 0 */
	.mode_mask = 0xf,
	.mode_user = 0,
};

int dt_ptregs_by_name(const char *s, size_t n)
{
	(void)s;
	(void)n;
	return -1;
}
#else
#error "sonde dtrace: struct pt_regs offsets for this architecture"
#endif

/* ---- code ---- */

int dt_kit_probe_id(struct dt_cg *g)
{
	return dt_cg_const(g, g->u->probes[0]->id);
}

int dt_cg_probestr_const(struct dt_cg *g, int which)
{
	int r = dt_reg(g);
	const char *s = dt_probe_field(g->u->probes[0], which);

	dt_ld_map_value(g, r, DT_MAP_RODATA,
			dt_literal(g->p, s, DT_PROBESTR_SIZE));
	return r;
}

int dt_kit_tp_arg(struct dt_cg *g, int i)
{
	int r = dt_cg_ctx(g);

	dt_emit(g, I_LDX(BPF_DW, r, r, 8 * i));
	return r;
}

int dt_kit_entry_arg(struct dt_cg *g, int i, int read_fn)
{
	int r;

	if (i < dt_ptregs.ncall_args) {
		r = dt_cg_ctx(g);
		dt_emit(g, I_LDX(BPF_DW, r, r, dt_ptregs.call_arg[i]));
		return r;
	}
	/* a word of the stack at entry */
	r = dt_cg_ctx(g);
	dt_emit(g, I_LDX(BPF_DW, r, r, dt_ptregs.sp));
	return dt_cg_read(g, r, dt_ptregs.stack_first +
			  8 * (i - dt_ptregs.ncall_args), 8, read_fn);
}

int dt_kit_return_arg(struct dt_cg *g, int i)
{
	int r;

	if (i == 1) {
		r = dt_cg_ctx(g);
		dt_emit(g, I_LDX(BPF_DW, r, r, dt_ptregs.ret));
		return r;
	}
	return dt_cg_const(g, i == 0 ? -1 : 0);
}

void dt_kit_sys_exit_nr(struct dt_cg *g, int ctx, int dst)
{
	dt_emit(g, I_ST(BPF_DW, BPF_REG_10, DT_FP_STASH1, -1));
	dt_emit(g, I_MOV(BPF_REG_1, BPF_REG_10));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_1, DT_FP_STASH1));
	dt_emit(g, I_MOV_IMM(BPF_REG_2, dt_ptregs.sys_nr_size));
	dt_emit(g, I_LDX(BPF_DW, BPF_REG_3, ctx, 0));
	dt_emit(g, I_ALU64_IMM(BPF_ADD, BPF_REG_3, dt_ptregs.sys_nr));
	dt_call(g, BPF_FUNC_probe_read_kernel);
	dt_emit(g, I_LDX(dt_bpf_size(dt_ptregs.sys_nr_size), dst, BPF_REG_10,
			 DT_FP_STASH1));
}

int dt_kit_attach_raw_tp(struct dt_unit *u, const char *tp, char *err,
			 size_t len)
{
	int fd = bpf_raw_tracepoint_open(tp, u->prog_fd);

	if (fd < 0) {
		char e[160];
		int ret = -errno;

		snprintf(err, len, "attaching to the %s tracepoint: %s", tp,
			 sbpf_strerror(errno, e, sizeof(e)));
		return ret;
	}
	u->fds = sd_calloc(1, sizeof(int));
	u->fds[u->nfds++] = fd;
	return 0;
}
